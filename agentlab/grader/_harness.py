"""Running a learner's loop on one case, safely.

The loop runs in a worker thread on a fresh fake client, with a spy ``run_tool`` that records
every call. The kernel never hangs:

- a loop that keeps calling the API gets :class:`agentlab.RunawayLoop` from the fake;
- a loop that runs past the case's time limit gets :class:`CaseTimeout` raised inside it
  (``PyThreadState_SetAsyncExc``; both derive from ``BaseException``);
- a loop that swallows even those is abandoned: the fake then parks any further request of
  that thread forever (a daemon thread, so it costs no CPU and does not keep Python alive),
  and the case is reported as one that could not be stopped.
"""

from __future__ import annotations

import asyncio
import copy
import ctypes
import inspect
import threading
import time
from dataclasses import dataclass, field, replace
from typing import Any, Callable

from .._client import fake_api, fake_async_client, fake_client
from ..errors import RunawayLoop
from ..fake._journal import Journal
from ._cases import Case

__all__ = ["CONTAINMENT_FINDINGS", "CaseTimeout", "ToolCall", "CaseRun", "run_case", "NOT_RETURNED"]

RUNAWAY_MARGIN = 35
"""Requests past what a case needs before the fake raises RunawayLoop: above the seeds' 10-30
step caps, so a loop's own safety net always trips first and counts as one."""

NOT_RETURNED = object()
"""Marks a loop that did not return (it raised, or was stopped)."""


CONTAINMENT_FINDINGS: dict[str, dict[str, dict[str, str]]] = {
    "forbidden-operation": {
        "name": {"en": "Did something the grader forbids", "es": "Hizo algo que el grader prohíbe"},
        "fix": {"en": "A loop only calls the client and run_tool: no files outside the working directory, no "
                      "processes, no network, no ctypes.",
                "es": "Un bucle solo llama al cliente y a run_tool: nada de ficheros fuera del directorio de trabajo, "
                      "procesos, red ni ctypes."},
    },
    "exited": {
        "name": {"en": "Ended the program", "es": "Terminó el programa"},
        "fix": {"en": "Return the answer, or raise an exception when the task cannot finish; never call sys.exit() or "
                      "os._exit() in a loop.",
                "es": "Devuelve la respuesta, o lanza una excepción si la tarea no puede terminar; nunca llames a "
                      "sys.exit() ni a os._exit() en un bucle."},
    },
    "crashed": {
        "name": {"en": "Crashed Python", "es": "Hizo caer Python"},
        "fix": {"en": "Look for deep recursion (and sys.setrecursionlimit), ctypes or a C extension misused; the "
                      "output above shows what it printed last.",
                "es": "Busca recursión profunda (y sys.setrecursionlimit), ctypes o una extensión en C mal usada; la "
                      "salida muestra lo último que imprimió."},
    },
    "resource-limit": {
        "name": {"en": "Went past a resource limit", "es": "Superó un límite de recursos"},
        "fix": {"en": "Keep the conversation and the data you hold small; a loop needs little memory and CPU, it "
                      "waits on the API.",
                "es": "Mantén pequeños la conversación y los datos que guardas; un bucle necesita poca memoria y CPU, "
                      "espera a la API."},
    },
}
"""The isolated grader's own findings (``_isolate.containment_findings``): name and fix in English
and Spanish, merged into ``_detect.FINDINGS``."""


class CaseTimeout(BaseException):
    """Raised inside a loop that ran past its case's time limit."""


@dataclass
class ToolCall:
    """One call the loop made to ``run_tool``."""

    step: int | None
    """The step whose response the loop was acting on (the last step answered), None before any."""
    name: Any
    input: Any
    result: Any = None
    error: BaseException | None = None


