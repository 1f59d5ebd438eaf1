"""The generic model: real tool loops with their own tools, tool_choice, is_error, options,
the runaway guard, determinism, and the journal's warning about tools never called."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import jsonschema
import pytest

import agentlab
from agentlab import RunawayLoop
from agentlab.fake import GenericOptions, Scenario, generic
from agentlab.fake._catalogue import WEATHER_TOOL

MODEL = "claude-sonnet-5"

CALCULATOR = {
    "name": "calculator",
    "description": "Evaluate an arithmetic expression.",
    "input_schema": {"type": "object", "properties": {"expression": {"type": "string"}}, "required": ["expression"]},
}
CUSTOMER = {
    "name": "get_customer",
    "description": "Look up a customer record by customer id.",
    "input_schema": {"type": "object", "properties": {
        "customer_id": {"type": "string", "pattern": "^C\\d{4}$"},
        "fields": {"type": "array", "items": {"enum": ["name", "email", "plan"]}, "minItems": 1, "uniqueItems": True},
    }, "required": ["customer_id"]},
}
EMAIL = {
    "name": "send_email",
    "description": "Send an email message.",
    "input_schema": {"type": "object", "properties": {
        "to": {"type": "string", "format": "email"}, "subject": {"type": "string", "maxLength": 60},
        "body": {"type": "string"}, "cc": {"type": ["array", "null"], "items": {"type": "string", "format": "email"}},
        "priority": {"type": "integer", "minimum": 1, "maximum": 5},
    }, "required": ["to", "subject", "body", "priority"], "additionalProperties": False},
}
THREE = [CALCULATOR, CUSTOMER, EMAIL]


def run_three(name: str, tool_input: dict) -> str:
    if name == "calculator":
        return "84"
    if name == "get_customer":
        return json.dumps({"id": tool_input["customer_id"], "name": "Ada Lovelace", "plan": "pro"})
    if name == "send_email":
        return f"queued message to {tool_input['to']}"
    raise ValueError(f"unknown tool: {name}")


def run_weather(name: str, tool_input: dict) -> str:
    if name == "get_weather":
        return f"Weather in {tool_input['city']}: 95F, sunny"
    raise ValueError(f"Unknown tool: {name}")


def agent_loop(client: Any, prompt: str, tools: list[dict], run_tool: Any, **params: Any) -> str:
    """The README's loop (seed 002), with tool errors returned as is_error results."""
    messages: list[dict] = [{"role": "user", "content": prompt}]
    while True:
        response = client.messages.create(model=MODEL, max_tokens=1024, tools=tools, messages=messages, **params)
        if response.stop_reason == "end_turn":
            return "".join(b.text for b in response.content if b.type == "text")
        if response.stop_reason != "tool_use":
            raise RuntimeError(f"Stopped early: {response.stop_reason}")
        results = []
        for b in response.content:
            if b.type != "tool_use":
                continue
            try:
                results.append({"type": "tool_result", "tool_use_id": b.id, "content": run_tool(b.name, b.input)})
            except Exception as exc:  # noqa: BLE001 - a failing tool becomes an is_error result
                results.append({"type": "tool_result", "tool_use_id": b.id, "content": str(exc), "is_error": True})
        messages.append({"role": "assistant", "content": response.content})
        messages.append({"role": "user", "content": results})


def calls(journal: Any) -> list[tuple[str, dict]]:
    return [(b["name"], b["input"]) for e in journal.steps for b in e.content if b["type"] == "tool_use"]


def assert_inputs_valid(journal: Any, tools: list[dict]) -> None:
    schemas = {t["name"]: t["input_schema"] for t in tools}
    for name, tool_input in calls(journal):
        jsonschema.Draft202012Validator(schemas[name], format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER).validate(tool_input)


# ----------------------------------------------------------------------------------------------
# The default client, the README's loop
# ----------------------------------------------------------------------------------------------


def test_generic_is_the_default_of_every_client_maker(fake_anthropic):
    assert agentlab.journal(agentlab.fake_client()).scenario == "generic"
    assert agentlab.journal(agentlab.fake_async_client()).scenario == "generic"
    assert agentlab.journal(agentlab.client()).scenario == "generic"
    fake_anthropic()
    assert fake_anthropic.journal.scenario == "generic"
    assert "generic" in agentlab.scenarios()


def test_the_readme_loop_calls_its_own_tool_and_the_answer_quotes_the_result(fake_anthropic):
    client = fake_anthropic()
    answer = agent_loop(client, "What should I wear in Austin today?", [WEATHER_TOOL], run_weather)
    journal = fake_anthropic.journal
    assert journal.stop_reasons == ["tool_use", "end_turn"]
    assert calls(journal) == [("get_weather", {"city": "Austin"})]
    assert "Weather in Austin: 95F, sunny" in answer and "What should I wear in Austin today?" in answer
    assert journal.warnings == [] and journal.unused_tools == []


