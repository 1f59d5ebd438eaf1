"""The isolated grader's child process: learner code runs here, the fake and the judge do not.

Entry point :func:`main` (a ``multiprocessing`` target, started from the forkserver that
preloads this module). In order:

1. ``prctl(PR_SET_PDEATHSIG, SIGKILL)`` through ctypes, so the child dies with its parent
   (the forkserver, which exits when the grading process does), then ``os.setsid()``: the
   child leads its own session and process group, which the parent kills as a whole.
2. Limits (``resource``): address space (:data:`MEMORY_LIMIT_MB` above what the child already
   maps), CPU seconds, file size, no core files.
3. The working directory is a scratch directory the parent made (``TMPDIR`` too); stdout and
   stderr (fds 1 and 2) go to a file the parent reads, trimmed, after each case.
4. An audit hook (``sys.addaudithook``, PEP 578) refuses: processes (``os.fork``, ``os.system``,
   ``os.exec*``, ``os.posix_spawn``, ``subprocess.Popen``, ``os.kill``), the network
   (``socket.connect``/``bind``/``sendto``/name look-ups), native code (every ``ctypes.*`` event),
   raising limits, links, writing or deleting outside the scratch directory, reading files
   outside the standard library, site-packages, the few agentlab modules the child needs, the
   submission's own file and the scratch directory, and importing the parts of agentlab that
   hold the scenarios, cases and expected answers. Every refusal is reported to the parent at
   once (the case then fails with ``forbidden-operation``) and raised in the learner's code as
   ``PermissionError``.
   Just before the hook, the OS layers (:mod:`agentlab._sandbox.confine`: a network namespace,
   Landlock with the hook's own read roots and the scratch directory as the only writable place,
   a seccomp filter) are set with everything the child needs already open; a missing layer is
   told to the parent (a ``layers`` frame) and the grading goes on.
5. The submission is loaded (unpickled, or its file or source executed), and the child answers
   the parent's cases one at a time: a fresh ``anthropic.Anthropic`` (or ``AsyncAnthropic``) on a
   :class:`PipeTransport`, a ``run_tool`` stub that asks the parent, and the outcome sent back as
   data (a real ``str``, or a description of anything else; an exception's type, message,
   trimmed traceback and which tool error, if any, ended the loop).

An audit hook is not a security boundary (learner Python can switch it off): the OS layers are.
An ``OSError`` they raise that ends the loop is reported as a refusal (:func:`_report_os_refusals`).
See the threat model in ``agentlab.grader``'s docstring and the README's "Grading untrusted code"."""

from __future__ import annotations

import builtins
import ctypes
import errno
import inspect
import json
import os
import resource
import signal
import sys
import sysconfig
import tempfile
import threading
import traceback
from typing import Any

import anthropic
import cloudpickle
import httpx2

import agentlab

from .._client import FAKE_API_KEY
from ..errors import RunawayLoop
from . import confine, wire
from .words import refusal_error

__all__ = ["FORBIDDEN_PACKAGES", "MEMORY_LIMIT_MB", "PipeTransport", "main"]

confine._libseccomp()  # loaded once, in the forkserver that preloads this module

MEMORY_LIMIT_MB = 1024
"""Address space (MiB) the child may map above what it maps when it starts (``RLIMIT_AS``)."""

FILE_SIZE_LIMIT = 64 * 1024 * 1024
"""The largest file (bytes) the child may write (``RLIMIT_FSIZE``)."""

MAX_RETURNED = 4 * 1024 * 1024
"""Characters of a returned string sent back (the rest is cut)."""

ALLOWED_AGENTLAB = ("agentlab", "agentlab.errors", "agentlab._i18n", "agentlab._client", "agentlab._sandbox")
"""The agentlab modules (and packages) the child may import and read: nothing that knows a scenario."""

FORBIDDEN_PACKAGES = ("agentlab.fake", "agentlab.grader", "agentlab.loops", "agentlab.quiz", "agentlab.agent_sdk",
                      "agentlab.serve", "agentlab.course", "agentlab.antipatterns", "agentlab.cli",
                      "agentlab.pytest_plugin", "_posixsubprocess")
"""Imports refused in the child: the fake and its scenarios, the cases and answers, the reference
loop and the quiz's banks (and ``_posixsubprocess``, whose ``fork_exec`` has no audit event)."""

