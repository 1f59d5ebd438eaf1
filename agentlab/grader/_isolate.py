"""The parent side of isolated grading: one child process per grading, the fake and the judge here.

::

    with Sandbox(Submission.of(loop)) as box:      # or Submission.file(path, name) / .source(code)
        box.load()                                 # the child loads it; LoadError if it cannot
        run = box.run_case(case, time_limit=None)  # a CaseRun, as run_case() makes in-process

The child (``agentlab._sandbox.child``) starts from a ``forkserver`` that preloaded ``anthropic``
and the child module, so a grading costs a fork, not an interpreter start. It is reused across
the cases of ONE grading (never across submissions) and replaced after a case that killed it
or ran out of time. Each case gets a fresh :class:`~agentlab.fake.FakeAPI` here, in the parent:
the child sends each HTTP request over the pipe and gets back the bytes ``FakeAPI.handle``
produced (a ``RunawayLoop`` as a message the child raises), ``run_tool`` calls come here and run
through the spy (``_harness._spy``), and the outcome comes back as data. Nothing the child sends
is unpickled.

An Agent SDK consumer's case (:meth:`Sandbox.run_sdk_case`) runs ``query()`` in the child and
its CLI, ``agentlab.agent_sdk.fake_transport``, here: what the SDK writes comes over the pipe,
what the fake CLI emits is pushed back, and the messages the consumer read are rebuilt here from
those frames with the SDK's own parser.

The per-case wall-time limit is enforced here (the child's process group is killed at the
limit); the memory, CPU and file-size limits, the OS layers (network namespace, Landlock,
seccomp: ``agentlab._sandbox.confine``), the audit hook and the scratch directory are set in
the child. A layer the child could not set is warned about once (:func:`_warn_missing_layers`). A child that dies (an exit, a signal, a limit) fails the case with a plain
explanation (:func:`containment_findings`), never a pass.
"""

from __future__ import annotations

import asyncio
import builtins
import json
import multiprocessing
import os
import shutil
import signal
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field, replace
from typing import Any

import anthropic
import httpx2

from .._sandbox import wire
from .._sandbox.confine import OFF_VARIABLE, switched_off
from ..errors import RunawayLoop
from ..fake._api import FakeAPI
from ._cases import Case
from ._detect import Finding
from ._harness import NOT_RETURNED, RUNAWAY_MARGIN, CaseRun, _spy

__all__ = ["LOAD_LIMIT", "OUTPUT_LIMIT", "REQUEST_BYTES_LIMIT", "LoadError", "Sandbox", "Submission", "containment_findings"]

REQUEST_BYTES_LIMIT = 64 * 1024 * 1024
"""Bytes of request bodies one case may send through the pipe, in all (twice the API's 32 MB limit
for one request, reference 7 rule 32, so any single request the API would take still reaches the
fake, which answers 413 above it). Every request the fake sees stays in the journal in this
process, so without a bound a loop sending many large requests grows the GRADER's memory (40
requests of 20 MB took the parent to ~0.9 GB); past it the case ends with ``resource-limit``.
The fake's choice, not an API rule."""

FIRST_REQUEST_LIMIT = 2.0
"""Seconds a case has to make its first request once an earlier case of the same grading ran
out of time without making any (a loop busy in its own code from the start: an endless loop, a
deep recursion after ``sys.setrecursionlimit``). The loop cannot have seen anything of the case
but its prompt before its first request, so it most likely spins on every case: instead of
spending each case's whole time limit (16 x 10 s), the later cases get this long to call the API
and, once they do, their whole limit. A loop that answers makes its first request within
milliseconds. The fake's choice, not an API rule."""

LOAD_LIMIT = 10.0
"""Seconds the child may take to load a submission (a file's top level, an unpickled function)."""

OUTPUT_LIMIT = 2000
"""Characters of a case's captured stdout/stderr kept (the first and last halves)."""

CPU_MARGIN = 10
"""CPU seconds the child gets above the sum of its cases' time limits (``RLIMIT_CPU``)."""

CHILD_CPU = {"seconds": 0.0}
"""CPU seconds (user + system) used by every child this process has stopped, read from
``/proc/PID/stat`` before the kill (``benchmarks/bench_grader.py`` reports it)."""

_START_LOCK = threading.Lock()
_CONTEXT: Any = None


def _context() -> Any:
    """The ``forkserver`` context, its server preloading ``anthropic`` and the child module (and
    ``claude_agent_sdk`` when this process imported it before its first grading: its import costs
    about a second, which each child grading a consumer would pay otherwise)."""
    global _CONTEXT
    with _START_LOCK:
        if _CONTEXT is None:
            ctx = multiprocessing.get_context("forkserver")
            preload = ["agentlab._sandbox.launch", "agentlab._sandbox.child", "agentlab._sandbox.warm"]
            if "claude_agent_sdk" in sys.modules:  # this process grades (or will grade) Agent SDK consumers
                preload += ["claude_agent_sdk", "agentlab._sandbox.sdk"]
            ctx.set_forkserver_preload(preload)
            _CONTEXT = ctx
        return _CONTEXT


class LoadError(Exception):
    """The submission could not be loaded in the child: a syntax error, an exception, an exit or a
    crash at its top level, a load past :data:`LOAD_LIMIT`, or no such function.

    Attributes:
        kind: ``"raised"``, ``"syntax"``, ``"died"``, ``"timeout"``, ``"missing"``, ``"not-callable"``,
            ``"refused"``.
        texts: the message, ``{"en": ..., "es": ...}``.
        line: the submission's line, when known.
        found: for ``"missing"``: the functions the submission defines.
    """

    def __init__(self, message: str, *, kind: str, line: int | None = None, found: list[str] | None = None,
                 type_name: str | None = None, es: str | None = None) -> None:
        super().__init__(message)
        self.kind, self.line, self.found, self.type_name = kind, line, found or [], type_name
        self.texts = {"en": message, "es": es or message}
        """The message in English and Spanish (an exception's own text is the same in both)."""


