"""The API usage patterns of the anthropic SDK's own ``examples/`` scripts, on the fake.

Issue 10 is done when the SDK's examples about messages, tools, the tool runner, streaming,
thinking, structured outputs and model fallbacks run on the fake with only the client construction
changed (``tools/sdk_examples_probe/run.py`` runs the real scripts; CI cannot fetch them). These
tests reproduce, in our own words, each pattern those scripts rely on, on the client a user gets
from ``agentlab.fake_client()`` with no scenario named (the schema-driven ``generic`` model), and
check every tool loop called its own tools at least once (from the journal).

Script -> tests: messages.py -> create_then_resend; messages_stream.py -> async_stream_*;
tools.py -> tool_result_round_trip, own_tool_loop; tools_stream.py -> streamed_tool_input;
tools_runner.py -> tool_runner_*; tools_runner_search_tool.py -> deferred_tools_*;
thinking.py / thinking_stream.py -> thinking_*; structured_outputs*.py -> parse_*;
fallbacks.py -> fallback_*. Token counting and the Models API are patterns of the SDK's README.
"""

from __future__ import annotations

import asyncio
import json
import typing
from typing import Any, Literal

import anthropic
import jsonschema
import pydantic
import pytest
from anthropic._data import DEPRECATED_MODELS
from anthropic import BetaFallbackState, BetaRefusalFallbackMiddleware, beta_async_tool, beta_tool

import agentlab
from agentlab.fake import Scenario, refusal, text

MODEL = "claude-sonnet-5"

ORDER_TOOL = {
    "name": "lookup_order",
    "description": "Look up an order by its id and return its status.",
    "input_schema": {
        "type": "object",
        "properties": {
            "order_id": {"type": "string", "description": "The order id, e.g. A-1042"},
            "include_items": {"type": "boolean"},
        },
        "required": ["order_id"],
    },
}
REFUND_TOOL = {
    "name": "issue_refund",
    "description": "Refund part of an order, in one of three currencies.",
    "input_schema": {
        "type": "object",
        "properties": {
            "order_id": {"type": "string"},
            "amount": {"type": "number", "minimum": 0.5, "maximum": 500},
            "currency": {"type": "string", "enum": ["EUR", "USD", "GBP"]},
            "reasons": {"type": "array", "items": {"type": "string"}, "minItems": 1},
        },
        "required": ["order_id", "amount", "currency"],
    },
}
OWN_TOOLS = [ORDER_TOOL, REFUND_TOOL]
RESULTS = {"lookup_order": "order A-1042 shipped on 3 March", "issue_refund": "refund R-77 of 12.50 accepted"}


def tool_uses(journal: Any) -> list[dict[str, Any]]:
    """Every tool_use block the fake answered, over all steps."""
    return [b for e in journal.steps if e.ok for b in e.content if b.get("type") == "tool_use"]


def called_names(journal: Any) -> set[str]:
    return {b["name"] for b in tool_uses(journal)}


def schema_of(tools: list[dict[str, Any]], name: str) -> dict[str, Any]:
    return next(t["input_schema"] for t in tools if t["name"] == name)


def final_text(message: Any) -> str:
    return "".join(b.text for b in message.content if b.type == "text")


# messages.py ------------------------------------------------------------------------------


def test_create_then_resend_the_assistant_turn_as_sdk_objects() -> None:
    client = agentlab.fake_client()
    first = client.messages.create(max_tokens=1024, model=MODEL, messages=[{"role": "user", "content": "Hello!"}])
    assert first.stop_reason == "end_turn" and final_text(first)
    second = client.messages.create(
        max_tokens=1024, model=MODEL,
        messages=[{"role": "user", "content": "Hello!"},
                  {"role": first.role, "content": first.content},  # the SDK's own block objects, as sent back
                  {"role": "user", "content": "How are you?"}])
    assert second.stop_reason == "end_turn" and final_text(second)
    journal = agentlab.journal(client)
    assert [e.status for e in journal.steps] == [200, 200]
    assert [m["role"] for m in journal.sent(1)] == ["user", "assistant", "user"]


