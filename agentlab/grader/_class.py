"""Class grading: find the learners' submissions and grade them in parallel, one worker process each.

::

    from agentlab.grader._class import find_submissions, grade_class
    subs = find_submissions(["submissions/"])            # .py and .ipynb, recursively
    graded = grade_class(subs, only=None, lang="en")     # list[Graded], in the order of subs
    [(g.submission.learner, g.passed, g.error) for g in graded]

The outputs (class table, HTML, CSV gradebook, feedback files, Gradescope ``results.json``) are in
``agentlab.grader._class_report``; ``agentlab grade DIR ...`` is the command.

**Finding submissions** (:func:`find_submissions`). A file given by name is a submission. A folder
is searched recursively for ``.py`` and ``.ipynb`` files, skipping hidden files and folders
(``.ipynb_checkpoints``, ``.git``...), ``__pycache__``, ``site-packages``, ``node_modules`` and
virtual environments (a folder with a ``pyvenv.cfg``); a file named twice is graded once. The learner id is the file's name
without its suffix (``alice.py`` -> ``alice``) for a file directly in the folder, and the name of
the first sub-folder for a file below it (``bob/loop.py`` -> ``bob``: one folder per learner, as
LMS exports and Gradescope lay them out). When a learner's folder holds several files, the ones
that define the graded function (``def agent_loop``) are the submissions and the others are
helpers they may import; two such files become ``bob/loop`` and ``bob/loop2``.

**The learner's language** comes from the name: ``alice.es.py``, ``alice.es.ipynb`` or a folder
``alice.es/`` gets feedback in Spanish (learner id ``alice``); without it, the class language
(``--lang``). The convention is on the name because the instructor controls names when
collecting the work, and it reads the same for files, notebooks and folders.

**Workers.** Each submission is loaded and graded by :func:`grade_one` in a worker process (a
``forkserver`` child with the grader already imported and warmed), at most ``jobs`` at a time
(default: the machine's cores). A worker is its own process group, runs each submission in a
scratch working directory, and writes what the learner's code prints to a file the parent reads
back (trimmed). The parent only waits, so whatever a submission does (``sys.exit`` or ``while
True`` at its top level, ``os._exit`` or a crash while graded) ends or hangs its worker, is
reported for that learner, and the others are still graded; a worker past its time budget is
killed with its process group. By default a worker grades one submission and exits, because the
file's top level runs in it; ``grade_class(reuse=True)`` keeps ``jobs`` workers grading
submission after submission instead, which is right once :func:`grade_one` loads the file in the
grader's isolated child (then a worker runs no learner code, and a grader that starts a server
per process starts it once per worker). Why not ``concurrent.futures.ProcessPoolExecutor``: one
worker that dies breaks the whole pool. The grading itself may start child processes of its
own: workers are not daemonic, so it can.

Evaluar una clase: encontrar las entregas y evaluarlas en paralelo, un proceso por entrega.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import sys
import tempfile
import time
import types
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence

from .._i18n import LANGUAGES, language
from .._load import (DEFAULT_FUNCTIONS, SUFFIXES, LoadError, default_function, notebook_source,
                     sandbox_load_messages, split_target)
from ._report import Report

__all__ = ["Graded", "Submission", "find_submissions", "grade_class", "grade_one", "learner_and_lang"]

LOAD_LIMIT = 20.0
"""Seconds a submission's top level may run before its worker is killed (a top-level loop that never ends)."""
CASE_BUDGET = 15.0
"""Seconds of worker time per case on top of the case's own limit, a backstop to the grader's limits."""
OUTPUT_LIMIT = 2000
"""Characters kept of what a submission printed (its end)."""

_ERRORS = {
    "en": {
        "exited": "the submission ended its worker process while {phase} (exit code {code}): it calls sys.exit, "
                  "os._exit or crashes the interpreter",
        "signal": "the submission's worker process was killed by signal {name} while {phase}",
        "load_timeout": "the submission's top level was still running after {seconds:g} s (a loop at the top level "
                        "of the file?): it was stopped before any grading",
        "grade_timeout": "grading was still running after {seconds:g} s and was stopped",
        "loading": "loading", "grading": "being graded",
    },
    "es": {
        "exited": "la entrega terminó su proceso mientras se {phase} (código de salida {code}): llama a sys.exit, "
                  "os._exit o hace fallar al intérprete",
        "signal": "el proceso de la entrega recibió la señal {name} mientras se {phase}",
        "load_timeout": "el nivel superior de la entrega seguía en marcha tras {seconds:g} s (¿un bucle en el nivel "
                        "superior del archivo?): se detuvo antes de evaluar nada",
        "grade_timeout": "la evaluación seguía en marcha tras {seconds:g} s y se detuvo",
        "loading": "cargaba", "grading": "evaluaba",
    },
}


