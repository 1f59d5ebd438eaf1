"""The course as a whole: the lesson plan with suggested workshop timings, and the learner copy.

::

    from agentlab import course

    course.timings()                      # lesson -> minutes (a table in Jupyter; str() for text)
    course.LESSONS, course.EXERCISES      # the data behind it
    course.student_copy("my-course")      # the notebooks without the exercise solutions

In a terminal: ``agentlab course timings`` and ``agentlab course student-copy DIR [--force]``.

**Exercises** (lesson 12). The instructor's notebook holds each solution in a code cell tagged
``solution``, between a ``### BEGIN SOLUTION`` line and a ``### END SOLUTION`` line; whatever is
outside the markers (a ``def`` line, a docstring, hints) is the starter skeleton the learner
keeps. :func:`strip_solutions` replaces each marked block with
``raise NotImplementedError("your code here")`` at the marker's indentation and clears the
outputs of the ``solution`` cells, of the code cell that follows each of them (its check) and of
any cell tagged ``check``, since those outputs came from the instructor's code.

El curso completo: el plan de lecciones con tiempos sugeridos para un taller, y la copia para
el alumno (los cuadernos sin las soluciones de los ejercicios).
"""

from __future__ import annotations

import copy
import html
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable

from ._i18n import language

__all__ = [
    "BEGIN", "CHECK_TAG", "CourseError", "END", "EXERCISES", "Exercise", "LESSONS", "Lesson", "PLACEHOLDER",
    "SOLUTION_TAG", "Timings", "Written", "notebooks_dir", "solution_lines", "strip_solutions", "student_copy",
    "timings",
]

SOLUTION_TAG = "solution"
"""Cell tag of an exercise cell whose marked blocks are the instructor's solution."""
CHECK_TAG = "check"
"""Cell tag of a cell whose output depends on the learner's code (cleared in the learner copy)."""
BEGIN = "### BEGIN SOLUTION"
END = "### END SOLUTION"
PLACEHOLDER = 'raise NotImplementedError("your code here")'
"""What a solution block becomes in the learner copy (at the indentation of its BEGIN line)."""
EXTRA_FILES = ("README.md", "CONVENTIONS.md")
"""Files of ``notebooks/`` copied along with the notebooks, when present."""


_ERRORS = {
    "en": {
        "no_checkout": "no notebooks found: run this from a clone of the course, or pass --source DIR",
        "no_notebooks": "no notebooks in {src}",
        "not_a_folder": "{dest} is a file, not a folder",
        "same_folder": "{dest} is (inside) the instructor's folder {src}: the learner copy goes elsewhere",
        "not_empty": "{dest} is not empty: choose an empty folder, or pass --force to overwrite",
        "nested": "{name}, cell {cell}, line {line}: " + BEGIN + " inside another solution block",
        "end_alone": "{name}, cell {cell}, line {line}: " + END + " without a " + BEGIN + " before it",
        "unclosed": "{name}, cell {cell}: " + BEGIN + " without an " + END,
        "not_code": "{name}, cell {cell}: only code cells can be tagged 'solution'",
        "no_markers": "{name}, cell {cell}: tagged 'solution' but has no " + BEGIN + " line",
        "untagged": "{name}, cell {cell}: has solution markers but is not tagged 'solution' (its solution would leak)",
    },
    "es": {
        "no_checkout": "no se encontraron cuadernos: ejecútalo desde un clon del curso, o pasa --source DIR",
        "no_notebooks": "no hay cuadernos en {src}",
        "not_a_folder": "{dest} es un archivo, no una carpeta",
        "same_folder": "{dest} es (o está dentro de) la carpeta del instructor {src}: la copia del alumno va en otra",
        "not_empty": "{dest} no está vacía: elige una carpeta vacía, o pasa --force para sobrescribir",
        "nested": "{name}, celda {cell}, línea {line}: " + BEGIN + " dentro de otro bloque de solución",
        "end_alone": "{name}, celda {cell}, línea {line}: " + END + " sin un " + BEGIN + " antes",
        "unclosed": "{name}, celda {cell}: " + BEGIN + " sin su " + END,
        "not_code": "{name}, celda {cell}: solo las celdas de código pueden llevar la etiqueta 'solution'",
        "no_markers": "{name}, celda {cell}: lleva la etiqueta 'solution' pero no tiene la línea " + BEGIN,
        "untagged": "{name}, celda {cell}: tiene marcas de solución pero no la etiqueta 'solution' "
                    "(su solución se filtraría)",
    },
}


