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

Isolation and the threat model
------------------------------
``grade(loop)`` runs the loop in a child process (``isolate=False`` runs it in this one, for
trusted code); ``grade_file(path)`` and ``grade_source(code)`` (the CLI's ``agentlab grade`` and
the quiz's fix-the-code items) run the file's top level or the answer's source there too. The
fake API, the spy ``run_tool``, the journal and :func:`judge` stay in this process
(``_isolate``); the child (``agentlab._sandbox.child``) reaches the fake over a pipe and sends
back only data: a real ``str`` (``type(x) is str``; anything else, a ``str`` subclass included,
is ``returned-non-string``), or an exception's type name, message and trimmed traceback. The
child never receives a case's expected answer.

Contained here, by the process, its limits and an audit hook (PEP 578), each a failing verdict
with a plain explanation, never a pass: ``os._exit()``, ``sys.exit()``, a signal or a
segfault (``exited``, ``crashed``); a case past its wall-time limit (killed: ``timeout``), the
CPU limit (``RLIMIT_CPU``), 1 GiB of address space above the child's start (``RLIMIT_AS``),
64 MiB per file, no core files (``resource-limit``); starting processes (fork, exec, spawn,
``os.system``, ``subprocess``), sending signals, the network (connect, bind, DNS), ctypes,
reading files outside the standard library, site-packages, the agentlab modules the child
needs, the submission's own file and its scratch directory, writing or deleting outside that
directory, making links, and importing or reading the modules that hold scenarios, cases,
answers, the reference loop and the quiz banks (``forbidden-operation``). The child is the
leader of its own session and process group, killed as a whole after the grading; it dies with
its parent (``PR_SET_PDEATHSIG``); its environment loses everything but ``PATH``, ``HOME``,
locale and Python's own variables (no API keys); the scratch directory (its working directory
and ``TMPDIR``) is removed after. Rebinding the grader's functions or editing the journal is
impossible from there: they live in another process.

The audit hook is Python and learner Python can switch it off (its state is reachable through
the module or ``gc``), and some operations raise no audit event (``dir_fd=``, ``sqlite3``,
``os.mkfifo``, ``os.pidfd_open``). So under it, set in the child before the submission runs and
kept by the kernel (``agentlab._sandbox.confine``; Linux only):

- a **network namespace** of its own (``unshare(CLONE_NEWNET)``, in a new user namespace when
  not root): no interface but a loopback that is down; the pipe to the parent is an inherited fd;
- **Landlock** (ABI read from the kernel): reads only under the hook's roots (the standard
  library, site-packages, the allowed agentlab modules, the submission's file, the scratch
  directory) and the system's shared libraries; writes, deletes, renames, links, fifos and device
  nodes only in the scratch directory (``dir_fd=`` and C code included); with ABI >= 4 no TCP
  connect or bind, with ABI >= 6 no signal to a process outside the child;
- a **seccomp** filter (``libseccomp`` through ctypes): ``EPERM`` for fork, vfork, clone without
  ``CLONE_THREAD`` (threads work), exec, kill/tgkill/rt_sigqueueinfo/pidfd_open aimed at another
  process, pidfd_send_signal, ptrace, setsid/setpgid, mounts and namespaces, mknod, raising
  limits, unix sockets, connect/bind, chown and extended attributes, io_uring, bpf.

An ``OSError`` these layers raise (``EPERM``, ``EACCES``, ``ENETUNREACH``) that ends the loop or
the load is reported as a ``forbidden-operation`` ("an operation the operating system refused")
even with the hook off. A layer the machine lacks (no Landlock in the kernel, user namespaces
forbidden in a container, no ``libseccomp``) is left out with a ``RuntimeWarning`` naming it,
once per process, and the grading goes on; ``AGENTLAB_SANDBOX_OFF=netns,landlock,seccomp`` (or
``all``) forces that fall-back.

