"""Grading a consumer of the Claude Agent SDK's stream on the fake CLI.

The code under test is the part of an Agent SDK program that reads the messages of one
``query()`` run and decides what the run produced::

    async def consume(messages) -> str

- ``messages``: the async iterator of one ``query()`` run (``SystemMessage``, ``AssistantMessage``,
  ``UserMessage``, ``ResultMessage`` and any trailing ``SystemMessage`` such as
  ``session_state_changed``; seed 004 "Tipos de mensajes", reference 6.1). The grader calls
  ``query(prompt=..., options=ClaudeAgentOptions(...), transport=fake_transport(...))`` itself,
  with each case's scenario and limits, and passes the iterator (wrapped, to see how far it is
  read).
- Returns the final result text (``ResultMessage.result``) when the run succeeded: subtype
  ``"success"`` and ``is_error`` false (reference 6.2).
- Raises (any ``Exception``) when it did not: an error subtype (``error_max_turns``,
  ``error_max_budget_usd``, ``error_during_execution``) or ``is_error`` true (an API failure
  arrives as subtype ``"success"`` with ``is_error`` true, reference 6.2). Letting the SDK's own
  ``ResultError`` propagate is enough: a single-shot ``query()`` raises it after yielding an
  error result when the consumer keeps iterating (seed 004 "Tipos de mensajes", reference 6.2).
- Iterates the stream to its end, even after the ``ResultMessage`` (seed 004: "itere el flujo
  hasta completarse en lugar de romper en el resultado").
- Survives ``total_cost_usd``, ``usage`` and ``model_usage`` being None (typed Optional in
  Python; seed 004 "Manejar el resultado").

``agentlab.grade(consume)`` sends an ``async def`` of one parameter here (:func:`is_sdk_consumer`);
the report is the loop grader's :class:`~agentlab.grader.Report`, one
:class:`~agentlab.grader.CaseResult` per case in :data:`SDK_CASES`. By default the consumer
runs in the isolated grader's child process (``agentlab._sandbox.sdk``; the fake CLI stays in
this one, ``_isolate.Sandbox.run_sdk_case``): it is cancelled at its time limit, reported
``unstoppable`` when it swallows the cancellation, and killed (``timeout``) when it holds its
event loop. With ``isolate=False`` (:func:`run_sdk_case`) each case runs in a worker thread with
its own event loop and a time limit: a consumer that waits forever is cancelled, one that spins
is interrupted (``CaseTimeout``), one that resists both is abandoned and reported as
``unstoppable``. Sessions get fixed ids (one per case), so a report is the same on every run.
"""

from __future__ import annotations

import asyncio
import ctypes
import hashlib
import inspect
import threading
import time
import uuid
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Literal

from ._detect import Finding
from ._harness import NOT_RETURNED, CaseTimeout
from ._report import CaseResult, Report, _short, resolve_lang

__all__ = ["ALLOWED_TOOLS", "SDK_CASES", "SDK_CASE_NAMES", "SdkCase", "SdkRun", "get_sdk_case", "grade_sdk",
           "is_sdk_consumer", "judge_sdk", "run_sdk_case"]

ALLOWED_TOOLS = ("Read", "Edit", "Bash", "Glob", "Grep")
"""Auto-approved in every case, as in seed 004's complete example ("Ponerlo todo junto")."""

CANCEL_GRACE = 1.0
"""Seconds a cancelled consumer gets to stop before it is interrupted from outside."""

DRAIN_LIMIT = 10.0
"""Seconds the grader spends reading what the consumer left unread (to report it)."""


