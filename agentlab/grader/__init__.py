"""agentlab.grader: runs a learner's agent loop on the conformance cases and names the fault.

::

    report = agentlab.grade(agent_loop)                  # every case
    report = agentlab.grade(agent_loop, only=["pause_turn"])
    report.passed
    for case in report.cases: case.name, case.passed, case.diagnosis, case.explanation
    report.to_dict()

The loop has the seeds' shape with the client and tools passed in:
``agent_loop(client, prompt: str, tools: list[dict], run_tool) -> str`` (``async def`` works
too: it gets an ``AsyncAnthropic``).

A TypeScript or JavaScript loop is graded from its file, over HTTP on the same cases and
detectors (``agentlab.grader._typescript``; needs Node.js and ``npm ci``)::

    report = agentlab.grade("loop.ts")                   # export async function agentLoop(...)
    report = agentlab.grade("loop.ts:myLoop", only=["pause_turn"])

An ``async def`` of ONE parameter is graded as a consumer of the Claude Agent SDK's stream
instead, on :data:`SDK_CASES` (``agentlab.grader._sdk``; needs claude-agent-sdk)::

    async def consume(messages) -> str: ...
    report = agentlab.grade(consume)                     # every SDK case
    report = agentlab.grade(consume, only=["api_error"])

Contract: ``messages`` is the async iterator of one ``query()`` run, which the grader starts
with the case's prompt, ``ClaudeAgentOptions`` and fake transport; the consumer returns the
final result text (``ResultMessage.result``) when the run succeeded (subtype ``"success"`` and
``is_error`` false), raises any ``Exception`` when it did not (letting the SDK's ``ResultError``
propagate is enough), reads the stream to its end, and survives ``total_cost_usd`` being None
(seed 004, reference 6.1-6.2).
"""

from __future__ import annotations

import os
from typing import Any, Callable, Iterable

import anthropic

from ..errors import RunawayLoop
from ._cases import CASE_NAMES, CASES, Case, get_case
from ._detect import ERROR_RUN_LIMIT, Finding, _passed_off_as_answer, detect_all, error_streak
from ._harness import NOT_RETURNED, CaseRun, CaseTimeout, run_case
from ._report import CaseResult, Report, resolve_lang, verdict
from ._typescript import TypeScriptError, grade_typescript, grade_typescript_many, is_typescript_target
from ._sdk import SDK_CASE_NAMES, SDK_CASES, SdkCase, get_sdk_case, grade_sdk, is_sdk_consumer, takes_one_argument

__all__ = ["CASES", "CASE_NAMES", "Case", "CaseResult", "Finding", "Report", "SDK_CASES", "SDK_CASE_NAMES", "SdkCase",
           "TypeScriptError", "grade", "grade_sdk", "grade_typescript", "grade_typescript_many", "get_case", "get_sdk_case",
           "is_sdk_consumer", "judge"]


def _ev(en: str, es: str) -> dict[str, str]:
    return {"en": en, "es": es}


def judge(run: CaseRun, lang: str = "en") -> CaseResult:
    """The verdict on one run: detectors first, then what the case expects of the outcome."""
    findings = detect_all(run)
    note: dict[str, str] | None = None
    exc = run.exception
    if run.unstoppable:
        findings.insert(0, Finding("unstoppable", _ev(
            f"The loop ran past its {run.case.time_limit:g} s limit and could not be stopped: it is blocked in a long "
            "call (time.sleep, input, a lock) or it catches BaseException.",
            f"El bucle superó su límite de {run.case.time_limit:g} s y no se pudo detener: está bloqueado en una "
            "llamada larga (time.sleep, input, un lock) o captura BaseException.")))
    elif run.timed_out and not findings:
        findings.append(Finding("timeout", _ev(
            f"The loop was still running after {run.case.time_limit:g} s without calling the API to finish.",
            f"El bucle seguía en marcha tras {run.case.time_limit:g} s sin llamar a la API para terminar.")))
    if findings:
        return verdict(run, findings, None, lang)

    last = next((e for e in reversed(run.journal.steps) if e.ok), None)
    if exc is not None and not isinstance(exc, (RunawayLoop, CaseTimeout)):
        if isinstance(exc, anthropic.APIStatusError) and run.journal.errors:
            error = run.journal.errors[-1]
            return verdict(run, [Finding("api-error", _ev(
                f"Step {error.step} got HTTP {error.status} {error.error.get('type')}.",
                f"El paso {error.step} recibió HTTP {error.status} {error.error.get('type')}."),
                step=error.step, api_error=error.error.get("message"))], None, lang)
        if run.case.expect == "stop" and run.journal.steps:
            pass  # stopping loudly is what the case wants
        elif run.case.long_task and last is not None and last.stop_reason == "tool_use":
            note = _ev(f"Your loop stopped with {type(exc).__name__} after {len(run.journal.steps)} requests, before the task "
                       "ended: fine as a safety net, but the cap is lower than this task needs.",
                       f"Tu bucle paró con {type(exc).__name__} tras {len(run.journal.steps)} peticiones, antes de que la "
                       "tarea acabara: bien como red de seguridad, pero el tope es menor que lo que pide esta tarea.")
        elif last is not None and last.stop_reason == "max_tokens":
            note = _ev("Your loop raised on max_tokens, which is accepted; retrying with a larger max_tokens would have finished the task.",
                       "Tu bucle lanzó una excepción en max_tokens, lo que se acepta; reintentar con un max_tokens mayor habría terminado la tarea.")
        else:
            return verdict(run, [Finding("loop-raised", _ev(
                f"The loop raised {type(exc).__name__}: {exc}",
                f"El bucle lanzó {type(exc).__name__}: {exc}"))], None, lang)
        return verdict(run, [], note, lang)

    if run.returned is not NOT_RETURNED and not isinstance(run.returned, str):
        return verdict(run, [Finding("returned-non-string", _ev(
            f"The loop returned {type(run.returned).__name__} {run.returned!r:.80}.",
            f"El bucle devolvió {type(run.returned).__name__} {run.returned!r:.80}."))], None, lang)
    if run.case.expect == "stop" and not run.journal.steps:
        return verdict(run, [Finding("wrong-answer", _ev(
            "The loop returned without calling the API: it never ran the task.",
            "El bucle devolvió sin llamar a la API: nunca ejecutó la tarea."))], None, lang)
    if (run.case.expect == "finish" and run.case.answer_contains and run.case.answer_contains not in run.returned
            and last is not None and last.stop_reason in ("tool_use", "max_tokens") and not _passed_off_as_answer(run)):
        # The loop stopped early and said so in what it returned (seed 001: return the partial work
        # and make clear the task is unfinished): a loud stop, like raising.
        return verdict(run, [], _ev(
            f"Your loop stopped after {len(run.journal.steps)} requests (stop_reason {last.stop_reason}) and returned "
            f"{run.returned!r:.80} instead of the answer: accepted as a loud stop, but a correct loop finishes this task.",
            f"Tu bucle paró tras {len(run.journal.steps)} peticiones (stop_reason {last.stop_reason}) y devolvió "
            f"{run.returned!r:.80} en vez de la respuesta: se acepta como parada avisada, pero un bucle correcto termina esta tarea."),
            lang)
    if run.case.expect == "finish" and run.case.answer_contains and run.case.answer_contains not in run.returned:
        return verdict(run, [Finding("wrong-answer", _ev(
            f"The loop returned {run.returned!r:.120}, which is not the final answer (it should mention {run.case.answer_contains!r}).",
            f"El bucle devolvió {run.returned!r:.120}, que no es la respuesta final (debería mencionar {run.case.answer_contains!r})."))],
            None, lang)
    streak = error_streak(run)
    if run.case.name == "persistent_tool_errors" and 3 < streak < ERROR_RUN_LIMIT:
        note = _ev(f"Your loop sent {streak} failing results in a row before stopping; seed 001 suggests stopping after 3.",
                   f"Tu bucle envió {streak} resultados con error seguidos antes de parar; la semilla 001 sugiere parar tras 3.")
    return verdict(run, [], note, lang)