def test_three_unrelated_tools_each_called_once_with_call_every_tool():
    client = agentlab.fake_client(generic(call_tools="all"))
    answer = agent_loop(client, "Work out 12 * 7, look up customer C1042 and email them the result.", THREE, run_three)
    journal = agentlab.journal(client)
    assert [name for name, _ in calls(journal)] == ["calculator", "get_customer", "send_email"]
    assert journal.stop_reasons == ["tool_use", "tool_use", "tool_use", "end_turn"]
    assert_inputs_valid(journal, THREE)
    assert calls(journal)[0][1] == {"expression": "12 * 7"}
    assert "calculator" in answer and "84" in answer and "Ada Lovelace" in answer and "queued message" in answer
    assert journal.warnings == []


def test_auto_calls_the_tools_the_prompt_is_about_and_the_journal_warns_about_the_rest():
    client = agentlab.fake_client()
    agent_loop(client, "Please evaluate this arithmetic: 6 * 7", THREE, run_three)
    journal = agentlab.journal(client)
    assert [name for name, _ in calls(journal)] == ["calculator"]
    assert journal.unused_tools == ["get_customer", "send_email"]
    assert "warning: tools sent with the requests but never called in this run: get_customer, send_email" in str(journal)
    assert "nunca llamadas en esta ejecución: get_customer, send_email" in journal.to_text(lang="es")
    assert journal.warnings_in("es") == ["aviso: herramientas enviadas en las peticiones pero nunca llamadas en esta "
                                         "ejecución: get_customer, send_email (nada en esta ejecución las probó)."]
    assert "get_customer, send_email" in journal._repr_html_()
    assert journal.to_dict()["unused_tools"] == ["get_customer", "send_email"]


def test_the_warning_is_for_any_scenario_given_tools_it_never_calls():
    client = agentlab.fake_client("weather")
    agent_loop(client, "What should I wear in Austin today?", [WEATHER_TOOL, EMAIL], run_weather)
    assert agentlab.journal(client).unused_tools == ["send_email"]
    plain = agentlab.fake_client("weather")
    agent_loop(plain, "What should I wear in Austin today?", [WEATHER_TOOL], run_weather)
    assert agentlab.journal(plain).warnings == []
    assert "warning" not in str(agentlab.journal(plain))


def test_parallel_calls_in_one_turn_and_disable_parallel_tool_use_wins():
    client = agentlab.fake_client(generic(call_tools="all", parallel=True))
    agent_loop(client, "Do everything.", THREE, run_three)
    journal = agentlab.journal(client)
    assert journal.stop_reasons == ["tool_use", "end_turn"]
    assert len(journal.step(0).content) == 3
    one = agentlab.fake_client(generic(call_tools="all", parallel=True))
    agent_loop(one, "Do everything.", THREE, run_three, tool_choice={"type": "auto", "disable_parallel_tool_use": True})
    assert agentlab.journal(one).stop_reasons == ["tool_use"] * 3 + ["end_turn"]


def test_a_list_of_names_calls_those_in_that_order():
    client = agentlab.fake_client(generic(call_tools=["send_email", "calculator", "not_sent"]))
    agent_loop(client, "Hello", THREE, run_three)
    assert [name for name, _ in calls(agentlab.journal(client))] == ["send_email", "calculator"]
    first = agentlab.fake_client(generic(call_tools="first"))
    agent_loop(first, "Hello", THREE, run_three)
    assert [name for name, _ in calls(agentlab.journal(first))] == ["calculator"]


def test_an_is_error_result_is_retried_once_with_other_arguments_then_reported_failed():
    attempts: list[dict] = []

    def failing(name: str, tool_input: dict) -> str:
        attempts.append(tool_input)
        raise ConnectionError("mail server down (503)")

    client = agentlab.fake_client(generic(call_tools=["send_email"]))
    answer = agent_loop(client, "Email the team about the outage.", THREE, failing)
    assert len(attempts) == 2 and attempts[0] != attempts[1]
    assert agentlab.journal(client).stop_reasons == ["tool_use", "tool_use", "end_turn"]
    assert "send_email failed" in answer and "mail server down (503)" in answer
    assert "could not get that part done" in answer


def test_a_tool_that_recovers_on_the_retry_is_reported_as_returned():
    seen: list[int] = []

    def flaky(name: str, tool_input: dict) -> str:
        seen.append(1)
        if len(seen) == 1:
            raise TimeoutError("timed out")
        return "84"

    client = agentlab.fake_client(generic(call_tools=["calculator"]))
    answer = agent_loop(client, "12 * 7?", THREE, flaky)
    assert "calculator" in answer and "returned: 84" in answer and "could not" not in answer


