"""The fake under the real SDK: stop reasons, streaming parity, async, faults, journal, threads."""

from __future__ import annotations

import asyncio
import json

import anthropic
import httpx2
import pytest

import agentlab
from agentlab.fake import (
    FakeAPI,
    FakeTransport,
    Scenario,
    ValidationOptions,
    fault,
    refusal,
    server_tool_use,
    stream_error,
    text,
    thinking,
    tool_use,
    tool_uses,
)

from .conftest import WEATHER_TOOL, run_weather, seed_loop

USER = [{"role": "user", "content": "What should I wear in Austin today?"}]
LONG = " ".join(f"Sentence {i} of a long answer about the weather." for i in range(400))  # ~5,000 tokens
WRITE_TOOL = {
    "name": "write_file",
    "description": "Write a file.",
    "input_schema": {"type": "object", "properties": {"path": {"type": "string"}, "content": {"type": "string"}},
                     "required": ["path", "content"]},
}
SEARCH_TOOL = {"type": "web_search_20250305", "name": "web_search", "max_uses": 5}


def scenario(name: str, *replies, tools=(WEATHER_TOOL,), **kw) -> Scenario:
    return Scenario(name=name, tools=tools, replies=tuple(replies), run_tool=run_weather, **kw)


def create(client, **kw):
    kw.setdefault("model", "claude-sonnet-5")
    kw.setdefault("max_tokens", 1024)
    kw.setdefault("messages", USER)
    return client.messages.create(**kw)


def stream_final(client, **kw):
    kw.setdefault("model", "claude-sonnet-5")
    kw.setdefault("max_tokens", 1024)
    kw.setdefault("messages", USER)
    with client.messages.stream(**kw) as s:
        return s.get_final_message()


STOP_REASON_CASES = {
    "end_turn": (scenario("s_end", text("Wear shorts.")), {}),
    "tool_use": (scenario("s_tool", tool_use("get_weather", {"city": "Austin"}, text="Let me check.")), {"tools": [WEATHER_TOOL]}),
    "max_tokens": (scenario("s_max", text(LONG)), {}),
    "stop_sequence": (scenario("s_stop", text("Shorts.</answer> and more")), {"stop_sequences": ["</answer>"]}),
    "pause_turn": (scenario("s_pause", server_tool_use("web_search", {"query": "austin weather"}, text="Searching."), tools=(SEARCH_TOOL,)), {"tools": [SEARCH_TOOL]}),
    "refusal": (scenario("s_refusal", refusal("I can", category="cyber", explanation="Not this.")), {}),
    "model_context_window_exceeded": (
        scenario("s_window", text(LONG), validation=ValidationOptions(context_window=1500)), {"max_tokens": 4096}),
}


@pytest.mark.parametrize("stop_reason", sorted(STOP_REASON_CASES))
def test_each_stop_reason_json_and_sse_agree(stop_reason):
    sc, kw = STOP_REASON_CASES[stop_reason]
    from_json = create(agentlab.fake_client(sc), **kw)
    from_sse = stream_final(agentlab.fake_client(sc), **kw)
    assert from_json.stop_reason == stop_reason
    assert from_sse.model_dump(exclude={"content"}) == from_json.model_dump(exclude={"content"})
    assert [b.model_dump(exclude={"parsed_output"}) for b in from_sse.content] == [b.model_dump() for b in from_json.content]


def test_stop_reason_table_covers_the_sdk_literal():
    from typing import get_args

    from anthropic.types import StopReason

    assert set(STOP_REASON_CASES) == set(get_args(StopReason))


@pytest.mark.parametrize("stop_reason", sorted(STOP_REASON_CASES))
def test_async_client_gives_the_same_message(stop_reason):
    sc, kw = STOP_REASON_CASES[stop_reason]
    sync = create(agentlab.fake_client(sc), **kw)

    async def main():
        client = agentlab.fake_async_client(sc)
        kw2 = {"model": "claude-sonnet-5", "max_tokens": 1024, "messages": USER, **kw}
        created = await client.messages.create(**kw2)
        async with client.messages.stream(**kw2) as s:
            streamed = await s.get_final_message()
        return created, streamed

    created, streamed = asyncio.run(main())
    assert created.model_dump() == sync.model_dump()
    assert streamed.stop_reason == sync.stop_reason
    assert [b.type for b in streamed.content] == [b.type for b in sync.content]