@dataclass
class Submission:
    """What the child loads: a function by value (cloudpickle), a file and a function name, or source."""

    kind: str
    """``"pickle"``, ``"file"`` or ``"source"``."""
    body: bytes = b""
    path: str | None = None
    code: str | None = None
    name: str | None = None
    filename: str = "<submission>"
    display_name: str = "agent_loop"
    helpers: tuple[str, ...] = ()
    """Python files copied into the child's scratch directory (first on its ``sys.path``) before
    it loads the submission: the modules a learner's folder holds next to their loop."""

    @classmethod
    def of(cls, fn: Any) -> Submission:
        """``fn`` by value (``cloudpickle``): a function from a notebook cell, a test or a closure.

        The module it comes from is pickled by value too (its helpers and classes), except the
        agentlab modules the child imports itself (``errors``). When that fails (the function uses
        a global the pickle cannot carry: a client, a lock, an open file) and ``fn`` is a top-level
        function of a file, it is sent as that file and its name instead (:meth:`file`).

        Raises:
            TypeError: when ``fn`` cannot be pickled (it closes over a lock, a file, a client...).
        """
        import cloudpickle

        registered = _by_value_roots()
        with _START_LOCK:
            try:
                for module in registered:
                    cloudpickle.register_pickle_by_value(module)
                body = cloudpickle.dumps(fn)
            except Exception as exc:  # noqa: BLE001 - named for the learner
                source = getattr(getattr(fn, "__code__", None), "co_filename", "")
                if getattr(fn, "__qualname__", None) == getattr(fn, "__name__", "") and os.path.isfile(source) \
                        and not os.path.basename(source).startswith("<"):
                    return cls.file(source, fn.__name__)  # by its file and name: the child loads it afresh
                raise TypeError(f"grade() could not send {getattr(fn, '__name__', 'the loop')} to the grading "
                                f"process: {type(exc).__name__}: {exc}. Define the loop at the top level of a cell "
                                "or file, without using a client, an open file or a lock made outside it.") from exc
            finally:
                for module in registered:
                    try:
                        cloudpickle.unregister_pickle_by_value(module)
                    except ValueError:
                        pass
        return cls(kind="pickle", body=body, display_name=getattr(fn, "__name__", "agent_loop"))

    @classmethod
    def file(cls, path: str | os.PathLike, name: str | None = None,
             helpers: "tuple[str | os.PathLike, ...]" = ()) -> Submission:
        """The function ``name`` (default ``agent_loop``, else ``consume``) of the file at ``path``,
        whose top level runs in the child; ``helpers``: the learner's other modules it may import."""
        path = os.path.realpath(os.fspath(path))
        return cls(kind="file", path=path, name=name, filename=path, display_name=name or "agent_loop",
                   helpers=tuple(os.path.realpath(os.fspath(h)) for h in helpers))

    @classmethod
    def source(cls, code: str, name: str = "agent_loop", filename: str = "<submission>") -> Submission:
        """The function ``name`` defined by ``code`` (a fix-the-code answer), executed in the child."""
        return cls(kind="source", code=code, name=name, filename=filename, display_name=name)


HELPER_BYTES = 1_000_000
"""Largest helper module copied into a grading's scratch directory (bytes)."""

_OWN_CODE: dict[str, bool] = {}


def _by_value_roots() -> list[Any]:
    """The packages pickled by value with a loop: every imported top-level package that is not in
    the standard library or site-packages (``tests``, a learner's own modules: the child may not
    read their files), and ``agentlab.loops`` (the reference loop and the specimens, which the
    child may not import). ``__main__`` (a notebook) is pickled by value by cloudpickle itself."""
    import sysconfig

    paths = sysconfig.get_paths()
    roots = tuple(os.path.realpath(paths[k]) + os.sep for k in ("stdlib", "platstdlib", "purelib", "platlib")
                  if k in paths)
    found = []
    for name, module in list(sys.modules.items()):
        if "." in name or name in ("__main__", "agentlab") or module is None:
            continue
        own = _OWN_CODE.get(name)
        if own is None:
            where = getattr(module, "__file__", None)
            own = bool(where) and not os.path.realpath(where).startswith(roots) and not name.startswith("_")
            _OWN_CODE[name] = own
        if own:
            found.append(module)
    if "agentlab.loops" in sys.modules:
        found.append(sys.modules["agentlab.loops"])
    return found


@dataclass
class Loaded:
    """What the child said about the loaded submission."""

    shape: str
    """``"loop"``, ``"consumer"``, ``"one-arg"``, ``"other"``, ``"not-callable"``, ``"missing"``."""
    name: str
    found: list[str] = field(default_factory=list)


def _kill_group(pid: int | None) -> None:
    if not pid:
        return
    for target in (lambda: os.killpg(pid, signal.SIGKILL), lambda: os.kill(pid, signal.SIGKILL)):
        try:
            target()
        except (ProcessLookupError, PermissionError, OSError):
            pass


def _remove_tree(path: str) -> None:
    def fix(func: Any, target: str, _exc: Any) -> None:
        try:
            os.chmod(os.path.dirname(target), 0o700)
            os.chmod(target, 0o700)
            func(target)
        except OSError:
            pass

    shutil.rmtree(path, onerror=fix)


