"""The built-in scenario catalogue: its table, its tools, and each scenario's policy.

Two layers:

- Policies tested directly: ``Turn`` objects built by a tiny in-test driver (no HTTP, no SDK),
  passed to ``scenario.reply_for(turn)``; the driver plays a correct loop (tool results in one
  user turn, ``is_error`` on exceptions, ``pause_turn`` re-sent) so each scenario can be walked
  end to end and its reply shapes asserted.
- End to end on the fake: seed 001's loop, adapted to take a client, run with the real
  ``anthropic`` SDK against ``agentlab.fake_client(name)`` for every scenario where a loop makes
  sense.
"""

from __future__ import annotations

import importlib
import itertools
from dataclasses import dataclass, field
from typing import Any, Callable

import pytest

from agentlab.fake._catalogue import (
    SCENARIOS,
    fill_tool_input,
    get_scenario,
    request_params,
    scenarios,
)
from agentlab.fake._models import MODELS
from agentlab.fake._replies import Reply
from agentlab.fake._scenario import Scenario, Turn
from agentlab.fake._tokens import block_output_tokens, count_input_tokens, text_tokens

REQUIRED = (
    "weather", "docs_search", "parallel_tools", "text_and_tool_use", "failing_tool", "pause_turn",
    "refusal", "max_tokens_text", "max_tokens_tool_use", "stop_sequence", "context_window",
    "thinking", "long_task", "stuck_model",
)
NEVER_ENDS = {"stuck_model", "persistent_tool_errors"}

SEED_000_TOOL = {  # seed 000's get_weather: the property is "location", not "city"
    "name": "get_weather",
    "description": "Get current weather for a city.",
    "input_schema": {"type": "object", "properties": {"location": {"type": "string"}}, "required": ["location"]},
}


def seed_000_run_tool(name: str, tool_input: dict) -> str:
    if name == "get_weather":
        return f"Weather in {tool_input['location']}: 72F, clear"
    raise ValueError(f"unknown tool: {name}")


# ----------------------------------------------------------------------------------------------
# A tiny driver: a correct loop played without the fake (no cuts, no validation)
# ----------------------------------------------------------------------------------------------


@dataclass
class Step:
    turn: Turn
    reply: Reply
    blocks: list[dict[str, Any]]
    stop_reason: str


@dataclass
class Run:
    steps: list[Step] = field(default_factory=list)
    answer: str | None = None
    messages: list[dict[str, Any]] = field(default_factory=list)

    @property
    def stop_reasons(self) -> tuple[str, ...]:
        return tuple(s.stop_reason for s in self.steps)

    def calls(self) -> list[dict[str, Any]]:
        return [b for s in self.steps for b in s.blocks if b["type"] == "tool_use"]


def make_turn(scenario: Scenario, messages: list[dict[str, Any]], *, tools: Any = None,
              tool_choice: dict | None = None) -> Turn:
    return Turn(
        messages=tuple(messages),
        index=sum(1 for m in messages if m["role"] == "assistant"),
        model=scenario.model,
        system=scenario.system,
        tools=tuple(scenario.tools if tools is None else tools),
        tool_choice=tool_choice,
        max_tokens=scenario.max_tokens,
    )


def drive(scenario: Scenario, *, run_tool: Callable | None = None, tools: Any = None,
          tool_choice: dict | None = None, max_requests: int = 40) -> Run:
    """Play a correct loop against the scenario's policy, the way the fake would feed it."""
    run_tool = run_tool or scenario.run_tool
    ids = itertools.count(1)
    run = Run(messages=[{"role": "user", "content": scenario.prompt}])
    for _ in range(max_requests):
        turn = make_turn(scenario, run.messages, tools=tools, tool_choice=tool_choice)
        reply = scenario.reply_for(turn)
        blocks = [dict(b) for b in reply.content]
        if tool_choice and tool_choice.get("disable_parallel_tool_use"):
            first = next((i for i, b in enumerate(blocks) if b["type"] == "tool_use"), None)
            if first is not None:
                blocks = blocks[: first + 1] + [b for b in blocks[first + 1:] if b["type"] != "tool_use"]
        for block in blocks:
            if block["type"] in ("tool_use", "server_tool_use"):
                block["id"] = f"toolu_test{next(ids)}"
        stop = reply.stop_reason or ("tool_use" if any(b["type"] == "tool_use" for b in blocks) else "end_turn")
        run.steps.append(Step(turn, reply, blocks, stop))
        if stop == "tool_use":
            run.messages.append({"role": "assistant", "content": blocks})
            results = []
            for block in blocks:
                if block["type"] != "tool_use":
                    continue
                try:
                    results.append({"type": "tool_result", "tool_use_id": block["id"],
                                    "content": run_tool(block["name"], block["input"])})
                except Exception as exc:  # noqa: BLE001 - returned to the model, as seed 001 does
                    results.append({"type": "tool_result", "tool_use_id": block["id"],
                                    "content": f"Error: {exc}", "is_error": True})
            run.messages.append({"role": "user", "content": results})
        elif stop == "pause_turn":
            run.messages.append({"role": "assistant", "content": blocks})
        else:
            run.answer = "".join(b.get("text", "") for b in blocks if b["type"] == "text")
            return run
    return run


