"""The fake Messages API: a ``Request -> Response`` function with the state of one scenario run.

Flow for each request (DESIGN.md): route and parse (rules 1-3, 32) -> expand a thread
continuation -> validate (the rule table, ``_rules``) -> the scenario decides the reply ->
the simulated model shapes it (``_model``) -> JSON or SSE. Every exchange goes in the journal.
Errors are answered the way the API answers them, as a Response with the API's error body and
a ``request-id`` header, never as an exception, so the SDK raises its own classes
(``BadRequestError``...). The one exception is :class:`agentlab.RunawayLoop`, raised on purpose.
Should the fake itself raise (a bug), ``handle`` answers a 500 ``api_error`` that names agentlab
and asks to report it (rule ``"internal"`` in the journal), never an exception the SDK would
report as a connection error. Requests are answered one at a time under ``FakeAPI.lock``.

Retries: injected 429/500/529 faults carry ``retry-after-ms: 1``, so the SDK's own retries
(3 attempts by default) wait 1 ms each and nothing sleeps longer. Clients that should not retry
can be made with ``max_retries=0``.
"""

from __future__ import annotations

import copy
import hashlib
import json
import threading
import time
from collections import Counter, OrderedDict
from dataclasses import dataclass
from typing import Any

import httpx2

from .._i18n import language
from ..errors import RunawayLoop
from ._cache import PromptCache
from ._context import ApiError, PrefixMemo, RequestContext
from ._ids import IdFactory
from ._journal import JOURNAL_LIMIT, Exchange, Journal
from ._model import generate
from ._models_api import answer as models_answer
from ._replies import FAULT_TEXTS
from ._rules import built_index, validate, validate_http
from ._scenario import Scenario, Turn
from ._sse import encode_events, encode_json, error_event, message_events
from ._thinking import ThinkingLedger

__all__ = ["FakeAPI", "THREADS_BETA"]

_RUNAWAY_HINT = {
    "en": "Branch on stop_reason, append the assistant turn and the tool results, and keep a step cap as a "
          "safety net. (Experimenting by hand? Make a new client with agentlab.fake_client(...).)",
    "es": "Ramifica sobre stop_reason, añade el turno del asistente y los resultados de herramientas, y mantén "
          "un límite de pasos como red de seguridad. (¿Pruebas a mano? Crea un cliente nuevo con "
          "agentlab.fake_client(...).)",
}

RUNS_PER_CONVERSATION = 10
"""How many full run budgets one conversation (one first user message, with its system prompt)
may use on one client, re-runs included: a cell re-run by hand a few dozen times stays under
it, a loop that starts the same conversation again after every answer does not."""

CLIENT_REQUEST_CAP = 10_000
"""The fewest ``/v1/messages`` requests one client may make in all before
:class:`RunawayLoop` (``scope="client"``); see :attr:`FakeAPI.client_limit`. Independent requests
(each a new first user message) are never a runaway on their own, so this only bounds a loop that
never ends yet starts a new conversation every time (one that restarts with its own summary as
the first message): ten times what the journal keeps, far above a lesson's or a test's use.
Raise it with ``runaway_after=`` (the cap grows with the run budget)."""

HISTORY_LIMIT = JOURNAL_LIMIT
"""How many entries each per-client table keeps (the most recently used): the repeat map
(``Exchange.repeat_of``), the threads the server holds and the conversations' budgets (the
prompt cache has its own, ``_cache.CACHE_ENTRIES``). The same bound as the journal's, so a
repeat still points at a step the journal may show; an older entry is forgotten, and a
``thread: continue`` naming a forgotten message gets the 404 of an unknown one (unknown: the
real API's retention of threads is not documented; the fake's choice)."""

_FINISHED = ("end_turn", "stop_sequence")
"""Stop reasons after which the same first message alone starts a new run of its conversation."""


@dataclass
class _Conversation:
    """The runaway guard's count for one conversation (one first user message)."""

    used: int = 0
    """Requests in the current run (since the conversation last started again after a finish)."""
    total: int = 0
    """Requests over all its runs on this client."""
    last_stop: str | None = None
    """The stop reason of the reply to its latest request; None before one, or after an error."""