# messages_stream.py ------------------------------------------------------------------------


def test_async_stream_events_text_and_the_final_message_after_the_context() -> None:
    client = agentlab.fake_async_client()

    async def go() -> tuple[list[str], str, list[Any], Any]:
        kinds: list[str] = []
        pieces: list[str] = []
        finished: list[Any] = []
        async with client.messages.stream(max_tokens=1024, model=MODEL,
                                          messages=[{"role": "user", "content": "Say hello there!"}]) as stream:
            async for event in stream:
                kinds.append(event.type)
                if event.type == "text":
                    pieces.append(event.text)
                elif event.type == "content_block_stop":
                    finished.append(event.content_block)
        return kinds, "".join(pieces), finished, await stream.get_final_message()

    kinds, streamed, finished, final = asyncio.run(go())
    assert kinds[0] == "message_start" and kinds[-1] == "message_stop" and "text" in kinds
    assert streamed and streamed == final_text(final)
    assert [b.type for b in finished] == [b.type for b in final.content]
    assert json.loads(final.to_json())["stop_reason"] == "end_turn"
    assert agentlab.journal(client).step(0).stream is True


def test_sync_text_stream_adds_up_to_the_final_message() -> None:
    client = agentlab.fake_client()
    with client.messages.stream(max_tokens=256, model=MODEL,
                                messages=[{"role": "user", "content": "Name three colours."}]) as stream:
        streamed = "".join(stream.text_stream)
        final = stream.get_final_message()
    assert streamed and streamed == final_text(final)


# tools.py ------------------------------------------------------------------------------------


def test_tool_result_round_trip_with_the_examples_own_tool() -> None:
    """tools.py asserts the first reply is a tool call, then sends a tool_result as a list of text blocks."""
    weather = {"name": "get_weather", "description": "Get the weather for a specific location",
               "input_schema": {"type": "object", "properties": {"location": {"type": "string"}}}}
    client = agentlab.fake_client()
    user = {"role": "user", "content": "What is the weather in SF?"}
    message = client.messages.create(model=MODEL, max_tokens=1024, messages=[user], tools=[weather])
    assert message.stop_reason == "tool_use"
    call = next(b for b in message.content if b.type == "tool_use")
    assert call.name == "get_weather"
    jsonschema.validate(call.input, weather["input_schema"])
    answer = client.messages.create(
        model=MODEL, max_tokens=1024, tools=[weather],
        messages=[user, {"role": message.role, "content": message.content},
                  {"role": "user", "content": [{"type": "tool_result", "tool_use_id": call.id,
                                                "content": [{"type": "text", "text": "The weather is 73f"}]}]}])
    assert answer.stop_reason == "end_turn"
    assert "73f" in final_text(answer)


def own_loop(client: Any, prompt: str, tools: list[dict[str, Any]], ran: list[tuple[str, dict]]) -> str:
    """A plain agentic loop with its own tools (results from RESULTS), until end_turn."""
    messages: list[Any] = [{"role": "user", "content": prompt}]
    for _ in range(12):
        response = client.messages.create(model=MODEL, max_tokens=1024, tools=tools, messages=messages)
        if response.stop_reason != "tool_use":
            assert response.stop_reason == "end_turn"
            return final_text(response)
        messages.append({"role": "assistant", "content": response.content})
        results = []
        for block in response.content:
            if block.type == "tool_use":
                ran.append((block.name, block.input))
                results.append({"type": "tool_result", "tool_use_id": block.id, "content": RESULTS[block.name]})
        messages.append({"role": "user", "content": results})
    raise AssertionError("the loop did not end within 12 requests")