def test_seed_002_loop_runs_and_uses_the_tool_result(tiny):
    client = agentlab.fake_client(tiny)
    assert seed_loop(client, tiny.prompt, list(tiny.tools), tiny.run_tool) == "Wear shorts."
    assert agentlab.journal(client).stop_reasons == ["tool_use", "end_turn"]


def test_missing_assistant_turn_is_the_real_bad_request(tiny):
    client = agentlab.fake_client(tiny)
    first = create(client, tools=[WEATHER_TOOL])
    call = next(b for b in first.content if b.type == "tool_use")
    with pytest.raises(anthropic.BadRequestError) as info:
        create(client, tools=[WEATHER_TOOL], messages=[
            *USER, {"role": "user", "content": [{"type": "tool_result", "tool_use_id": call.id, "content": "95F"}]}])
    err = info.value
    assert err.status_code == 400
    assert err.body["error"]["type"] == "invalid_request_error"
    assert err.body["error"]["message"] == (
        f"messages.1.content.0: unexpected `tool_use_id` found in `tool_result` blocks: {call.id}. "
        "Each `tool_result` block must have a corresponding `tool_use` block in the previous message.")
    assert err.request_id and err.request_id.startswith("req_")
    assert err.response.headers["x-should-retry"] == "false"


def test_reply_depends_on_conversation_state_not_call_count(tiny):
    client = agentlab.fake_client(tiny)
    a = create(client, tools=[WEATHER_TOOL])
    b = create(client, tools=[WEATHER_TOOL])
    assert a.stop_reason == b.stop_reason == "tool_use"
    assert a.id != b.id  # a new response each time
    assert agentlab.journal(client).step(1).repeat_of == 0


def test_max_tokens_cut_inside_tool_use_leaves_partial_json():
    big = "x" * 12_000  # 3,000 tokens of file content
    sc = scenario("cut_tool", tool_use("write_file", {"path": "notes.txt", "content": big}), text("Done."), tools=(WRITE_TOOL,))
    client = agentlab.fake_client(sc)
    cut = create(client, tools=[WRITE_TOOL], max_tokens=1024)
    assert cut.stop_reason == "max_tokens"
    assert cut.usage.output_tokens == 1024
    last = cut.content[-1]
    assert last.type == "tool_use" and last.input == {"path": "notes.txt"}  # content was cut off
    streamed = stream_final(agentlab.fake_client(sc), tools=[WRITE_TOOL], max_tokens=1024)
    assert streamed.content[-1].input == last.input
    whole = create(client, tools=[WRITE_TOOL], max_tokens=4096)
    assert whole.stop_reason == "tool_use" and whole.content[-1].input["content"] == big


def test_max_tokens_in_text_and_paying_again_for_the_same_cut():
    client = agentlab.fake_client(scenario("cut_text", text(LONG)))
    first, again = create(client), create(client)
    assert first.stop_reason == again.stop_reason == "max_tokens"
    assert first.content[0].text == again.content[0].text == LONG[: 1024 * 4]
    journal = agentlab.journal(client)
    assert journal.repeats == [journal.step(1)]
    assert journal.cost_usd == pytest.approx(2 * journal.step(0).cost_usd)


def test_stop_sequence_stops_before_the_sequence():
    msg = create(agentlab.fake_client(STOP_REASON_CASES["stop_sequence"][0]), stop_sequences=["</answer>"])
    assert msg.stop_reason == "stop_sequence" and msg.stop_sequence == "</answer>"
    assert msg.content[0].text == "Shorts."