@dataclass(frozen=True, kw_only=True)
class SdkCase:
    """One case for an Agent SDK consumer: a fake-CLI scenario, its limits, what a correct consumer does."""

    name: str
    """Stable name (``only=[...]`` selects by it)."""
    scenario: str
    """The Agent SDK scenario (``agentlab.agent_sdk.scenarios()``)."""
    expect: Literal["finish", "raise"]
    """``finish``: return the result text (containing ``answer_contains``) and read to the end;
    ``raise``: raise, because the run did not succeed."""
    subtype: str
    """The ``ResultMessage.subtype`` the run ends with (``is_error`` below)."""
    is_error: bool
    """The result's ``is_error``."""
    exposes: tuple[str, ...]
    """Anti-pattern tags this case is built to catch."""
    description: dict[str, str] = field(default_factory=dict)
    """One line, ``{"en": ..., "es": ...}``."""
    max_turns: int = 30
    """``ClaudeAgentOptions.max_turns`` (tool-use turns, reference 6.2)."""
    max_budget_usd: float | None = None
    """``ClaudeAgentOptions.max_budget_usd`` (checked after each API call, reference 6.2)."""
    session_state_events: bool = False
    """Ask for the CLI's ``session_state_changed`` events (``env`` sets
    ``CLAUDE_CODE_EMIT_SESSION_STATE_EVENTS=1``): a ``SystemMessage`` with state ``idle`` then
    follows the result (seed 004: final system events can arrive after the result)."""
    report_cost: bool = True
    """False: ``total_cost_usd``, ``usage`` and ``model_usage`` are None (seed 004)."""
    answer_contains: str | None = None
    """A substring the returned text must contain (``finish`` cases)."""
    time_limit: float = 10.0
    """Seconds the consumer may run before the grader stops it."""

    @property
    def prompt(self) -> str:
        """The scenario's prompt (seed 004's task for the auth scenarios)."""
        from ..agent_sdk import get_agent_scenario

        return get_agent_scenario(self.scenario).prompt

    @property
    def session_id(self) -> str:
        """A fixed session id per case, so what the consumer sees (and the report) never varies."""
        return str(uuid.UUID(bytes=hashlib.sha256(f"agentlab-grade:{self.name}".encode()).digest()[:16], version=4))


def _case(name: str, scenario: str, expect: Literal["finish", "raise"], subtype: str, is_error: bool,
          exposes: tuple[str, ...], en: str, es: str, **kw: Any) -> SdkCase:
    return SdkCase(name=name, scenario=scenario, expect=expect, subtype=subtype, is_error=is_error, exposes=exposes,
                   description={"en": en, "es": es}, **kw)


ANSWER = "All three tests pass now"

SDK_CASES: tuple[SdkCase, ...] = (
    _case("success", "fix_auth_bug", "finish", "success", False, ("breaks-at-result",),
          "Seed 004's run: tests, reads, a fix, the answer. Return ResultMessage.result and read the stream to its end.",
          "La ejecución de la semilla 004: pruebas, lecturas, un arreglo, la respuesta. Devuelve ResultMessage.result "
          "y lee el flujo hasta el final.",
          answer_contains=ANSWER),
    _case("idle_after_result", "fix_auth_bug", "finish", "success", False, ("breaks-at-result",),
          "A SystemMessage session_state_changed (idle) follows the result: iterate to the end instead of breaking "
          "at the result.",
          "Un SystemMessage session_state_changed (idle) llega tras el resultado: itera hasta el final en vez de "
          "romper en el resultado.",
          answer_contains=ANSWER, session_state_events=True),
    _case("error_max_turns", "agent_stuck", "raise", "error_max_turns", True, ("error-result-as-success",),
          "max_turns=3 stops an agent that never finishes: error_max_turns is not a success, raise.",
          "max_turns=3 detiene a un agente que nunca termina: error_max_turns no es un éxito, lanza una excepción.",
          max_turns=3),
    _case("error_max_budget_usd", "fix_auth_bug", "raise", "error_max_budget_usd", True, ("error-result-as-success",),
          "max_budget_usd=0.005 trips after a call (the cost ends above the cap): error_max_budget_usd, raise.",
          "max_budget_usd=0.005 salta tras una llamada (el coste acaba por encima del tope): error_max_budget_usd, "
          "lanza una excepción.",
          max_budget_usd=0.005),
    _case("error_during_execution", "agent_crash", "raise", "error_during_execution", True,
          ("error-result-as-success",),
          "The session crashes: error_during_execution with zero cost and stop_reason None, then the process exits.",
          "La sesión se bloquea: error_during_execution con coste cero y stop_reason None, y el proceso termina."),
    _case("api_error", "agent_api_error", "raise", "success", True, ("error-result-as-success",),
          "HTTP 529 on every retry: subtype \"success\" but is_error true and \"API Error: 529 ...\" as result. Raise.",
          "HTTP 529 en cada reintento: subtipo \"success\" pero is_error true y \"API Error: 529 ...\" como resultado. "
          "Lanza una excepción."),
    _case("cost_not_reported", "fix_auth_bug", "finish", "success", False, ("ignores-none-cost",),
          "A successful result whose total_cost_usd, usage and model_usage are None: do not crash on them.",
          "Un resultado con éxito cuyos total_cost_usd, usage y model_usage son None: no falles al leerlos.",
          answer_contains=ANSWER, report_cost=False),
)
"""Every case for an SDK consumer, in the order the report lists them."""

