"""Structured outputs: ``output_config.format`` (json_schema) gets JSON valid under the schema,
on every scenario, sync, async and streamed; ``messages.parse`` works with a pydantic model."""

from __future__ import annotations

import asyncio
import json
from typing import Any, Literal

import anthropic
import jsonschema
import pydantic
import pytest

import agentlab
from agentlab.fake import generic, refusal, reply, text
from agentlab.fake import Scenario
from agentlab.fake._catalogue import WEATHER_TOOL

MODEL = "claude-sonnet-5"
PROMPT = [{"role": "user", "content": "What should I wear in Austin today?"}]


class Outfit(pydantic.BaseModel):
    city: str
    temperature_f: int = pydantic.Field(ge=-50, le=130)
    layers: list[str] = pydantic.Field(min_length=1)
    umbrella: bool
    style: Literal["casual", "formal"]
    note: str | None = None


SCHEMA = {
    "type": "object",
    "properties": {
        "city": {"type": "string"},
        "when": {"type": "string", "format": "date"},
        # no numeric bounds and minItems 0 or 1: the API's structured-output limits (rule 4k)
        "scores": {"type": "array", "items": {"type": "integer", "enum": [1, 2, 3, 4, 5]}, "minItems": 1},
        "contact": {"anyOf": [{"type": "string", "format": "email"}, {"type": "null"}]},
    },
    "required": ["city", "when", "scores", "contact"],
    "additionalProperties": False,
}
OUTPUT_CONFIG = {"format": {"type": "json_schema", "schema": SCHEMA}}


def answer_json(message: Any) -> Any:
    texts = [b.text for b in message.content if b.type == "text"]
    assert len(texts) == 1, "one text block of JSON"
    return json.loads(texts[0])


@pytest.mark.parametrize("name", agentlab.scenarios())
def test_every_scenario_answers_schema_valid_json(name):
    """A request without tools: each scenario's answer (scripted or generic) becomes the JSON."""
    scenario = agentlab.fake.get_scenario(name)
    client = agentlab.fake_client(name, max_retries=3)
    message = client.messages.create(model=scenario.model, max_tokens=4096, messages=PROMPT, output_config=OUTPUT_CONFIG)
    if message.stop_reason == "refusal":
        assert name == "refusal"
        return
    if message.stop_reason in ("max_tokens", "model_context_window_exceeded"):
        return  # cut JSON, as the docs warn; covered below
    jsonschema.Draft202012Validator(SCHEMA, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER).validate(answer_json(message))


def test_parse_into_a_pydantic_model_sync():
    client = agentlab.fake_client()
    parsed = client.messages.parse(model=MODEL, max_tokens=1024, messages=PROMPT, output_format=Outfit)
    assert isinstance(parsed.parsed_output, Outfit)
    assert parsed.parsed_output.city == "Austin"
    sent = agentlab.journal(client).step(0).request["output_config"]["format"]
    assert sent["type"] == "json_schema" and sent["schema"]["title"] == "Outfit"


def test_parse_async():
    async def main() -> Outfit:
        client = agentlab.fake_async_client("weather")
        parsed = await client.messages.parse(model=MODEL, max_tokens=1024, messages=PROMPT, output_format=Outfit)
        return parsed.parsed_output

    assert isinstance(asyncio.run(main()), Outfit)


def test_streamed_json_arrives_as_text_deltas_and_parses():
    client = agentlab.fake_client()
    with client.messages.stream(model=MODEL, max_tokens=1024, messages=PROMPT, output_format=Outfit) as stream:
        pieces = [event.delta.text for event in stream if event.type == "content_block_delta" and event.delta.type == "text_delta"]
        final = stream.get_final_message()
    assert len(pieces) >= 1
    assert isinstance(final.parsed_output, Outfit)
    Outfit.model_validate_json("".join(pieces))
    plain = agentlab.fake_client().messages.create(model=MODEL, max_tokens=1024, messages=PROMPT,
                                                   output_config={"format": final_format(Outfit)})
    assert plain.content[0].text == "".join(pieces)  # streamed and not streamed: the same JSON


def final_format(model: type[pydantic.BaseModel]) -> dict[str, Any]:
    from anthropic.lib._parse._transform import transform_schema

    return {"type": "json_schema", "schema": transform_schema(model)}