def _both(key: str, **params: Any) -> dict[str, str]:
    out = {}
    for lang in LANGUAGES:
        words = _ERRORS[lang]
        out[lang] = words[key].format(**{k: words.get(v, v) if k == "phase" else v for k, v in params.items()})
    return out


@dataclass(frozen=True)
class Submission:
    """One learner's file to grade."""

    learner: str
    """The learner id (from the file or folder name, see the module docstring)."""
    path: Path
    function: str | None = None
    """The function to grade (None: ``agent_loop``, else ``consume``)."""
    lang: str | None = None
    """The learner's language from the name convention (None: the class language)."""
    helpers: tuple[Path, ...] = ()
    """The other ``.py`` files of the learner's folder, which the submission may import."""
    shown: str = ""
    """How outputs name the file: relative to the class folder given on the command line
    (``bea/loop.py``), or the file as it was given; "" for ``str(path)``. Outputs never show the
    instructor's absolute path of a folder's file."""

    @property
    def name(self) -> str:
        """The file as outputs show it (:attr:`shown`, else ``path``)."""
        return self.shown or str(self.path)


@dataclass
class Graded:
    """What grading one submission gave: a report, or why there is none."""

    submission: Submission
    lang: str
    """The language of the report and the feedback (the learner's, else the class's)."""
    report: Report | None = None
    error: dict[str, str] | None = None
    """Why the submission could not be loaded or graded, in English and Spanish (None: it was)."""
    output: str = ""
    """The end of what the submission printed while loaded and graded (at most :data:`OUTPUT_LIMIT` characters)."""
    seconds: float = field(default=0.0, compare=False)
    """Wall time of its worker (not written to any output, which stays byte-for-byte reproducible)."""

    @property
    def learner(self) -> str:
        """The learner id."""
        return self.submission.learner

    @property
    def loaded(self) -> bool:
        """Whether there is a report (the file loaded and grading finished)."""
        return self.report is not None

    @property
    def passed(self) -> bool:
        """True when the submission was graded and passed every case."""
        return self.report is not None and self.error is None and self.report.passed

    @property
    def cases_passed(self) -> int:
        """Cases passed (0 without a report)."""
        return sum(c.passed for c in self.report.cases) if self.report else 0

    @property
    def tags(self) -> list[str]:
        """The diagnoses of the failed cases, each once, in case order."""
        seen: list[str] = []
        for case in self.report.cases if self.report else []:
            if case.diagnosis and case.diagnosis not in seen:
                seen.append(case.diagnosis)
        return seen


# ------------------------------------------------------------------------------------- finding


_LANG_SUFFIX = re.compile(r"^(?P<name>.+)\.(?P<lang>" + "|".join(LANGUAGES) + r")$")


def learner_and_lang(name: str) -> tuple[str, str | None]:
    """``"alice.es"`` -> ``("alice", "es")``; ``"alice"`` -> ``("alice", None)``."""
    match = _LANG_SUFFIX.match(name)
    return (match["name"], match["lang"]) if match else (name, None)


_NOT_SUBMISSIONS = ("__pycache__", "site-packages", "node_modules")


def _skipped(part: str) -> bool:
    return part.startswith(".") or part in _NOT_SUBMISSIONS


def _files(folder: Path) -> list[Path]:
    found = []
    for root, dirs, files in os.walk(folder):
        if "pyvenv.cfg" in files and Path(root) != folder:  # a virtual environment, not a learner
            dirs[:] = []
            continue
        dirs[:] = sorted(d for d in dirs if not _skipped(d))
        found += [Path(root) / f for f in sorted(files) if not _skipped(f) and Path(f).suffix in SUFFIXES]
    return found


def _defines(path: Path, names: Iterable[str]) -> bool:
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False
    return any(re.search(rf"\bdef\s+{re.escape(n)}\s*\(", text) for n in names)