SDK_CASE_NAMES: tuple[str, ...] = tuple(c.name for c in SDK_CASES)


def get_sdk_case(name: str) -> SdkCase:
    """The SDK case called ``name``.

    Raises:
        KeyError: naming the known SDK cases.
    """
    for case in SDK_CASES:
        if case.name == name:
            return case
    raise KeyError(f"unknown Agent SDK case {name!r}; cases: {', '.join(SDK_CASE_NAMES)}")


def is_sdk_consumer(fn: Any) -> bool:
    """Whether ``fn`` is an Agent SDK consumer: a coroutine function callable with exactly one
    positional argument (and not with the loop grader's four)."""
    target = fn if inspect.isroutine(fn) else getattr(type(fn), "__call__", None)  # noqa: B004 - an async __call__
    if not (inspect.iscoroutinefunction(fn) or inspect.iscoroutinefunction(target)):
        return False
    return takes_one_argument(fn)


def takes_one_argument(fn: Any) -> bool:
    """Whether ``fn`` can be called with exactly one positional argument and not with the loop
    grader's four (``consume(messages)``, async or not)."""
    try:
        signature = inspect.signature(fn)
        signature.bind(None)
    except (TypeError, ValueError):
        return False
    try:
        signature.bind(None, None, None, None)
    except TypeError:
        return True
    return False


# ------------------------------------------------------------------------------------ running


@dataclass
class SdkRun:
    """What happened when a consumer ran on a case."""

    case: SdkCase
    read: list[Any] = field(default_factory=list)
    """The messages the consumer pulled, in order."""
    unread: list[Any] = field(default_factory=list)
    """The messages it left: the grader read them after the consumer returned or raised."""
    ended: bool = False
    """The consumer read to the stream's end (its end, or the exception the SDK raises there)."""
    stream_error: BaseException | None = None
    """The exception the stream raised at its end (``ResultError`` after an error result), whoever read it."""
    returned: Any = NOT_RETURNED
    exception: BaseException | None = None
    timed_out: bool = False
    unstoppable: bool = False
    time_limit: float = 10.0
    """The limit the consumer ran under (seconds)."""
    steps: int = 0
    """Messages API requests the fake CLI made."""
    stop_reasons: list[str | None] = field(default_factory=list)
    elapsed: float = 0.0
    """Seconds of wall time (not part of any printed output)."""
    isolated: bool = False
    """The consumer ran in the isolated grader's child process (``_isolate.Sandbox.run_sdk_case``)."""
    child_end: dict[str, Any] | None = None
    """How the child ended the case when it did not return or raise normally (as ``CaseRun.child_end``)."""
    refused: list[dict[str, str]] = field(default_factory=list)
    """What the child's audit hook refused (as ``CaseRun.refused``)."""
    output: str = ""
    """What the consumer printed, trimmed; isolated runs only."""
    traceback: str = ""
    """The exception's trimmed traceback; isolated runs only."""

    @property
    def result(self) -> Any:
        """The run's ``ResultMessage`` (read by the consumer or not), None when there was none."""
        from claude_agent_sdk import ResultMessage

        return next((m for m in [*self.read, *self.unread] if isinstance(m, ResultMessage)), None)

    @property
    def result_read(self) -> bool:
        """Whether the consumer pulled the ``ResultMessage``."""
        from claude_agent_sdk import ResultMessage

        return any(isinstance(m, ResultMessage) for m in self.read)