def test_tool_choice_none_tool_and_any():
    messages = [{"role": "user", "content": "What should I wear in Austin today?"}]
    client = agentlab.fake_client()
    none = client.messages.create(model=MODEL, max_tokens=512, tools=THREE, messages=messages, tool_choice={"type": "none"})
    assert none.stop_reason == "end_turn" and none.content[0].type == "text"
    assert "Tool use is turned off" in none.content[0].text
    named = client.messages.create(model=MODEL, max_tokens=512, tools=THREE, messages=messages,
                                   tool_choice={"type": "tool", "name": "send_email"})
    assert [(b.type, b.name) for b in named.content] == [("tool_use", "send_email")]
    jsonschema.validate(named.content[0].input, EMAIL["input_schema"])
    # `any` after the plan is done still calls a tool: forced tool use never ends by itself.
    done = [*messages, {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1", "name": "calculator",
                                                           "input": {"expression": "1"}}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "1"}]}]
    auto = client.messages.create(model=MODEL, max_tokens=512, tools=THREE, messages=done, tool_choice={"type": "auto"})
    assert auto.stop_reason == "end_turn"
    forced = client.messages.create(model=MODEL, max_tokens=512, tools=THREE, messages=done, tool_choice={"type": "any"})
    assert forced.stop_reason == "tool_use" and [b.type for b in forced.content] == ["tool_use"]


def test_without_tools_it_answers_text_about_the_prompt():
    client = agentlab.fake_client()
    reply = client.messages.create(model=MODEL, max_tokens=256,
                                   messages=[{"role": "user", "content": "Tell me a fact about otters."}])
    assert reply.stop_reason == "end_turn"
    assert "Tell me a fact about otters." in reply.content[0].text
    assert "No tools came with this request" in reply.content[0].text


def test_steps_bound_the_tool_calling_turns_and_the_request_budget():
    scenario = generic(call_tools="all", steps=2)
    assert scenario.needed_requests == 3
    client = agentlab.fake_client(scenario)
    answer = agent_loop(client, "Do everything.", THREE, run_three)
    assert agentlab.journal(client).stop_reasons == ["tool_use", "tool_use", "end_turn"]
    assert answer.startswith("I stopped after 2 tool-calling turns.")


def test_final_text_is_used_with_its_placeholders():
    client = agentlab.fake_client(generic(final_text="Done with {prompt}!\n{results}"))
    answer = agent_loop(client, "What should I wear in Austin today?", [WEATHER_TOOL], run_weather)
    assert answer.startswith("Done with What should I wear in Austin today?!\n- get_weather(")


def test_a_loop_that_never_stops_is_stopped_by_the_runaway_guard():
    client = agentlab.fake_client()
    messages = [{"role": "user", "content": "What should I wear in Austin today?"}]
    with pytest.raises(RunawayLoop):
        for _ in range(200):  # re-sends the same request forever: never appends the turn
            client.messages.create(model=MODEL, max_tokens=256, tools=[WEATHER_TOOL], messages=messages)
    assert len(agentlab.journal(client).steps) <= get_budget() + 1


def get_budget() -> int:
    scenario = agentlab.fake.get_scenario("generic")
    return scenario.request_budget + scenario.runaway_after


def test_a_forced_tool_loop_is_stopped_too():
    client = agentlab.fake_client()
    with pytest.raises(RunawayLoop):
        agent_loop(client, "Hi", THREE, run_three, tool_choice={"type": "any"})


def test_same_requests_same_bytes_and_a_new_question_starts_a_new_task():
    def transcript() -> list[Any]:
        client = agentlab.fake_client(generic(call_tools="all"))
        agent_loop(client, "Work out 12 * 7 and email customer C1042.", THREE, run_three)
        return [e.to_dict() for e in agentlab.journal(client).steps]

    assert transcript() == transcript()
    client = agentlab.fake_client()
    first = agent_loop(client, "What should I wear in Austin today?", [WEATHER_TOOL], run_weather)
    messages = [{"role": "user", "content": "What should I wear in Austin today?"},
                {"role": "assistant", "content": first},
                {"role": "user", "content": "And in Lima?"}]
    again = client.messages.create(model=MODEL, max_tokens=512, tools=[WEATHER_TOOL], messages=messages)
    assert again.stop_reason == "tool_use" and again.content[0].input == {"city": "Lima"}


