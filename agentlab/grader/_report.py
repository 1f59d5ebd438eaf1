"""Verdicts and the report: per case passed or failed, the diagnosis tag, an explanation with
the fix in the learner's language, rendered as HTML (Jupyter), text and rich (terminal), and
JSON (``to_dict``) for instructors and CI."""

from __future__ import annotations

import html
import re
import sys
import textwrap
from dataclasses import dataclass, field
from typing import Any

from .._i18n import language
from ._detect import FINDINGS, Finding
from ._harness import NOT_RETURNED, CaseRun

__all__ = ["CaseResult", "FailureGroup", "Report", "describe_finding", "failure_groups", "finding_parts"]

WORDS = {
    "en": {"passed": "passed", "failed": "FAILED", "api": "The API answered", "fix": "Fix", "note": "Note",
           "summary": "{ok} of {n} cases passed", "case": "case", "result": "result", "diagnosis": "diagnosis",
           "detail": "explanation and fix", "n_cases": "{n} cases",
           "title": "agentlab grade"},
    "es": {"passed": "superado", "failed": "FALLA", "api": "La API respondió", "fix": "Arreglo", "note": "Nota",
           "summary": "{ok} de {n} casos superados", "case": "caso", "result": "resultado", "diagnosis": "diagnóstico",
           "detail": "explicación y arreglo", "n_cases": "{n} casos",
           "title": "agentlab grade"},
}


def _catalogue_text(tag: str, field_name: str, lang: str) -> str:
    if tag in FINDINGS:
        return FINDINGS[tag].get(field_name, {}).get(lang, "")
    from .. import antipatterns

    return antipatterns.get(tag).text(field_name, lang)


def finding_parts(finding: Finding, lang: str) -> tuple[str, str | None, str, str]:
    """(evidence, API error text or None, what the fault is, fix) of a finding in ``lang``: the
    evidence is about this run; the other two come from the catalogue (or :data:`FINDINGS`, which
    has no explanation: "" then) and are the same for every case the tag fires on."""
    explanation = _catalogue_text(finding.tag, "explanation", lang) if finding.tag not in FINDINGS else ""
    fix = finding.fix[lang] if finding.fix else _catalogue_text(finding.tag, "fix", lang)
    return finding.evidence[lang].rstrip(), finding.api_error, explanation.rstrip(), fix


def describe_finding(finding: Finding, lang: str) -> tuple[str, str]:
    """(explanation, fix) of a finding in ``lang``: the evidence, the API's text, what the fault is."""
    evidence, api_error, explanation, fix = finding_parts(finding, lang)
    parts = [evidence]
    if api_error:
        parts.append(f'{WORDS[lang]["api"]}: "{api_error}"')
    parts.append(explanation)
    return " ".join(p.rstrip() for p in parts if p), fix


_IDS = re.compile(r"\b(srvtoolu|toolu)_[0-9A-Za-z]+")


@dataclass
class FailureGroup:
    """The failed cases of a report that share a diagnosis, with what they share given once."""

    tag: str
    cases: list[str]
    """Case names, in report order."""
    evidence: list[tuple[list[str], str]]
    """Each distinct evidence sentence with the cases it is about."""
    api_errors: list[str]
    """The API's distinct error texts (texts differing only in tool_use ids count as one)."""
    explanation: str
    """What the fault is ("" for the grader's own findings: timeout, loop-raised...)."""
    fix: str


def failure_groups(cases: list[CaseResult], lang: str) -> list[FailureGroup]:
    """The failed cases grouped by diagnosis tag, in order of first appearance."""
    groups: dict[str, FailureGroup] = {}
    seen_api: dict[str, set[str]] = {}
    for case in cases:
        if case.passed or not case.findings:
            continue
        evidence, api_error, explanation, fix = finding_parts(case.findings[0], lang)
        group = groups.get(case.diagnosis)
        if group is None:
            group = groups[case.diagnosis] = FailureGroup(case.diagnosis, [], [], [], explanation, fix)
            seen_api[case.diagnosis] = set()
        group.cases.append(case.name)
        same = next((item for item in group.evidence if item[1] == evidence), None)
        if same is None:
            group.evidence.append(([case.name], evidence))
        else:
            same[0].append(case.name)
        if api_error and _IDS.sub("…", api_error) not in seen_api[case.diagnosis]:
            seen_api[case.diagnosis].add(_IDS.sub("…", api_error))
            group.api_errors.append(api_error)
    return list(groups.values())