def test_tool_choice_is_honoured():
    sc = scenario("choice", text("No tool needed."))
    forced = create(agentlab.fake_client(sc), tools=[WEATHER_TOOL], tool_choice={"type": "any"})
    assert forced.stop_reason == "tool_use" and [b.type for b in forced.content] == ["tool_use"]
    named = create(agentlab.fake_client(sc), tools=[WEATHER_TOOL], tool_choice={"type": "tool", "name": "get_weather"})
    assert named.content[0].name == "get_weather" and named.content[0].input == {"city": "Austin"}  # the prompt's city
    sc2 = scenario("choice2", tool_use("get_weather", {"city": "Austin"}))
    none = create(agentlab.fake_client(sc2), tools=[WEATHER_TOOL], tool_choice={"type": "none"})
    assert none.stop_reason == "end_turn" and all(b.type == "text" for b in none.content)


def test_disable_parallel_tool_use_keeps_one_call():
    sc = scenario("par", tool_uses(("get_weather", {"city": "Paris"}), ("get_weather", {"city": "Rome"})))
    both = create(agentlab.fake_client(sc), tools=[WEATHER_TOOL])
    one = create(agentlab.fake_client(sc), tools=[WEATHER_TOOL], tool_choice={"type": "auto", "disable_parallel_tool_use": True})
    assert [b.input["city"] for b in both.content] == ["Paris", "Rome"]
    assert [b.input["city"] for b in one.content] == ["Paris"]


def test_text_after_tool_results_gives_an_empty_end_turn(tiny):
    client = agentlab.fake_client(tiny)
    first = create(client, tools=[WEATHER_TOOL])
    call = next(b for b in first.content if b.type == "tool_use")
    msg = create(client, tools=[WEATHER_TOOL], messages=[
        *USER, {"role": "assistant", "content": first.content},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": call.id, "content": "95F"},
                                      {"type": "text", "text": "Please continue."}]}])
    assert msg.stop_reason == "end_turn" and msg.content == [] and msg.usage.output_tokens >= 1


def test_model_without_the_tool_does_not_call_it(tiny):
    msg = create(agentlab.fake_client(tiny))  # no tools sent
    assert msg.stop_reason == "end_turn" and "get_weather" in msg.content[-1].text


def test_pause_turn_continuation_is_accepted_and_continues():
    sc = scenario("pause", server_tool_use("web_search", {"query": "austin"}, text="Searching."), text("It is hot."), tools=(SEARCH_TOOL,))
    client = agentlab.fake_client(sc)
    paused = create(client, tools=[SEARCH_TOOL])
    assert paused.stop_reason == "pause_turn" and paused.content[-1].type == "server_tool_use"
    assert paused.content[-1].id.startswith("srvtoolu_")
    done = create(client, tools=[SEARCH_TOOL], messages=[*USER, {"role": "assistant", "content": paused.content}])
    assert done.stop_reason == "end_turn"


def test_refusal_carries_stop_details_and_repeats():
    client = agentlab.fake_client(STOP_REASON_CASES["refusal"][0])
    msg = create(client)
    assert msg.stop_details.type == "refusal" and msg.stop_details.category == "cyber"
    assert create(client).stop_reason == "refusal"


def test_context_window_gives_the_stop_reason_then_prompt_too_long():
    sc = scenario("window", text(LONG), validation=ValidationOptions(context_window=1500))
    client = agentlab.fake_client(sc)
    msg = create(client, max_tokens=4096)
    assert msg.stop_reason == "model_context_window_exceeded"
    assert msg.usage.input_tokens + msg.usage.output_tokens == 1500
    with pytest.raises(anthropic.BadRequestError) as info:
        create(client, messages=[{"role": "user", "content": "x" * 8000}])
    assert info.value.body["error"]["message"].startswith("prompt is too long: ")


def test_count_tokens_equals_input_tokens(tiny):
    client = agentlab.fake_client(tiny)
    msg = create(client, tools=[WEATHER_TOOL], system="Be brief.")
    counted = client.messages.count_tokens(model="claude-sonnet-5", messages=USER, tools=[WEATHER_TOOL], system="Be brief.")
    assert counted.input_tokens == msg.usage.input_tokens
    assert agentlab.journal(client).steps == [agentlab.journal(client)[0]]  # count_tokens is not a step