@dataclass
class CaseRun:
    """What happened when a loop ran on a case."""

    case: Case
    journal: Journal
    calls: list[ToolCall] = field(default_factory=list)
    returned: Any = NOT_RETURNED
    exception: BaseException | None = None
    timed_out: bool = False
    unstoppable: bool = False
    elapsed: float = 0.0
    """Seconds of wall time (not part of any printed output)."""
    isolated: bool = False
    """The loop ran in a child process (``_isolate.Sandbox``), not in this one."""
    child_end: dict[str, Any] | None = None
    """How the child ended the case when it did not return or raise normally: ``{"how": "exit",
    "code": n}``, ``{"how": "signal", "signal": "SIGSEGV"}``, ``{"how": "raised", "type":
    "SystemExit"}`` or ``{"how": "protocol"}``; None otherwise."""
    refused: list[dict[str, str]] = field(default_factory=list)
    """What the child's audit hook refused, in order, in words: ``{"en": "reading
    /home/u/.ssh/id_rsa", "es": "leer /home/u/.ssh/id_rsa"}``."""
    output: str = ""
    """What the loop printed (stdout and stderr), trimmed; isolated runs only."""
    traceback: str = ""
    """The exception's trimmed traceback as the child formatted it; isolated runs only."""
    first_request_limit: float | None = None
    """Isolated runs: the seconds the case had to make its first request, because an earlier
    case of the same grading ran out of time without one (``_isolate.FIRST_REQUEST_LIMIT``);
    None: the case's whole time limit."""

    @property
    def runaway(self) -> bool:
        """Whether the fake raised RunawayLoop into the loop."""
        return isinstance(self.exception, RunawayLoop) or any(e.rule == "runaway" for e in self.journal)


def _spy(case: Case, journal: Journal, calls: list[ToolCall]) -> Callable[[str, dict], Any]:
    real = case.scenario.run_tool

    def run_tool(name: str, tool_input: dict) -> Any:
        answered = [e.step for e in journal.steps if e.ok]
        call = ToolCall(step=answered[-1] if answered else None, name=name, input=copy.deepcopy(tool_input))
        calls.append(call)
        try:
            call.result = real(name, tool_input) if real else ""
        except Exception as exc:
            call.error = exc
            raise
        return call.result

    return run_tool


def _inject(thread: threading.Thread, exc_type: type[BaseException]) -> None:
    if thread.ident is not None:
        ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(thread.ident), ctypes.py_object(exc_type))


def run_case(loop: Callable[..., Any], case: Case, *, time_limit: float | None = None) -> CaseRun:
    """Run ``loop(client, prompt, tools, run_tool)`` on ``case`` and record everything.

    Args:
        loop: the learner's loop; a coroutine function gets an ``AsyncAnthropic``.
        case: the case to run.
        time_limit: seconds before the loop is stopped (default: the case's).

    Returns:
        A :class:`CaseRun`. Never raises for anything the loop does.
    """
    is_async = inspect.iscoroutinefunction(loop)
    client = (fake_async_client if is_async else fake_client)(
        case.scenario, runaway_after=max(case.scenario.runaway_after, RUNAWAY_MARGIN))
    api = fake_api(client)
    limit = case.time_limit if time_limit is None else time_limit
    run = CaseRun(case=replace(case, time_limit=limit), journal=api.journal)  # the verdict names the limit used
    tools = copy.deepcopy(list(case.scenario.tools))
    run_tool = _spy(case, api.journal, run.calls)

    def target() -> None:
        try:
            if is_async:
                run.returned = asyncio.run(loop(client, case.scenario.prompt, tools, run_tool))
            else:
                run.returned = loop(client, case.scenario.prompt, tools, run_tool)
        except BaseException as exc:  # noqa: BLE001 - everything the loop does is reported
            run.exception = exc

    worker = threading.Thread(target=target, name=f"agentlab-grade-{case.name}", daemon=True)
    start = time.perf_counter()
    worker.start()
    worker.join(limit)
    if worker.is_alive():
        run.timed_out = True
        for _ in range(5):
            _inject(worker, CaseTimeout)
            worker.join(0.2)
            if not worker.is_alive():
                break
        if worker.is_alive():
            run.unstoppable = True
            api.park_requests()
    run.elapsed = time.perf_counter() - start
    if isinstance(run.exception, CaseTimeout):
        run.returned = NOT_RETURNED
    return run
