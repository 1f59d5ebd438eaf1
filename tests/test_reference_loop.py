"""The reference loop (agentlab.loops.reference) on every built-in scenario of the fake.

Nothing here sleeps: the time guardrail runs on a fake clock, and concurrency is proven with a
barrier that only opens when every tool call of a turn is running at once.
"""

from __future__ import annotations

import asyncio
import threading
import typing
from dataclasses import dataclass
from typing import Any

import anthropic
import pytest

import agentlab
from agentlab.fake import Scenario, tool_use
from agentlab.fake._catalogue import get_scenario, request_params
from agentlab.loops import (
    STEP_FOR_STOP_REASON,
    Guardrails,
    LoopError,
    LoopStopped,
    RunResult,
    Step,
    StoppedBecause,
    aagent_loop,
    agent_loop,
    arun_agent,
    run_agent,
)
from agentlab.loops import reference

# ----------------------------------------------------------------------------------------------
# What each built-in scenario is built for, with the reference loop's defaults and with the
# request parameters its lessons send (agentlab.fake._catalogue.request_params).
# ----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Expect:
    because: StoppedBecause
    """stopped_because with run_agent's defaults (what agent_loop sees)."""
    steps: int
    """Requests made with the defaults."""
    because_with_params: StoppedBecause | None = None
    """When the lesson's request parameters change the outcome (None: same as ``because``)."""
    steps_with_params: int | None = None


EXPECTED: dict[str, Expect] = {
    "weather": Expect("end_turn", 2),
    "docs_search": Expect("end_turn", 2),
    "parallel_tools": Expect("end_turn", 2),
    "text_and_tool_use": Expect("end_turn", 2),
    "failing_tool": Expect("end_turn", 3),
    "pause_turn": Expect("end_turn", 2),
    "refusal": Expect("refusal", 1),
    "max_tokens_text": Expect("max_tokens", 1),
    "max_tokens_tool_use": Expect("end_turn", 4),  # 1024 cut, 2048 cut, 4096 tool_use, end_turn
    "stop_sequence": Expect("end_turn", 1, because_with_params="stop_sequence"),
    "context_window": Expect("context_window", 4),
    "thinking": Expect("end_turn", 2),
    "long_task": Expect("end_turn", 13),
    "stuck_model": Expect("guardrail:steps", 25),
    "chained_tools": Expect("end_turn", 3),
    "overloaded": Expect("end_turn", 2),
    "stream_error": Expect("end_turn", 2),  # the fault only breaks streamed replies
    "says_done": Expect("end_turn", 2),
    "persistent_tool_errors": Expect("guardrail:tool_errors", 3),
    "generic": Expect("end_turn", 2),
}

SCENARIOS = agentlab.scenarios()


def expect(name: str) -> Expect:
    if name not in EXPECTED:
        pytest.fail(f"scenario {name!r} has no expected outcome in tests/test_reference_loop.py EXPECTED: "
                    "say what the reference loop should do on it")
    return EXPECTED[name]


def params_for(name: str) -> dict[str, Any]:
    """run_agent keyword arguments from the scenario's lesson parameters (tools go positionally)."""
    params = request_params(get_scenario(name))
    params.pop("tools", None)
    return params


def run(name: str, *, lesson_params: bool = False, **kwargs: Any) -> tuple[RunResult, Any]:
    scenario = get_scenario(name)
    client = agentlab.fake_client(name)
    params = params_for(name) if lesson_params else {}
    params.update(kwargs)
    result = run_agent(client, scenario.prompt, list(scenario.tools), scenario.run_tool, **params)
    return result, agentlab.journal(client)


def _no_nulls(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _no_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_no_nulls(v) for v in value]
    return value