def test_own_tool_loop_calls_each_of_its_tools_with_schema_valid_input_and_quotes_them() -> None:
    client = agentlab.fake_client()
    ran: list[tuple[str, dict]] = []
    answer = own_loop(client, "Where is my order A-1042? Refund the shipping if it is late.", OWN_TOOLS, ran)
    journal = agentlab.journal(client)
    assert called_names(journal) == {"lookup_order", "issue_refund"}
    assert {name for name, _ in ran} == {"lookup_order", "issue_refund"}
    for name, tool_input in ran:
        jsonschema.validate(tool_input, schema_of(OWN_TOOLS, name))
    assert journal.stop_reasons[-1] == "end_turn"
    assert any(result in answer for result in RESULTS.values())


# tools_stream.py -------------------------------------------------------------------------------


def test_streamed_tool_input_json_snapshots_end_at_the_final_input() -> None:
    tool = {"name": "get_weather", "description": "Get the weather at a specific location",
            "input_schema": {"type": "object",
                             "properties": {"location": {"type": "string"},
                                            "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]}},
                             "required": ["location"]}}
    client = agentlab.fake_async_client()

    async def go() -> tuple[list[str], list[Any], Any]:
        partials: list[str] = []
        snapshots: list[Any] = []
        async with client.messages.stream(max_tokens=1024, model=MODEL, tools=[tool],
                                          messages=[{"role": "user", "content": "What is the weather in SF?"}]) as s:
            async for event in s:
                if event.type == "input_json":
                    partials.append(event.partial_json)
                    snapshots.append(event.snapshot)
            return partials, snapshots, await s.get_final_message()

    partials, snapshots, final = asyncio.run(go())
    call = next(b for b in final.content if b.type == "tool_use")
    assert final.stop_reason == "tool_use" and call.name == "get_weather"
    jsonschema.validate(call.input, tool["input_schema"])
    assert partials and json.loads("".join(partials)) == call.input == snapshots[-1]


# tools_runner.py ---------------------------------------------------------------------------------


def test_tool_runner_runs_beta_tool_functions_until_end_turn() -> None:
    ran: list[tuple[str, str]] = []

    @beta_tool
    def get_weather(location: str, units: Literal["c", "f"]) -> str:
        """Look up the weather for a city.

        Args:
            location: The city and state, e.g. San Francisco, CA
            units: 'c' for celsius or 'f' for fahrenheit
        """
        ran.append((location, units))
        return json.dumps({"location": location, "temperature": "20C" if units == "c" else "68F"})

    @beta_tool
    def get_time(timezone: str) -> str:
        """The local time in an IANA timezone, e.g. Europe/Madrid."""
        ran.append((timezone, "time"))
        return f"It is 09:30 in {timezone}"

    client = agentlab.fake_client()
    runner = client.beta.messages.tool_runner(max_tokens=1024, model=MODEL, tools=[get_weather, get_time],
                                              messages=[{"role": "user", "content": "Weather and time in SF?"}])
    messages = list(runner)
    assert messages[-1].stop_reason == "end_turn"
    assert all(m.stop_reason == "tool_use" for m in messages[:-1])
    assert {units for _, units in ran} - {"time"} <= {"c", "f"}
    journal = agentlab.journal(client)
    assert called_names(journal) == {"get_weather", "get_time"}
    assert len(ran) == len(tool_uses(journal))  # the runner ran every call the fake made


def test_async_tool_runner_until_done() -> None:
    calls: list[str] = []

    @beta_async_tool
    async def convert(amount: float, currency: Literal["EUR", "USD"]) -> str:
        """Convert an amount of money into another currency."""
        calls.append(currency)
        return f"{amount} is 42.00 {currency}"

    client = agentlab.fake_async_client()

    async def go() -> Any:
        runner = client.beta.messages.tool_runner(max_tokens=1024, model=MODEL, tools=[convert],
                                                  messages=[{"role": "user", "content": "10 GBP in EUR?"}])
        return await runner.until_done()

    final = asyncio.run(go())
    assert final.stop_reason == "end_turn" and calls
    assert set(calls) <= {"EUR", "USD"}
    assert "42.00" in final_text(final)


# tools_runner_search_tool.py ----------------------------------------------------------------------


def test_deferred_tool_is_found_by_the_search_tool_then_called() -> None:
    """A tool with ``defer_loading`` is not loaded until a tool_reference names it (tool search)."""
    order: list[str] = []

    @beta_tool(defer_loading=True)
    def get_weather(location: str) -> str:
        """Look up the weather for a city."""
        order.append("get_weather")
        return f"Sunny in {location}"

    @beta_tool
    def search_available_tools(*, keyword: str) -> Any:
        """Search for useful tools using a query string."""
        order.append("search_available_tools")
        return [{"type": "tool_reference", "tool_name": "get_weather"}]

    client = agentlab.fake_client()
    runner = client.beta.messages.tool_runner(max_tokens=1024, model=MODEL,
                                              tools=[get_weather, search_available_tools],
                                              messages=[{"role": "user", "content": "What is the weather in SF?"}],
                                              betas=["tool-search-tool-2025-10-19"])
    last = list(runner)[-1]
    assert last.stop_reason == "end_turn"
    assert order[:1] == ["search_available_tools"] and "get_weather" in order
    assert called_names(agentlab.journal(client)) == {"get_weather", "search_available_tools"}


# thinking.py / thinking_stream.py ---------------------------------------------------------------


def test_thinking_enabled_with_a_budget_gives_a_signed_thinking_block_then_text() -> None:
    """thinking.py's request, on a model that takes manual thinking (Haiku 4.5: "Extended" in the docs' table)."""
    client = agentlab.fake_client()
    response = client.messages.create(model="claude-haiku-4-5", max_tokens=3200,
                                      thinking={"type": "enabled", "budget_tokens": 1600},
                                      messages=[{"role": "user", "content": "Create a haiku about Anthropic."}])
    kinds = [b.type for b in response.content]
    assert kinds[0] == "thinking" and kinds[-1] == "text"
    assert response.content[0].thinking and response.content[0].signature


def test_thinking_enabled_on_sonnet_5_is_the_apis_400() -> None:
    """thinking.py and thinking_stream.py send ``enabled`` to claude-sonnet-5, which the API rejects: "manual
    extended thinking now returns a 400 error" (Sonnet 5 overview, platform.claude.com/docs/.../sonnet-5)."""
    client = agentlab.fake_client()
    with pytest.raises(anthropic.BadRequestError, match='"thinking.type.enabled" is not supported for this model'):
        client.messages.create(model=MODEL, max_tokens=3200, thinking={"type": "enabled", "budget_tokens": 1600},
                               messages=[{"role": "user", "content": "Create a haiku about Anthropic."}])


def test_adaptive_thinking_in_a_tool_loop_keeps_thinking_and_calls_the_tools() -> None:
    client = agentlab.fake_client()
    messages: list[Any] = [{"role": "user", "content": "Where is order A-1042?"}]
    for _ in range(8):
        response = client.messages.create(model=MODEL, max_tokens=4096, thinking={"type": "adaptive"},
                                          tools=[ORDER_TOOL], messages=messages)
        if response.stop_reason == "end_turn":
            break
        messages.append({"role": "assistant", "content": response.content})  # thinking blocks sent back unchanged
        messages.append({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": b.id, "content": RESULTS[b.name]}
            for b in response.content if b.type == "tool_use"]})
    assert response.stop_reason == "end_turn"
    assert called_names(agentlab.journal(client)) == {"lookup_order"}