class _Messages:
    """The stream as the consumer sees it: an async iterator that records how far it is read."""

    def __init__(self, inner: Any, run: SdkRun) -> None:
        self._inner = inner
        self._run = run

    def __aiter__(self) -> _Messages:
        return self

    async def __anext__(self) -> Any:
        if self._run.ended:
            raise StopAsyncIteration
        try:
            message = await self._inner.__anext__()
        except StopAsyncIteration:
            self._run.ended = True
            raise
        except Exception as exc:
            self._run.ended = True
            self._run.stream_error = exc
            raise
        self._run.read.append(message)
        return message

    async def aclose(self) -> None:
        """Accepted and ignored: the grader closes the stream itself after the case."""

    def __repr__(self) -> str:
        return f"<messages of query() for agentlab grade case {self._run.case.name!r}>"


def _inject(thread: threading.Thread, exc_type: type[BaseException]) -> None:
    if thread.ident is not None:
        ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(thread.ident), ctypes.py_object(exc_type))


class _Escaped(Exception):
    """Carries a ``BaseException`` the consumer raised out of its task as an ordinary exception."""

    def __init__(self, original: BaseException) -> None:
        super().__init__(repr(original))
        self.original = original


def run_sdk_case(consume: Callable[[Any], Any], case: SdkCase, *, time_limit: float | None = None) -> SdkRun:
    """Run ``consume(messages)`` on one ``query()`` of ``case`` and record everything.

    Args:
        consume: the consumer (``async def consume(messages) -> str``).
        case: the case to run.
        time_limit: seconds before the consumer is stopped (default: the case's).

    Returns:
        An :class:`SdkRun`. Never raises for anything the consumer does.

    Raises:
        ImportError: when claude-agent-sdk is not installed (the message says how to install it).
    """
    from ..agent_sdk import fake_transport, forget_session

    try:
        from claude_agent_sdk import ClaudeAgentOptions, query
    except ImportError as error:
        from ..agent_sdk import INSTALL_HINT

        raise ImportError(INSTALL_HINT) from error

    limit = case.time_limit if time_limit is None else time_limit
    run = SdkRun(case=case, time_limit=limit)
    forget_session(case.session_id)  # each grading reuses the case's fixed id
    consumer_done = threading.Event()
    state: dict[str, Any] = {}

    async def main() -> None:
        env = {"CLAUDE_CODE_EMIT_SESSION_STATE_EVENTS": "1"} if case.session_state_events else {}
        options = ClaudeAgentOptions(allowed_tools=list(ALLOWED_TOOLS), max_turns=case.max_turns,
                                     max_budget_usd=case.max_budget_usd, session_id=case.session_id, env=env)
        transport = fake_transport(case.scenario, options=options,
                                   report_cost=case.report_cost)
        state["transport"] = transport
        inner = query(prompt=case.prompt, options=options, transport=transport)
        try:
            await _consume(inner)
            if not (run.timed_out or run.unstoppable or run.ended):
                await _drain(inner)
        finally:
            try:
                await asyncio.wait_for(inner.aclose(), 5)
            except BaseException:  # noqa: BLE001 - closing is best effort; the verdict does not depend on it
                pass

    async def _consume(inner: Any) -> None:
        async def call() -> Any:
            try:
                value = consume(_Messages(inner, run))
                return await value if inspect.isawaitable(value) else value
            except asyncio.CancelledError:
                raise
            except BaseException as exc:  # noqa: BLE001 - KeyboardInterrupt, SystemExit...: kept inside the task
                raise _Escaped(exc) from exc  # (raised bare they would tear down the event loop mid-run)

        task = asyncio.ensure_future(call())
        try:
            done, _ = await asyncio.wait({task}, timeout=limit)
            if not done:
                run.timed_out = True
                task.cancel()
                done, _ = await asyncio.wait({task}, timeout=CANCEL_GRACE)
                if not done:
                    run.unstoppable = True
                    return
            if task.cancelled():
                run.exception = CaseTimeout(f"stopped after {limit:g} s")
            elif task.exception() is not None:
                exc = task.exception()
                run.exception = exc.original if isinstance(exc, _Escaped) else exc
            else:
                run.returned = task.result()
        finally:
            consumer_done.set()

    async def _drain(inner: Any) -> None:
        async def more() -> None:
            while True:
                try:
                    message = await inner.__anext__()
                except StopAsyncIteration:
                    return
                except Exception as exc:  # noqa: BLE001 - the SDK's error at the end of the stream
                    run.stream_error = exc
                    return
                run.unread.append(message)

        try:
            await asyncio.wait_for(more(), DRAIN_LIMIT)
        except (asyncio.TimeoutError, Exception):  # noqa: BLE001 - what was read is enough to judge
            pass

    def target() -> None:
        try:
            asyncio.run(main())
        except BaseException as exc:  # noqa: BLE001 - everything the consumer does is reported
            if run.exception is None and run.returned is NOT_RETURNED:
                run.exception = exc
        finally:
            consumer_done.set()

    worker = threading.Thread(target=target, name=f"agentlab-grade-sdk-{case.name}", daemon=True)
    start = time.perf_counter()
    worker.start()
    if not consumer_done.wait(limit + CANCEL_GRACE + 0.5):
        # The consumer holds the thread (a busy loop, a blocking call): interrupt it from outside.
        run.timed_out = True
        for _ in range(5):
            _inject(worker, CaseTimeout)
            if consumer_done.wait(0.2):
                break
        if not consumer_done.is_set():
            run.unstoppable = True
    if not run.unstoppable:
        worker.join(DRAIN_LIMIT + 6)
    if isinstance(run.exception, CaseTimeout):
        run.timed_out = True
        run.returned = NOT_RETURNED
    transport = state.get("transport")
    session = getattr(getattr(transport, "cli", None), "session", None)
    if session is not None:
        from .._client import journal

        steps = journal(session.client).steps
        run.steps, run.stop_reasons = len(steps), [e.stop_reason for e in steps]
    run.elapsed = time.perf_counter() - start
    return run