def test_async_and_streamed_runs_match_the_sync_run():
    prompt = "Work out 12 * 7 and email customer C1042."
    sync = agentlab.fake_client(generic(call_tools="all"))
    agent_loop(sync, prompt, THREE, run_three)

    async def aloop(client: Any) -> None:
        messages: list[dict] = [{"role": "user", "content": prompt}]
        while True:
            async with client.messages.stream(model=MODEL, max_tokens=1024, tools=THREE, messages=messages) as stream:
                response = await stream.get_final_message()
            if response.stop_reason != "tool_use":
                return
            results = [{"type": "tool_result", "tool_use_id": b.id, "content": run_three(b.name, b.input)}
                       for b in response.content if b.type == "tool_use"]
            messages += [{"role": "assistant", "content": response.content}, {"role": "user", "content": results}]

    aclient = agentlab.fake_async_client(generic(call_tools="all"))
    asyncio.run(aloop(aclient))
    assert [e.response for e in agentlab.journal(aclient).steps] == [e.response for e in agentlab.journal(sync).steps]


def test_strict_tools_get_schema_valid_inputs():
    # a strict tool's schema keeps to the structured-output limits (rule 21e): the bounds of
    # "priority" become an enum (the SDK's transform_schema would move them into the description)
    properties = {**EMAIL["input_schema"]["properties"], "priority": {"type": "integer", "enum": [1, 2, 3, 4, 5]}}
    strict = {**EMAIL, "strict": True, "input_schema": {**EMAIL["input_schema"], "properties": properties}}
    client = agentlab.fake_client(generic(call_tools="all"))
    agent_loop(client, "Send the weekly report to the team", [strict], run_three)
    assert_inputs_valid(agentlab.journal(client), [strict])


MANUAL_THINKING_MODEL = "claude-sonnet-4-6"  # thinking.type "enabled" is a 400 on claude-opus-4-7 and later (rule 24a)


def test_thinking_on_still_runs_the_loop():
    client = agentlab.fake_client(generic(call_tools="all"))
    messages: list[dict] = [{"role": "user", "content": "Work out 12 * 7."}]
    thinking = {"type": "enabled", "budget_tokens": 1024}  # manual thinking: a model that still takes it
    first = client.messages.create(model=MANUAL_THINKING_MODEL, max_tokens=2048, tools=[CALCULATOR], messages=messages, thinking=thinking)
    assert [b.type for b in first.content] == ["thinking", "tool_use"]
    messages += [{"role": "assistant", "content": first.content},
                 {"role": "user", "content": [{"type": "tool_result", "tool_use_id": first.content[1].id, "content": "84"}]}]
    second = client.messages.create(model=MANUAL_THINKING_MODEL, max_tokens=2048, tools=[CALCULATOR], messages=messages,
                                    thinking=thinking)
    assert second.stop_reason == "end_turn" and "84" in second.content[-1].text


def test_options_are_checked():
    with pytest.raises(ValueError, match="call_tools"):
        generic(call_tools="every")
    with pytest.raises(ValueError, match="steps"):
        generic(steps=-1)
    with pytest.raises(TypeError):
        GenericOptions(call_tools=("a", 3))  # type: ignore[arg-type]
    assert isinstance(generic(), Scenario) and generic().name == "generic"


def test_hostile_tool_definitions_never_break_the_reply():
    hostile = [
        {"name": "a", "input_schema": {"type": "object", "properties": {"x": {"type": ["string", "null"]}}, "required": ["x"]}},
        {"name": "b", "input_schema": {"type": "object", "properties": {"x": {"enum": ["p", "q"]}, "y": {"maximum": 1e308}},
                                       "required": ["x", "y", "z"]}},
        {"name": "c", "input_schema": {"type": "object", "$defs": {"T": {"type": "object", "properties": {
            "kids": {"type": "array", "items": {"$ref": "#/$defs/T"}}}, "required": ["kids"]}},
            "properties": {"tree": {"$ref": "#/$defs/T"}}, "required": ["tree"]}},
    ]
    client = agentlab.fake_client(generic(call_tools="all"))
    agent_loop(client, "Go", hostile, lambda name, args: "ok")
    assert [name for name, _ in calls(agentlab.journal(client))] == ["a", "b", "c"]


def test_a_lone_surrogate_in_the_prompt_is_never_echoed():
    from agentlab.fake._scenario import Turn

    turn = Turn(messages=({"role": "user", "content": "Go \ud800 now"},), index=0, model=MODEL, system=None,
                tools=(), tool_choice=None, max_tokens=100)
    reply = generic().reply_for(turn)
    reply.content[0]["text"].encode("utf-8")
    assert "Go ? now" in reply.content[0]["text"]


