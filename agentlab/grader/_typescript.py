"""Grading a TypeScript (or JavaScript) agent loop on the conformance cases, over HTTP.

::

    report = grade_typescript("loop.ts")                 # export async function agentLoop(...)
    report = grade_typescript("loop.ts:myLoop", only=["pause_turn"])

Contract (issue 11): ``export async function agentLoop(client, prompt, tools, runTool):
Promise<string>``; ``client`` is a real ``@anthropic-ai/sdk`` ``Anthropic``, ``tools`` the case's
tool definitions, and ``runTool(name, input)`` resolves to the tool's output (a string) or
rejects with an ``Error`` whose message is the tool's error.

How a case runs, so the verdict is the one the Python loop would get: each case gets a FakeAPI
made exactly as :func:`agentlab.grader._harness.run_case` makes one (same runaway margin) and the
same spy ``run_tool`` (it records a :class:`ToolCall` with the step it acted on); the FakeAPI and
the spy are registered on a :class:`agentlab.serve.FakeApp` under a fresh random API key, served
on localhost by :func:`agentlab.serve.running`. ONE Node.js process (``node --import tsx``, the
harness ``_typescript_harness.mjs``) imports the learner's modules and runs the cases one after
another, a fresh ``new Anthropic({baseURL, apiKey: key, maxRetries: 2})`` each, with
``runTool`` = ``POST /agentlab/tool``; it writes a JSON line when a case starts and ends (the
value returned, or the error thrown). Each case is then judged by :func:`agentlab.grader.judge`
from its journal, tool calls and outcome, with the thrown error mapped to its Python equivalent:

- a rejection of ``runTool`` (or an error whose ``cause`` chain holds one) -> the very Python
  exception the spy recorded (so ``tool-error-crashes-loop`` is seen as in Python);
- the runaway 400 (``details.error_code == "runaway_loop"``) -> :class:`agentlab.RunawayLoop`;
- any other ``Anthropic.APIError`` with a status -> the ``anthropic.APIStatusError`` subclass the
  Python SDK raises for that status and body;
- anything else -> a :class:`JavaScriptError` named after the JS error (``Error``, ``TypeError``).

A case that runs past its time limit (the case's ``time_limit``, 10 s, or ``time_limit=``) has
its Node.js process group killed and is marked ``timed_out``; Node.js is started again for the
cases left. A loop that ends Node.js (``process.exit``, a signal, a crash) fails that case as
``exited``. The process group is always killed at the end, and every wait has a time limit, so
no loop hangs the grader.

Containment (issue 11): the protocol goes over a private pipe, its lines carry a secret mark
given on stdin (read before any learner module loads; not in argv or the environment, which
``/proc`` shows), and only the message expected next for the running case counts; anything else
is ignored. Node.js runs under its permission model (see :func:`_permission_flags`): files are
written only in a scratch folder, and the loop cannot start processes, workers or module hooks
(ERR_ACCESS_DENIED). ``PR_SET_PDEATHSIG`` kills Node.js when the grader dies. What the loop
prints is passed through with a bound per line and in all (:data:`MAX_LINE`, :data:`MAX_PASSED`).

Needs Node.js 20.6+ and the packages of the checkout's ``package.json`` (``npm ci``, which
``python3 tasks.py setup`` runs). Without them :class:`TypeScriptError` says how to install them.
"""

from __future__ import annotations

import json
import os
import queue
import re
import secrets
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections import deque
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Iterable, Sequence

from .._i18n import language
from ._cases import CASES, Case, get_case
from ._detect import ForeignValue
from ._harness import RUNAWAY_MARGIN, CaseRun, CaseTimeout, ToolCall, _spy
from ._report import Report

__all__ = ["DEFAULT_EXPORT", "EXTENSIONS", "JavaScriptError", "JsValue", "TypeScriptError", "grade_typescript",
           "grade_typescript_many", "is_typescript_target", "split_target"]

EXTENSIONS = (".ts", ".mts", ".cts", ".js", ".mjs", ".cjs")
"""File suffixes graded as TypeScript/JavaScript loops (``.ts``, ``.mts`` and ``.cts`` through tsx)."""
DEFAULT_EXPORT = "agentLoop"
"""The export graded when the target names none."""
MIN_NODE = (20, 6)
"""``module.register`` (the harness's resolve hook) needs Node.js 20.6."""
LOAD_TIMEOUT = 60.0
"""Seconds Node.js may take to start and import the loops (tsx compiles them first)."""
HARNESS = Path(__file__).with_name("_typescript_harness.mjs")

