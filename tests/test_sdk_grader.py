"""The Agent SDK grader: consumers of ``query()``'s messages, graded on the fake CLI.

``correct_consumer`` and a minimal seed-004-style consumer pass every SDK case; each specimen of
``agentlab.loops.sdk_specimens`` fails with its own tag on the cases built to expose it and passes
the others. :data:`MATRIX` is the grader's full verdict, asserted cell by cell. Also: the dispatch
of ``agentlab.grade``, ``only=``, hangs, determinism, the reports and the CLI.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import re
import subprocess
import sys
import textwrap
import time
from functools import cache
from typing import Union

import pytest

pytest.importorskip("claude_agent_sdk", reason="the agent-sdk extra is part of the README's install")

from claude_agent_sdk import ResultMessage  # noqa: E402

import agentlab  # noqa: E402
from agentlab import antipatterns  # noqa: E402
from agentlab.grader import (  # noqa: E402
    CASE_NAMES,
    SDK_CASE_NAMES,
    SDK_CASES,
    Report,
    get_sdk_case,
    grade,
    is_sdk_consumer,
)
from agentlab.grader._sdk import run_sdk_case  # noqa: E402
from agentlab.loops import sdk_specimens  # noqa: E402
from agentlab.loops.sdk_specimens import (  # noqa: E402
    SDK_SPECIMENS,
    correct_consumer,
    specimen_checks_subtype_only,
)

Cell = Union[None, str, tuple[str, ...]]
"""None: the case passed; a tag: the one diagnosis; a tuple: every diagnosis, most specific first."""

_ERRORS = ("error_max_turns", "error_max_budget_usd", "error_during_execution", "api_error")
_SUCCESSES = ("success", "idle_after_result", "cost_not_reported")

# Every case not listed for a specimen PASSES.
MATRIX: dict[str, dict[str, Cell]] = {
    "error-result-as-success": {case: "error-result-as-success" for case in _ERRORS},
    "breaks-at-result": {case: "breaks-at-result" for case in _SUCCESSES},
    "ignores-none-cost": {"cost_not_reported": "ignores-none-cost"},
}
"""specimen tag -> {case: the grader's verdict today}; cases not listed pass."""

VARIANTS: dict[str, tuple[object, dict[str, Cell]]] = {
    # the is_error nuance: checks the subtype, swallows the SDK's error, so the API error passes as success
    "checks-subtype-only": (specimen_checks_subtype_only, {"api_error": "error-result-as-success"}),
}


async def seed_004_consumer(messages) -> str:
    """Seed 004's "Ponerlo todo junto" reduced to the contract: iterate to the end, keep the result.
    An error result makes the SDK raise at the end of the stream, and that propagates."""
    result = None
    async for message in messages:
        if isinstance(message, ResultMessage):
            result = message
    return result.result


def _cell(result) -> Cell:
    if result.passed:
        return None
    tags = tuple(result.diagnoses)
    return tags[0] if len(tags) == 1 else tags


@cache
def _report(name: str) -> Report:
    """Grade one consumer once per test session ("correct", "seed_004", a specimen tag or a variant)."""
    fn = {"correct": correct_consumer, "seed_004": seed_004_consumer}.get(name)
    if fn is None:
        fn = SDK_SPECIMENS[name] if name in SDK_SPECIMENS else VARIANTS[name][0]
    return grade(fn, lang="en")


def _actual(name: str) -> dict[str, Cell]:
    return {r.name: _cell(r) for r in _report(name).cases}


# ------------------------------------------------------------------------------------ the cases


def test_the_cases_cover_the_agent_sdk_family():
    assert SDK_CASE_NAMES == ("success", "idle_after_result", "error_max_turns", "error_max_budget_usd",
                              "error_during_execution", "api_error", "cost_not_reported")
    exposed = {tag for case in SDK_CASES for tag in case.exposes}
    assert exposed == set(antipatterns.SDK_TAGS)
    assert not set(SDK_CASE_NAMES) & set(CASE_NAMES), "SDK case names never shadow the loop grader's"
    known = set(agentlab.agent_sdk.scenarios())
    for case in SDK_CASES:
        assert case.scenario in known and case.description["en"] and case.description["es"]
        assert (case.expect == "finish") == (case.subtype == "success" and not case.is_error)


@pytest.mark.parametrize("case", SDK_CASES, ids=lambda c: c.name)
def test_each_case_ends_as_declared(case):
    """The run behind each case ends with the declared subtype and is_error (reference 6.2)."""
    run = run_sdk_case(correct_consumer, case)
    result = run.result
    assert (result.subtype, result.is_error) == (case.subtype, case.is_error)
    assert run.ended and not run.unread
    if case.expect == "raise":
        assert type(run.stream_error).__name__ == "ResultError"  # the SDK raises after an error result
    if case.name == "idle_after_result":
        assert type(run.read[-1]).__name__ == "SystemMessage" and run.read[-1].subtype == "session_state_changed"
    if case.name == "error_max_budget_usd":
        assert result.total_cost_usd > case.max_budget_usd  # checked after a call (reference 6.2)
    if case.name == "error_during_execution":
        assert result.total_cost_usd == 0 and result.stop_reason is None  # seed 004, after a crash
    if case.name == "api_error":
        assert result.result.startswith("API Error: 529")
    if case.name == "cost_not_reported":
        assert result.total_cost_usd is None and result.usage is None and result.model_usage is None
    assert run.steps >= 1 and len(run.stop_reasons) == run.steps


# ------------------------------------------------------------------------------------ the references


@pytest.mark.parametrize("name", ["correct", "seed_004"])
def test_reference_consumers_pass_every_case(name):
    report = _report(name)
    assert [c.name for c in report.cases] == list(SDK_CASE_NAMES)
    assert {c.name: c.diagnoses for c in report.cases if not c.passed} == {}
    assert report.passed and not any(c.note for c in report.cases)


# ------------------------------------------------------------------------------------ the matrix


def test_matrix_covers_every_specimen_and_case():
    assert list(MATRIX) == list(SDK_SPECIMENS) == list(antipatterns.SDK_TAGS)
    for row in [*MATRIX.values(), *(v[1] for v in VARIANTS.values())]:
        assert set(row) <= set(SDK_CASE_NAMES)


@pytest.mark.parametrize("tag", list(SDK_SPECIMENS))
def test_specimen_row(tag):
    """Every case's verdict, exactly (None: passed)."""
    assert _actual(tag) == {case: MATRIX[tag].get(case) for case in SDK_CASE_NAMES}


@pytest.mark.parametrize("name", list(VARIANTS))
def test_variant_row(name):
    assert _actual(name) == {case: VARIANTS[name][1].get(case) for case in SDK_CASE_NAMES}


def test_full_matrix():
    """The whole matrix at once: one diff of every cell that moved."""
    actual = {tag: {c: cell for c, cell in _actual(tag).items() if cell is not None} for tag in SDK_SPECIMENS}
    assert actual == MATRIX


@pytest.mark.parametrize("tag", list(SDK_SPECIMENS))
def test_specimen_is_diagnosed_with_its_own_tag_on_the_cases_that_expose_it(tag):
    exposing = {case.name for case in SDK_CASES if tag in case.exposes}
    should = {case for case, cell in MATRIX[tag].items() if cell == tag or (isinstance(cell, tuple) and tag in cell)}
    shows = {r.name for r in _report(tag).cases if tag in r.diagnoses}
    assert exposing <= shows == should


def test_evidence_names_what_happened():
    breaks = _report("breaks-at-result")["idle_after_result"].explanation
    assert "message 17" in breaks and "1 message left unread: SystemMessage(session_state_changed)" in breaks
    swallowed = _report("error-result-as-success")["error_max_turns"].explanation
    assert "subtype 'error_max_turns', is_error True" in swallowed and "It caught the ResultError" in swallowed
    nuance = _report("checks-subtype-only")["api_error"].explanation
    assert "subtype 'success', is_error True" in nuance and "check is_error too" in nuance
    none_cost = _report("ignores-none-cost")["cost_not_reported"].explanation
    assert "total_cost_usd None" in none_cost and "NoneType.__format__" in none_cost


# ------------------------------------------------------------------------------------ the module


@pytest.mark.parametrize("fn", [*SDK_SPECIMENS.values(), specimen_checks_subtype_only], ids=lambda f: f.__name__)
def test_specimen_source(fn):
    tag = next((t for t, f in SDK_SPECIMENS.items() if f is fn), "error-result-as-success")
    source = inspect.getsource(fn)
    assert inspect.iscoroutinefunction(fn) and is_sdk_consumer(fn)
    assert f"# FAULT ({tag})" in source
    assert source.count("# FAULT (") == source.count(f"# FAULT ({tag})"), "a specimen marks only its own fault"
    assert 8 <= len(source.splitlines()) <= 25
    doc = inspect.getdoc(fn).splitlines()
    assert len(doc) == 2 and doc[0].startswith("Fault: ") and doc[1].startswith("Fallo: ")
    assert fn.__name__ in sdk_specimens.__all__
    if fn in SDK_SPECIMENS.values():
        assert fn.__name__ == "specimen_" + tag.replace("-", "_")


def test_correct_consumer_has_no_fault_and_logs_without_printing(capfd):
    assert "FAULT" not in inspect.getsource(correct_consumer)
    assert grade(correct_consumer, only=["success", "cost_not_reported"]).passed  # isolated: nothing printed
    assert capfd.readouterr() == ("", "")
    sdk_specimens.LOG.clear()  # what it logs is seen in this process only when it runs here
    assert grade(correct_consumer, only=["success", "cost_not_reported"], isolate=False).passed
    costs = [line.split(": ")[1] for line in sdk_specimens.LOG]
    assert len(costs) == 2 and re.fullmatch(r"\$0\.\d{4}", costs[0]) and costs[1] == "cost not reported"
    assert capfd.readouterr() == ("", "")


# ------------------------------------------------------------------------------------ dispatch


def test_grade_dispatches_on_the_signature():
    from tests.loops.seed_001 import agente

    async def async_loop(client, prompt, tools, run_tool):
        return ""

    def sync_one(messages):
        return ""

    async def with_default(messages, verbose=False):
        return ""

    async def star(*args):
        return ""

    class Callable:
        async def __call__(self, messages):
            return ""

    assert is_sdk_consumer(correct_consumer) and is_sdk_consumer(with_default) and is_sdk_consumer(Callable())
    assert not is_sdk_consumer(agente) and not is_sdk_consumer(async_loop) and not is_sdk_consumer(sync_one)
    assert not is_sdk_consumer(star) and not is_sdk_consumer("text") and not is_sdk_consumer(print)
    assert [c.name for c in grade(agente, only=["end_turn"]).cases] == ["end_turn"]  # loops: unchanged
    assert [c.name for c in grade(async_loop, only=["end_turn"]).cases] == ["end_turn"]
    # a sync one-parameter function is neither: a consumer without async, named as such
    with pytest.raises(TypeError, match="async def consume"):
        grade(sync_one, only=["end_turn"])


def test_only_selects_sdk_cases_by_name():
    report = grade(correct_consumer, only=["api_error", "success"])
    assert [c.name for c in report.cases] == ["api_error", "success"] and report.passed
    assert [c.name for c in grade(correct_consumer, only="cost_not_reported").cases] == ["cost_not_reported"]
    with pytest.raises(KeyError, match="api_error"):
        grade(correct_consumer, only=["end_turn"])  # a loop case: the message lists the SDK cases
    with pytest.raises(KeyError, match="unknown Agent SDK case 'nope'"):
        get_sdk_case("nope")
    with pytest.raises(ValueError, match="speaks"):
        grade(correct_consumer, only=["success"], lang="fr")


# ------------------------------------------------------------------------------------ odd consumers


def _one(fn, case: str, **kw):
    return grade(fn, only=[case], **kw)[case]


def test_consumers_that_return_early_or_wrongly_are_named():
    async def lazy(messages):
        return "All three tests pass now"

    async def first_text(messages):
        async for message in messages:
            if type(message).__name__ == "AssistantMessage":
                return "".join(getattr(b, "text", "") for b in message.content)

    async def number(messages):
        async for _ in messages:
            pass
        return 3

    async def boom(messages):
        async for _ in messages:
            raise ValueError("boom")

    lazy_case = _one(lazy, "success")
    assert lazy_case.diagnosis == "wrong-answer" and "before the ResultMessage" in lazy_case.explanation
    assert _one(lazy, "api_error").diagnosis == "wrong-answer"
    early = _one(first_text, "success")
    assert early.diagnosis == "wrong-answer" and "after reading 2 messages" in early.explanation
    assert _one(number, "success").diagnosis == "returned-non-string"
    assert _one(number, "api_error").passed  # the SDK's ResultError propagated: a loud stop
    raised = _one(boom, "success")
    assert raised.diagnosis == "loop-raised" and "ValueError: boom" in raised.explanation
    before = _one(boom, "error_max_turns")
    assert before.diagnosis == "loop-raised" and "before the ResultMessage" in before.explanation


def test_raising_its_own_error_at_an_error_result_is_accepted():
    async def strict(messages):
        async for message in messages:
            if type(message).__name__ == "ResultMessage" and (message.subtype != "success" or message.is_error):
                raise RuntimeError(f"stopped: {message.subtype}")
        return "unreachable on error cases"

    report = grade(strict, only=list(_ERRORS))
    assert report.passed, str(report)
    assert "RuntimeError: stopped: error_max_turns" in report["error_max_turns"].exception


# ------------------------------------------------------------------------------------ hangs


def test_a_consumer_that_waits_forever_is_cancelled_at_the_time_limit():
    async def waits(messages):
        await asyncio.Event().wait()

    start = time.perf_counter()
    case = _one(waits, "success", time_limit=0.3)
    assert time.perf_counter() - start < 3
    assert case.diagnosis == "timeout" and "0.3 s" in case.explanation and "Iterate the messages" in case.explanation


def test_a_spinning_consumer_is_interrupted():
    async def spins(messages):
        async for _ in messages:
            while True:
                pass

    start = time.perf_counter()
    case = _one(spins, "api_error", time_limit=0.3)
    assert time.perf_counter() - start < 5
    assert case.diagnosis == "timeout" and not case.passed


def test_a_consumer_that_swallows_cancellation_is_abandoned_not_hung():
    async def stubborn(messages):
        while True:
            try:
                await asyncio.sleep(0.05)
            except asyncio.CancelledError:  # noqa: PERF203 - the fault under test
                pass

    start = time.perf_counter()
    case = _one(stubborn, "success", time_limit=0.3)
    assert time.perf_counter() - start < 5
    assert case.diagnosis == "unstoppable"


# ------------------------------------------------------------------------------------ reports


def test_report_renders_as_text_html_and_json_in_both_languages():
    report = _report("breaks-at-result")
    text = str(report)
    assert text.startswith("agentlab grade specimen_breaks_at_result: 4 of 7 cases passed")
    assert "  idle_after_result       FAILED  [breaks-at-result]" in text
    html = report._repr_html_()
    assert "<table" in html and "breaks-at-result" in html
    data = json.loads(json.dumps(report.to_dict()))
    assert data["loop"] == "specimen_breaks_at_result" and data["total"] == 7 and data["passed_count"] == 4
    cell = next(c for c in data["cases"] if c["name"] == "idle_after_result")
    assert cell["diagnosis"] == "breaks-at-result" and cell["steps"] == 4 and cell["stop_reasons"][-1] == "end_turn"
    assert "sin leer: SystemMessage(session_state_changed)" in cell["explanation"]["es"]
    assert "Romper" not in cell["explanation"]["en"]
    es = grade(SDK_SPECIMENS["ignores-none-cost"], only=["cost_not_reported"], lang="es")
    assert "Comprueba None antes de leerlos" in es["cost_not_reported"].explanation
    assert "1 de 1 casos superados" not in str(es) and "0 de 1 casos superados" in str(es)


def test_grading_is_deterministic_and_prints_nothing(capfd):
    first = grade(SDK_SPECIMENS["error-result-as-success"]).to_dict()
    second = grade(SDK_SPECIMENS["error-result-as-success"]).to_dict()
    assert first == second
    assert capfd.readouterr() == ("", "")


# ------------------------------------------------------------------------------------ the CLI


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "agentlab", *args], capture_output=True, text=True, timeout=120)