def client_tool_names(scenario: Scenario) -> set[str]:
    return {t["name"] for t in scenario.tools if t.get("type") in (None, "custom")}


def server_tool_names(scenario: Scenario) -> set[str]:
    return {t["name"] for t in scenario.tools if t.get("type") not in (None, "custom")}


# ----------------------------------------------------------------------------------------------
# The table
# ----------------------------------------------------------------------------------------------


def test_required_scenarios_are_there_in_order_and_named_after_their_key():
    assert scenarios() == list(SCENARIOS)
    assert set(REQUIRED) <= set(SCENARIOS)
    assert scenarios()[: len(REQUIRED)] == list(REQUIRED)
    assert len(set(scenarios())) == len(scenarios())
    for name, scenario in SCENARIOS.items():
        assert scenario.name == name
        assert get_scenario(name) is scenario


def test_unknown_scenario_is_a_key_error_listing_the_names():
    with pytest.raises(KeyError) as info:
        get_scenario("nope")
    message = info.value.args[0]
    assert message.startswith("unknown scenario 'nope'; built-in scenarios: ")
    assert message.endswith(", ".join(SCENARIOS))


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_each_scenario_is_complete(name):
    scenario = SCENARIOS[name]
    assert scenario.description and "\n" not in scenario.description and len(scenario.description) <= 160
    assert scenario.description.strip() == scenario.description
    assert scenario.prompt.strip()
    assert scenario.model in MODELS
    assert 0 < scenario.max_tokens <= MODELS[scenario.model].max_output_tokens
    assert scenario.run_tool is not None
    assert scenario.request_budget >= 1, "policy scenarios must set needed_requests"
    extra = scenario.extra
    if name not in NEVER_ENDS:
        assert extra["stop_reasons"], "what a correct loop sees"
        assert len(extra["stop_reasons"]) <= scenario.request_budget
    assert extra["stop_reason"] in (
        "end_turn", "tool_use", "max_tokens", "stop_sequence", "pause_turn", "refusal", "model_context_window_exceeded")


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_tool_definitions_are_well_formed(name):
    scenario = SCENARIOS[name]
    names = [t["name"] for t in scenario.tools]
    assert len(names) == len(set(names))
    for tool in scenario.tools:
        if tool.get("type") not in (None, "custom"):
            assert tool["type"].startswith("web_search_")  # the only server tool the catalogue uses
            continue
        assert tool["description"]
        schema = tool["input_schema"]
        assert schema["type"] == "object"
        assert set(schema["required"]) <= set(schema["properties"])
        for prop in schema["properties"].values():
            assert prop["type"] in ("string", "boolean", "integer", "number")


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_run_tool_refuses_unknown_tools_like_the_seeds(name):
    with pytest.raises(ValueError, match="^unknown tool: no_such_tool$"):
        SCENARIOS[name].run_tool("no_such_tool", {})


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_replies_call_only_the_scenarios_tools_and_run_tool_handles_them(name):
    scenario = SCENARIOS[name]
    run = drive(scenario, max_requests=scenario.request_budget + 5)
    for step in run.steps:
        for block in step.blocks:
            if block["type"] == "tool_use":
                assert block["name"] in client_tool_names(scenario)
                try:
                    result = scenario.run_tool(block["name"], block["input"])
                except Exception as exc:  # noqa: BLE001 - a tool may fail on purpose, never as "unknown"
                    assert "unknown tool" not in str(exc)
                else:
                    assert isinstance(result, str) and result.strip()
            elif block["type"] == "server_tool_use":
                assert block["name"] in server_tool_names(scenario)
            else:
                assert block["type"] in ("text", "thinking", "web_search_tool_result")
            if block["type"] == "text":
                assert block["text"].strip(), "empty text blocks are a 400 when sent back"