ENVIRONMENT = ("PATH", "HOME", "LANG", "LANGUAGE", "TZ", "TERM", "PYTHONPATH", "PYTHONHASHSEED", "PYTHONIOENCODING",
               "PYTHONUTF8", "VIRTUAL_ENV")
"""The environment variables the child keeps (and ``LC_*``, ``AGENTLAB_LANG``): the rest (an
``ANTHROPIC_API_KEY``, tokens, passwords) is removed before learner code runs."""

REFUSED_EVENTS = {
    "os.system": "shell", "os.exec": "exec", "os.fork": "fork", "os.forkpty": "fork", "os.posix_spawn": "spawn",
    "os.spawn": "spawn", "subprocess.Popen": "subprocess", "pty.spawn": "spawn", "os.kill": "signal",
    "os.killpg": "signal", "signal.pthread_kill": "signal", "socket.connect": "connect", "socket.bind": "bind",
    "socket.sendto": "send", "socket.sendmsg": "send", "socket.getaddrinfo": "dns", "socket.gethostbyname": "dns",
    "socket.gethostbyaddr": "dns", "socket.getnameinfo": "dns", "resource.setrlimit": "limits",
    "resource.prlimit": "limits", "os.symlink": "link", "os.link": "link", "sys.remote_exec": "attach",
}
"""Audit events the child never allows, and their kind of refusal (``words.REFUSALS``)."""

PATH_EVENTS = {  # event -> indices of its path arguments; each must be inside the scratch directory
    "os.remove": (0,), "os.rmdir": (0,), "os.rename": (0, 1), "os.mkdir": (0,), "os.chmod": (0,),
    "os.chown": (0,), "os.truncate": (0,), "os.utime": (0,), "os.setxattr": (0,), "os.removexattr": (0,),
    "os.chflags": (0,), "os.lchflags": (0,), "os.lchmod": (0,), "shutil.rmtree": (0,), "shutil.chown": (0,),
    "shutil.move": (0, 1), "shutil.copyfile": (1,), "shutil.copytree": (1,), "shutil.make_archive": (0,),
}
"""Audit events that change the file system, with the position of their path arguments."""


def _die_with_parent() -> None:
    """``prctl(PR_SET_PDEATHSIG, SIGKILL)`` (Linux): the kernel kills this process when its parent
    dies. Called before the audit hook, which refuses ctypes."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL, 0, 0, 0)  # 1 = PR_SET_PDEATHSIG
    except (OSError, AttributeError):  # not Linux: the parent's process-group kill still applies
        pass


def _let_the_forkserver_go() -> None:
    """Close the forkserver's 'alive' pipe and the resource tracker's pipe, which every forkserver
    child inherits: while a child holds the 'alive' pipe's write end, the forkserver does not see
    its parent die, so it does not exit and the child's ``PR_SET_PDEATHSIG`` never fires."""
    from multiprocessing import forkserver, resource_tracker

    for owner, name in ((forkserver._forkserver, "_forkserver_alive_fd"), (resource_tracker._resource_tracker, "_fd")):
        fd = getattr(owner, name, None)
        if isinstance(fd, int):
            try:
                os.close(fd)
            except OSError:
                pass
            setattr(owner, name, None)