class CourseError(Exception):
    """The learner copy cannot be made: no notebooks, a non-empty destination without ``force``,
    or solution markers that do not pair up (the message names the notebook and cell).
    ``str()`` is English; :meth:`message` gives either language."""

    def __init__(self, key: str, **params: Any) -> None:
        self.key = key
        self.params = params
        super().__init__(self.message("en"))

    def message(self, lang: str | None = None) -> str:
        return _ERRORS[language(lang)][self.key].format(**self.params)


# ----------------------------------------------------------------------------------------------
# The plan and its timings
# ----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Lesson:
    """One notebook of the course."""

    number: str
    """``"00"`` to ``"15"``."""
    stem: str
    """The notebook's file name without ``.ipynb``."""
    title: dict[str, str]
    """``{"en": ..., "es": ...}``."""
    minutes: int
    """Suggested workshop time: reading, running every cell and the check at the end."""

    @property
    def filename(self) -> str:
        return f"{self.stem}.ipynb"


@dataclass(frozen=True)
class Exercise:
    """One exercise of lesson 12 (``Build your own loop``)."""

    number: int
    title: dict[str, str]
    minutes: int


EXERCISES: tuple[Exercise, ...] = (
    Exercise(1, {"en": "The minimal loop: tool_use and end_turn, parallel calls",
                 "es": "El bucle mínimo: tool_use y end_turn, llamadas en paralelo"}, 20),
    Exercise(2, {"en": "Tool errors go back as is_error results",
                 "es": "Los errores de herramienta vuelven como resultados is_error"}, 10),
    Exercise(3, {"en": "pause_turn, max_tokens and refusal",
                 "es": "pause_turn, max_tokens y refusal"}, 25),
    Exercise(4, {"en": "Guardrails: steps and consecutive tool errors",
                 "es": "Límites: pasos y errores de herramienta seguidos"}, 15),
)
"""Lesson 12's exercises, each with its suggested time."""

_INTRO_12 = 5
"""Minutes of lesson 12 before the first exercise (how the grader works)."""

LESSONS: tuple[Lesson, ...] = (
    Lesson("00", "00_start_here", {"en": "Start here", "es": "Empieza aquí"}, 10),
    Lesson("01", "01_the_agent_loop", {"en": "The agent loop", "es": "El bucle de agente"}, 20),
    Lesson("02", "02_tool_use_in_depth", {"en": "tool_use in depth", "es": "tool_use a fondo"}, 30),
    Lesson("03", "03_end_turn_and_stop_sequence", {"en": "end_turn and stop_sequence",
                                                   "es": "end_turn y stop_sequence"}, 15),
    Lesson("04", "04_max_tokens", {"en": "max_tokens", "es": "max_tokens"}, 20),
    Lesson("05", "05_pause_turn", {"en": "pause_turn", "es": "pause_turn"}, 15),
    Lesson("06", "06_refusal_and_context_window", {"en": "refusal and the context window",
                                                   "es": "refusal y la ventana de contexto"}, 15),
    Lesson("07", "07_guardrails", {"en": "Guardrails", "es": "Límites (guardrails)"}, 25),
    Lesson("08", "08_thinking", {"en": "Thinking in the loop", "es": "Razonamiento en el bucle"}, 20),
    Lesson("09", "09_antipattern_gallery", {"en": "The anti-pattern gallery", "es": "La galería de antipatrones"}, 35),
    Lesson("10", "10_agents_vs_workflows", {"en": "Agents vs workflows", "es": "Agentes frente a workflows"}, 20),
    Lesson("11", "11_streaming", {"en": "Streaming the loop", "es": "El bucle en streaming"}, 20),
    Lesson("12", "12_build_your_own_loop", {"en": "Build your own loop", "es": "Construye tu propio bucle"},
           _INTRO_12 + sum(e.minutes for e in EXERCISES)),
    Lesson("13", "13_practice_exam", {"en": "Practice exam", "es": "Examen de práctica"}, 30),
    Lesson("14", "14_agent_sdk_loop", {"en": "The Agent SDK loop", "es": "El bucle del Agent SDK"}, 30),
    Lesson("15", "15_typescript_over_http", {"en": "The loop in TypeScript, over HTTP",
                                             "es": "El bucle en TypeScript, por HTTP"}, 20),
)
"""The course, in order, with suggested workshop minutes per lesson (issue 5's plan)."""

_WORDS = {
    "en": {"lesson": "lesson", "notebook": "notebook", "minutes": "minutes", "total": "total",
           "exercise": "exercise", "hours": "{h} h {m:02d} min", "title": "Suggested workshop timings"},
    "es": {"lesson": "lección", "notebook": "cuaderno", "minutes": "minutos", "total": "total",
           "exercise": "ejercicio", "hours": "{h} h {m:02d} min", "title": "Tiempos sugeridos para un taller"},
}