@pytest.mark.parametrize("name", sorted(set(SCENARIOS) - NEVER_ENDS))
def test_a_correct_loop_finishes_as_the_extra_says(name):
    scenario = SCENARIOS[name]
    run = drive(scenario)
    cut = {"max_tokens_text", "max_tokens_tool_use", "context_window", "stop_sequence"}  # the fake shapes these
    if name not in cut:
        assert run.stop_reasons == scenario.extra["stop_reasons"]
        assert len(run.steps) <= scenario.request_budget
    if "answer_contains" in scenario.extra:
        assert scenario.extra["answer_contains"] in run.answer


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_policies_are_deterministic(name):
    scenario = SCENARIOS[name]
    first = drive(scenario, max_requests=15)
    second = drive(scenario, max_requests=15)
    assert [s.reply for s in first.steps] == [s.reply for s in second.steps]
    for step in first.steps:
        assert scenario.reply_for(step.turn) == step.reply


def test_request_params_add_the_lesson_parameters():
    assert request_params(get_scenario("weather")) == {
        "model": "claude-sonnet-5", "max_tokens": 1024, "tools": [SCENARIOS["weather"].tools[0]]}
    thinking = request_params(get_scenario("thinking"))
    assert thinking["thinking"] == {"type": "adaptive"} and thinking["max_tokens"] == 4096
    assert request_params(get_scenario("stop_sequence"))["stop_sequences"] == ["</answer>"]
    assert request_params(get_scenario("docs_search"))["system"] == SCENARIOS["docs_search"].system


# ----------------------------------------------------------------------------------------------
# The schema-filling helper
# ----------------------------------------------------------------------------------------------


def test_fill_tool_input_follows_the_learners_schema():
    assert fill_tool_input(SCENARIOS["weather"].tools[0], "Austin") == {"city": "Austin"}
    assert fill_tool_input(SEED_000_TOOL, "Austin") == {"location": "Austin"}
    tool = {"name": "w", "input_schema": {"type": "object", "properties": {
        "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
        "days": {"type": "integer"},
        "detail": {"type": "boolean", "default": True},
        "place": {"type": "string"},
        "note": {"type": "string"},
    }, "required": ["unit", "days", "detail", "place"]}}
    assert fill_tool_input(tool, "Austin") == {"unit": "celsius", "days": 0, "detail": True, "place": "Austin"}
    optional = {"name": "w", "input_schema": {"type": "object", "properties": {"q": {"type": "string"}}}}
    assert fill_tool_input(optional, "Austin") == {"q": "Austin"}
    assert fill_tool_input({"name": "w"}, "Austin") == {}


# ----------------------------------------------------------------------------------------------
# Each scenario's policy
# ----------------------------------------------------------------------------------------------


def test_weather_is_seed_002():
    scenario = get_scenario("weather")
    assert scenario.prompt == "What should I wear in Austin today?"
    assert scenario.model == "claude-sonnet-5" and scenario.max_tokens == 1024
    (tool,) = scenario.tools
    assert tool["name"] == "get_weather" and tool["description"] == "Get the current weather for a city."
    assert tool["input_schema"]["properties"]["city"]["description"] == "The city to get weather for"
    assert scenario.run_tool("get_weather", {"city": "Austin"}) == "Weather in Austin: 95F, sunny"
    run = drive(scenario)
    assert run.stop_reasons == ("tool_use", "end_turn")
    assert [(b["name"], b["input"]) for b in run.calls()] == [("get_weather", {"city": "Austin"})]
    assert "95F and sunny in Austin" in run.answer and "light, breathable" in run.answer


def test_weather_follows_the_tools_the_learner_sends():
    scenario = get_scenario("weather")
    run = drive(scenario, tools=(SEED_000_TOOL,), run_tool=seed_000_run_tool)
    assert [b["input"] for b in run.calls()] == [{"location": "Austin"}]
    assert "72F and clear" in run.answer  # it reads the result it was given, not a script
    no_tools = drive(scenario, tools=())
    assert no_tools.stop_reasons == ("end_turn",) and "can't check the weather" in no_tools.answer


def test_weather_explains_a_failed_tool():
    def broken(name, tool_input):
        raise ConnectionError("weather service unreachable")

    run = drive(get_scenario("weather"), run_tool=broken)
    assert run.stop_reasons == ("tool_use", "end_turn")
    assert "couldn't get the weather" in run.answer and "unreachable" in run.answer