_ERRORS = {
    "en": {
        "no_node": ("Grading a TypeScript loop needs Node.js {min} or newer, and `node` was not found on PATH. "
                    "Install Node.js (https://nodejs.org), then run `python3 tasks.py setup` in the agentlab "
                    "checkout (it runs `npm ci`) to install @anthropic-ai/sdk and tsx."),
        "old_node": ("Grading a TypeScript loop needs Node.js {min} or newer; `{node}` is {version}. "
                     "Install a newer Node.js, then run `python3 tasks.py setup` (or `npm ci`)."),
        "no_modules": ("The TypeScript SDK is not installed: no node_modules with @anthropic-ai/sdk and tsx in "
                       "{places}. Run `python3 tasks.py setup` in the agentlab checkout (or `npm ci` there)."),
        "no_file": "no such file: {path}",
        "not_typescript": "{path} is not a TypeScript or JavaScript file ({extensions})",
        "load_error": "{where}: cannot load the loop: {error}",
        "no_export": "{path} does not export a function {name!r}; the functions it exports: {found}",
        "crashed": "Node.js stopped before running the loop (exit code {code}).{stderr}",
        "load_timeout": "Node.js did not finish loading {path} in {seconds:g} s.{stderr}",
    },
    "es": {
        "no_node": ("Para evaluar un bucle en TypeScript hace falta Node.js {min} o más reciente, y `node` no está "
                    "en el PATH. Instala Node.js (https://nodejs.org) y ejecuta `python3 tasks.py setup` en la "
                    "copia de agentlab (ejecuta `npm ci`) para instalar @anthropic-ai/sdk y tsx."),
        "old_node": ("Para evaluar un bucle en TypeScript hace falta Node.js {min} o más reciente; `{node}` es la "
                     "{version}. Instala un Node.js más reciente y ejecuta `python3 tasks.py setup` (o `npm ci`)."),
        "no_modules": ("El SDK de TypeScript no está instalado: no hay node_modules con @anthropic-ai/sdk y tsx en "
                       "{places}. Ejecuta `python3 tasks.py setup` en la copia de agentlab (o `npm ci` allí)."),
        "no_file": "no existe el archivo: {path}",
        "not_typescript": "{path} no es un archivo TypeScript ni JavaScript ({extensions})",
        "load_error": "{where}: no se pudo cargar el bucle: {error}",
        "no_export": "{path} no exporta una función {name!r}; las funciones que exporta: {found}",
        "crashed": "Node.js se detuvo antes de ejecutar el bucle (código de salida {code}).{stderr}",
        "load_timeout": "Node.js no terminó de cargar {path} en {seconds:g} s.{stderr}",
    },
}


class TypeScriptError(Exception):
    """A TypeScript loop cannot be graded: Node.js or the npm packages are missing, the file does
    not exist, does not compile, throws while loading, or lacks the export. ``str()`` is English;
    :meth:`message` gives either language. The CLI prints it and exits with code 2."""

    def __init__(self, key: str, **params: Any) -> None:
        self.key = key
        self.params = params
        super().__init__(self.message("en"))

    def message(self, lang: str | None = None) -> str:
        """The message in ``lang`` (``"en"`` or ``"es"``; default: the learner's setting)."""
        return _ERRORS[language(lang)][self.key].format(**self.params)


class JavaScriptError(Exception):
    """An error a TypeScript loop threw that has no Python counterpart (``Error``, ``TypeError``...).

    ``type(exc).__name__`` is the JS error's ``name``, so the report reads as it would in Node.js.
    Attributes: ``js_name``, ``js_message`` and ``js_stack`` (str or None).
    """

    def __init__(self, js_name: str, js_message: str, js_stack: str | None = None) -> None:
        super().__init__(js_message)
        self.js_name = js_name
        self.js_message = js_message
        self.js_stack = js_stack