def test_the_readme_example_runs_as_written(tmp_path):
    """The README's "Test your own agent loop" files, run by pytest with the plugin."""
    import os
    import re
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    readme = (root / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Test your own agent loop with the fake", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```python\n(.*?)```", section, flags=re.S)
    files = {"my_agent.py": blocks[0], "test_my_agent.py": blocks[1]}
    assert blocks[0].startswith("# my_agent.py") and blocks[1].startswith("# test_my_agent.py")
    for name, body in files.items():
        (tmp_path / name).write_text(body, encoding="utf-8")
    (tmp_path / "plain.py").write_text(blocks[3], encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(root), str(tmp_path)])}
    result = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",  # the plugin loads by its entry point
                             str(tmp_path / "test_my_agent.py")], capture_output=True, text=True, env=env, cwd=tmp_path,
                            timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "1 passed" in result.stdout
    plain = subprocess.run([sys.executable, str(tmp_path / "plain.py")], capture_output=True, text=True, env=env,
                           cwd=tmp_path, timeout=120)
    assert plain.returncode == 0, plain.stderr
    assert "Weather in Austin: 95F, sunny" in plain.stdout and "Journal of scenario 'generic'" in plain.stdout


# ----------------------------------------------------------------------------------------------
# Property-based: any tools, any point of the conversation
# ----------------------------------------------------------------------------------------------

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from tests.test_schema_values import SCHEMAS  # noqa: E402


@st.composite
def _turns(draw):
    from agentlab.fake._scenario import Turn

    count = draw(st.integers(1, 4))
    tools = tuple({"name": f"tool_{i}", "description": draw(st.sampled_from(["", "Look up a city", "Send mail"])),
                   "input_schema": {"type": "object", "properties": {"arg": draw(SCHEMAS)}, "required": ["arg"]}}
                  for i in range(count))
    messages: list[dict] = [{"role": "user", "content": draw(st.text(max_size=40)) or "hi"}]
    for k in range(draw(st.integers(0, 3))):
        name = f"tool_{draw(st.integers(0, count - 1))}"
        messages.append({"role": "assistant", "content": [{"type": "tool_use", "id": f"toolu_{k}", "name": name, "input": {}}]})
        messages.append({"role": "user", "content": [{"type": "tool_result", "tool_use_id": f"toolu_{k}",
                                                      "content": draw(st.text(max_size=20)), "is_error": draw(st.booleans())}]})
    choice = draw(st.sampled_from([None, {"type": "auto"}, {"type": "any"}, {"type": "none"},
                                   {"type": "tool", "name": "tool_0"}, {"type": "auto", "disable_parallel_tool_use": True}]))
    return Turn(messages=tuple(messages), index=len(messages) // 2, model=MODEL, system=None, tools=tools,
                tool_choice=choice, max_tokens=1024)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(turn=_turns(), call_tools=st.sampled_from(["auto", "all", "first", "none", ("tool_1", "tool_0")]),
       parallel=st.booleans())
def test_the_policy_never_raises_and_calls_only_request_tools_with_valid_inputs(turn, call_tools, parallel):
    scenario = generic(call_tools=call_tools, parallel=parallel, steps=3)
    first = scenario.reply_for(turn)
    assert first == scenario.reply_for(turn)  # pure
    schemas = {t["name"]: t["input_schema"] for t in turn.tools}
    uses = [b for b in first.content if b["type"] == "tool_use"]
    for block in uses:
        jsonschema.Draft202012Validator(schemas[block["name"]], format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER).validate(block["input"])
    kind = (turn.tool_choice or {}).get("type", "auto")
    if kind == "none":
        assert not uses
    if kind in ("any", "tool"):
        assert len(uses) >= 1
    if not uses:
        assert [b["type"] for b in first.content] == ["text"] and first.content[0]["text"].strip()


# --- Answer tools: the tool meant for the final answer comes last, instead of the final text ---

SUBMIT = {
    "name": "submit_answer",
    "description": "Submit your answer.",
    "input_schema": {"type": "object", "properties": {"answer": {"type": "string"},
                                                      "confidence": {"type": "number", "minimum": 0, "maximum": 1}},
                     "required": ["answer", "confidence"], "additionalProperties": False},
}
FINAL_RESULT = {  # what pydantic-ai sends for output_type=ToolOutput(Ticket)
    "name": "final_result", "description": "The final response which ends this conversation",
    "input_schema": {"type": "object", "properties": {"title": {"type": "string"}}, "required": ["title"]},
}