def test_docs_search_is_seed_001():
    scenario = get_scenario("docs_search")
    (tool,) = scenario.tools
    assert tool["name"] == "buscar_docs"
    assert tool["description"] == "Busca en la documentación interna. Devuelve hasta 5 fragmentos con su título."
    assert tool["input_schema"]["properties"] == {"consulta": {"type": "string", "description": "Términos de búsqueda"}}
    assert scenario.system == "Responde con la documentación interna. Si no encuentras nada, dilo."
    assert (scenario.model, scenario.max_tokens) == ("claude-sonnet-5-5", 2048)
    run = drive(scenario)
    ((call),) = run.calls()
    assert "vacaciones" in call["input"]["consulta"]
    assert "23 días laborables" in run.answer
    assert scenario.run_tool("buscar_docs", {"consulta": "cafetera"}) == "Sin resultados para «cafetera»"


def test_docs_search_says_so_when_nothing_is_found():
    def seed_buscar(name, tool_input):  # seed 001's stub
        return f"Sin resultados para «{tool_input['consulta']}»"

    run = drive(get_scenario("docs_search"), run_tool=seed_buscar)
    assert run.answer.startswith("No he encontrado nada en la documentación interna")


def test_parallel_tools_asks_for_three_cities_at_once():
    scenario = get_scenario("parallel_tools")
    run = drive(scenario)
    first = run.steps[0].blocks
    assert [b["type"] for b in first] == ["tool_use"] * 3
    assert [b["input"]["city"] for b in first] == ["Paris", "Rome", "Tokyo"]
    assert run.stop_reasons == ("tool_use", "end_turn")
    for city, summary in (("Paris", "64F, light rain"), ("Rome", "77F, sunny"), ("Tokyo", "70F, cloudy")):
        assert f"{city} {summary}" in run.answer


def test_parallel_tools_keeps_asking_for_missing_cities_one_at_a_time():
    scenario = get_scenario("parallel_tools")
    run = drive(scenario, tool_choice={"type": "auto", "disable_parallel_tool_use": True})
    assert [b["input"]["city"] for b in run.calls()] == ["Paris", "Rome", "Tokyo"]
    assert len(run.steps) == scenario.extra["needed_requests_disable_parallel_tool_use"]
    assert [len(s.reply.content) for s in run.steps[:3]] == [3, 2, 1]  # the model asks for what is missing
    assert scenario.extra["answer_contains"] in run.answer


def test_text_and_tool_use_puts_text_before_the_call():
    scenario = get_scenario("text_and_tool_use")
    run = drive(scenario)
    assert [b["type"] for b in run.steps[0].blocks] == ["text", "tool_use"]
    assert run.steps[0].blocks[0]["text"] == scenario.extra["trap_text"]
    assert run.steps[0].stop_reason == "tool_use"
    assert "out for delivery" in run.answer and run.answer != scenario.extra["trap_text"]
    no_tools = drive(scenario, tools=())
    assert no_tools.stop_reasons == ("end_turn",) and "can't track packages" in no_tools.answer


def test_failing_tool_raises_then_the_model_retries_lighter():
    scenario = get_scenario("failing_tool")
    with pytest.raises(TimeoutError, match="order service timed out"):
        scenario.run_tool("lookup_order", {"order_id": "1042", "include_history": True})
    run = drive(scenario)
    assert run.stop_reasons == ("tool_use", "tool_use", "end_turn")
    first, second = run.calls()
    assert first["input"] == {"order_id": "1042", "include_history": True}
    assert second["input"] == {"order_id": "1042"}
    assert run.messages[2]["content"][0]["is_error"] is True
    assert "arriving on Thursday" in run.answer and "failed" in run.answer


def test_failing_tool_gives_up_after_three_consecutive_errors():
    scenario = get_scenario("failing_tool")

    def always_down(name, tool_input):
        raise TimeoutError("order service timed out")

    run = drive(scenario, run_tool=always_down)
    assert run.stop_reasons == ("tool_use",) * 3 + ("end_turn",)
    assert len(run.steps) == scenario.extra["needed_requests_always_failing"]
    assert run.steps[-1].turn.consecutive_errors() == scenario.extra["give_up_after"] == 3
    assert "3 times in a row" in run.answer and "timed out" in run.answer