class JsValue(ForeignValue):
    """A value that is not a string, returned by a TypeScript loop: ``type(v).__name__`` is its JS
    type (``undefined``, ``number``, ``Object``...), ``repr(v)`` how Node.js prints it, ``v.json``
    its JSON text (None when it has none, as for ``undefined``). Reports describe it in JS terms
    ("a number (42)"; :class:`~agentlab.grader._detect.ForeignValue`)."""

    def __init__(self, repr_text: str, json_text: str | None) -> None:
        self.repr_text = repr_text
        self.json = json_text

    def __repr__(self) -> str:
        return self.repr_text

    def _said(self, lang: str) -> str:
        kind = type(self).__name__
        shown = self.repr_text if len(self.repr_text) <= 60 else self.repr_text[:59] + "…"
        if kind in ("undefined", "null"):
            return kind
        if lang == "es":
            return f"un valor {kind} ({shown})"
        return f"{'an' if kind[:1].lower() in 'aeiou' else 'a'} {kind} ({shown})"

    def describe(self) -> str:
        return self._said("en")

    def returned_non_string(self) -> tuple[dict[str, str], dict[str, str] | None]:
        return ({"en": f"The loop returned {self._said('en')}; agentLoop must resolve to a string.",
                 "es": f"El bucle devolvió {self._said('es')}; agentLoop debe resolverse en un string."},
                {"en": "agentLoop(client, prompt, tools, runTool) resolves to the final text, a string "
                       "(Promise<string>), not a String object.",
                 "es": "agentLoop(client, prompt, tools, runTool) se resuelve en el texto final, un string "
                       "(Promise<string>), no un objeto String."})


_NAMED: dict[tuple[type, str], type] = {}


def _named(base: type, name: str) -> type:
    """A subclass of ``base`` called ``name`` (a JS type or error name), made once."""
    if not re.fullmatch(r"[A-Za-z_$][\w$]{0,60}", name or ""):
        return base
    key = (base, name)
    if key not in _NAMED:
        _NAMED[key] = type(name, (base,), {"__module__": __name__, "__qualname__": name})
    return _NAMED[key]


# ----------------------------------------------------------------------------------------------
# Targets, Node.js and node_modules
# ----------------------------------------------------------------------------------------------


def is_typescript_target(target: str | os.PathLike[str]) -> bool:
    """Whether ``FILE[:FUNCTION]`` names a file graded by this module (by its suffix)."""
    path, _ = split_target(target)
    return path.suffix.lower() in EXTENSIONS


def split_target(target: str | os.PathLike[str]) -> tuple[Path, str]:
    """``"loop.ts:myLoop"`` -> ``(Path("loop.ts"), "myLoop")``; the export defaults to
    :data:`DEFAULT_EXPORT`. A path that exists as given is never split (a Windows drive letter)."""
    text = os.fspath(target)
    if Path(text).exists():
        return Path(text), DEFAULT_EXPORT
    head, sep, name = text.rpartition(":")
    if sep and head and re.fullmatch(r"[A-Za-z_$][\w$]*", name):
        return Path(head), name
    return Path(text), DEFAULT_EXPORT


def _node() -> tuple[str, tuple[int, int]]:
    node = shutil.which("node")
    minimum = ".".join(map(str, MIN_NODE))
    if node is None:
        raise TypeScriptError("no_node", min=minimum)
    try:
        version = subprocess.run([node, "--version"], capture_output=True, text=True, timeout=30).stdout.strip()
    except (OSError, subprocess.TimeoutExpired):
        raise TypeScriptError("no_node", min=minimum) from None
    match = re.match(r"v(\d+)\.(\d+)", version)
    if match is None or (int(match.group(1)), int(match.group(2))) < MIN_NODE:
        raise TypeScriptError("old_node", min=minimum, node=node, version=version or "unknown")
    return node, (int(match.group(1)), int(match.group(2)))


def _has_packages(root: Path) -> bool:
    modules = root / "node_modules"
    return (modules / "@anthropic-ai" / "sdk" / "package.json").is_file() and (modules / "tsx" / "package.json").is_file()


def _node_root(files: Sequence[Path]) -> Path:
    """The folder whose node_modules holds @anthropic-ai/sdk and tsx: the agentlab checkout's
    (``npm ci`` there), else the loop file's folder or the working folder, or one of their parents."""
    checkout = Path(__file__).resolve().parents[2]
    places = [checkout]
    for start in [*(f.resolve().parent for f in files), Path.cwd().resolve()]:
        places.extend([start, *start.parents])
    seen: list[Path] = []
    for place in places:
        if place in seen:
            continue
        seen.append(place)
        if _has_packages(place):
            return place
    raise TypeScriptError("no_modules", places=f"{checkout} (or the loop's folder, the working folder, their parents)")


def _tsx_loader(root: Path) -> str:
    """The file URL of tsx's ``--import`` entry (its package ``exports["."]``)."""
    tsx = root / "node_modules" / "tsx"
    entry = "./dist/loader.mjs"
    try:
        exports = json.loads((tsx / "package.json").read_text(encoding="utf-8")).get("exports")
        if isinstance(exports, dict) and isinstance(exports.get("."), str):
            entry = exports["."]
    except (OSError, ValueError):
        pass
    return (tsx / entry).resolve().as_uri()