def grade(loop: Callable[..., Any] | str | os.PathLike[str], only: Iterable[str] | None = None, *, lang: str | None = None,
          time_limit: float | None = None) -> Report:
    """Run ``loop`` on the conformance cases and return a :class:`Report`.

    An Agent SDK consumer (``async def consume(messages) -> str``, one parameter; see
    :func:`is_sdk_consumer`) runs on the SDK cases instead (:func:`grade_sdk`). The path of a
    TypeScript/JavaScript file (``"loop.ts"``, ``"loop.ts:myLoop"``) is graded by
    :func:`grade_typescript`.

    Args:
        loop: ``agent_loop(client, prompt, tools, run_tool) -> str`` (or ``async def``), an
            Agent SDK consumer ``async def consume(messages) -> str``, or ``"FILE.ts[:EXPORT]"``
            (``.ts``, ``.mts``, ``.js``, ``.mjs``; export ``agentLoop`` by default).
        only: case names to run (default: all, in order; see ``CASE_NAMES``, or
            ``SDK_CASE_NAMES`` for a consumer).
        lang: language of explanations, ``"en"`` or ``"es"`` (default: the learner's setting).
        time_limit: seconds per case before the loop is stopped (default: each case's, 10 s).

    Returns:
        The report; ``report.passed`` is True when every case passed.

    Raises:
        TypeError: when ``loop`` is not callable, or takes one parameter without being ``async`` (a
            consumer must be ``async def consume(messages)``).
        KeyError: for an unknown case name in ``only`` (the message lists the names).
        ValueError: for an unsupported ``lang``.
        ImportError: for an Agent SDK consumer when claude-agent-sdk is not installed.
        TypeScriptError: for a TypeScript file that cannot be graded (Node.js or ``npm ci``
            missing, the file does not compile or lacks the export; the message says which).
    """
    if isinstance(loop, (str, os.PathLike)):
        if not is_typescript_target(loop):
            raise TypeError(f"grade() needs a function agent_loop(client, prompt, tools, run_tool), or the path of "
                            f"a TypeScript/JavaScript loop (.ts, .mts, .js, .mjs), not {os.fspath(loop)!r}")
        return grade_typescript(loop, only, lang=lang, time_limit=time_limit)
    if is_sdk_consumer(loop):
        return grade_sdk(loop, only, lang=lang, time_limit=time_limit)
    if takes_one_argument(loop):
        raise TypeError(f"grade() got {getattr(loop, '__name__', 'a function')}() of one parameter: an Agent SDK consumer "
                        "must be `async def consume(messages) -> str` (it reads the stream with `async for`), and a "
                        "loop takes four, agent_loop(client, prompt, tools, run_tool)")
    if not callable(loop):
        raise TypeError(f"grade() needs a function agent_loop(client, prompt, tools, run_tool), got {type(loop).__name__}")
    lang = resolve_lang(lang)
    cases = list(CASES) if only is None else [get_case(name) for name in ([only] if isinstance(only, str) else only)]
    results = [judge(run_case(loop, case, time_limit=time_limit), lang) for case in cases]
    return Report(cases=results, lang=lang, loop_name=getattr(loop, "__name__", "agent_loop"))