def test_pause_turn_pauses_then_continues_after_the_turn_is_sent_back():
    scenario = get_scenario("pause_turn")
    assert {"type": "web_search_20250305", "name": "web_search", "max_uses": 5} in scenario.tools
    run = drive(scenario)
    paused, done = run.steps
    assert paused.stop_reason == "pause_turn" and paused.blocks[-1]["type"] == "server_tool_use"
    assert done.turn.index == 1 and done.turn.messages[-1]["role"] == "assistant"
    assert [b["type"] for b in done.blocks] == ["server_tool_use", "web_search_tool_result", "text"]
    results = done.blocks[1]["content"]
    assert all(r["type"] == "web_search_result" and r["url"].startswith("https://") for r in results)
    assert done.stop_reason == "end_turn" and "template strings" in run.answer
    assert drive(scenario, tools=()).stop_reasons == ("end_turn",)  # no web_search tool: it says it can't


def test_refusal_has_stop_details_and_repeats():
    scenario = get_scenario("refusal")
    run = drive(scenario)
    (step,) = run.steps
    assert step.stop_reason == "refusal" and step.blocks == []
    assert step.reply.stop_details["category"] == "cyber" and step.reply.stop_details["explanation"]
    again = make_turn(scenario, [*run.messages, {"role": "assistant", "content": []},
                                 {"role": "user", "content": "Please, it's for a good cause."}])
    assert scenario.reply_for(again) == step.reply


def test_max_tokens_text_is_cut_at_1024_and_fits_in_4096():
    scenario = get_scenario("max_tokens_text")
    (step,) = drive(scenario).steps
    (block,) = step.blocks
    tokens = text_tokens(block["text"])
    assert scenario.max_tokens == 1024 < tokens < 4096 == scenario.extra["max_tokens_enough"]
    assert 2300 <= tokens <= 2800  # "about 2,500 tokens"


def test_max_tokens_tool_use_is_cut_inside_the_tool_use():
    scenario = get_scenario("max_tokens_tool_use")
    run = drive(scenario)
    call = run.steps[0].blocks
    assert [b["type"] for b in call] == ["tool_use"] and call[0]["name"] == "write_file"
    tokens = block_output_tokens(call[0])
    assert scenario.max_tokens == 1024 < 2500 < tokens < 4096 == scenario.extra["max_tokens_enough"]
    assert len(call[0]["input"]["content"]) == scenario.extra["content_chars"]
    assert run.stop_reasons == ("tool_use", "end_turn") and scenario.extra["answer_contains"] in run.answer
    with pytest.raises(ValueError):  # what a cut call may leave
        scenario.run_tool("write_file", {"path": "docs/AGENT_LOOP.md"})


def test_stop_sequence_text_continues_after_the_sequence():
    scenario = get_scenario("stop_sequence")
    (step,) = drive(scenario).steps
    (block,) = step.blocks
    (sequence,) = scenario.extra["stop_sequences"]
    head, _, tail = block["text"].partition(sequence)
    assert head == "<answer>Canberra" and tail.strip()


def test_context_window_fills_during_generation_then_the_prompt_overflows():
    scenario = get_scenario("context_window")
    window = scenario.validation.context_window
    assert window == scenario.extra["context_window"] == 8000
    run = drive(scenario, max_requests=8)
    hit = None
    for n, step in enumerate(run.steps):
        body = {"tools": list(scenario.tools), "messages": list(step.turn.messages)}
        prompt = count_input_tokens(body)
        output = sum(block_output_tokens(b) for b in step.blocks)
        assert prompt <= window, "the window must fill during generation first"
        if prompt + output > window:
            hit = n
            break
        assert [b["type"] for b in step.blocks][-1] == "tool_use"  # keeps asking for another document
    assert hit is not None and hit + 1 == scenario.request_budget == len(scenario.extra["stop_reasons"])
    # A loop that keeps going after the cut sends a prompt longer than the window.
    cut = run.steps[hit]
    longer = [*cut.turn.messages, {"role": "assistant", "content": cut.blocks},
              {"role": "user", "content": "continue"}]
    assert count_input_tokens({"tools": list(scenario.tools), "messages": longer}) > window
    doc = scenario.run_tool("read_document", {"doc_id": "doc-01"})
    assert 1800 <= text_tokens(doc) <= 2200


