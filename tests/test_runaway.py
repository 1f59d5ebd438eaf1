"""The runaway guard (issue 10 follow-up): it stops the loops it exists to stop (one that never
stops, one that never appends, one that retries a 400 forever, one that restarts the same
conversation after every answer) and nothing else: independent requests, each with a new
first user message, each get a fresh budget whatever the last stop reason was. And the fake's
per-client bookkeeping (repeat map, held threads, prompt cache, conversation budgets) stays
bounded however many requests a client makes."""

from __future__ import annotations

import anthropic
import pytest

import agentlab
from agentlab import _i18n
from agentlab.fake import FakeAPI, Scenario, get_scenario, text
from agentlab.fake._api import CLIENT_REQUEST_CAP, HISTORY_LIMIT, RUNS_PER_CONVERSATION

from .conftest import WEATHER_TOOL, seed_loop

MODEL = "claude-haiku-4-5"
EXTRACT = {
    "name": "extract",
    "description": "Record the fields found in the document.",
    "input_schema": {"type": "object", "properties": {"title": {"type": "string"}}, "required": ["title"]},
}


def _api(client) -> FakeAPI:
    from agentlab._client import fake_api

    return fake_api(client)


# --- what must NOT be a runaway -----------------------------------------------------------------

def test_forced_tool_extractions_are_independent_requests():
    client = agentlab.fake_client()
    for i in range(400):  # past the old 31st request and the old per-client total of 310
        reply = client.messages.create(model=MODEL, max_tokens=256, tools=[EXTRACT],
                                       tool_choice={"type": "tool", "name": "extract"},
                                       messages=[{"role": "user", "content": f"Doc {i}"}])
        assert reply.stop_reason == "tool_use"


def test_plain_chats_cut_by_max_tokens_are_independent_requests():
    client = agentlab.fake_client(Scenario(name="long", replies=(text("word " * 400),)))
    for i in range(60):
        reply = client.messages.create(model=MODEL, max_tokens=5, messages=[{"role": "user", "content": f"Q {i}"}])
        assert reply.stop_reason == "max_tokens"


def test_end_turn_chats_are_not_capped_at_ten_budgets():
    client = agentlab.fake_client()
    limit = _api(client).request_limit
    for i in range(RUNS_PER_CONVERSATION * limit + 50):  # the old client-wide total, and more
        assert client.messages.create(model=MODEL, max_tokens=64,
                                      messages=[{"role": "user", "content": f"Hello {i}"}]).stop_reason == "end_turn"


def test_interleaved_conversations_each_keep_their_own_budget(tiny):
    """An orchestrator and its sub-agent calls alternate on one client: neither resets the other."""
    client = agentlab.fake_client(tiny)
    for i in range(40):
        assert seed_loop(client, tiny.prompt, [WEATHER_TOOL], tiny.run_tool) == "Wear shorts."
        client.messages.create(model="claude-sonnet-5", max_tokens=64, messages=[{"role": "user", "content": f"Sub-task {i}"}])


# --- what must still be a runaway ---------------------------------------------------------------

def test_a_growing_conversation_is_stopped_even_between_independent_requests():
    """A loop that never stops is stopped although other conversations run in between."""
    client = agentlab.fake_client(Scenario(name="loops", tools=(WEATHER_TOOL,), replies=(text("Hi"),),
                                           runaway_after=2, needed_requests=1))
    history = [{"role": "user", "content": "Go on forever"}]
    with pytest.raises(agentlab.RunawayLoop) as info:
        for i in range(10):
            client.messages.create(model="claude-sonnet-5", max_tokens=100, messages=history)
            history = [*history, {"role": "assistant", "content": "Hi"}, {"role": "user", "content": "More"}]
            client.messages.create(model="claude-sonnet-5", max_tokens=100, messages=[{"role": "user", "content": f"Other {i}"}])
    assert (info.value.scope, info.value.requests, info.value.limit) == ("run", 4, 3)
    assert "runaway loop" in str(info.value)


def test_the_same_request_resent_after_max_tokens_is_a_runaway():
    client = agentlab.fake_client(Scenario(name="long", replies=(text("word " * 400),)))
    limit = _api(client).request_limit
    sent = 0
    with pytest.raises(agentlab.RunawayLoop) as info:
        while True:
            sent += 1
            client.messages.create(model=MODEL, max_tokens=5, messages=[{"role": "user", "content": "Same"}])
    assert sent == limit + 1 and info.value.scope == "run"
    assert [e.repeat_of for e in agentlab.journal(client).steps[1:3]] == [0, 0]