class Sandbox:
    """One grading's child process, scratch directory and output capture (a context manager).

    Args:
        submission: what to load.
        time_limits: the cases' time limits (seconds): the child's CPU limit is their sum plus
            :data:`CPU_MARGIN`.
        lang: the language of the ``PermissionError`` the child raises on a refused operation.
    """

    def __init__(self, submission: Submission, time_limits: list[float] | None = None, lang: str = "en") -> None:
        self.submission = submission
        self.lang = lang
        self.cpu_seconds = int(sum(time_limits or [60.0])) + CPU_MARGIN
        self.scratch = tempfile.mkdtemp(prefix="agentlab-grade-")
        for helper in submission.helpers:  # the learner's own modules, importable from the scratch dir
            if helper.endswith(".py") and os.path.isfile(helper) and os.path.getsize(helper) <= HELPER_BYTES:
                shutil.copyfile(helper, os.path.join(self.scratch, os.path.basename(helper)))
        fd, self.output_path = tempfile.mkstemp(prefix="agentlab-grade-output-")
        self._output = os.fdopen(fd, "rb")
        self.proc: Any = None
        self.conn: Any = None
        self.loaded: Loaded | None = None
        self._cases_run = 0

    def __enter__(self) -> Sandbox:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    # ------------------------------------------------------------------------------ the child
    def _start(self) -> None:
        ctx = _context()
        parent_end, child_end = ctx.Pipe(duplex=True)
        setup = {"kind": self.submission.kind, "path": self.submission.path, "code": self.submission.code,
                 "name": self.submission.name, "filename": self.submission.filename, "scratch": self.scratch,
                 "output": self.output_path, "cpu_seconds": self.cpu_seconds, "lang": self.lang,
                 "off": sorted(switched_off(os.environ.get(OFF_VARIABLE)))}
        from .._sandbox import child

        from .._sandbox.launch import ChildProcess

        process = ChildProcess if sys.version_info < (3, 14) else ctx.Process
        proc = process(target=child.main, args=(child_end, setup), name="agentlab-grade", daemon=True)
        try:
            proc.start()
        finally:
            child_end.close()
        self.proc = proc
        self.conn = parent_end
        try:
            wire.send(self.conn, {"op": "submission"}, self.submission.body)
        except OSError:
            pass

    def _stop(self) -> None:
        """Kill the child's whole process group."""
        if self.proc is None:
            return
        pid = self.proc.pid
        try:
            with open(f"/proc/{pid}/stat", "rb") as f:
                fields = f.read().rsplit(b")", 1)[1].split()
            CHILD_CPU["seconds"] += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
        except (OSError, ValueError, IndexError):
            pass
        _kill_group(pid)
        # Not joined: SIGKILL cannot be caught, and the forkserver (the child's parent) reaps it;
        # waiting for the kernel to tear down a ~100 MB process would cost every grading ~10 ms.
        try:
            self.conn.close()
        except OSError:
            pass
        self.proc, self.conn = None, None

    def _ended(self) -> dict[str, Any]:
        """How the child ended: ``{"how": "exit", "code": n}`` or ``{"how": "signal", "signal": "SIGSEGV"}``."""
        if self.proc is None:
            return {"how": "exit", "code": None}
        self.proc.join(2)
        code = self.proc.exitcode
        if code is not None and code < 0:
            try:
                name = signal.Signals(-code).name
            except ValueError:
                name = f"signal {-code}"
            return {"how": "signal", "signal": name}
        return {"how": "exit", "code": code}

    def _receive(self, deadline: float) -> tuple[dict[str, Any], bytes] | str:
        """The child's next message, or ``"timeout"``, ``"died"`` or ``"protocol"``."""
        while True:
            if self.conn.poll(0):
                try:
                    return wire.recv(self.conn)
                except EOFError:
                    return "died"
                except (wire.ProtocolError, OSError):
                    return self._garbled()
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return "timeout"
            # Only the child holds the other end of the pipe (it cannot fork): its death is an EOF here.
            if not self.conn.poll(min(remaining, 1.0)) and not self.proc.is_alive():
                return "died"

    def _garbled(self) -> str:
        """A frame that could not be read: ``"died"`` when the child died while writing it (a cut
        frame), else ``"protocol"`` (the loop wrote to the pipe itself)."""
        self.proc.join(0.5)
        return "protocol" if self.proc.is_alive() else "died"

    def load(self) -> Loaded:
        """Start the child and load the submission in it.

        Raises:
            LoadError: when it cannot be loaded (the message says why, for the learner).
        """
        self._start()
        refused: list[dict[str, str]] = []
        deadline = time.monotonic() + LOAD_LIMIT
        while True:
            got = self._receive(deadline)
            if isinstance(got, str):
                break
            header, _ = got
            if header.get("op") == "refused":
                refused.append(_refusal(header))
                continue
            if header.get("op") == "layers":
                _warn_missing_layers(header.get("missing"))
                continue
            break
        if isinstance(got, str):
            ended = self._ended() if got == "died" else None
            self._stop()
            output = self.output_tail(0)
            if got == "timeout":
                raise LoadError(f"loading it took more than {LOAD_LIMIT:g} s (an endless loop at the top level?)",
                                kind="timeout", es=f"cargarlo tardó más de {LOAD_LIMIT:g} s (¿un bucle sin fin en el "
                                                   "nivel superior?)")
            if refused:
                raise LoadError(f"it tried {refused[0]['en']} while loading, which is not allowed", kind="refused",
                                es=f"intentó {refused[0]['es']} al cargarse, algo que no está permitido")
            printed = (f"; it printed: {output}" if output else "", f"; imprimió: {output}" if output else "")
            raise LoadError(f"loading it ended the process ({_describe_end(ended, 'en')}){printed[0]}", kind="died",
                            es=f"cargarlo terminó el proceso ({_describe_end(ended, 'es')}){printed[1]}")
        header, _ = got
        if header.get("op") == "load-error":
            self._stop()
            kind = "syntax" if header.get("type") in ("SyntaxError", "IndentationError", "TabError") else "raised"
            message = f"{header.get('type')}: {header.get('message')}"
            if refused:
                raise LoadError(f"it tried {refused[0]['en']} while loading, which is not allowed ({message})",
                                kind="refused", line=header.get("line"), type_name=str(header.get("type")),
                                es=f"intentó {refused[0]['es']} al cargarse, algo que no está permitido ({message})")
            raise LoadError(message, kind=kind, line=header.get("line"), type_name=str(header.get("type")))
        if header.get("op") != "loaded":
            self._stop()
            raise LoadError("the grading process sent something unexpected while loading", kind="died",
                            es="el proceso de evaluación envió algo inesperado al cargarse")
        self.loaded = Loaded(shape=str(header.get("shape")), name=str(header.get("name") or ""),
                             found=[str(n) for n in header.get("found") or []][:20])
        if self.loaded.shape == "missing":
            self._stop()
            raise LoadError(f"no function {self.loaded.name}", kind="missing", found=self.loaded.found,
                            es=f"no hay ninguna función {self.loaded.name}")
        if self.loaded.shape == "not-callable":
            self._stop()
            raise LoadError(f"{self.loaded.name} is not a function", kind="not-callable",
                            type_name=str(header.get("type") or "")[:100], es=f"{self.loaded.name} no es una función")
        return self.loaded

    def output_tail(self, offset: int) -> str:
        """What the child printed since ``offset`` (bytes into the capture), trimmed to
        :data:`OUTPUT_LIMIT` characters (its start and its end)."""
        try:
            self._output.seek(offset)
            data = self._output.read(4 * 1024 * 1024)
        except (OSError, ValueError):
            return ""
        text = data.decode("utf-8", "replace")
        if len(text) > OUTPUT_LIMIT:
            half = OUTPUT_LIMIT // 2
            text = f"{text[:half]}\n[… {len(text) - OUTPUT_LIMIT} characters cut …]\n{text[-half:]}"
        return text

    def _output_size(self) -> int:
        try:
            return os.fstat(self._output.fileno()).st_size
        except (OSError, ValueError):
            return 0

    # ------------------------------------------------------------------------------ one case
    def run_case(self, case: Case, *, time_limit: float | None = None,
                 first_request_limit: float | None = None) -> CaseRun:
        """Run the loaded loop on ``case`` in the child; the fake, the spy and the journal stay here.

        ``first_request_limit`` (seconds, None: no such limit): the case ends as timed out when the
        loop has not made a request (or run a tool) by then; after its first one it has
        ``time_limit``. :func:`agentlab.grader._grade_isolated` sets it to
        :data:`FIRST_REQUEST_LIMIT` after a case timed out without a request.

        Returns:
            A :class:`CaseRun` (``child_end`` set when the child died, ``refused`` listing what the audit
            hook refused, ``output`` what it printed). Never raises for anything the loop does.

        Raises:
            LoadError: when the child had died and cannot load the submission again.
        """
        if self.proc is None:
            self.load()
        api = FakeAPI(case.scenario, runaway_after=max(case.scenario.runaway_after, RUNAWAY_MARGIN))
        limit = case.time_limit if time_limit is None else time_limit
        # the limit the loop ran under, so the verdict's "after N s" names it
        run = CaseRun(case=replace(case, time_limit=limit), journal=api.journal, isolated=True,
                      first_request_limit=first_request_limit if first_request_limit is not None
                      and first_request_limit < limit else None)
        spy = _spy(case, api.journal, run.calls)
        runaway: list[RunawayLoop] = []
        offset = self._output_size()
        start = time.monotonic()
        deadline = start + (run.first_request_limit or limit)
        self._cases_run += 1
        case_id = self._cases_run
        sent = 0  # request body bytes of this case, against REQUEST_BYTES_LIMIT
        wire.send(self.conn, {"op": "case", "id": case_id, "prompt": case.scenario.prompt,
                              "tools": list(case.scenario.tools), "time_limit": limit})
        while True:
            got = self._receive(deadline)
            if got == "timeout":
                run.timed_out = True
                self._stop()
                break
            if got in ("died", "protocol"):
                run.child_end = self._ended() if got == "died" else {"how": "protocol"}
                self._stop()
                break
            header, body = got
            op = header.get("op")
            if op in ("http", "tool") and header.get("case") == case_id:
                deadline = start + limit  # it called the API (or a tool): its whole time limit
            if op in ("http", "tool") and header.get("case") != case_id:
                # a thread the loop left running in an earlier case: it does not reach this case's fake
                wire.send(self.conn, {"op": "error", "ok": False, "type": "RuntimeError",
                                      "message": "agentlab grade: this client belongs to an earlier case"})
            elif op == "http" and sent + len(body) > REQUEST_BYTES_LIMIT:
                # ends the case before the fake (and its journal) holds the body
                run.child_end = {"how": "request-bytes", "bytes": sent + len(body), "limit": REQUEST_BYTES_LIMIT}
                self._stop()
                break
            elif op == "http":
                sent += len(body)
                self._http(api, header, body, runaway)
            elif op == "tool":
                self._tool(spy, run, header)
            elif op == "refused":
                if len(run.refused) < 50:
                    run.refused.append(_refusal(header))
            elif op == "done":
                _outcome(run, header, runaway)
                break
            else:
                run.child_end = {"how": "protocol"}
                self._stop()
                break
        run.elapsed = time.monotonic() - start
        run.output = self.output_tail(offset)
        if run.child_end is not None and run.exception is None and runaway:
            run.exception = runaway[0]
        return run

    # ------------------------------------------------------------------------------ one SDK case
    def run_sdk_case(self, case: Any, *, time_limit: float | None = None) -> Any:
        """Run the loaded Agent SDK consumer on ``case`` (an ``SdkCase``): ``query()`` runs in the
        child, its CLI (``agentlab.agent_sdk.fake_transport``) here; the frames the fake emits are
        pushed to the child and kept, and parsed here into the messages the consumer read.

        Returns:
            An ``SdkRun`` (``agentlab.grader._sdk``), as ``run_sdk_case`` makes in-process. Never
            raises for anything the consumer does.

        Raises:
            ImportError: when claude-agent-sdk is not installed.
            LoadError: when the child had died and cannot load the submission again.
        """
        from ..agent_sdk import fake_transport, forget_session
        from ._sdk import ALLOWED_TOOLS, CANCEL_GRACE, DRAIN_LIMIT, SdkRun

        try:
            from claude_agent_sdk import ClaudeAgentOptions
        except ImportError as error:
            from ..agent_sdk import INSTALL_HINT

            raise ImportError(INSTALL_HINT) from error
        if self.proc is None:
            self.load()
        limit = case.time_limit if time_limit is None else time_limit
        run = SdkRun(case=case, time_limit=limit)
        run.isolated = True
        forget_session(case.session_id)  # each grading reuses the case's fixed id
        env = {"CLAUDE_CODE_EMIT_SESSION_STATE_EVENTS": "1"} if case.session_state_events else {}
        options = ClaudeAgentOptions(allowed_tools=list(ALLOWED_TOOLS), max_turns=case.max_turns,
                                     max_budget_usd=case.max_budget_usd, session_id=case.session_id, env=env)
        transport = fake_transport(case.scenario, options=options, report_cost=case.report_cost)
        self._cases_run += 1
        offset = self._output_size()
        start = time.monotonic()
        # the child cancels the consumer itself; this deadline is for one that holds its event loop
        deadline = [start + limit + CANCEL_GRACE + 1.5]
        forwarded: list[dict[str, Any]] = []
        wire.send(self.conn, {"op": "sdk-case", "id": self._cases_run, "prompt": case.prompt,
                              "allowed_tools": list(ALLOWED_TOOLS), "max_turns": case.max_turns,
                              "max_budget_usd": case.max_budget_usd, "session_id": case.session_id, "env": env,
                              "time_limit": limit})
        got: dict[str, Any] = {}

        def serve() -> None:
            try:
                got["result"] = asyncio.run(self._serve_sdk(transport, run, deadline, forwarded, DRAIN_LIMIT))
            except BaseException as exc:  # noqa: BLE001 - a fault of the fake CLI: the case fails, visibly
                got["result"] = "protocol"
                got["error"] = exc

        worker = threading.Thread(target=serve, name=f"agentlab-grade-sdk-{case.name}", daemon=True)
        worker.start()
        worker.join()
        result = got.get("result", "protocol")
        if result == "timeout":
            run.timed_out = True
            self._stop()
        elif result in ("died", "protocol"):
            run.child_end = self._ended() if result == "died" else {"how": "protocol"}
            self._stop()
        else:
            _sdk_outcome(run, result, forwarded)
            if run.unstoppable or run.child_end is not None:
                self._stop()
        session = getattr(getattr(transport, "cli", None), "session", None)
        if session is not None:
            from .._client import journal

            steps = journal(session.client).steps
            run.steps, run.stop_reasons = len(steps), [e.stop_reason for e in steps]
        run.elapsed = time.monotonic() - start
        run.output = self.output_tail(offset)
        return run

    async def _serve_sdk(self, transport: Any, run: Any, deadline: list[float], forwarded: list[dict[str, Any]],
                         drain_limit: float) -> Any:
        """Answer the child's SDK transport until it reports its outcome: the outcome's header, or
        ``"timeout"``, ``"died"``, ``"protocol"``."""
        loop = asyncio.get_running_loop()
        frames: asyncio.Queue = asyncio.Queue()
        fd = self.conn.fileno()

        def readable() -> None:
            try:
                frames.put_nowait(wire.recv(self.conn))
            except EOFError:
                frames.put_nowait("died")
                loop.remove_reader(fd)
            except (wire.ProtocolError, OSError):
                frames.put_nowait(self._garbled())
                loop.remove_reader(fd)

        async def forward() -> None:
            try:
                async for message in transport.read_messages():
                    forwarded.append(message)
                    wire.send(self.conn, {"op": "sdk-message", "data": message})
                wire.send(self.conn, {"op": "sdk-end"})
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # noqa: BLE001 - the CLI's error (ProcessError...) goes to the SDK in the child
                stderr = getattr(exc, "stderr", None)
                try:
                    wire.send(self.conn, {"op": "sdk-error", "type": type(exc).__name__, "message": str(exc),
                                          "exit_code": getattr(exc, "exit_code", None),
                                          "stderr": stderr if isinstance(stderr, str) else None})
                except (OSError, ValueError):
                    pass

        loop.add_reader(fd, readable)
        forwarder: asyncio.Task | None = None
        try:
            while True:
                try:
                    item = await asyncio.wait_for(frames.get(), max(deadline[0] - time.monotonic(), 0.001))
                except asyncio.TimeoutError:
                    return "timeout"
                if isinstance(item, str):
                    return item
                header, _ = item
                op = header.get("op")
                if op == "sdk-connect" and forwarder is None:
                    await transport.connect()
                    forwarder = loop.create_task(forward())
                elif op == "sdk-write":
                    await transport.write(str(header.get("data") or ""))
                elif op == "sdk-end-input":
                    await transport.end_input()
                elif op == "sdk-close":
                    pass  # closed below, once the outcome is in
                elif op == "sdk-draining":
                    deadline[0] = time.monotonic() + drain_limit + 6
                elif op == "refused":
                    if len(run.refused) < 50:
                        run.refused.append(_refusal(header))
                elif op == "done":
                    return header
                elif op in ("http", "tool"):
                    wire.send(self.conn, {"op": "error", "ok": False, "type": "RuntimeError",
                                          "message": "agentlab grade: no client in an Agent SDK case"})
                else:
                    return "protocol"
        finally:
            loop.remove_reader(fd)
            if forwarder is not None:
                forwarder.cancel()
                try:
                    await forwarder
                except BaseException:  # noqa: BLE001 - cancelled
                    pass
            try:
                await asyncio.wait_for(transport.close(), 2)
            except BaseException:  # noqa: BLE001 - best effort, as in-process
                pass

    def _http(self, api: FakeAPI, header: dict[str, Any], body: bytes, runaway: list[RunawayLoop]) -> None:
        try:
            request = httpx2.Request(str(header.get("method", "POST")), str(header.get("url")),
                                     headers=[(str(k), str(v)) for k, v in header.get("headers") or []], content=body)
        except Exception as exc:  # noqa: BLE001 - a malformed request from the child
            wire.send(self.conn, {"op": "error", "message": f"malformed request: {type(exc).__name__}"})
            return
        try:
            response = api.handle(request)
        except RunawayLoop as exc:
            runaway.append(exc)
            wire.send(self.conn, {"op": "runaway", "message": str(exc), "scenario": exc.scenario,
                                  "requests": exc.requests, "limit": exc.limit, "scope": exc.scope})
            return
        content = response.read()
        headers = [[k.decode("latin-1"), v.decode("latin-1")] for k, v in response.headers.raw
                   if k.lower() not in (b"content-length", b"transfer-encoding")]
        wire.send(self.conn, {"op": "http", "status": response.status_code, "headers": headers}, content)

    def _tool(self, spy: Any, run: CaseRun, header: dict[str, Any]) -> None:
        try:
            result = spy(header.get("name"), header.get("input"))
        except Exception as exc:  # noqa: BLE001 - the tool's error goes back to the loop
            args = [a for a in exc.args if isinstance(a, (str, int, float, bool, type(None)))]
            wire.send(self.conn, {"op": "tool", "ok": False, "type": type(exc).__name__, "message": str(exc),
                                  "args": args if len(args) == len(exc.args) else [str(exc)],
                                  "index": len(run.calls) - 1})
            return
        try:
            json.dumps(result)
        except (TypeError, ValueError):
            result = str(result)
        wire.send(self.conn, {"op": "tool", "ok": True, "result": result})

    def close(self) -> None:
        """Stop the child (and its process group), remove the scratch directory and the capture."""
        if self.proc is not None and self.conn is not None:
            try:
                wire.send(self.conn, {"op": "bye"})
            except (OSError, ValueError):
                pass
            self._stop()
        _remove_tree(self.scratch)
        try:
            self._output.close()
            os.unlink(self.output_path)
        except OSError:
            pass