@pytest.mark.parametrize("answer_tool", [SUBMIT, FINAL_RESULT], ids=["submit_answer", "final_result"])
@pytest.mark.parametrize("choice", [None, {"type": "any"}])
def test_an_answer_tool_is_called_last_with_valid_arguments(answer_tool, choice):
    client = agentlab.fake_client()
    params = {"tool_choice": choice} if choice else {}
    messages: list[dict] = [{"role": "user", "content": "Work out 12 * 7 for me."}]
    names = []
    for _ in range(4):
        reply = client.messages.create(model=MODEL, max_tokens=512, tools=[answer_tool, CALCULATOR],
                                       messages=messages, **params)
        uses = [b for b in reply.content if b.type == "tool_use"]
        if not uses:
            break
        names += [b.name for b in uses]
        if uses[-1].name == answer_tool["name"]:
            jsonschema.validate(uses[-1].input, answer_tool["input_schema"])
            break
        messages += [{"role": "assistant", "content": reply.content},
                     {"role": "user", "content": [{"type": "tool_result", "tool_use_id": b.id, "content": "84"}
                                                  for b in uses]}]
    assert names == ["calculator", answer_tool["name"]]


def test_after_the_answer_tool_returns_the_model_ends_in_text_and_submit_order_is_an_ordinary_tool():
    from agentlab.fake._generic import is_answer_tool

    assert not is_answer_tool({"name": "submit_order", "description": "Place the order."})
    assert is_answer_tool({"name": "final_result_Ticket", "description": "The final response which ends this conversation"})
    assert is_answer_tool({"name": "respond", "description": ""}) and is_answer_tool({"name": "final_answer"})
    client = agentlab.fake_client()
    answer = agent_loop(client, "Work out 12 * 7 for me.", [SUBMIT, CALCULATOR], lambda n, i: "84" if n == "calculator" else "ok")
    assert [n for n, _ in calls(agentlab.journal(client))] == ["calculator", "submit_answer"]
    assert "calculator" in answer


def test_forced_tool_use_calls_every_tool_once_before_repeating_one():
    client = agentlab.fake_client()
    with pytest.raises(RunawayLoop):
        agent_loop(client, "Work out 12 * 7.", THREE, run_three, tool_choice={"type": "any"})
    names = [n for n, _ in calls(agentlab.journal(client))]
    assert names[:3] == ["calculator", "get_customer", "send_email"] and names[3] == "calculator"


def test_instructions_that_give_a_json_schema_get_a_json_answer_valid_under_it():
    schema = {"type": "object", "properties": {"title": {"type": "string"}, "priority": {"enum": ["low", "high"]}},
              "required": ["title", "priority"], "title": "Ticket"}
    system = ("Always respond with a JSON object that's compatible with this schema:\n\n"
              f"{json.dumps(schema)}\n\nDon't include any text or Markdown fencing before or after.")
    client = agentlab.fake_client()
    reply = client.messages.create(model=MODEL, max_tokens=512, system=system,
                                   messages=[{"role": "user", "content": "My kettle is broken."}])
    jsonschema.validate(json.loads(reply.content[0].text), schema)
    plain = client.messages.create(model=MODEL, max_tokens=512, system="Answer in JSON if you like. {not a schema}",
                                   messages=[{"role": "user", "content": "My kettle is broken."}])
    assert plain.content[0].text.startswith("You asked:")


def test_the_first_tool_request_does_not_import_the_slow_iri_grammar():
    """rfc3987_syntax builds a grammar at import (1.3-1.9 s): jsonschema is imported without it."""
    import subprocess
    import sys

    code = ("import sys, agentlab; c = agentlab.fake_client(); c.messages.create(model='claude-sonnet-5', max_tokens=64, "
            "tools=[{'name': 'get_weather', 'input_schema': {'type': 'object', 'properties': {'city': {'type': 'string'}}}}], "
            "messages=[{'role': 'user', 'content': 'Weather in Paris?'}]); "
            "print('jsonschema' in sys.modules, 'rfc3987_syntax' in sys.modules); import rfc3987_syntax")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["True", "False"]


@pytest.mark.parametrize("prompt,city", [("What should I wear in Zürich today?", "Zürich"),
                                         ("Weather in São Paulo?", "São Paulo"),
                                         ("New York weather", "New York"),
                                         ("Is it raining in Rio de Janeiro?", "Rio de Janeiro")])
def test_a_city_gets_the_place_the_prompt_names_and_a_retry_really_differs(prompt, city):
    attempts: list[dict] = []

    def failing(name: str, tool_input: dict) -> str:
        attempts.append(tool_input)
        raise ConnectionError("weather service down (503)")

    client = agentlab.fake_client()
    agent_loop(client, prompt, [WEATHER_TOOL], failing)
    assert attempts[0]["city"] == city
    assert len(attempts) == 2 and attempts[0] != attempts[1]
    jsonschema.validate(attempts[1], WEATHER_TOOL["input_schema"])