def assert_well_formed(journal: Any) -> None:
    """Every request is the previous one plus exactly what the step table says to add:
    nothing (a max_tokens retry, with a larger max_tokens), the assistant turn verbatim
    (pause_turn), or the assistant turn verbatim plus ONE user message of tool_result blocks,
    one per tool_use, in order, and nothing else (tool_use)."""
    steps = [e for e in journal.steps if e.ok]
    for before, after in zip(steps, steps[1:]):
        sent_before, sent_after = before.messages, after.messages
        assert sent_after[: len(sent_before)] == sent_before, f"step {after.step} rewrote the history"
        added = sent_after[len(sent_before):]
        reason = before.stop_reason
        if reason == "max_tokens":
            assert added == [], "a turn cut at max_tokens must not be sent back"
            assert after.request["max_tokens"] > before.request["max_tokens"], "the retry must have a larger max_tokens"
            continue
        assert added, f"step {after.step} re-sent step {before.step}'s request unchanged"
        assert added[0]["role"] == "assistant"
        assert _no_nulls(added[0]["content"]) == _no_nulls(before.content), "the assistant turn must be verbatim"
        if reason == "pause_turn":
            assert len(added) == 1, "pause_turn: no user message after the assistant turn"
            continue
        assert reason == "tool_use"
        assert len(added) == 2 and added[1]["role"] == "user"
        results = added[1]["content"]
        assert all(b["type"] == "tool_result" for b in results), "the user turn holds tool_result blocks only"
        ids = [b["id"] for b in before.content if b["type"] == "tool_use"]
        assert [b["tool_use_id"] for b in results] == ids


# ----------------------------------------------------------------------------------------------
# The table
# ----------------------------------------------------------------------------------------------


def test_step_table_covers_exactly_the_sdk_stop_reasons() -> None:
    assert set(STEP_FOR_STOP_REASON) == set(typing.get_args(anthropic.types.StopReason))
    assert set(STEP_FOR_STOP_REASON.values()) == set(typing.get_args(Step))


def test_finished_means_end_turn_or_stop_sequence() -> None:
    assert reference.FINISHED == {"end_turn", "stop_sequence"}
    assert reference.FINISHED <= set(typing.get_args(StoppedBecause))


def test_every_scenario_has_an_expectation() -> None:
    missing = [name for name in SCENARIOS if name not in EXPECTED]
    assert not missing, f"scenarios without an expected outcome: {missing}"


def test_unknown_stop_reason_is_a_clear_loop_error() -> None:
    scenario = Scenario(name="new_reason", prompt="hi", needed_requests=1,
                        replies=(agentlab.fake.reply({"type": "text", "text": "hi"}, stop_reason="compaction"),))
    with pytest.raises(LoopError, match="unknown stop_reason 'compaction'.*STEP_FOR_STOP_REASON"):
        run_agent(agentlab.fake_client(scenario), "hi", [], lambda name, args: "")


def test_tool_use_without_a_tool_use_block_is_a_clear_loop_error() -> None:
    scenario = Scenario(name="empty_tool_use", prompt="hi", needed_requests=1,
                        replies=(agentlab.fake.reply({"type": "text", "text": "hm"}, stop_reason="tool_use"),))
    with pytest.raises(LoopError, match="no tool_use block"):
        run_agent(agentlab.fake_client(scenario), "hi", [], lambda name, args: "")
    with pytest.raises(LoopError, match="no tool_use block"):
        asyncio.run(arun_agent(agentlab.fake_async_client(scenario), "hi", [], lambda name, args: ""))


# ----------------------------------------------------------------------------------------------
# Every built-in scenario
# ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", SCENARIOS)
def test_agent_loop_on_every_scenario(name: str) -> None:
    want = expect(name)
    scenario = get_scenario(name)
    client = agentlab.fake_client(name)
    args = (client, scenario.prompt, list(scenario.tools), scenario.run_tool)
    if want.because in reference.FINISHED:
        text = agent_loop(*args)
        assert isinstance(text, str)
        if "answer_contains" in scenario.extra:
            assert scenario.extra["answer_contains"] in text
    elif want.because == "refusal":
        text = agent_loop(*args)
        assert text.startswith("The model declined this request")
    else:
        with pytest.raises(LoopStopped) as info:
            agent_loop(*args)
        assert info.value.result.stopped_because == want.because
        assert str(info.value) == info.value.result.explanation()
        assert "partial" in str(info.value)
    assert len(agentlab.journal(client).steps) - len(agentlab.journal(client).errors) == want.steps
    assert_well_formed(agentlab.journal(client))