def test_thinking_stream_gives_thinking_events_before_text_events() -> None:
    client = agentlab.fake_client()
    with client.messages.stream(model="claude-haiku-4-5", max_tokens=3200,
                                thinking={"type": "enabled", "budget_tokens": 1600},
                                messages=[{"role": "user", "content": "Create a haiku about Anthropic."}]) as stream:
        kinds = [e.type for e in stream if e.type in ("thinking", "text")]
    assert kinds and kinds[0] == "thinking" and kinds[-1] == "text"
    assert kinds.index("text") > max(i for i, k in enumerate(kinds) if k == "thinking")


# structured_outputs.py / structured_outputs_streaming.py -----------------------------------------


class Order(pydantic.BaseModel):
    product_name: str
    price: float
    quantity: int


PROMPT = 'Extract the product name, price and quantity: "2 packs of Green Tea for 5.50 dollars each."'


def test_parse_with_a_pydantic_model_gives_parsed_output() -> None:
    client = agentlab.fake_client()
    parsed = client.messages.parse(model=MODEL, max_tokens=1024, output_format=Order,
                                   messages=[{"role": "user", "content": PROMPT}])
    assert isinstance(parsed.parsed_output, Order)
    sent = agentlab.journal(client).step(0).request
    assert sent["output_config"]["format"]["type"] == "json_schema"