def test_a_single_message_400_retried_forever_is_a_runaway():
    client = agentlab.fake_client(max_retries=0)
    limit = _api(client).request_limit
    sent = 0
    with pytest.raises(agentlab.RunawayLoop):
        while True:
            sent += 1
            try:
                client.messages.create(model=MODEL, max_tokens=0, messages=[{"role": "user", "content": "Hi"}])
            except anthropic.BadRequestError:
                pass
    assert sent == limit + 1


@pytest.mark.parametrize(("lang", "words"), [("en", "same conversation"), ("es", "misma conversación")])
def test_a_loop_that_restarts_the_same_conversation_after_every_answer_is_stopped(monkeypatch, tiny, lang, words):
    monkeypatch.setattr(_i18n, "_chosen", lang)
    client = agentlab.fake_client(tiny)
    limit = _api(client).request_limit
    runs = 0
    with pytest.raises(agentlab.RunawayLoop) as info:
        while True:
            seed_loop(client, tiny.prompt, [WEATHER_TOOL], tiny.run_tool)
            runs += 1
    error = info.value
    assert runs == RUNS_PER_CONVERSATION * limit // 2 and error.scope == "conversation" and error.per_client
    assert (error.requests, error.limit) == (RUNS_PER_CONVERSATION * limit + 1, RUNS_PER_CONVERSATION * limit)
    assert words in str(error) and "agentlab.fake_client(" in str(error)


def test_the_client_wide_cap_is_far_above_honest_use():
    api = FakeAPI(get_scenario("generic"))
    assert api.client_limit >= CLIENT_REQUEST_CAP >= 10 * HISTORY_LIMIT
    assert FakeAPI(get_scenario("generic"), runaway_after=10**6).client_limit > 10**6


def test_once_raised_every_later_request_raises_the_same_message(tiny):
    client = agentlab.fake_client(tiny, runaway_after=0)
    with pytest.raises(agentlab.RunawayLoop) as first:
        while True:
            client.messages.create(model="claude-sonnet-5", max_tokens=64, tools=[WEATHER_TOOL],
                                   messages=[{"role": "user", "content": tiny.prompt}])
    with pytest.raises(agentlab.RunawayLoop) as again:
        client.messages.create(model="claude-sonnet-5", max_tokens=64, messages=[{"role": "user", "content": "New task"}])
    assert str(again.value) == str(first.value)


# --- bounded bookkeeping ------------------------------------------------------------------------

def test_bookkeeping_stays_bounded_over_many_requests():
    """6,000 distinct 3 KB requests with caching and threads: every per-client table stays at its cap."""
    scenario = get_scenario("generic")
    client = agentlab.fake_client(scenario, runaway_after=10**6)
    api = _api(client)
    pad = "x" * 3000
    sizes = []
    previous = None
    for i in range(6000):
        extra = {}
        if i % 3 == 1 and previous is not None:
            extra = {"extra_body": {"thread": {"type": "continue", "previous_message_id": previous}},
                     "extra_headers": {"anthropic-beta": "message-threads-2026-08-12"}}
            messages = [{"role": "user", "content": f"and {i}"}]
        else:
            extra = {"extra_body": {"thread": {"type": "create"}},
                     "extra_headers": {"anthropic-beta": "message-threads-2026-08-12"}} if i % 3 == 0 else {}
            messages = [{"role": "user", "content": [{"type": "text", "text": f"{i} {pad}" * 2,
                                                      "cache_control": {"type": "ephemeral"}}]}]
        reply = client.messages.create(model=MODEL, max_tokens=32, messages=messages, **extra)
        previous = reply.id if i % 3 == 0 else None
        if i % 1000 == 999:
            sizes.append((len(api._seen), len(api._threads), len(api.cache._entries), len(api._conversations)))
    assert sizes[-1] == sizes[-2] == sizes[-3]  # flat after the first few thousand
    seen, threads, cache, conversations = sizes[-1]
    assert seen <= HISTORY_LIMIT and threads <= HISTORY_LIMIT and conversations <= HISTORY_LIMIT
    assert 0 < cache <= HISTORY_LIMIT
    assert all(isinstance(k, bytes) and len(k) <= 32 for k in api._seen)  # digests, not raw bodies


def test_repeat_detection_still_names_the_first_step():
    client = agentlab.fake_client()
    for _ in range(3):
        client.messages.create(model=MODEL, max_tokens=64, messages=[{"role": "user", "content": "Again"}])
    assert [e.repeat_of for e in agentlab.journal(client).steps] == [None, 0, 0]
