"""The outputs of class grading (``agentlab grade DIR``): the class table (text, rich, HTML with a
chart of the most common diagnoses), the CSV gradebook, one Markdown feedback file per learner in
the learner's language, Gradescope's ``results.json``, and JSON.

Every output is a pure function of the graded submissions: the same class gives the same bytes
(no times, no dates).

Las salidas de evaluar una clase: la tabla, el libro de notas CSV, una devolución por alumno en
su idioma, el ``results.json`` de Gradescope y JSON.
"""

from __future__ import annotations

import csv
import html
import io
import json
import re
import textwrap
from collections import Counter
from pathlib import Path
from typing import Any, Sequence

from ._class import Graded
from ._report import WORDS, failure_groups

__all__ = ["CSV_COLUMNS", "ClassReport", "feedback_markdown", "feedback_name", "gradescope_results"]

CSV_COLUMNS = ("learner", "submission", "lang", "passed", "cases_passed", "cases_total", "tags", "load_error")
"""The gradebook's columns: ``passed`` is ``true``/``false``, ``tags`` the diagnoses joined with
``;``, ``load_error`` why the submission could not be loaded or graded (empty when it was)."""

TEXT = {
    "en": {
        "title": "agentlab grade: {n} submissions, {passed} passed, {failed} failed, {broken} not graded",
        "learner": "learner", "result": "result", "cases": "cases", "diagnoses": "diagnoses",
        "passed": "passed", "failed": "FAILED", "broken": "NOT GRADED",
        "chart": "Most common diagnoses (learners with each, of {n} graded)",
        "none": "No diagnosis: every graded submission passed.",
        "fb_title": "agentlab grade: {learner}", "fb_file": "Submission: `{path}`",
        "fb_broken": "Your submission could not be graded:", "fb_summary": "**{ok} of {n} cases passed.**",
        "fb_all": "Every case passed: well done.", "fb_cases": "Cases: {cases}",
        "fb_notes": "Notes", "fb_output": "What your code printed (the end)",
        "gs_broken": "Not graded: {reason}", "html_title": "agentlab: class report",
    },
    "es": {
        "title": "agentlab grade: {n} entregas, {passed} superadas, {failed} con fallos, {broken} sin evaluar",
        "learner": "alumno", "result": "resultado", "cases": "casos", "diagnoses": "diagnósticos",
        "passed": "superado", "failed": "FALLA", "broken": "SIN EVALUAR",
        "chart": "Diagnósticos más frecuentes (alumnos con cada uno, de {n} evaluados)",
        "none": "Ningún diagnóstico: todas las entregas evaluadas superan los casos.",
        "fb_title": "agentlab grade: {learner}", "fb_file": "Entrega: `{path}`",
        "fb_broken": "Tu entrega no se pudo evaluar:", "fb_summary": "**{ok} de {n} casos superados.**",
        "fb_all": "Todos los casos superados: buen trabajo.", "fb_cases": "Casos: {cases}",
        "fb_notes": "Notas", "fb_output": "Lo que imprimió tu código (el final)",
        "gs_broken": "Sin evaluar: {reason}", "html_title": "agentlab: informe de la clase",
    },
}


def _wrap(text: str, width: int | None, indent: str) -> list[str]:
    if width is None:
        return [indent + text]
    return textwrap.wrap(text, width=max(width, len(indent) + 20), initial_indent=indent, subsequent_indent=indent,
                         break_long_words=False, break_on_hyphens=False) or [indent]


_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
"""What a spreadsheet may read as the start of a formula (OWASP, "CSV Injection")."""


def _csv_cell(text: str) -> str:
    """``text`` made safe for a spreadsheet: a cell starting with ``= + - @``, a tab or a carriage
    return gets a leading ``'`` (OWASP's advice for CSV injection), so a learner's file named
    ``=HYPERLINK(...).py`` is shown, never evaluated. Other text is returned unchanged."""
    return "'" + text if text.startswith(_FORMULA_START) else text


