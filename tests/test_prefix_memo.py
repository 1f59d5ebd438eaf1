"""The prefix memo (agentlab.fake._context.PrefixMemo) only saves time: every request gets exactly
the answer a fresh run would give it, whatever came before on the same client."""

from __future__ import annotations

import json

import httpx2
import pytest

import agentlab
from agentlab.fake import FakeAPI, Scenario, get_scenario, text
from agentlab.loops import reference

MODEL = "claude-sonnet-5"


def post(api: FakeAPI, body: dict) -> httpx2.Response:
    request = httpx2.Request("POST", "https://api.anthropic.com/v1/messages", json=body,
                             headers={"x-api-key": "k", "anthropic-version": "2023-06-01"})
    return api.handle(request)


def fresh_answer(scenario: Scenario, body: dict) -> tuple[int, object]:
    response = post(FakeAPI(scenario, runaway_after=10**6), body)
    payload = json.loads(response.content)
    return response.status_code, payload.get("usage", {}).get("input_tokens") if response.status_code == 200 else payload["error"]["message"]


@pytest.mark.parametrize("name", ["weather", "long_task", "parallel_tools", "thinking", "failing_tool"])
def test_each_request_of_a_loop_gets_what_a_fresh_run_gives(name):
    scenario = get_scenario(name)
    client = agentlab.fake_client(scenario, runaway_after=10**6)
    reference.agent_loop(client, scenario.prompt, list(scenario.tools), scenario.run_tool)
    exchanges = [e for e in agentlab.journal(client) if e.endpoint == "messages"]
    assert len(exchanges) >= 2
    for exchange in exchanges:
        usage = exchange.response["usage"]
        total = usage["input_tokens"] + usage["cache_creation_input_tokens"] + usage["cache_read_input_tokens"]
        status, fresh = fresh_answer(scenario, exchange.request)
        assert status == 200
        fresh_usage_total = fresh  # a fresh run has an empty prompt cache: all input is uncached
        assert total == fresh_usage_total, exchange.index


def _history(n: int) -> list[dict]:
    messages: list[dict] = []
    for i in range(n):
        messages += [{"role": "user", "content": f"Question {i}?"},
                     {"role": "assistant", "content": [{"type": "text", "text": f"Answer {i}."}]}]
    return messages


def test_a_value_equal_under_python_but_not_json_is_validated_again():
    # True == 1 in Python; in JSON they differ, and is_error must be a boolean.
    api = FakeAPI(Scenario(name="memo", replies=(text("ok"),)), runaway_after=10**6)
    tool_turn = [
        {"role": "user", "content": "Go."},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_01", "name": "t", "input": {}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_01", "content": "x", "is_error": True}]},
        {"role": "assistant", "content": [{"type": "text", "text": "Done."}]},
    ]
    tools = [{"name": "t", "input_schema": {"type": "object"}}]
    good = {"model": MODEL, "max_tokens": 100, "tools": tools, "messages": [*tool_turn, {"role": "user", "content": "More?"}]}
    assert post(api, good).status_code == 200
    bad_turn = json.loads(json.dumps(tool_turn))
    bad_turn[2]["content"][0]["is_error"] = 1
    bad = {**good, "messages": [*bad_turn, {"role": "user", "content": "More?"}]}
    response = post(api, bad)
    assert (response.status_code, json.loads(response.content)["error"]["message"]) == fresh_answer(
        Scenario(name="memo", replies=(text("ok"),)), bad)
    assert response.status_code == 400


def test_a_message_trusted_as_final_is_checked_again_when_no_longer_final():
    # An empty final assistant message is allowed (rule 11); the same message followed by more is not.
    api = FakeAPI(Scenario(name="memo", replies=(text("ok"),)), runaway_after=10**6)
    history = _history(3)
    prefill = [*history, {"role": "user", "content": "Next?"}, {"role": "assistant", "content": []}]
    # claude-haiku-4-5 takes a prefill (a final assistant message): the request passes and is remembered
    assert post(api, {"model": "claude-haiku-4-5", "max_tokens": 100, "messages": prefill}).status_code == 200
    later = {"model": "claude-haiku-4-5", "max_tokens": 100, "messages": [*prefill, {"role": "user", "content": "Again?"}]}
    response = post(api, later)
    assert response.status_code == 400
    assert json.loads(response.content)["error"]["message"] == fresh_answer(
        Scenario(name="memo", replies=(text("ok"),)), later)[1]


def test_a_changed_old_message_is_validated_again():
    api = FakeAPI(Scenario(name="memo", replies=(text("ok"),)), runaway_after=10**6)
    history = _history(5)
    assert post(api, {"model": MODEL, "max_tokens": 100, "messages": [*history, {"role": "user", "content": "Q?"}]}).status_code == 200
    changed = json.loads(json.dumps(history))
    changed[3]["content"][0]["text"] = "   "  # a blank text block, rule 12b
    response = post(api, {"model": MODEL, "max_tokens": 100, "messages": [*changed, {"role": "user", "content": "Q?"}]})
    assert response.status_code == 400


def test_the_journal_of_a_long_loop_grows_with_the_conversation_not_its_square():
    import tracemalloc

    from agentlab.fake import tool_uses

    tools = [{"name": "t", "input_schema": {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]}}]
    client = agentlab.fake_client(Scenario(name="long", policy=lambda turn: tool_uses(("t", {"q": "x"})),
                                           needed_requests=10**6), runaway_after=10**6)
    messages: list[dict] = [{"role": "user", "content": "Use t repeatedly."}]
    sizes = {}
    tracemalloc.start()
    try:
        for step in range(160):
            response = client.messages.create(model=MODEL, max_tokens=1024, tools=tools, messages=messages)
            messages += [{"role": "assistant", "content": response.content},
                         {"role": "user", "content": [{"type": "tool_result", "tool_use_id": response.content[0].id,
                                                       "content": "x" * 10_000}]}]
            if step in (79, 159):
                sizes[step] = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    # 80 more steps add 80 results of 10 kB (0.8 MB) plus bookkeeping; a journal holding a fresh copy of
    # the history per request would add about 80 * 120 steps * 10 kB = 96 MB.
    assert sizes[159] - sizes[79] < 8_000_000
    journal = agentlab.journal(client)
    assert journal.sent(159)[2]["content"][0]["content"] == "x" * 10_000  # the journal still holds every request