def test_thinking_comes_before_the_tool_use_and_the_answer():
    scenario = get_scenario("thinking")
    # lesson 08 sends adaptive thinking: the newest models reject manual thinking (reference 3.3)
    assert scenario.model == "claude-opus-4-7" and "adaptive" in MODELS[scenario.model].thinking_types
    assert scenario.extra["thinking"] == {"type": "adaptive"}
    budget = scenario.extra["max_tokens"]
    assert budget == scenario.max_tokens
    run = drive(scenario)
    assert [b["type"] for b in run.steps[0].blocks] == ["thinking", "tool_use"]
    assert [b["type"] for b in run.steps[1].blocks] == ["thinking", "text"]
    for step in run.steps:
        assert block_output_tokens(step.blocks[0]) < budget
    assert "40,600 JPY" in run.answer


def test_long_task_needs_more_than_ten_steps():
    scenario = get_scenario("long_task")
    run = drive(scenario)
    assert scenario.request_budget == len(run.steps) == 13
    assert all(len([b for b in s.blocks if b["type"] == "tool_use"]) == 1 for s in run.steps[:12])
    paths = [b["input"]["path"] for b in run.calls()]
    assert paths == [f"inbox/batch_{n:02d}.csv" for n in range(1, 13)]
    assert scenario.extra["answer_contains"] in run.answer


def test_long_task_retries_a_file_that_failed():
    scenario = get_scenario("long_task")
    failed: set[str] = set()

    def flaky(name, tool_input):  # batch_03 fails once
        if tool_input["path"].endswith("03.csv") and not failed:
            failed.add(tool_input["path"])
            raise OSError("disk busy")
        return scenario.run_tool(name, tool_input)

    run = drive(scenario, run_tool=flaky)
    paths = [b["input"]["path"] for b in run.calls()]
    assert paths.count("inbox/batch_03.csv") == 2 and len(run.steps) == 14
    assert scenario.extra["answer_contains"] in run.answer


def test_stuck_model_never_stops_and_needs_a_step_cap():
    scenario = get_scenario("stuck_model")
    run = drive(scenario, max_requests=60)
    assert run.answer is None and set(run.stop_reasons) == {"tool_use"} and len(run.steps) == 60
    assert (scenario.needed_requests, scenario.runaway_after) == (30, 20)
    assert "step cap" in scenario.description
    assert scenario.run_tool("check_status", {"job_id": "job-7"}) == "job-7: pending"


def test_chained_tools_take_the_id_from_the_previous_result():
    scenario = get_scenario("chained_tools")
    run = drive(scenario)
    assert [(b["name"], b["input"]) for b in run.calls()] == [
        ("find_customer", {"email": "ana@example.com"}), ("get_orders", {"customer_id": "C-2291"})]

    def other_ids(name, tool_input):
        if name == "find_customer":
            return "Customer C-7: Ana López"
        return f"Orders of {tool_input['customer_id']}: #1 (processing)"

    run = drive(scenario, run_tool=other_ids)
    assert run.calls()[1]["input"] == {"customer_id": "C-7"}  # decided from the result, not hard-coded
    assert "#1 (processing)" in run.answer


def test_fault_scenarios_inject_their_faults_on_the_first_request_only():
    overloaded = drive(get_scenario("overloaded"))
    first, second = (s.reply.fault for s in overloaded.steps)
    assert (first.kind, first.status, first.times) == ("http", 529, 2) and second is None
    broken = drive(get_scenario("stream_error"))
    first, second = (s.reply.fault for s in broken.steps)
    assert first.kind == "stream" and second is None
    assert get_scenario("overloaded").request_budget == 4 and get_scenario("stream_error").request_budget == 3


# ----------------------------------------------------------------------------------------------
# End to end: seed 001's loop, with the client passed in, on agentlab.fake_client(name)
# ----------------------------------------------------------------------------------------------


@pytest.fixture
def fake_client():
    """``agentlab.fake_client`` (a missing attribute fails the test)."""
    return importlib.import_module("agentlab").fake_client