def _cases(g: Graded) -> str:
    return f"{g.cases_passed}/{len(g.report.cases)}" if g.report else "-"


class ClassReport:
    """The graded class, rendered.

    Args:
        graded: from :func:`agentlab.grader._class.grade_class`.
        lang: the instructor's language for the table, the HTML and the CSV's error texts
            (each learner's feedback and Gradescope results use the learner's).
    """

    def __init__(self, graded: Sequence[Graded], lang: str = "en") -> None:
        self.graded = list(graded)
        self.lang = lang

    @property
    def passed(self) -> bool:
        """True when every submission loaded and passed every case (and there is at least one)."""
        return bool(self.graded) and all(g.passed for g in self.graded)

    def diagnosis_counts(self) -> list[tuple[str, int]]:
        """(tag, learners whose report has it), most common first, then by tag."""
        counts = Counter(tag for g in self.graded for tag in g.tags)
        return sorted(counts.items(), key=lambda item: (-item[1], item[0]))

    def _title(self) -> str:
        t = TEXT[self.lang]
        return t["title"].format(n=len(self.graded), passed=sum(g.passed for g in self.graded),
                                 failed=sum(g.loaded and not g.passed for g in self.graded),
                                 broken=sum(not g.loaded for g in self.graded))

    def _result(self, g: Graded) -> str:
        t = TEXT[self.lang]
        return t["passed"] if g.passed else (t["failed"] if g.loaded else t["broken"])

    # ---------------------------------------------------------------------------------- text

    def to_text(self, width: int | None = 80, bar: str = "#") -> str:
        """The class table: one line per learner (result, cases passed, diagnoses; wrapped, tags
        never cut), the reason under each submission that was not graded, then the chart of the
        most common diagnoses drawn with ``bar``."""
        t = TEXT[self.lang]
        name_w = min(max([len(t["learner"])] + [len(g.learner) for g in self.graded]), 24)
        result_w = max(len(t[k]) for k in ("passed", "failed", "broken", "result"))
        cases_w = max([len(t["cases"])] + [len(_cases(g)) for g in self.graded])
        lines = [self._title(), ""]
        head = f"  {t['learner']:<{name_w}}  {t['result']:<{result_w}}  {t['cases']:>{cases_w}}  "
        lines.append(head + t["diagnoses"])
        tag_indent = " " * len(head) if width is None or width - len(head) >= 30 else " " * 6
        for g in self.graded:
            first = f"  {g.learner:<{name_w}}  {self._result(g):<{result_w}}  {_cases(g):>{cases_w}}"
            if len(g.learner) > name_w:  # a long id keeps its own line
                lines.append(f"  {g.learner}")
                first = f"  {'':<{name_w}}  {self._result(g):<{result_w}}  {_cases(g):>{cases_w}}"
            tags = ", ".join(g.tags)
            if tags and len(tag_indent) == len(head):
                wrapped = _wrap(tags, width, tag_indent)
                lines.append(first + "  " + wrapped[0].strip())
                lines += wrapped[1:]
            else:
                lines.append(first)
                if tags:
                    lines += _wrap(tags, width, tag_indent)
            if g.error:
                lines += _wrap(g.error[self.lang], width, "      ")
        lines.append("")
        counts = self.diagnosis_counts()
        graded = sum(g.loaded for g in self.graded)
        if not counts:
            lines.append(t["none"])
            return "\n".join(lines)
        lines.append(t["chart"].format(n=graded))
        tag_w = max(len(tag) for tag, _ in counts)
        room = max(10, (width or 80) - tag_w - 12)
        for tag, n in counts:  # a full bar: every graded learner has it
            lines.append(f"  {tag:<{tag_w}}  {bar * max(1, round(n / graded * room)):<{room}}  {n}")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.to_text()

    def print(self, file: Any = None) -> None:
        """Print the class table: with colours in a terminal, else plain text wrapped to ``COLUMNS`` (80)."""
        import sys

        from rich.console import Console
        from rich.text import Text

        out = sys.stdout if file is None else file
        console = Console(file=out)
        if not console.is_terminal:
            out.write(self.to_text(console.width) + "\n")
            return
        t = TEXT[self.lang]
        for line in self.to_text(console.width - 1, bar="█").split("\n"):
            text = Text(line)
            for word, style in ((t["passed"], "green"), (t["failed"], "bold red"), (t["broken"], "bold red")):
                for match in re.finditer(rf"(?<=\s){re.escape(word)}(?=\s|$)", line):
                    text.stylize(style, match.start(), match.end())
            console.print(text, overflow="ignore", crop=False, soft_wrap=True)

    # ---------------------------------------------------------------------------------- HTML

    def to_html(self) -> str:
        """A standalone HTML page: the table, a bar chart of the most common diagnoses (HTML and
        CSS only, no script), and each learner's explanations in a ``<details>``."""
        t = TEXT[self.lang]
        w = WORDS[self.lang]
        esc = html.escape
        counts = self.diagnosis_counts()
        graded = sum(g.loaded for g in self.graded)
        bars = "".join(
            f"<div class='row'><code class='tag'>{esc(tag)}</code><span class='track'>"
            f"<span class='bar' style='width:{n / graded * 100:.1f}%'></span></span><span class='n'>{n}</span></div>"
            for tag, n in counts) or f"<p>{esc(t['none'])}</p>"
        rows = []
        for g in self.graded:
            cls = "ok" if g.passed else "bad"
            detail = ""
            if g.error:
                detail = f"<p>{esc(g.error[self.lang])}</p>"
            elif g.report and not g.report.passed:
                parts = []
                for group in failure_groups(g.report.cases, self.lang):
                    evidence = "".join(f"<li>{esc(', '.join(names))}: {esc(text)}</li>" for names, text in group.evidence)
                    api = "".join(f"<blockquote>{esc(w['api'])}: “{esc(a)}”</blockquote>" for a in group.api_errors)
                    parts.append(f"<h4><code>{esc(group.tag)}</code></h4><ul>{evidence}</ul>{api}"
                                 f"<p>{esc(group.explanation)}</p><p><b>{esc(w['fix'])}:</b> {esc(group.fix)}</p>")
                detail = f"<details><summary>{esc(t['diagnoses'])}</summary>{''.join(parts)}</details>"
            tags = " ".join(f"<code>{esc(tag)}</code>" for tag in g.tags)
            rows.append(f"<tr class='{cls}'><td>{esc(g.learner)}</td><td class='result'>{esc(self._result(g))}</td>"
                        f"<td class='num'>{esc(_cases(g))}</td><td>{tags}{detail}</td></tr>")
        style = ("body{font-family:system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#222}"
                 "table{border-collapse:collapse;width:100%}th,td{text-align:left;padding:.3rem .5rem;"
                 "border-bottom:1px solid #ddd;vertical-align:top}td.num{text-align:right;white-space:nowrap}"
                 "tr.ok td.result{color:#1b5e20}tr.bad td.result{color:#b00020;font-weight:bold}"
                 "code{white-space:nowrap}.row{display:flex;align-items:center;gap:.5rem;margin:.2rem 0}"
                 ".tag{flex:0 0 18rem}.track{flex:1;background:#eee;height:1rem}.bar{display:block;height:100%;"
                 "background:#b00020}.n{flex:0 0 3rem;text-align:right}blockquote{color:#555;margin:.3rem 1rem}")
        return (f"<!DOCTYPE html>\n<html lang='{self.lang}'><head><meta charset='utf-8'><title>{esc(t['html_title'])}"
                f"</title><style>{style}</style></head><body><h1>{esc(t['html_title'])}</h1><p>{esc(self._title())}</p>"
                f"<h2>{esc(t['chart'].format(n=graded))}</h2><div class='chart'>{bars}</div>"
                f"<table><thead><tr><th>{esc(t['learner'])}</th><th>{esc(t['result'])}</th><th>{esc(t['cases'])}</th>"
                f"<th>{esc(t['diagnoses'])}</th></tr></thead><tbody>{''.join(rows)}</tbody></table></body></html>\n")

    # ---------------------------------------------------------------------------------- CSV, JSON

    def to_csv(self) -> str:
        """The gradebook: a header row of :data:`CSV_COLUMNS`, then one row per submission."""
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        writer.writerow(CSV_COLUMNS)
        for g in self.graded:
            writer.writerow([_csv_cell(g.learner), _csv_cell(g.submission.name), _csv_cell(g.lang),
                             "true" if g.passed else "false", g.cases_passed,
                             len(g.report.cases) if g.report else "", _csv_cell(";".join(g.tags)),
                             _csv_cell(g.error[self.lang] if g.error else "")])
        return buffer.getvalue()

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: ``{"passed", "submissions": [{learner, submission, lang, passed, cases_passed,
        cases_total, tags, load_error, report}]}``, ``report`` being ``Report.to_dict()`` or None."""
        return {"passed": self.passed, "submissions": [
            {"learner": g.learner, "submission": g.submission.name, "lang": g.lang, "passed": g.passed,
             "cases_passed": g.cases_passed, "cases_total": len(g.report.cases) if g.report else None,
             "tags": g.tags, "load_error": g.error, "report": g.report.to_dict() if g.report else None}
            for g in self.graded]}

    # ---------------------------------------------------------------------------------- files

    def write_feedback(self, folder: str | Path) -> list[Path]:
        """One ``<learner>.md`` per submission in ``folder`` (created), each in the learner's language."""
        folder = Path(folder)
        folder.mkdir(parents=True, exist_ok=True)
        written = []
        for g in self.graded:
            path = folder / feedback_name(g)
            path.write_text(feedback_markdown(g), encoding="utf-8")
            written.append(path)
        return written

    def write_gradescope(self, path: str | Path, case_names: Sequence[str]) -> list[Path]:
        """Gradescope's ``results.json`` (:func:`gradescope_results`): with one submission, to
        ``path`` (``path/results.json`` when ``path`` is a folder); with several, one
        ``<learner>.json`` per submission in the folder ``path``.

        Returns:
            The files written."""
        path = Path(path)
        if len(self.graded) == 1:
            path = path / "results.json" if path.is_dir() else path
            path.parent.mkdir(parents=True, exist_ok=True)
            targets = [(self.graded[0], path)]
        else:
            path.mkdir(parents=True, exist_ok=True)
            targets = [(g, path / feedback_name(g, ".json")) for g in self.graded]
        for g, target in targets:
            target.write_text(json.dumps(gradescope_results(g, case_names), indent=2, ensure_ascii=False) + "\n",
                              encoding="utf-8")
        return [target for _, target in targets]