# ---------------------------------------------------------------------------- outcome as data


_WARNED_LAYERS: set[str] = set()


def _warn_missing_layers(missing: Any) -> None:
    """Warn (``RuntimeWarning``, once per layer and process) that an OS layer of the sandbox is not
    in force in the child: the grading goes on, with the audit hook and the other layers only."""
    import warnings

    from .._i18n import language

    if not isinstance(missing, dict):
        return
    for layer, why in sorted(missing.items()):
        if layer in _WARNED_LAYERS:
            continue
        _WARNED_LAYERS.add(str(layer))
        name = LAYER_NAMES.get(str(layer), (str(layer), str(layer)))
        if language() == "es":
            text = (f"agentlab grade: el sandbox funciona sin {name[1]} ({str(why)[:200]}); el código evaluado "
                    "queda menos aislado (ver «Grading untrusted code» en el README)")
        else:
            text = (f"agentlab grade: the sandbox runs without {name[0]} ({str(why)[:200]}); graded code is less "
                    "contained (see \"Grading untrusted code\" in the README)")
        warnings.warn(text, RuntimeWarning, stacklevel=4)


LAYER_NAMES = {"netns": ("a network namespace", "un espacio de nombres de red"),
               "landlock": ("Landlock (file-system rules)", "Landlock (reglas del sistema de ficheros)"),
               "seccomp": ("a seccomp filter (processes, signals)", "un filtro seccomp (procesos, señales)")}