def find_submissions(targets: Sequence[str], function: str | None = None) -> list[Submission]:
    """The submissions named by ``targets`` (files, ``FILE:FUNCTION``, folders), in order: each
    target's, a folder's sorted by path. A path that does not exist is kept, so that grading
    reports it ("no such file") with the others.

    Args:
        targets: what the command line names.
        function: the function to grade where a target does not name one (None: the default).

    Returns:
        One :class:`Submission` per file; learner ids are unique (a clash is resolved by
        using the path relative to the class folder, ``alice.py`` / ``alice.ipynb`` /
        ``alice/loop.py``).
    """
    subs: list[Submission] = []
    for target in targets:
        path, name = split_target(target)
        name = name or function
        if not path.is_dir():
            learner, lang = learner_and_lang(path.stem if path.suffix in SUFFIXES else path.name)
            subs.append(Submission(learner, path, name, lang, shown=str(path)))
            continue
        by_learner: dict[str, list[Path]] = {}
        for file in _files(path):
            rel = file.relative_to(path)
            key = rel.parts[0] if len(rel.parts) > 1 else str(rel)
            by_learner.setdefault(key, []).append(file)
        for key, files in sorted(by_learner.items(), key=lambda item: learner_and_lang(Path(item[0]).stem)[0]):
            if len(files) == 1 and len(Path(key).parts) == 1 and (path / key).is_file():
                learner, lang = learner_and_lang(files[0].stem)
                subs.append(Submission(learner, files[0], name, lang, shown=files[0].relative_to(path).as_posix()))
                continue
            learner, lang = learner_and_lang(key)
            if len(files) > 1:
                graded = [f for f in files if _defines(f, [name] if name else DEFAULT_FUNCTIONS)]
                files = graded or files
            folder = path / key
            helpers = tuple(sorted(p for p in folder.glob("*.py") if p.is_file())) if folder.is_dir() else ()
            for file in files:
                own = learner if len(files) == 1 else f"{learner}/{file.relative_to(path / key).with_suffix('')}"
                subs.append(Submission(own, file, name, lang, tuple(h for h in helpers if h != file),
                                       file.relative_to(path).as_posix()))
    seen: set[Path] = set()
    unique = []
    for sub in subs:  # the same file named twice (a.py a.py, or a file and its folder) is graded once
        key = sub.path.resolve()
        if key not in seen:
            seen.add(key)
            unique.append(sub)
    subs = unique
    counts: dict[str, int] = {}
    for sub in subs:
        counts[sub.learner] = counts.get(sub.learner, 0) + 1
    # a clash (ana.py, ana.es.py, ana/loop.py) is resolved by the short path as shown
    return [Submission(s.name, s.path, s.function, s.lang, s.helpers, s.shown) if counts[s.learner] > 1 else s
            for s in subs]


# ------------------------------------------------------------------------------------- the workers


def grade_one(path: str, shown: str, function: str | None, only: list[str] | None, time_limit: float | None,
              lang: str, send: Callable[[tuple], None], helpers: Sequence[str] = ()) -> None:
    """Load and grade one submission in this process; ``send`` gets ``("loaded",)`` once the file's
    top level has run, then ``("report", Report)`` or ``("error", {lang: reason})``.

    This is the one place that decides where the learner's top level runs (here, with
    :func:`agentlab._load.load_function`) and how the function is graded
    (:func:`agentlab.grader.grade`). Workers may be reused (``grade_class(reuse=True)``) only when
    nothing the learner's code does here can outlive the call, that is when the file is loaded in
    the grader's isolated child rather than here."""
    from . import LoadError as SandboxLoadError
    from . import grade_file, grade_source

    file = Path(path)
    send(("loaded",))  # nothing of the learner's runs here: the file is loaded in the grader's child
    try:
        if not file.is_file():
            raise LoadError("no_file", path=path)
        if file.suffix == ".ipynb":
            code = notebook_source(file)
            report = grade_source(code, function or default_function(code), only, lang=lang, time_limit=time_limit,
                                  filename=f"<{file.name}>")
        else:
            report = grade_file(file, function, only, lang=lang, time_limit=time_limit, helpers=helpers)
    except LoadError as exc:  # named as the instructor named it, not by the absolute path the worker needs
        send(("error", {lang: exc.message(lang).replace(path, shown) for lang in LANGUAGES}))
        return
    except SandboxLoadError as exc:
        send(("error", sandbox_load_messages(exc, shown, function)))
        return
    except (KeyError, TypeError, ValueError, ImportError) as exc:  # the wrong shape, a case it has not
        text = str(exc.args[0]) if exc.args else type(exc).__name__
        send(("error", {lang: text for lang in LANGUAGES}))
        return
    send(("report", report))


