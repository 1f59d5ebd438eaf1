"""The validation rule table (``agentlab.fake._rules``): one accepted and one rejected request per
rule with the exact texts, coverage of the reference's section 7, and property tests that
``validate`` never raises."""

from __future__ import annotations

import json
import string
import re
from dataclasses import dataclass, field
from datetime import date
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentlab.fake import _rules
from agentlab.fake._context import ApiError, RequestContext, ValidationOptions
from agentlab.fake._models import MODELS
from agentlab.fake._rules import MAX_REQUEST_BYTES, RULES, RULES_BY_ID, validate, validate_http
from agentlab.fake._thinking import ThinkingLedger, redacted_data, sign
from agentlab.fake._tokens import count_input_tokens

MODEL = "claude-sonnet-4-6"  # no prefill, thinking enabled/adaptive/disabled, output cap 128,000, one of temperature/top_p
PREFILL_MODEL = "claude-opus-4-5-20251101"  # prefill, thinking enabled/disabled, output cap 64,000
OLD_MODEL = "claude-opus-4-20250514"  # prefill, 400 when input + max_tokens > window; retired 2026-06-15
BEFORE_OPUS_4_RETIRED = {"today": date(2026, 6, 1)}  # ValidationOptions for OLD_MODEL
SYSTEM_MODEL = "claude-opus-5"  # mid-conversation system messages, no thinking "enabled", between_tools
SAMPLING_REMOVED_MODEL = "claude-opus-4-7"  # temperature only 1, top_p/top_k rejected, no thinking "enabled"
ALWAYS_THINKING_MODEL = "claude-fable-5"  # thinking "disabled" rejected

TOOL = {
    "name": "get_weather",
    "description": "Get the current weather for a city.",
    "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
}
AUTH = {"authorization": "Bearer sk-test"}
EPH = {"type": "ephemeral"}
EPH_1H = {"type": "ephemeral", "ttl": "1h"}
TTL_12E = ("{}.cache_control.ttl: a ttl='1h' cache_control block must not come after a ttl='5m' cache_control block. "
           "Note that blocks are processed in the following order: `tools`, `system`, `messages`.")


MCP_SERVER = {"type": "url", "url": "https://a.example/mcp", "name": "a"}


# --------------------------------------------------------------------------- builders


def user(content: Any) -> dict[str, Any]:
    return {"role": "user", "content": content}


def assistant(content: Any) -> dict[str, Any]:
    return {"role": "assistant", "content": content}


def system(content: Any) -> dict[str, Any]:
    return {"role": "system", "content": content}


def text(value: str, **extra: Any) -> dict[str, Any]:
    return {"type": "text", "text": value, **extra}


def tool_use(tool_id: str, name: str = "get_weather", **extra: Any) -> dict[str, Any]:
    return {"type": "tool_use", "id": tool_id, "name": name, "input": {"city": "Austin"}, **extra}


def tool_result(tool_id: str, content: Any = "95F, sunny") -> dict[str, Any]:
    return {"type": "tool_result", "tool_use_id": tool_id, "content": content}


def server_tool_use(tool_id: str = "srvtoolu_01P") -> dict[str, Any]:
    return {"type": "server_tool_use", "id": tool_id, "name": "web_search", "input": {"query": "austin weather"}}


def think(thought: str, model: str = MODEL) -> dict[str, Any]:
    return {"type": "thinking", "thinking": thought, "signature": sign(model, thought)}


def body(*messages: dict[str, Any], **params: Any) -> dict[str, Any]:
    result: dict[str, Any] = {"model": MODEL, "max_tokens": 1024, "messages": list(messages) or [user("Hi")]}
    result.update(params)
    return result


# Thinking the fake "issued" (recorded in the ledger), for rules 26-30.
T1 = think("The user wants the weather: call the tool.")
T2 = think("A second thought before the call.")
R1 = {"type": "redacted_thinking", "data": redacted_data(MODEL, "r1")}
T_PAUSE = think("Search the web first.")
T_PREFILL = think("Answer tersely.", PREFILL_MODEL)
T_PAUSE_5 = think("Search the web first.", SYSTEM_MODEL)
ISSUED_THINKING = [T1, R1, T2, text("Let me check."), tool_use("toolu_T")]
ISSUED_PLAIN = [text("Let me check."), tool_use("toolu_P")]
ISSUED_PAUSE = [T_PAUSE, server_tool_use("srvtoolu_01P")]
ISSUED_PREFILL = [T_PREFILL, text("Partial")]
ISSUED_PAUSE_5 = [T_PAUSE_5, server_tool_use("srvtoolu_02P")]


def issued_ledger() -> ThinkingLedger:
    ledger = ThinkingLedger()
    for content in (ISSUED_THINKING, ISSUED_PLAIN, ISSUED_PAUSE, ISSUED_PREFILL, ISSUED_PAUSE_5):
        ledger.record(content)
    return ledger


def ctx(payload: dict[str, Any], *, endpoint: str = "messages", ledger: ThinkingLedger | None = None,
        headers: dict[str, str] | None = None, **options: Any) -> RequestContext:
    return RequestContext(endpoint=endpoint, body=payload, headers=dict(AUTH) | (headers or {}),
                          options=ValidationOptions(**options), ledger=ledger or issued_ledger())


def thinking_loop(first: list[dict[str, Any]], **params: Any) -> dict[str, Any]:
    """A tool loop in progress whose assistant message is ``first``, answered with toolu_T's result."""
    return body(user("Weather in Austin?"), assistant(first), user([tool_result("toolu_T")]), **params)


ENABLED = {"type": "enabled", "budget_tokens": 2048}
ADAPTIVE = {"type": "adaptive"}


# --------------------------------------------------------------------------- the case tables


@dataclass
class Case:
    rule: str
    payload: dict[str, Any]
    message: str | None = None
    """Expected error message; None for an accepted case."""
    endpoint: str = "messages"
    options: dict[str, Any] = field(default_factory=dict)
    status: int = 400
    error_type: str = "invalid_request_error"
    headers: dict[str, str] = field(default_factory=dict)


def reject(rule: str, payload: dict[str, Any], message: str, **kw: Any) -> Any:
    return pytest.param(Case(rule, payload, message, **kw), id=f"{rule}-{message[:40]}")


def accept(rule: str, payload: dict[str, Any], label: str, **kw: Any) -> Any:
    return pytest.param(Case(rule, payload, None, **kw), id=f"{rule}-{label}")


TOOL_LOOP = [user("Weather in Austin?"), assistant([text("Let me check."), tool_use("toolu_01A")]),
             user([tool_result("toolu_01A")])]
PAUSED = [user("Search Austin weather"), assistant([server_tool_use()])]
LONG = user("x" * 400)  # 3 + 4 + 100 = 107 input tokens
NOT_FOUND = "Not Found"
THINKING_26 = (
    "messages.{}.content.0.type: Expected `thinking` or `redacted_thinking`, but found `{}`. When `thinking` is "
    "enabled, a final `assistant` message must start with a thinking block (preceeding the lastmost set of `tool_use` "
    "and `tool_result` blocks). We recommend you include thinking blocks from previous turns. To avoid this "
    "requirement, disable `thinking`. Please consult our documentation at "
    "https://docs.claude.com/en/docs/build-with-claude/extended-thinking"
)
MODIFIED_29 = ("messages.{}.content.{}: `thinking` or `redacted_thinking` blocks in the latest assistant message "
               "cannot be modified. These blocks must remain as they were in the original response.")
DISABLED_30 = ("messages.{}.content.{}: When thinking is disabled, an `assistant` message in the final position "
               "cannot contain `thinking`. To use thinking blocks, enable `thinking` in your request.")
ENABLED_24A = ('"thinking.type.enabled" is not supported for this model. Use "thinking.type.adaptive" and '
               '"output_config.effort" to control thinking behavior.')
DISABLED_24B = ('"thinking.type.disabled" is not supported for this model. Thinking defaults to adaptive mode when '
                'not specified; use "thinking.type.enabled" with "budget_tokens" for extended thinking.')
_EXTENDED_DOCS = ("Please consult our documentation at https://docs.anthropic.com/en/docs/build-with-claude/"
                  "extended-thinking#important-considerations-when-using-extended-thinking")
TEMPERATURE_24D = f"`temperature` may only be set to 1 when thinking is enabled. {_EXTENDED_DOCS}"
TOP_K_24E = f"`top_k` must be unset when thinking is enabled. {_EXTENDED_DOCS}"

DRAFT_21D = ("tools.{}.custom.input_schema: JSON schema is invalid. It must match JSON Schema draft 2020-12 "
             "(https://json-schema.org/draft/2020-12). Learn more about tool use at "
             "https://docs.claude.com/en/docs/tool-use.")
COMBINATORS_21C = "tools.{}.custom.input_schema: input_schema does not support oneOf, allOf, or anyOf at the top level"
BETA_4I = ("Unexpected value(s) `{}` for the `anthropic-beta` header. Please consult our documentation at "
           "docs.claude.com or try again without the header.")


def custom_tool(schema: Any, name: str = "lookup") -> dict[str, Any]:
    return {"name": name, "description": "Look something up.", "input_schema": schema}


def json_format(schema: Any, **extra: Any) -> dict[str, Any]:
    return {"format": {"type": "json_schema", "schema": schema, **extra}}