def test_async_stream():
    async def main() -> Any:
        client = agentlab.fake_async_client()
        async with client.messages.stream(model=MODEL, max_tokens=1024, messages=PROMPT, output_format=Outfit) as stream:
            return await stream.get_final_message()

    assert isinstance(asyncio.run(main()).parsed_output, Outfit)


def test_a_tool_loop_under_structured_outputs_ends_in_json_and_tool_turns_carry_no_text():
    client = agentlab.fake_client("text_and_tool_use")  # its tool turn narrates in a text block
    scenario = agentlab.fake.get_scenario("text_and_tool_use")
    messages: list[dict] = [{"role": "user", "content": scenario.prompt}]
    while True:
        message = client.messages.create(model=MODEL, max_tokens=1024, tools=list(scenario.tools), messages=messages,
                                         output_config=OUTPUT_CONFIG)
        if message.stop_reason != "tool_use":
            break
        assert [b.type for b in message.content] == ["tool_use"]
        results = [{"type": "tool_result", "tool_use_id": b.id, "content": scenario.run_tool(b.name, b.input)}
                   for b in message.content if b.type == "tool_use"]
        messages += [{"role": "assistant", "content": message.content}, {"role": "user", "content": results}]
    assert message.stop_reason == "end_turn"
    jsonschema.validate(answer_json(message), SCHEMA)


def test_the_generic_model_calls_tools_then_answers_json():
    client = agentlab.fake_client(generic(call_tools="all"))
    messages: list[dict] = [{"role": "user", "content": "What should I wear in Austin today?"}]
    first = client.messages.parse(model=MODEL, max_tokens=1024, tools=[WEATHER_TOOL], messages=messages, output_format=Outfit)
    assert first.stop_reason == "tool_use" and first.content[0].input == {"city": "Austin"}
    messages += [{"role": "assistant", "content": first.content},
                 {"role": "user", "content": [{"type": "tool_result", "tool_use_id": first.content[0].id,
                                               "content": "Weather in Austin: 95F, sunny"}]}]
    second = client.messages.parse(model=MODEL, max_tokens=1024, tools=[WEATHER_TOOL], messages=messages, output_format=Outfit)
    assert second.stop_reason == "end_turn" and isinstance(second.parsed_output, Outfit)


def test_refusal_keeps_its_text_and_a_cut_leaves_incomplete_json():
    refused = agentlab.fake_client(Scenario(name="r", replies=(refusal("I can't help with that."),)))
    message = refused.messages.create(model=MODEL, max_tokens=1024, messages=PROMPT, output_config=OUTPUT_CONFIG)
    assert message.stop_reason == "refusal" and message.content[0].text == "I can't help with that."
    big = {"type": "object", "properties": {"essay": {"type": "string", "minLength": 4000}}, "required": ["essay"],
           "additionalProperties": False}
    cut = agentlab.fake_client().messages.create(model=MODEL, max_tokens=50, messages=PROMPT,
                                                 output_config={"format": {"type": "json_schema", "schema": big}})
    assert cut.stop_reason == "max_tokens"
    with pytest.raises(json.JSONDecodeError):
        json.loads(cut.content[0].text)


def test_scripted_thinking_stays_first_and_the_text_becomes_json():
    scenario = Scenario(name="t", replies=(reply({"type": "thinking", "thinking": "Hmm."}, {"type": "text", "text": "Free text."}),))
    client = agentlab.fake_client(scenario)
    # manual thinking on a model that still takes it (rule 24a rejects it on claude-opus-4-7 and later)
    message = client.messages.create(model="claude-sonnet-4-6", max_tokens=2048, messages=PROMPT,
                                     output_config=OUTPUT_CONFIG, thinking={"type": "enabled", "budget_tokens": 1024})
    assert [b.type for b in message.content] == ["thinking", "text"]
    jsonschema.validate(json.loads(message.content[1].text), SCHEMA)


def test_same_request_same_json_and_no_schema_no_change():
    def once() -> str:
        return agentlab.fake_client().messages.create(model=MODEL, max_tokens=1024, messages=PROMPT,
                                                      output_config=OUTPUT_CONFIG).content[0].text

    assert once() == once()
    plain = agentlab.fake_client(Scenario(name="p", replies=(text("Free text."),)))
    assert plain.messages.create(model=MODEL, max_tokens=256, messages=PROMPT,
                                 output_config={"effort": "low"}).content[0].text == "Free text."