# ------------------------------------------------------------------------------------ judging


def _ev(en: str, es: str) -> dict[str, str]:
    return {"en": en, "es": es}


FIX = {
    "timeout": _ev("Iterate the messages of query() and return or raise when they end; do not wait on anything else "
                   "(input(), an event, a sleep) inside the consumer.",
                   "Itera los mensajes de query() y devuelve o lanza cuando terminen; no esperes nada más (input(), un "
                   "evento, un sleep) dentro del consumidor."),
    "unstoppable": _ev("Do not block inside the consumer (time.sleep, input) and never catch BaseException or "
                       "asyncio.CancelledError: catch only the exceptions you can handle.",
                       "No bloquees dentro del consumidor (time.sleep, input) y nunca captures BaseException ni "
                       "asyncio.CancelledError: captura solo las excepciones que sabes manejar."),
    "loop-raised": _ev("On a successful run, return ResultMessage.result; raise only when the result is an error "
                       "(subtype other than \"success\", or is_error true).",
                       "En una ejecución con éxito, devuelve ResultMessage.result; lanza solo cuando el resultado es un "
                       "error (subtipo distinto de \"success\", o is_error true)."),
    "returned-non-string": _ev("async def consume(messages) -> str returns ResultMessage.result, a str.",
                               "async def consume(messages) -> str devuelve ResultMessage.result, un str."),
    "wrong-answer": _ev("Read the messages up to the ResultMessage and beyond, to the end; return its result when the "
                        "run succeeded.",
                        "Lee los mensajes hasta el ResultMessage y más allá, hasta el final; devuelve su result cuando "
                        "la ejecución tuvo éxito."),
}
"""SDK-specific fixes for the grader's own findings (the tags are the loop grader's)."""