REJECTED = [
    # 4i: unknown anthropic-beta values ([OBS] text; values joined by "`, `")
    reject("4i", body(), BETA_4I.format("made-up-2099-01-01"), headers={"anthropic-beta": "made-up-2099-01-01"}),
    reject("4i", body(), BETA_4I.format("made-up-2099-01-01`, `not a beta"),
           headers={"anthropic-beta": "message-threads-2026-08-12,made-up-2099-01-01, not a beta"}),
    reject("4i", body(), BETA_4I.format(""), headers={"anthropic-beta": ""}),
    reject("4i", body(), BETA_4I.format("fine-grained-2026-02-30"), headers={"anthropic-beta": "fine-grained-2026-02-30"}),
    reject("4i", body(), BETA_4I.format("brand-new-2026-07-01"), headers={"anthropic-beta": "brand-new-2026-07-01"},
           options={"today": date(2026, 6, 1)}),
    # 4j: structured-output format shape (SDK JSONOutputFormatParam)
    reject("4j", body(output_config=json_format(5)), "output_config.format.schema: Input should be a valid dictionary"),
    reject("4j", body(output_config=json_format(False)),
           "output_config.format.schema: Input should be a valid dictionary"),
    reject("4j", body(output_config={"format": {"type": "json_schema"}}), "output_config.format.schema: Field required"),
    reject("4j", body(output_config={"format": {"type": "json_object", "schema": {"type": "object"}}}),
           "output_config.format.type: Input should be 'json_schema'"),
    reject("4j", body(output_config={"format": {"schema": {"type": "object"}}}), "output_config.format.type: Field required"),
    reject("4j", body(output_config={"format": "json"}), "output_config.format: Input should be a valid dictionary"),
    # 4k: structured-output limits ([OBS] texts; path output_config.format.schema)
    # the structured-outputs beta's top-level output_format (litellm sends it): the observed text's path
    reject("4k", body(output_format={"type": "json_schema", "schema": {"type": "object", "additionalProperties": True}}),
           "output_format.schema: For 'object' type, 'additionalProperties: true' is not supported. Please set "
           "'additionalProperties' to false"),
    reject("4j", body(output_format={"type": "json_schema"}), "output_format.schema: Field required"),
    reject("4k", body(output_config=json_format({"type": "object", "properties": {"a": {"type": "string"}}})),
           "output_config.format.schema: For 'object' type, 'additionalProperties' must be explicitly set to false"),
    reject("4k", body(output_config=json_format({"type": "object", "additionalProperties": False, "$defs": {
        "Inner": {"type": "object", "additionalProperties": True}}})),
           "output_config.format.schema: For 'object' type, 'additionalProperties: true' is not supported. Please set "
           "'additionalProperties' to false"),
    reject("4k", body(output_config=json_format({"type": "object", "additionalProperties": False, "properties": {
        "n": {"anyOf": [{"type": "integer", "minimum": 1}, {"type": "null"}]}}})),
           "output_config.format.schema: For 'integer' type, property 'minimum' is not supported"),
    reject("4k", body(output_config=json_format({"type": "number", "minimum": 0, "maximum": 1})),
           "output_config.format.schema: For 'number' type, properties maximum, minimum are not supported"),
    reject("4k", body(output_config=json_format({"type": "array", "items": {"type": "string"}, "minItems": 2})),
           "output_config.format.schema: For 'array' type, 'minItems' values other than 0 or 1 are not supported"),
    reject("4k", body(output_config=json_format({"type": "object", "additionalProperties": False, "properties": {
        "inner": {"type": ["object", "null"], "properties": {"a": {"type": "string"}}}}})),
           "output_config.format.schema: For 'object' type, 'additionalProperties' must be explicitly set to false"),
    reject("4k", body(output_config=json_format({"type": ["integer", "null"], "maximum": 3})),
           "output_config.format.schema: For 'integer' type, property 'maximum' is not supported"),
    # 21e: strict tools follow the structured-output limits ([OBS] path tools.N.custom)
    reject("21e", body(tools=[{"name": "f", "strict": True, "input_schema": {"type": "object", "properties": {
        "x": {"type": "integer", "minimum": 3}}}}]),
           "tools.0.custom: For 'object' type, 'additionalProperties' must be explicitly set to false"),
    reject("21e", body(tools=[TOOL, {"name": "f", "strict": True, "input_schema": {
        "type": "object", "additionalProperties": False, "properties": {"x": {"type": "integer", "minimum": 3}}}}]),
           "tools.1.custom: For 'integer' type, property 'minimum' is not supported"),
    reject("21e", body(tools=[{"name": "f", "strict": True, "type": "custom", "input_schema": {
        "type": "object", "additionalProperties": False, "properties": {
            "o": {"type": ["object", "null"], "properties": {}}}}}]),
           "tools.0.custom: For 'object' type, 'additionalProperties' must be explicitly set to false"),
    # 4h: a custom tool's input_schema.type ([OBS] Field required; SDK InputSchema literal)
    reject("4h", body(tools=[custom_tool({"properties": {"q": {"type": "string"}}})]),
           "tools.0.custom.input_schema.type: Field required"),
    reject("4h", body(tools=[TOOL, custom_tool({"type": "array", "items": {"type": "string"}})]),
           "tools.1.custom.input_schema.type: Input should be 'object'"),
    reject("4h", body(tools=[custom_tool({"type": ["object", "null"]})]),
           "tools.0.custom.input_schema.type: Input should be 'object'"),
    # 21c: top-level combinators ([OBS])
    reject("21c", body(tools=[custom_tool({"type": "object", "anyOf": [{"required": ["a"]}, {"required": ["b"]}]})]),
           COMBINATORS_21C.format(0)),
    reject("21c", body(tools=[TOOL, custom_tool({"type": "object", "oneOf": []})]), COMBINATORS_21C.format(1)),
    reject("21c", body(tools=[custom_tool({"type": "object", "allOf": [{"type": "object"}]})]), COMBINATORS_21C.format(0)),
    # 21d: not valid JSON Schema draft 2020-12 ([OBS] text; jsonschema's check)
    reject("21d", body(tools=[custom_tool({"type": "object", "properties": [1, 2]})]), DRAFT_21D.format(0)),
    reject("21d", body(tools=[TOOL, custom_tool({"type": "object", "required": [1, None]})]), DRAFT_21D.format(1)),
    reject("21d", body(tools=[custom_tool({"type": "object", "properties": {"q": {"type": "banana"}}})]),
           DRAFT_21D.format(0)),
    reject("21d", body(tools=[custom_tool({"type": "object", "required": 5})]), DRAFT_21D.format(0)),
    reject("21d", body(tools=[custom_tool({"type": "object", "properties": {"q": {"enum": {"a": 1}}}})]),
           DRAFT_21D.format(0)),
    # 4: required fields
    reject("4", {}, "max_tokens: Field required"),
    reject("4", {"model": MODEL, "max_tokens": 5}, "messages: Field required"),
    reject("4", {"max_tokens": 5, "messages": [user("Hi")]}, "model: Field required"),
    reject("4", {"messages": [user("Hi")]}, "model: Field required", endpoint="count_tokens"),
    # 4b: top-level types
    reject("4b", body(max_tokens="1024"), "max_tokens: Input should be a valid integer"),
    reject("4b", body(max_tokens=True), "max_tokens: Input should be a valid integer"),
    reject("4b", body(max_tokens=None), "max_tokens: Input should be a valid integer"),
    reject("4b", body(max_tokens=-1), "max_tokens: Input should be greater than or equal to 0"),
    reject("4b", body(model=5), "model: Input should be a valid string"),
    reject("4b", body(messages={"role": "user"}), "messages: Input should be a valid list"),
    reject("4b", body(system=7), "system: Input should be a valid list"),
    reject("4b", body(system=[{"type": "text"}]), "system.0.text: Field required"),
    reject("4b", body(system=[{"type": "image", "text": "x"}]), "system.0.type: Input should be 'text'"),
    reject("4b", body(stop_sequences="END"), "stop_sequences: Input should be a valid list"),
    reject("4b", body(stop_sequences=["END", 1]), "stop_sequences.1: Input should be a valid string"),
    reject("4b", body(temperature=1.5), "temperature: Input should be less than or equal to 1"),
    reject("4b", body(stream="yes"), "stream: Input should be a valid boolean"),
    reject("4b", body(tools={"name": "x"}), "tools: Input should be a valid list"),
    reject("4b", body(tools=[TOOL], tool_choice="auto"), "tool_choice: Input should be a valid dictionary"),
    reject("4b", body(tools=[TOOL], tool_choice={"type": "required"}),
           "tool_choice: Input tag 'required' found using 'type' does not match any of the expected tags: "
           "'auto', 'any', 'tool', 'none'"),
    reject("4b", body(tools=[TOOL], tool_choice={"type": "tool"}), "tool_choice.tool.name: Field required"),
    reject("4b", body(tools=[TOOL], tool_choice={"type": "auto", "disable_parallel_tool_use": "no"}),
           "tool_choice.auto.disable_parallel_tool_use: Input should be a valid boolean"),
    reject("4b", body(thinking={"type": "enabled"}), "thinking.enabled.budget_tokens: Field required"),
    reject("4b", body(thinking={"type": "enabled", "budget_tokens": "2048"}),
           "thinking.enabled.budget_tokens: Input should be a valid integer"),
    reject("4b", body(thinking={}), "thinking.type: Field required"),
    reject("4b", body(thinking={"type": "adaptive", "display": "full"}),
           "thinking.adaptive.display: Input should be 'summarized' or 'omitted'"),
    # 4e: extra fields at the top level and inside parameters (pydantic's extra_forbidden text)
    reject("4e", body(context_management={"edits": []}) | {"response_format": {}},
           "response_format: Extra inputs are not permitted"),
    reject("4e", body(extra_body={"temperature": 0}), "extra_body: Extra inputs are not permitted"),
    reject("4e", body(betas=["x"]), "betas: Extra inputs are not permitted"),
    reject("4e", body(system=[text("Be brief.", cache_control={"type": "ephemeral", "scope": "global"})]),
           "system.0.cache_control.ephemeral.scope: Extra inputs are not permitted"),
    reject("4e", body(system=[text("Be brief.", foo=1)]), "system.0.foo: Extra inputs are not permitted"),
    reject("4e", body(thinking={"type": "adaptive", "effort": "max"}),
           "thinking.adaptive.effort: Extra inputs are not permitted"),
    reject("4e", body(thinking={"type": "disabled", "budget_tokens": 1024}),
           "thinking.disabled.budget_tokens: Extra inputs are not permitted"),
    reject("4e", body(tools=[TOOL], tool_choice={"type": "auto", "parallel": False}),
           "tool_choice.auto.parallel: Extra inputs are not permitted"),
    reject("4e", body(metadata={"user_id": "u1", "session": "s"}), "metadata.session: Extra inputs are not permitted"),
    reject("4e", {"model": MODEL, "messages": [user("Hi")], "stream_options": {}},
           "stream_options: Extra inputs are not permitted", endpoint="count_tokens"),
    # 5, 6
    reject("5", body(model="claude-nope-9"), "model: claude-nope-9", status=404, error_type="not_found_error"),
    reject("5", {"model": "gpt-4", "messages": [user("Hi")]}, "model: gpt-4", endpoint="count_tokens",
           status=404, error_type="not_found_error"),
    reject("5b", body(model="claude-sonnet-4-5"), "model: claude-sonnet-4-5", status=404,
           error_type="not_found_error"),
    reject("5b", body(model="claude-sonnet-4-5-20250929"), "model: claude-sonnet-4-5-20250929", status=404,
           error_type="not_found_error"),
    reject("5b", body(model=OLD_MODEL), f"model: {OLD_MODEL}", status=404, error_type="not_found_error"),
    reject("5b", {"model": "claude-mythos-preview", "messages": [user("Hi")]}, "model: claude-mythos-preview",
           endpoint="count_tokens", status=404, error_type="not_found_error"),
    reject("6", body(max_tokens=128_001),
           "max_tokens: 128001 > 128000, which is the maximum allowed number of output tokens for claude-sonnet-4-6"),
    reject("6", body(model="claude-opus-4-5", max_tokens=128_001),
           "max_tokens: 128001 > 64000, which is the maximum allowed number of output tokens for "
           "claude-opus-4-5-20251101"),
    # 6b-6e: sampling parameters per model
    reject("6b", body(model=SAMPLING_REMOVED_MODEL, temperature=0), "`temperature` is deprecated for this model."),
    reject("6b", body(model="claude-sonnet-5", temperature=0.5, thinking=ADAPTIVE),
           "`temperature` is deprecated for this model."),
    reject("6c", body(model=SAMPLING_REMOVED_MODEL, top_p=1), "`top_p` is deprecated for this model."),
    reject("6c", body(model="claude-opus-5-5", temperature=1, top_p=0.9), "`top_p` is deprecated for this model."),
    reject("6d", body(model=ALWAYS_THINKING_MODEL, top_k=5), "`top_k` is deprecated for this model."),
    reject("6e", body(temperature=0.5, top_p=0.9),
           "`temperature` and `top_p` cannot both be specified for this model. Please use only one."),
    reject("6e", body(model="claude-haiku-4-5", temperature=0, top_p=1),
           "`temperature` and `top_p` cannot both be specified for this model. Please use only one."),
    # 4c, 21, 21b, 22, 23: tools
    reject("4c", body(tools=["get_weather"]), "tools.0: Input should be a valid dictionary"),
    reject("4c", body(tools=[TOOL, {"name": "x"}]), "tools.1.custom.input_schema: Field required"),
    reject("4c", body(tools=[{"input_schema": {"type": "object"}}]), "tools.0.custom.name: Field required"),
    reject("4c", body(tools=[{"name": "x", "input_schema": "object"}]),
           "tools.0.custom.input_schema: Input should be a valid dictionary"),
    reject("4c", body(tools=[{"type": "web_search_20250305"}]), "tools.0.web_search_20250305.name: Field required"),
    reject("4c", body(tools=[{"type": 3, "name": "x"}]), "tools.0.type: Input should be a valid string"),
    reject("4c", body(tools=[{"type": "mcp_toolset"}], mcp_servers=[MCP_SERVER]),
           "tools.0.mcp_toolset.mcp_server_name: Field required"),
    reject("4c", body(tools=[{"type": "computer_20250124", "name": "computer", "display_width_px": 1024}]),
           "tools.0.computer_20250124.display_height_px: Field required"),
    reject("4c", body(tools=[{"type": "made_up_20990101"}]), "tools.0.made_up_20990101.name: Field required"),
    # 4f: extra fields in tool definitions, tagged by the tool's type ("custom" without one)
    reject("4f", body(tools=[TOOL, {**TOOL, "name": "get_time", "parameters": {}}]),
           "tools.1.custom.parameters: Extra inputs are not permitted"),
    reject("4f", body(tools=[{"type": "function", "function": TOOL}]) | {"tools": [{**TOOL, "type": "custom",
                                                                                    "function": {}}]},
           "tools.0.custom.function: Extra inputs are not permitted"),
    reject("4f", body(tools=[{"type": "web_search_20250305", "name": "web_search", "input_schema": {}}]),
           "tools.0.web_search_20250305.input_schema: Extra inputs are not permitted"),
    reject("4f", body(tools=[{**TOOL, "cache_control": {"type": "ephemeral", "scope": "x"}}]),
           "tools.0.custom.cache_control.ephemeral.scope: Extra inputs are not permitted"),
    reject("21", body(tools=[TOOL, {**TOOL, "name": "get weather"}]),
           "tools.1.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,128}$'"),
    reject("21", body(tools=[{**TOOL, "name": "a" * 129}]),
           "tools.0.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,128}$'"),
    reject("21b", body(tools=[TOOL, TOOL]), "tools: Tool names must be unique."),
    reject("22", body(tool_choice={"type": "auto"}), "tool_choice may only be specified while providing tools."),
    reject("22", body(tools=[], tool_choice={"type": "any"}),
           "tool_choice may only be specified while providing tools."),
    reject("23", body(tools=[TOOL], tool_choice={"type": "tool", "name": "get_time"}),
           "tool_choice.name: tool 'get_time' not found in tools"),
    # 4d: message shapes
    reject("4d", body(user(5)), "messages.0.content: Input should be a valid list"),
    reject("4d", body(user("Hi"), assistant(None)), "messages.1.content: Input should be a valid list"),
    reject("4d", body("Hi"), "messages.0: Input should be a valid dictionary"),
    reject("4d", body({"role": "user"}), "messages.0.content: Field required"),
    reject("4d", body({"content": "Hi"}), "messages.0.role: Field required"),
    reject("4d", body(user(["Hi"])), "messages.0.content.0: Input should be a valid dictionary"),
    reject("4d", body(user([{"text": "Hi"}])), "messages.0.content.0.type: Field required"),
    reject("4d", body(user([{"type": None, "text": "Hi"}])),
           "messages.0.content.0.type: Input should be a valid string"),
    reject("4d", body(user([text("a"), {"type": "text", "text": None}])),
           "messages.0.content.1.text.text: Input should be a valid string"),
    reject("4d", body(user("Hi"), assistant([{"type": "tool_use", "id": "toolu_1", "name": "f", "input": "{}"}])),
           "messages.1.content.0.tool_use.input: Input should be a valid dictionary"),
    reject("4d", body(user("Hi"), assistant([{"type": "tool_use", "name": "f", "input": {}}])),
           "messages.1.content.0.tool_use.id: Field required"),
    reject("4d", body(*TOOL_LOOP[:2], user([{"type": "tool_result", "content": "x"}])),
           "messages.2.content.0.tool_result.tool_use_id: Field required"),
    reject("4d", body(*TOOL_LOOP[:2], user([tool_result("toolu_01A", content=42)])),
           "messages.2.content.0.tool_result.content: Input should be a valid list"),
    reject("4d", body(user("Hi"), assistant([{"type": "thinking", "thinking": "hmm"}]), user("?")),
           "messages.1.content.0.thinking.signature: Field required"),
    # 4d: blocks inside tool_result content are shape-checked like a message's blocks
    reject("4d", body(*TOOL_LOOP[:2], user([tool_result("toolu_01A", content=[{"type": "text", "text": 42}])]),
                      tools=[TOOL]),
           "messages.2.content.0.tool_result.content.0.text.text: Input should be a valid string"),
    reject("4d", body(*TOOL_LOOP[:2], user([tool_result("toolu_01A", content=[text("a"), {"type": "text"}])]),
                      tools=[TOOL]),
           "messages.2.content.0.tool_result.content.1.text.text: Field required"),
    reject("4d", body(*TOOL_LOOP[:2], user([tool_result("toolu_01A", content=[{"text": "x"}])]), tools=[TOOL]),
           "messages.2.content.0.tool_result.content.0.type: Field required"),
    reject("4d", body(*TOOL_LOOP[:2], user([tool_result("toolu_01A", content=["95F"])]), tools=[TOOL]),
           "messages.2.content.0.tool_result.content.0: Input should be a valid dictionary"),
    reject("4d", body(*TOOL_LOOP[:2], user([tool_result("toolu_01A", content=[tool_use("toolu_X")])]), tools=[TOOL]),
           "messages.2.content.0.tool_result.content.0: Input tag 'tool_use' found using 'type' does not match any "
           "of the expected tags: 'browser_state', 'document', 'image', 'search_result', 'text', 'tool_reference'"),
    reject("4d", body(*TOOL_LOOP[:2], user([tool_result("toolu_01A", content=[{"type": "image"}])]), tools=[TOOL]),
           "messages.2.content.0.tool_result.content.0.image.source: Field required"),
    # 4g: extra fields on messages and inside blocks (tagged by the block's type), nested ones too
    reject("4g", body(user("Hi") | {"name": "Init"}), "messages.0.name: Extra inputs are not permitted"),
    reject("4g", body(user("Hi"), assistant("Hello") | {"tool_calls": []}, user("Again")),
           "messages.1.tool_calls: Extra inputs are not permitted"),
    reject("4g", body(user([text("Hi", id="b1")])), "messages.0.content.0.text.id: Extra inputs are not permitted"),
    reject("4g", body(user("Hi"), assistant([tool_use("toolu_01A", text="oops")]), user([tool_result("toolu_01A")]),
                      tools=[TOOL]),
           "messages.1.content.0.tool_use.text: Extra inputs are not permitted"),
    reject("4g", body(user("Hi"), assistant([tool_use("toolu_01A", index=0)]), user([tool_result("toolu_01A")]),
                      tools=[TOOL]),
           "messages.1.content.0.tool_use.index: Extra inputs are not permitted"),
    reject("4g", body(*TOOL_LOOP[:2], user([tool_result("toolu_01A") | {"name": "get_weather"}]), tools=[TOOL]),
           "messages.2.content.0.tool_result.name: Extra inputs are not permitted"),
    reject("4g", body(*TOOL_LOOP[:2], user([tool_result("toolu_01A", content=[text("95F", annotations=None)])]),
                      tools=[TOOL]),
           "messages.2.content.0.tool_result.content.0.text.annotations: Extra inputs are not permitted"),
    reject("4g", body(user("Hi"), assistant([T1 | {"cache_control": {"type": "ephemeral"}}, text("Sure.")]),
                      user("Thanks")),
           "messages.1.content.0.thinking.cache_control: Extra inputs are not permitted"),
    reject("4g", body(user("Hi"), assistant([R1 | {"signature": "x"}, text("Sure.")]), user("Thanks")),
           "messages.1.content.0.redacted_thinking.signature: Extra inputs are not permitted"),
    reject("4g", body(user([{"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "x",
                                                         "detail": "high"}}])),
           "messages.0.content.0.image.source.base64.detail: Extra inputs are not permitted"),
    reject("4g", body(user([{"type": "document", "source": {"type": "text", "media_type": "text/plain",
                                                            "data": "x"}, "name": "a.txt"}])),
           "messages.0.content.0.document.name: Extra inputs are not permitted"),
    reject("4g", body(user("Search"), assistant([server_tool_use() | {"caller": {"type": "direct"}, "x": 1}])),
           "messages.1.content.0.server_tool_use.x: Extra inputs are not permitted"),
    reject("4g", body(user([{"type": "search_result", "source": "https://a", "title": "A",
                             "content": [text("x", url="https://a")]}])),
           "messages.0.content.0.search_result.content.0.url: Extra inputs are not permitted"),
    # 7-10
    reject("7", body(messages=[]), "messages: at least one message is required"),
    reject("8", body(assistant("Hi"), user("Hello")), 'messages: first message must use the "user" role'),
    reject("8", body(system("Be brief."), user("Hello"), model=SYSTEM_MODEL),
           'messages: first message must use the "user" role'),
    reject("9b", body(user("Hi"), assistant("Hello"), {"role": "tool", "content": "x"}),
           "messages.2.role: Input should be 'user' or 'assistant'"),
    reject("9b", body(user("Hi"), {"role": None, "content": "x"}),
           "messages.1.role: Input should be 'user' or 'assistant'"),
    reject("9b", body(user("Hi"), {"role": "developer", "content": "x"}, model=SYSTEM_MODEL),
           "messages.1.role: Input should be 'user', 'assistant' or 'system'"),
    reject("9", body(system("Be brief."), user("Hi")),
           'messages: Unexpected role "system". The Messages API accepts a top-level `system` parameter, '
           'not "system" as an input message role.'),
    reject("9b", body({"role": "tool", "content": "x"}, user("Hi")),
           "messages.0.role: Input should be 'user' or 'assistant'"),
    reject("9", body(user("Hi"), system("Be brief."), user("Again")),
           'messages: Unexpected role "system". The Messages API accepts a top-level `system` parameter, '
           'not "system" as an input message role.'),
    reject("9c", body(user("Hi"), assistant("Hello"), system("Be brief."), user("Again"), model=SYSTEM_MODEL),
           "messages.2: `system` messages must follow a `user` message and cannot be the first message"),
    reject("9c", body(system("Be brief."), user("Hello"), model=SYSTEM_MODEL),
           "messages.0: `system` messages must follow a `user` message and cannot be the first message",
           options={"first_message_user": False}),
    reject("10", body(user("Hi"), user("Hello?")),
           'messages: roles must alternate between "user" and "assistant", but found multiple "user" roles in a row',
           options={"strict_alternation": True}),
    reject("10", body(user("Hi"), assistant("A"), assistant("B"), user("C"), model=PREFILL_MODEL),
           'messages: roles must alternate between "user" and "assistant", but found multiple "assistant" roles in '
           'a row', options={"strict_alternation": True}),
    # 11, 12
    reject("11", body(user("Hi"), assistant(""), user("Hello?")),
           "messages.1: all messages must have non-empty content except for the optional final assistant message"),
    reject("11", body(user("Hi"), assistant([]), user("Hello?")),
           "messages.1: all messages must have non-empty content except for the optional final assistant message"),
    reject("11", body(user("")),
           "messages.0: all messages must have non-empty content except for the optional final assistant message"),
    reject("11", body(user("Hi"), assistant("Hello"), user([])),
           "messages.2: all messages must have non-empty content except for the optional final assistant message"),
    reject("12d", body(user([text("a", cache_control=EPH), text("b", cache_control=EPH), text("c", cache_control=EPH)]),
                       tools=[{**TOOL, "cache_control": EPH}], system=[text("Be brief.", cache_control=EPH)]),
           "A maximum of 4 blocks with cache_control may be provided. Found 5."),
    reject("12d", body(user([text(str(k), cache_control=EPH) for k in range(6)])),
           "A maximum of 4 blocks with cache_control may be provided. Found 6."),
    reject("12e", body(user([text("a", cache_control={"type": "ephemeral", "ttl": "5m"}),
                             text("b", cache_control=EPH_1H)])), TTL_12E.format("messages.0.content.1")),
    reject("12e", body(user([text("a", cache_control=EPH_1H)]), tools=[{**TOOL, "cache_control": EPH}]),
           TTL_12E.format("messages.0.content.0")),
    reject("12e", body(tools=[{**TOOL, "cache_control": EPH}], system=[text("Be brief.", cache_control=EPH_1H)]),
           TTL_12E.format("system.0")),
    reject("12c", body(user("Hi"), assistant("Hello"),
                       user([text("a"), text("", cache_control={"type": "ephemeral"})])),
           "messages.2.content.1.text: cache_control cannot be set for empty text blocks"),
    reject("12", body(user([text("a"), text("")])), "messages: text content blocks must be non-empty"),
    reject("12", body(user("Hi"), assistant([text("")]), model=PREFILL_MODEL),
           "messages: text content blocks must be non-empty"),
    reject("12", body(*TOOL_LOOP[:2], user([tool_result("toolu_01A", content=[text("")])]), tools=[TOOL]),
           "messages: text content blocks must be non-empty"),
    reject("12b", body(*TOOL_LOOP[:2], user([tool_result("toolu_01A", content=[text("ok"), text("\n ")])]),
                       tools=[TOOL]),
           "messages: text content blocks must contain non-whitespace text"),
    reject("12b", body(user("   ")), "messages: text content blocks must contain non-whitespace text"),
    reject("12b", body(user([text("a"), text(" \n\t")])),
           "messages: text content blocks must contain non-whitespace text"),
    # 13, 14: prefill
    reject("13", body(user("Hi"), assistant("The answer is")),
           "This model does not support assistant message prefill. The conversation must end with a user message."),
    reject("13", body(*TOOL_LOOP[:2], tools=[TOOL]),
           "This model does not support assistant message prefill. The conversation must end with a user message."),
    reject("14", body(user("Hi"), assistant("The answer is "), model=PREFILL_MODEL),
           "final assistant content cannot end with trailing whitespace"),
    reject("14", body(user("Hi"), assistant([text("The answer is\n")]), model=PREFILL_MODEL),
           "final assistant content cannot end with trailing whitespace"),
    # 17, 15, 16, 18, 19, 20: tool pairing
    reject("17", body(user("Hi"), assistant([tool_use("toolu_A"), tool_use("toolu_B")]),
                      user([text("Here you go"), tool_result("toolu_A"), tool_result("toolu_B")]), tools=[TOOL]),
           "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_A, toolu_B. "
           "Each `tool_use` block must have a corresponding `tool_result` block in the next message."),
    reject("17", body(user("Hi"), assistant([tool_use("toolu_A"), tool_use("toolu_B")]),
                      user([tool_result("toolu_A"), text("and"), tool_result("toolu_B")]), tools=[TOOL]),
           "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_B. "
           "Each `tool_use` block must have a corresponding `tool_result` block in the next message."),
    reject("15", body(user("Hi"), assistant([tool_use("toolu_A"), tool_use("toolu_B")]), user([tool_result("toolu_A")]),
                      tools=[TOOL]),
           "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_B. Each "
           "`tool_use` block must have a corresponding `tool_result` block in the next message."),
    reject("15", body(user("Hi"), assistant([tool_use("toolu_A"), tool_use("toolu_B")]), user("What did you find?"),
                      tools=[TOOL]),
           "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_A, toolu_B. "
           "Each `tool_use` block must have a corresponding `tool_result` block in the next message."),
    reject("15", body(*TOOL_LOOP[:2], user("wait"), user([tool_result("toolu_01A")]), tools=[TOOL]),
           "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_01A. Each "
           "`tool_use` block must have a corresponding `tool_result` block in the next message."),
    reject("15", body(*TOOL_LOOP[:2], tools=[TOOL], model=PREFILL_MODEL),
           "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_01A. Each "
           "`tool_use` block must have a corresponding `tool_result` block in the next message."),
    reject("16", body(*TOOL_LOOP[:2], user([tool_result("toolu_01A"), tool_result("toolu_ZZ")]), tools=[TOOL]),
           "messages.2.content.1: unexpected `tool_use_id` found in `tool_result` blocks: toolu_ZZ. Each "
           "`tool_result` block must have a corresponding `tool_use` block in the previous message."),
    reject("16", body(user([tool_result("toolu_01A")]), tools=[TOOL]),
           "messages.0.content.0: unexpected `tool_use_id` found in `tool_result` blocks: toolu_01A. Each "
           "`tool_result` block must have a corresponding `tool_use` block in the previous message."),
    reject("16b", body(*TOOL_LOOP[:2], user([tool_result("toolu_01A"), tool_result("toolu_01A", "again")]),
                       tools=[TOOL]),
           "messages.2.content.1: each tool_use must have a single result. Found multiple `tool_result` blocks "
           "with id: toolu_01A"),
    reject("16b", body(user("Hi"), assistant([tool_use("toolu_A"), tool_use("toolu_B")]),
                       user([tool_result("toolu_A"), tool_result("toolu_B"), tool_result("toolu_A", "late")]),
                       tools=[TOOL]),
           "messages.2.content.2: each tool_use must have a single result. Found multiple `tool_result` blocks "
           "with id: toolu_A"),
    reject("18", body(*TOOL_LOOP, assistant([tool_use("toolu_01A")]), user([tool_result("toolu_01A")]), tools=[TOOL]),
           "messages.3.content.0: `tool_use` ids must be unique"),
    reject("19", body(user("Hi"), assistant([text("ok"), tool_use("call.1")]), user([tool_result("call.1")]),
                      tools=[TOOL]),
           "messages.1.content.1.tool_use.id: String should match pattern '^[a-zA-Z0-9_-]+$'"),
    reject("19", body(user("Hi"), assistant([tool_use("")]), user([tool_result("")]), tools=[TOOL]),
           "messages.1.content.0.tool_use.id: String should match pattern '^[a-zA-Z0-9_-]+$'"),
    reject("20", body(user("Hi"), assistant([text("ok"), tool_result("toolu_X")]), user("next")),
           "messages.1: `tool_result` blocks can only be in `user` messages"),
    # 24a-30: thinking
    reject("24a", body(model=SYSTEM_MODEL, thinking=ENABLED, max_tokens=4096), ENABLED_24A),
    reject("24a", body(model=SAMPLING_REMOVED_MODEL, thinking=ENABLED, max_tokens=4096), ENABLED_24A),
    reject("24a", body(model="claude-sonnet-5", thinking=ENABLED, max_tokens=4096), ENABLED_24A),
    reject("24a", {"model": ALWAYS_THINKING_MODEL, "messages": [user("Hi")], "thinking": ENABLED}, ENABLED_24A,
           endpoint="count_tokens"),
    reject("24b", body(model=ALWAYS_THINKING_MODEL, thinking={"type": "disabled"}), DISABLED_24B),
    reject("24b", body(model="claude-opus-5-5", thinking={"type": "disabled"}), DISABLED_24B),
    reject("24c", body(model=PREFILL_MODEL, thinking=ADAPTIVE),
           '"thinking.type.adaptive" is not supported for this model.'),
    reject("24c", body(thinking={"type": "between_tools"}),
           '"thinking.type.between_tools" is not supported for this model.'),
    reject("24d", body(thinking=ENABLED, max_tokens=4096, temperature=0.5), TEMPERATURE_24D),
    reject("24d", body(thinking=ADAPTIVE, temperature=0), TEMPERATURE_24D),
    reject("24e", body(thinking=ENABLED, max_tokens=4096, top_k=5), TOP_K_24E),
    reject("24", body(tools=[TOOL], tool_choice={"type": "any"}, thinking=ENABLED, max_tokens=4096),
           "Thinking may not be enabled when tool_choice forces tool use."),
    reject("24", body(tools=[TOOL], tool_choice={"type": "tool", "name": "get_weather"}, thinking=ENABLED,
                      max_tokens=4096),
           "Thinking may not be enabled when tool_choice forces tool use."),
    reject("25", body(thinking={"type": "enabled", "budget_tokens": 1023}),
           "thinking.enabled.budget_tokens: Input should be greater than or equal to 1024"),
    reject("25b", body(thinking={"type": "enabled", "budget_tokens": 2048}, max_tokens=2048),
           "`max_tokens` must be greater than `thinking.budget_tokens`."),
    reject("27", body(user("Hi"), assistant([text("Sure."), T1]), user("Thanks")),
           "messages.1.content.0: If an assistant message contains any thinking blocks, the first block must be "
           "thinking or redacted_thinking. Found text."),
    reject("28", body(user("Hi"), assistant([{"type": "thinking", "thinking": "hmm", "signature": "forged"},
                                             text("Hello")]), user("Thanks")),
           "messages.1.content.0: Invalid `signature` in `thinking` block"),
    reject("28", body(user("Hi"), assistant([{"type": "thinking", "thinking": "hmm", "signature": ""}, text("Hi")]),
                      user("Thanks")),
           "messages.1.content.0: Invalid `signature` in `thinking` block"),
    reject("28", body(user("Hi"), assistant([think("hmm", model=PREFILL_MODEL), text("Hello")]), user("Thanks")),
           "messages.1.content.0: Invalid `signature` in `thinking` block"),
    reject("28", body(user("Hi"), assistant([{"type": "redacted_thinking", "data": "bogus"}, text("Hello")]),
                      user("Thanks")),
           "messages.1.content.0: Invalid `signature` in `thinking` block"),
    reject("28", body(user("Weather?"), assistant([{**T1, "thinking": "edited"}, R1, T2, text("Let me check."),
                                                   tool_use("toolu_T")]),
                      user([tool_result("toolu_T")]), assistant("Sunny."), user("Thanks")),
           "messages.1.content.0: Invalid `signature` in `thinking` block"),
    reject("28", body(user("Hi"), assistant([{**T1, "thinking": "edited"}, text("Sure.")]), user("Thanks")),
           "messages.1.content.0: Invalid `signature` in `thinking` block"),
    reject("29", body(*PAUSED[:1], assistant([T_PAUSE, R1, server_tool_use()]), thinking=ADAPTIVE),
           MODIFIED_29.format(1, 1)),
    reject("29", thinking_loop([{**T1, "thinking": "edited"}, R1, T2, text("Let me check."), tool_use("toolu_T")],
                               thinking=ENABLED, max_tokens=4096),
           MODIFIED_29.format(1, 0)),
    reject("29", thinking_loop([R1, T1, T2, text("Let me check."), tool_use("toolu_T")], thinking=ENABLED,
                               max_tokens=4096),
           MODIFIED_29.format(1, 0)),
    reject("29", thinking_loop([T1, T2, text("Let me check."), tool_use("toolu_T")], thinking=ENABLED,
                               max_tokens=4096),
           MODIFIED_29.format(1, 1)),
    reject("29", thinking_loop([T1, R1, text("Let me check."), tool_use("toolu_T")], thinking=ADAPTIVE),
           MODIFIED_29.format(1, 2)),
    reject("26", thinking_loop([text("Let me check."), tool_use("toolu_T")], thinking=ADAPTIVE),
           THINKING_26.format(1, "text")),
    reject("26", thinking_loop([tool_use("toolu_T")], thinking=ENABLED, max_tokens=4096),
           THINKING_26.format(1, "tool_use")),
    reject("26", body(*TOOL_LOOP, tools=[TOOL], thinking=ENABLED, max_tokens=4096), THINKING_26.format(1, "text")),
    reject("26", body(user("Hi"), assistant("The answer is"), thinking=ENABLED, max_tokens=4096,
                      model=PREFILL_MODEL), THINKING_26.format(1, "text")),
    reject("30", body(user("Hi"), assistant(ISSUED_PREFILL), model=PREFILL_MODEL), DISABLED_30.format(1, 0)),
    reject("30", body(*PAUSED[:1], assistant(ISSUED_PAUSE), thinking={"type": "disabled"}), DISABLED_30.format(1, 0)),
    # 31, 31b: size
    reject("31", body(LONG), "prompt is too long: 107 tokens > 50 maximum", options={"context_window": 50}),
    reject("31", {"model": MODEL, "messages": [LONG]}, "prompt is too long: 107 tokens > 106 maximum",
           endpoint="count_tokens", options={"context_window": 106}),
    reject("31b", body(LONG, model=OLD_MODEL, max_tokens=900),
           "input length and `max_tokens` exceed context limit: 107 + 900 > 1000, decrease input length or "
           "`max_tokens` and try again", options={"context_window": 1000, **BEFORE_OPUS_4_RETIRED}),
]