def feedback_name(g: Graded, suffix: str = ".md") -> str:
    """The learner's file name: the id with characters other than letters, digits, ``._-`` as ``_``."""
    return re.sub(r"[^\w.-]", "_", g.learner) + suffix


_MD_SPECIAL = re.compile(r"([\\`*_\[\]<>|&~#!])")


def _md(text: str) -> str:
    """``text`` (which may hold what a learner's code raised or returned, or their file's name) as
    one line of literal Markdown: line breaks become spaces and Markdown's punctuation is
    backslash-escaped (CommonMark, "Backslash escapes"), so ``# heading``, ``<b>``, ``|`` or a
    link in an exception message are shown as typed, never rendered."""
    return _MD_SPECIAL.sub(r"\\\1", " ".join(str(text).split()))


def _code(text: str) -> str:
    """``text`` on one line as a Markdown code span, fenced by more backticks than it holds."""
    text = " ".join(str(text).split())
    fence = "`" * (max((len(run) for run in re.findall(r"`+", text)), default=0) + 1)
    return f"{fence} {text} {fence}" if fence != "`" or text.startswith("`") or text.endswith("`") else f"`{text}`"


def feedback_markdown(g: Graded) -> str:
    """The learner's feedback in their language: the summary, a table of cases, then each diagnosis
    once (the cases it fired on, the evidence, the API's text, what the fault is, the fix), notes,
    and the end of what their code printed."""
    t = TEXT[g.lang]
    w = WORDS[g.lang]
    out = [f"# {t['fb_title'].format(learner=_md(g.learner))}", "",
           t["fb_file"].replace("`{path}`", "{path}").format(path=_code(g.submission.name)), ""]
    if g.report is None:
        out += [t["fb_broken"], "", f"> {_md((g.error or {}).get(g.lang, ''))}", ""]
    else:
        report = g.report
        out += [t["fb_summary"].format(ok=g.cases_passed, n=len(report.cases)), ""]
        out += [f"| {w['case']} | {w['result']} | {w['diagnosis']} |", "| --- | --- | --- |"]
        out += [f"| `{c.name}` | {w['passed'] if c.passed else w['failed']} | "
                f"{f'`{c.diagnosis}`' if c.diagnosis else ''} |" for c in report.cases]
        out.append("")
        groups = failure_groups(report.cases, g.lang)
        if not groups:
            out += [t["fb_all"], ""]
        for group in groups:
            out += [f"## `{group.tag}`", "", t["fb_cases"].format(cases=", ".join(f"`{c}`" for c in group.cases)), ""]
            for names, evidence in group.evidence:
                prefix = f"{', '.join(names)}: " if len(group.evidence) > 1 else ""
                out.append(f"- {prefix}{_md(evidence)}")
            out.append("")
            for api_error in group.api_errors:
                out += [f"> {w['api']}: \"{_md(api_error)}\"", ""]
            if group.explanation:
                out += [group.explanation, ""]
            out += [f"**{w['fix']}:** {group.fix}", ""]
        notes = [(c.name, c.note[g.lang]) for c in report.cases if c.passed and c.note]
        if notes:
            out += [f"## {t['fb_notes']}", ""] + [f"- `{name}`: {_md(note)}" for name, note in notes] + [""]
    if g.output.strip():
        out += [f"## {t['fb_output']}", "", "```text", g.output.rstrip().replace("```", "'''"), "```", ""]
    return "\n".join(out)