Not contained, even with all three layers: the learner's code owns the child's Python, so it can
catch the refusal it got (the case then fails on its own, without ``forbidden-operation``) or
hand back a forged outcome over the pipe (the parent still judges it against the fake's journal
of what the loop really sent); ``chmod`` and ``utime`` are not covered by Landlock (a child
running as root can change the mode or times, not the content, of a file it can name); the
scratch directory can fill the disk with many files (64 MiB each); the seccomp filter is a
deny-list (a new system call is allowed); a kernel bug is out of reach. Without seccomp, a
unix socket (the forkserver's among them) can be reached and signals to other processes depend
on Landlock's ABI; without Landlock, the file system is the hook's alone. For exams or anything
graded for marks, run ``agentlab grade`` inside a container as well (the README's "Grading
untrusted code" gives the command); the isolation above still applies inside it. An Agent SDK consumer (:func:`grade_sdk`) is isolated the same
way: ``query()`` and the consumer run in the child, the fake CLI here, its frames pushed over the
pipe (``_isolate.Sandbox.run_sdk_case``).
"""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path
from typing import Any, Callable, Iterable

import anthropic

from ..errors import RunawayLoop
from ._cases import CASE_NAMES, CASES, Case, get_case
from ..fake._api import _FINISHED  # stop reasons after which the model's text is its final answer
from ..fake._journal import Journal
from ._detect import (ERROR_RUN_LIMIT, Finding, ForeignValue, _passed_off_as_answer, _text, detect_all, error_streak,
                      returned_text, safe_describe)
from ._harness import NOT_RETURNED, CaseRun, CaseTimeout, run_case
from . import _isolate
from ._isolate import LoadError, Sandbox, Submission, containment_findings
from ._report import CaseResult, Report, resolve_lang, verdict
from ._typescript import TypeScriptError, grade_typescript, grade_typescript_many, is_typescript_target
from ._sdk import SDK_CASE_NAMES, SDK_CASES, SdkCase, get_sdk_case, grade_sdk, is_sdk_consumer, takes_one_argument

__all__ = ["CASES", "CASE_NAMES", "Case", "CaseResult", "Finding", "LoadError", "Report", "SDK_CASES", "SDK_CASE_NAMES",
           "SdkCase", "TypeScriptError", "grade", "grade_file", "grade_sdk", "grade_source", "grade_typescript",
           "grade_typescript_many", "get_case", "get_sdk_case", "is_sdk_consumer", "judge", "judge_isolated"]


def _ev(en: str, es: str) -> dict[str, str]:
    return {"en": en, "es": es}


def judge(run: CaseRun, lang: str = "en") -> CaseResult:
    """The verdict on one run: detectors first, then what the case expects of the outcome.

    Args:
        run: what the loop did on one case (journal, tool calls, returned value or exception).
        lang: language of the explanation, ``"en"`` or ``"es"``.

    Returns:
        The :class:`CaseResult`; ``passed`` is False when any finding was made.

    The rules, in order (the first that applies decides):

    1. Anti-patterns and hangs: every detector of ``_detect.DETECTORS`` (a tool error that never
       reached the model is ``tool-error-crashes-loop`` whatever the loop returns; a stop reason it
       crashed on while looking it up, ``KeyError('stop_sequence')``, is ``unhandled-stop-reason``;
       consecutive user messages are judged as the API merges them), then ``unstoppable`` /
       ``timeout``.
    2. The returned value must be a real ``str`` (``type(x) is str``): anything else, a ``str``
       subclass included, is ``returned-non-string``, decided from the type alone (none of the
       value's methods is called).
    3. Zero requests: a loop that returns without one ``/v1/messages`` request never ran the task
       (a hard-coded answer): ``wrong-answer`` on every case.
    4. A loop that raised: an API error is ``api-error``; on a ``stop`` case raising after at least
       one request is the loud stop the case wants (raising before any is ``loop-raised``);
       raising at its own step cap on ``long_task``, on ``max_tokens``, or on ``stop_sequence`` (a
       deliberate stop; the seeds differ on that stop reason) is accepted with a note; anything
       else is ``loop-raised``.
    5. Stopping early without the answer (the last step was ``tool_use``, ``max_tokens`` or
       ``stop_sequence``) by RETURNING is accepted, with a note, only when what it returns clearly
       says the work is unfinished (the issue: "the model's answer or a clear unfinished signal"):
       it is not the model's own text, it names the stop reason ("Stopped early: max_tokens") or
       says incomplete / partial / stopped / limit / sin terminar... as a claim about the result
       (``_detect.says_unfinished``: "nothing incomplete" and "partial results are not a concern"
       do not count), AND it makes no completion claim ("Task completed.", "Done.", "Tarea
       terminada.": ``_detect.claims_completion``; "not finished" is not one). Anything else (an
       empty or vague text, "Here is what I found.", or a claim) is passed off as the answer:
       ``iteration-cap-as-stop`` (at the loop's own cap, while the model was still calling tools),
       ``ignores-max-tokens``, else ``wrong-answer``. Raising is always a clear signal.
    6. A ``finish`` case's answer must contain ``answer_contains``: else ``wrong-answer``.
    """
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
        findings.append(Finding("timeout", _timeout_evidence(run)))
    if run.returned is not NOT_RETURNED and type(run.returned) is not str:
        # From here on only the type is read: the value goes into the report as a safe description.
        kind = type(run.returned)
        foreign = type(kind) is type and issubclass(kind, ForeignValue)  # a TypeScript loop's value: its own words
        evidence, fix = kind.returned_non_string(run.returned) if foreign else (None, None)
        said = safe_describe(run.returned)
        run = replace(run, returned=said)
        if not findings:
            return verdict(run, [Finding("returned-non-string", evidence or _ev(
                f"The loop returned {said}: agent_loop must return a str (a str subclass is not one).",
                f"El bucle devolvió {said}: agent_loop debe devolver un str (una subclase de str no lo es)."),
                fix=fix)], None, lang)
    if findings:
        return verdict(run, findings, None, lang)

    steps = run.journal.steps
    if not steps and exc is None:
        return verdict(run, [Finding("wrong-answer", _ev(
            "The loop returned without calling the API: it never ran the task (an answer written in the code is not "
            "the model's).",
            "El bucle devolvió sin llamar a la API: nunca ejecutó la tarea (una respuesta escrita en el código no es "
            "la del modelo)."))], None, lang)

    last = next((e for e in reversed(steps) if e.ok), None)
    if exc is not None and not isinstance(exc, (RunawayLoop, CaseTimeout)):
        if isinstance(exc, anthropic.APIStatusError) and run.journal.errors:
            error = run.journal.errors[-1]
            return verdict(run, [Finding("api-error", _ev(
                f"Step {error.step} got HTTP {error.status} {error.error.get('type')}.",
                f"El paso {error.step} recibió HTTP {error.status} {error.error.get('type')}."),
                step=error.step, api_error=error.error.get("message"))], None, lang)
        if run.case.expect == "stop" and steps:
            pass  # stopping loudly is what the case wants
        elif run.case.long_task and last is not None and last.stop_reason == "tool_use":
            note = _ev(f"Your loop stopped with {type(exc).__name__} after {len(steps)} requests, before the task "
                       "ended: fine as a safety net, but the cap is lower than this task needs.",
                       f"Tu bucle paró con {type(exc).__name__} tras {len(steps)} peticiones, antes de que la "
                       "tarea acabara: bien como red de seguridad, pero el tope es menor que lo que pide esta tarea.")
        elif last is not None and last.stop_reason == "max_tokens":
            note = _ev("Your loop raised on max_tokens, which is accepted; retrying with a larger max_tokens would have finished the task.",
                       "Tu bucle lanzó una excepción en max_tokens, lo que se acepta; reintentar con un max_tokens mayor habría terminado la tarea.")
        elif last is not None and last.stop_reason == "stop_sequence":
            note = _ev(f"Your loop raised {type(exc).__name__} on stop_reason stop_sequence, which is accepted as a loud "
                       "stop; but stop_sequence is a controlled end: return the text (response.stop_sequence says which "
                       "sequence matched).",
                       f"Tu bucle lanzó {type(exc).__name__} ante stop_reason stop_sequence, lo que se acepta como parada "
                       "avisada; pero stop_sequence es un fin controlado: devuelve el texto (response.stop_sequence dice "
                       "qué secuencia apareció).")
        else:
            return verdict(run, [Finding("loop-raised", _ev(
                f"The loop raised {type(exc).__name__}: {exc}",
                f"El bucle lanzó {type(exc).__name__}: {exc}"))], None, lang)
        return verdict(run, [], note, lang)

    said = returned_text(run)
    answer = run.case.answer_contains
    if (run.case.expect == "finish" and answer and said is not None and answer not in said
            and last is not None and last.stop_reason in ("tool_use", "max_tokens", "stop_sequence")
            and not _passed_off_as_answer(run) and said.strip()):
        # The loop stopped early and said so in what it returned (seed 001: return the partial work
        # and make clear the task is unfinished): a loud stop, like raising.
        return verdict(run, [], _ev(
            f"Your loop stopped after {len(steps)} requests (stop_reason {last.stop_reason}) and returned "
            f"{said!r:.80} instead of the answer: accepted as a loud stop, but a correct loop finishes this task.",
            f"Tu bucle paró tras {len(steps)} peticiones (stop_reason {last.stop_reason}) y devolvió "
            f"{said!r:.80} en vez de la respuesta: se acepta como parada avisada, pero un bucle correcto termina esta tarea."),
            lang)
    if run.case.expect == "finish" and answer and (said is None or answer not in said):
        return verdict(run, [Finding("wrong-answer", _ev(
            f"The loop returned {said!r:.120}, which is not the final answer (it should mention {answer!r}).",
            f"El bucle devolvió {said!r:.120}, que no es la respuesta final (debería mencionar {answer!r})."))],
            None, lang)
    if (run.case.expect == "finish" and answer and said is not None and answer in said
            and (last is None or last.stop_reason not in _FINISHED or answer not in _text(last.content))):
        # The right words, but not from the model: its last reply did not end the task, or did not
        # say them (an answer written in the code, or read from somewhere, after a token request).
        where = "no reply" if last is None else f"step {last.step}: stop_reason {last.stop_reason}"
        return verdict(run, [Finding("wrong-answer", _ev(
            f"The loop returned the task's answer ({answer!r}), but the model never gave it: its last reply ({where}) "
            "did not end the task with that text. The answer must come from the model's final turn (end_turn), "
            "not from the code.",
            f"El bucle devolvió la respuesta de la tarea ({answer!r}), pero el modelo nunca la dio: su última "
            f"respuesta ({where}) no terminó la tarea con ese texto. La respuesta debe salir del turno final del "
            "modelo (end_turn), no del código."), step=None if last is None else last.step)], None, lang)
    streak = error_streak(run)
    if run.case.name == "persistent_tool_errors" and 3 < streak < ERROR_RUN_LIMIT:
        note = _ev(f"Your loop sent {streak} failing results in a row before stopping; seed 001 suggests stopping after 3.",
                   f"Tu bucle envió {streak} resultados con error seguidos antes de parar; la semilla 001 sugiere parar tras 3.")
    return verdict(run, [], note, lang)


def grade(loop: Callable[..., Any] | str | os.PathLike[str], only: Iterable[str] | None = None, *, lang: str | None = None,
          time_limit: float | None = None, isolate: bool = True) -> Report:
    """Run ``loop`` on the conformance cases and return a :class:`Report`.

    The loop runs in a child process (``isolate=True``, the default): see "Isolation" in this
    module's docstring. An Agent SDK consumer (``async def consume(messages) -> str``, one
    parameter; see :func:`is_sdk_consumer`) runs on the SDK cases instead (:func:`grade_sdk`),
    isolated the same way (``query()`` in the child, its fake CLI here). The path of a
    TypeScript/JavaScript file (``"loop.ts"``, ``"loop.ts:myLoop"``) is graded by
    :func:`grade_typescript` (Node.js in its own process group).

    Args:
        loop: ``agent_loop(client, prompt, tools, run_tool) -> str`` (or ``async def``), an
            Agent SDK consumer ``async def consume(messages) -> str``, or ``"FILE.ts[:EXPORT]"``
            (``.ts``, ``.mts``, ``.js``, ``.mjs``; export ``agentLoop`` by default).
        only: case names to run (default: all, in order; see ``CASE_NAMES``, or
            ``SDK_CASE_NAMES`` for a consumer).
        lang: language of explanations, ``"en"`` or ``"es"`` (default: the learner's setting).
        time_limit: seconds per case before the loop is stopped (default: each case's, 10 s).
        isolate: False runs the loop (or consumer) in this process, in a thread, as before isolation
            existed: for trusted code only (a debugger's breakpoint works there).

    Returns:
        The report; ``report.passed`` is True when every case passed.

    Raises:
        TypeError: when ``loop`` is not callable, or takes one parameter without being ``async`` (a
            consumer must be ``async def consume(messages)``), or cannot be sent to the child
            (it closes over a lock, an open file...).
        KeyError: for an unknown case name in ``only`` (the message lists the names).
        ValueError: for an unsupported ``lang``.
        ImportError: for an Agent SDK consumer when claude-agent-sdk is not installed.
        TypeScriptError: for a TypeScript file that cannot be graded (Node.js or ``npm ci``
            missing, the file does not compile or lacks the export; the message says which).
        LoadError: when the child cannot load the loop (its module cannot be imported there).
    """
    if isinstance(loop, (str, os.PathLike)):
        if not is_typescript_target(loop):
            raise TypeError(f"grade() needs a function agent_loop(client, prompt, tools, run_tool), or the path of "
                            f"a TypeScript/JavaScript loop (.ts, .mts, .cts, .js, .mjs, .cjs), not {os.fspath(loop)!r}")
        return grade_typescript(loop, only, lang=lang, time_limit=time_limit)
    if is_sdk_consumer(loop):
        return grade_sdk(loop, only, lang=lang, time_limit=time_limit, isolate=isolate)
    if takes_one_argument(loop):
        raise _one_parameter(getattr(loop, '__name__', 'a function'))
    if not callable(loop):
        raise TypeError(f"grade() needs a function agent_loop(client, prompt, tools, run_tool), got {type(loop).__name__}")
    lang = resolve_lang(lang)
    cases = _cases(only)
    name = getattr(loop, "__name__", "agent_loop")
    if not isolate or not _isolation_available():
        results = [judge(run_case(loop, case, time_limit=time_limit), lang) for case in cases]
        return Report(cases=results, lang=lang, loop_name=name)
    return _grade_isolated(Submission.of(loop), cases, lang, time_limit, name)


def _one_parameter(name: str) -> TypeError:
    return TypeError(f"grade() got {name}() of one parameter: an Agent SDK consumer must be `async def "
                     "consume(messages) -> str` (it reads the stream with `async for`), and a loop takes four, "
                     "agent_loop(client, prompt, tools, run_tool)")


def _isolation_available() -> bool:
    """Whether this platform can start the isolated child (a ``forkserver``: Linux, macOS); where it
    cannot (Windows), grading runs in this process, with a warning, as before isolation existed."""
    import multiprocessing
    import warnings

    if "forkserver" in multiprocessing.get_all_start_methods():
        return True
    warnings.warn("agentlab.grade: this platform has no forkserver, so the loop runs in the grader's own "
                  "process, not isolated (see 'Grading untrusted code' in the README)", RuntimeWarning, stacklevel=3)
    return False


def _load_here(submission: Submission) -> Any:
    """Where isolation is not available: the submission's function, loaded in this process.

    Raises:
        LoadError: as the child would report it.
    """
    namespace: dict[str, Any] = {"__name__": "agentlab_fix_code" if submission.kind == "source" else
                                 f"agentlab_graded_{Path(submission.path or 'loop').stem}"}
    try:
        code = submission.code if submission.kind == "source" else Path(submission.path).read_text(encoding="utf-8")
        exec(compile(code, submission.filename, "exec"), namespace)  # noqa: S102 - not isolated: documented
    except (Exception, SystemExit) as exc:  # noqa: BLE001 - reported as the child would
        kind = "syntax" if isinstance(exc, SyntaxError) else "raised"
        raise LoadError(f"{type(exc).__name__}: {exc}", kind=kind, line=getattr(exc, "lineno", None),
                        type_name=type(exc).__name__) from None
    name = submission.name or ("agent_loop" if callable(namespace.get("agent_loop")) or
                               not callable(namespace.get("consume")) else "consume")
    if name not in namespace:
        raise LoadError(f"no function {name}", kind="missing", es=f"no hay ninguna función {name}",
                        found=[n for n, v in namespace.items() if callable(v) and not n.startswith("_")])
    if not callable(namespace[name]):
        raise LoadError(f"{name} is not a function", kind="not-callable", type_name=type(namespace[name]).__name__,
                        es=f"{name} no es una función")
    return namespace[name]


def _cases(only: Iterable[str] | str | None) -> list[Case]:
    return list(CASES) if only is None else [get_case(name) for name in ([only] if isinstance(only, str) else only)]


def judge_isolated(run: CaseRun, lang: str = "en") -> CaseResult:
    """The verdict on an isolated run: what the sandbox saw first (a refused operation, the child's
    death, a limit: :func:`~agentlab.grader._isolate.containment_findings`), with the detectors'
    findings after it; :func:`judge` when the sandbox saw nothing."""
    contained = containment_findings(run)
    if not contained:
        return judge(run, lang)
    tags = {f.tag for f in contained}
    return verdict(run, contained + [f for f in detect_all(run) if f.tag not in tags], None, lang)


def _timeout_evidence(run: CaseRun) -> dict[str, str]:
    """What a timeout says, by what the loop was doing: the fake answers each request at once, so a
    loop still running at its limit was busy in its own code, not waiting on the API; it says
    whether the loop made any request, and (isolated) when it only had
    ``run.first_request_limit`` s to make its first because an earlier case spun without one."""
    sent = len(run.journal)
    if run.first_request_limit is not None and sent == 0 and not run.calls:
        t = run.first_request_limit
        return _ev(f"The loop made no request to the API within {t:g} s: on an earlier case it ran out of time without "
                   "one, busy in its own code, so each later case gets only this long to make its first request.",
                   f"El bucle no hizo ninguna petición a la API en {t:g} s: en un caso anterior se quedó sin tiempo "
                   "sin hacer ninguna, ocupado en su propio código, así que cada caso siguiente solo tiene este tiempo "
                   "para hacer su primera petición.")
    t = run.case.time_limit
    if sent == 0:
        return _ev(f"The loop was still running after {t:g} s without making one request to the API: it was busy in "
                   "its own code (an endless loop, a deep recursion), not waiting on the API.",
                   f"El bucle seguía en marcha tras {t:g} s sin hacer ni una petición a la API: estaba ocupado en su "
                   "propio código (un bucle sin fin, una recursión profunda), no esperando a la API.")
    return _ev(f"The loop was still running after {t:g} s and {sent} request(s) without finishing: each request was "
               "answered at once, so it was busy in its own code, not waiting on the API.",
               f"El bucle seguía en marcha tras {t:g} s y {sent} petición(es) sin terminar: cada petición se respondió "
               "al momento, así que estaba ocupado en su propio código, no esperando a la API.")


def _grade_isolated(submission: Submission, cases: list[Case], lang: str, time_limit: float | None,
                    name: str, sandbox: Sandbox | None = None) -> Report:
    import sys

    limits = [case.time_limit if time_limit is None else time_limit for case in cases]
    box = sandbox or Sandbox(submission, limits, lang)
    results = []
    try:
        if box.loaded is None:
            box.load()
        spun = False  # a case ran out of time without one request: later cases get FIRST_REQUEST_LIMIT
        for case in cases:
            try:
                run = box.run_case(case, time_limit=time_limit, first_request_limit=_isolate.FIRST_REQUEST_LIMIT if spun else None)
                spun = spun or (run.timed_out and len(run.journal) == 0 and not run.calls
                                and run.child_end is None and run.exception is None)
            except LoadError as exc:  # it loaded once, then not again after a case killed the child
                run = CaseRun(case=case, journal=Journal(scenario=case.scenario.name), isolated=True,
                              child_end={"how": "exit", "code": None}, output=str(exc))
            if run.output:
                print(run.output, end="" if run.output.endswith("\n") else "\n", file=sys.stdout)
            results.append(judge_isolated(run, lang))
    finally:
        box.close()
    return Report(cases=results, lang=lang, loop_name=name)


def grade_file(path: Any, name: str | None = None, only: Iterable[str] | str | None = None, *,
               lang: str | None = None, time_limit: float | None = None, helpers: Iterable[Any] = ()) -> Report:
    """Grade the function ``name`` of the Python file at ``path``; the file's top level runs in the
    child too (an ``exit()``, a crash or an endless loop there is a :class:`LoadError`).

    Args:
        path: the learner's ``.py`` file.
        name: the function (default ``agent_loop``, else ``consume`` when the file has no ``agent_loop``).
        only, lang, time_limit: as for :func:`grade`.
        helpers: the learner's other ``.py`` files the submission may import (copied into the
            child's scratch directory, first on its ``sys.path``).

    Returns:
        The report (an Agent SDK consumer is graded on the SDK cases, isolated too).

    Raises:
        LoadError: the file cannot be loaded (syntax error, exception, exit or crash at its top level,
            more than ``LOAD_LIMIT`` seconds, no such function); its message says why.
        TypeError, KeyError, ValueError: as for :func:`grade`.
    """
    lang = resolve_lang(lang)
    submission = Submission.file(path, name, tuple(helpers))
    if not _isolation_available():
        return grade(_load_here(submission), only, lang=lang, time_limit=time_limit, isolate=False)
    cases = _cases(only) if only is None or not _sdk_names(only) else None
    box = Sandbox(submission, [c.time_limit if time_limit is None else time_limit for c in cases or CASES], lang)
    try:
        loaded = box.load()
    except BaseException:
        box.close()
        raise
    if loaded.shape in ("consumer", "one-arg"):
        return _grade_loaded_consumer(box, loaded, only, lang, time_limit)
    if cases is None:
        box.close()
        cases = _cases(only)
    return _grade_isolated(submission, cases, lang, time_limit, loaded.name, sandbox=box)


def _grade_loaded_consumer(box: Sandbox, loaded: Any, only: Iterable[str] | str | None, lang: str,
                           time_limit: float | None) -> Report:
    """Grade the Agent SDK consumer loaded in ``box`` on the SDK cases (closes ``box``)."""
    from ._sdk import grade_sdk_isolated

    try:
        if loaded.shape == "one-arg":
            raise _one_parameter(loaded.name)
        cases = list(SDK_CASES) if only is None else [get_sdk_case(n) for n in ([only] if isinstance(only, str) else only)]
        try:
            import claude_agent_sdk  # noqa: F401
        except ImportError as error:
            from ..agent_sdk import INSTALL_HINT

            raise ImportError(INSTALL_HINT) from error
    except BaseException:
        box.close()
        raise
    return grade_sdk_isolated(box, cases, lang, time_limit, loaded.name)


def _sdk_names(only: Iterable[str] | str) -> bool:
    names = [only] if isinstance(only, str) else list(only)
    return bool(names) and all(n in SDK_CASE_NAMES for n in names)


def grade_source(code: str, name: str = "agent_loop", only: Iterable[str] | str | None = None, *,
                 lang: str | None = None, time_limit: float | None = None, filename: str = "<submission>") -> Report:
    """Grade the function ``name`` defined by the Python source ``code`` (a fix-the-code answer),
    executed in the child.

    Returns:
        The report (an Agent SDK consumer is graded on the SDK cases, isolated too).

    Raises:
        LoadError: as for :func:`grade_file` (``kind`` says which: ``"syntax"``, ``"raised"``,
            ``"missing"``, ``"not-callable"``, ``"died"``, ``"timeout"``, ``"refused"``).
        TypeError, KeyError, ValueError: as for :func:`grade`.
    """
    lang = resolve_lang(lang)
    submission = Submission.source(code, name, filename)
    if not _isolation_available():
        return grade(_load_here(submission), only, lang=lang, time_limit=time_limit, isolate=False)
    cases = _cases(only) if only is None or not _sdk_names(only) else None
    box = Sandbox(submission, [c.time_limit if time_limit is None else time_limit for c in cases or CASES], lang)
    try:
        loaded = box.load()
    except BaseException:
        box.close()
        raise
    if loaded.shape in ("consumer", "one-arg"):
        return _grade_loaded_consumer(box, loaded, only, lang, time_limit)
    if cases is None:
        box.close()
        cases = _cases(only)
    return _grade_isolated(submission, cases, lang, time_limit, loaded.name, sandbox=box)
