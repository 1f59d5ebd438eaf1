"""The ASGI app: HTTP in, the same :class:`~agentlab.fake.FakeAPI` the in-process transport uses, HTTP out.

Like the transport (STYLE.md section 1) it only reads the body and calls a function; validation,
scenarios and the journal live in ``agentlab.fake``. What it adds is the choice of state per
request, since an HTTP server has many clients where a transport has one:

- the API key (``x-api-key``, or ``Authorization: Bearer``) names a **session**: its own
  FakeAPI (ids, journal, runaway guard, held threads). A key equal to a scenario name, or
  ``NAME:anything`` (``weather:alice``), runs that scenario; any other key runs the default
  scenario (the generic model unless told otherwise). A path prefix ``/scenario/NAME/v1/...``
  picks the scenario whatever the key says;
- ``/agentlab/...`` routes read the session over HTTP: the journal, the scenario's tools, a reset.

Sessions are kept for the :data:`SESSION_LIMIT` most recently used keys. Keys that are not
scenario names are never stored or shown: a session is named by the scenario and a short
fingerprint of the key (someone may point a real key at the fake by mistake).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any, Awaitable, Callable
from urllib.parse import parse_qs, unquote

import httpx2

from .._i18n import language
from ..errors import RunawayLoop
from ..fake._api import INTERNAL_ERROR, FakeAPI
from ..fake._catalogue import SCENARIOS, get_scenario
from ..fake._journal import Exchange, Journal
from ..fake._rules import MAX_REQUEST_BYTES
from ..fake._scenario import Scenario

__all__ = ["FakeApp", "Session", "SESSION_LIMIT", "session_name"]

SESSION_LIMIT = 256
"""Sessions (distinct API keys, per scenario) kept at once; the least recently used is forgotten
(its journal with it). A class of learners on one server stays far below it."""

PREFIX = "/scenario/"
"""Path prefix that picks the scenario: ``/scenario/weather/v1/messages``."""

Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]
ToolRunner = Callable[[str, Any], Any]
Listener = Callable[["Session", Exchange], None]


@dataclass
class Session:
    """The state behind one API key (and scenario): a FakeAPI and how its tools run."""

    name: str
    """How the session is shown: ``weather``, ``weather:alice``, or ``generic#1a2b3c4d`` (a key
    that names no scenario is shown as the scenario and a fingerprint, never as itself)."""
    api: FakeAPI
    """The fake behind it (its ``journal`` is the session's journal)."""
    run_tool: ToolRunner | None = None
    """What ``POST /agentlab/tool`` runs: the one given to :meth:`FakeApp.register`, else the
    scenario's own ``run_tool`` (None: the scenario has no tools to run)."""
    seen: int = field(default=0, repr=False)
    """Journal entries already handed to listeners."""

    @property
    def journal(self) -> Journal:
        """The session's journal (``api.journal``)."""
        return self.api.journal


def _fingerprint(key: str) -> str:
    return hashlib.blake2b(key.encode("utf-8", "surrogatepass"), digest_size=4).hexdigest()


def session_name(key: str, scenario: str | None = None) -> tuple[str, str]:
    """The scenario a key runs and the session's display name.

    Args:
        key: the API key sent.
        scenario: a scenario named by the path (``/scenario/NAME/...``), which wins over the key.

    Returns:
        ``(scenario, name)``: the scenario name, or ``""`` for "the app's default"; the name is
        the key itself when it is ``NAME`` or ``NAME:label`` for a built-in scenario, else
        ``"<scenario>#<8 hex digits>"``.
    """
    head = key.split(":", 1)[0]
    if head in SCENARIOS:
        if scenario is None or scenario == head:
            return head, key
        return scenario, f"{scenario}#{_fingerprint(key)}"
    return (scenario or ""), f"{scenario or '*'}#{_fingerprint(key)}"


class FakeApp:
    """The fake Messages API as an ASGI 3 application (serve it with uvicorn, or call it in-process
    with ``httpx2.ASGITransport``).

    Routes:

    - ``POST /v1/messages``, ``POST /v1/messages/count_tokens``, ``GET /v1/models[/{id}]``: the
      API, answered by the session's :class:`FakeAPI` exactly as the in-process transport does
      (same rules, texts, status codes, ``request-id`` headers, SSE bytes). Also under
      ``/scenario/NAME/``.
    - ``GET /agentlab/journal?key=K[&format=text][&lang=es]``: the session's journal,
      ``Journal.to_dict()`` as JSON or its transcript as text (the key may come in ``x-api-key``).
    - ``GET /agentlab/sessions``: ``{"sessions": [{"name", "scenario", "requests"}]}``.
    - ``POST /agentlab/tool`` (key in ``x-api-key``), body ``{"name": str, "input": object}``:
      runs the session's tool; 200 ``{"content": str}``, or 200 ``{"error": {"type", "message"}}``
      when it raised; 404 when the session has no tools to run.
    - ``POST /agentlab/reset?key=K``: forgets that session (fresh ids and journal next time).

    A :class:`~agentlab.RunawayLoop` raised by the fake becomes a 400 ``invalid_request_error``
    whose ``details.error_code`` is ``"runaway_loop"`` (HTTP clients cannot receive a Python
    exception; the 400 is not retried by the SDKs), and every later request of that session gets
    it again. Non-HTTP scopes other than ``lifespan`` are refused.

    Args:
        default_scenario: the scenario of keys that name none (a name or a :class:`Scenario`;
            default ``"generic"``).
        runaway_after: passed to each new :class:`FakeAPI` (None: the scenario's own).
        on_exchange: called as ``on_exchange(session, exchange)`` after each request is
            answered (the CLI prints a line per exchange with it); its errors are ignored.
        registered_only: serve only the keys bound with :meth:`register` (any other key gets the
            API's 401 ``authentication_error`` "invalid x-api-key", reference 3.5) and only
            ``POST /agentlab/tool`` of the ``/agentlab/`` routes: what the grader uses, so the
            loop under test cannot list, read or reset the sessions of its cases.

    Raises:
        KeyError: unknown ``default_scenario`` name.
    """

    def __init__(self, default_scenario: str | Scenario = "generic", *, runaway_after: int | None = None,
                 on_exchange: Listener | None = None, registered_only: bool = False) -> None:
        self.registered_only = registered_only
        self.default_scenario = get_scenario(default_scenario) if isinstance(default_scenario, str) else default_scenario
        self.runaway_after = runaway_after
        self.on_exchange = on_exchange
        self._sessions: OrderedDict[tuple[str, str], Session] = OrderedDict()
        self._registered: dict[str, Session] = {}
        self._lock = threading.Lock()

    # sessions -------------------------------------------------------------------------------
    def register(self, key: str, api: FakeAPI, run_tool: ToolRunner | None = None) -> Session:
        """Bind the exact API key ``key`` to ``api`` (whatever the path or key says about scenarios).

        The grader uses this to serve one FakeAPI per case under a fresh key. A registered
        session is never evicted; :meth:`unregister` removes it.

        Args:
            key: the API key clients will send.
            api: the FakeAPI to answer them.
            run_tool: what ``POST /agentlab/tool`` runs for this key (default: the scenario's).

        Returns:
            The :class:`Session`.
        """
        session = Session(name=key, api=api, run_tool=run_tool or api.scenario.run_tool)
        with self._lock:
            self._registered[key] = session
        return session

    def unregister(self, key: str) -> None:
        """Forget a key bound with :meth:`register` (no error when it is not)."""
        with self._lock:
            self._registered.pop(key, None)

    def session(self, key: str, scenario: str | None = None) -> Session:
        """The session for ``key`` (and a path scenario), made on first use.

        Raises:
            KeyError: ``scenario`` is not a built-in scenario name.
            PermissionError: the app serves registered keys only and ``key`` is not one.
        """
        with self._lock:
            if key in self._registered:
                return self._registered[key]
            if self.registered_only:
                raise PermissionError(key)
            if scenario is not None and scenario not in SCENARIOS:
                raise KeyError(scenario)
            chosen, name = session_name(key, scenario)
            slot = (chosen, key)
            found = self._sessions.get(slot)
            if found is None:
                made = get_scenario(chosen) if chosen else self.default_scenario
                name = name if chosen else f"{made.name}#{_fingerprint(key)}"
                # Ids seeded by the session's name: a key that is the scenario's name gets the ids the
                # in-process fake gives; every other session its own (a request-id names one request).
                api = FakeAPI(made, runaway_after=self.runaway_after, shared=True,
                              id_seed=None if name == made.name else name)
                found = Session(name=name, api=api, run_tool=made.run_tool)
                self._sessions[slot] = found
                while len(self._sessions) > SESSION_LIMIT:
                    self._sessions.popitem(last=False)
            self._sessions.move_to_end(slot)
            return found

    def find(self, key: str, scenario: str | None = None) -> Session | None:
        """The session for ``key`` (and a path scenario) if there is one; never makes one."""
        with self._lock:
            if key in self._registered:
                return self._registered[key]
            if self.registered_only:
                return None
            chosen, _ = session_name(key, scenario)
            return self._sessions.get((chosen, key))

    def sessions(self) -> list[Session]:
        """Every live session, registered ones first, then the least recently used first."""
        with self._lock:
            return [*self._registered.values(), *self._sessions.values()]

    def reset(self, key: str, scenario: str | None = None) -> bool:
        """Forget the session of ``key``; True if there was one (registered keys are unregistered)."""
        with self._lock:
            if self._registered.pop(key, None) is not None:
                return True
            chosen, _ = session_name(key, scenario)
            return self._sessions.pop((chosen, key), None) is not None

    # ASGI -----------------------------------------------------------------------------------
    async def __call__(self, scope: dict[str, Any], receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            while True:
                message = await receive()
                if message["type"] == "lifespan.startup":
                    await send({"type": "lifespan.startup.complete"})
                elif message["type"] == "lifespan.shutdown":
                    await send({"type": "lifespan.shutdown.complete"})
                    return
        if scope["type"] != "http":
            raise RuntimeError(f"agentlab serve speaks HTTP only, not {scope['type']}")
        body, too_large = await _read_body(receive)
        try:
            status, headers, content = await asyncio.to_thread(self._answer, scope, body, too_large)
        except Exception as exc:  # noqa: BLE001 - a bug in agentlab must still get the API's shape of answer
            status, headers, content = _json(500, _error_body("api_error", INTERNAL_ERROR[language()].format(
                kind=type(exc).__name__)))
        if not any(k.lower() == "content-length" for k, _ in headers):
            headers = [*headers, ("content-length", str(len(content)))]
        await send({"type": "http.response.start", "status": status,
                    "headers": [(k.encode("latin-1"), v.encode("latin-1")) for k, v in headers]})
        await send({"type": "http.response.body", "body": content})

    def _answer(self, scope: dict[str, Any], body: bytes, too_large: bool) -> tuple[int, list[tuple[str, str]], bytes]:
        """One request, synchronously (in a worker thread): ``(status, headers, body)``."""
        path: str = scope.get("path") or "/"
        method: str = scope.get("method") or "GET"
        raw_headers: list[tuple[bytes, bytes]] = list(scope.get("headers") or [])
        headers = [(k.decode("latin-1"), v.decode("latin-1")) for k, v in raw_headers]
        query = parse_qs((scope.get("query_string") or b"").decode("latin-1"))
        key = _api_key(headers, query)
        if path.startswith("/agentlab/"):
            if self.registered_only and path.rstrip("/") != "/agentlab/tool":
                return _not_found(f"agentlab: no route {method} {path} while grading")
            try:
                return self._agentlab(path, method, key, query, body)
            except PermissionError:
                return _json(401, _error_body("authentication_error", "invalid x-api-key"))
        scenario = None
        if path.startswith(PREFIX):
            scenario, _, rest = path[len(PREFIX):].partition("/")
            scenario, path = unquote(scenario), "/" + rest
        try:
            session = self.session(key, scenario)
        except KeyError:
            return _not_found(f"agentlab: no scenario named {scenario!r} (GET /agentlab/sessions, or `agentlab scenarios`)")
        except PermissionError:
            return _json(401, _error_body("authentication_error", "invalid x-api-key"))
        raw_query = scope.get("query_string") or b""
        url = httpx2.URL(path=path, query=raw_query) if raw_query else httpx2.URL(path=path)
        request = httpx2.Request(method, url.copy_with(scheme="http", host="agentlab"), headers=raw_headers,
                                 content=body + (b"\0" if too_large else b""))
        try:
            response = session.api.handle(request)
        except RunawayLoop as exc:
            response = _runaway(exc)
        self._notify(session)
        return response.status_code, list(response.headers.multi_items()), response.content

    def _notify(self, session: Session) -> None:
        if self.on_exchange is None:
            return
        with session.api.lock:
            exchanges = session.journal.exchanges
            new = [e for e in exchanges if e.index >= session.seen]
            if exchanges:
                session.seen = exchanges[-1].index + 1
        for exchange in new:
            try:
                self.on_exchange(session, exchange)
            except Exception:  # noqa: BLE001 - a printing listener must never break an answer
                pass

    def _agentlab(self, path: str, method: str, key: str, query: dict[str, list[str]],
                  body: bytes) -> tuple[int, list[tuple[str, str]], bytes]:
        route = path[len("/agentlab/"):].rstrip("/")
        scenario = (query.get("scenario") or [None])[0]
        if route == "sessions" and method == "GET":
            listed = [{"name": s.name, "scenario": s.api.scenario.name, "requests": len(s.journal)}
                      for s in self.sessions()]
            return _json(200, {"sessions": listed})
        if route == "journal" and method == "GET":
            if scenario is not None and scenario not in SCENARIOS:
                return _not_found(f"agentlab: no scenario named {scenario!r}")
            session = self.find(key, scenario)
            if session is None:
                return _not_found(f"agentlab: no session for the key {_shown(key)}"
                                  + (f" on the scenario {scenario!r}" if scenario else "")
                                  + " yet: it has sent no request (GET /agentlab/sessions lists them)")
            with session.api.lock:
                if (query.get("format") or ["json"])[0] == "text":
                    lang = (query.get("lang") or [None])[0]
                    try:
                        text = session.journal.to_text(lang=lang)
                    except ValueError as exc:
                        return _json(400, _error_body("invalid_request_error", str(exc)))
                    return 200, [("content-type", "text/plain; charset=utf-8")], text.encode("utf-8")
                return _json(200, {"session": session.name, **session.journal.to_dict()})
        if route == "reset" and method == "POST":
            return _json(200, {"reset": self.reset(key, scenario)})
        if route == "tool" and method == "POST":
            return self._tool(key, scenario, body)
        return _not_found(f"agentlab: no route {method} {path} (routes: GET /agentlab/journal, GET /agentlab/sessions, "
                          "POST /agentlab/tool, POST /agentlab/reset)")

    def _tool(self, key: str, scenario: str | None, body: bytes) -> tuple[int, list[tuple[str, str]], bytes]:
        try:
            call = json.loads(body)
        except ValueError as exc:
            return _json(400, _error_body("invalid_request_error", f"agentlab tool call: the body is not JSON ({exc})"))
        if not isinstance(call, dict) or not isinstance(call.get("name"), str):
            return _json(400, _error_body("invalid_request_error",
                                          'agentlab tool call: send {"name": "<tool name>", "input": {...}}'))
        try:
            session = self.session(key, scenario)
        except KeyError:
            return _not_found(f"agentlab: no scenario named {scenario!r}")
        if session.run_tool is None:
            return _not_found(f"agentlab: the scenario {session.api.scenario.name!r} has no tools to run")
        try:
            result = session.run_tool(call["name"], call.get("input"))
        except Exception as exc:  # noqa: BLE001 - a tool's error goes back to the caller as data
            return _json(200, {"error": {"type": type(exc).__name__, "message": str(exc)}})
        return _json(200, {"content": result if isinstance(result, str) else json.dumps(result, default=str)})


async def _read_body(receive: Receive) -> tuple[bytes, bool]:
    """The request body, at most :data:`MAX_REQUEST_BYTES` kept (the rest is read and dropped);
    True when it was larger (the fake then answers 413, rule 32)."""
    chunks: list[bytes] = []
    size = 0
    too_large = False
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            break
        chunk = message.get("body", b"")
        if not too_large:
            if size + len(chunk) > MAX_REQUEST_BYTES:
                too_large = True
                chunks.append(chunk[: MAX_REQUEST_BYTES - size])
                size = MAX_REQUEST_BYTES
            else:
                chunks.append(chunk)
                size += len(chunk)
        if not message.get("more_body"):
            break
    return b"".join(chunks), too_large


def _shown(key: str) -> str:
    """A key as an error message may show it: a scenario's name as it is, any other key only by its
    fingerprint (it may be a real secret)."""
    return repr(key) if key.split(":", 1)[0] in SCENARIOS else f"#{_fingerprint(key)}"


def _api_key(headers: list[tuple[str, str]], query: dict[str, list[str]]) -> str:
    """The key of a request: ``x-api-key``, else ``Authorization: Bearer``, else ``?key=``, else ``""``.

    Header values arrive as Latin-1 text (ASGI); a key is read back as UTF-8 when its bytes are
    UTF-8, so ``x-api-key: café`` and ``?key=caf%C3%A9`` name the same session."""
    found = {}
    for name, value in headers:
        raw = value.encode("latin-1")
        try:
            value = raw.decode("utf-8")
        except UnicodeDecodeError:
            pass
        found[name.lower()] = value
    if found.get("x-api-key"):
        return found["x-api-key"].strip()
    auth = found.get("authorization", "")
    if auth.lower().startswith("bearer "):
        return auth[7:].strip()
    return (query.get("key") or [""])[0]


def _error_body(error_type: str, message: str, details: dict[str, Any] | None = None) -> dict[str, Any]:
    error: dict[str, Any] = {"type": error_type, "message": message}
    if details:
        error["details"] = details
    return {"type": "error", "error": error, "request_id": None}


def _json(status: int, payload: dict[str, Any]) -> tuple[int, list[tuple[str, str]], bytes]:
    return status, [("content-type", "application/json")], json.dumps(payload, ensure_ascii=False, default=str).encode("utf-8")


def _not_found(message: str) -> tuple[int, list[tuple[str, str]], bytes]:
    return _json(404, _error_body("not_found_error", message))


_RUNAWAY_OVER_HTTP = {
    "en": " Over HTTP: send another API key (weather:2) or POST /agentlab/reset?key=KEY to start afresh.",
    "es": " Por HTTP: envía otra clave de API (weather:2) o POST /agentlab/reset?key=CLAVE para empezar de nuevo.",
}


def _runaway(exc: RunawayLoop) -> httpx2.Response:
    """The 400 a RunawayLoop becomes over HTTP (the fake's own answer: the real API has none)."""
    body = _error_body("invalid_request_error", f"agentlab RunawayLoop: {exc}{_RUNAWAY_OVER_HTTP[language()]}",
                       {"error_code": "runaway_loop", "scope": exc.scope, "requests": exc.requests, "limit": exc.limit})
    return httpx2.Response(400, content=json.dumps(body, ensure_ascii=False).encode("utf-8"),
                           headers={"content-type": "application/json", "x-should-retry": "false"})