def _digest(value: bytes | str) -> bytes:
    """A 16-byte fingerprint of a request body or key (never the raw body: memory stays flat)."""
    data = value if isinstance(value, bytes) else value.encode("utf-8", "surrogatepass")
    return hashlib.blake2b(data, digest_size=16).digest()


def _remember(table: OrderedDict, key: Any, value: Any) -> None:
    """Put ``key`` in an LRU table as its most recent entry, dropping the oldest past :data:`HISTORY_LIMIT`."""
    table[key] = value
    table.move_to_end(key)
    while len(table) > HISTORY_LIMIT:
        table.popitem(last=False)

RUNAWAY_THROTTLE_SECONDS = 0.05
"""Delay before each request that follows a swallowed RunawayLoop (see ``_check_runaway``)."""

THREADS_BETA = "message-threads-2026-08-12"
"""The beta the SDK's threads (and so its tool runner) use: ``thread: {"type": "create"}`` /
``{"type": "continue", "previous_message_id": ...}``; the server holds the conversation."""


INTERNAL_ERROR = {
    "en": "Internal error in agentlab's fake Messages API ({kind}); this is a bug in agentlab, not in your "
          "code: please report it with the request that caused it.",
    "es": "Error interno en la API de Messages simulada de agentlab ({kind}); es un fallo de agentlab, no de tu "
          "código: por favor, infórmalo junto con la petición que lo causó.",
}
"""The message of the 500 ``api_error`` the fake answers when it raises inside (the fake's own
text: the real API's 500 says only "Internal server error")."""


def _retry_count(value: str | None) -> int:
    """The SDK's ``x-stainless-retry-count`` header as an int; 0 when absent or not a small
    non-negative integer (the header is informational: the fake never rejects a request for it)."""
    value = (value or "").strip()
    return int(value) if value.isascii() and value.isdigit() and len(value) <= 6 else 0


