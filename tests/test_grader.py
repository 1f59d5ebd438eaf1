"""The grader: seed loops pass, robustness (hangs, recursion, swallowed exceptions), reports,
the CLI, and the detectors' evidence."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from agentlab import antipatterns
from agentlab.grader import CASE_NAMES, CASES, grade
from agentlab.grader._detect import DETECTORS, FINDINGS

from .loops.seed_000 import agent_loop as seed_000_loop
from .loops.seed_001 import agente as seed_001_loop

LOOPS = Path(__file__).parent / "loops"


@pytest.fixture(scope="module")
def seed_001_report():
    return grade(seed_001_loop)


def test_seed_001_complete_loop_passes_every_case(seed_001_report):
    assert seed_001_report.passed, str(seed_001_report)
    assert [c.name for c in seed_001_report.cases] == list(CASE_NAMES)
    # its 10-step cap raises before long_task ends: a note, not a failure
    assert seed_001_report["long_task"].note and "10 requests" in seed_001_report["long_task"].note["en"]


def test_seed_000_loop_fails_where_it_lacks_is_error_results_and_a_cap():
    report = grade(seed_000_loop)
    failed = {c.name: c.diagnosis for c in report.cases if not c.passed}
    # seed 000's minimal loop lets a tool's exception escape and has no step cap
    assert failed == {"failing_tool": "tool-error-crashes-loop", "persistent_tool_errors": "tool-error-crashes-loop",
                      "stuck_model": "no-safety-cap"}
    # raising on max_tokens / refusal / the context window is a loud stop, which is accepted
    assert report["refusal"].passed and report["max_tokens_text"].passed and report["context_window"].passed


def test_every_exposed_tag_is_in_the_catalogue_and_has_a_detector():
    # the loop cases expose every loop tag; the agent-sdk tags belong to the SDK consumer cases
    # (tests/test_sdk_grader.py), and together they cover the whole catalogue
    exposed = {tag for case in CASES for tag in case.exposes}
    assert exposed == set(antipatterns.LOOP_TAGS)
    assert set(antipatterns.LOOP_TAGS) | set(antipatterns.SDK_TAGS) == set(antipatterns.TAGS)
    detector_tags = {d.__name__.replace("_", "-") for d in DETECTORS}
    assert set(antipatterns.LOOP_TAGS) <= detector_tags <= set(antipatterns.LOOP_TAGS) | set(FINDINGS)
    assert not set(FINDINGS) & set(antipatterns.TAGS)


def _loop(body):
    """A loop whose body is a callable of the 4 arguments."""
    def agent_loop(client, prompt, tools, run_tool):
        return body(client, prompt, tools, run_tool)
    return agent_loop


def test_a_loop_that_raises_is_reported():
    report = grade(_loop(lambda *a: 1 / 0), only=["end_turn"])
    case = report["end_turn"]
    assert not case.passed and case.diagnosis == "loop-raised" and "ZeroDivisionError" in case.explanation


def test_a_loop_that_returns_a_non_string_is_reported():
    def loop(client, prompt, tools, run_tool):
        return seed_001_loop(client, prompt, tools, run_tool).encode()
    assert grade(loop, only=["end_turn"])["end_turn"].diagnosis == "returned-non-string"


def test_recursion_is_reported_not_fatal():
    def loop(client, prompt, tools, run_tool):
        return loop(client, prompt, tools, run_tool)
    case = grade(loop, only=["end_turn"])["end_turn"]
    assert case.diagnosis == "loop-raised" and "RecursionError" in case.explanation


def test_a_hanging_loop_is_stopped_at_the_time_limit():
    def loop(client, prompt, tools, run_tool):
        while True:
            pass
    start = time.perf_counter()
    case = grade(loop, only=["end_turn"], time_limit=0.3)["end_turn"]
    assert time.perf_counter() - start < 3
    assert case.diagnosis == "timeout"


def test_a_loop_that_swallows_everything_is_abandoned_not_hung():
    def loop(client, prompt, tools, run_tool):
        messages = [{"role": "user", "content": prompt}]
        while True:
            try:
                client.messages.create(model="claude-sonnet-5", max_tokens=100, tools=tools, messages=messages)
            except BaseException:  # noqa: BLE001 - the fault under test
                pass
    start = time.perf_counter()
    case = grade(loop, only=["end_turn"], time_limit=0.5)["end_turn"]
    assert time.perf_counter() - start < 5
    assert case.diagnosis in ("unstoppable", "results-not-appended", "no-safety-cap")
    assert not case.passed


def test_a_loop_that_catches_exception_still_meets_the_runaway_guard():
    def loop(client, prompt, tools, run_tool):
        messages = [{"role": "user", "content": prompt}]
        while True:
            try:
                resp = client.messages.create(model="claude-sonnet-5", max_tokens=100, tools=tools, messages=messages)
                for b in resp.content:
                    if b.type == "tool_use":
                        run_tool(b.name, b.input)  # results never appended
            except Exception:  # noqa: BLE001 - cannot swallow RunawayLoop
                pass
    case = grade(loop, only=["end_turn"])["end_turn"]
    assert case.diagnosis == "results-not-appended" and "no-safety-cap" in case.diagnoses


def test_async_loops_are_graded_with_an_async_client():
    async def agent_loop(client, prompt, tools, run_tool):
        messages = [{"role": "user", "content": prompt}]
        while True:
            resp = await client.messages.create(model="claude-sonnet-5", max_tokens=1024, tools=tools, messages=messages)
            if resp.stop_reason == "end_turn":
                return "".join(b.text for b in resp.content if b.type == "text")
            messages.append({"role": "assistant", "content": resp.content})
            messages.append({"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": b.id, "content": run_tool(b.name, b.input)}
                for b in resp.content if b.type == "tool_use"]})
    assert grade(agent_loop, only=["end_turn", "parallel_tools"]).passed


def test_missing_assistant_turn_quotes_the_api_text_with_its_index():
    def loop(client, prompt, tools, run_tool):
        messages = [{"role": "user", "content": prompt}]
        while True:
            resp = client.messages.create(model="claude-sonnet-5", max_tokens=1024, tools=tools, messages=messages)
            if resp.stop_reason == "end_turn":
                return resp.content[0].text
            messages.append({"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": b.id, "content": run_tool(b.name, b.input)}
                for b in resp.content if b.type == "tool_use"]})
    case = grade(loop, only=["end_turn"], lang="es")["end_turn"]
    assert case.diagnosis == "missing-assistant-turn"
    assert "messages.1.content.0: unexpected `tool_use_id` found in `tool_result` blocks" in case.explanation
    assert "La API respondió" in case.explanation and "Arreglo" in case.explanation


def test_report_renders_as_text_html_and_json(seed_001_report):
    text = str(seed_001_report)
    assert "16 of 16 cases passed" in text
    html = seed_001_report._repr_html_()
    assert "<table" in html and "long_task" in html
    data = json.loads(json.dumps(seed_001_report.to_dict()))
    assert data["passed"] is True and data["total"] == len(CASES)
    assert {c["name"] for c in data["cases"]} == set(CASE_NAMES)


def test_only_and_bad_arguments():
    with pytest.raises(KeyError, match="end_turn"):
        grade(seed_001_loop, only=["nope"])
    with pytest.raises(TypeError, match="agent_loop"):
        grade("not a function")
    with pytest.raises(ValueError, match="speaks"):
        grade(seed_001_loop, only=["end_turn"], lang="fr")
    assert [c.name for c in grade(seed_001_loop, only="refusal").cases] == ["refusal"]


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "agentlab", *args], capture_output=True, text=True, timeout=120)


def test_cli_grades_a_file_in_both_languages():
    ok = _cli("grade", f"{LOOPS / 'seed_001.py'}:agente", "--only", "end_turn,refusal")
    assert ok.returncode == 0, ok.stderr
    assert "2 of 2 cases passed" in ok.stdout
    bad = _cli("grade", str(LOOPS / "seed_000.py"), "--only", "stuck_model", "--lang", "es", "--json")
    assert bad.returncode == 1
    data = json.loads(bad.stdout)
    assert data["cases"][0]["diagnosis"] == "no-safety-cap"
    assert "RunawayLoop" in data["cases"][0]["explanation"]["es"]


def test_cli_load_errors_name_the_file_and_line(tmp_path):
    assert _cli("grade", str(tmp_path / "missing.py")).returncode == 2
    broken = tmp_path / "broken.py"
    broken.write_text("def agent_loop(client, prompt, tools, run_tool):\n    return (\n")
    result = _cli("grade", str(broken))
    assert result.returncode == 2 and f"{broken}:" in result.stderr
    other = tmp_path / "other.py"
    other.write_text("def my_loop(client, prompt, tools, run_tool):\n    return ''\n")
    result = _cli("grade", str(other))
    assert result.returncode == 2 and "my_loop" in result.stderr


def test_a_clearly_labelled_early_stop_is_not_passed_off_as_an_answer():
    def loop(client, prompt, tools, run_tool):
        messages = [{"role": "user", "content": prompt}]
        for _ in range(10):
            resp = client.messages.create(model="claude-sonnet-5", max_tokens=1024, tools=tools, messages=messages)
            if resp.stop_reason == "end_turn":
                return "".join(b.text for b in resp.content if b.type == "text")
            if resp.stop_reason != "tool_use":
                return f"Stopped early: {resp.stop_reason}"  # seed 002's else branch, as a return
            messages.append({"role": "assistant", "content": resp.content})
            results = []
            for b in resp.content:
                if b.type == "tool_use":
                    try:
                        results.append({"type": "tool_result", "tool_use_id": b.id, "content": run_tool(b.name, b.input)})
                    except Exception as exc:  # noqa: BLE001
                        results.append({"type": "tool_result", "tool_use_id": b.id, "content": f"Error: {exc}", "is_error": True})
            messages.append({"role": "user", "content": results})
        return "[incomplete: hit the 10-step safety cap]"
    report = grade(loop, only=["max_tokens_text", "max_tokens_tool_use", "long_task", "refusal"])
    assert report.passed, str(report)


def test_a_tool_error_without_is_error_is_named():
    def loop(client, prompt, tools, run_tool):
        messages = [{"role": "user", "content": prompt}]
        for _ in range(10):
            resp = client.messages.create(model="claude-sonnet-5", max_tokens=1024, tools=tools, messages=messages)
            if resp.stop_reason == "end_turn":
                return "".join(b.text for b in resp.content if b.type == "text")
            messages.append({"role": "assistant", "content": resp.content})
            results = []
            for b in resp.content:
                if b.type == "tool_use":
                    try:
                        out = run_tool(b.name, b.input)
                    except Exception as exc:  # noqa: BLE001
                        out = f"Error: {exc}"  # FAULT: no is_error
                    results.append({"type": "tool_result", "tool_use_id": b.id, "content": out})
            messages.append({"role": "user", "content": results})
        raise RuntimeError("cap")
    case = grade(loop, only=["failing_tool"])["failing_tool"]
    assert case.diagnosis == "missing-is-error" and "is_error" in case.explanation


def test_a_loop_that_never_calls_the_api_does_not_pass_stop_cases():
    def loop(client, prompt, tools, run_tool):
        raise NotImplementedError
    report = grade(loop, only=["refusal", "stuck_model"])
    assert not any(c.passed for c in report.cases)