def test_stream_with_output_format_gives_parsed_snapshots_and_a_parsed_final_message() -> None:
    client = agentlab.fake_client()
    snapshots: list[Any] = []
    with client.messages.stream(model=MODEL, max_tokens=1024, output_format=Order,
                                messages=[{"role": "user", "content": PROMPT}]) as stream:
        for event in stream:
            if event.type == "text":
                snapshots.append(event.parsed_snapshot())
        final = stream.get_final_message()
    assert snapshots and isinstance(final.parsed_output, Order)


def test_async_parse_and_a_raw_json_schema_output_config() -> None:
    client = agentlab.fake_async_client()
    schema = {"type": "object", "additionalProperties": False, "required": ["city", "days"],
              "properties": {"city": {"type": "string"}, "days": {"type": "integer", "enum": [1, 2, 3, 4, 5, 6, 7]}}}

    async def go() -> tuple[Any, Any]:
        parsed = await client.messages.parse(model=MODEL, max_tokens=1024, output_format=Order,
                                             messages=[{"role": "user", "content": PROMPT}])
        raw = await client.messages.create(model=MODEL, max_tokens=1024,
                                           output_config={"format": {"type": "json_schema", "schema": schema}},
                                           messages=[{"role": "user", "content": "A trip plan, please."}])
        return parsed, raw

    parsed, raw = asyncio.run(go())
    assert isinstance(parsed.parsed_output, Order)
    jsonschema.validate(json.loads(final_text(raw)), schema)


# fallbacks.py -----------------------------------------------------------------------------------


def refuses_on(model: str) -> Scenario:
    """A model that refuses on ``model`` and answers on any other."""
    return Scenario(name="refuses_on_" + model, needed_requests=3,
                    policy=lambda turn: refusal() if turn.model == model else text(f"Answered by {turn.model}."))


def test_server_side_fallbacks_param_is_accepted_on_the_beta_surface() -> None:
    client = agentlab.fake_client()
    message = client.beta.messages.create(max_tokens=1024, model="claude-fable-5",
                                          messages=[{"role": "user", "content": "A prompt."}],
                                          fallbacks=[{"model": "claude-opus-4-8"}],
                                          betas=["server-side-fallback-2026-07-01"])
    assert message.model in ("claude-fable-5", "claude-opus-4-8")
    assert message.stop_reason == "end_turn"


def test_refusal_fallback_middleware_retries_on_the_fallback_model() -> None:
    client = agentlab.fake_client(refuses_on("claude-fable-5"),
                                  middleware=[BetaRefusalFallbackMiddleware([{"model": "claude-opus-4-8"}])])
    state = BetaFallbackState()
    with state:
        message = client.beta.messages.create(max_tokens=1024, model="claude-fable-5",
                                              messages=[{"role": "user", "content": "A prompt."}])
    assert message.model == "claude-opus-4-8" and message.stop_reason == "end_turn"
    assert "claude-opus-4-8" in final_text(message)
    assert [e.request["model"] for e in agentlab.journal(client).steps] == ["claude-fable-5", "claude-opus-4-8"]
    with state:  # the state pins follow-ups to the model that accepted
        follow_up = client.beta.messages.create(max_tokens=1024, model="claude-fable-5",
                                                messages=[{"role": "user", "content": "A prompt."},
                                                          {"role": "assistant", "content": "Noted."},
                                                          {"role": "user", "content": "What did I ask?"}])
    assert follow_up.model == "claude-opus-4-8"