def _work(conn: Any, only: list[str] | None, time_limit: float | None, reuse: bool) -> None:
    """A worker's body: receive ``(path, shown, function, lang, output, scratch, helpers)`` tasks, grade each
    with :func:`grade_one` (its output to the task's file, its working directory the task's
    scratch folder), until ``None``; without ``reuse``, one task and out."""
    os.setsid()  # its own process group: the parent can end it with everything it started
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    while True:
        try:
            task = conn.recv()
        except (EOFError, OSError):
            return
        if task is None:
            return
        path, shown, function, lang, output, scratch, helpers = task
        sys.stdout.flush()
        sys.stderr.flush()
        fd = os.open(output, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        os.dup2(fd, 1)
        os.dup2(fd, 2)
        os.close(fd)
        os.chdir(scratch)
        grade_one(path, shown, function, only, time_limit, lang, conn.send, helpers)
        sys.stdout.flush()
        sys.stderr.flush()
        if not reuse:
            return


@dataclass
class _Task:
    index: int
    sub: Submission
    lang: str
    output: str
    scratch: str
    deadline: float
    started: float
    phase: str = "loading"
    result: tuple | None = None


@dataclass
class _Worker:
    process: Any
    conn: Any
    task: _Task | None = None


def _context():
    import multiprocessing

    ctx = multiprocessing.get_context("forkserver")
    ctx.set_forkserver_preload(["agentlab", "agentlab.grader", "agentlab.grader._class", "agentlab.grader._warm"])
    return ctx


@contextlib.contextmanager
def _plain_main():
    """Hide ``__main__`` while a worker starts: ``multiprocessing`` would otherwise re-run the
    parent's main module in every worker (``python -m agentlab`` is the CLI itself, a script its top
    level); the worker needs nothing from it."""
    main = sys.modules.get("__main__")
    sys.modules["__main__"] = types.ModuleType("__main__")
    try:
        yield
    finally:
        if main is not None:
            sys.modules["__main__"] = main


def _kill(process: Any) -> None:
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    process.join(5)


def _tail(path: str) -> str:
    try:
        with open(path, "rb") as f:
            f.seek(0, os.SEEK_END)
            f.seek(max(0, f.tell() - OUTPUT_LIMIT * 4))
            text = f.read().decode("utf-8", errors="replace")
    except OSError:
        return ""
    return text[-OUTPUT_LIMIT:]


def grade_class(submissions: Sequence[Submission], only: Iterable[str] | None = None, *, lang: str | None = None,
                time_limit: float | None = None, jobs: int | None = None,
                on_done: Callable[[Graded, int, int], None] | None = None,
                load_limit: float = LOAD_LIMIT, reuse: bool = True) -> list[Graded]:
    """Grade every submission with :func:`grade_one` in worker processes, ``jobs`` at a time.

    Args:
        submissions: from :func:`find_submissions`.
        only: case names to run (default: all).
        lang: the class language, for learners without one of their own (default: the setting).
        time_limit: seconds per case (default: each case's).
        jobs: workers at a time (default: the machine's cores, ``os.cpu_count()``).
        on_done: called as ``on_done(graded, done, total)`` after each submission (a progress bar).
        load_limit: seconds a submission's top level may run (default :data:`LOAD_LIMIT`).
        reuse: True (the default): ``jobs`` workers grade submission after submission (a worker
            that dies or runs out of time is replaced), which pays the grader's per-process
            start-up once per worker; safe because :func:`grade_one` runs no learner code in the
            worker (the isolated grader loads the file in its own child). False: a fresh worker
            per submission.

    Returns:
        One :class:`Graded` per submission, in the order given. Never raises for anything a
        submission does; a submission that cannot be loaded, or whose worker dies or runs out of
        time, has ``error`` set and no report.
    """
    from multiprocessing.connection import wait

    from ._cases import CASES

    class_lang = language(lang)
    only_list = None if only is None else ([only] if isinstance(only, str) else list(only))
    n_cases = len(only_list) if only_list is not None else len(CASES)
    grade_budget = n_cases * ((time_limit or max(c.time_limit for c in CASES)) + CASE_BUDGET) + 30
    jobs = max(1, jobs or os.cpu_count() or 1)
    results: dict[int, Graded] = {}
    pending = deque(enumerate(submissions))
    workers: list[_Worker] = []
    ctx = _context()
    work_dir = tempfile.mkdtemp(prefix="agentlab-class-")

    def start_worker() -> _Worker:
        mine, theirs = ctx.Pipe(duplex=True)
        process = ctx.Process(target=_work, name="agentlab-grade-worker", daemon=False,
                              args=(theirs, only_list, time_limit, reuse))
        with _plain_main():
            process.start()
        theirs.close()
        worker = _Worker(process, mine)
        workers.append(worker)
        return worker

    def assign(worker: _Worker) -> None:
        index, sub = pending.popleft()
        sub_lang = sub.lang or class_lang
        output = os.path.join(work_dir, f"{index}.out")
        scratch = tempfile.mkdtemp(prefix=f"{index}-", dir=work_dir)
        now = time.monotonic()
        worker.task = _Task(index, sub, sub_lang, output, scratch, now + load_limit, now)
        worker.conn.send((str(Path(sub.path).resolve()), sub.name, sub.function, sub_lang, output, scratch,
                          [str(Path(h).resolve()) for h in sub.helpers]))

    def retire(worker: _Worker, kill: bool) -> None:
        if kill:
            _kill(worker.process)
        else:
            with contextlib.suppress(OSError):
                worker.conn.send(None)
            worker.process.join(1)
            if worker.process.is_alive():
                _kill(worker.process)
        with contextlib.suppress(ProcessLookupError, PermissionError):  # what it left running in its group
            os.killpg(worker.process.pid, signal.SIGKILL)
        worker.conn.close()
        workers.remove(worker)

    def finish(worker: _Worker, error: dict[str, str] | None = None) -> None:
        task = worker.task
        worker.task = None
        graded = Graded(task.sub, task.lang, output=_tail(task.output), seconds=time.monotonic() - task.started)
        if error is None and task.result and task.result[0] == "report":
            graded.report = task.result[1]
        else:
            graded.error = error or (task.result[1] if task.result else _died(worker.process, task.phase))
        shutil.rmtree(task.scratch, ignore_errors=True)
        with contextlib.suppress(OSError):
            os.unlink(task.output)
        results[task.index] = graded
        if on_done:
            on_done(graded, len(results), len(submissions))

    try:
        while pending or any(w.task for w in workers):
            for worker in [w for w in workers if w.task is None]:
                if pending and reuse:
                    assign(worker)
                else:
                    retire(worker, kill=False)
            while pending and len(workers) < jobs:
                assign(start_worker())
            busy = [w for w in workers if w.task]
            timeout = max(0.0, min(w.task.deadline for w in busy) - time.monotonic())
            ready = set(wait([w.conn for w in busy] + [w.process.sentinel for w in busy], timeout))
            for worker in busy:
                task = worker.task
                if worker.conn in ready or worker.process.sentinel in ready:
                    try:
                        while task.result is None and worker.conn.poll():
                            message = worker.conn.recv()
                            if message[0] == "loaded":
                                task.phase = "grading"
                                task.deadline = time.monotonic() + grade_budget
                            else:
                                task.result = message
                    except (EOFError, OSError):  # the worker is gone: its exit code says how
                        pass
                    if task.result is not None:
                        finish(worker)
                        continue
                    if not worker.process.is_alive() or worker.process.sentinel in ready:
                        worker.process.join(5)
                        finish(worker, _died(worker.process, task.phase))
                        retire(worker, kill=True)
                        continue
                if time.monotonic() >= task.deadline:
                    seconds = load_limit if task.phase == "loading" else grade_budget
                    retire(worker, kill=True)
                    finish(worker, _both("load_timeout" if task.phase == "loading" else "grade_timeout",
                                         seconds=round(seconds)))
    finally:
        for worker in list(workers):
            retire(worker, kill=worker.task is not None)
        shutil.rmtree(work_dir, ignore_errors=True)
    return [results[i] for i in range(len(submissions))]


def _died(process: Any, phase: str) -> dict[str, str]:
    code = process.exitcode
    if code is not None and code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = str(-code)
        return _both("signal", name=name, phase=phase)
    return _both("exited", code=code, phase=phase)