# ----------------------------------------------------------------------------------------------
# Thinking on the generic model (issue 10 follow-up: adaptive thinking never thought)
# ----------------------------------------------------------------------------------------------


def _thinking_loop(client: Any, drop_thinking: bool, **params: Any) -> list[list[str]]:
    messages: list[dict] = [{"role": "user", "content": "What should I wear in Austin today?"}]
    kinds = []
    for _ in range(5):
        r = client.messages.create(model=MODEL, max_tokens=4096, tools=[WEATHER_TOOL], messages=messages, **params)
        kinds.append([b.type for b in r.content])
        if r.stop_reason != "tool_use":
            return kinds
        content = [b for b in r.content if b.type != "thinking"] if drop_thinking else r.content
        messages.append({"role": "assistant", "content": content})
        messages.append({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": b.id, "content": run_weather(b.name, b.input)}
            for b in r.content if b.type == "tool_use"]})
    return kinds


def test_adaptive_thinking_starts_every_assistant_turn_and_a_correct_loop_passes():
    kinds = _thinking_loop(agentlab.fake_client(), False, thinking={"type": "adaptive"})
    assert kinds == [["thinking", "tool_use"], ["thinking", "text"]]


def test_a_loop_that_drops_the_thinking_block_gets_the_apis_400_on_the_default_client():
    import anthropic

    with pytest.raises(anthropic.BadRequestError, match="Expected `thinking` or `redacted_thinking`"):
        _thinking_loop(agentlab.fake_client(), True, thinking={"type": "adaptive"})


def test_generic_thinking_is_signed_and_skipped_under_a_forced_tool_with_adaptive_thinking():
    client = agentlab.fake_client()
    r = client.messages.create(model=MODEL, max_tokens=4096, tools=[WEATHER_TOOL], thinking={"type": "adaptive"},
                               messages=[{"role": "user", "content": "Weather in Oslo?"}])
    assert r.content[0].type == "thinking" and r.content[0].signature
    forced = client.messages.create(model=MODEL, max_tokens=4096, tools=[WEATHER_TOOL], thinking={"type": "adaptive"},
                                    tool_choice={"type": "tool", "name": "get_weather"},
                                    messages=[{"role": "user", "content": "Weather in Oslo?"}])
    assert [b.type for b in forced.content] == ["tool_use"]  # reference 3.3: forced tool, no thinking
    off = client.messages.create(model=MODEL, max_tokens=4096, tools=[WEATHER_TOOL],
                                 messages=[{"role": "user", "content": "Weather in Oslo?"}])
    assert [b.type for b in off.content] == ["tool_use"]


# ----------------------------------------------------------------------------------------------
# Server tools (issue 10 follow-up: answered as if they were client tools)
# ----------------------------------------------------------------------------------------------

WEB_SEARCH = {"type": "web_search_20250305", "name": "web_search"}
CODE_EXECUTION = {"type": "code_execution_20250825", "name": "code_execution"}


@pytest.mark.parametrize("tool_choice", [{"type": "tool", "name": "web_search"}, {"type": "any"}, {"type": "auto"}])
def test_a_server_tool_is_used_as_server_tool_use_with_its_result_never_a_client_tool_use(tool_choice):
    client = agentlab.fake_client()
    messages = [{"role": "user", "content": "Latest news on Python 3.15"}]
    r = client.messages.create(model=MODEL, max_tokens=2048, tools=[WEB_SEARCH], tool_choice=tool_choice, messages=messages)
    assert [b.type for b in r.content] == ["server_tool_use", "web_search_tool_result", "text"]
    assert r.stop_reason == "end_turn" and r.usage.server_tool_use.web_search_requests == 1
    call, found = r.content[0], r.content[1]
    assert call.name == "web_search" and call.input == {"query": "Latest news on Python 3.15"}
    assert found.tool_use_id == call.id and len(found.content) == 2
    assert all(res.type == "web_search_result" and res.url.startswith("https://") and res.title for res in found.content)
    assert found.content[0].url in r.content[2].text
    # The turn goes back as is, and a follow-up question is answered.
    messages += [{"role": "assistant", "content": r.content}, {"role": "user", "content": "Thanks. Summarise it."}]
    again = client.messages.create(model=MODEL, max_tokens=2048, tools=[WEB_SEARCH], messages=messages)
    assert again.stop_reason == "end_turn" and again.content
    # Same request, same bytes.
    twin = agentlab.fake_client().messages.create(model=MODEL, max_tokens=2048, tools=[WEB_SEARCH], tool_choice=tool_choice,
                                                  messages=messages[:1])
    assert twin.content[1].model_dump() == found.model_dump()