@pytest.mark.parametrize("name", SCENARIOS)
def test_run_agent_with_the_lesson_parameters(name: str) -> None:
    want = expect(name)
    scenario = get_scenario(name)
    result, journal = run(name, lesson_params=True)
    because = want.because_with_params or want.because
    assert result.stopped_because == because
    assert result.finished == (because in ("end_turn", "stop_sequence"))
    assert result.steps == (want.steps_with_params or want.steps)
    seen = [r for r in journal.stop_reasons if r is not None]
    assert [t.stop_reason for t in result.turns] == seen
    assert result.stop_reason == seen[-1]
    assert result.usage == journal.usage
    if "stop_reasons" in scenario.extra:
        assert tuple(seen[: len(scenario.extra["stop_reasons"])]) == tuple(scenario.extra["stop_reasons"])
    if "stop_reason" in scenario.extra:
        assert scenario.extra["stop_reason"] in seen
    if result.finished and "answer_contains" in scenario.extra:
        assert scenario.extra["answer_contains"] in result.text
    assert result.explanation()
    assert_well_formed(journal)


# ----------------------------------------------------------------------------------------------
# One scenario at a time: what each is built to show
# ----------------------------------------------------------------------------------------------


def test_weather_two_steps_and_the_history() -> None:
    result, journal = run("weather")
    assert "95F" in result.text and result.steps == 2
    sent = journal.sent(1)
    assert [m["role"] for m in sent] == ["user", "assistant", "user"]
    assert sent[2]["content"][0]["content"] == "Weather in Austin: 95F, sunny"
    assert [t.action for t in result.turns] == ["run_tools", "finish"]
    assert result.turns[0].tool_calls[0].name == "get_weather"
    assert result.turns[0].blocks == ["tool_use"]
    assert result.turns[0].max_tokens == 1024
    assert result.messages[-1]["role"] == "assistant"


def test_parallel_tools_run_concurrently_and_return_in_one_message() -> None:
    scenario = get_scenario("parallel_tools")
    barrier = threading.Barrier(3, timeout=5)  # opens only when all three calls run at once
    started: list[str] = []

    def run_tool(name: str, tool_input: dict) -> str:
        started.append(tool_input["city"])
        barrier.wait()
        return scenario.run_tool(name, tool_input)

    client = agentlab.fake_client("parallel_tools")
    result = run_agent(client, scenario.prompt, list(scenario.tools), run_tool)
    assert result.finished, result.explanation()
    assert sorted(started) == ["Paris", "Rome", "Tokyo"]
    journal = agentlab.journal(client)
    user_turns = [m for m in journal.sent(1) if m["role"] == "user"]
    assert len(user_turns) == 2  # the prompt and ONE message of results
    results = user_turns[1]["content"]
    calls = [b for b in journal.step(0).content if b["type"] == "tool_use"]
    assert len(results) == 3
    assert [r["tool_use_id"] for r in results] == [c["id"] for c in calls]
    assert all(r["content"].startswith(f"Weather in {c['input']['city']}:") for r, c in zip(results, calls))
    assert not any(r.get("is_error") for r in results)


def test_failing_tool_becomes_is_error_and_the_loop_continues() -> None:
    result, journal = run("failing_tool")
    assert result.finished and "arriving on Thursday" in result.text
    first = journal.sent(1)[-1]["content"]
    assert first == [{"type": "tool_result", "tool_use_id": journal.step(0).content[0]["id"],
                      "content": "Error: order service timed out", "is_error": True}]
    assert [[c.is_error for c in t.tool_calls] for t in result.turns] == [[True], [False], []]
    assert result.consecutive_tool_errors == 0


def test_pause_turn_resends_the_assistant_turn_unchanged() -> None:
    result, journal = run("pause_turn")
    assert result.finished and "template strings" in result.text
    assert journal.sent(1)[:-1] == journal.sent(0)
    resent = journal.sent(1)[-1]
    assert resent["role"] == "assistant"
    assert _no_nulls(resent["content"]) == _no_nulls(journal.step(0).content)
    assert resent["content"][-1]["type"] == "server_tool_use"
    assert [t.action for t in result.turns] == ["resume", "finish"]


def test_max_tokens_in_a_tool_use_never_runs_the_cut_call_and_retries_larger() -> None:
    scenario = get_scenario("max_tokens_tool_use")
    calls: list[dict] = []

    def run_tool(name: str, tool_input: dict) -> str:
        calls.append(tool_input)
        return scenario.run_tool(name, tool_input)

    client = agentlab.fake_client("max_tokens_tool_use")
    result = run_agent(client, scenario.prompt, list(scenario.tools), run_tool)
    journal = agentlab.journal(client)
    assert result.finished and scenario.extra["answer_contains"] in result.text
    assert [e.request["max_tokens"] for e in journal.steps] == [1024, 2048, 4096, 4096]
    assert journal.stop_reasons == ["max_tokens", "max_tokens", "tool_use", "end_turn"]
    assert journal.sent(0) == journal.sent(1) == journal.sent(2)  # the cut turns were never appended
    assert len(calls) == 1 and len(calls[0]["content"]) == scenario.extra["content_chars"]
    assert [t.action for t in result.turns] == ["grow_or_stop", "grow_or_stop", "run_tools", "finish"]