@dataclass(frozen=True)
class Timings:
    """The suggested timings as a table: ``str()`` gives text, Jupyter shows HTML."""

    lang: str = "en"

    @property
    def total(self) -> int:
        """Minutes for the whole course."""
        return sum(lesson.minutes for lesson in LESSONS)

    def rows(self) -> list[dict[str, Any]]:
        """One dict per lesson: number, notebook, title, minutes (and lesson 12's exercises)."""
        rows = []
        for lesson in LESSONS:
            row: dict[str, Any] = {"number": lesson.number, "notebook": lesson.filename,
                                   "title": lesson.title[self.lang], "minutes": lesson.minutes}
            if lesson.number == "12":
                row["exercises"] = [{"number": e.number, "title": e.title[self.lang], "minutes": e.minutes}
                                    for e in EXERCISES]
            rows.append(row)
        return rows

    def _total_text(self) -> str:
        w = _WORDS[self.lang]
        hours, minutes = divmod(self.total, 60)
        return f"{self.total} {w['minutes']} ({w['hours'].format(h=hours, m=minutes)})"

    def to_text(self) -> str:
        w = _WORDS[self.lang]
        width = max(len(lesson.title[self.lang]) for lesson in LESSONS)
        lines = [f"{w['title']}:"]
        for lesson in LESSONS:
            lines.append(f"  {lesson.number}  {lesson.title[self.lang]:<{width}}  {lesson.minutes:>3} min")
            if lesson.number == "12":
                for e in EXERCISES:
                    lines.append(f"        {w['exercise']} {e.number}: {e.title[self.lang]} ({e.minutes} min)")
        lines.append(f"  {w['total']}: {self._total_text()}")
        return "\n".join(lines)

    def to_markdown(self) -> str:
        """A Markdown table (lesson, minutes) with links to the notebooks."""
        w = _WORDS[self.lang]
        out = [f"| {w['lesson']} | {w['minutes']} |", "| --- | ---: |"]
        for lesson in LESSONS:
            out.append(f"| [{lesson.number} · {lesson.title[self.lang]}]({lesson.filename}) | {lesson.minutes} |")
        out.append(f"| **{w['total']}** | **{self.total}** |")
        return "\n".join(out)

    def __str__(self) -> str:
        return self.to_text()

    def __repr__(self) -> str:
        return self.to_text()

    def _repr_html_(self) -> str:
        w = _WORDS[self.lang]
        esc = html.escape
        rows = []
        for lesson in LESSONS:
            title = esc(lesson.title[self.lang])
            if lesson.number == "12":
                title += "<br>" + "<br>".join(
                    f"&nbsp;&nbsp;{esc(w['exercise'])} {e.number}: {esc(e.title[self.lang])} ({e.minutes} min)"
                    for e in EXERCISES)
            rows.append(f"<tr><td>{lesson.number}</td><td style='text-align:left'><a href='{lesson.filename}'>"
                        f"{esc(lesson.filename)}</a><br>{title}</td><td>{lesson.minutes}</td></tr>")
        return (f"<table><tr><th>#</th><th style='text-align:left'>{esc(w['lesson'])}</th>"
                f"<th>{esc(w['minutes'])}</th></tr>{''.join(rows)}"
                f"<tr><td></td><td style='text-align:left'><b>{esc(w['total'])}</b></td>"
                f"<td><b>{esc(self._total_text())}</b></td></tr></table>")


def timings(lang: str | None = None) -> Timings:
    """The suggested workshop timings (lesson -> minutes), in the learner's language."""
    return Timings(language(lang))


# ----------------------------------------------------------------------------------------------
# The learner copy
# ----------------------------------------------------------------------------------------------


def notebooks_dir() -> Path:
    """The course's ``notebooks/`` folder: the checkout's (next to the package), else ``./notebooks``.

    Raises:
        CourseError: when neither exists (an installed wheel carries no notebooks).
    """
    for candidate in (Path(__file__).resolve().parent.parent / "notebooks", Path.cwd() / "notebooks"):
        if candidate.is_dir() and any(candidate.glob("*.ipynb")):
            return candidate
    raise CourseError("no_checkout")


def _tags(cell: dict[str, Any]) -> list[str]:
    return list(cell.get("metadata", {}).get("tags", []))


def _source(cell: dict[str, Any]) -> str:
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else source