@pytest.mark.parametrize("tool_choice", [{"type": "tool", "name": "code_execution"}, {"type": "any"}])
def test_a_server_tool_the_fake_cannot_run_is_answered_in_text_not_a_wrong_block(tool_choice):
    r = agentlab.fake_client().messages.create(model=MODEL, max_tokens=2048, tools=[CODE_EXECUTION], tool_choice=tool_choice,
                                               messages=[{"role": "user", "content": "Compute 2**100"}])
    assert [b.type for b in r.content] == ["text"] and "code_execution" in r.content[0].text
    assert r.stop_reason == "end_turn"


def test_forcing_a_server_tool_next_to_client_tools_uses_the_server_tool():
    r = agentlab.fake_client().messages.create(model=MODEL, max_tokens=2048, tools=[WEB_SEARCH, WEATHER_TOOL],
                                               tool_choice={"type": "tool", "name": "web_search"},
                                               messages=[{"role": "user", "content": "Weather in Oslo?"}])
    assert [b.type for b in r.content] == ["server_tool_use", "web_search_tool_result", "text"]
    plain = agentlab.fake_client().messages.create(model=MODEL, max_tokens=2048, tools=[WEB_SEARCH, WEATHER_TOOL],
                                                   messages=[{"role": "user", "content": "Weather in Oslo?"}])
    assert [(b.type, b.name) for b in plain.content] == [("tool_use", "get_weather")]


# ----------------------------------------------------------------------------------------------
# Arguments from the prompt and the task's tool results (issue 10 follow-up: they ignored both)
# ----------------------------------------------------------------------------------------------


def _obj(props: dict, required: list | None = None) -> dict:
    return {"type": "object", "properties": props, "required": required or list(props)}


_S = {"type": "string"}
PLANNER = [
    {"name": "search_flights", "description": "Search flights",
     "input_schema": _obj({"origin": _S, "destination": _S, "date": {"type": "string", "format": "date"}})},
    {"name": "book_flight", "description": "Book a flight", "input_schema": _obj({"flight_id": _S, "passenger_name": _S})},
    {"name": "send_email", "description": "Send an email", "input_schema": _obj({"to": _S, "subject": _S, "body": _S})},
    {"name": "get_weather", "description": "Get the weather for a city", "input_schema": _obj({"city": _S})},
]


def run_planner(name: str, tool_input: dict) -> str:
    if name == "search_flights":
        return json.dumps([{"flight_id": "DL456", "price": 510}, {"flight_id": "AF123", "price": 420}])
    if name == "book_flight":
        return f"booked {tool_input['flight_id']} for {tool_input['passenger_name']}"
    if name == "send_email":
        return "sent"
    return "New York: 20C, cloudy"


def test_a_multi_tool_planner_takes_its_arguments_from_the_prompt_and_earlier_results():
    client = agentlab.fake_client()
    agent_loop(client, "Search flights CDG to JFK on 2027-01-15, book the cheapest for Ann Lee, email ann@example.com, "
               "check weather in New York", PLANNER, run_planner)
    made = dict(calls(agentlab.journal(client)))
    assert made["search_flights"] == {"origin": "CDG", "destination": "JFK", "date": "2027-01-15"}
    assert made["book_flight"] == {"flight_id": "AF123", "passenger_name": "Ann Lee"}
    assert made["send_email"]["to"] == "ann@example.com"
    assert made["get_weather"] == {"city": "New York"}
    assert_inputs_valid(agentlab.journal(client), PLANNER)


@pytest.mark.parametrize("prompt, origin, destination", [
    ("Find flights SFO to LAX", "SFO", "LAX"), ("Flights from Paris to Rome please", "Paris", "Rome")])
def test_origin_and_destination_are_the_two_sides_of_the_prompts_pair(prompt, origin, destination):
    client = agentlab.fake_client(generic(call_tools=["search_flights"]))
    agent_loop(client, prompt, PLANNER, run_planner)
    made = calls(agentlab.journal(client))[0][1]
    assert (made["origin"], made["destination"]) == (origin, destination)


def test_an_entity_the_schema_rejects_is_not_used():
    strict = [{"name": "book_flight", "description": "Book a flight", "input_schema": _obj({
        "flight_id": {"type": "string", "pattern": "^FL\\d{4}$"}, "passenger_name": {"type": "string", "maxLength": 3}})}]
    client = agentlab.fake_client(generic(call_tools=["book_flight"]))
    agent_loop(client, "Book AF123 for Ann Lee", strict, lambda name, tool_input: "ok")
    made = calls(agentlab.journal(client))[0][1]
    assert made["flight_id"] != "AF123" and made["passenger_name"] != "Ann Lee"
    assert_inputs_valid(agentlab.journal(client), strict)