def _set_limits(cpu_seconds: int) -> None:
    def vm_bytes() -> int:
        try:
            with open("/proc/self/statm") as f:
                return int(f.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
        except (OSError, ValueError):
            return 512 * 1024 * 1024

    cap = vm_bytes() + MEMORY_LIMIT_MB * 1024 * 1024
    # RLIMIT_CPU: SIGXCPU at the soft limit, SIGKILL one second later (a handler for SIGXCPU buys 1 s)
    for limit, soft, hard in ((resource.RLIMIT_AS, cap, cap), (resource.RLIMIT_CPU, cpu_seconds, cpu_seconds + 1),
                              (resource.RLIMIT_FSIZE, FILE_SIZE_LIMIT, FILE_SIZE_LIMIT), (resource.RLIMIT_CORE, 0, 0)):
        try:
            resource.setrlimit(limit, (soft, hard))
        except (ValueError, OSError):  # a hard limit already lower: keep it
            pass


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


class _Guard:
    """The audit hook's state: what may be read and written, and the channel to report refusals."""

    def __init__(self, channel: _Channel, scratch: str, readable_files: list[str], lang: str = "en") -> None:
        self.channel = channel
        self.lang = lang
        self.scratch = os.path.realpath(scratch)
        paths = sysconfig.get_paths()
        roots = {paths[k] for k in ("stdlib", "platstdlib", "purelib", "platlib") if k in paths}
        roots |= {os.path.join(sys.base_prefix, "lib"), os.path.join(sys.prefix, "lib")}
        roots |= {os.path.dirname(anthropic.__file__), os.path.dirname(httpx2.__file__)}
        self.read_roots = tuple(sorted(os.path.realpath(r) for r in roots if r))
        self.agentlab_dir = os.path.realpath(os.path.dirname(agentlab.__file__))
        allowed = set()
        for name in ALLOWED_AGENTLAB:
            base = os.path.join(os.path.dirname(self.agentlab_dir), *name.split("."))
            if os.path.isdir(base):
                allowed |= {os.path.join(base, f) for f in os.listdir(base) if f.endswith(".py")}
            else:
                allowed.add(base + ".py")
        self.agentlab_files = frozenset(allowed)
        self.readable_files = frozenset(os.path.realpath(p) for p in readable_files)
        self.busy = threading.local()

    def _path(self, value: Any) -> str | None:
        if isinstance(value, int) or value is None:
            return None
        try:
            return os.path.realpath(os.fsdecode(value))
        except (TypeError, ValueError):
            return "?"

    def readable(self, path: str) -> bool:
        if _inside(path, self.scratch) or path in self.readable_files or path in ("/dev/null", "/dev/urandom"):
            return True
        if _inside(path, self.agentlab_dir):
            if path in self.agentlab_files:
                return True
            folder, name = os.path.split(path)
            source = os.path.join(os.path.dirname(folder), name.split(".")[0] + ".py")
            return os.path.basename(folder) == "__pycache__" and source in self.agentlab_files
        return any(_inside(path, root) for root in self.read_roots)

    def refuse(self, kind: str, detail: str = "") -> None:
        self.channel.notice(kind, detail)
        raise PermissionError(refusal_error(kind, detail, self.lang))

    def __call__(self, event: str, args: tuple) -> None:
        if getattr(self.busy, "on", False):
            return
        self.busy.on = True
        try:
            self._check(event, args)
        finally:
            self.busy.on = False

    def _check(self, event: str, args: tuple) -> None:
        if event == "open":
            path, mode, flags = (list(args) + [None, None, 0])[:3]
            where = self._path(path)
            if where is None:
                return
            writing = (isinstance(mode, str) and any(c in mode for c in "wax+")) or \
                      (isinstance(flags, int) and flags & (os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND))
            if writing and not _inside(where, self.scratch):
                self.refuse("write", where)
            if not writing and not self.readable(where):
                self.refuse("read", where)
        elif event in REFUSED_EVENTS:
            self.refuse(REFUSED_EVENTS[event])
        elif event.startswith("ctypes."):
            self.refuse("ctypes", event)
        elif event in PATH_EVENTS:
            for i in PATH_EVENTS[event]:
                where = self._path(args[i]) if i < len(args) else None
                if where is not None and not _inside(where, self.scratch):
                    self.refuse("change", f"{event} on {where}")
        elif event in ("os.listdir", "os.scandir"):
            where = self._path(args[0] if args else ".")
            if where is not None and not self.readable(where):
                self.refuse("list", where)
        elif event == "import":
            name = args[0] if args else ""
            if isinstance(name, str) and any(name == p or name.startswith(p + ".") for p in FORBIDDEN_PACKAGES):
                self.refuse("import", name)


_COMMANDS = ("case", "sdk-case", "bye")
"""Frames the parent sends unasked (the rest are replies to the one request in flight)."""


class _Channel:
    """The child's end of the pipe: one request and its reply at a time (threads take turns).

    Every read holds the lock, so a reply always reaches the thread that asked; a command that
    arrives while a thread waits for its reply (the next case, read by a thread an earlier case
    left running) is kept for the main loop (:meth:`next_command`)."""

    def __init__(self, conn: Any) -> None:
        self.conn = conn
        self.lock = threading.RLock()
        """Held for a write, and by a request from its write to its reply (one request in flight)."""
        self.read_lock = threading.RLock()
        """Held for every read."""
        self.commands: list[tuple[dict[str, Any], bytes]] = []

    def ask(self, header: dict[str, Any], body: bytes = b"") -> tuple[dict[str, Any], bytes]:
        with self.lock:
            wire.send(self.conn, header, body)
            with self.read_lock:
                while True:
                    reply = wire.recv(self.conn)
                    if reply[0].get("op") not in _COMMANDS:
                        return reply
                    self.commands.append(reply)

    def next_command(self) -> tuple[dict[str, Any], bytes]:
        with self.read_lock:
            return self.commands.pop(0) if self.commands else wire.recv(self.conn)

    def next_frame(self) -> tuple[dict[str, Any], bytes]:
        """The next frame the parent pushed (an Agent SDK case's CLI output); commands are kept."""
        with self.read_lock:
            while True:
                frame = wire.recv(self.conn)
                if frame[0].get("op") not in _COMMANDS:
                    return frame
                self.commands.append(frame)

    def tell(self, header: dict[str, Any], body: bytes = b"") -> None:
        with self.lock:
            wire.send(self.conn, header, body)

    def notice(self, kind: str, detail: str) -> None:
        try:
            self.tell({"op": "refused", "kind": kind, "detail": detail[:300]})
        except Exception:  # noqa: BLE001 - the parent is gone: the refusal is raised anyway
            pass


def _runaway(header: dict[str, Any]) -> RunawayLoop:
    """The parent's RunawayLoop, rebuilt with its attributes and its message (not re-worded here)."""
    exc = RunawayLoop.__new__(RunawayLoop)
    BaseException.__init__(exc, str(header.get("message", "")))
    exc.scenario, exc.requests, exc.limit = header.get("scenario"), header.get("requests"), header.get("limit")
    exc.scope = header.get("scope", "run")
    exc.per_client = exc.scope != "run"
    return exc


class PipeTransport(httpx2.BaseTransport, httpx2.AsyncBaseTransport):
    """An ``httpx2`` transport (sync and async) that sends each request to the grading parent,
    where ``FakeAPI.handle`` answers it, and returns that answer. A ``RunawayLoop`` the fake
    raised in the parent is raised here, with the same message. It never opens a socket."""

    def __init__(self, channel: _Channel, case_id: Any = None) -> None:
        self.channel = channel
        self.case_id = case_id
        """The case this client belongs to: a thread left running from an earlier case is refused."""

    def _exchange(self, request: httpx2.Request) -> httpx2.Response:
        headers = [[k.decode("latin-1"), v.decode("latin-1")] for k, v in request.headers.raw]
        reply, body = self.channel.ask({"op": "http", "case": self.case_id, "method": request.method,
                                        "url": str(request.url), "headers": headers}, request.content)
        if reply.get("op") == "runaway":
            raise _runaway(reply)
        if reply.get("op") != "http":
            raise httpx2.ConnectError(str(reply.get("message", "the grader refused the request")), request=request)
        return httpx2.Response(int(reply["status"]), headers=[tuple(h) for h in reply["headers"]], content=body,
                               request=request)

    def handle_request(self, request: httpx2.Request) -> httpx2.Response:
        request.read()
        return self._exchange(request)

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        await request.aread()
        return self._exchange(request)


_TOOL_ERRORS: dict[str, type] = {}


def _tool_error(name: str, args: list[Any]) -> BaseException:
    """An exception named like the one the parent's tool raised: the builtin class when there is
    one (so ``except ValueError`` works as before), else an ``Exception`` subclass of that name."""
    cls = getattr(builtins, name, None)
    if not (isinstance(cls, type) and issubclass(cls, Exception)):
        cls = _TOOL_ERRORS.get(name) or _TOOL_ERRORS.setdefault(name, type(name, (Exception,), {"__module__": "tools"}))
    try:
        return cls(*args)
    except Exception:  # noqa: BLE001 - a builtin that wants other arguments
        return _TOOL_ERRORS.setdefault(name, type(name, (Exception,), {"__module__": "tools"}))(*args)


def _jsonable(value: Any) -> Any:
    try:
        json.dumps(value)
        return value
    except (TypeError, ValueError):
        return repr(value)


def _safe_str(value: Any, limit: int) -> str:
    try:
        text = str(value)
    except BaseException:  # noqa: BLE001 - a learner's __str__ may raise anything
        text = f"<{type(value).__name__}: str() failed>"
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _safe_repr(value: Any, limit: int = 300) -> str:
    try:
        text = repr(value)
    except BaseException:  # noqa: BLE001
        text = f"<{type(value).__name__}: repr() failed>"
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _traceback(exc: BaseException, limit: int = 4000) -> str:
    try:
        frames = [f for f in traceback.extract_tb(exc.__traceback__) if not f.filename.startswith(os.path.dirname(__file__))]
        text = "".join(traceback.format_list(frames[-12:])) + "".join(traceback.format_exception_only(type(exc), exc))
    except BaseException:  # noqa: BLE001
        text = f"{type(exc).__name__}"
    return text if len(text) <= limit else "…" + text[-(limit - 1):]


OS_REFUSALS = (errno.EPERM, errno.EACCES, errno.ENETUNREACH)
"""The errors the OS layers answer with (seccomp and Landlock: ``EPERM``/``EACCES``; the empty
network namespace: ``ENETUNREACH``)."""


def _report_os_refusals(channel: _Channel, exc: BaseException, tool_errors: list[BaseException] | None = None) -> None:
    """Report each ``OSError`` in ``exc``'s chain that an OS layer of the sandbox answered (not the
    audit hook's, which reported itself) as a refusal: the case fails with ``forbidden-operation``
    even when the learner's code switched the audit hook off. A tool's own error (``tool_errors``,
    rebuilt from the parent's) is not the OS's. Read without calling learner code."""
    chain, seen = exc, set()
    while isinstance(chain, BaseException) and id(chain) not in seen and len(seen) < 20:
        seen.add(id(chain))
        try:
            number = BaseException.__getattribute__(chain, "errno") if isinstance(chain, OSError) else None
            args = BaseException.__getattribute__(chain, "args")
        except Exception:  # noqa: BLE001 - a broken exception: nothing to report
            number, args = None, ()
        hooked = any(isinstance(a, str) and a.startswith("agentlab grade:") for a in args)
        if type(number) is int and number in OS_REFUSALS and not hooked and not any(chain is e for e in tool_errors or ()):
            try:
                where = BaseException.__getattribute__(chain, "filename")
            except Exception:  # noqa: BLE001
                where = None
            detail = os.strerror(number) + (f": {where}" if isinstance(where, (str, bytes)) else "")
            channel.notice("os", _safe_str(detail, 300))
        chain = BaseException.__getattribute__(chain, "__cause__") or BaseException.__getattribute__(chain, "__context__")


def _describe_exception(exc: BaseException, tool_errors: list[BaseException]) -> dict[str, Any]:
    chain, seen, tool_index, itself = exc, set(), None, False
    while chain is not None and id(chain) not in seen:
        for i, err in enumerate(tool_errors):
            if chain is err:
                tool_index, itself = i, chain is exc
                break
        if tool_index is not None:
            break
        seen.add(id(chain))
        chain = chain.__cause__ or chain.__context__
    cls = type(exc)
    return {"type": cls.__name__, "mro": [f"{c.__module__}.{c.__qualname__}" for c in cls.__mro__],
            "message": _safe_str(exc, 2000), "traceback": _traceback(exc), "args": _plain_args(exc),
            "tool_error": tool_index, "is_tool_error": itself}


def _plain_args(exc: BaseException) -> list[Any] | None:
    """The exception's ``args`` when they are a few short plain values (``KeyError('stop_sequence')``:
    the grader reads which key), else None. Read without calling anything the loop defined."""
    try:
        args = BaseException.__getattribute__(exc, "args")
    except Exception:  # noqa: BLE001 - a broken exception has no plain args
        return None
    if not isinstance(args, tuple) or len(args) > 4:
        return None
    plain = (str, int, float, bool, type(None))
    if not all(type(a) in plain and (type(a) is not str or len(a) <= 200) for a in args):
        return None
    return list(args)


def _shape(fn: Any) -> str:
    """``"loop"`` (four arguments), ``"consumer"`` (an async def of one), ``"one-arg"``, or ``"other"``."""
    if not callable(fn):
        return "not-callable"
    try:
        signature = inspect.signature(fn)
    except (TypeError, ValueError):
        return "loop"
    try:
        signature.bind(None, None, None, None)
        return "loop"
    except TypeError:
        pass
    try:
        signature.bind(None)
    except TypeError:
        return "other"
    target = fn if inspect.isroutine(fn) else getattr(type(fn), "__call__", None)
    return "consumer" if inspect.iscoroutinefunction(fn) or inspect.iscoroutinefunction(target) else "one-arg"


def _load(setup: dict[str, Any], body: bytes) -> Any:
    """The submission's function: unpickled, or its file or source executed here, in the child."""
    kind = setup["kind"]
    if kind == "pickle":
        return cloudpickle.loads(body)
    if kind == "file":
        import types

        sys.path.insert(0, os.getcwd())  # the scratch directory: the learner's helper modules, copied there
        path = setup["path"]
        module_name = f"agentlab_graded_{os.path.splitext(os.path.basename(path))[0]}"
        module = types.ModuleType(module_name)
        module.__file__ = path
        sys.modules[module_name] = module
        with open(path, "rb") as f:  # compiled here: no __pycache__ is read or written next to it
            source = f.read()
        exec(compile(source, path, "exec"), vars(module))  # noqa: S102 - in the sandbox
        namespace = vars(module)
    else:
        namespace = {"__name__": "agentlab_fix_code", "__builtins__": builtins}
        exec(compile(setup["code"], setup.get("filename", "<submission>"), "exec"), namespace)  # noqa: S102
    name = setup.get("name")
    if not name:
        name = "agent_loop" if callable(namespace.get("agent_loop")) or not callable(namespace.get("consume")) \
            else "consume"
    setup["resolved_name"] = name
    setup["found"] = [n for n, v in namespace.items() if inspect.isfunction(v) and not n.startswith("_")][:20]
    return namespace.get(name, _MISSING)


_MISSING = object()


def _run_case(channel: _Channel, loop: Any, header: dict[str, Any]) -> dict[str, Any]:
    import asyncio

    tool_errors: list[BaseException] = []

    case_id = header.get("id")

    def run_tool(name: Any, tool_input: Any) -> Any:
        reply, _ = channel.ask({"op": "tool", "case": case_id, "name": _jsonable(name), "input": _jsonable(tool_input)})
        if reply.get("ok"):
            return reply.get("result")
        err = _tool_error(str(reply.get("type", "Exception")), list(reply.get("args") or [reply.get("message", "")]))
        tool_errors.append(err)
        raise err

    is_async = inspect.iscoroutinefunction(loop) or inspect.iscoroutinefunction(getattr(type(loop), "__call__", None))
    transport = PipeTransport(channel, case_id)
    if is_async:
        client: Any = anthropic.AsyncAnthropic(api_key=FAKE_API_KEY, max_retries=2,
                                               http_client=httpx2.AsyncClient(transport=transport))
    else:
        client = anthropic.Anthropic(api_key=FAKE_API_KEY, max_retries=2, http_client=httpx2.Client(transport=transport))
    prompt, tools = header["prompt"], header["tools"]
    try:
        if is_async:
            returned = asyncio.run(loop(client, prompt, tools, run_tool))
        else:
            returned = loop(client, prompt, tools, run_tool)
    except BaseException as exc:  # noqa: BLE001 - everything the loop does is reported
        _report_os_refusals(channel, exc, tool_errors)
        return {"op": "done", "exception": _describe_exception(exc, tool_errors)}
    if type(returned) is str:  # noqa: E721 - a str subclass can lie about `in` and `==`: never trusted
        return {"op": "done", "returned": {"str": returned[:MAX_RETURNED]}}
    return {"op": "done", "returned": {"type": type(returned).__name__, "repr": _safe_repr(returned)}}


SYSTEM_LIBRARIES = ("/lib", "/lib64", "/usr/lib", "/usr/lib64", "/usr/local/lib", "/etc/ld.so.cache")
"""Read-only for the OS layer too: the shared libraries an extension module loads (``_ssl``,
``_sqlite3``) on its first import. The audit hook does not see ``dlopen``."""


def _confine(guard: _Guard, off: Any) -> dict[str, str]:
    """The OS layers (:mod:`agentlab._sandbox.confine`) with the audit hook's own roots: reads
    under the standard library, site-packages, the allowed agentlab modules (and their cached
    bytecode), the submission's file, the scratch directory and the system's shared libraries;
    writes under the scratch directory (and ``/dev/null``). Returns the missing layers."""
    pycache = []
    for source in guard.agentlab_files:
        folder, name = os.path.split(source)
        cache = os.path.join(folder, "__pycache__")
        if os.path.isdir(cache):
            pycache += [os.path.join(cache, f) for f in os.listdir(cache) if f.split(".")[0] == name[:-3]]
    read_files = sorted(guard.agentlab_files) + pycache + sorted(guard.readable_files) + ["/dev/urandom"]
    return confine.confine(off, read_dirs=list(guard.read_roots) + list(SYSTEM_LIBRARIES), read_files=read_files,
                           write_dirs=[guard.scratch], write_files=["/dev/null"])


def _flush() -> None:
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except BaseException:  # noqa: BLE001 - a learner may have replaced or closed them
            pass


def main(conn: Any, setup: dict[str, Any]) -> None:
    """Run one grading's submission: set up, load, then answer cases until the parent says stop.

    Args:
        conn: this end of the pipe (``multiprocessing.connection.Connection``).
        setup: ``kind`` (``"pickle"``, ``"file"`` or ``"source"``), ``path``/``code``/``name`` as the
            kind needs (a file's ``path`` is the one file outside the usual roots it may read),
            ``scratch`` (the working directory), ``output`` (the file stdout and stderr go to),
            ``cpu_seconds`` (``RLIMIT_CPU``) and ``lang`` (of the ``PermissionError`` messages).
            A ``"pickle"`` submission's bytes come as the body of the first frame.
    """
    _die_with_parent()
    _let_the_forkserver_go()
    os.setsid()
    _set_limits(int(setup["cpu_seconds"]))
    scratch = setup["scratch"]
    os.chdir(scratch)
    for key in list(os.environ):  # no API keys, tokens or passwords for the learner's code to print
        if not (key in ENVIRONMENT or key.startswith(("LC_", "AGENTLAB_LANG"))):
            del os.environ[key]
    os.environ["TMPDIR"] = scratch
    tempfile.tempdir = scratch
    sys.dont_write_bytecode = True
    out = os.open(setup["output"], os.O_WRONLY | os.O_APPEND)
    os.dup2(out, 1)
    os.dup2(out, 2)
    os.close(out)
    channel = _Channel(conn)
    _, body = wire.recv(conn)  # the submission
    sys.modules.pop("_posixsubprocess", None)
    if "subprocess" in sys.modules:
        vars(sys.modules["subprocess"]).pop("_posixsubprocess", None)
    guard = _Guard(channel, scratch, [setup["path"]] if setup.get("path") else [], setup.get("lang", "en"))
    missing = _confine(guard, setup.get("off") or ())
    if missing:
        channel.tell({"op": "layers", "missing": missing})
    sys.addaudithook(guard)

    try:
        loop = _load(setup, body)
    except BaseException as exc:  # noqa: BLE001 - reported to the parent as a load error
        _report_os_refusals(channel, exc)
        _flush()
        line = exc.lineno if isinstance(exc, SyntaxError) else None
        frames = traceback.extract_tb(exc.__traceback__) if exc.__traceback__ else []
        where = [f for f in frames if f.filename == setup.get("path") or f.filename == setup.get("filename")]
        if where and line is None:
            line = where[-1].lineno
        channel.tell({"op": "load-error", "type": type(exc).__name__, "message": _safe_str(exc, 2000), "line": line,
                      "traceback": _traceback(exc)})
        os._exit(0)
    shape = "missing" if loop is _MISSING else _shape(loop)
    _flush()
    channel.tell({"op": "loaded", "shape": shape, "name": setup.get("resolved_name") or getattr(loop, "__name__", ""),
                  "found": setup.get("found", []), "type": type(loop).__name__})
    while True:
        try:
            header, _ = channel.next_command()
        except (EOFError, OSError, wire.ProtocolError):
            os._exit(0)
        op = header.get("op")
        if op in ("sdk-message", "sdk-end", "sdk-error"):  # the tail of an Agent SDK case's stream
            continue
        if op == "sdk-case":
            from .sdk import run_sdk_case

            outcome = run_sdk_case(channel, loop, header, _describe_exception)
        elif op == "case":
            outcome = _run_case(channel, loop, header)
        else:
            os._exit(0)
        _flush()
        try:
            channel.tell(outcome)
        except (OSError, ValueError):
            os._exit(0)