def _wrap(text: str, width: int | None, indent: str) -> list[str]:
    if width is None:
        return [indent + text]
    # never split a word: tags, ids and quoted API texts stay whole (a longer word overflows)
    return textwrap.wrap(text, width=max(width, len(indent) + 20), initial_indent=indent, subsequent_indent=indent,
                         break_long_words=False, break_on_hyphens=False) or [indent]


@dataclass
class CaseResult:
    """The verdict on one case."""

    name: str
    description: dict[str, str]
    passed: bool
    findings: list[Finding] = field(default_factory=list)
    note: dict[str, str] | None = None
    steps: int = 0
    stop_reasons: list[str | None] = field(default_factory=list)
    returned: str | None = None
    exception: str | None = None
    lang: str = "en"

    @property
    def diagnosis(self) -> str | None:
        """The tag that best explains the failure (None when the case passed)."""
        return self.findings[0].tag if self.findings else None

    @property
    def diagnoses(self) -> list[str]:
        """Every tag that fired, most specific first."""
        return [f.tag for f in self.findings]

    @property
    def explanation(self) -> str:
        """What went wrong, with the evidence and the fix, in the report's language ("" if passed)."""
        if not self.findings:
            return self.note[self.lang] if self.note else ""
        text, fix = describe_finding(self.findings[0], self.lang)
        return f"{text} {WORDS[self.lang]['fix']}: {fix}"

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form, with explanations in both languages."""
        return {
            "name": self.name, "passed": self.passed, "diagnosis": self.diagnosis, "diagnoses": self.diagnoses,
            "explanation": {lang: (" ".join(describe_finding(self.findings[0], lang)) if self.findings else
                                   (self.note or {}).get(lang, "")) for lang in ("en", "es")},
            "evidence": [{"tag": f.tag, "step": f.step, "api_error": f.api_error, **{f"evidence_{k}": v for k, v in f.evidence.items()}}
                         for f in self.findings],
            "note": self.note, "steps": self.steps, "stop_reasons": self.stop_reasons,
            "returned": self.returned, "exception": self.exception, "description": self.description,
        }


def _short(value: Any, limit: int = 160) -> str:
    text = value if isinstance(value, str) else repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def verdict(run: CaseRun, findings: list[Finding], note: dict[str, str] | None, lang: str) -> CaseResult:
    """Assemble a :class:`CaseResult` from a run and the findings on it."""
    exc = run.exception
    return CaseResult(
        name=run.case.name, description=run.case.description, passed=not findings, findings=findings, note=note,
        steps=len(run.journal.steps), stop_reasons=run.journal.stop_reasons,
        returned=None if run.returned is NOT_RETURNED else _short(run.returned),
        exception=None if exc is None else _short(f"{type(exc).__name__}: {exc}"), lang=lang,
    )


@dataclass
class Report:
    """The result of :func:`agentlab.grade`: one :class:`CaseResult` per case."""

    cases: list[CaseResult]
    lang: str = "en"
    loop_name: str = "agent_loop"

    @property
    def passed(self) -> bool:
        """True when every case passed."""
        return all(c.passed for c in self.cases)

    def __getitem__(self, name: str) -> CaseResult:
        for case in self.cases:
            if case.name == name:
                return case
        raise KeyError(f"no case {name!r} in this report; cases: {', '.join(c.name for c in self.cases)}")

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: ``{"loop", "passed", "passed_count", "total", "cases": [...]}``."""
        return {"loop": self.loop_name, "passed": self.passed, "passed_count": sum(c.passed for c in self.cases),
                "total": len(self.cases), "cases": [c.to_dict() for c in self.cases]}

    def _summary(self) -> str:
        w = WORDS[self.lang]
        return w["summary"].format(ok=sum(c.passed for c in self.cases), n=len(self.cases))

    def _blocks(self, width: int | None) -> list[tuple[str, list[str]]]:
        """The text report as (style, lines) blocks: the case lines, then one block per diagnosis
        (its cases, each distinct evidence, the API's text, the explanation and the fix, each once),
        then the notes. Styles: "title", "case-ok", "case-bad", "group", "body", "notes"."""
        w = WORDS[self.lang]
        name_width = max((len(c.name) for c in self.cases), default=4)
        blocks: list[tuple[str, list[str]]] = [("title", [f"{w['title']} {self.loop_name}: {self._summary()}"])]
        for c in self.cases:
            mark = w["passed"] if c.passed else w["failed"]
            tag = f"  [{c.diagnosis}]" if c.diagnosis else (f"  ({w['note'].lower()})" if c.note else "")
            blocks.append(("case-ok" if c.passed else "case-bad", [f"  {c.name:<{name_width}}  {mark}{tag}"]))
        indent = "      "

        def names(cases: list[str]) -> str:  # a long list is already in the case lines above
            return ", ".join(cases) if len(cases) <= 3 else w["n_cases"].format(n=len(cases))

        for group in failure_groups(self.cases, self.lang):
            blocks.append(("group", _wrap(f"[{group.tag}] {names(group.cases)}", width, "  ")))
            body: list[str] = []
            for cases, evidence in sorted(group.evidence, key=lambda item: -len(item[0])):
                prefix = f"{names(cases)}: " if len(group.evidence) > 1 else ""
                body += _wrap(prefix + evidence, width, indent)
            for api_error in group.api_errors:
                body += _wrap(f'{w["api"]}: "{api_error}"', width, indent)
            if group.explanation:
                body += _wrap(group.explanation, width, indent)
            body += _wrap(f"{w['fix']}: {group.fix}", width, indent)
            blocks.append(("body", body))
        notes = [line for c in self.cases if c.passed and c.note
                 for line in _wrap(f"{w['note']} ({c.name}): {c.note[self.lang]}", width, "  ")]
        if notes:
            blocks.append(("notes", notes))
        return blocks

    def to_text(self, width: int | None = 80) -> str:
        """Plain text: one line per case (``  NAME  FAILED  [tag]``), then each diagnosis once with
        the cases it fired on, its evidence, the API's text, the explanation and the fix, then
        the notes of passed cases.

        Args:
            width: characters per line the paragraphs are wrapped to (default 80; None: no
                wrapping). Words are never split, so a tag or a quoted API text is never cut.
        """
        lines: list[str] = []
        for style, block in self._blocks(width):
            if style in ("title", "group", "notes"):
                lines.append("")
            lines += block
        return "\n".join(lines[1:])

    def __str__(self) -> str:
        return self.to_text()

    def __repr__(self) -> str:
        return f"Report(loop={self.loop_name!r}, passed={self.passed}, {self._summary()})"

    def _repr_html_(self) -> str:
        w = WORDS[self.lang]
        esc = html.escape
        rows = []
        for c in self.cases:
            colour = "#1b5e20" if c.passed else "#b00020"
            mark = w["passed"] if c.passed else w["failed"]
            detail = esc(c.explanation) if not c.passed else (esc(f"{w['note']}: {c.note[self.lang]}") if c.note else "")
            rows.append(
                f"<tr><td style='text-align:left'><code>{esc(c.name)}</code></td>"
                f"<td style='text-align:left;color:{colour}'><b>{esc(mark)}</b></td>"
                f"<td style='text-align:left;white-space:nowrap'><code>{esc(c.diagnosis or '')}</code></td>"
                f"<td style='text-align:left'>{detail}</td></tr>")
        head = (f"<tr><th style='text-align:left'>{w['case']}</th><th style='text-align:left'>{w['result']}</th>"
                f"<th style='text-align:left'>{w['diagnosis']}</th><th style='text-align:left'>{w['detail']}</th></tr>")
        return (f"<div><p><b>{esc(w['title'])} {esc(self.loop_name)}: {esc(self._summary())}</b></p>"
                f"<table style='text-align:left'>{head}{''.join(rows)}</table></div>")

    def print(self, file: Any = None) -> None:
        """Print the report: in a terminal with rich (colours, wrapped to the terminal's width);
        elsewhere (a pipe, a file) as :meth:`to_text` wrapped to ``COLUMNS`` (default 80).

        Args:
            file: where to print (default: ``sys.stdout``).
        """
        from rich.console import Console
        from rich.text import Text

        out = sys.stdout if file is None else file
        console = Console(file=out)
        if not console.is_terminal:
            out.write(self.to_text(console.width) + "\n")
            return
        styles = {"title": "bold", "case-ok": "green", "case-bad": "bold red", "group": "bold", "body": "", "notes": ""}
        for style, block in self._blocks(console.width - 1):
            if style in ("group", "notes"):
                console.print()
            if style == "title":
                console.print(Text(block[0], style="bold green" if self.passed else "bold red"))
                continue
            for line in block:
                console.print(Text(line, style=styles[style]), overflow="ignore", crop=False, soft_wrap=True)


def resolve_lang(lang: str | None) -> str:
    """The report language (argument, setting, environment, English)."""
    return language(lang)