"""OS layer -> (English, Spanish) name, for the warning that it is missing."""


def _refusal(header: dict[str, Any]) -> dict[str, str]:
    """A refusal the child reported, in words: ``{"en": ..., "es": ...}``."""
    from .._sandbox.words import describe

    kind, detail = str(header.get("kind", ""))[:40], str(header.get("detail", ""))[:300]
    return {"en": describe(kind, detail, "en"), "es": describe(kind, detail, "es")}


_FOREIGN: dict[tuple[str, type], type] = {}


def _trusted_class(qualified: str) -> type | None:
    """A class named in the child's MRO that the parent may use as a base: builtins and anthropic's."""
    module, _, name = qualified.rpartition(".")
    if module == "builtins":
        cls = getattr(builtins, name, None)
    elif module == "anthropic" or module.startswith("anthropic."):
        cls = getattr(anthropic, name, None)
    elif (module == "claude_agent_sdk" or module.startswith("claude_agent_sdk.")) and "claude_agent_sdk" in sys.modules:
        cls = getattr(sys.modules["claude_agent_sdk"], name, None)
    else:
        return None
    return cls if isinstance(cls, type) and issubclass(cls, BaseException) else None


def _sdk_outcome(run: Any, header: dict[str, Any], forwarded: list[dict[str, Any]]) -> None:
    """Fill an ``SdkRun`` from the child's outcome and the frames the fake CLI sent it: the SDK's own
    parser turns them into the messages the consumer read (the first ``read``) and left (``unread``)."""
    from claude_agent_sdk._internal.message_parser import parse_message

    info = header.get("sdk") if isinstance(header.get("sdk"), dict) else {}
    messages = []
    for frame in forwarded:
        if not isinstance(frame, dict) or frame.get("type") in ("control_request", "control_response",
                                                                 "control_cancel_request"):
            continue
        try:
            message = parse_message(frame)
        except Exception:  # noqa: BLE001 - a frame the SDK does not turn into a message
            continue
        if message is not None:
            messages.append(message)
    # The SDK does not yield every frame (it keeps some system events to itself): the child names
    # the messages it saw, in order, and each is the next parsed frame of that class and subtype.
    position = 0

    def take(kinds: Any) -> list[Any]:
        nonlocal position
        found = []
        for kind in kinds if isinstance(kinds, list) else []:
            name, subtype = (list(kind) + [None, None])[:2] if isinstance(kind, list) else (None, None)
            while position < len(messages):
                message = messages[position]
                position += 1
                if type(message).__name__ == name and getattr(message, "subtype", None) == subtype:
                    found.append(message)
                    break
        return found

    run.read = take(info.get("read"))
    run.unread = take(info.get("unread"))
    run.ended = bool(info.get("ended"))
    run.timed_out, run.unstoppable = bool(info.get("timed_out")), bool(info.get("unstoppable"))
    if isinstance(info.get("stream_error"), dict):
        run.stream_error = _foreign_exception(info["stream_error"])
    if info.get("exception_is_stream_error") and run.stream_error is not None:
        run.exception = run.stream_error
        return
    scratch = CaseRun(case=None, journal=None)  # type: ignore[arg-type] - only the outcome fields are used
    _outcome(scratch, header, [])
    run.exception, run.child_end = scratch.exception, scratch.child_end
    if scratch.returned is not NOT_RETURNED:
        run.returned = scratch.returned
    if run.child_end is not None and run.child_end.get("how") == "protocol" and (run.timed_out or run.unstoppable):
        run.child_end = None  # a consumer stopped at its limit reports neither a value nor an exception