def gradescope_results(g: Graded, case_names: Sequence[str]) -> dict[str, Any]:
    """One submission in the Gradescope autograder ``results.json`` shape
    (gradescope-autograders.readthedocs.io/en/latest/specs/, "Output format"): ``score`` (cases
    passed, one point each), ``output`` (the summary, or why it was not graded, and what the code
    printed), ``tests``: one per case with ``name``, ``score``, ``max_score`` (1), ``status``
    (``passed``/``failed``) and ``output`` (the explanation and fix, in the learner's language).
    A submission that was not graded has every case of ``case_names`` at 0 (so its maximum is
    the class's). ``extra_data`` (free-form in the spec) holds ``max_score``, the learner id and the tags."""
    t = TEXT[g.lang]
    w = WORDS[g.lang]
    if g.report is None:
        reason = (g.error or {}).get(g.lang, "")
        tests = [{"name": name, "score": 0.0, "max_score": 1.0, "status": "failed",
                  "output": t["gs_broken"].format(reason=reason)} for name in case_names]
        output = t["gs_broken"].format(reason=reason)
    else:
        tests = []
        for c in g.report.cases:
            text = c.explanation if not c.passed else (f"{w['note']}: {c.note[g.lang]}" if c.note else "")
            if c.diagnosis:
                text = f"[{c.diagnosis}] {text}"
            tests.append({"name": c.name, "score": 1.0 if c.passed else 0.0, "max_score": 1.0,
                          "status": "passed" if c.passed else "failed", "output": text})
        output = g.report._summary()
    if g.output.strip():
        output += f"\n\n{t['fb_output']}:\n{g.output.rstrip()}"
    # No top-level "max_score" in the spec: Gradescope takes the maximum from the assignment's
    # settings; the total is kept in "extra_data", which the spec leaves to the autograder.
    return {"score": sum(test["score"] for test in tests), "output": output, "tests": tests,
            "extra_data": {"max_score": float(len(tests)), "learner": g.learner, "tags": g.tags}}