def test_cli_grades_a_consumer_file(tmp_path):
    path = tmp_path / "consumer.py"
    path.write_text(textwrap.dedent("""\
        from claude_agent_sdk import ResultMessage


        async def consume(messages):
            async for message in messages:
                if isinstance(message, ResultMessage):
                    return message.result  # breaks at the result, and never checks the subtype


        async def good(messages):
            result = None
            async for message in messages:
                if isinstance(message, ResultMessage):
                    result = message
            if result.subtype != "success" or result.is_error:
                raise RuntimeError(result.subtype)
            return result.result
        """), encoding="utf-8")
    bad = _cli("grade", f"{path}:consume", "--json", "--only", "idle_after_result,api_error")
    assert bad.returncode == 1, bad.stderr
    data = json.loads(bad.stdout)
    assert [(c["name"], c["diagnosis"]) for c in data["cases"]] == [
        ("idle_after_result", "breaks-at-result"), ("api_error", "error-result-as-success")]
    good = _cli("grade", f"{path}:good", "--lang", "es")
    assert good.returncode == 0, good.stderr
    assert "7 de 7 casos superados" in good.stdout


def test_cli_finds_consume_by_default_and_explains_a_consumer_without_async(tmp_path):
    path = tmp_path / "mine.py"
    path.write_text("async def consume(messages):\n    async for message in messages:\n        pass\n    return 'x'\n",
                    encoding="utf-8")
    found = _cli("grade", str(path), "--json", "--only", "success")
    assert found.returncode == 1 and json.loads(found.stdout)["cases"][0]["name"] == "success", found.stderr
    sync = tmp_path / "sync.py"
    sync.write_text("def consume(messages):\n    return 'x'\n", encoding="utf-8")
    done = _cli("grade", str(sync))
    assert done.returncode == 2 and done.stdout == ""
    assert "an Agent SDK consumer must be `async def consume(messages) -> str`" in done.stderr


def test_grade_rejects_a_one_parameter_function_that_is_not_async():
    def consume(messages):
        return "x"

    with pytest.raises(TypeError, match=r"must be `async def consume\(messages\) -> str`"):
        agentlab.grade(consume)