# ----------------------------------------------------------------------------------------------
# One Node.js process
# ----------------------------------------------------------------------------------------------

_EOF = object()

MAX_LINE = 1 << 20
"""Bytes kept of one line of the loop's stdout/stderr (the rest of the line is dropped)."""
MAX_PROTOCOL_LINE = 8 << 20
"""Bytes of one protocol line (a returned string is cut to 1,000,000 characters by the harness)."""
MAX_PASSED = 4 << 20
"""Bytes of the loop's stdout and of its stderr passed through, each, per Node.js process; the
rest is dropped (the stderr tail kept for messages is always the last lines)."""
PIPE_GRACE = 2.0
"""Seconds to wait for the output pipes to close once Node.js is killed."""


def _lines(fd: int, limit: int):
    """The lines read from ``fd`` as ``(bytes without the newline, cut)``, each at most ``limit``
    bytes (``cut``: the line was longer); memory stays bounded whatever the writer sends."""
    kept = bytearray()
    cut = False
    while True:
        try:
            chunk = os.read(fd, 1 << 16)
        except OSError:
            chunk = b""
        if not chunk:
            break
        start = 0
        while True:
            newline = chunk.find(b"\n", start)
            piece = chunk[start:] if newline < 0 else chunk[start:newline]
            room = limit - len(kept)
            if len(piece) > room:
                kept += piece[:max(room, 0)]
                cut = True
            else:
                kept += piece
            if newline < 0:
                break
            yield bytes(kept), cut
            kept.clear()
            cut = False
            start = newline + 1
    if kept or cut:
        yield bytes(kept), cut


def _die_with_parent() -> None:  # pragma: no cover - runs in the child, between fork and exec
    """``prctl(PR_SET_PDEATHSIG, SIGKILL)``: Node.js is killed when the grader dies (SIGTERM, a crash)."""
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL, 0, 0, 0)  # 1 = PR_SET_PDEATHSIG
    except Exception:  # noqa: BLE001 - no prctl (not Linux): the process group kill still applies
        pass


def _permission_flags(version: tuple[int, int], scratch: Path) -> list[str]:
    """Node.js's permission model for the harness: no addons, no WASI, files written only in the
    scratch folder (tsx's compile cache: TMPDIR points there). Child processes and workers are
    allowed by the flags because tsx runs esbuild as a service process and Node 20's
    ``module.register`` runs the hooks on a worker thread; the harness takes ``child_process``,
    ``Worker`` and ``module.register`` away from the loop before loading it. Reading stays
    open (``*``): tsx and get-tsconfig probe for tsconfig.json and package.json up to ``/`` from
    the working folder and each file, and Node 20 throws on a denied ``existsSync`` rather than
    answering false; a Python loop may read files too."""
    flag = "--permission" if version >= (23, 5) or (22, 13) <= version < (23, 0) else "--experimental-permission"
    flags = [flag, "--allow-worker", "--allow-child-process", "--allow-fs-read=*", f"--allow-fs-write={scratch}{os.sep}*"]
    if version >= (20, 11):
        flags += ["--disable-warning=ExperimentalWarning", "--disable-warning=SecurityWarning"]
    return flags