def test_input_tokens_grow_with_history(tiny):
    client = agentlab.fake_client(tiny)
    seed_loop(client, tiny.prompt, list(tiny.tools), tiny.run_tool)
    usage = [e.usage["input_tokens"] for e in agentlab.journal(client).steps]
    assert usage[1] > usage[0]
    assert all("cache_read_input_tokens" in e.usage and "cache_creation_input_tokens" in e.usage
               for e in agentlab.journal(client).steps)


@pytest.mark.parametrize("status,cls", [(429, anthropic.RateLimitError), (500, anthropic.InternalServerError),
                                        (529, anthropic.OverloadedError)])
def test_http_faults_are_retried_by_the_sdk(status, cls):
    sc = scenario(f"fault{status}", fault(status, times=2, then=text("Recovered.")))
    client = agentlab.fake_client(sc)
    assert create(client).content[0].text == "Recovered."
    journal = agentlab.journal(client)
    assert [e.status for e in journal] == [status, status, 200]
    assert [e.attempt for e in journal] == [0, 1, 2]
    with pytest.raises(cls) as info:
        create(agentlab.fake_client(sc, max_retries=0))
    assert info.value.response.headers["retry-after-ms"] == "1"


def test_mid_stream_error_raises_api_status_error_with_200():
    sc = scenario("midstream", stream_error(then=text("Streamed answer, eventually."), after_events=3))
    client = agentlab.fake_client(sc)
    with pytest.raises(anthropic.APIStatusError) as info:
        stream_final(client)
    assert info.value.status_code == 200 and info.value.type == "overloaded_error"
    assert stream_final(client).content[0].text == "Streamed answer, eventually."  # second attempt succeeds
    assert create(agentlab.fake_client(sc)).stop_reason == "end_turn"  # non-streaming is unaffected


def test_runaway_loop_cannot_be_swallowed_by_except_exception(tiny):
    client = agentlab.fake_client(tiny, runaway_after=3)
    calls = 0
    with pytest.raises(agentlab.RunawayLoop) as info:
        while True:
            try:
                calls += 1
                create(client, tools=[WEATHER_TOOL])  # never appends anything: same request forever
            except Exception:  # noqa: BLE001 - the point of the test
                pass
    assert calls == 2 + 3 + 1
    assert isinstance(info.value, BaseException) and not isinstance(info.value, Exception)
    assert "tiny" in str(info.value)


def test_same_input_same_bytes(tiny):
    def run() -> list[bytes]:
        out = []
        api = FakeAPI(tiny)
        transport = FakeTransport(api)

        def recorder(request):
            response = transport.handle_request(request)
            out.append(response.read())
            return response

        client = anthropic.Anthropic(api_key="k", http_client=httpx2.Client(transport=httpx2.MockTransport(recorder)))
        seed_loop(client, tiny.prompt, list(tiny.tools), tiny.run_tool)
        with client.messages.stream(model="claude-sonnet-5", max_tokens=1024, messages=USER, tools=[WEATHER_TOOL]) as s:
            s.until_done()
        return out

    first, second = run(), run()
    assert first == second and len(first) == 3