def test_garbage_output_config_never_breaks_the_reply():
    client = agentlab.fake_client(Scenario(name="g", replies=(text("Free text."),)))
    for config in ({"format": {"type": "json_schema", "schema": {"type": "object", "additionalProperties": False,
                                                                  "required": 5}}},
                   {"format": {"type": "json_schema", "schema": {"enum": {"a": 1}}}}):
        message = client.with_options(max_retries=0).messages.create(model=MODEL, max_tokens=256, messages=PROMPT,
                                                                      output_config=config)
        json.loads(message.content[0].text)
    # impossible bounds never reach the filler: the API's limits reject numeric bounds (rule 4k)
    bounds = {"format": {"type": "json_schema", "schema": {"type": "number", "minimum": 1e308, "maximum": 1}}}
    with pytest.raises(anthropic.BadRequestError, match="For 'number' type, properties maximum, minimum are not"):
        client.with_options(max_retries=0).messages.create(model=MODEL, max_tokens=256, messages=PROMPT,
                                                           output_config=bounds)


# --- messages.parse on ordinary pydantic models: the SDK's transform_schema moves the constraints the
# API does not take into each description ("{maxItems: 5, minItems: 3}"); the model must honour them. ---

import datetime as _dt  # noqa: E402
import enum as _enum  # noqa: E402
from typing import Annotated, Optional, Union  # noqa: E402


class _Colour(_enum.Enum):
    RED = "red"
    GREEN = "green"


class Plan(pydantic.BaseModel):
    steps: list[str] = pydantic.Field(min_length=3, max_length=5)


class Pair(pydantic.BaseModel):
    point: tuple[int, str]
    triple: tuple[float, bool, str]


class Bounded(pydantic.BaseModel):
    score: int = pydantic.Field(ge=10, le=20)
    ratio: float = pydantic.Field(gt=0, lt=1)
    step: int = pydantic.Field(multiple_of=5, gt=7)
    code: str = pydantic.Field(min_length=4, max_length=6)
    sku: str = pydantic.Field(pattern=r"^[A-Z]{3}-\d{3}$")


class WithLiteral(pydantic.BaseModel):
    mode: Literal["fast", "slow"]
    level: Literal[1, 2, 3]


class WithOptional(pydantic.BaseModel):
    nickname: Optional[str] = None
    age: Optional[int] = pydantic.Field(default=None, ge=18)


class Nested(pydantic.BaseModel):
    grid: list[list[int]] = pydantic.Field(min_length=2)
    tags: list[str] = pydantic.Field(min_length=2, max_length=2)


class Dated(pydantic.BaseModel):
    when: _dt.datetime
    day: _dt.date
    at: _dt.time


class Coloured(pydantic.BaseModel):
    colour: _Colour
    colours: list[_Colour] = pydantic.Field(min_length=2)


class Counts(pydantic.BaseModel):
    counts: dict[str, int]


class Cat(pydantic.BaseModel):
    kind: Literal["cat"]
    lives: int = pydantic.Field(ge=1, le=9)


class Dog(pydantic.BaseModel):
    kind: Literal["dog"]
    good: bool


class Pet(pydantic.BaseModel):
    pet: Annotated[Union[Cat, Dog], pydantic.Field(discriminator="kind")]
    pets: list[Annotated[Union[Cat, Dog], pydantic.Field(discriminator="kind")]] = pydantic.Field(min_length=3)


class Unique(pydantic.BaseModel):
    ids: set[int] = pydantic.Field(min_length=3)
    items: list[Plan] = pydantic.Field(min_length=2, max_length=3)


PARSE_MODELS = [Plan, Pair, Bounded, WithLiteral, WithOptional, Nested, Dated, Coloured, Counts, Pet, Unique]


@pytest.mark.parametrize("model", PARSE_MODELS, ids=lambda m: m.__name__)
@pytest.mark.parametrize("prompt", ["Plan my trip to Lima.", "Summarise the ticket."])
def test_parse_honours_the_constraints_the_sdk_moved_into_descriptions(model, prompt):
    client = agentlab.fake_client()
    parsed = client.messages.parse(model=MODEL, max_tokens=1024, output_format=model,
                                   messages=[{"role": "user", "content": prompt}])
    assert isinstance(parsed.parsed_output, model)


