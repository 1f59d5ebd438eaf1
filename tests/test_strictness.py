"""The fake's strictness (unknown fields, nested blocks, one result per tool_use_id) never rejects
what a correct loop sends back: every built-in scenario, run by the reference loop and by the
README's loop, appending ``response.content`` verbatim or as ``model_dump()``'d dicts (nulls
kept), streamed or not, gets no error from the rules issue 10 added (4d's nested checks, 4e, 4f,
4g, 16b) and no extra-field text from any rule."""

from __future__ import annotations

from typing import Any

import anthropic
import pytest

import agentlab
from agentlab.fake._catalogue import get_scenario, request_params
from agentlab.loops import run_agent

NEW_RULES = {"4e", "4f", "4g", "16b"}
MAX_STEPS = 14


def assert_never_rejected_as_extra(client: Any) -> int:
    """Every exchange of the client's journal passed the strictness rules; returns the exchange count."""
    exchanges = agentlab.journal(client).exchanges
    for exchange in exchanges:
        message = (exchange.error or {}).get("message", "")
        assert exchange.rule not in NEW_RULES, f"step {exchange.step}: rule {exchange.rule}: {message}"
        assert "Extra inputs are not permitted" not in message
        assert ".tool_result.content." not in message, message
    return len(exchanges)


def as_sent(content: list[Any], mode: str) -> list[Any]:
    if mode == "verbatim":
        return content
    return [block.model_dump(exclude_none=False) for block in content]


def readme_loop(client: anthropic.Anthropic, scenario_name: str, mode: str, *, stream: bool = False,
                extra: dict[str, Any] | None = None) -> None:
    """The README's loop (seed 002's), plus pause_turn handled, on the scenario's lesson parameters.

    It stops (without raising) on any stop reason but tool_use/pause_turn, on an API error (some
    scenarios end in one on purpose, e.g. the context window), and after MAX_STEPS requests.
    """
    scenario = get_scenario(scenario_name)
    params = request_params(scenario)
    if extra:
        params = {**params, "tools": [*params.get("tools", []), *extra.get("tools", [])],
                  **{k: v for k, v in extra.items() if k != "tools"}}
    messages: list[dict[str, Any]] = [{"role": "user", "content": scenario.prompt}]
    for _ in range(MAX_STEPS):
        try:
            if stream:
                with client.messages.stream(messages=messages, **params) as events:
                    response = events.get_final_message()
            else:
                response = client.messages.create(messages=messages, **params)
        except anthropic.APIStatusError:
            return
        messages.append({"role": "assistant", "content": as_sent(response.content, mode)})
        if response.stop_reason == "pause_turn":
            continue
        if response.stop_reason != "tool_use":
            return
        results = []
        for block in response.content:
            if block.type == "tool_use":
                try:
                    output = scenario.run_tool(block.name, block.input)
                    results.append({"type": "tool_result", "tool_use_id": block.id, "content": output})
                except Exception as exc:  # the failing_tool scenario's tool raises on purpose
                    results.append({"type": "tool_result", "tool_use_id": block.id, "content": str(exc),
                                    "is_error": True})
        messages.append({"role": "user", "content": results})


@pytest.mark.parametrize("name", agentlab.scenarios())
@pytest.mark.parametrize("mode", ["verbatim", "model_dump"])
def test_readme_loop_is_never_rejected_by_the_strictness_rules(name: str, mode: str) -> None:
    client = agentlab.fake_client(name, runaway_after=100)
    readme_loop(client, name, mode)
    assert assert_never_rejected_as_extra(client) >= 1


MCP = {"tools": [{"type": "mcp_toolset", "mcp_server_name": "a"}, {"type": "browser_toolset_20260801"}],
       "extra_body": {"mcp_servers": [{"type": "url", "url": "https://a.example/mcp", "name": "a"}]}}


@pytest.mark.parametrize("name", agentlab.scenarios())
def test_every_scenario_runs_with_nameless_toolsets_added(name: str) -> None:
    """A tool without a name (mcp_toolset, browser_toolset_20260801) reaches no rule and no policy
    that reads tool names (``_model._tool_names``, ``_generic._client_tools``, ``_tokens``, the
    catalogue's policies) as a crash or a false 400."""
    plain = agentlab.fake_client(name, runaway_after=100, max_retries=0)
    readme_loop(plain, name, "verbatim")
    client = agentlab.fake_client(name, runaway_after=100, max_retries=0)
    readme_loop(client, name, "verbatim", extra=MCP)
    exchanges = agentlab.journal(client).exchanges
    assert len(exchanges) >= 1
    for exchange in exchanges:
        assert exchange.rule not in ("4c", "4f", "4e", "21", "21b", "23"), (exchange.rule, exchange.error)
    # the toolsets change nothing else: the same rules fire (or none) at the same steps
    assert [e.rule for e in exchanges] == [e.rule for e in agentlab.journal(plain).exchanges]