def test_max_tokens_in_a_tool_use_stops_at_the_retry_limit() -> None:
    scenario = get_scenario("max_tokens_tool_use")
    calls: list[dict] = []
    client = agentlab.fake_client("max_tokens_tool_use")
    result = run_agent(client, scenario.prompt, list(scenario.tools), lambda n, i: calls.append(i) or "",
                       max_tokens_retry_limit=2048)
    assert result.stopped_because == "max_tokens" and not result.finished
    assert [e.request["max_tokens"] for e in agentlab.journal(client).steps] == [1024, 2048]
    assert calls == []
    assert result.messages == [{"role": "user", "content": scenario.prompt}]
    assert "inside a tool_use" in result.explanation() and "2048" in result.explanation()


def test_max_tokens_in_text_stops_with_the_partial_text() -> None:
    result, journal = run("max_tokens_text")
    assert result.stopped_because == "max_tokens" and not result.finished
    assert result.text.startswith("A field guide to the agent loop") and len(result.text) > 1000
    assert len(journal.steps) == 1 and not journal.repeats
    assert result.messages[-1]["role"] == "assistant"  # the partial answer is kept
    assert "max_tokens=1024" in result.explanation()


def test_refusal_returns_a_clear_message_without_resending() -> None:
    scenario = get_scenario("refusal")
    client = agentlab.fake_client("refusal")
    text = agent_loop(client, scenario.prompt, list(scenario.tools), scenario.run_tool)
    assert text.startswith("The model declined this request")
    assert "cyber" in text
    assert len(agentlab.journal(client).steps) == 1
    result, _ = run("refusal")
    assert result.stopped_because == "refusal" and not result.finished
    assert result.messages == [{"role": "user", "content": scenario.prompt}]  # the refused turn is not kept
    assert reference.refusal_message(result, "es").startswith("El modelo ha rechazado esta petición")


def test_stop_sequence_is_a_controlled_end() -> None:
    result, journal = run("stop_sequence", lesson_params=True)
    assert result.finished and result.stopped_because == "stop_sequence"
    assert result.text == "<answer>Canberra"
    assert result.turns[0].stop_sequence == "</answer>"
    assert "'</answer>'" in result.explanation()


def test_context_window_stops_with_its_reason() -> None:
    result, journal = run("context_window")
    assert result.stopped_because == "context_window" and not result.finished
    assert result.stop_reason == "model_context_window_exceeded"
    assert result.text.startswith("Research notes so far.")


def test_long_task_finishes_under_the_default_cap_but_not_under_ten() -> None:
    result, _ = run("long_task")
    assert result.finished and result.steps == 13
    capped, journal = run("long_task", guardrails=Guardrails(max_steps=10))
    assert capped.stopped_because == "guardrail:steps" and capped.steps == 10 and len(journal.steps) == 10
    assert "10" in capped.explanation() and "partial" in capped.explanation()


def test_stuck_model_stops_at_the_step_guardrail_with_partial_work() -> None:
    scenario = get_scenario("stuck_model")
    calls: list[str] = []

    def run_tool(name: str, tool_input: dict) -> str:
        calls.append(name)
        return scenario.run_tool(name, tool_input)

    client = agentlab.fake_client("stuck_model")
    with pytest.raises(LoopStopped) as info:
        agent_loop(client, scenario.prompt, list(scenario.tools), run_tool)
    result = info.value.result
    assert result.stopped_because == "guardrail:steps" and result.steps == 25
    assert len(agentlab.journal(client).steps) == 25
    assert len(calls) == 24  # the 25th turn's tool_use is not run: its result could never be sent
    assert result.messages[-1]["role"] == "assistant"


