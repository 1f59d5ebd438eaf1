"""Property-based tests: whatever message array arrives, the fake answers 200 with a valid
Message (or a valid stream) or a well-formed 4xx, and never crashes."""

from __future__ import annotations

import json

import anthropic
import httpx2
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentlab.fake import FakeAPI, get_scenario

ROLES = st.sampled_from(["user", "assistant", "user", "assistant", "system", "tool", None])
IDS = st.sampled_from(["toolu_01A", "toolu_01B", "bad id!", "", "srvtoolu_01C"])
TEXTS = st.sampled_from(["", " ", "Hi", "What should I wear?", "Weather in Austin: 95F", "\n"])

BLOCK = st.one_of(
    st.fixed_dictionaries({"type": st.just("text"), "text": TEXTS}),
    st.fixed_dictionaries({"type": st.just("tool_use"), "id": IDS, "name": st.sampled_from(["get_weather", "nope"]),
                           "input": st.sampled_from([{}, {"city": "Austin"}])}),
    st.fixed_dictionaries({"type": st.just("tool_result"), "tool_use_id": IDS,
                           "content": st.one_of(TEXTS, st.just([{"type": "text", "text": "ok"}]))},
                          optional={"is_error": st.booleans()}),
    st.fixed_dictionaries({"type": st.just("thinking"), "thinking": TEXTS, "signature": st.sampled_from(["", "EqX"])}),
    st.fixed_dictionaries({"type": st.just("server_tool_use"), "id": IDS, "name": st.just("web_search"),
                           "input": st.just({"query": "q"})}),
    st.sampled_from([None, 3, "text", [], {"type": 7}, {"no_type": True}]),
)
MESSAGE = st.one_of(
    st.fixed_dictionaries({"role": ROLES, "content": st.one_of(TEXTS, st.lists(BLOCK, max_size=4))}),
    st.sampled_from([None, "hello", {"role": "user"}, {"content": "x"}, []]),
)
BODY = st.fixed_dictionaries(
    {"model": st.sampled_from(["claude-sonnet-5", "claude-opus-4-7", "claude-opus-4-5-20251101"]),
     "max_tokens": st.sampled_from([1024, 0, 5, -1, "many", 200_000]),
     "messages": st.lists(MESSAGE, max_size=7)},
    optional={
        "tools": st.sampled_from([[get_scenario("weather").tools[0]], [], "tools",
                                  [{"type": "web_search_20250305", "name": "web_search"}]]),
        "tool_choice": st.sampled_from([{"type": "auto"}, {"type": "any"}, {"type": "none"},
                                        {"type": "tool", "name": "get_weather"}, {"type": "bogus"}, "any"]),
        "thinking": st.sampled_from([{"type": "enabled", "budget_tokens": 2048}, {"type": "adaptive"},
                                     {"type": "enabled", "budget_tokens": 10}, {"type": "disabled"}, "on"]),
        "stop_sequences": st.sampled_from([["</answer>"], [], "stop", [3]]),
        "system": st.sampled_from(["Be brief.", [{"type": "text", "text": "Be brief."}], 5]),
        "stream": st.booleans(),
        "cache_control": st.just({"type": "ephemeral"}),
    },
)


def _post(api: FakeAPI, body: dict, path: str = "/v1/messages") -> httpx2.Response:
    request = httpx2.Request("POST", f"https://api.anthropic.com{path}", json=body,
                             headers={"authorization": "Bearer k", "anthropic-version": "2026-10-21"})
    request.read()
    return api.handle(request)


def _check(response: httpx2.Response, streamed: bool) -> None:
    assert response.headers["request-id"].startswith("req_")
    if response.status_code == 200:
        if streamed:
            events = [json.loads(line[6:]) for line in response.text.splitlines() if line.startswith("data: ")]
            names = [line[7:] for line in response.text.splitlines() if line.startswith("event: ")]
            assert [e["type"] for e in events] == names
            assert names[0] == "message_start" and names[-1] == "message_stop"
        else:
            message = anthropic.types.Message.model_validate(response.json())
            assert message.stop_reason is not None
            assert message.usage.output_tokens >= 0
            has_call = any(b.type == "tool_use" for b in message.content)
            cut = message.stop_reason in ("max_tokens", "model_context_window_exceeded")
            assert (message.stop_reason == "tool_use") == (has_call and not cut)  # reference rule 36
        return
    assert response.status_code in (400, 401, 404, 413), response.status_code
    body = response.json()
    assert body["type"] == "error" and body["request_id"] == response.headers["request-id"]
    assert isinstance(body["error"]["type"], str) and body["error"]["message"]
    assert response.headers["x-should-retry"] == "false"


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(BODY)
def test_random_requests_get_a_message_or_a_well_formed_error(body):
    api = FakeAPI(get_scenario("weather"), runaway_after=10**6)
    _check(_post(api, body), streamed=body.get("stream") is True)