def _foreign_exception(info: dict[str, Any]) -> BaseException:
    """An exception standing for the child's: its type name and message, and the nearest builtin or
    anthropic class in its MRO as a base (so ``isinstance(exc, anthropic.APIStatusError)`` holds)."""
    name = str(info.get("type") or "Exception")[:100]
    message = str(info.get("message") or "")
    base: type = Exception
    for qualified in info.get("mro") or []:
        found = _trusted_class(str(qualified))
        if found is not None and found not in (BaseException, object):
            base = found
            break
        if found is BaseException:
            base = BaseException
            break
    key = (name, base)
    cls = _FOREIGN.get(key)
    if cls is None:
        cls = type(name, (base,), {"__module__": "learner",
                                   "__str__": lambda self: getattr(self, "foreign_message", None)
                                   or (str(self.args[0]) if self.args else ""),
                                   "__init__": lambda self, *args: BaseException.__init__(self, *args)})
        _FOREIGN[key] = cls
    args = info.get("args")
    plain = (str, int, float, bool, type(None))
    if isinstance(args, list) and len(args) <= 4 and all(type(a) in plain for a in args):
        exc = cls(*args)  # the child's own args (KeyError('stop_sequence'), not "'stop_sequence'")
    else:
        exc = cls(message)
    exc.foreign_message = message  # str(exc): the child's own text
    exc.traceback_text = str(info.get("traceback") or "")[:4000]
    return exc