def test_thinking_blocks_are_kept_verbatim() -> None:
    result, journal = run("thinking", thinking={"type": "adaptive"}, max_tokens=4096,
                          model="claude-opus-4-7")
    assert result.finished and "40,600 JPY" in result.text
    assert result.turns[0].blocks == ["thinking", "tool_use"]
    resent = journal.sent(1)[1]["content"]
    assert resent[0]["type"] == "thinking" and resent[0]["signature"] == journal.step(0).content[0]["signature"]
    assert _no_nulls(resent) == _no_nulls(journal.step(0).content)


def test_overloaded_is_absorbed_by_the_sdk_retries() -> None:
    result, journal = run("overloaded")
    assert result.finished and "95F" in result.text
    assert [e.status for e in journal.errors] == [529, 529]
    assert result.steps == 2


# ----------------------------------------------------------------------------------------------
# Guardrails
# ----------------------------------------------------------------------------------------------


def test_token_guardrail_trips_on_a_tiny_budget() -> None:
    result, journal = run("weather", guardrails=Guardrails(max_total_tokens=10))
    assert result.stopped_because == "guardrail:tokens" and not result.finished
    assert len(journal.steps) == 1
    assert "max_total_tokens=10" in result.explanation()


def test_token_guardrail_counts_both_cache_fields() -> None:
    budget = 5_000
    result, journal = run("context_window", cache_control={"type": "ephemeral"},
                          guardrails=Guardrails(max_total_tokens=budget))
    assert result.stopped_because == "guardrail:tokens"
    assert result.usage == journal.usage
    assert result.usage["cache_creation_input_tokens"] > 0 and result.usage["cache_read_input_tokens"] > 0
    assert result.total_tokens >= budget
    assert result.usage["input_tokens"] + result.usage["output_tokens"] < budget  # input+output alone never trips


class FakeClock:
    """A clock that moves ``tick`` seconds every time it is read: deterministic, never sleeps."""

    def __init__(self, tick: float) -> None:
        self.now = 0.0
        self.tick = tick

    def __call__(self) -> float:
        value = self.now
        self.now += self.tick
        return value


def test_time_guardrail_on_a_fake_clock() -> None:
    result, journal = run("long_task", guardrails=Guardrails(max_seconds=15, clock=FakeClock(10)))
    assert result.stopped_because == "guardrail:time" and not result.finished
    assert len(journal.steps) == 2  # 10 s after the first reply, 20 s after the second
    assert result.elapsed_seconds == 20
    assert "20.0 s" in result.explanation() and "max_seconds=15" in result.explanation()


def _always_calls(name: str = "flaky") -> Scenario:
    tool = {"name": name, "description": "A tool that always fails.",
            "input_schema": {"type": "object", "properties": {"n": {"type": "integer"}}}}

    def run_tool(tool_name: str, tool_input: dict) -> str:
        raise ConnectionError("service down")

    return Scenario(name="always_failing", prompt="Use the tool.", tools=(tool,), run_tool=run_tool,
                    policy=lambda turn: tool_use(name, {"n": turn.index}), needed_requests=30)


def test_consecutive_tool_error_guardrail_trips_at_three() -> None:
    scenario = _always_calls()
    client = agentlab.fake_client(scenario)
    with pytest.raises(LoopStopped) as info:
        agent_loop(client, scenario.prompt, list(scenario.tools), scenario.run_tool)
    result = info.value.result
    assert result.stopped_because == "guardrail:tool_errors"
    assert result.steps == 3 and result.consecutive_tool_errors == 3
    assert result.messages[-1]["content"][0] == {
        "type": "tool_result", "tool_use_id": agentlab.journal(client).step(2).content[0]["id"],
        "content": "Error: service down", "is_error": True}
    turned_off = run_agent(agentlab.fake_client(scenario), scenario.prompt, list(scenario.tools), scenario.run_tool,
                           guardrails=Guardrails(max_consecutive_tool_errors=None, max_steps=6))
    assert turned_off.stopped_because == "guardrail:steps" and turned_off.consecutive_tool_errors == 5