def test_described_constraints_follow_the_sdks_own_format():
    from anthropic.lib._parse._transform import transform_schema
    from agentlab.fake._schema_values import value_for

    schema = transform_schema(Plan.model_json_schema())
    assert "minItems: 3" in schema["properties"]["steps"]["description"]  # what the SDK writes
    assert 3 <= len(value_for(schema, seed=1)["steps"]) <= 5


@pytest.mark.parametrize("schema, problem", [
    ({"type": "object", "properties": {"a": {"type": "string"}}},
     "For 'object' type, 'additionalProperties' must be explicitly set to false"),
    ({"type": "object", "additionalProperties": False,
      "properties": {"inner": {"type": "object", "properties": {}, "additionalProperties": True}}},
     "For 'object' type, 'additionalProperties: true' is not supported. Please set 'additionalProperties' to false"),
    ({"type": "object", "additionalProperties": False, "properties": {"n": {"type": "integer", "minimum": 1}}},
     "For 'integer' type, property 'minimum' is not supported"),
    ({"type": "array", "items": {"type": "string"}, "minItems": 3},
     "For 'array' type, 'minItems' values other than 0 or 1 are not supported"),
])
def test_structured_output_limits_get_the_api_text(schema, problem):
    client = agentlab.fake_client(max_retries=0)
    with pytest.raises(anthropic.BadRequestError) as raised:
        client.messages.create(model=MODEL, max_tokens=256, messages=PROMPT,
                               output_config={"format": {"type": "json_schema", "schema": schema}})
    assert raised.value.body["error"]["message"] == f"output_config.format.schema: {problem}"


class Invoice(pydantic.BaseModel):
    number: int = pydantic.Field(ge=1, multiple_of=1)
    total: float = pydantic.Field(gt=0, le=1e6)
    lines: list[str] = pydantic.Field(min_length=1, max_length=10)
    tags: set[str] = set()
    extra: dict[str, int] = {}


class Node(pydantic.BaseModel):
    name: str = pydantic.Field(min_length=1, max_length=80)
    children: list["Node"] = []
    kind: Literal["leaf", "branch"] | None = None


@pytest.mark.parametrize("model", [Outfit, Invoice, Node])
def test_parse_still_works_for_models_with_constraints_the_api_does_not_take(model):
    """``messages.parse`` sends the SDK's transformed schema (bounds moved into descriptions,
    additionalProperties false), so the limit rules never reject what the SDK itself builds."""
    parsed = agentlab.fake_client().messages.parse(model=MODEL, max_tokens=2048, messages=PROMPT, output_format=model)
    assert parsed.stop_reason == "end_turn"
    assert isinstance(parsed.parsed_output, model)


def test_parse_fills_fields_from_the_prompt_and_the_tool_results():
    """Structured outputs use the prompt's and the tool results' entities (issue 10 follow-up)."""
    import pydantic

    import agentlab

    class Simple(pydantic.BaseModel):
        name: str
        age: int
        email: str

    class Weather(pydantic.BaseModel):
        city: str
        temp: int

    client = agentlab.fake_client()
    parsed = client.messages.parse(model="claude-sonnet-5", max_tokens=1024, output_format=Simple,
                                   messages=[{"role": "user", "content": "Ann, 34, ann@x.com"}]).parsed_output
    assert (parsed.name, parsed.age, parsed.email) == ("Ann", 34, "ann@x.com")
    tool = {"name": "get_weather", "description": "Weather for a city",
            "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}
    messages: list = [{"role": "user", "content": "Weather in New York?"}]
    first = client.messages.create(model="claude-sonnet-5", max_tokens=1024, tools=[tool], messages=messages)
    messages += [{"role": "assistant", "content": first.content},
                 {"role": "user", "content": [{"type": "tool_result", "tool_use_id": first.content[0].id, "content": "20C"}]}]
    weather = client.messages.parse(model="claude-sonnet-5", max_tokens=1024, tools=[tool], messages=messages,
                                    output_format=Weather).parsed_output
    assert (weather.city, weather.temp) == ("New York", 20)