class _ForeignValue:
    """Stands for a non-``str`` value the loop returned: its type name and repr, nothing else."""

    __slots__ = ("_repr",)

    def __init__(self, text: str) -> None:
        self._repr = text

    def __repr__(self) -> str:
        return self._repr

    __str__ = __repr__


def _foreign_value(type_name: str, text: str) -> Any:
    if type_name == "NoneType":
        return None
    cls = type(type_name[:100], (_ForeignValue,), {"__slots__": (), "__module__": "learner"})
    return cls(text[:300])


def _outcome(run: CaseRun, header: dict[str, Any], runaway: list[RunawayLoop]) -> None:
    returned = header.get("returned")
    info = header.get("exception")
    if isinstance(info, dict):
        index = info.get("tool_error")
        recorded = run.calls[index].error if isinstance(index, int) and 0 <= index < len(run.calls) else None
        if recorded is not None and info.get("is_tool_error"):
            run.exception = recorded
        elif runaway and "agentlab.errors.RunawayLoop" in (info.get("mro") or []):
            run.exception = runaway[0]
        else:
            run.exception = _foreign_exception(info)
            if recorded is not None:
                run.exception.__cause__ = recorded
        run.traceback = str(info.get("traceback") or "")[:4000]
        if info.get("type") in ("SystemExit", "KeyboardInterrupt") and "builtins.BaseException" in (info.get("mro") or []):
            run.child_end = {"how": "raised", "type": info.get("type"), "message": str(info.get("message"))[:200]}
    elif isinstance(returned, dict) and isinstance(returned.get("str"), str):
        run.returned = returned["str"]
    elif isinstance(returned, dict):
        run.returned = _foreign_value(str(returned.get("type") or "object"), str(returned.get("repr") or ""))
    else:
        run.child_end = {"how": "protocol"}