def test_thinking_round_trip_and_tampering():
    sc = scenario("think", thinking("The user is in Austin; check the weather.", tool_use("get_weather", {"city": "Austin"})),
                  thinking("95F means light clothes.", text("Wear shorts.")))
    params = {"model": "claude-sonnet-4-6", "max_tokens": 4096, "tools": [WEATHER_TOOL],
              "thinking": {"type": "enabled", "budget_tokens": 2048}}  # manual thinking: a 400 on claude-sonnet-5
    client = agentlab.fake_client(sc)
    first = client.messages.create(messages=USER, **params)
    assert [b.type for b in first.content] == ["thinking", "tool_use"] and first.content[0].signature
    call = first.content[1]
    results = {"role": "user", "content": [{"type": "tool_result", "tool_use_id": call.id, "content": "95F"}]}
    ok = client.messages.create(messages=[*USER, {"role": "assistant", "content": first.content}, results], **params)
    assert ok.stop_reason == "end_turn"

    edited = [{"type": "thinking", "thinking": "Something else.", "signature": first.content[0].signature}, call]
    with pytest.raises(anthropic.BadRequestError) as info:
        client.messages.create(messages=[*USER, {"role": "assistant", "content": edited}, results], **params)
    assert "cannot be modified" in info.value.body["error"]["message"]

    forged = [{"type": "thinking", "thinking": "I made this up.", "signature": "EqForged=="}, call]
    with pytest.raises(anthropic.BadRequestError) as info:
        client.messages.create(messages=[*USER, {"role": "assistant", "content": forged}, results], **params)
    assert info.value.body["error"]["message"] == "messages.1.content.0: Invalid `signature` in `thinking` block"

    with pytest.raises(anthropic.BadRequestError) as info:
        client.messages.create(messages=[*USER, {"role": "assistant", "content": [call]}, results], **params)
    assert info.value.body["error"]["message"].startswith(
        "messages.1.content.0.type: Expected `thinking` or `redacted_thinking`, but found `tool_use`.")

    with pytest.raises(anthropic.BadRequestError) as info:
        client.messages.create(messages=USER, **{**params, "tool_choice": {"type": "any"}})
    assert info.value.body["error"]["message"] == "Thinking may not be enabled when tool_choice forces tool use."


def test_thinking_only_when_the_request_turns_it_on():
    sc = scenario("think_off", thinking("hidden", text("Answer.")))
    msg = create(agentlab.fake_client(sc))
    assert [b.type for b in msg.content] == ["text"]


def test_sdk_resent_blocks_with_nulls_are_accepted(tiny):
    client = agentlab.fake_client(tiny)
    first = create(client, tools=[WEATHER_TOOL])
    param = first.to_param()
    assert any(b.get("citations", "absent") is None for b in json.loads(json.dumps(param["content"], default=lambda o: o.model_dump())))
    call = next(b for b in first.content if b.type == "tool_use")
    done = create(client, tools=[WEATHER_TOOL], messages=[
        *USER, param, {"role": "user", "content": [{"type": "tool_result", "tool_use_id": call.id, "content": "95F"}]}])
    assert done.stop_reason == "end_turn"


def test_unknown_model_and_missing_key():
    with pytest.raises(anthropic.NotFoundError) as info:
        create(agentlab.fake_client("weather"), model="claude-nonexistent-9")
    assert info.value.body["error"]["message"] == "model: claude-nonexistent-9"


def test_tool_runner_thread_mode_and_plain(tiny):
    from anthropic import beta_tool

    @beta_tool
    def get_weather(city: str) -> str:
        """Get the current weather for a city."""
        return run_weather("get_weather", {"city": city})

    for thread in (None, False):
        client = agentlab.fake_client(tiny)
        kwargs = {} if thread is None else {"thread": False}
        runner = client.beta.messages.tool_runner(model="claude-sonnet-5", max_tokens=1024, tools=[get_weather],
                                                  messages=USER, **kwargs)
        stops = [m.stop_reason for m in runner]
        assert stops == ["tool_use", "end_turn"]
        steps = agentlab.journal(client).steps
        second = steps[1].request
        if thread is None:
            assert second["thread"]["type"] == "continue"
            assert len(second["messages"]) == 1  # only the tool results were sent
            assert steps[1].messages[1]["role"] == "assistant"  # the fake expanded the held thread
        else:
            assert "thread" not in second and len(second["messages"]) == 3


def test_thread_continue_with_unknown_id_is_not_found(tiny):
    client = agentlab.fake_client(tiny)
    with pytest.raises(anthropic.NotFoundError) as info:
        client.beta.messages.create(model="claude-sonnet-5", max_tokens=100, messages=USER,
                                    thread={"type": "continue", "previous_message_id": "msg_nope"},
                                    betas=["message-threads-2026-08-12"])
    assert info.value.body["error"]["details"]["error_code"] == "thread_not_found"