def _strip_cell(source: str, where: dict[str, Any]) -> tuple[str, int]:
    """``source`` with each marked block replaced by the placeholder; and how many blocks."""
    out: list[str] = []
    indent: str | None = None
    blocks = 0
    for number, line in enumerate(source.splitlines(keepends=True), start=1):
        marker = line.strip()
        if marker == BEGIN:
            if indent is not None:
                raise CourseError("nested", **where, line=number)
            indent = line[: len(line) - len(line.lstrip())]
            newline = "\n" if line.endswith("\n") else ""
            out.append(f"{indent}{PLACEHOLDER}{newline}")
            blocks += 1
        elif marker == END:
            if indent is None:
                raise CourseError("end_alone", **where, line=number)
            indent = None
        elif indent is None:
            out.append(line)
    if indent is not None:
        raise CourseError("unclosed", **where)
    text = "".join(out)
    return (text.rstrip("\n") if not source.endswith("\n") else text), blocks


def _clear(cell: dict[str, Any]) -> None:
    if cell.get("cell_type") == "code":
        cell["outputs"] = []
        cell["execution_count"] = None


def strip_solutions(notebook: dict[str, Any], name: str = "notebook") -> tuple[dict[str, Any], int]:
    """The learner version of ``notebook`` (an nbformat dict; not modified) and how many solution
    blocks were replaced.

    Raises:
        CourseError: a ``solution`` cell without markers, markers that do not pair up, or markers
            in a cell that is not tagged ``solution`` (its solution would leak).
    """
    notebook = copy.deepcopy(notebook)
    cells = notebook.get("cells", [])
    blocks = 0
    clear_next = False
    for index, cell in enumerate(cells):
        where = {"name": name, "cell": index}
        source = _source(cell)
        tags = _tags(cell)
        if SOLUTION_TAG in tags:
            if cell.get("cell_type") != "code":
                raise CourseError("not_code", **where)
            stripped, found = _strip_cell(source, where)
            if not found:
                raise CourseError("no_markers", **where)
            cell["source"] = stripped
            blocks += found
            _clear(cell)
            clear_next = True
            continue
        if (BEGIN in source or END in source) and cell.get("cell_type") == "code":
            raise CourseError("untagged", **where)
        if cell.get("cell_type") == "code":
            if clear_next or CHECK_TAG in tags:
                _clear(cell)
            clear_next = False
    return notebook, blocks


@dataclass(frozen=True)
class Written:
    """One file of the learner copy."""

    path: Path
    solutions: int = 0
    """Solution blocks replaced (0: copied as it is)."""


def _empty(folder: Path) -> bool:
    return not folder.exists() or (folder.is_dir() and not any(folder.iterdir()))


def student_copy(dest: str | Path, *, source: str | Path | None = None, force: bool = False) -> list[Written]:
    """Write the learner version of the course into ``dest``: every ``*.ipynb`` of ``source``
    (default: :func:`notebooks_dir`) with its solutions stripped (:func:`strip_solutions`), plus
    ``README.md`` and ``CONVENTIONS.md``.

    Returns:
        What was written, in order.

    Raises:
        CourseError: no notebooks in ``source``; ``dest`` is a file, or a non-empty folder and
            ``force`` is False; broken solution markers (nothing is written then).
    """
    import nbformat

    src = Path(source) if source is not None else notebooks_dir()
    notebooks = sorted(p for p in src.glob("*.ipynb")) if src.is_dir() else []
    if not notebooks:
        raise CourseError("no_notebooks", src=src)
    dest = Path(dest)
    if dest.exists() and not dest.is_dir():
        raise CourseError("not_a_folder", dest=dest)
    if dest.resolve() == src.resolve() or src.resolve() in dest.resolve().parents:
        raise CourseError("same_folder", dest=dest, src=src)
    if not force and not _empty(dest):
        raise CourseError("not_empty", dest=dest)
    prepared = []
    for path in notebooks:  # strip everything first: a broken notebook writes nothing
        notebook = nbformat.read(path, as_version=4)
        learner, blocks = strip_solutions(notebook, path.name)
        prepared.append((path, learner, blocks))
    dest.mkdir(parents=True, exist_ok=True)
    written: list[Written] = []
    for path, learner, blocks in prepared:
        target = dest / path.name
        if blocks:
            nbformat.write(nbformat.from_dict(learner), target)
        else:
            shutil.copyfile(path, target)
        written.append(Written(target, blocks))
    for extra in EXTRA_FILES:
        if (src / extra).is_file():
            shutil.copyfile(src / extra, dest / extra)
            written.append(Written(dest / extra))
    return written


def solution_lines(notebook: dict[str, Any]) -> Iterable[str]:
    """The non-blank lines inside the solution blocks of ``notebook`` (for checks)."""
    for cell in notebook.get("cells", []):
        if SOLUTION_TAG not in _tags(cell):
            continue
        inside = False
        for line in _source(cell).splitlines():
            if line.strip() == BEGIN:
                inside = True
            elif line.strip() == END:
                inside = False
            elif inside and line.strip():
                yield line