# ---------------------------------------------------------------------------- verdicts


def _ev(en: str, es: str) -> dict[str, str]:
    return {"en": en, "es": es}


def _describe_end(ended: dict[str, Any] | None, lang: str) -> str:
    ended = ended or {}
    if ended.get("how") == "signal":
        sig = ended.get("signal")
        if sig == "SIGXCPU":
            return "it used up its CPU time" if lang == "en" else "agotó su tiempo de CPU"
        if sig == "SIGKILL":
            return ("it was killed (SIGKILL) past its CPU or memory limit" if lang == "en"
                    else "lo mataron (SIGKILL) por encima de su límite de CPU o de memoria")
        if sig == "SIGXFSZ":
            return "it wrote a file past the size limit" if lang == "en" else "escribió un fichero por encima del límite"
        return (f"it was killed by {sig}, a crash of the Python process" if lang == "en"
                else f"lo mató {sig}, un fallo del proceso de Python")
    code = ended.get("code")
    return f"it exited with status {code}" if lang == "en" else f"terminó con el estado {code}"


def containment_findings(run: CaseRun) -> list[Finding]:
    """What the sandbox saw on ``run``: a refused operation, the child's death (an exit, a signal,
    a limit), a ``sys.exit()``, memory exhausted, or a pipe carrying something else than the
    protocol. Empty when the loop stayed inside the rules (then :func:`~agentlab.grader.judge` decides)."""
    findings: list[Finding] = []
    if run.refused:
        what = run.refused[0]
        more = len(run.refused) - 1
        findings.append(Finding("forbidden-operation", _ev(
            f"The loop tried {what['en']}, which the grader does not allow"
            + (f" (and {more} more refused operations)" if more else "") + ".",
            f"El bucle intentó {what['es']}, algo que el grader no permite"
            + (f" (y {more} operaciones más rechazadas)" if more else "") + ".")))
    ended = run.child_end
    output = f" It printed: {run.output.strip()[-300:]}" if run.output and run.output.strip() else ""
    salida = f" Imprimió: {run.output.strip()[-300:]}" if run.output and run.output.strip() else ""
    if ended is not None and ended.get("how") == "request-bytes":
        mib = int(ended.get("limit") or REQUEST_BYTES_LIMIT) // (1024 * 1024)
        findings.append(Finding("resource-limit", _ev(
            f"The loop sent more than {mib} MiB of requests on one case (the requests' bodies, in all): the grader "
            "stopped it there. A correct loop sends the conversation, a few KB per request.",
            f"El bucle envió más de {mib} MiB en peticiones en un caso (los cuerpos de las peticiones, en total): el "
            "grader lo detuvo ahí. Un bucle correcto envía la conversación, unos pocos KB por petición.")))
    elif ended is not None and ended.get("how") == "raised":
        findings.append(Finding("exited", _ev(
            f"The loop raised {ended.get('type')} ({ended.get('message') or 'no message'}): it tried to end the program "
            "instead of returning or raising an ordinary exception.",
            f"El bucle lanzó {ended.get('type')} ({ended.get('message') or 'sin mensaje'}): intentó terminar el programa "
            "en vez de devolver un resultado o lanzar una excepción normal.")))
    elif ended is not None and ended.get("how") == "protocol":
        findings.append(Finding("forbidden-operation", _ev(
            "The loop wrote to the grader's private channel (or the grading process sent garbage): its run cannot be trusted.",
            "El bucle escribió en el canal privado del grader (o el proceso de evaluación envió basura): su ejecución no es fiable.")))
    elif ended is not None and ended.get("how") == "signal" and ended.get("signal") in ("SIGXCPU", "SIGXFSZ", "SIGKILL"):
        findings.append(Finding("resource-limit", _ev(
            f"The grading process was stopped: {_describe_end(ended, 'en')}.{output}",
            f"El proceso de evaluación se detuvo: {_describe_end(ended, 'es')}.{salida}")))
    elif ended is not None and ended.get("how") == "signal":
        findings.append(Finding("crashed", _ev(
            f"The grading process crashed while running the loop: {_describe_end(ended, 'en')} (deep recursion in C code, "
            f"ctypes, a broken extension).{output}",
            f"El proceso de evaluación se cayó mientras ejecutaba el bucle: {_describe_end(ended, 'es')} (recursión "
            f"profunda en código C, ctypes, una extensión rota).{salida}")))
    elif ended is not None:
        findings.append(Finding("exited", _ev(
            f"The loop ended the grading process ({_describe_end(ended, 'en')}) before returning: os._exit() or a "
            f"similar call.{output}",
            f"El bucle terminó el proceso de evaluación ({_describe_end(ended, 'es')}) antes de devolver nada: "
            f"os._exit() o una llamada parecida.{salida}")))
    exc = run.exception
    if exc is not None and type(exc).__name__ == "MemoryError":
        from .._sandbox.child import MEMORY_LIMIT_MB

        findings.append(Finding("resource-limit", _ev(
            f"The loop ran out of memory: the grader gives it {MEMORY_LIMIT_MB} MiB.",
            f"El bucle se quedó sin memoria: el grader le da {MEMORY_LIMIT_MB} MiB.")))
    return findings