SDK_RESENT = assistant([
    {"type": "text", "text": "Let me check.", "citations": None},
    {"type": "tool_use", "id": "toolu_01A", "name": "get_weather", "input": {"city": "Austin"},
     "caller": {"type": "direct"}, "toolset_name": None},
])

ACCEPTED = [
    accept("4i", body(), "no-header"),
    accept("4i", body(), "sdk-literal-values", headers={"anthropic-beta": "message-threads-2026-08-12,"
                                                                        "structured-outputs-2025-11-13, files-api-2025-04-14"}),
    accept("4i", body(), "dated-name-not-in-the-sdk", headers={"anthropic-beta": "tool-search-tool-2025-10-19"}),
    accept("4i", body(), "dated-today", headers={"anthropic-beta": "brand-new-2026-12-01"}),
    accept("4i", body(), "undashed-date", headers={"anthropic-beta": "claude-code-20250219,oauth-2025-04-20"}),
    accept("25b", body(thinking={"type": "enabled", "budget_tokens": 8000}, max_tokens=2000), "interleaved-thinking",
           headers={"anthropic-beta": "interleaved-thinking-2025-05-14"}),
    accept("4j", body(output_config=json_format({"type": "object", "additionalProperties": False})), "json-schema"),
    accept("4j", body(output_config={"format": None, "effort": "high"}), "null-format"),
    accept("4e", body(output_format=json_format({"type": "object", "additionalProperties": False})["format"]),
           "beta-output-format", headers={"anthropic-beta": "structured-outputs-2025-11-13"}),
    accept("4j", body(output_config=json_format({"type": "string"})), "non-object-schema-root"),
    accept("4k", body(output_config=json_format({"type": "object", "additionalProperties": False, "properties": {
        "n": {"type": "integer", "description": "{minimum: 1}"}, "tags": {"type": "array", "minItems": 1,
                                                                            "items": {"type": "string", "minLength": 3}}},
        "required": ["n"]})), "sdk-transformed-shape"),
    accept("4k", body(tools=[custom_tool({"type": "object", "properties": {"n": {"type": "integer", "minimum": 1}}})]),
           "tool-schemas-are-not-output-schemas"),
    accept("4k", body(output_config=json_format({"type": ["object", "null"], "additionalProperties": False})),
           "nullable-object-closed"),
    accept("21e", body(tools=[{"name": "f", "strict": True, "input_schema": {
        "type": "object", "additionalProperties": False, "required": ["x"], "properties": {
            "x": {"type": "integer", "description": "{minimum: 3}"},
            "o": {"type": ["object", "null"], "additionalProperties": False, "properties": {}}}}},
                             {"name": "g", "strict": False, "input_schema": {"type": "object", "properties": {
                                 "x": {"type": "integer", "minimum": 3}}}},
                             {"name": "h", "input_schema": {"type": "object"}}]), "closed-strict-and-non-strict"),
    accept("4h", body(tools=[custom_tool({"type": "object"})]), "object"),
    accept("4h", body(tools=[{"type": "web_search_20250305", "name": "web_search"}]), "server-tool-has-no-schema"),
    accept("21c", body(tools=[custom_tool({"type": "object", "properties": {
        "q": {"anyOf": [{"type": "string"}, {"type": "null"}]}}, "not": {"required": ["x"]}})]), "nested-anyOf"),
    accept("21d", body(tools=[custom_tool({"type": "object", "properties": {
        "q": {"type": ["string", "null"], "format": "email"}, "n": {"type": "integer", "minimum": 1}},
        "required": ["q"], "$defs": {"a": {"type": "string"}}, "additionalProperties": False})]), "valid-2020-12"),
    accept("21d", body(tools=[custom_tool({"type": "object", "properties": {"when": {"type": "string",
                                                                                      "format": "not-a-format"}}})]),
           "unknown-format-is-an-annotation"),
    accept("4", {"model": MODEL, "messages": [user("Hi")]}, "count-tokens-needs-no-max-tokens",
           endpoint="count_tokens"),
    accept("4", body(), "create"),
    accept("4b", body(max_tokens=0, system="Be brief.", stop_sequences=["END"], temperature=0.5, stream=True),
           "types"),
    accept("4b", body(system=[text("Be brief.", cache_control={"type": "ephemeral"})], temperature=None,
                      tool_choice=None, thinking=None), "nulls-and-system-blocks"),
    accept("4b", body(tools=[TOOL], tool_choice={"type": "tool", "name": "get_weather",
                                                 "disable_parallel_tool_use": True}), "tool-choice"),
    accept("4b", body(thinking={"type": "adaptive", "display": "omitted"}), "thinking-display"),
    accept("4e", body(model=OLD_MODEL, temperature=0.2, top_p=0.9, top_k=5), "sampling-parameters",
           options=BEFORE_OPUS_4_RETIRED),
    accept("4e", body(temperature=1, metadata={"user_id": "u1"}, service_tier="auto",
                      stop_sequences=["END"], system=[text("Be brief.", cache_control={"type": "ephemeral",
                                                                                     "ttl": "1h"})],
                      thinking={"type": "adaptive", "display": "summarized"}, output_config={"effort": "low"}),
           "sdk-parameters"),
    accept("4e", body(thread={"type": "create"}, context_management={"edits": []}, container="c_1"),
           "beta-parameters"),
    accept("4e", body(tools=[TOOL], tool_choice={"type": "auto", "disable_parallel_tool_use": None},
                      thinking={"type": "enabled", "budget_tokens": 2048, "display": None}, max_tokens=4096),
           "explicit-nulls"),
    accept("5", body(model=OLD_MODEL), "catalogue-model", options=BEFORE_OPUS_4_RETIRED),
    accept("5", body(model="claude-haiku-4-5"), "alias"),
    accept("5b", body(model="claude-sonnet-4-5"), "before-retirement", options={"today": date(2026, 11, 29)}),
    accept("5b", body(model="claude-opus-4-5"), "deprecated-not-retired"),
    accept("6", body(max_tokens=128_000), "at-cap"),
    accept("6", body(model="claude-sonnet-5", max_tokens=128_000), "sonnet-5-at-models-api-max-tokens"),
    accept("6b", body(model=SAMPLING_REMOVED_MODEL, temperature=1, thinking=ADAPTIVE), "temperature-1"),
    accept("6b", body(model=SAMPLING_REMOVED_MODEL, temperature=None, top_p=None, top_k=None), "explicit-nulls"),
    accept("6b", {"model": SAMPLING_REMOVED_MODEL, "messages": [user("Hi")], "temperature": 0.2},
           "count-tokens", endpoint="count_tokens"),
    accept("6c", body(top_p=0.9), "top-p-alone"),
    accept("6d", body(top_k=5), "top-k-without-thinking"),
    accept("6e", body(temperature=0.5), "temperature-alone"),
    accept("6e", body(temperature=None, top_p=0.9), "null-temperature"),
    accept("6e", body(model=OLD_MODEL, temperature=0.5, top_p=0.9, top_k=5), "old-model-takes-all",
           options=BEFORE_OPUS_4_RETIRED),
    accept("6", {"model": MODEL, "messages": [user("Hi")], "max_tokens": 10**9}, "count-tokens-ignores",
           endpoint="count_tokens"),
    accept("4c", body(tools=[{**TOOL, "cache_control": {"type": "ephemeral"}, "type": "custom", "strict": True,
                              "input_schema": {**TOOL["input_schema"], "additionalProperties": False}},
                             {"type": "web_search_20250305", "name": "web_search", "max_uses": 5}]),
           "custom-and-server"),
    accept("4c", body(tools=[{"type": "mcp_toolset", "mcp_server_name": "a"}], mcp_servers=[MCP_SERVER]), "mcp-toolset"),
    accept("4c", body(tools=[TOOL, {"type": "browser_toolset_20260801"}, {"type": "computer_toolset_20260801"},
                             {"type": "mcp_toolset", "mcp_server_name": "a"}, {"type": "mcp_toolset", "mcp_server_name": "b"}],
                      mcp_servers=[MCP_SERVER, {**MCP_SERVER, "name": "b"}]), "nameless-toolsets"),
    accept("4f", body(tools=[{**TOOL, "type": "custom", "strict": True, "defer_loading": False,
                              "input_examples": [{"city": "Austin"}], "eager_input_streaming": None,
                              "cache_control": {"type": "ephemeral"},
                              "input_schema": {**TOOL["input_schema"], "additionalProperties": False, "x-any": 1}},
                             {"type": "web_search_20250305", "name": "web_search", "max_uses": 3,
                              "allowed_domains": ["python.org"]},
                             {"type": "bash_20250124", "name": "bash"}]), "sdk-tool-fields"),
    accept("21", body(tools=[{**TOOL, "name": "a" * 64}, {**TOOL, "name": "get-weather_2"}]), "64-chars"),
    accept("21", body(tools=[{**TOOL, "name": "a" * 65}, {**TOOL, "name": "b" * 128}]), "65-and-128-chars"),
    accept("21", body(tools=[{"type": "bash_20250124", "name": "bash"}]), "server-tool-name"),
    accept("21b", body(tools=[TOOL, {**TOOL, "name": "get_time"}]), "distinct-names"),
    accept("22", body(tools=[TOOL], tool_choice={"type": "none"}), "with-tools"),
    accept("23", body(tools=[TOOL], tool_choice={"type": "tool", "name": "get_weather"}), "defined-tool"),
    accept("4d", body(user("Hi"), SDK_RESENT, user([tool_result("toolu_01A", content=[text("95F")])]), tools=[TOOL]),
           "sdk-resent-nulls"),
    accept("4d", body(user([{"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "x"}},
                            text("What is this?"), {"type": "container_upload", "file_id": "file_1"}])),
           "image-and-unknown-block"),
    accept("4g", body(user([text("Hi", cache_control={"type": "ephemeral"}, citations=None)]),
                      SDK_RESENT, user([tool_result("toolu_01A", content=[
                          text("95F", citations=None),
                          {"type": "image", "source": {"type": "url", "url": "https://x/a.png"}},
                          {"type": "search_result", "source": "https://a", "title": "A", "content": [text("x")]},
                      ]) | {"is_error": False, "cache_control": None}]), tools=[TOOL]),
           "sdk-block-fields"),
    accept("4g", body(user("Hi"), assistant([T1 | {"type": "thinking"}, R1, text("Sure.", citations=None)]),
                      user("Thanks")), "thinking-blocks"),
    accept("4g", body(user("Hi"), assistant([server_tool_use() | {"caller": {"type": "direct"}},
                                             {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_01P",
                                              "content": [{"type": "web_search_result", "url": "https://a",
                                                           "title": "A", "encrypted_content": "e",
                                                           "page_age": None}]},
                                             text("Found it.", citations=[{
                                                 "type": "web_search_result_location", "url": "https://a",
                                                 "title": "A", "encrypted_index": "i", "cited_text": "x"}])]),
                      user("Thanks"), tools=[{"type": "web_search_20250305", "name": "web_search"}]),
           "server-tool-blocks"),
    accept("7", body(user("Hi")), "one-message"),
    accept("8", body(assistant("Hi"), user("Hello")), "option-off", options={"first_message_user": False}),
    accept("9b", body(user("Hi"), assistant("Hello"), user("Again")), "user-assistant"),
    accept("9", body(user("Hi"), system("Be brief."), user("Again"), model=SYSTEM_MODEL), "mid-conversation-system"),
    accept("9c", body(user("Hi"), system("Be brief."), model=SYSTEM_MODEL), "system-after-user"),
    accept("10", body(user("Hi"), user("Hello?")), "merged-by-default"),
    accept("11", body(user("Hi"), assistant(""), model=PREFILL_MODEL), "final-assistant-empty-string"),
    accept("11", body(user("Hi"), assistant([]), model=PREFILL_MODEL), "final-assistant-empty-list"),
    accept("12c", body(user([text("Hi", cache_control={"type": "ephemeral"})])), "cache-control-on-text"),
    accept("12d", body(user([text("a", cache_control=EPH), text("b", cache_control=None)]),
                       assistant([text("Checking.", cache_control=EPH), tool_use("toolu_01A")]),
                       user([tool_result("toolu_01A", content=[text("r1", cache_control=EPH),
                                                               text("r2", cache_control=EPH)])]),
                       tools=[{**TOOL, "cache_control": EPH}], system=[text("Be brief.", cache_control=EPH)],
                       cache_control=EPH), "four-blocks-plus-nested-and-automatic"),
    accept("12e", body(user([text("a", cache_control=EPH_1H), text("b", cache_control=EPH)]),
                       tools=[{**TOOL, "cache_control": EPH_1H}], system=[text("Be brief.", cache_control=EPH_1H)]),
           "longer-ttl-first"),
    accept("12", body(user([text("a"), text("b")])), "non-empty"),
    accept("12b", body(user(" padded ")), "padded"),
    accept("13", body(user("Hi"), assistant("The answer is"), model=PREFILL_MODEL), "prefill-model"),
    accept("13", body(*PAUSED, tools=[{"type": "web_search_20250305", "name": "web_search"}]), "pause-turn"),
    accept("14", body(user("Hi"), assistant("The answer is ("), model=PREFILL_MODEL), "no-trailing-space"),
    accept("14", body(*PAUSED, model=PREFILL_MODEL), "pause-turn"),
    accept("17", body(user("Hi"), assistant([tool_use("toolu_A")]), user([tool_result("toolu_A"), text("thanks")]),
                      tools=[TOOL]), "text-after-results"),
    accept("15", body(*TOOL_LOOP, tools=[TOOL]), "answered"),
    accept("15", body(user("Hi"), assistant([server_tool_use(), tool_use("toolu_A")]),
                      user([tool_result("toolu_A")]), tools=[TOOL]), "server-tool-not-paired"),
    accept("16b", body(*TOOL_LOOP, assistant([tool_use("toolu_01B")]), user([tool_result("toolu_01B")]), tools=[TOOL]),
           "one-result-each"),
    accept("16", body(user("Hi"), assistant([tool_use("toolu_A"), tool_use("toolu_B")]),
                      user([tool_result("toolu_B"), tool_result("toolu_A")]), tools=[TOOL]), "any-order"),
    accept("18", body(*TOOL_LOOP, assistant([tool_use("toolu_01B")]), user([tool_result("toolu_01B")]), tools=[TOOL]),
           "distinct-ids"),
    accept("19", body(user("Hi"), assistant([tool_use("toolu_01A-b_C")]), user([tool_result("toolu_01A-b_C")]),
                      tools=[TOOL]), "pattern"),
    accept("20", body(*TOOL_LOOP, tools=[TOOL]), "results-in-user"),
    accept("24a", body(thinking=ENABLED, max_tokens=4096), "enabled-on-sonnet-4-6"),
    accept("24a", body(model="claude-haiku-4-5", thinking=ENABLED, max_tokens=4096), "enabled-on-haiku-4-5"),
    accept("24b", body(model=SYSTEM_MODEL, thinking={"type": "disabled"}), "disabled-on-opus-5"),
    accept("24b", body(model="claude-opus-4-8", thinking={"type": "disabled"}), "disabled-on-opus-4-8"),
    accept("24c", body(model=SYSTEM_MODEL, thinking={"type": "between_tools"}), "between-tools"),
    accept("24c", body(model=ALWAYS_THINKING_MODEL, thinking=ADAPTIVE), "adaptive-always-on"),
    accept("24d", body(thinking=ENABLED, max_tokens=4096, temperature=1), "temperature-1"),
    accept("24d", body(thinking={"type": "disabled"}, temperature=0), "thinking-off"),
    accept("24e", body(thinking={"type": "disabled"}, top_k=5), "thinking-off"),
    accept("24", body(tools=[TOOL], tool_choice={"type": "any"}, thinking=ADAPTIVE), "adaptive-forced"),
    accept("24", body(tools=[TOOL], tool_choice={"type": "auto"}, thinking=ENABLED, max_tokens=4096), "enabled-auto"),
    accept("25", body(thinking={"type": "enabled", "budget_tokens": 1024}, max_tokens=1025), "1024"),
    accept("25b", {"model": MODEL, "messages": [user("Hi")], "thinking": ENABLED}, "count-tokens",
           endpoint="count_tokens"),
    accept("27", body(user("Hi"), assistant([T1, text("Sure.")]), user("Thanks")), "thinking-first"),
    accept("28", body(user("Hi"), assistant([T1, R1, text("Sure.")]), user("Thanks")), "genuine"),
    accept("29", thinking_loop(ISSUED_THINKING, thinking=ENABLED, max_tokens=4096), "unchanged"),
    accept("29", body(user("Weather?"), assistant([T1, text("Let me check."), tool_use("toolu_T")]),
                      user([tool_result("toolu_T")]), assistant("Sunny."), user("Thanks"), thinking=ENABLED,
                      max_tokens=4096), "earlier-turn-partly-dropped"),
    accept("29", body(user("Weather?"), assistant([T1, text("Let me check."), tool_use("toolu_T")]),
                      user([tool_result("toolu_T")]), thinking=ENABLED, max_tokens=4096) | {"messages": [
                          user("Weather?"), assistant([R1, T1, text("Sure.")]), user("Thanks")]},
           "completed-latest-turn-reordered"),
    accept("26", thinking_loop(ISSUED_THINKING, thinking=ADAPTIVE), "adaptive-kept"),
    accept("26", body(user("Weather?"), assistant(ISSUED_PLAIN), user([tool_result("toolu_P")]), thinking=ADAPTIVE),
           "adaptive-issued-without-thinking"),
    accept("26", body(user("Weather?"), assistant([text("Let me check."), tool_use("toolu_T")]),
                      user([tool_result("toolu_T")]), assistant("Sunny."), user("Thanks"), thinking=ENABLED,
                      max_tokens=4096), "earlier-turn-dropped"),
    accept("26", body(*PAUSED[:1], assistant(ISSUED_PAUSE), thinking=ADAPTIVE), "pause-turn-with-thinking"),
    accept("30", body(user("Hi"), assistant(ISSUED_PREFILL), model=PREFILL_MODEL, thinking=ENABLED, max_tokens=4096),
           "thinking-on"),
    accept("30", body(*PAUSED[:1], assistant(ISSUED_PAUSE_5), model=SYSTEM_MODEL, thinking={"type": "between_tools"}),
           "between-tools"),
    accept("30", body(user("Hi"), assistant([T1, text("Sure.")]), user("Thanks")), "not-final"),
    accept("31", body(LONG), "at-window", options={"context_window": 107}),
    accept("31b", body(LONG, model=OLD_MODEL, max_tokens=893), "fits",
           options={"context_window": 1000, **BEFORE_OPUS_4_RETIRED}),
    accept("31b", body(LONG, max_tokens=64_000), "stop-model", options={"context_window": 1000}),
]


# --------------------------------------------------------------------------- table-driven tests


def assert_error(error: ApiError | None, case: Case) -> None:
    assert error is not None, f"rule {case.rule} did not fire"
    assert (error.rule, error.status, error.error_type, error.message) == (
        case.rule, case.status, case.error_type, case.message)
    assert error.headers == {"x-should-retry": "false"}


@pytest.mark.parametrize("case", REJECTED)
def test_rejected(case: Case) -> None:
    assert_error(validate(ctx(case.payload, endpoint=case.endpoint, headers=case.headers, **case.options)), case)


@pytest.mark.parametrize("case", ACCEPTED)
def test_accepted(case: Case) -> None:
    error = validate(ctx(case.payload, endpoint=case.endpoint, headers=case.headers, **case.options))
    assert error is None, f"{error.rule}: {error.message}"


def test_token_count_used_by_the_size_cases() -> None:
    assert count_input_tokens(body(LONG)) == 107


# --------------------------------------------------------------------------- http rules


HTTP_REJECTED = [
    ("1", "/v1/complete", "POST", AUTH, b"{}", 404, "not_found_error", NOT_FOUND),
    ("1", "/v1/messages", "GET", AUTH, b"", 404, "not_found_error", NOT_FOUND),
    ("1", "/v1/messages/batches", "POST", AUTH, b"{}", 404, "not_found_error", NOT_FOUND),
    ("1", "/v1/models", "POST", AUTH, b"{}", 404, "not_found_error", NOT_FOUND),
    ("1", "/v1/models/claude-sonnet-5/extra", "GET", AUTH, b"", 404, "not_found_error", NOT_FOUND),
    ("1", "/v1/modelsx", "GET", AUTH, b"", 404, "not_found_error", NOT_FOUND),
    ("2", "/v1/models", "GET", {}, b"", 401, "authentication_error", "invalid x-api-key"),
    ("2", "/v1/messages", "POST", {}, b"{}", 401, "authentication_error", "invalid x-api-key"),
    ("2", "/v1/messages", "POST", {"Authorization": "Bearer "}, b"{}", 401, "authentication_error",
     "invalid x-api-key"),
    ("2", "/v1/messages", "POST", {"x-api-key": " "}, b"{}", 401, "authentication_error", "invalid x-api-key"),
    ("2", "/v1/messages", "POST", {"authorization": "Basic abc"}, b"{}", 401, "authentication_error",
     "invalid x-api-key"),
    ("32", "/v1/messages", "POST", AUTH, b" " * (MAX_REQUEST_BYTES + 1), 413, "request_too_large",
     "Request exceeds the maximum allowed number of bytes."),
    ("3", "/v1/messages", "POST", AUTH, b"{not json", 400, "invalid_request_error",
     "There was an issue with the format or content of your request."),
    ("3", "/v1/messages", "POST", AUTH, b"[1, 2]", 400, "invalid_request_error",
     "There was an issue with the format or content of your request."),
    ("3", "/v1/messages/count_tokens", "POST", AUTH, b'{"a": NaN}', 400, "invalid_request_error",
     "There was an issue with the format or content of your request."),
    ("3", "/v1/messages", "POST", AUTH, b"\xff\xfe{", 400, "invalid_request_error",
     "There was an issue with the format or content of your request."),
]


@pytest.mark.parametrize("rule, path, method, headers, raw, status, error_type, message", HTTP_REJECTED)
def test_http_rejected(rule: str, path: str, method: str, headers: dict[str, str], raw: bytes, status: int,
                       error_type: str, message: str) -> None:
    endpoint, parsed, error = validate_http(path, method, headers, raw)
    assert parsed is None
    assert error is not None
    assert (error.rule, error.status, error.error_type, error.message) == (rule, status, error_type, message)
    assert error.headers == {"x-should-retry": "false"}


HTTP_ACCEPTED = [
    ("1", "/v1/messages?beta=true", "post", AUTH, b'{"model": "x"}', "messages", {"model": "x"}),
    ("1", "/v1/messages/count_tokens", "POST", AUTH, b"{}", "count_tokens", {}),
    ("2", "/v1/messages", "POST", {"X-Api-Key": "sk-test"}, b"{}", "messages", {}),
    ("2", "/v1/messages", "POST", {"Authorization": "Bearer sk-test", "x-api-key": ""}, b"{}", "messages", {}),
    ("32", "/v1/messages", "POST", AUTH, b"{}" + b" " * (MAX_REQUEST_BYTES - 2), "messages", {}),
    ("3", "/v1/messages", "POST", AUTH, json.dumps(body()).encode(), "messages", body()),
    ("1", "/v1/models?limit=2", "GET", AUTH, b"", "models", {}),
    ("1", "/v1/models/claude-haiku-4-5", "get", AUTH, b"", "models", {}),
]


@pytest.mark.parametrize("rule, path, method, headers, raw, endpoint, parsed", HTTP_ACCEPTED)
def test_http_accepted(rule: str, path: str, method: str, headers: dict[str, str], raw: bytes, endpoint: str,
                       parsed: dict[str, Any]) -> None:
    assert validate_http(path, method, headers, raw) == (endpoint, parsed, None)


def test_http_unknown_path_reports_no_endpoint_and_known_path_reports_it() -> None:
    assert validate_http("/v1/nope", "POST", AUTH, b"{}")[0] is None
    assert validate_http("/v1/messages/count_tokens", "POST", {}, b"{}")[0] == "count_tokens"


# --------------------------------------------------------------------------- rule 33 and the table itself


def test_rule_33_error_shape_headers() -> None:
    """Every 4xx error carries ``x-should-retry: false``; the API layer adds the body and request-id."""
    assert RULES_BY_ID["33"].phase == "response"
    assert RULES_BY_ID["33"].check(ctx(body())) is None
    for rule in RULES:
        if rule.phase == "response":
            continue
        params = {name: "x" for _, name, _, _ in string.Formatter().parse(rule.template) if name}
        error = rule.error(**params)
        assert 400 <= error.status < 500
        assert error.headers == {"x-should-retry": "false"}
        assert error.message and error.rule == rule.id


def test_table_covers_the_reference_rules() -> None:
    numbers = {re.match(r"\d+", rule.id).group() for rule in RULES}
    required = {str(n) for n in [*range(2, 10), *range(11, 32), 33]}
    assert required <= numbers, f"missing rules: {sorted(required - numbers, key=int)}"
    assert {"1", "10", "32"} <= numbers


def test_every_rule_has_an_accepted_and_a_rejected_case() -> None:
    rejected = {p.values[0].rule for p in REJECTED} | {row[0] for row in HTTP_REJECTED} | {"33"}
    accepted = {p.values[0].rule for p in ACCEPTED} | {row[0] for row in HTTP_ACCEPTED} | {"33"}
    ids = {rule.id for rule in RULES}
    assert ids - rejected == set()
    assert ids - accepted == set()


def test_rule_table_is_well_formed() -> None:
    ids = [rule.id for rule in RULES]
    assert len(ids) == len(set(ids))
    assert [rule.id for rule in RULES if rule.phase == "http"] == ["1", "2", "32", "3"]
    assert RULES[-1].id == "33"
    for rule in RULES:
        assert re.fullmatch(r"\d+[a-z]?", rule.id)
        assert rule.source and rule.doc and "\n" not in rule.doc
        assert rule.endpoints <= {"messages", "count_tokens"} and rule.endpoints
        assert rule.phase in ("http", "body", "response")
        assert re.search(rf"(?<![\w.]){re.escape(rule.id)}(?![\w.])", _rules.__doc__ or ""), rule.id


def test_validation_order_follows_the_reference_groups() -> None:
    order = [rule.id for rule in RULES]
    groups = [["1", "2", "32", "3"], ["4", "4b", "4e", "5", "6"], ["4c", "4f", "21", "21b", "22", "23"],
              ["4d", "4g", "7", "9b", "9", "8", "9c", "10", "11", "12", "13", "14", "17", "15", "16", "16b", "18", "19",
               "20"],
              ["24a", "24", "25", "25b", "27", "28", "29", "26", "30"], ["31", "31b"]]
    positions = [[order.index(rule_id) for rule_id in group] for group in groups]
    for earlier, later in zip(positions, positions[1:]):
        assert max(earlier) < min(later)
    for group in positions:
        assert group == sorted(group)


def test_first_error_wins_when_several_rules_apply() -> None:
    # unknown model (5) before a broken message array (7); 17 before 15 before 16
    assert validate(ctx(body(model="nope", messages=[]))).rule == "5"
    payload = body(user("Hi"), assistant([tool_use("toolu_A"), tool_use("toolu_B")]),
                   user([text("here"), tool_result("toolu_A"), tool_result("toolu_Z")]), tools=[TOOL])
    assert validate(ctx(payload)).rule == "17"
    payload["messages"][2]["content"] = [tool_result("toolu_A"), tool_result("toolu_Z")]
    assert validate(ctx(payload)).rule == "15"


# --------------------------------------------------------------------------- the real SDK's re-sent turns


def test_sdk_resent_assistant_turn_with_explicit_nulls_is_accepted() -> None:
    """Capture what anthropic 2.10.0 actually sends when a response is passed back."""
    anthropic = pytest.importorskip("anthropic")
    httpx2 = pytest.importorskip("httpx2")
    response = {
        "id": "msg_01", "type": "message", "role": "assistant", "model": MODEL,
        "content": [
            {"type": "thinking", "thinking": T1["thinking"], "signature": T1["signature"]},
            {"type": "text", "text": "Let me check.", "citations": None},
            {"type": "tool_use", "id": "toolu_T", "name": "get_weather", "input": {"city": "Austin"},
             "caller": {"type": "direct"}},
        ],
        "stop_reason": "tool_use", "stop_sequence": None,
        "usage": {"input_tokens": 10, "output_tokens": 5, "cache_creation_input_tokens": None},
    }
    sent: list[httpx2.Request] = []

    def handler(request: httpx2.Request) -> httpx2.Response:
        sent.append(request)
        return httpx2.Response(200, json=response, headers={"request-id": "req_01"})

    client = anthropic.Anthropic(api_key="sk-test", http_client=httpx2.Client(transport=httpx2.MockTransport(handler)),
                                 max_retries=0)
    first = client.messages.create(model=MODEL, max_tokens=4096, tools=[TOOL], thinking=ADAPTIVE,
                                   messages=[user("Weather in Austin?")])
    messages = [user("Weather in Austin?"), first.to_param(),
                {"role": "user", "content": [tool_result("toolu_T")]}]
    client.messages.create(model=MODEL, max_tokens=4096, tools=[TOOL], thinking=ADAPTIVE, messages=messages)

    ledger = ThinkingLedger()
    ledger.record(response["content"])
    request = sent[-1]
    endpoint, parsed, error = validate_http(request.url.path, request.method, dict(request.headers), request.content)
    assert (endpoint, error) == ("messages", None)
    resent = parsed["messages"][1]["content"]
    assert resent[1]["citations"] is None and resent[2]["caller"] == {"type": "direct"}  # explicit nulls, extras
    assert validate(ctx(parsed, ledger=ledger)) is None
    # and as a plain dict, exactly the shape the brief describes
    assert validate(ctx(body(user("Hi"), SDK_RESENT, user([tool_result("toolu_01A")]), tools=[TOOL]))) is None


# --------------------------------------------------------------------------- property tests: never raises

JSON_LEAVES = (st.none() | st.booleans() | st.integers(-(2**40), 2**40)
               | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=8))