def test_refusal_fallback_middleware_splices_a_stream() -> None:
    client = agentlab.fake_client(refuses_on("claude-fable-5"),
                                  middleware=[BetaRefusalFallbackMiddleware([{"model": "claude-opus-4-8"}])])
    seams: list[Any] = []
    with BetaFallbackState(), client.beta.messages.stream(max_tokens=1024, model="claude-fable-5",
                                                          messages=[{"role": "user", "content": "A prompt."}]) as s:
        for event in s:
            if event.type == "content_block_start" and event.content_block.type == "fallback":
                seams.append(event.content_block)
        final = s.get_final_message()
    assert final.model == "claude-opus-4-8" and final.stop_reason == "end_turn"
    assert len(seams) == 1


def test_client_side_fallback_after_not_found_and_overloaded() -> None:
    """A loop that falls back to another model id when one is retired (404) or overloaded (529)."""

    def ask(client: Any, models: list[str]) -> Any:
        for model in models:
            try:
                return client.messages.create(model=model, max_tokens=256,
                                              messages=[{"role": "user", "content": "Hi"}])
            except (anthropic.NotFoundError, anthropic.InternalServerError) as exc:
                last = exc
        raise last

    client = agentlab.fake_client(max_retries=0)
    with pytest.warns(DeprecationWarning, match="end-of-life on June 30th, 2026"):  # the SDK's own warning
        answered = ask(client, ["claude-mythos-preview", MODEL])  # retired 30 June 2026 (SDK data): 404
    assert answered.model == MODEL
    assert [e.status for e in agentlab.journal(client).steps] == [404, 200]
    overloaded = agentlab.fake_client("overloaded", max_retries=0)
    with pytest.raises(anthropic.InternalServerError) as info:
        overloaded.messages.create(model=MODEL, max_tokens=256, messages=[{"role": "user", "content": "Hi"}])
    assert info.value.status_code == 529


# token counting and the Models API (the SDK README's patterns) -----------------------------------


def test_count_tokens_counts_tools_too() -> None:
    client = agentlab.fake_client()
    bare = client.messages.count_tokens(model=MODEL, messages=[{"role": "user", "content": "Hello, world"}])
    with_tools = client.messages.count_tokens(model=MODEL, tools=OWN_TOOLS,
                                              messages=[{"role": "user", "content": "Hello, world"}])
    assert 0 < bare.input_tokens < with_tools.input_tokens


def test_models_list_and_retrieve_know_every_current_sdk_model() -> None:
    client = agentlab.fake_client()
    listed = [m.id for m in client.models.list(limit=5)]  # auto-pagination over pages of 5
    ids = set(typing.get_args(typing.get_args(anthropic.types.Model)[0]))
    not_deprecated = ids - set(DEPRECATED_MODELS)  # ids with no end-of-life date in the SDK's data
    assert set(listed) <= ids
    # an alias (claude-haiku-4-5) is retrieved as the dated id the list shows (claude-haiku-4-5-20251001)
    assert {client.models.retrieve(model_id).id for model_id in not_deprecated} <= set(listed)
    assert len(listed) == len(set(listed))
    info = client.models.retrieve("claude-opus-5-5")
    assert info.id == "claude-opus-5-5" and info.type == "model" and info.display_name
    with pytest.raises(anthropic.NotFoundError):
        client.models.retrieve("claude-nonexistent-1")
