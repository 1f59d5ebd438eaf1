"""The specimen-by-case matrix: what the grader says about every specimen on every case.

``correct_loop`` and seed 001's loop pass every case; each specimen fails with its own tag on the
cases built to expose it and passes the cases its fault does not touch. :data:`MATRIX` is the
grader's full verdict, asserted cell by cell, so a grader change that shifts any verdict fails
here with a readable diff.
"""

from __future__ import annotations

import inspect
import time
from functools import cache
from typing import Union

import pytest

import agentlab
from agentlab.grader import CASE_NAMES, Report
from agentlab.loops.specimens import SPECIMENS, correct_loop
from tests.loops.seed_001 import agente

Cell = Union[None, str, tuple[str, ...]]
"""None: the case passed; a tag: the one diagnosis; a tuple: every diagnosis, most specific first."""

_TOOL_CASES = ("end_turn", "text_and_tool_use", "says_done", "parallel_tools", "failing_tool",
               "persistent_tool_errors", "max_tokens_tool_use", "context_window", "stop_sequence", "long_task",
               "stuck_model", "chained_tools", "thinking")
"""The cases whose model asks for a client tool (every case but pause_turn, max_tokens_text, refusal)."""


def _row(tag: str, cases: tuple[str, ...]) -> dict[str, Cell]:
    return {case: tag for case in cases}


# Every case not listed for a specimen PASSES.
MATRIX: dict[str, dict[str, Cell]] = {
    "text-parsing-termination": {
        # end_turn without "DONE" in the text: it calls again (400, prefill); says_done: stops at "DONE".
        **_row("text-parsing-termination", ("end_turn", "text_and_tool_use", "says_done", "parallel_tools",
                                            "failing_tool", "pause_turn", "max_tokens_tool_use", "long_task",
                                            "chained_tools", "thinking")),
        # it `continue`s on stop_sequence too (no "DONE" in the text): a controlled end gone round again
        "stop_sequence": "unhandled-stop-reason",
    },
    "iteration-cap-as-stop": {
        "long_task": "iteration-cap-as-stop",
        "stuck_model": "iteration-cap-as-stop",
    },
    "has-text-means-done": {
        "text_and_tool_use": "has-text-means-done",
        "says_done": "text-parsing-termination",  # the narration says "DONE": the grader cannot tell the two apart
        "failing_tool": "has-text-means-done",
        "persistent_tool_errors": "has-text-means-done",
        "pause_turn": "ignores-pause-turn",  # the paused turn has narration, so the loop returns there
        "context_window": "has-text-means-done",
    },
    "no-text-means-done": {
        **_row("no-text-means-done", ("end_turn", "parallel_tools", "failing_tool", "persistent_tool_errors",
                                      "max_tokens_tool_use", "context_window", "stop_sequence", "long_task",
                                      "stuck_model", "chained_tools", "thinking")),
    },
    "missing-assistant-turn": _row("missing-assistant-turn", _TOOL_CASES),
    "rebuilt-assistant-turn": {
        **_row("rebuilt-assistant-turn", ("text_and_tool_use", "says_done", "failing_tool", "persistent_tool_errors",
                                          "context_window")),
        "thinking": "strips-thinking",  # it drops the thinking blocks too: the API's own 400 comes first
    },
    "results-not-appended": _row("results-not-appended", _TOOL_CASES),
    "text-before-tool-result": _row("text-before-tool-result", _TOOL_CASES),
    "text-after-tool-result": _row("text-after-tool-result", _TOOL_CASES),
    "missing-tool-result": {"parallel_tools": "missing-tool-result"},
    "split-tool-results": {"parallel_tools": "split-tool-results"},
    "tool-error-crashes-loop": {
        "failing_tool": "tool-error-crashes-loop",
        "persistent_tool_errors": "tool-error-crashes-loop",
    },
    "ignores-pause-turn": {"pause_turn": "ignores-pause-turn"},
    "fabricated-server-tool-result": {"pause_turn": "fabricated-server-tool-result"},
    "ignores-max-tokens": {
        "max_tokens_text": "ignores-max-tokens",
        "max_tokens_tool_use": "ignores-max-tokens",
    },
    "executes-truncated-tool-use": {"max_tokens_tool_use": "executes-truncated-tool-use"},
    "resends-unchanged-request": {
        "max_tokens_text": "resends-unchanged-request",
        "max_tokens_tool_use": "resends-unchanged-request",
    },
    "retries-refusal": {"refusal": "retries-refusal"},
    "unhandled-stop-reason": {"context_window": "unhandled-stop-reason"},
    "unbounded-tool-errors": {"persistent_tool_errors": "unbounded-tool-errors"},
    "no-safety-cap": {"stuck_model": "no-safety-cap"},
    "strips-thinking": {"thinking": "strips-thinking"},
    "hardcoded-tool-sequence": {"chained_tools": "hardcoded-tool-sequence"},
    "forced-tool-choice": _row("forced-tool-choice", CASE_NAMES),  # every request carries the fault
}
"""specimen tag -> {case: the grader's verdict today}; cases not listed pass."""