def test_journal_renders_as_text_and_html(tiny):
    client = agentlab.fake_client(tiny)
    seed_loop(client, tiny.prompt, list(tiny.tools), tiny.run_tool)
    journal = agentlab.journal(client)
    text_out = str(journal)
    assert "step 0: stop_reason=tool_use" in text_out and "step 1: stop_reason=end_turn" in text_out
    assert "tool_result for toolu_" in text_out
    html = journal._repr_html_()
    assert "<table" in html and "messages.2" in html
    assert journal.sent(1)[1]["role"] == "assistant"
    assert json.dumps(journal.to_dict())  # JSON-ready
    with pytest.raises(IndexError, match="made 2 request"):
        journal.step(5)


def test_journal_of_a_foreign_client_is_a_clear_error():
    with pytest.raises(ValueError, match="not made by agentlab"):
        agentlab.journal(anthropic.Anthropic(api_key="k"))


def test_unknown_scenario_lists_the_names():
    with pytest.raises(KeyError, match="weather"):
        agentlab.fake_client("no-such-scenario")


def test_prompt_caching_reports_writes_then_reads():
    manual = "Weather manual. " * 400  # ~1,600 tokens of system prompt
    sc = scenario("cache", tool_use("get_weather", {"city": "Austin"}), text("Wear shorts."))
    client = agentlab.fake_client(sc)
    system = [{"type": "text", "text": manual, "cache_control": {"type": "ephemeral"}}]
    first = create(client, tools=[WEATHER_TOOL], system=system)
    assert first.usage.cache_creation_input_tokens > 1024 and first.usage.cache_read_input_tokens == 0
    call = first.content[0]
    second = create(client, tools=[WEATHER_TOOL], system=system, messages=[
        *USER, {"role": "assistant", "content": first.content},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": call.id, "content": "95F"}]}])
    assert second.usage.cache_read_input_tokens == first.usage.cache_creation_input_tokens
    assert second.usage.cache_creation_input_tokens == 0
    total = client.messages.count_tokens(model="claude-sonnet-5", tools=[WEATHER_TOOL], system=system, messages=[
        *USER, {"role": "assistant", "content": first.content},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": call.id, "content": "95F"}]}]).input_tokens
    u = second.usage
    assert u.input_tokens + u.cache_creation_input_tokens + u.cache_read_input_tokens == total
    # the cache prices reads at 0.1x input
    journal = agentlab.journal(client)
    assert journal.usage["cache_read_input_tokens"] == u.cache_read_input_tokens


def test_automatic_caching_moves_forward_with_the_conversation():
    long_prompt = "Plan my week of outfits. " * 300  # ~1,900 tokens
    sc = scenario("autocache", tool_use("get_weather", {"city": "Austin"}), tool_use("get_weather", {"city": "Paris"}), text("Done."))
    client = agentlab.fake_client(sc)
    messages = [{"role": "user", "content": long_prompt}]
    usages = []
    while True:
        msg = create(client, tools=[WEATHER_TOOL], messages=messages, cache_control={"type": "ephemeral"})
        usages.append(msg.usage)
        if msg.stop_reason != "tool_use":
            break
        messages += [{"role": "assistant", "content": msg.content},
                     {"role": "user", "content": [{"type": "tool_result", "tool_use_id": msg.content[0].id, "content": "95F"}]}]
    assert usages[0].cache_read_input_tokens == 0 and usages[0].cache_creation_input_tokens > 0
    for before, after in zip(usages, usages[1:]):
        assert after.cache_read_input_tokens == before.cache_read_input_tokens + before.cache_creation_input_tokens
        assert after.cache_creation_input_tokens > 0


def test_short_prefixes_are_not_cached():
    msg = create(agentlab.fake_client(scenario("nocache", text("Hi."))), cache_control={"type": "ephemeral"})
    assert msg.usage.cache_creation_input_tokens == 0 and msg.usage.cache_read_input_tokens == 0


def test_a_loop_that_retries_a_400_forever_meets_the_runaway_guard(tiny):
    client = agentlab.fake_client(tiny)
    bad = [*USER, {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_01X", "content": "95F"}]}]
    sent = 0
    with pytest.raises(agentlab.RunawayLoop):
        while True:
            sent += 1
            try:
                create(client, tools=[WEATHER_TOOL], messages=bad)
            except Exception:  # noqa: BLE001 - the learner's catch-all retry
                pass
    assert sent == agentlab.fake.FakeAPI(tiny).request_limit + 1
    assert len(agentlab.journal(client)) == sent  # the journal stops growing at the runaway


def test_rerunning_a_finished_conversation_is_not_a_runaway(tiny):
    client = agentlab.fake_client(tiny)
    for _ in range(30):  # 60 requests on one client, each conversation finished with end_turn
        assert seed_loop(client, tiny.prompt, [WEATHER_TOOL], tiny.run_tool) == "Wear shorts."


def test_the_transcript_shows_a_fixed_history_not_only_new_messages(tiny):
    client = agentlab.fake_client(tiny)
    first = create(client, tools=[WEATHER_TOOL])
    call = next(b for b in first.content if b.type == "tool_use")
    results = {"role": "user", "content": [{"type": "tool_result", "tool_use_id": call.id, "content": "95F"}]}
    with pytest.raises(anthropic.BadRequestError):
        create(client, tools=[WEATHER_TOOL], messages=[*USER, results])  # forgot the assistant turn
    create(client, tools=[WEATHER_TOOL], messages=[*USER, {"role": "assistant", "content": first.content}, results])
    step2 = str(agentlab.journal(client)).split("step 2:")[1]
    assert "sent messages.1 assistant" in step2 and "sent messages.2 user" in step2


def test_journal_of_a_client_copy_is_the_same_journal(tiny):
    client = agentlab.fake_client(tiny)
    assert agentlab.journal(client.with_options(max_retries=0)) is agentlab.journal(client)


def test_thinking_from_completed_turns_is_not_counted():
    sc = scenario("think_count", thinking("Let me check the forecast.", tool_use("get_weather", {"city": "Austin"})),
                  text("Wear shorts."), text("Bring water."))
    params = {"model": "claude-sonnet-4-6", "tools": [WEATHER_TOOL], "thinking": {"type": "enabled", "budget_tokens": 2048}}
    client = agentlab.fake_client(sc)
    first = client.messages.create(max_tokens=4096, messages=USER, **params)
    results = {"role": "user", "content": [{"type": "tool_result", "tool_use_id": first.content[1].id, "content": "95F"}]}
    open_turn = [*USER, {"role": "assistant", "content": first.content}, results]
    stripped = [*USER, {"role": "assistant", "content": [first.content[1]]}, results]
    count = lambda messages: client.messages.count_tokens(messages=messages, **params).input_tokens  # noqa: E731
    from agentlab.fake._tokens import count_input_tokens

    as_dicts = json.loads(json.dumps(open_turn, default=lambda o: o.model_dump()))
    longer = json.loads(json.dumps(as_dicts))
    longer[1]["content"][0]["thinking"] += " more" * 50
    assert count_input_tokens({"messages": longer}) > count_input_tokens({"messages": as_dicts})  # open turn counts
    done = client.messages.create(max_tokens=4096, messages=open_turn, **params)
    later = [*open_turn, {"role": "assistant", "content": done.content}, {"role": "user", "content": "And tomorrow?"}]
    later_stripped = [*stripped, {"role": "assistant", "content": done.content}, {"role": "user", "content": "And tomorrow?"}]
    assert count(later) == count(later_stripped)  # a completed turn's thinking is ignored


def test_an_anthropic_defined_client_tool_is_answered_with_tool_use():
    # bash_20250124 / text_editor_* are run by the caller (reference 1.2): a scripted call to one is a
    # client tool_use, not dropped as if it were a server tool.
    from agentlab.fake import Scenario, tool_use

    scenario = Scenario(name="bash", replies=(tool_use("bash", {"command": "ls"}), text("Listed.")))
    client = agentlab.fake_client(scenario)
    reply = client.messages.create(model="claude-sonnet-5", max_tokens=256,
                                   tools=[{"type": "bash_20250124", "name": "bash"}],
                                   messages=[{"role": "user", "content": "List the files."}])
    assert reply.stop_reason == "tool_use" and [(b.type, b.name) for b in reply.content] == [("tool_use", "bash")]