@settings(max_examples=100, deadline=None)
@given(BODY)
def test_count_tokens_never_crashes(body):
    api = FakeAPI(get_scenario("weather"))
    body = {k: v for k, v in body.items() if k not in ("max_tokens", "stream")}
    response = _post(api, body, "/v1/messages/count_tokens")
    if response.status_code == 200:
        assert isinstance(response.json()["input_tokens"], int)
    else:
        _check(response, streamed=False)


@settings(max_examples=60, deadline=None)
@given(st.binary(max_size=200))
def test_random_bytes_are_a_400_not_a_crash(raw):
    api = FakeAPI(get_scenario("weather"))
    request = httpx2.Request("POST", "https://api.anthropic.com/v1/messages", content=raw,
                             headers={"authorization": "Bearer k"})
    request.read()
    response = api.handle(request)
    assert response.status_code in (200, 400)


@st.composite
def plausible_conversation(draw) -> list[dict]:
    """Mostly valid conversations with the faults learners make: a missing assistant turn,
    text before the results, extra text after them, a missing or duplicated result, a prefill."""
    messages: list[dict] = [{"role": "user", "content": draw(st.sampled_from(["What should I wear?", "Hi"]))}]
    for k in range(draw(st.integers(0, 3))):
        call = {"type": "tool_use", "id": f"toolu_01{k}", "name": "get_weather", "input": {"city": "Austin"}}
        result = {"type": "tool_result", "tool_use_id": f"toolu_01{k}", "content": "95F"}
        fault = draw(st.sampled_from(["none", "none", "none", "no_assistant", "text_first", "text_after",
                                      "no_result", "twice", "error"]))
        if fault != "no_assistant":
            messages.append({"role": "assistant", "content": [{"type": "text", "text": "Checking."}, call]})
        content = [result]
        if fault == "text_first":
            content = [{"type": "text", "text": "Here:"}, result]
        elif fault == "text_after":
            content = [result, {"type": "text", "text": "Go on."}]
        elif fault == "no_result":
            content = [{"type": "text", "text": "Go on."}]
        elif fault == "twice":
            content = [result, result]
        elif fault == "error":
            content = [{**result, "is_error": True}]
        messages.append({"role": "user", "content": content})
    if draw(st.booleans()):
        messages.append({"role": "assistant", "content": draw(st.sampled_from(["It is", "Sure ", ""]))})
    return messages


PLAUSIBLE = st.fixed_dictionaries(
    {"model": st.sampled_from(["claude-sonnet-5", "claude-opus-4-5-20251101"]),
     "max_tokens": st.sampled_from([1, 16, 1024]),
     "messages": plausible_conversation(),
     "tools": st.just([get_scenario("weather").tools[0]])},
    optional={"stream": st.booleans(), "stop_sequences": st.just(["sunny"]),
              "tool_choice": st.sampled_from([{"type": "any"}, {"type": "none"},
                                              {"type": "auto", "disable_parallel_tool_use": True}])},
)


@settings(max_examples=300, deadline=None)
@given(PLAUSIBLE)
def test_plausible_conversations_get_a_message_or_a_well_formed_error(body):
    api = FakeAPI(get_scenario("weather"), runaway_after=10**6)
    _check(_post(api, body), streamed=body.get("stream") is True)


def test_plausible_strategy_reaches_both_outcomes():
    """Guard against a strategy that only ever produces errors (or only successes)."""
    statuses = set()

    @settings(max_examples=200, deadline=None, database=None)
    @given(PLAUSIBLE)
    def collect(body):
        statuses.add(_post(FakeAPI(get_scenario("weather"), runaway_after=10**6), body).status_code)

    collect()
    assert {200, 400} <= statuses