JSON_VALUES = st.recursive(JSON_LEAVES, lambda children: st.lists(children, max_size=4)
                           | st.dictionaries(st.text(max_size=6), children, max_size=4), max_leaves=20)
KEYS = st.sampled_from(["model", "max_tokens", "messages", "system", "tools", "tool_choice", "thinking",
                        "stop_sequences", "temperature", "stream"])
RANDOM_BODIES = st.dictionaries(KEYS | st.text(max_size=6), JSON_VALUES, max_size=8)

IDS = st.sampled_from(["toolu_A", "toolu_B", "toolu_T", "toolu_P", "srvtoolu_01P", "bad id", ""])
GOOD_THINKING = st.sampled_from([T1, T2, R1, T_PAUSE, T_PREFILL, {**T1, "thinking": "edited"},
                                 {"type": "thinking", "thinking": "x", "signature": "forged"},
                                 {"type": "redacted_thinking", "data": "bogus"}])
BLOCKS = st.one_of(
    st.builds(text, st.sampled_from(["", " ", "Hi", "Hi ", "answer"])),
    st.builds(lambda t: text(t, cache_control={"type": "ephemeral"}), st.sampled_from(["", "Hi"])),
    st.builds(tool_use, IDS),
    st.builds(tool_result, IDS, st.sampled_from(["ok", [], [text("x")], None, [{"type": "text", "text": 5}],
                                                 [{"type": "weird"}], [text("")], ["x"], [{"type": 3}],
                                                 [text("x", foo=1)]])),
    st.builds(server_tool_use, IDS),
    st.builds(lambda i: {"type": "web_search_tool_result", "tool_use_id": i, "content": []}, IDS),
    GOOD_THINKING,
    JSON_VALUES,
)
MESSAGES = st.lists(
    st.one_of(
        st.fixed_dictionaries({
            "role": st.sampled_from(["user", "assistant", "system", "tool", None, 3]),
            "content": st.one_of(st.sampled_from(["", "  ", "Hi", "Hi "]), st.lists(BLOCKS, max_size=4), JSON_LEAVES),
        }),
        JSON_VALUES,
    ),
    max_size=6,
)
TARGETED_BODIES = st.fixed_dictionaries(
    {
        "model": st.sampled_from([*MODELS, "nope"]),
        "max_tokens": st.sampled_from([0, 1, 1024, 4096, 64_001, -1, "10"]),
        "messages": MESSAGES,
    },
    optional={
        "tools": st.sampled_from([[TOOL], [TOOL, TOOL], [], [{"type": "web_search_20250305", "name": "web_search"}],
                                  ["x"]]),
        "tool_choice": st.sampled_from([{"type": "auto"}, {"type": "any"}, {"type": "tool", "name": "get_weather"},
                                        {"type": "tool", "name": "zzz"}, {"type": "weird"}, {}]),
        "thinking": st.sampled_from([ENABLED, ADAPTIVE, {"type": "disabled"}, {"type": "between_tools"},
                                     {"type": "enabled", "budget_tokens": 10}, {"type": "enabled"}, {"type": 5}]),
        "system": st.sampled_from(["Be brief.", [text("Be brief.")], [{"type": "text"}], 3]),
    },
)
OPTIONS = st.builds(ValidationOptions, first_message_user=st.booleans(), strict_alternation=st.booleans(),
                    context_window=st.sampled_from([None, 10, 200]))


