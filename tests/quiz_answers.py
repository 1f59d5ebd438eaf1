"""Helpers shared by the quiz front-end tests: a snapshot of the real banks, and the right (or a
wrong) answer to any question as a learner would type it or set it in a widget."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
QUIZZES = ROOT / "quizzes"
LETTERS = "abcdefghijklmnopqrstuvwxyz"


def snapshot_banks(dest: Path) -> Path:
    """Copy the real banks to ``dest`` so a test and the subprocess it starts read the same
    questions even while authors edit ``quizzes/``."""
    dest.mkdir(parents=True, exist_ok=True)
    for f in QUIZZES.glob("*.yaml"):
        shutil.copy(f, dest / f.name)
    return dest


def letter(item: Any, option_id: str) -> str:
    return LETTERS[[o.id for o in item.options].index(option_id)]


def right_order(item: Any) -> list[int]:
    """Display indices of ``item.lines`` in the right order (equal lines taken in turn)."""
    left = list(range(len(item.lines)))
    out = []
    for line in item.question.lines:
        at = next(i for i in left if item.lines[i] == line)
        left.remove(at)
        out.append(at)
    return out


def typed_right(item: Any, folder: Path) -> str:
    """The right answer as typed in the terminal."""
    q = item.question
    if q.type == "order":
        return " ".join(str(i + 1) for i in right_order(item))
    if q.type == "fix_code":
        path = folder / f"{q.id}-fixed.py"
        path.write_text(q.fixed_code, encoding="utf-8")
        return str(path)
    return ",".join(letter(item, o.id) for o in item.options if o.correct)


def typed_wrong(item: Any, folder: Path) -> str:
    """A wrong answer as typed in the terminal."""
    q = item.question
    if q.type == "order":
        return " ".join(str(i) for i in range(1, len(item.lines) + 1))  # the shuffled order is never right
    if q.type == "fix_code":
        path = folder / f"{q.id}-buggy.py"
        path.write_text(q.code, encoding="utf-8")
        return str(path)
    return next(letter(item, o.id) for o in item.options if not o.correct)


def find(bank: Any, qtype: str, *, options: int | None = None, many_lines: bool = False) -> Any:
    """The first question of a type (with that many options / with several bug lines)."""
    for q in bank.questions:
        if q.type != qtype or (options is not None and len(q.options) != options):
            continue
        if many_lines and len(q.bug_lines) < 2:
            continue
        return q
    return None