@pytest.mark.parametrize("name", agentlab.scenarios())
def test_streamed_readme_loop_is_never_rejected_by_the_strictness_rules(name: str) -> None:
    client = agentlab.fake_client(name, runaway_after=100, max_retries=0)
    readme_loop(client, name, "verbatim", stream=True)
    assert assert_never_rejected_as_extra(client) >= 1


@pytest.mark.parametrize("name", agentlab.scenarios())
@pytest.mark.parametrize("lesson_params", [False, True])
def test_reference_loop_is_never_rejected_by_the_strictness_rules(name: str, lesson_params: bool) -> None:
    scenario = get_scenario(name)
    client = agentlab.fake_client(name)
    params: dict[str, Any] = {}
    if lesson_params:
        params = request_params(scenario)
        params.pop("tools", None)
    run_agent(client, scenario.prompt, list(scenario.tools), scenario.run_tool, **params)
    assert assert_never_rejected_as_extra(client) >= 1


def test_the_check_above_would_see_an_extra_field() -> None:
    """The scenario tests can fail: a loop that adds a field gets 4g and the helper says so."""
    client = agentlab.fake_client("weather", max_retries=0)
    with pytest.raises(anthropic.BadRequestError) as info:
        client.messages.create(model="claude-sonnet-5", max_tokens=1024,
                               messages=[{"role": "user", "content": "Hi", "name": "Init"}])
    assert info.value.status_code == 400
    assert info.value.body["error"] == {"type": "invalid_request_error",
                                        "message": "messages.0.name: Extra inputs are not permitted"}
    with pytest.raises(AssertionError, match="rule 4g"):
        assert_never_rejected_as_extra(client)


def test_a_non_string_text_inside_a_tool_result_is_a_400_not_a_transport_crash() -> None:
    client = agentlab.fake_client("weather", max_retries=0)
    tool = get_scenario("weather").tools[0]
    first = client.messages.create(model="claude-sonnet-5", max_tokens=1024, tools=[tool],
                                   messages=[{"role": "user", "content": "Weather in Austin?"}])
    call = next(b for b in first.content if b.type == "tool_use")
    history: list[dict[str, Any]] = [
        {"role": "user", "content": "Weather in Austin?"}, {"role": "assistant", "content": first.content},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": call.id,
                                      "content": [{"type": "text", "text": {"temp": 95}}]}]}]
    with pytest.raises(anthropic.BadRequestError) as info:
        client.messages.create(model="claude-sonnet-5", max_tokens=1024, tools=[tool], messages=history)
    assert info.value.body["error"]["message"] == (
        "messages.2.content.0.tool_result.content.0.text.text: Input should be a valid string")


def test_refusal_under_a_forced_tool_choice_carries_no_tool_call() -> None:
    """Reference section 2: a refusal holds partial (possibly empty) text and stop_details."""
    client = agentlab.fake_client("refusal")
    tool = {"name": "run_exploit", "description": "Run it.", "input_schema": {"type": "object", "properties": {}}}
    for choice in ({"type": "any"}, {"type": "tool", "name": "run_exploit"}, {"type": "auto"}):
        response = client.messages.create(model="claude-sonnet-5", max_tokens=1024, tools=[tool], tool_choice=choice,
                                          messages=[{"role": "user", "content": get_scenario("refusal").prompt}])
        assert response.stop_reason == "refusal"
        assert response.stop_details is not None and response.stop_details.category == "cyber"
        assert not [b for b in response.content if b.type in ("tool_use", "server_tool_use")], choice


def test_a_new_sdk_field_is_accepted_without_a_code_change(monkeypatch: pytest.MonkeyPatch) -> None:
    """The allowed fields are read from the SDK's types: add a field to TextBlockParam and the
    fake accepts it (the cache is rebuilt here to see the patched type)."""
    from anthropic.types import text_block_param

    from agentlab.fake import _shapes

    extended = dict(text_block_param.TextBlockParam.__annotations__, experimental_tag="str")
    monkeypatch.setattr(text_block_param.TextBlockParam, "__annotations__", extended)
    _shapes._class_fields.cache_clear()
    _shapes.request_shape.cache_clear()
    try:
        shape = _shapes.request_shape()
        block = {"type": "text", "text": "Hi", "experimental_tag": "x"}
        assert _shapes.first_extra({"messages": [{"role": "user", "content": [block]}]}, shape) is None
    finally:
        monkeypatch.undo()
        _shapes._class_fields.cache_clear()
        _shapes.request_shape.cache_clear()
    block = {"type": "text", "text": "Hi", "experimental_tag": "x"}
    assert _shapes.first_extra({"messages": [{"role": "user", "content": [block]}]}, _shapes.request_shape()) == (
        "messages", 0, "content", 0, "text", "experimental_tag")