def seed_001_loop(client: Any, scenario: Scenario, *, run_tool: Callable | None = None,
                  max_steps: int = 25, stops: list | None = None, **overrides: Any) -> str:
    """Seed 001's ``agente``, in English, with the client, tools and run_tool passed in."""
    run_tool = run_tool or scenario.run_tool
    params = {**request_params(scenario), **overrides}
    stops = [] if stops is None else stops
    messages: list[dict[str, Any]] = [{"role": "user", "content": scenario.prompt}]

    def execute(block: Any) -> dict:
        try:
            return {"type": "tool_result", "tool_use_id": block.id, "content": run_tool(block.name, block.input)}
        except Exception as exc:  # noqa: BLE001 - the error goes back to the model, the loop survives
            return {"type": "tool_result", "tool_use_id": block.id, "content": f"Error: {exc}", "is_error": True}

    for _ in range(max_steps):
        resp = client.messages.create(messages=messages, **params)
        stops.append(resp.stop_reason)
        messages.append({"role": "assistant", "content": resp.content})
        if resp.stop_reason in ("end_turn", "stop_sequence"):
            return "".join(b.text for b in resp.content if b.type == "text")
        if resp.stop_reason == "tool_use":
            messages.append({"role": "user", "content": [execute(b) for b in resp.content if b.type == "tool_use"]})
        elif resp.stop_reason == "pause_turn":
            continue  # the history already holds the paused turn: call again
        elif resp.stop_reason == "max_tokens":
            raise RuntimeError("response cut: raise max_tokens or split the task")
        elif resp.stop_reason == "refusal":
            return "I can't help with that request."
        else:
            raise RuntimeError(f"unknown stop_reason: {resp.stop_reason}")
    raise RuntimeError(f"not finished after {max_steps} steps")


ENDS_WITH_ANSWER = [name for name, s in SCENARIOS.items() if s.extra.get("stop_reasons", ("",))[-1] in ("end_turn", "stop_sequence")]


@pytest.mark.parametrize("name", ENDS_WITH_ANSWER)
def test_e2e_seed_001_loop_gets_the_answer(fake_client, name):
    scenario = get_scenario(name)
    stops: list[str] = []
    answer = seed_001_loop(fake_client(name), scenario, stops=stops)
    assert tuple(stops) == scenario.extra["stop_reasons"]
    assert scenario.extra["answer_contains"] in answer


def test_e2e_weather_follows_seed_000s_tool(fake_client):
    scenario = get_scenario("weather")
    variant = Scenario(**{**{f: getattr(scenario, f) for f in ("name", "description", "prompt", "model",
                                                                 "max_tokens", "policy", "needed_requests")},
                          "tools": (SEED_000_TOOL,), "run_tool": seed_000_run_tool})
    answer = seed_001_loop(fake_client(variant), variant)
    assert "72F and clear in Austin" in answer


def test_e2e_parallel_tools_with_parallel_use_disabled(fake_client):
    scenario = get_scenario("parallel_tools")
    stops: list[str] = []
    answer = seed_001_loop(fake_client("parallel_tools"), scenario, stops=stops,
                           tool_choice={"type": "auto", "disable_parallel_tool_use": True})
    assert len(stops) == scenario.extra["needed_requests_disable_parallel_tool_use"]
    assert scenario.extra["answer_contains"] in answer


def test_e2e_failing_tool_gives_up_cleanly(fake_client):
    def always_down(name, tool_input):
        raise TimeoutError("order service timed out")

    stops: list[str] = []
    answer = seed_001_loop(fake_client("failing_tool"), get_scenario("failing_tool"), run_tool=always_down, stops=stops)
    assert stops == ["tool_use", "tool_use", "tool_use", "end_turn"] and "3 times in a row" in answer


def test_e2e_failing_tool_crashes_a_loop_without_is_error(fake_client):
    scenario = get_scenario("failing_tool")
    client = fake_client("failing_tool")
    messages: list[dict[str, Any]] = [{"role": "user", "content": scenario.prompt}]
    resp = client.messages.create(messages=messages, **request_params(scenario))
    (call,) = [b for b in resp.content if b.type == "tool_use"]
    with pytest.raises(TimeoutError):  # a loop that runs the tool bare dies here
        scenario.run_tool(call.name, call.input)


def test_e2e_refusal_is_returned_and_repeats(fake_client):
    scenario = get_scenario("refusal")
    client = fake_client("refusal")
    assert seed_001_loop(client, scenario) == "I can't help with that request."
    params = request_params(scenario)
    again = client.messages.create(messages=[{"role": "user", "content": scenario.prompt}], **params)
    assert again.stop_reason == "refusal" and again.stop_details.category == "cyber"


@pytest.mark.parametrize("name", ["max_tokens_text", "max_tokens_tool_use"])
def test_e2e_max_tokens_cut_then_enough(fake_client, name):
    scenario = get_scenario(name)
    client = fake_client(name)
    stops: list[str] = []
    with pytest.raises(RuntimeError, match="response cut"):
        seed_001_loop(client, scenario, stops=stops)
    assert stops == ["max_tokens"]
    answer = seed_001_loop(client, scenario, max_tokens=scenario.extra["max_tokens_enough"])
    assert scenario.extra["answer_contains"] in answer