def assert_well_formed(error: ApiError | None, statuses: tuple[int, ...] = (400, 404, 413)) -> None:
    if error is None:
        return
    assert isinstance(error, ApiError)
    assert error.status in statuses
    assert isinstance(error.message, str) and error.message
    assert error.error_type and error.rule in RULES_BY_ID
    assert error.headers == {"x-should-retry": "false"}


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(payload=RANDOM_BODIES, endpoint=st.sampled_from(["messages", "count_tokens"]), options=OPTIONS)
def test_validate_never_raises_on_random_json(payload: dict[str, Any], endpoint: str,
                                              options: ValidationOptions) -> None:
    context = RequestContext(endpoint=endpoint, body=payload, headers={}, options=options, ledger=issued_ledger())
    assert_well_formed(validate(context))


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(payload=TARGETED_BODIES, endpoint=st.sampled_from(["messages", "count_tokens"]), options=OPTIONS)
def test_validate_never_raises_on_random_message_arrays(payload: dict[str, Any], endpoint: str,
                                                        options: ValidationOptions) -> None:
    context = RequestContext(endpoint=endpoint, body=payload, headers={}, options=options, ledger=issued_ledger())
    assert_well_formed(validate(context))


@settings(max_examples=200, deadline=None)
@given(raw=st.binary(max_size=64) | JSON_VALUES.map(lambda v: json.dumps(v).encode()),
       path=st.sampled_from(["/v1/messages", "/v1/messages/count_tokens", "/v1/x", "/v1/messages?beta=true", ""]),
       method=st.sampled_from(["POST", "GET", "post"]),
       headers=st.dictionaries(st.sampled_from(["authorization", "x-api-key", "Authorization", "other"]),
                               st.text(max_size=10), max_size=3))