class _Node:
    """The harness process: the job (with the mark) on stdin, protocol lines on a private pipe read
    by a thread into a queue, the loop's stdout/stderr passed through with a bound."""

    def __init__(self, node: str, version: tuple[int, int], root: Path, job: dict[str, Any],
                 modules: Sequence[Path]) -> None:
        import tempfile

        self.mark = "AGENTLAB-" + secrets.token_hex(16)
        self.scratch = Path(tempfile.mkdtemp(prefix="agentlab-ts-"))
        env = {k: v for k, v in os.environ.items() if not k.startswith("AGENTLAB_") and k != "NODE_OPTIONS"}
        env.update(AGENTLAB_NODE_ROOT=str(root), TMPDIR=str(self.scratch), TMP=str(self.scratch),
                   TEMP=str(self.scratch),
                   NODE_PATH=os.pathsep.join(p for p in (str(root / "node_modules"), os.environ.get("NODE_PATH")) if p))
        kwargs: dict[str, Any] = {}
        if os.name == "nt":  # pragma: no cover - Windows
            kwargs["creationflags"] = subprocess.CREATE_NEW_PROCESS_GROUP
        else:
            kwargs["start_new_session"] = True  # its own process group: killed as a whole
            if sys.platform.startswith("linux"):
                kwargs["preexec_fn"] = _die_with_parent
        read_end, write_end = os.pipe()
        self.protocol_fd = read_end
        try:
            self.proc = subprocess.Popen(
                [node, *_permission_flags(version, self.scratch), "--import", _tsx_loader(root),
                 str(HARNESS)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
                pass_fds=(write_end,), **kwargs)
        except BaseException:
            os.close(read_end)
            shutil.rmtree(self.scratch, ignore_errors=True)
            raise
        finally:
            os.close(write_end)
        self.events: queue.Queue[Any] = queue.Queue()
        self.stderr: deque[str] = deque(maxlen=40)
        self.readers = [threading.Thread(target=self._read_protocol, daemon=True, name="agentlab-ts-protocol"),
                        threading.Thread(target=self._read_stdout, daemon=True, name="agentlab-ts-stdout"),
                        threading.Thread(target=self._read_stderr, daemon=True, name="agentlab-ts-stderr")]
        for reader in self.readers:
            reader.start()
        try:
            assert self.proc.stdin is not None
            self.proc.stdin.write(json.dumps(dict(job, mark=self.mark, fd=write_end)).encode("utf-8"))
            self.proc.stdin.close()
        except OSError:
            pass  # it died at once: the reader sees EOF

    def _read_protocol(self) -> None:
        """Messages on the private pipe: a JSON object after the mark, anything else is dropped."""
        prefix = (self.mark + " ").encode("ascii")
        try:
            for raw, cut in _lines(self.protocol_fd, MAX_PROTOCOL_LINE):
                if cut or not raw.startswith(prefix):
                    continue
                try:
                    message = json.loads(raw[len(prefix):].decode("utf-8", "replace"))
                except ValueError:
                    continue
                if isinstance(message, dict):
                    self.events.put(message)
        finally:
            os.close(self.protocol_fd)
            self.events.put(_EOF)

    def _passed(self, stream: Any, into: Any, tail: deque[str] | None) -> None:
        passed = 0
        for raw, cut in _lines(stream.fileno(), MAX_LINE):
            line = raw.decode("utf-8", "replace") + (" […]" if cut else "") + "\n"
            if tail is not None:
                tail.append(line[-2000:])
            if passed < MAX_PASSED:
                passed += len(raw) + 1
                into.write(line if passed < MAX_PASSED else "[agentlab] the loop printed more; the rest is not shown\n")

    def _read_stdout(self) -> None:
        assert self.proc.stdout is not None
        self._passed(self.proc.stdout, sys.stdout, None)  # the loop's own console.log

    def _read_stderr(self) -> None:
        assert self.proc.stderr is not None
        self._passed(self.proc.stderr, sys.stderr, self.stderr)

    def next(self, timeout: float) -> Any:
        """The next protocol message, :data:`_EOF` when Node.js ended, None after ``timeout`` s."""
        try:
            return self.events.get(timeout=max(timeout, 0.0))
        except queue.Empty:
            return None

    def stderr_tail(self) -> str:
        text = "".join(self.stderr).strip()
        return f"\n{text[-2000:]}" if text else ""

    def kill(self) -> None:
        """Kill the whole process group (the loop cannot start children under the permission
        model; the group kill is a second line) and reap it; the pipes are waited on for at most
        :data:`PIPE_GRACE` s, so nothing holding them keeps the grader waiting."""
        try:
            if os.name == "nt":  # pragma: no cover - Windows
                if self.proc.poll() is None:
                    self.proc.kill()
            else:  # also when the leader exited: children it left behind are still in the group
                os.killpg(self.proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError, OSError):
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:  # pragma: no cover - SIGKILL is not ignored
            pass
        deadline = time.monotonic() + PIPE_GRACE
        for reader in self.readers:  # what the loop printed is out before the report is
            reader.join(timeout=max(deadline - time.monotonic(), 0.0))
        shutil.rmtree(self.scratch, ignore_errors=True)


# ----------------------------------------------------------------------------------------------
# Outcomes -> CaseRun
# ----------------------------------------------------------------------------------------------


@dataclass
class _Job:
    id: int
    module: int
    case: Case
    key: str
    api: Any
    run: CaseRun
    ended: dict[str, str] | None = None
    """How Node.js ended while this case ran (``{"en": ..., "es": ...}``), or None."""


def _returned(described: dict[str, Any]) -> Any:
    if described.get("type") == "string":
        return described.get("value", "")
    return _named(JsValue, str(described.get("type")))(str(described.get("repr")), described.get("json"))


def _status_error(status: int, body: Any, base_url: str) -> BaseException:
    import anthropic
    import httpx2

    response = httpx2.Response(status, request=httpx2.Request("POST", f"{base_url}/v1/messages"), json=body)
    message = f"Error code: {status} - {body}"
    try:
        from anthropic._error_classes import make_status_error  # what the Python SDK raises for it
    except ImportError:  # pragma: no cover - another SDK layout: the status classes by hand
        classes = {400: anthropic.BadRequestError, 401: anthropic.AuthenticationError,
                   403: anthropic.PermissionDeniedError, 404: anthropic.NotFoundError, 409: anthropic.ConflictError,
                   422: anthropic.UnprocessableEntityError, 429: anthropic.RateLimitError}
        cls = classes.get(status) or (anthropic.InternalServerError if status >= 500 else anthropic.APIStatusError)
        return cls(message, response=response, body=body)
    return make_status_error(message, body=body, response=response)


def _tool_exception(calls: list[ToolCall], tool: dict[str, Any], used: set[int]) -> BaseException | None:
    """The exception the spy recorded for the runTool rejection ``tool`` describes."""
    failed = [c for c in calls if c.error is not None and id(c.error) not in used]
    for strict in (True, False):
        for call in failed:
            if str(call.error) == tool.get("message") and call.name == tool.get("tool") and (
                    not strict or call.input == tool.get("input")):
                used.add(id(call.error))
                return call.error
    return None


def _exception(job: _Job, error: dict[str, Any], base_url: str) -> BaseException:
    from ..errors import RunawayLoop

    if error.get("runaway"):
        runaway = getattr(job.api, "_runaway", None)
        if runaway is not None:
            args, scope = runaway
            return RunawayLoop(job.api.scenario.name, *args, scope=scope)
        return RunawayLoop(job.api.scenario.name, len(job.run.journal.steps), job.api.request_limit)
    plain = _named(JavaScriptError, str(error.get("name") or "Error"))(
        str(error.get("name") or "Error"), str(error.get("message") or ""), error.get("stack"))
    tool = error.get("tool_error")
    if tool:
        raised = _tool_exception(job.run.calls, tool, set())
        if raised is not None:
            if tool.get("depth") == 0:
                return raised
            plain.__cause__ = raised  # the loop wrapped the tool's error: it still ended the loop
            return plain
    if error.get("api_error") and isinstance(error.get("status"), int):
        return _status_error(error["status"], error.get("body"), base_url)
    return plain


def _finish(job: _Job, message: dict[str, Any], base_url: str) -> None:
    if isinstance(message.get("returned"), dict):
        job.run.returned = _returned(message["returned"])
    else:
        error = message.get("error")
        job.run.exception = _exception(job, error if isinstance(error, dict) else {}, base_url)


def _is_end(message: Any, job: _Job) -> bool:
    """Whether ``message`` is a well-formed end of ``job`` (a value returned or an error thrown)."""
    return (isinstance(message, dict) and message.get("event") == "end" and message.get("id") == job.id
            and (isinstance(message.get("returned"), dict) or isinstance(message.get("error"), dict)))


# ----------------------------------------------------------------------------------------------
# Grading
# ----------------------------------------------------------------------------------------------


def _modules(targets: Iterable[str | os.PathLike[str]]) -> list[tuple[Path, str]]:
    modules = []
    for target in targets:
        path, export = split_target(target)
        if not path.is_file():
            raise TypeScriptError("no_file", path=path)
        if path.suffix.lower() not in EXTENSIONS:
            raise TypeScriptError("not_typescript", path=path, extensions=", ".join(EXTENSIONS))
        modules.append((path.resolve(), export))
    return modules


def _load_failure(message: dict[str, Any], path: Path, export: str) -> TypeScriptError:
    if message.get("kind") == "export":
        functions = message.get("functions") if isinstance(message.get("functions"), list) else []
        return TypeScriptError("no_export", path=path, name=export, found=", ".join(map(str, functions)) or "-")
    text = str(message.get("message") or "")
    line, column = message.get("line"), message.get("column")
    located = re.search(re.escape(str(path)) + r":(\d+):(\d+): ERROR: (.*)", text)  # esbuild's TransformError
    if located:
        line, column, text = int(located.group(1)), int(located.group(2)), located.group(3)
    where = f"{path}:{line}" + (f":{column}" if column else "") if line else str(path)
    return TypeScriptError("load_error", where=where, error=f"{message.get('name') or 'Error'}: {text}")


def grade_typescript_many(targets: Sequence[str | os.PathLike[str]], only: Iterable[str] | str | None = None, *,
                          lang: str | None = None, time_limit: float | None = None) -> list[Report]:
    """Grade several TRUSTED TypeScript/JavaScript loops in ONE Node.js process (one server, one start-up).

    For the course's own loops only (the TypeScript twins of the specimens, which the tests grade
    this way for speed): the loops share one process, so module state, globals and prototypes a
    loop changes are seen by the others, and one loop's ``process.exit`` ends the rest's cases
    (each such case is ``exited``). Learners' files are graded one per process:
    :func:`grade_typescript`, which ``agentlab grade FILE.ts`` and :func:`agentlab.grade` use.

    Args:
        targets: ``FILE[:EXPORT]`` each (``.ts``, ``.mts``, ``.cts``, ``.js``, ``.mjs``, ``.cjs``;
            export default :data:`DEFAULT_EXPORT`).
        only: case names (default: every case, in order).
        lang: language of explanations (default: the learner's setting).
        time_limit: seconds per case, a positive number (default: each case's ``time_limit``, 10 s).

    Returns:
        One :class:`Report` per target, in order, as :func:`agentlab.grade` gives for a Python loop.

    Raises:
        TypeScriptError: Node.js or the npm packages are missing, a file is missing, does not
            compile, throws while loading or lacks the export (the message names file and line).
        KeyError: an unknown case name in ``only``.
        ValueError: ``time_limit`` is not a positive number.
    """
    return _grade_files(list(targets), only, lang=lang, time_limit=time_limit)


def _grade_files(targets: list[str | os.PathLike[str]], only: Iterable[str] | str | None, *, lang: str | None,
                 time_limit: float | None) -> list[Report]:
    """Grade ``targets`` in one Node.js process (see :func:`grade_typescript_many`)."""
    from .. import grader
    from ..fake._api import FakeAPI
    from ..serve import FakeApp, running

    lang = language(lang)
    if time_limit is not None and not (isinstance(time_limit, (int, float)) and 0 < time_limit < float("inf")):
        raise ValueError(f"time_limit must be a positive number of seconds, not {time_limit!r}")
    cases = list(CASES) if only is None else [get_case(n) for n in ([only] if isinstance(only, str) else only)]
    modules = _modules(targets)
    node, version = _node()
    root = _node_root([path for path, _ in modules])

    app = FakeApp(registered_only=True)  # the loop cannot list, read or reset its cases' sessions
    jobs: list[_Job] = []
    for index in range(len(modules)):
        for case in cases:
            api = FakeAPI(case.scenario, runaway_after=max(case.scenario.runaway_after, RUNAWAY_MARGIN))
            limit = case.time_limit if time_limit is None else float(time_limit)
            run = CaseRun(case=replace(case, time_limit=limit), journal=api.journal)  # the verdict names the limit used
            key = "agentlab-grade-" + secrets.token_hex(12)
            app.register(key, api, run_tool=_spy(case, api.journal, run.calls))
            jobs.append(_Job(id=len(jobs), module=index, case=case, key=key, api=api, run=run))

    with running(app) as server:
        base_url = server.base_url.rstrip("/")
        pending = list(jobs)
        while pending:
            pending = _run_some(node, version, root, modules, pending, base_url)

    reports = []
    for index, (path, export) in enumerate(modules):
        results = [_exited(job, lang) if job.ended is not None else grader.judge(job.run, lang)
                   for job in jobs if job.module == index]
        reports.append(Report(cases=results, lang=lang, loop_name=export))
    return reports


def _run_some(node: str, version: tuple[int, int], root: Path, modules: list[tuple[Path, str]], pending: list[_Job],
              base_url: str) -> list[_Job]:
    """Run ``pending`` in one Node.js process until they are done or one times out or ends the
    process; return the jobs still to run (those after it). A line on the protocol pipe that is
    not the message expected next is ignored (a loop cannot know the mark, but it may write there)."""
    job_spec = {
        "base_url": base_url,
        "modules": [{"path": str(path), "export": export} for path, export in modules],
        "runs": [{"id": j.id, "module": j.module, "key": j.key, "prompt": j.case.scenario.prompt,
                  "tools": list(j.case.scenario.tools)} for j in pending],
    }
    done: set[int] = set()
    proc = _Node(node, version, root, job_spec, [path for path, _ in modules])
    try:
        deadline = time.monotonic() + LOAD_TIMEOUT
        while True:  # the modules load
            message = proc.next(deadline - time.monotonic())
            if message is None:
                raise TypeScriptError("load_timeout", path=", ".join(str(p) for p, _ in modules),
                                      seconds=LOAD_TIMEOUT, stderr=proc.stderr_tail())
            if message is _EOF:
                proc.kill()
                raise TypeScriptError("crashed", code=proc.proc.returncode, stderr=proc.stderr_tail())
            index = message.get("module")
            if (message.get("event") == "load" and message.get("ok") is False and isinstance(index, int)
                    and 0 <= index < len(modules)):
                path, export = modules[index]
                raise _load_failure(message, path, export)
            if message.get("event") == "ready":
                break
        for job in pending:
            deadline = time.monotonic() + LOAD_TIMEOUT
            while True:  # "start" follows the previous "end" at once
                message = proc.next(deadline - time.monotonic())
                if message is None or message is _EOF or (message.get("event") == "start" and message.get("id") == job.id):
                    break
            if message is None or message is _EOF:
                _died(job, proc)
                done.add(job.id)
                return [j for j in pending if j.id not in done]
            start = time.perf_counter()
            deadline = time.monotonic() + job.run.case.time_limit
            while True:
                message = proc.next(deadline - time.monotonic())
                if message is None or message is _EOF or _is_end(message, job):
                    break
            job.run.elapsed = time.perf_counter() - start
            done.add(job.id)
            if message is None:  # past its time limit: stop Node.js, go on in a new one
                job.run.timed_out = True
                job.run.exception = CaseTimeout()
                return [j for j in pending if j.id not in done]
            if message is _EOF:
                _died(job, proc)
                return [j for j in pending if j.id not in done]
            _finish(job, message, base_url)
        return []
    finally:
        proc.kill()


def _died(job: _Job, proc: _Node) -> None:
    """Node.js ended (or closed the protocol pipe) while ``job`` ran: the loop called
    ``process.exit``, was killed by a signal, or crashed Node.js."""
    proc.kill()
    code = proc.proc.returncode
    if code is not None and code < 0:
        try:
            how = {"en": f"it was killed by {signal.Signals(-code).name}", "es": f"lo mató {signal.Signals(-code).name}"}
        except ValueError:
            how = {"en": f"it was killed by signal {-code}", "es": f"lo mató la señal {-code}"}
    else:
        how = {"en": f"it exited with code {code}", "es": f"terminó con el código {code}"}
    job.ended = how
    job.run.exception = _named(JavaScriptError, "ProcessExit")(
        "ProcessExit", f"Node.js exited with code {code} while the loop ran{proc.stderr_tail()}")


_EXITED_FIX = {"en": "Return the answer, or throw an Error when the task cannot finish; never call process.exit() "
                     "or process.kill() in a loop.",
               "es": "Devuelve la respuesta, o lanza un Error si la tarea no puede terminar; nunca llames a "
                     "process.exit() ni a process.kill() en un bucle."}


def _exited(job: _Job, lang: str) -> Any:
    """The verdict on a case during which the loop ended Node.js: ``exited``, whatever the case
    expects (ending the process is not the loud stop a ``stop`` case wants: nothing is left to
    report it)."""
    from ._detect import Finding, _ev
    from ._report import verdict

    how = job.ended or {"en": "it ended", "es": "terminó"}
    tail = str(job.run.exception or "").partition("while the loop ran")[2].strip()
    output = f" It printed: {tail[-300:]}" if tail else ""
    salida = f" Imprimió: {tail[-300:]}" if tail else ""
    return verdict(job.run, [Finding("exited", _ev(
        f"The loop ended the Node.js process ({how['en']}) before returning or throwing: process.exit() or a "
        f"crash.{output}",
        f"El bucle terminó el proceso de Node.js ({how['es']}) antes de devolver nada o lanzar un error: "
        f"process.exit() o un fallo.{salida}"), fix=_EXITED_FIX)], None, lang)


def grade_typescript(target: str | os.PathLike[str], only: Iterable[str] | str | None = None, *,
                     lang: str | None = None, time_limit: float | None = None) -> Report:
    """Grade one TypeScript/JavaScript loop, ``FILE[:EXPORT]``, in a Node.js process of its own;
    see :func:`grade_typescript_many` for the arguments, the return value and the errors."""
    return _grade_files([target], only, lang=lang, time_limit=time_limit)[0]