def test_unknown_tool_name_is_an_error_result_without_calling_run_tool() -> None:
    run_state = reference._Run("hi", [{"name": "known", "input_schema": {"type": "object"}}], model="m",
                               max_tokens=1, system=None, guardrails=Guardrails(), max_tokens_retry_limit=2,
                               params={})
    block = anthropic.types.ToolUseBlock(id="toolu_1", name="other", input={}, type="tool_use")

    def run_tool(name: str, tool_input: dict) -> str:
        raise AssertionError("run_tool must not be called for an unknown tool")

    result = reference._call_tool(run_state, run_tool, block)
    assert result == {"type": "tool_result", "tool_use_id": "toolu_1",
                      "content": "Error: unknown tool 'other'; available tools: known", "is_error": True}
    assert asyncio.run(reference._acall_tool(run_state, run_tool, block)) == result


@pytest.mark.parametrize("because", typing.get_args(StoppedBecause))
@pytest.mark.parametrize("lang", ["en", "es"])
def test_every_stop_has_an_explanation(because: str, lang: str) -> None:
    limits = Guardrails(max_steps=25, max_total_tokens=50_000, max_seconds=60, max_consecutive_tool_errors=3)
    result = RunResult(text="", stop_reason=None, stopped_because=because, finished=because in reference.FINISHED,
                       guardrails=limits)
    sentence = result.explanation(lang)
    assert sentence and sentence.endswith(".")
    partial = "partial" if lang == "en" else "a medias"
    assert (partial in sentence) != result.finished


# ----------------------------------------------------------------------------------------------
# Async parity
# ----------------------------------------------------------------------------------------------


def _outcome(call: Any) -> tuple[str, str]:
    try:
        return "returned", call()
    except LoopStopped as exc:
        return exc.result.stopped_because, str(exc)


@pytest.mark.parametrize("name", SCENARIOS)
def test_async_loop_matches_the_sync_loop(name: str) -> None:
    expect(name)
    scenario = get_scenario(name)
    args = (scenario.prompt, list(scenario.tools), scenario.run_tool)
    client = agentlab.fake_client(name)
    aclient = agentlab.fake_async_client(name)
    sync = _outcome(lambda: agent_loop(client, *args))
    async_ = _outcome(lambda: asyncio.run(aagent_loop(aclient, *args)))
    assert async_ == sync
    assert agentlab.journal(aclient).stop_reasons == agentlab.journal(client).stop_reasons
    assert_well_formed(agentlab.journal(aclient))


@pytest.mark.parametrize("name", SCENARIOS)
def test_async_run_agent_matches_with_the_lesson_parameters(name: str) -> None:
    expect(name)
    scenario = get_scenario(name)
    sync, journal = run(name, lesson_params=True)
    aclient = agentlab.fake_async_client(name)
    async_ = asyncio.run(arun_agent(aclient, scenario.prompt, list(scenario.tools), scenario.run_tool,
                                    **params_for(name)))
    assert (async_.stopped_because, async_.text, async_.usage) == (sync.stopped_because, sync.text, sync.usage)
    assert agentlab.journal(aclient).stop_reasons == journal.stop_reasons


def test_async_parallel_tools_gather_a_coroutine_run_tool() -> None:
    scenario = get_scenario("parallel_tools")

    async def main() -> RunResult:
        running = 0
        all_started = asyncio.Event()

        async def run_tool(name: str, tool_input: dict) -> str:
            nonlocal running
            running += 1
            if running == 3:
                all_started.set()
            await asyncio.wait_for(all_started.wait(), timeout=5)  # only passes if the three run together
            return scenario.run_tool(name, tool_input)

        client = agentlab.fake_async_client("parallel_tools")
        return await arun_agent(client, scenario.prompt, list(scenario.tools), run_tool)

    result = asyncio.run(main())
    assert result.finished and scenario.extra["answer_contains"] in result.text
    assert [c.is_error for c in result.turns[0].tool_calls] == [False, False, False]


def test_async_guardrails_on_a_fake_clock() -> None:
    scenario = get_scenario("long_task")
    result = asyncio.run(arun_agent(agentlab.fake_async_client("long_task"), scenario.prompt, list(scenario.tools),
                                    scenario.run_tool, guardrails=Guardrails(max_seconds=15, clock=FakeClock(10))))
    assert result.stopped_because == "guardrail:time" and result.steps == 2


def test_async_tool_errors_become_is_error_results() -> None:
    scenario = _always_calls()
    with pytest.raises(LoopStopped) as info:
        asyncio.run(aagent_loop(agentlab.fake_async_client(scenario), scenario.prompt, list(scenario.tools),
                                scenario.run_tool))
    assert info.value.result.stopped_because == "guardrail:tool_errors"