def test_validate_http_never_raises(raw: bytes, path: str, method: str, headers: dict[str, str]) -> None:
    endpoint, parsed, error = validate_http(path, method, headers, raw)
    assert endpoint in (None, "messages", "count_tokens", "models")
    assert (parsed is None) != (error is None)
    assert_well_formed(error, statuses=(400, 401, 404, 413))
    if error is None:
        assert isinstance(parsed, dict)


def test_a_message_after_a_paused_server_tool_call_is_rejected():
    from agentlab.fake._context import RequestContext, ValidationOptions
    from agentlab.fake._rules import validate
    from agentlab.fake._thinking import ThinkingLedger

    paused = {"role": "assistant", "content": [
        {"type": "text", "text": "Searching."},
        {"type": "server_tool_use", "id": "srvtoolu_01X", "name": "web_search", "input": {"query": "q"}}]}
    tools = [{"type": "web_search_20250305", "name": "web_search"}]

    def check(messages):
        return validate(RequestContext(endpoint="messages", body={
            "model": "claude-sonnet-5", "max_tokens": 100, "tools": tools, "messages": messages},
            headers={}, options=ValidationOptions(), ledger=ThinkingLedger()))

    assert check([{"role": "user", "content": "Hi"}, paused]) is None  # the pause_turn continuation
    error = check([{"role": "user", "content": "Hi"}, paused, {"role": "user", "content": "continue"}])
    assert error.rule == "15" and error.message == (
        "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: srvtoolu_01X. "
        "Each `tool_use` block must have a corresponding `tool_result` block in the next message.")
    fabricated = check([{"role": "user", "content": "Hi"}, paused, {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "srvtoolu_01X", "content": "made up"}]}])
    assert fabricated.rule == "16"