def _as_text(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


class FakeAPI:
    """One run of a scenario: ids, thinking ledger, server-held threads and the journal.

    Args:
        scenario: what the simulated model says.
        runaway_after: override of ``scenario.runaway_after`` (requests allowed past the
            scenario's need before :class:`~agentlab.RunawayLoop` is raised).
        shared: True for a fake that many independent clients share (``agentlab serve``: every
            process that sends one API key): only the ``"run"`` scope of the runaway guard
            applies (a conversation started again and again, and the client-wide cap, are what
            many clients do, not one loop), and a runaway is not sticky: the request that goes
            past the limit, and the rest of that run, get it, while a new run of the same
            conversation (its first message alone) starts afresh. Default False: one client, one
            kernel, where the guard must also stop a loop that catches ``BaseException``.
        id_seed: the seed of the ids (``msg_``, ``toolu_``, ``req_``...; default the scenario's
            name, so the same scenario gives the same ids on every client).
    """

    def __init__(self, scenario: Scenario, *, runaway_after: int | None = None, shared: bool = False,
                 id_seed: str | None = None) -> None:
        self.scenario = scenario
        self.shared = shared
        self.ids = IdFactory(scenario.name if id_seed is None else id_seed)
        self.ledger = ThinkingLedger()
        self.cache = PromptCache()
        self._memo = PrefixMemo()
        self.journal = Journal(scenario=scenario.name)
        self.runaway_after = scenario.runaway_after if runaway_after is None else runaway_after
        self._threads: OrderedDict[str, dict[str, Any]] = OrderedDict()
        self._fault_attempts: Counter[tuple[int, str]] = Counter()
        self._seen: OrderedDict[bytes, int] = OrderedDict()
        self._conversations: OrderedDict[bytes, _Conversation] = OrderedDict()
        self._current: _Conversation | None = None
        self._steps = 0
        self._parked: threading.Event | None = None
        self._requests_total = 0
        self._runaway: tuple[tuple[Any, ...], str] | None = None
        """The arguments and scope of the RunawayLoop raised, once it was."""
        self.lock = threading.RLock()
        """Held while a request is answered (see :meth:`handle`); re-entrant for policies."""

    def park_requests(self) -> None:
        """From now on, any request blocks its thread forever. The grader calls this on a loop it
        could not stop (one that swallows even ``BaseException``), so the abandoned daemon thread
        sleeps instead of spinning."""
        self._parked = threading.Event()

    @property
    def request_limit(self) -> int:
        """The most ``/v1/messages`` requests one run of a conversation may make before
        :class:`RunawayLoop` (``needed + runaway_after``)."""
        return self.scenario.request_budget + self.runaway_after

    @property
    def client_limit(self) -> int:
        """The most ``/v1/messages`` requests this client may make in all:
        :data:`CLIENT_REQUEST_CAP`, or :data:`RUNS_PER_CONVERSATION` run budgets if that is more."""
        return max(CLIENT_REQUEST_CAP, RUNS_PER_CONVERSATION * self.request_limit)

    # ---------------------------------------------------------------------------------------
    def handle(self, request: httpx2.Request) -> httpx2.Response:
        """Answer one request (the transport calls this). Raises only :class:`RunawayLoop`.

        Args:
            request: an ``httpx2.Request`` whose body has been read.

        Returns:
            The API's answer: a Message (JSON or SSE), ``count_tokens``'s ``{"input_tokens"}``,
            or an error body with the API's status and type. Any exception inside the fake (a bug:
            no input should cause one) becomes a 500 ``api_error`` whose message names agentlab,
            the exception's type and asks to report it (:data:`INTERNAL_ERROR`), journaled with
            rule ``"internal"``; the SDK then raises ``InternalServerError`` instead of the
            misleading ``APIConnectionError: Connection error.``. ``KeyboardInterrupt`` and
            :class:`RunawayLoop` (BaseExceptions) propagate.

        Thread safety: requests are answered one at a time under :attr:`lock` (ids, journal
        indices, runaway counters, the repeat map and held threads are one consistent history).
        The work is synchronous and short (no I/O, linear in the request's size), so an async
        client's event loop is never held for long.
        """
        if self._parked is not None:
            self._parked.wait()  # never set: the thread sleeps until the process ends
        with self.lock:
            held: list[Exchange] = []
            try:
                return self._handle(request, held)
            except Exception as exc:  # noqa: BLE001 - the one catch-all: a bug must not look like a network error
                try:
                    return self._internal_error(held, exc)
                except Exception:  # noqa: BLE001 - the journal or encoder itself failed: answer without them
                    body = {"type": "error", "request_id": None,
                            "error": {"type": "api_error", "message": INTERNAL_ERROR["en"].format(kind=type(exc).__name__)}}
                    return httpx2.Response(500, content=json.dumps(body).encode(),
                                           headers={"content-type": "application/json", "x-should-retry": "false"})

    def _handle(self, request: httpx2.Request, held: list[Exchange]) -> httpx2.Response:
        headers: dict[str, str] = {}
        for name, value in request.headers.raw:  # names lower-cased; a repeated header joined as HTTP does
            key, text = name.decode("latin-1").lower(), value.decode("latin-1")
            headers[key] = f"{headers[key]}, {text}" if key in headers else text
        attempt = _retry_count(headers.get("x-stainless-retry-count"))
        endpoint, body, error = validate_http(request.url.path, request.method, headers, request.content)
        gateway = self.scenario.gateway_params
        if gateway and endpoint == "messages" and isinstance(body, dict):
            # A gateway's defaults (Scenario.gateway_params): what the request omits, the API receives.
            body = {**body, **{k: copy.deepcopy(v) for k, v in gateway.items() if k not in body}}
        stream = bool(isinstance(body, dict) and body.get("stream") is True)
        exchange = Exchange(
            index=self.journal.next_index, endpoint=endpoint or "unknown", request=body, messages=[],
            stream=stream, status=200, request_id=self.ids.next("req"), attempt=attempt,
        )
        if endpoint == "messages":
            self._check_runaway(body)
            exchange.step = self._steps
            self._steps += 1
        self.journal.append(exchange)
        held.append(exchange)
        if error is not None:
            return self._error(exchange, error)
        assert body is not None and endpoint is not None
        if endpoint == "models":
            return self._models(exchange, request)

        full, error = self._expand_thread(body)
        if error is not None:
            return self._error(exchange, error)
        if self.scenario.thinking_default is not None and "thinking" not in full:
            full = {**full, "thinking": dict(self.scenario.thinking_default)}
        exchange.messages = full.get("messages") if isinstance(full.get("messages"), list) else []
        trusted = self._memo.trusted(full.get("messages"))
        if trusted:
            # The same JSON as the last valid request's first messages: keep one copy of each, so
            # the journal (every request re-sends the whole history) grows with the conversation,
            # not with its square.
            full["messages"][:trusted] = self._memo.messages[:trusted]
        # No "cache_control" in the bytes sent (and no \u escape that could spell it): no breakpoint
        # to look for; a thread's held history may carry some, so it is always looked at.
        marked = "thread" in full or b"cache_control" in request.content or b"\\u" in request.content
        ctx = RequestContext(endpoint=endpoint, body=full, headers=headers, marked=marked,
                             options=self.scenario.validation, ledger=self.ledger,
                             trusted=trusted, known_tokens=self._memo.tokens[:trusted],
                             prior_index=self._memo.index)
        error = validate(ctx)
        if error is not None:
            return self._error(exchange, error)
        ctx.input_tokens  # noqa: B018 - counted now, so the memo gets every message's count
        self._memo.remember(exchange.messages, ctx.message_tokens, built_index(ctx))

        if endpoint == "count_tokens":
            exchange.response = {"input_tokens": ctx.input_tokens}
            return self._json(exchange, exchange.response)

        return self._create(exchange, ctx, full, request.content)

    def _internal_error(self, held: list[Exchange], exc: Exception) -> httpx2.Response:
        """The 500 for an exception inside the fake, journaled on the request's exchange (or on
        a new one when the exception came before it was made)."""
        if held:
            exchange = held[0]
            exchange.response = None
        else:
            exchange = Exchange(index=self.journal.next_index, endpoint="unknown", request=None, messages=[],
                                stream=False, status=500, request_id=self.ids.next("req"))
            self.journal.append(exchange)
        message = INTERNAL_ERROR[language()].format(kind=type(exc).__name__)
        # Retrying cannot help: the fake is deterministic, so the same request fails the same way.
        return self._error(exchange, ApiError(status=500, error_type="api_error", message=message, rule="internal",
                                              headers={"x-should-retry": "false"}))

    def _conversation_key(self, body: dict[str, Any] | None) -> tuple[bytes, bool]:
        """The fingerprint of the conversation a request belongs to, and whether the request
        starts it (its only message is the first one).

        A conversation is its system prompt and first message: a new first user message is a new
        task. A ``thread: continue`` belongs to the held thread's conversation and never starts
        one; one naming no held message is keyed by that id (retrying it is one conversation).
        A body that is not a JSON object, or has no messages, is keyed by what it has, so a loop
        that re-sends it forever stays in one conversation."""
        if not isinstance(body, dict):
            return _digest("not an object"), False
        messages = body.get("messages")
        thread = body.get("thread")
        if isinstance(thread, dict) and thread.get("type") == "continue":
            previous = thread.get("previous_message_id")
            held = self._threads.get(previous) if isinstance(previous, str) else None
            if held is None:
                return _digest(_as_text(["thread", previous])), False
            return _digest(_as_text([held["system"], held["messages"][:1]])), False
        first = messages[:1] if isinstance(messages, list) else messages
        starts = isinstance(messages, list) and len(messages) == 1
        return _digest(_as_text([body.get("system"), first])), starts

    def _check_runaway(self, body: dict[str, Any] | None) -> None:
        """Count a ``/v1/messages`` request against its conversation's budget; raise RunawayLoop past it.

        Every request counts, rejected ones included (a loop that retries a 400 forever is a
        runaway too). Each conversation (:meth:`_conversation_key`: a new first user message is
        a new task) has its own budget of :attr:`request_limit` requests per run, whatever other
        conversations do in between, so independent requests (a batch of one-shot extractions,
        chats cut by ``max_tokens``) never add up. Three things raise (``RunawayLoop.scope``):

        - ``"run"``: one run goes past :attr:`request_limit`: a loop that never stops (a growing
          conversation), never appends (the same request again: ``Exchange.repeat_of``) or
          retries a 400 forever.
        - ``"conversation"``: the conversation's first message alone, after a finished reply
          (``end_turn``/``stop_sequence``), starts a new run (a re-run cell is not a runaway),
          up to :data:`RUNS_PER_CONVERSATION` run budgets in all; past that it is a loop that
          restarts after every answer (the message says to make a new client).
        - ``"client"``: the client's requests in all pass :attr:`client_limit`.

        Once raised, every later request on this client raises the same error again (a loop
        that swallows it is slowed down) without growing the journal.
        """
        if self._runaway is not None:
            # The loop caught RunawayLoop (``except BaseException``) and called again. Slow it down
            # so it cannot starve the rest of the process (the grader's watchdog, a kernel's
            # interrupt handling); a correct loop never gets here, so no output depends on it.
            time.sleep(RUNAWAY_THROTTLE_SECONDS)
            args, scope = self._runaway
            raise RunawayLoop(self.scenario.name, *args, scope=scope)
        key, starts = self._conversation_key(body)
        conversation = self._conversations.get(key) or _Conversation()
        _remember(self._conversations, key, conversation)
        if starts and (conversation.last_stop in _FINISHED or (self.shared and conversation.used > self.request_limit)):
            conversation.used = 0
        conversation.used += 1
        conversation.total += 1
        conversation.last_stop = None  # set by the reply, if one comes
        self._current = conversation
        self._requests_total += 1
        if conversation.used > self.request_limit:
            args: tuple[Any, ...] = (conversation.used, self.request_limit, _RUNAWAY_HINT[language()])
            scope = "run"
        elif self.shared:
            return
        elif conversation.total > RUNS_PER_CONVERSATION * self.request_limit:
            args, scope = (conversation.total, RUNS_PER_CONVERSATION * self.request_limit), "conversation"
        elif self._requests_total > self.client_limit:
            args, scope = (self._requests_total, self.client_limit), "client"
        else:
            return
        if not self.shared:
            self._runaway = (args, scope)
        messages = body.get("messages") if isinstance(body, dict) else None
        self.journal.append(Exchange(
            index=self.journal.next_index, endpoint="messages", request=body,
            messages=list(messages) if isinstance(messages, list) else [],
            stream=False, status=0, request_id="", step=self._steps, rule="runaway",
            error={"type": "runaway_loop", "message": "RunawayLoop raised"}))
        self._steps += 1
        raise RunawayLoop(self.scenario.name, *args, scope=scope)

    # ---------------------------------------------------------------------------------------
    def _create(self, exchange: Exchange, ctx: RequestContext, full: dict[str, Any], raw: bytes) -> httpx2.Response:
        messages = exchange.messages
        # The SDK serialises the same request to the same bytes; a threaded request is compared
        # as the whole conversation it stands for.
        key = _digest(raw if "thread" not in full else _as_text({k: v for k, v in full.items() if k != "thread"}))
        exchange.repeat_of = self._seen.get(key)
        _remember(self._seen, key, (exchange.step or 0) if exchange.repeat_of is None else exchange.repeat_of)

        conversation = tuple([m for m in messages if isinstance(m, dict)])
        turn = Turn(
            messages=conversation,
            index=[m.get("role") for m in conversation].count("assistant"),
            model=full["model"], system=full.get("system"),
            tools=tuple(t for t in full.get("tools") or [] if isinstance(t, dict)),
            tool_choice=full.get("tool_choice"), max_tokens=full.get("max_tokens"),
            thinking=full.get("thinking"),
        )
        exchange.turn = turn.index
        reply = self.scenario.reply_for(turn)

        fault = reply.fault
        stream_fault = False
        if fault is not None and (fault.kind == "http" or exchange.stream):
            slot = (turn.index, fault.kind)
            if self._fault_attempts[slot] < fault.times:
                self._fault_attempts[slot] += 1
                if fault.kind == "http":
                    error_type, text = FAULT_TEXTS[fault.status]
                    return self._error(exchange, ApiError(
                        status=fault.status, error_type=error_type, message=text, rule="fault",
                        headers={"retry-after-ms": "1", "x-should-retry": "true"}))
                stream_fault = True

        uncached, written, read = self.cache.apply(full, ctx.input_tokens, marked=ctx.marked)
        generated = generate(reply, ctx, ids=self.ids, input_tokens=uncached, cache_creation=written, cache_read=read)
        message = generated.message
        self.ledger.record(message["content"])
        if self._current is not None:
            self._current.last_stop = message["stop_reason"]
        exchange.response = message
        if isinstance(exchange.request.get("thread"), dict) and message["stop_reason"] != "refusal":
            _remember(self._threads, message["id"], {
                "system": full.get("system"), "tools": full.get("tools"),
                "messages": [*messages, {"role": "assistant", "content": message["content"]}],
            })

        if not exchange.stream:
            return self._json(exchange, message)
        events = message_events(message, generated.partial_json)
        if stream_fault:
            events = events[: max(1, fault.after_events)] + [error_event()]
            exchange.error = events[-1]["error"]
        return httpx2.Response(
            200, headers={"content-type": "text/event-stream", "request-id": exchange.request_id},
            content=encode_events(events),
        )

    def _expand_thread(self, body: dict[str, Any]) -> tuple[dict[str, Any], ApiError | None]:
        """The request as a whole conversation: a ``thread: continue`` gets the held history,
        system and tools in front of what it sends."""
        thread = body.get("thread")
        if not isinstance(thread, dict) or thread.get("type") != "continue":
            return body, None
        previous = thread.get("previous_message_id")
        held = self._threads.get(previous) if isinstance(previous, str) else None
        if held is None:
            return body, ApiError(status=404, error_type="not_found_error", rule="thread",
                                  message=f"thread: no thread holds the message {previous!r}",
                                  details={"error_code": "thread_not_found"},
                                  headers={"x-should-retry": "false"})
        for name in ("system", "tools"):
            if name in body:
                return body, ApiError(status=400, error_type="invalid_request_error", rule="thread",
                                      message=f"{name}: cannot be set when continuing a thread; the thread keeps the {name} it was created with",
                                      headers={"x-should-retry": "false"})
        sent = body.get("messages")
        if not isinstance(sent, list):
            return body, None  # validation reports the type error
        full = {k: v for k, v in body.items() if k != "messages"}
        for name in ("system", "tools"):
            if held[name] is not None:
                full[name] = held[name]
        full["messages"] = [*held["messages"], *sent]
        return full, None

    def _models(self, exchange: Exchange, request: httpx2.Request) -> httpx2.Response:
        """``GET /v1/models`` and ``GET /v1/models/{model_id}`` (``_models_api``), on the scenario's "today"."""
        query = request.url.query
        query = query.decode("utf-8", "replace") if isinstance(query, bytes) else str(query)
        exchange.request = {"path": request.url.path, "query": query}
        result = models_answer(request.url.path, query, self.scenario.validation.today)
        if isinstance(result, ApiError):
            return self._error(exchange, result)
        exchange.response = result
        return self._json(exchange, result)

    # ---------------------------------------------------------------------------------------
    def _json(self, exchange: Exchange, payload: dict[str, Any]) -> httpx2.Response:
        return _json_response(200, payload, {"request-id": exchange.request_id})

    def _error(self, exchange: Exchange, error: ApiError) -> httpx2.Response:
        exchange.status, exchange.rule = error.status, error.rule
        detail: dict[str, Any] = {"type": error.error_type, "message": error.message}
        if error.details:
            detail["details"] = error.details
        exchange.error = detail
        body = {"type": "error", "error": detail, "request_id": exchange.request_id}
        headers = {"request-id": exchange.request_id}
        if error.status < 500 and error.status != 429:
            headers["x-should-retry"] = "false"
        headers.update(error.headers)
        return _json_response(error.status, body, headers)


def _json_response(status: int, payload: dict[str, Any], headers: dict[str, str]) -> httpx2.Response:
    """A JSON response the SDK can always read: the bytes ``httpx2.Response(json=...)`` sends
    (compact, UTF-8), except that a lone surrogate echoed from the request (Python's
    ``json.loads`` accepts ``"\\ud800"``, UTF-8 cannot encode it) is written as its JSON escape
    instead of failing, so it round-trips to the same string."""
    return httpx2.Response(status, content=encode_json(payload),
                           headers={**headers, "content-type": "application/json"})
