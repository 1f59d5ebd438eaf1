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

**Workers.** Each submission is loaded and graded in a worker process of its own (a
``forkserver`` child with the grader already imported), at most ``jobs`` at a time (default: the
machine's cores). A worker is its own process group, runs in a scratch working directory, and
writes what the learner's code prints to a file the parent reads back (trimmed). The parent
only waits, so whatever a submission does (``sys.exit`` or ``while True`` at its top level,
``os._exit`` or a crash while graded) ends or hangs its own worker, is reported for that
learner, and the others are still graded; a worker past its time budget is killed with its
process group. Why not ``concurrent.futures.ProcessPoolExecutor``: one worker that dies breaks
the whole pool, and a long-lived worker would carry one learner's top-level side effects into
the next learner's grading. The grading itself is :func:`agentlab.grader.grade`, which may start
its own child processes: workers are not daemonic, so it can.

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
from .._load import DEFAULT_FUNCTIONS, SUFFIXES, LoadError, load_function, split_target
from ._report import Report

__all__ = ["Graded", "Submission", "find_submissions", "grade_class", "learner_and_lang"]

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
        using the path, ``alice.py`` / ``alice.ipynb``).
    """
    subs: list[Submission] = []
    for target in targets:
        path, name = split_target(target)
        name = name or function
        if not path.is_dir():
            learner, lang = learner_and_lang(path.stem if path.suffix in SUFFIXES else path.name)
            subs.append(Submission(learner, path, name, lang))
            continue
        by_learner: dict[str, list[Path]] = {}
        for file in _files(path):
            rel = file.relative_to(path)
            key = rel.parts[0] if len(rel.parts) > 1 else str(rel)
            by_learner.setdefault(key, []).append(file)
        for key, files in sorted(by_learner.items(), key=lambda item: learner_and_lang(Path(item[0]).stem)[0]):
            if len(files) == 1 and len(Path(key).parts) == 1 and (path / key).is_file():
                learner, lang = learner_and_lang(files[0].stem)
                subs.append(Submission(learner, files[0], name, lang))
                continue
            learner, lang = learner_and_lang(key)
            if len(files) > 1:
                graded = [f for f in files if _defines(f, [name] if name else DEFAULT_FUNCTIONS)]
                files = graded or files
            for file in files:
                own = learner if len(files) == 1 else f"{learner}/{file.relative_to(path / key).with_suffix('')}"
                subs.append(Submission(own, file, name, lang))
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
    return [Submission(str(s.path), s.path, s.function, s.lang) if counts[s.learner] > 1 else s for s in subs]


# ------------------------------------------------------------------------------------- the workers


def _work(conn: Any, path: str, shown: str, function: str | None, only: list[str] | None, time_limit: float | None,
          lang: str, output: str, scratch: str) -> None:
    """A worker's body: load and grade one submission, send ``("loaded",)`` then ``("report", Report)``
    or ``("error", {lang: reason})`` to the parent."""
    os.setsid()  # its own process group: the parent can end it with everything it started
    fd = os.open(output, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.dup2(fd, 1)
    os.dup2(fd, 2)
    os.close(fd)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    os.chdir(scratch)
    from . import grade

    try:
        loop = load_function(Path(path), function)
    except LoadError as exc:  # named as the instructor named it, not by the absolute path the worker needs
        conn.send(("error", {lang: exc.message(lang).replace(path, shown) for lang in LANGUAGES}))
        return
    except BaseException as exc:  # noqa: BLE001 - KeyboardInterrupt or the like raised by the file's top level
        conn.send(("error", {lang: LoadError("top_level_exit", path=shown, error=f"{type(exc).__name__}({exc})")
                             .message(lang) for lang in LANGUAGES}))
        return
    conn.send(("loaded",))
    try:
        report = grade(loop, only, lang=lang, time_limit=time_limit)
    except (KeyError, TypeError, ValueError, ImportError) as exc:  # the wrong shape, a case it has not
        text = str(exc.args[0]) if exc.args else type(exc).__name__
        conn.send(("error", {lang: text for lang in LANGUAGES}))
        return
    sys.stdout.flush()
    sys.stderr.flush()
    conn.send(("report", report))


@dataclass
class _Slot:
    sub: Submission
    lang: str
    process: Any
    conn: Any
    output: str
    scratch: str
    deadline: float
    started: float
    phase: str = "loading"
    result: tuple | None = None


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
                load_limit: float = LOAD_LIMIT) -> list[Graded]:
    """Grade every submission with :func:`agentlab.grader.grade`, each in a worker process of its own,
    ``jobs`` at a time.

    Args:
        submissions: from :func:`find_submissions`.
        only: case names to run (default: all).
        lang: the class language, for learners without one of their own (default: the setting).
        time_limit: seconds per case (default: each case's).
        jobs: workers at a time (default: the machine's cores, ``os.cpu_count()``).
        on_done: called as ``on_done(graded, done, total)`` after each submission (a progress bar).
        load_limit: seconds a submission's top level may run (default :data:`LOAD_LIMIT`).

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
    running: dict[int, _Slot] = {}
    ctx = _context()
    work_dir = tempfile.mkdtemp(prefix="agentlab-class-")

    def finish(index: int, slot: _Slot) -> None:
        slot.conn.close()
        slot.process.join(1 if slot.result else 0)
        if slot.process.is_alive():
            _kill(slot.process)
        else:
            slot.process.join()
            try:  # anything the submission left running in its process group
                os.killpg(slot.process.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        graded = Graded(slot.sub, slot.lang, output=_tail(slot.output), seconds=time.monotonic() - slot.started)
        kind, payload = slot.result if slot.result else ("error", None)
        if kind == "report":
            graded.report = payload
        else:
            graded.error = payload or _died(slot)
        shutil.rmtree(slot.scratch, ignore_errors=True)
        try:
            os.unlink(slot.output)
        except OSError:
            pass
        results[index] = graded
        del running[index]
        if on_done:
            on_done(graded, len(results), len(submissions))

    try:
        while pending or running:
            while pending and len(running) < jobs:
                index, sub = pending.popleft()
                sub_lang = sub.lang or class_lang
                receive, send = ctx.Pipe(duplex=False)
                output = os.path.join(work_dir, f"{index}.out")
                scratch = tempfile.mkdtemp(prefix=f"{index}-", dir=work_dir)
                process = ctx.Process(target=_work, name=f"agentlab-grade-{index}", daemon=False, args=(
                    send, str(Path(sub.path).resolve()), str(sub.path), sub.function, only_list, time_limit, sub_lang, output,
                    scratch))
                with _plain_main():
                    process.start()
                send.close()
                now = time.monotonic()
                running[index] = _Slot(sub, sub_lang, process, receive, output, scratch, now + load_limit, now)
            now = time.monotonic()
            timeout = max(0.0, min(s.deadline for s in running.values()) - now)
            ready = set(wait([s.conn for s in running.values()] + [s.process.sentinel for s in running.values()],
                             timeout))
            for index, slot in list(running.items()):
                if slot.conn in ready or slot.process.sentinel in ready:
                    try:
                        while slot.conn.poll():
                            message = slot.conn.recv()
                            if message[0] == "loaded":
                                slot.phase = "grading"
                                slot.deadline = time.monotonic() + grade_budget
                            else:
                                slot.result = message
                    except (EOFError, OSError):  # the worker is gone: its sentinel says how
                        if slot.result is None:
                            slot.process.join(5)
                            slot.result = ("error", _died(slot))
                    if slot.result is not None or not slot.process.is_alive():
                        finish(index, slot)
                        continue
                if time.monotonic() >= slot.deadline:
                    seconds = load_limit if slot.phase == "loading" else grade_budget
                    slot.result = ("error", _both("load_timeout" if slot.phase == "loading" else "grade_timeout",
                                                  seconds=round(seconds)))
                    finish(index, slot)
    finally:
        for slot in list(running.values()):
            _kill(slot.process)
        shutil.rmtree(work_dir, ignore_errors=True)
    return [results[i] for i in range(len(submissions))]


def _died(slot: _Slot) -> dict[str, str]:
    code = slot.process.exitcode
    if code is not None and code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = str(-code)
        return _both("signal", name=name, phase=slot.phase)
    return _both("exited", code=code, phase=slot.phase)