def test_thinking_replayed_to_another_model_is_rejected_in_the_open_turn():
    import anthropic
    import pytest as _pytest

    import agentlab
    from agentlab.fake import Scenario, text, thinking, tool_use

    tool = {"name": "get_weather", "description": "d", "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}}}
    sc = Scenario(name="replay", tools=(tool,), replies=(thinking("Check Austin.", tool_use("get_weather", {"city": "Austin"})), text("Hot.")))
    client = agentlab.fake_client(sc)
    params = {"max_tokens": 4096, "tools": [tool], "thinking": {"type": "enabled", "budget_tokens": 2048}}
    first = client.messages.create(model="claude-sonnet-4-6", messages=[{"role": "user", "content": "Hi"}], **params)
    history = [{"role": "user", "content": "Hi"}, {"role": "assistant", "content": first.content},
               {"role": "user", "content": [{"type": "tool_result", "tool_use_id": first.content[1].id, "content": "95F"}]}]
    with _pytest.raises(anthropic.BadRequestError) as info:
        client.messages.create(model="claude-haiku-4-5-20251001", messages=history, **params)
    assert info.value.body["error"]["message"] == "messages.1.content.0: Invalid `signature` in `thinking` block"
    assert client.messages.create(model="claude-sonnet-4-6", messages=history, **params).stop_reason == "end_turn"


def _sdk_tool_params() -> list[Any]:
    """Every tool TypedDict the installed SDK defines (plain and beta): the members of the ``tools``
    union of its request types, and every class whose name says it is a tool param."""
    import anthropic.types as plain
    import anthropic.types.beta as beta
    import typing_extensions

    from agentlab.fake._shapes import _tool_classes

    found = list(_tool_classes())
    for module in (plain, beta):
        for name in dir(module):
            cls = getattr(module, name)
            if (re.search(r"(ToolParam|ToolsetParam|Tool\d+(_\d+)?Param|Toolset\d+Param)$", name)
                    and "Choice" not in name and typing_extensions.is_typeddict(cls) and cls not in found
                    and "type" in typing_extensions.get_type_hints(cls)):
                found.append(cls)
    return found


def _required_only(cls: Any) -> dict[str, Any]:
    """A tool of this TypedDict with only its Required keys, filled with plausible values."""
    import typing_extensions

    from agentlab.fake._shapes import _class_fields, _is_wrapped, _tag_of

    values = {"name": "t1", "input_schema": {"type": "object"}, "mcp_server_name": "a",
              "display_width_px": 1024, "display_height_px": 768, "model": MODEL}
    tool: dict[str, Any] = {}
    for key, annotation in _class_fields(cls).items():
        if _is_wrapped(annotation, "Required"):
            tool[key] = _tag_of(cls)[0] if key == "type" else values[key]
    assert typing_extensions.is_typeddict(cls)
    return tool


SDK_TOOL_PARAMS = _sdk_tool_params()


def test_the_sdk_tool_params_enumerated_include_the_nameless_toolsets() -> None:
    names = {cls.__name__ for cls in SDK_TOOL_PARAMS}
    assert {"BetaMCPToolsetParam", "BrowserToolset20260801Param", "ComputerToolset20260801Param",
            "BetaComputerToolset20260801Param", "ToolParam", "BetaToolParam", "ToolBash20250124Param",
            "WebSearchTool20250305Param", "BetaToolComputerUse20250124Param"} <= names
    assert len(SDK_TOOL_PARAMS) >= 40


@pytest.mark.parametrize("cls", SDK_TOOL_PARAMS, ids=lambda cls: f"{cls.__module__.split('.')[-2]}.{cls.__name__}")
def test_every_sdk_tool_type_with_its_required_keys_only_is_accepted(cls: Any) -> None:
    tool = _required_only(cls)
    error = validate(ctx(body(tools=[tool], mcp_servers=[MCP_SERVER])))
    assert error is None, (tool, error and error.message)
    for key in set(tool) - {"type"}:  # and each required key is required
        error = validate(ctx(body(tools=[{k: v for k, v in tool.items() if k != key}], mcp_servers=[MCP_SERVER])))
        assert error is not None and error.message.endswith(f".{key}: Field required"), (cls, key)