def test_e2e_max_tokens_tool_use_leaves_an_incomplete_call(fake_client):
    scenario = get_scenario("max_tokens_tool_use")
    resp = fake_client("max_tokens_tool_use").messages.create(
        messages=[{"role": "user", "content": scenario.prompt}], **request_params(scenario))
    assert resp.stop_reason == "max_tokens" and resp.content[-1].type == "tool_use"
    assert len(resp.content[-1].input.get("content", "")) < scenario.extra["content_chars"]


def test_e2e_context_window_stops_then_the_prompt_is_too_long(fake_client):
    import anthropic

    scenario = get_scenario("context_window")
    client = fake_client("context_window")
    stops: list[str] = []
    with pytest.raises(RuntimeError, match="unknown stop_reason: model_context_window_exceeded"):
        seed_001_loop(client, scenario, stops=stops)
    assert tuple(stops) == scenario.extra["stop_reasons"]
    # Keep going anyway: the conversation no longer fits.
    messages: list[dict[str, Any]] = [{"role": "user", "content": scenario.prompt}]
    params = request_params(scenario)
    for _ in range(len(stops)):
        resp = client.messages.create(messages=messages, **params)
        messages.append({"role": "assistant", "content": resp.content})
        if resp.stop_reason == "tool_use":
            messages.append({"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": b.id, "content": scenario.run_tool(b.name, b.input)}
                for b in resp.content if b.type == "tool_use"]})
    messages.append({"role": "user", "content": "Continue."})
    with pytest.raises(anthropic.BadRequestError, match="prompt is too long"):
        client.messages.create(messages=messages, **params)


def test_e2e_stop_sequence_without_the_sequence_reads_on(fake_client):
    scenario = get_scenario("stop_sequence")
    resp = fake_client("stop_sequence").messages.create(
        messages=[{"role": "user", "content": scenario.prompt}], **scenario.params())
    assert resp.stop_reason == "end_turn" and "</answer>" in resp.content[0].text
    stopped = fake_client("stop_sequence").messages.create(
        messages=[{"role": "user", "content": scenario.prompt}], **request_params(scenario))
    assert (stopped.stop_reason, stopped.stop_sequence) == ("stop_sequence", "</answer>")


def test_e2e_thinking_blocks_come_back(fake_client):
    scenario = get_scenario("thinking")
    resp = fake_client("thinking").messages.create(
        messages=[{"role": "user", "content": scenario.prompt}], **request_params(scenario))
    assert [b.type for b in resp.content] == ["thinking", "tool_use"] and resp.content[0].signature


def test_e2e_long_task_outlasts_a_ten_step_cap(fake_client):
    scenario = get_scenario("long_task")
    with pytest.raises(RuntimeError, match="not finished after 10 steps"):
        seed_001_loop(fake_client("long_task"), scenario, max_steps=10)  # seed 001's MAX_PASOS


def test_e2e_stuck_model_needs_the_step_cap(fake_client):
    scenario = get_scenario("stuck_model")
    stops: list[str] = []
    with pytest.raises(RuntimeError, match="not finished after 25 steps"):
        seed_001_loop(fake_client("stuck_model"), scenario, stops=stops)
    assert len(stops) == 25 < scenario.request_budget + scenario.runaway_after


def test_e2e_stuck_model_without_a_cap_is_a_runaway(fake_client):
    agentlab = importlib.import_module("agentlab")
    scenario = get_scenario("stuck_model")
    with pytest.raises(agentlab.RunawayLoop):
        seed_001_loop(fake_client("stuck_model"), scenario, max_steps=1000)


def test_e2e_overloaded_without_sdk_retries_raises_529(fake_client):
    import anthropic

    scenario = get_scenario("overloaded")
    client = fake_client("overloaded", max_retries=0)
    with pytest.raises(anthropic.APIStatusError) as info:
        client.messages.create(messages=[{"role": "user", "content": scenario.prompt}], **request_params(scenario))
    assert info.value.status_code == 529


def test_e2e_stream_error_breaks_the_first_stream_only(fake_client):
    import anthropic

    scenario = get_scenario("stream_error")
    client = fake_client("stream_error")
    kwargs = {"messages": [{"role": "user", "content": scenario.prompt}], **request_params(scenario)}
    with pytest.raises(anthropic.APIStatusError):
        with client.messages.stream(**kwargs) as stream:
            stream.get_final_message()
    with client.messages.stream(**kwargs) as stream:
        assert stream.get_final_message().stop_reason == "tool_use"
