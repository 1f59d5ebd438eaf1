"""Verdicts and the report: per case passed or failed, the diagnosis tag, an explanation with
the fix in the learner's language, rendered as HTML (Jupyter), text and rich (terminal), and
JSON (``to_dict``) for instructors and CI."""

from __future__ import annotations

import html
from dataclasses import dataclass, field
from typing import Any

from .._i18n import language
from ._detect import FINDINGS, Finding
from ._harness import NOT_RETURNED, CaseRun

__all__ = ["CaseResult", "Report", "describe_finding"]

WORDS = {
    "en": {"passed": "passed", "failed": "FAILED", "api": "The API answered", "fix": "Fix", "note": "Note",
           "summary": "{ok} of {n} cases passed", "case": "case", "result": "result", "diagnosis": "diagnosis",
           "detail": "explanation and fix",
           "title": "agentlab grade"},
    "es": {"passed": "superado", "failed": "FALLA", "api": "La API respondió", "fix": "Arreglo", "note": "Nota",
           "summary": "{ok} de {n} casos superados", "case": "caso", "result": "resultado", "diagnosis": "diagnóstico",
           "detail": "explicación y arreglo",
           "title": "agentlab grade"},
}


def _catalogue_text(tag: str, field_name: str, lang: str) -> str:
    if tag in FINDINGS:
        return FINDINGS[tag].get(field_name, {}).get(lang, "")
    from .. import antipatterns

    return antipatterns.get(tag).text(field_name, lang)


def describe_finding(finding: Finding, lang: str) -> tuple[str, str]:
    """(explanation, fix) of a finding in ``lang``: the evidence, the API's text, what the fault is."""
    parts = [finding.evidence[lang]]
    if finding.api_error:
        parts.append(f'{WORDS[lang]["api"]}: "{finding.api_error}"')
    if finding.tag not in FINDINGS:
        parts.append(_catalogue_text(finding.tag, "explanation", lang))
    fix = finding.fix[lang] if finding.fix else _catalogue_text(finding.tag, "fix", lang)
    return " ".join(p.rstrip() for p in parts if p), fix


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

    def to_text(self) -> str:
        """Plain text: one line per case, then the explanation of each failure (and notes)."""
        w = WORDS[self.lang]
        width = max((len(c.name) for c in self.cases), default=4)
        lines = [f"{w['title']} {self.loop_name}: {self._summary()}"]
        for c in self.cases:
            mark = w["passed"] if c.passed else w["failed"]
            tag = f"  [{c.diagnosis}]" if c.diagnosis else ""
            lines.append(f"  {c.name:<{width}}  {mark}{tag}")
            if not c.passed:
                lines.append(f"      {c.explanation}")
            elif c.note:
                lines.append(f"      {w['note']}: {c.note[self.lang]}")
        return "\n".join(lines)

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

    def print(self) -> None:
        """Print the report to the terminal with rich (colours, a table)."""
        from rich.console import Console
        from rich.table import Table

        w = WORDS[self.lang]
        console = Console()
        colour = "green" if self.passed else "red"
        console.print(f"[bold]{w['title']} {self.loop_name}[/]: [{colour}]{self._summary()}[/]", soft_wrap=True)
        table = Table(show_lines=True)
        table.add_column(w["case"], no_wrap=True)
        table.add_column(w["result"], no_wrap=True)
        table.add_column(w["diagnosis"])
        table.add_column(w["detail"])
        for c in self.cases:
            mark = f"[green]{w['passed']}[/]" if c.passed else f"[bold red]{w['failed']}[/]"
            detail = c.explanation if not c.passed else (f"{w['note']}: {c.note[self.lang]}" if c.note else "")
            table.add_row(c.name, mark, c.diagnosis or "", detail)
        console.print(table)


def resolve_lang(lang: str | None) -> str:
    """The report language (argument, setting, environment, English)."""
    return language(lang)