def _f(tag: str, en: str, es: str) -> Finding:
    return Finding(tag, _ev(en, es), fix=FIX.get(tag))


def _kind(message: Any) -> str:
    subtype = getattr(message, "subtype", None)
    name = type(message).__name__
    return f"{name}({subtype})" if subtype is not None and name in ("SystemMessage", "ResultMessage") else name


def _q(value: Any, limit: int = 80) -> str:
    """``repr(value)`` cut to ``limit`` characters with an ellipsis."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _exc(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {_short(str(exc), 120)}"


def _describe_result(result: Any) -> str:
    return "no ResultMessage" if result is None else f"subtype {result.subtype!r}, is_error {result.is_error}"


def _count(n: int, lang: str) -> str:
    word = "message" if lang == "en" else "mensaje"
    return f"{n} {word}{'s' if n != 1 else ''}"


def _none_cost_crash(run: SdkRun) -> bool:
    """The consumer crashed on a None cost field (``total_cost_usd``/``usage``/``model_usage``)."""
    result = run.result
    exc = run.exception
    if result is None or not run.result_read or not isinstance(exc, (TypeError, AttributeError)):
        return False
    missing = result.total_cost_usd is None or result.usage is None or result.model_usage is None
    return missing and "NoneType" in str(exc)


def judge_sdk(run: SdkRun, lang: str = "en") -> CaseResult:
    """The verdict on one consumer run: a hang first, then the outcome the case expects.

    ``finish`` cases fail with ``ignores-none-cost`` (a TypeError/AttributeError on a None cost
    field), ``loop-raised``, ``returned-non-string``, ``wrong-answer`` (returned before the
    result, or not its text) or ``breaks-at-result`` (returned without reading to the end).
    ``raise`` cases fail with ``error-result-as-success`` (returned normally although the result
    it read was an error), ``wrong-answer`` (returned before the result) or ``loop-raised``
    (raised for another reason before the result arrived). The evidence names the message count,
    the result's subtype and ``is_error``, and what was left unread.
    """
    case, exc = run.case, run.exception
    findings: list[Finding] = []
    if run.unstoppable:
        findings.append(_f("unstoppable",
                           f"The consumer ran past its {run.time_limit:g} s limit and could not be stopped: it blocks "
                           "(time.sleep, input) or catches BaseException or CancelledError.",
                           f"El consumidor superó su límite de {run.time_limit:g} s y no se pudo detener: se bloquea "
                           "(time.sleep, input) o captura BaseException o CancelledError."))
    elif run.timed_out:
        findings.append(_f("timeout",
                           f"The consumer was still running after {run.time_limit:g} s, having read "
                           f"{_count(len(run.read), 'en')}.",
                           f"El consumidor seguía en marcha tras {run.time_limit:g} s, después de leer "
                           f"{_count(len(run.read), 'es')}."))
    elif _none_cost_crash(run):
        result = run.result
        findings.append(Finding("ignores-none-cost", _ev(
            f"The result had total_cost_usd {result.total_cost_usd!r}, usage {result.usage!r} and model_usage "
            f"{result.model_usage!r}, and the consumer raised {_exc(exc)}.",
            f"El resultado traía total_cost_usd {result.total_cost_usd!r}, usage {result.usage!r} y model_usage "
            f"{result.model_usage!r}, y el consumidor lanzó {_exc(exc)}.")))
    elif case.expect == "finish":
        findings += _judge_finish(run)
    else:
        findings += _judge_raise(run)
    return CaseResult(
        name=case.name, description=case.description, passed=not findings, findings=findings, note=None,
        steps=run.steps, stop_reasons=run.stop_reasons,
        returned=None if run.returned is NOT_RETURNED else _short(run.returned),
        exception=None if exc is None else _short(f"{type(exc).__name__}: {exc}"), lang=lang)


def _judge_finish(run: SdkRun) -> list[Finding]:
    exc, result, n = run.exception, run.result, len(run.read)
    if exc is not None:
        return [_f("loop-raised",
                   f"The consumer raised {_exc(exc)} after reading {_count(n, 'en')}; this run succeeded "
                   f"({_describe_result(result)}).",
                   f"El consumidor lanzó {_exc(exc)} tras leer {_count(n, 'es')}; esta ejecución tuvo éxito "
                   f"({_describe_result(result)}).")]
    if not isinstance(run.returned, str):
        return [_f("returned-non-string", f"The consumer returned {type(run.returned).__name__} {_q(run.returned)}.",
                   f"El consumidor devolvió {type(run.returned).__name__} {_q(run.returned)}.")]
    if not run.result_read:
        return [_f("wrong-answer",
                   f"The consumer returned {_q(run.returned)} after reading {_count(n, 'en')}, before the "
                   "ResultMessage arrived: it cannot know whether the run succeeded.",
                   f"El consumidor devolvió {_q(run.returned)} tras leer {_count(n, 'es')}, antes de que llegara el "
                   "ResultMessage: no puede saber si la ejecución tuvo éxito.")]
    findings = []
    if run.case.answer_contains and run.case.answer_contains not in run.returned:
        findings.append(_f("wrong-answer",
                           f"The consumer returned {_q(run.returned, 120)}, not the result's text (which mentions "
                           f"{run.case.answer_contains!r}).",
                           f"El consumidor devolvió {_q(run.returned, 120)}, que no es el texto del resultado (que "
                           f"menciona {run.case.answer_contains!r})."))
    if not run.ended:
        at = next(i for i, m in enumerate(run.read, 1) if m is result)
        if run.unread:
            kinds = ", ".join(_kind(m) for m in run.unread)
            left = (f"{_count(len(run.unread), 'en')} left unread: {kinds}",
                    f"{_count(len(run.unread), 'es')} sin leer: {kinds}")
        else:
            left = ("nothing else came this time, but the stream was not read to its end",
                    "esta vez no llegó nada más, pero el flujo no se leyó hasta el final")
        where = ("right after it" if at == n else f"{n - at} message(s) later",
                 "justo después" if at == n else f"{n - at} mensaje(s) más tarde")
        findings.append(Finding("breaks-at-result", _ev(
            f"The ResultMessage was message {at} and the consumer stopped reading {where[0]}: {left[0]}.",
            f"El ResultMessage fue el mensaje {at} y el consumidor dejó de leer {where[1]}: {left[1]}.")))
    return findings


def _judge_raise(run: SdkRun) -> list[Finding]:
    exc, result, n = run.exception, run.result, len(run.read)
    what = _describe_result(result)
    if exc is not None:
        if run.result_read or exc is run.stream_error:
            return []
        return [_f("loop-raised",
                   f"The consumer raised {_exc(exc)} after reading {_count(n, 'en')}, before the ResultMessage "
                   f"({what}) arrived.",
                   f"El consumidor lanzó {_exc(exc)} tras leer {_count(n, 'es')}, antes de que llegara el "
                   f"ResultMessage ({what}).")]
    if not run.result_read:
        return [_f("wrong-answer",
                   f"The consumer returned {_q(run.returned)} after reading {_count(n, 'en')}, before the "
                   f"ResultMessage ({what}) arrived: this run failed.",
                   f"El consumidor devolvió {_q(run.returned)} tras leer {_count(n, 'es')}, antes de que llegara el "
                   f"ResultMessage ({what}): esta ejecución falló.")]
    detail = f"errors {_q(result.errors)}" if result.errors else f"result {_q(result.result)}"
    caught = run.ended and run.stream_error is not None
    en = [f"The run ended with {what} ({detail}), and the consumer returned {_q(run.returned)} as if it had succeeded."]
    es = [f"La ejecución terminó con {what} ({detail}), y el consumidor devolvió {_q(run.returned)} como si hubiera "
          "tenido éxito."]
    if caught:
        en.append(f"It caught the {type(run.stream_error).__name__} that query() raised after the result.")
        es.append(f"Capturó el {type(run.stream_error).__name__} que query() lanzó después del resultado.")
    if result.subtype == "success":
        en.append('A failed API call arrives as subtype "success": check is_error too.')
        es.append('Una llamada fallida a la API llega con subtipo "success": comprueba también is_error.')
    return [Finding("error-result-as-success", _ev(" ".join(en), " ".join(es)))]


def judge_sdk_isolated(run: SdkRun, lang: str = "en") -> CaseResult:
    """The verdict on an isolated consumer run: what the sandbox saw (a refused operation, the
    child's death, a limit: ``_isolate.containment_findings``), else :func:`judge_sdk`."""
    from ._isolate import containment_findings

    contained = containment_findings(run)
    if not contained:
        return judge_sdk(run, lang)
    exc = run.exception
    return CaseResult(
        name=run.case.name, description=run.case.description, passed=False, findings=contained, note=None,
        steps=run.steps, stop_reasons=run.stop_reasons,
        returned=None if run.returned is NOT_RETURNED else _short(run.returned),
        exception=None if exc is None else _short(f"{type(exc).__name__}: {exc}"), lang=lang)


def grade_sdk_isolated(box: Any, cases: list[SdkCase], lang: str, time_limit: float | None, name: str) -> Report:
    """Grade the consumer loaded in ``box`` (an ``_isolate.Sandbox``) on ``cases``; closes ``box``."""
    import sys

    results = []
    try:
        for case in cases:
            run = box.run_sdk_case(case, time_limit=time_limit)
            if run.output:
                print(run.output, end="" if run.output.endswith("\n") else "\n", file=sys.stdout)
            results.append(judge_sdk_isolated(run, lang))
    finally:
        box.close()
    return Report(cases=results, lang=lang, loop_name=name)


def grade_sdk(consume: Callable[[Any], Any], only: Iterable[str] | str | None = None, *, lang: str | None = None,
              time_limit: float | None = None, isolate: bool = True) -> Report:
    """Run an Agent SDK consumer on the SDK cases and return a :class:`~agentlab.grader.Report`.

    Args:
        consume: ``async def consume(messages) -> str`` (see the module docstring for the contract).
        only: SDK case names to run (default: all, in order; see :data:`SDK_CASE_NAMES`).
        lang: language of explanations, ``"en"`` or ``"es"`` (default: the learner's setting).
        time_limit: seconds per case before the consumer is stopped (default: each case's, 10 s).
        isolate: False runs the consumer in this process (trusted code only); by default it runs in
            the isolated grader's child process, its CLI (the fake) in this one.

    Returns:
        The report; ``report.passed`` is True when every case passed.

    Raises:
        TypeError: when ``consume`` is not callable, or cannot be sent to the child.
        KeyError: for an unknown case name in ``only`` (the message lists the names).
        ValueError: for an unsupported ``lang``.
        ImportError: when claude-agent-sdk is not installed.
    """
    if not callable(consume):
        raise TypeError(f"grade() needs a function async def consume(messages) -> str, got {type(consume).__name__}")
    lang = resolve_lang(lang)
    cases = list(SDK_CASES) if only is None else [get_sdk_case(n) for n in ([only] if isinstance(only, str) else only)]
    name = getattr(consume, "__name__", "consume")
    from . import _isolation_available

    if isolate and _isolation_available():
        try:
            import claude_agent_sdk  # noqa: F401 - checked here, before a child is started
        except ImportError as error:
            from ..agent_sdk import INSTALL_HINT

            raise ImportError(INSTALL_HINT) from error
        from ._isolate import Sandbox, Submission

        box = Sandbox(Submission.of(consume), [c.time_limit if time_limit is None else time_limit for c in cases], lang)
        try:
            box.load()
        except BaseException:
            box.close()
            raise
        return grade_sdk_isolated(box, cases, lang, time_limit, name)
    results = [judge_sdk(run_sdk_case(consume, case, time_limit=time_limit), lang) for case in cases]
    return Report(cases=results, lang=lang, loop_name=name)