def _ideal(tag: str, case: str) -> Cell:
    return MATRIX[tag].get(case)


def _cell(result) -> Cell:
    if result.passed:
        return None
    tags = tuple(result.diagnoses)
    return tags[0] if len(tags) == 1 else tags


def _tags(cell: Cell) -> tuple[str, ...]:
    return () if cell is None else (cell,) if isinstance(cell, str) else cell


_TIMES: dict[str, float] = {}


@cache
def _report(name: str) -> Report:
    """Grade one loop once per test session ("correct", "seed_001" or a specimen tag)."""
    loop = {"correct": correct_loop, "seed_001": agente}.get(name) or SPECIMENS[name]
    start = time.perf_counter()
    report = agentlab.grade(loop, lang="en")
    _TIMES[name] = time.perf_counter() - start
    return report


def _actual(tag: str) -> dict[str, Cell]:
    return {result.name: _cell(result) for result in _report(tag).cases}


# ------------------------------------------------------------------------------------ the references


@pytest.mark.parametrize("name", ["correct", "seed_001"])
def test_reference_loops_pass_every_case(name):
    report = _report(name)
    assert [c.name for c in report.cases] == list(CASE_NAMES)
    assert {c.name: c.diagnoses for c in report.cases if not c.passed} == {}
    assert report.passed


def test_correct_loop_passes_without_notes():
    assert {c.name: c.note for c in _report("correct").cases if c.note} == {}


# ------------------------------------------------------------------------------------ the matrix


def test_matrix_covers_every_specimen_and_case():
    assert list(MATRIX) == list(SPECIMENS)
    for tag, row in MATRIX.items():
        assert set(row) <= set(CASE_NAMES), tag


@pytest.mark.parametrize("tag", list(SPECIMENS))
def test_specimen_row(tag):
    """Every case's verdict, exactly (None: passed)."""
    expected = {case: MATRIX[tag].get(case) for case in CASE_NAMES}
    assert _actual(tag) == expected


def test_full_matrix():
    """The whole matrix at once: one diff of every cell that moved."""
    actual = {tag: {case: cell for case, cell in _actual(tag).items() if cell is not None} for tag in SPECIMENS}
    assert actual == MATRIX


@pytest.mark.parametrize("tag", list(SPECIMENS))
def test_specimen_is_diagnosed_with_its_own_tag(tag):
    """Its own tag is among the diagnoses on exactly the cases that should show the fault."""
    should = {case for case in CASE_NAMES if tag in _tags(_ideal(tag, case))}
    assert should, f"{tag}: no case is expected to expose it"
    shows = {r.name for r in _report(tag).cases if tag in r.diagnoses}
    assert shows == should


def _passes_param(tag: str):
    untouched = [case for case in CASE_NAMES if _ideal(tag, case) is None]
    return pytest.param(tag, untouched, id=tag)


@pytest.mark.parametrize(("tag", "untouched"), [_passes_param(tag) for tag in SPECIMENS])
def test_specimen_passes_the_cases_its_fault_does_not_touch(tag, untouched):
    results = {r.name: r for r in _report(tag).cases}
    assert {case: results[case].diagnoses for case in untouched if not results[case].passed} == {}


# ------------------------------------------------------------------------------------ the module


def test_specimens_follow_the_catalogue():
    try:
        from agentlab.antipatterns import LOOP_TAGS
    except ImportError:  # pragma: no cover - the catalogue ships with agentlab
        pytest.fail("agentlab.antipatterns.LOOP_TAGS is missing")
    # one loop specimen per loop tag; the agent-sdk tags have consumer specimens (loops/sdk_specimens.py)
    assert tuple(SPECIMENS) == tuple(LOOP_TAGS)
    assert len(SPECIMENS) == 24


@pytest.mark.parametrize("tag", list(SPECIMENS))
def test_specimen_source(tag):
    fn = SPECIMENS[tag]
    source = inspect.getsource(fn)
    assert fn.__name__ == "specimen_" + tag.replace("-", "_")
    assert f"# FAULT ({tag})" in source
    assert source.count("# FAULT (") == source.count(f"# FAULT ({tag})"), "a specimen marks only its own fault"
    assert 15 <= len(source.splitlines()) <= 40
    doc = inspect.getdoc(fn).splitlines()
    assert len(doc) == 2 and doc[0].startswith("Fault: ") and doc[1].startswith("Fallo: ")
    import agentlab.loops.specimens as module

    assert fn.__name__ in module.__all__


def test_correct_loop_has_no_fault():
    assert "FAULT" not in inspect.getsource(correct_loop)


def test_grading_every_specimen_is_quick():
    for tag in SPECIMENS:
        _report(tag)
    total = sum(_TIMES.get(tag, 0.0) for tag in SPECIMENS)
    assert total < 60, f"grading the specimens took {total:.1f} s"
