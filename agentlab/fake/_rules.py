"""The fake's request validation: the reference's rule list as a table.

Every rule of ``shared/reference/messages-api.md`` section 7 that rejects a request is one
:class:`Rule` in :data:`RULES`: an id (the section-7 number, with a letter suffix for sub-cases),
the HTTP status, ``error.type``, a message template, the evidence it comes from, and a small
``check`` function that returns the template parameters of the first violation, or None.
:func:`validate_http` runs the transport rules on the raw request, :func:`validate` runs the
body rules on a parsed :class:`~agentlab.fake._context.RequestContext`; both stop at the first
violation, in table order.

Order (reference section 7: "transport/auth, top-level parameters, tools, messages, thinking,
size"; ``=`` marks an [OBS] text used verbatim, ``~`` an approximation)::

    http        1 ~ unknown path or method      404 not_found_error  "Not Found"
                    (known: POST /v1/messages, POST /v1/messages/count_tokens,
                    GET /v1/models, GET /v1/models/{model_id}: the Models API, ``_models_api``)
                2 = missing/empty API key       401 authentication_error
               32 ~ body above 32 MiB           413 request_too_large
                3 ~ body not a JSON object      400
    top-level  4i = unknown ``anthropic-beta`` value(s): "Unexpected value(s) `a`, `b` for the `anthropic-beta`
                    header. Please consult our documentation at docs.claude.com or try again without the header."
                4 ~ "<field>: Field required"  (create: model, max_tokens, messages;
                    count_tokens: model, messages; missing keys only)
               4b ~ wrong types of top-level parameters, pydantic style "<path>: Input should be ..."
               4j ~ malformed ``output_config.format`` (not an object, ``type`` other than ``json_schema``,
                    ``schema`` missing or not an object), pydantic style
               4k = a structured-output schema beyond the API's limits ("output_config.format.schema: For
                    'object' type, 'additionalProperties' must be explicitly set to false", numeric bounds,
                    minItems other than 0 or 1)
               4e = "<path>: Extra inputs are not permitted": an unknown field at the top level or inside
                    a parameter other than tools/messages (system, thinking, tool_choice, metadata...)
                5 = unknown model               404 not_found_error  "model: <name>"
               5b = model past its end-of-life date (``ValidationOptions.today``), same 404
                6 = max_tokens above the model's cap
               6b = temperature other than 1 on a model whose sampling parameters are removed
               6c = top_p on such a model (any value)
               6d ~ top_k on such a model (any value)
               6e = temperature and top_p together on a model that takes only one
    tools      4c ~ malformed tool definitions (pydantic style)
               4h = a custom tool's ``input_schema.type`` missing ("tools.N.custom.input_schema.type: Field
                    required") or not "object" (pydantic's literal text, ~)
               4f = an unknown field in a tool definition ("tools.N.custom.<field>", "tools.N.<type>.<field>")
               21 = custom tool name pattern ``^[a-zA-Z0-9_-]{1,128}$``
              21b ~ duplicate tool names
              21c = ``oneOf``/``allOf``/``anyOf`` at the top level of a custom tool's ``input_schema``
              21d = a custom tool's ``input_schema`` that is not valid JSON Schema draft 2020-12 (jsonschema's
                    ``Draft202012Validator.check_schema``; verdict cached per schema)
              21e = a ``strict: true`` custom tool's ``input_schema`` beyond the structured-output limits (4k's
                    checks), path ``tools.N.custom`` ("tools.0.custom: For 'object' type, 'additionalProperties'
                    must be explicitly set to false")
               22 = tool_choice without tools   [OBS/3P in the reference]
               23 ~ tool_choice names an undefined tool
    messages   4d ~ malformed messages/blocks (pydantic style), blocks inside tool_result content too
               4g = an unknown field on a message or in a block ("messages.N.name",
                    "messages.N.content.M.<type>.<field>", "...tool_result.content.K.<type>.<field>")
                7 ~ empty messages
               9b ~ role not user/assistant/system  "messages.N.role: Input should be ..."
                9 = role "system" on a model without mid-conversation system messages
                8 = first message not user      (only if options.first_message_user)
               9c ~ "system" message first or not after a user message
               10 = consecutive same roles      (only if options.strict_alternation)
               11 = empty content except an optional final assistant message
              12c = cache_control on an empty text block
              12d = more than 4 blocks with cache_control: "A maximum of 4 blocks with cache_control may be
                    provided. Found 5."
              12e = a ttl "1h" breakpoint after a 5-minute one (tools, system, messages order)
               12 = empty text block
              12b = whitespace-only text block (or whitespace-only string content)
               13 = prefill on a model without prefill
               14 = prefill ending in whitespace
               17 = text before the last tool_result of the answering message (old [OBS] wording)
               15 = tool_use ids not answered in the next message
               16 = tool_result for an id not in the previous message
              16b = two tool_result blocks of one message for the same tool_use_id (not in the reference;
                    [OBS] text from public issues and code)
               18 = duplicate tool_use ids
               19 = tool_use id pattern
               20 ~ tool_result inside an assistant message
    thinking  24a = thinking.type "enabled" on a model without manual thinking (reference 3.3)
              24b = thinking.type "disabled" on a model whose thinking is always on
              24c ~ any other thinking.type the model does not accept
               24 = forced tool_choice with thinking type "enabled"
              24d = temperature other than 1 with thinking on (reference 3.3 [3P]; [OBS] text)
              24e = top_k with thinking on
               25 = budget_tokens < 1024
              25b = budget_tokens >= max_tokens
               27 = thinking present but not first in an assistant message
               28 = invalid signature
               29 = thinking of the latest assistant message modified/reordered/dropped
               26 = open tool loop's assistant message does not start with thinking
               30 = thinking off and the final assistant message has thinking
    size       31 = prompt above the context window
              31b = input + max_tokens above the window (models with context_window_stop False;
                    historical [OBS]-style API text, not in the reference)
    response   33   error shape: not a check; every 4xx error carries ``x-should-retry: false``

Decisions where the reference is silent or ambiguous:

- The pydantic-style shape checks (4b, 4c, 4d) and the extra-field checks (4e, 4f, 4g) run at the
  head of their group, so the semantic checks after them see well-formed data. The fields each
  object accepts come from the installed SDK's request types and response models (``_shapes``,
  whose docstring lists the approximations: beta fields accepted without their header, only the
  first extra field reported), so anything the SDK re-sends from a response (``"citations":
  null``, ``"caller": {...}``, ``"toolset_name": null``; reference 0.3) is accepted, and explicit
  nulls are accepted on optional fields. Unknown block types at the top level of a message are
  accepted; inside ``tool_result`` content they get pydantic's union-tag text ([OBS], 4d).
- Rules 9b and 9 run before rule 8: a ``system`` message sent first (the OpenAI habit) gets the
  reference's rule-9 text, the one observed in that situation, not the first-message text, and a
  role value the schema does not accept is reported before the order of roles is judged. On a
  model with mid-conversation system messages a first ``system`` message still gets rule 8
  (reference 3.2 rule 7: a system message may never be first).
- Rule 16b looks within one message (the case the observed reports describe); a second result for
  the same id in a later message is not an answer to its previous message and gets rule 16.
- Rule 11 also covers a final *user* message with ``""`` or ``[]`` content: the [OBS] text itself
  says the optional final assistant message is the only exemption.
- Rules 12 and 12b look at the top-level blocks of each message and at the text blocks inside
  ``tool_result`` content (issue 10: nested blocks are validated like top-level ones; the fake's
  choice: one third-party report says the API accepts ``text: ""`` there), not at the top-level
  ``system``; 12c only at top-level blocks. A whitespace-only string content counts as a text block (12b);
  ``""`` as string content is empty content (rule 11).
- Tool pairing runs on the array as sent (reference 3.2 rule 6). When several pairing rules
  apply, 17 is checked over the whole array first, then 15, then 16 (so a user message that has
  the results but text first gets the rule-17 text). ``server_tool_use`` blocks are never paired.
- A trailing assistant message whose last block is ``server_tool_use`` (or a server tool result
  block, ``*_tool_result`` other than ``tool_result``) is a ``pause_turn`` continuation: rules 13,
  14 and 15 do not fire for it.
- Thinking is "on" for types ``enabled`` and ``adaptive``. Rule 30 fires only when thinking is
  absent or ``disabled``: ``between_tools`` returns progress notes as thinking blocks, so a final
  assistant message may carry them.
- "The latest assistant message" of rules 28/29 is read as the assistant message of the turn in
  progress (the same message rule 26 inspects: the final message, or the one answered by a final
  ``tool_result`` user message). Thinking in earlier, completed turns may be dropped, wholly or
  partly, or reordered (reference 3.3); an edited text there still fails its signature (28).
- Rule 28 also covers ``redacted_thinking`` blocks whose ``data`` the fake never issued (same text).
- Rule 29 reports the first block that differs from the issued sequence; when blocks were
  dropped from the end, it points at the block after the last thinking block kept.
- Rule 26 skips an assistant message with empty content (nothing to start with).
- Rule 21 uses the 128-character pattern for every model: the API's current text ([OBS]
  ``tools.16.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,128}$'``,
  modelcontextprotocol/modelcontextprotocol#1345, jedisct1/openapi-mcp#9; reference 3.4); the
  older ``{1,64}`` text seen in 2025 reports is not modelled (no per-model flag).
- Rules 12d and 12e count the ``cache_control`` of tool definitions, ``system`` blocks and the
  top-level blocks of messages (``cache_control: null`` is absent). Not counted, the real behaviour
  being unknown: blocks inside ``tool_result`` content and the top-level ``cache_control`` parameter
  (automatic caching; the docs do not say here whether it takes one of the four slots). A breakpoint
  without ``ttl`` is 5 minutes (12e; [3P] headroom#2941). 12e's paths for tools (``tools.N``) and
  system (``system.N``) are by analogy with the observed ``messages.N.content.M``. 12d runs before
  12e; both after 12c (the fake's choice).
- Rule 4c takes each tool type's required fields from the SDK's TypedDicts
  (``_shapes.tool_required_fields``): ``mcp_toolset`` needs ``mcp_server_name`` and no ``name``,
  ``browser_toolset_20260801``/``computer_toolset_20260801`` nothing but ``type``; a type the SDK
  does not define must still have a ``name`` (the fake's choice). Rule 21b compares named tools only.
- Per-model rules (5b, 6b-6e, 24a-24c) read the catalogue (``_models``: each spec's ``sources``).
  Rule 6 names the canonical id (the dated id when an alias was sent): the fake's choice. The
  sampling rules (6b-6e, 24d, 24e) apply to ``messages`` only: ``count_tokens`` takes no sampling
  parameters. An explicit ``null`` counts as absent. Thinking is "on" for 24d/24e as for rule 30
  (``enabled`` or ``adaptive``); the real ``top_p`` range with thinking (0.95-1) is not modelled.
  Opus 5 rejecting ``disabled`` at effort ``xhigh``/``max`` (thinking docs) is not modelled.
- Rule 4i (the reference's section 0 ignored the header; issue 10 asks for the API's strictness):
  the SDK's ``AnthropicBetaParam`` literal is not a complete list of the betas the API takes (the
  SDK's own tool-search example sends ``tool-search-tool-2025-10-19``, absent from it), so a value
  is unknown only when it is not in that literal and either is not shaped ``<name>-YYYY-MM-DD``
  (a real date; an empty value included, [OBS] anthropix#15) or is dated after
  ``ValidationOptions.today``. A plausible name the API does not know (an old or misspelt beta such
  as ``interleaved-thinking-2025-04-14``) is accepted: not modelled. It is a body-phase rule at the
  head of the top-level group (the Models API GETs are not checked); all unknown values are listed,
  joined by "`, `" as observed.
- Rule 4k walks the schema iteratively (properties, items, ``$defs``, combinators...), reports the
  first limit broken, with the path the observed texts give (``output_config.format.schema``, not
  the subschema's); its keyword lists are the ones the SDK's ``transform_schema`` moves into
  descriptions (numeric bounds: one keyword "property 'minimum'", several "properties maximum,
  minimum", sorted, as observed). ``messages.parse(output_format=Model)`` sends the SDK's transformed
  schema and never breaks them. The ``additionalProperties: true`` text was observed on the old
  ``output_format`` path (``output_format.schema: ...``), which 4j and 4k check as they check
  ``output_config.format`` (litellm sends it); string limits (``minLength``, ``pattern``...) and the API's other
  structured-output limits have no public text found: not modelled. Whether the API also checks an
  output schema against draft 2020-12 is unknown: not modelled.
- Rule 21e applies 4k's walk to the ``input_schema`` of custom tools sent with ``strict: true``
  (not ``"strict": "true"`` or 1), after 21d; its path is the observed ``tools.N.custom``, not the
  subschema's. 4k and 21e treat a ``type`` list with ``"object"`` (``["object", "null"]``) as an object
  (and likewise for numbers and arrays). The SDK's ``@beta_tool`` sends ``strict`` only when asked
  (``strict=True``); an object given by ``properties`` alone, without ``type``, is not checked (not modelled).
- Rules 4h, 21c and 21d look at custom tools only (server tools have no ``input_schema``). 21c runs
  before 21d; both after the name rules (the order among them is the fake's choice). 21d runs
  ``jsonschema`` without format checks (an unknown ``format`` is an annotation in 2020-12) and
  caches the verdict by the schema's canonical JSON (bounded LRU), so a loop that re-sends the same
  tools pays once; ``jsonschema`` is imported on first use, never at ``import agentlab``.
- Rule 9c's text, 4b/4c/4d's pydantic phrasing and rule 23's text are approximations; 4e/4f/4g's
  text is pydantic's [OBS], their paths follow the observed ones (``_shapes``).
"""

from __future__ import annotations

import collections
import functools
import bisect
import json
import re
import threading
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from datetime import date
from functools import cached_property
from typing import Any

from ._context import ApiError, RequestContext
from ._shapes import first_extra, request_shape, tool_required_fields

__all__ = [
    "MAX_REQUEST_BYTES",
    "RULES",
    "RULES_BY_ID",
    "HttpRequest",
    "Rule",
    "validate",
    "validate_http",
]

MAX_REQUEST_BYTES = 32 * 1024 * 1024
"""Largest accepted raw body (reference 3.1: 32 MB limit for Messages, rule 32)."""

ENDPOINTS: dict[str, str] = {
    "/v1/messages": "messages",
    "/v1/messages/count_tokens": "count_tokens",
}
"""Known paths (reference 0.3), POST only."""

MODELS_PATH = "/v1/models"
"""The Models API: ``GET /v1/models`` (list) and ``GET /v1/models/{model_id}`` (retrieve), endpoint
``"models"`` (SDK ``resources/models.py``)."""

_BOTH = frozenset({"messages", "count_tokens"})
_CREATE = frozenset({"messages"})
_REF = "reference section 7 rule"
_THINKING_TYPES = ("enabled", "disabled", "adaptive", "between_tools")
_TOOL_CHOICE_TYPES = ("auto", "any", "tool", "none")
_THINKING_BLOCKS = ("thinking", "redacted_thinking")
_TOOL_ID = re.compile(r"[a-zA-Z0-9_-]+")
_TOOL_NAME = re.compile(r"[a-zA-Z0-9_-]{1,128}")

Params = dict[str, Any]


# --------------------------------------------------------------------------- the Rule type


@dataclass(frozen=True)
class Rule:
    """One validation rule: condition, status, error type and message, as data."""

    id: str
    """Reference section-7 number, with a letter for sub-cases (``"12b"``)."""
    status: int
    """HTTP status of the error response."""
    error_type: str
    """``error.type`` of the error body."""
    template: str
    """``error.message`` with ``{name}`` placeholders filled from the check's result."""
    source: str
    """Where the rule and its text come from (reference section, issue URL)."""
    check: Callable[[Any], Params | None]
    """Returns the template parameters of the first violation, or None. Body rules take a
    :class:`RequestContext`; ``http`` rules take an :class:`HttpRequest`."""
    endpoints: frozenset[str]
    """Endpoints the rule applies to (``"messages"``, ``"count_tokens"``)."""
    doc: str
    """One line: the condition."""
    exact: bool = True
    """Whether ``template`` is an [OBS] text used verbatim (False: approximation)."""
    phase: str = "body"
    """``"http"`` (raw request), ``"body"`` (parsed body) or ``"response"`` (error shape only)."""

    def error(self, **params: Any) -> ApiError:
        """The error this rule answers with; 4xx errors carry ``x-should-retry: false`` (rule 33)."""
        headers = {"x-should-retry": "false"} if 400 <= self.status < 500 else {}
        return ApiError(
            status=self.status,
            error_type=self.error_type,
            message=self.template.format(**params),
            rule=self.id,
            headers=headers,
        )


# --------------------------------------------------------------------------- shared helpers


def _path(*parts: object) -> str:
    """A pydantic-style location: ``messages.0.content.1.tool_use.id``."""
    return ".".join(str(p) for p in parts)


def _problem(path: str, problem: str) -> Params:
    return {"path": path, "problem": problem}


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _messages(ctx: RequestContext) -> list[Any]:
    messages = ctx.body.get("messages")
    return messages if isinstance(messages, list) else []


class _Index:
    """Every message and block of a request, walked once and shared by all rules (speed: the
    rules run on every request, and a loop's history grows by two messages a step)."""

    __slots__ = ("messages", "roles", "by_type", "text_blocks", "all_text", "start")

    def __init__(self, messages: list[Any], prior: "_Index | None" = None, trusted: int = 0) -> None:
        """Walk ``messages``; with ``prior`` (the index of the run's last valid request) the first
        ``trusted`` messages are taken from it instead (``_context.PrefixMemo``: they are the same
        JSON at the same indices, so their entries are interchangeable)."""
        self.messages = messages
        self.text_blocks: list[tuple[int, int, dict[str, Any]]] | None = None
        self.all_text: list[str] | None = None
        start = trusted if prior is not None and trusted <= len(prior.roles) else 0
        self.start = start
        """Messages taken from ``prior`` (trusted: already validated)."""
        if start:
            self.roles: list[Any] = prior.roles[:start]
            self.by_type: dict[Any, list[tuple[int, int, dict[str, Any]]]] = {}
            for kind, entries in prior.by_type.items():
                # entries are in request order: keep those of the trusted messages
                cut = bisect.bisect_left(entries, start, key=lambda e: e[0])
                if cut:
                    self.by_type[kind] = entries[:cut]
        else:
            self.roles, self.by_type = [], {}
        by_type = self.by_type
        for i in range(start, len(messages)):
            message = messages[i]
            self.roles.append(message.get("role") if isinstance(message, dict) else None)
            for j, block in enumerate(_blocks(message)):
                if isinstance(block, dict):
                    by_type.setdefault(block.get("type"), []).append((i, j, block))

    def of_type(self, *kinds: str) -> list[tuple[int, int, dict[str, Any]]]:
        """``(message index, block index, block)`` of the given block types, in request order."""
        if len(kinds) == 1:
            return self.by_type.get(kinds[0], [])
        return sorted((entry for kind in kinds for entry in self.by_type.get(kind, [])), key=lambda e: (e[0], e[1]))


def _index(ctx: RequestContext) -> _Index:
    index = ctx.__dict__.get("_rules_index")
    if index is None:
        prior = ctx.prior_index if isinstance(ctx.prior_index, _Index) else None
        index = ctx.__dict__["_rules_index"] = _Index(_messages(ctx), prior, ctx.trusted)
    return index


def built_index(ctx: RequestContext) -> Any:
    """The message index the rules built for ``ctx`` (None if none was needed), for the run's
    ``PrefixMemo`` to hand to the next request as ``RequestContext.prior_index``."""
    return ctx.__dict__.get("_rules_index")


def _iter_messages(ctx: RequestContext) -> Iterator[tuple[int, dict[str, Any]]]:
    """``(index, message)`` for every message that is an object, indices as sent."""
    for i, message in enumerate(_messages(ctx)):
        if isinstance(message, dict):
            yield i, message


def _role(message: Any) -> Any:
    return message.get("role") if isinstance(message, dict) else None


def _blocks(message: Any) -> list[Any]:
    """A message's content as a block list; a non-empty string is one text block."""
    content = message.get("content") if isinstance(message, dict) else None
    if isinstance(content, str):
        return [{"type": "text", "text": content}] if content else []
    return content if isinstance(content, list) else []


def _iter_blocks(message: Any) -> Iterator[tuple[int, dict[str, Any]]]:
    """``(index, block)`` for every block of a message that is an object."""
    for j, block in enumerate(_blocks(message)):
        if isinstance(block, dict):
            yield j, block


def _btype(block: Any) -> Any:
    return block.get("type") if isinstance(block, dict) else None


def _tool_use_ids(message: Any) -> list[str]:
    """Client ``tool_use`` ids of a message, in block order (server tool calls excluded)."""
    return [str(b.get("id")) for _, b in _iter_blocks(message) if b.get("type") == "tool_use"]


def _tool_result_ids(message: Any) -> list[str]:
    return [str(b.get("tool_use_id")) for _, b in _iter_blocks(message) if b.get("type") == "tool_result"]


def _last_index(messages: list[Any], role: str) -> int | None:
    for i in range(len(messages) - 1, -1, -1):
        if _role(messages[i]) == role:
            return i
    return None


def _is_server_block(block: Any) -> bool:
    kind = _btype(block)
    return isinstance(kind, str) and (
        kind == "server_tool_use" or (kind.endswith("_tool_result") and kind != "tool_result")
    )


def _is_pause_continuation(message: Any) -> bool:
    """A trailing assistant turn from ``pause_turn``: it ends in a server tool block (reference 2)."""
    blocks = _blocks(message)
    return _role(message) == "assistant" and bool(blocks) and _is_server_block(blocks[-1])


def _final_assistant(ctx: RequestContext) -> tuple[int, dict[str, Any]] | None:
    """The last message, if it is an assistant message."""
    messages = _messages(ctx)
    if messages and _role(messages[-1]) == "assistant":
        return len(messages) - 1, messages[-1]
    return None


def _thinking(ctx: RequestContext) -> dict[str, Any]:
    thinking = ctx.body.get("thinking")
    return thinking if isinstance(thinking, dict) else {}


def _thinking_type(ctx: RequestContext) -> str | None:
    kind = _thinking(ctx).get("type")
    return kind if isinstance(kind, str) else None


def _thinking_on(ctx: RequestContext) -> bool:
    return _thinking_type(ctx) in ("enabled", "adaptive")


def _tools(ctx: RequestContext) -> list[dict[str, Any]]:
    tools = ctx.body.get("tools")
    return [t for t in tools if isinstance(t, dict)] if isinstance(tools, list) else []


def _is_custom_tool(tool: dict[str, Any]) -> bool:
    return tool.get("type") in (None, "custom")


def _tool_choice(ctx: RequestContext) -> dict[str, Any]:
    choice = ctx.body.get("tool_choice")
    return choice if isinstance(choice, dict) else {}


def _tags(values: tuple[str, ...]) -> str:
    return ", ".join(f"'{v}'" for v in values)


def _literal(values: tuple[str, ...]) -> str:
    """pydantic's wording for a Literal: ``'a', 'b' or 'c'``."""
    quoted = [f"'{v}'" for v in values]
    return quoted[0] if len(quoted) == 1 else ", ".join(quoted[:-1]) + " or " + quoted[-1]


# A field check: (predicate, pydantic message when the value is present but wrong).
_STR = (lambda v: isinstance(v, str), "Input should be a valid string")
_DICT = (lambda v: isinstance(v, dict), "Input should be a valid dictionary")
_LIST = (lambda v: isinstance(v, list), "Input should be a valid list")
_STR_OR_LIST = (lambda v: isinstance(v, (str, list)), "Input should be a valid list")
_BOOL = (lambda v: isinstance(v, bool), "Input should be a valid boolean")
_INT = (_is_int, "Input should be a valid integer")
_NUMBER = (_is_number, "Input should be a valid number")
_ANY = (lambda v: True, "")

_BLOCK_FIELDS: dict[str, tuple[tuple[str, tuple[Callable[[Any], bool], str], bool], ...]] = {
    # block type -> ((field, check, required), ...); optional fields may be null
    "text": (("text", _STR, True),),
    "tool_use": (("id", _STR, True), ("name", _STR, True), ("input", _DICT, True)),
    "server_tool_use": (("id", _STR, True), ("name", _STR, True), ("input", _DICT, True)),
    "tool_result": (("tool_use_id", _STR, True), ("content", _STR_OR_LIST, False), ("is_error", _BOOL, False)),
    "thinking": (("thinking", _STR, True), ("signature", _STR, True)),
    "redacted_thinking": (("data", _STR, True),),
    "image": (("source", _DICT, True),),
    "document": (("source", _DICT, True),),
}
"""Required and typed fields of the request block types the fake reads (reference 1.2)."""


def _field_problem(
    obj: dict[str, Any], name: str, spec: tuple[Callable[[Any], bool], str], required: bool, *where: object
) -> Params | None:
    """Check one field of an object; a missing required field or a wrong type is a problem."""
    if name not in obj:
        return _problem(_path(*where, name), "Field required") if required else None
    value = obj[name]
    if value is None and not required:
        return None
    predicate, message = spec
    return None if predicate(value) else _problem(_path(*where, name), message)


# --------------------------------------------------------------------------- http rules


@dataclass(frozen=True)
class HttpRequest:
    """The raw request, as the ``http`` rules see it (headers with lower-case names)."""

    path: str
    method: str
    headers: Mapping[str, str]
    raw: bytes

    @cached_property
    def endpoint(self) -> str | None:
        """``"messages"`` or ``"count_tokens"`` for a known path and POST, ``"models"`` for GET
        ``/v1/models`` or ``/v1/models/{model_id}``, else None."""
        path = self.path.split("?", 1)[0].split("#", 1)[0]
        if self.method.upper() == "GET":
            rest = path[len(MODELS_PATH):] if path.startswith(MODELS_PATH) else None
            return "models" if rest == "" or (rest and rest.count("/") == 1 and len(rest) > 1) else None
        if self.method.upper() != "POST":
            return None
        return ENDPOINTS.get(path)

    @cached_property
    def body(self) -> Any:
        """The parsed JSON body, or :data:`_INVALID`."""
        try:
            raw = self.raw
            # as json.loads does with bytes (UTF-8, -16 or -32), with one decoder made once (speed)
            text = raw.decode(json.detect_encoding(raw), "surrogatepass") if isinstance(raw, (bytes, bytearray)) else raw
            return _DECODER.decode(text)
        except (ValueError, RecursionError, TypeError):
            return _INVALID


_INVALID = object()


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _finite_float(text: str) -> float:
    """A JSON number as a float; ``1e400`` (beyond float range) is rejected like invalid JSON
    (unknown: the fake's choice; a reply echoing ``inf`` could not be written as JSON)."""
    value = float(text)
    if value in (float("inf"), float("-inf")):
        raise ValueError(f"{text[:20]} is out of range")
    return value


_DECODER = json.JSONDecoder(parse_constant=_reject_constant, parse_float=_finite_float)
"""The request-body decoder: NaN/Infinity and out-of-range floats are not JSON."""


def _check_path(req: HttpRequest) -> Params | None:
    return {} if req.endpoint is None else None


def _check_auth(req: HttpRequest) -> Params | None:
    auth = str(req.headers.get("authorization") or "").strip()
    scheme, _, token = auth.partition(" ")
    if scheme.lower() == "bearer" and token.strip():
        return None
    if str(req.headers.get("x-api-key") or "").strip():
        return None
    return {}


def _check_size(req: HttpRequest) -> Params | None:
    return {} if len(req.raw) > MAX_REQUEST_BYTES else None


def _check_json(req: HttpRequest) -> Params | None:
    if req.endpoint == "models":
        return None  # a GET: no body
    return None if isinstance(req.body, dict) else {}


# --------------------------------------------------------------------------- top-level parameters


def _check_required(ctx: RequestContext) -> Params | None:
    fields = ("max_tokens", "messages", "model") if ctx.endpoint == "messages" else ("messages", "model")
    for name in fields:
        if name not in ctx.body:
            return {"field": name}
    return None


def _check_top_level_types(ctx: RequestContext) -> Params | None:
    body = ctx.body
    checks: list[tuple[str, tuple[Callable[[Any], bool], str], bool]] = [
        ("model", _STR, True),
        ("messages", _LIST, True),
        ("system", _STR_OR_LIST, False),
        ("stop_sequences", _LIST, False),
        ("temperature", _NUMBER, False),
        ("tools", _LIST, False),
        ("tool_choice", _DICT, False),
        ("thinking", _DICT, False),
    ]
    if ctx.endpoint == "messages":
        checks[1:1] = [("max_tokens", _INT, True), ("stream", _BOOL, False)]
    for name, spec, required in checks:
        if found := _field_problem(body, name, spec, required):
            return found
    if ctx.endpoint == "messages" and body["max_tokens"] < 0:
        return _problem("max_tokens", "Input should be greater than or equal to 0")
    temperature = body.get("temperature")
    if temperature is not None and not 0 <= temperature <= 1:
        return _problem("temperature", "Input should be less than or equal to 1" if temperature > 1
                        else "Input should be greater than or equal to 0")
    return _system_problem(body.get("system")) or _stop_sequences_problem(body.get("stop_sequences")) \
        or _tool_choice_problem(body.get("tool_choice")) or _thinking_problem(body.get("thinking"))


def _extra(found: tuple[Any, ...] | None) -> Params | None:
    return {"path": _path(*found)} if found else None


def _check_extra_top_level(ctx: RequestContext) -> Params | None:
    """Extra fields at the top level and in every parameter but ``tools`` and ``messages``
    (rules 4f and 4g, after their groups' shape checks)."""
    shape = request_shape()
    allowed = shape.allowed[""]
    for key, value in ctx.body.items():
        if key not in allowed:
            return {"path": key}
        if key != "messages" and key != "tools" and isinstance(value, (dict, list)):
            if found := first_extra(value, shape.fields[key], (key,)):
                return _extra(found)
    return None


def _check_extra_in_tools(ctx: RequestContext) -> Params | None:
    return _extra(first_extra(ctx.body.get("tools"), request_shape().fields["tools"], ("tools",)))


def _check_extra_in_messages(ctx: RequestContext) -> Params | None:
    """The generic walk (``first_extra``) unrolled for messages and their blocks, the hot path:
    a loop's history grows by two messages a step and every request re-sends it."""
    messages = ctx.body.get("messages")
    if type(messages) is not list:
        return None
    message_shape = request_shape().fields["messages"].items
    message_keys, message_nested = message_shape.allowed[""], message_shape.nested_keys[""] - {"content"}
    blocks = message_shape.fields["content"].items
    block_keys, block_nested = blocks.allowed, blocks.nested_keys
    for i in range(ctx.trusted, len(messages)):  # trusted messages passed already (_context.PrefixMemo)
        message = messages[i]
        if type(message) is not dict:
            continue
        if not message.keys() <= message_keys or not message.keys().isdisjoint(message_nested):
            if found := first_extra({k: v for k, v in message.items() if k != "content"}, message_shape,
                                    ("messages", i)):
                return _extra(found)
        content = message.get("content")
        if type(content) is not list:
            continue
        for j, block in enumerate(content):
            if type(block) is not dict:
                continue
            kind = block.get("type")
            allowed = block_keys.get(kind) if type(kind) is str else None
            if allowed is not None and (not block.keys() <= allowed or not block.keys().isdisjoint(block_nested[kind])):
                if found := first_extra(block, blocks, ("messages", i, "content", j)):
                    return _extra(found)
    return None


def _system_problem(system: Any) -> Params | None:
    if not isinstance(system, list):
        return None
    for i, block in enumerate(system):
        if not isinstance(block, dict):
            return _problem(_path("system", i), "Input should be a valid dictionary")
        if "type" not in block:
            return _problem(_path("system", i, "type"), "Field required")
        if block["type"] != "text":
            return _problem(_path("system", i, "type"), "Input should be 'text'")
        if found := _field_problem(block, "text", _STR, True, "system", i):
            return found
    return None


def _stop_sequences_problem(stops: Any) -> Params | None:
    for i, stop in enumerate(stops if isinstance(stops, list) else []):
        if not isinstance(stop, str):
            return _problem(_path("stop_sequences", i), "Input should be a valid string")
    return None


def _tagged_problem(obj: Any, where: str, tags: tuple[str, ...]) -> Params | None:
    """A discriminated union on ``type`` (pydantic wording for a missing or unknown tag)."""
    if "type" not in obj:
        return _problem(_path(where, "type"), "Field required")
    kind = obj["type"]
    if kind not in tags:
        return _problem(where, f"Input tag '{kind}' found using 'type' does not match any of the "
                               f"expected tags: {_tags(tags)}")
    return None


def _tool_choice_problem(choice: Any) -> Params | None:
    if not isinstance(choice, dict):
        return None
    if found := _tagged_problem(choice, "tool_choice", _TOOL_CHOICE_TYPES):
        return found
    kind = choice["type"]
    if kind == "tool" and (found := _field_problem(choice, "name", _STR, True, "tool_choice", "tool")):
        return found
    return _field_problem(choice, "disable_parallel_tool_use", _BOOL, False, "tool_choice", kind)


def _thinking_problem(thinking: Any) -> Params | None:
    if not isinstance(thinking, dict):
        return None
    if found := _tagged_problem(thinking, "thinking", _THINKING_TYPES):
        return found
    kind = thinking["type"]
    if kind == "enabled" and (found := _field_problem(thinking, "budget_tokens", _INT, True, "thinking", "enabled")):
        return found
    display = thinking.get("display")
    if kind in ("enabled", "adaptive") and display is not None and display not in ("summarized", "omitted"):
        return _problem(_path("thinking", kind, "display"), "Input should be 'summarized' or 'omitted'")
    return None


def _check_model_known(ctx: RequestContext) -> Params | None:
    return {"model": ctx.body.get("model")} if ctx.model is None else None


def _check_model_retired(ctx: RequestContext) -> Params | None:
    if ctx.model is not None and ctx.model.retired(ctx.options.today):
        return {"model": ctx.body.get("model")}
    return None


def _given(ctx: RequestContext, name: str) -> bool:
    """Whether a sampling parameter is sent (an explicit null counts as absent)."""
    return ctx.body.get(name) is not None


def _sampling(ctx: RequestContext) -> str | None:
    return ctx.model.sampling if ctx.model else None


def _check_temperature_removed(ctx: RequestContext) -> Params | None:
    temperature = ctx.body.get("temperature")
    return {} if _sampling(ctx) == "default_only" and temperature is not None and temperature != 1 else None


def _check_top_p_removed(ctx: RequestContext) -> Params | None:
    return {} if _sampling(ctx) == "default_only" and _given(ctx, "top_p") else None


def _check_top_k_removed(ctx: RequestContext) -> Params | None:
    return {} if _sampling(ctx) == "default_only" and _given(ctx, "top_k") else None


def _check_temperature_and_top_p(ctx: RequestContext) -> Params | None:
    both = _given(ctx, "temperature") and _given(ctx, "top_p")
    return {} if _sampling(ctx) == "one_of" and both else None


def _check_max_tokens_cap(ctx: RequestContext) -> Params | None:
    cap = ctx.model.max_output_tokens if ctx.model else None
    max_tokens = ctx.body.get("max_tokens")
    if cap is not None and _is_int(max_tokens) and max_tokens > cap:
        return {"max_tokens": max_tokens, "cap": cap, "model": ctx.model.id}
    return None


# --------------------------------------------------------------------------- tools


def _check_tool_shapes(ctx: RequestContext) -> Params | None:
    tools = ctx.body.get("tools")
    for i, tool in enumerate(tools if isinstance(tools, list) else []):
        if not isinstance(tool, dict):
            return _problem(_path("tools", i), "Input should be a valid dictionary")
        kind = tool.get("type")
        if kind is not None and not isinstance(kind, str):
            return _problem(_path("tools", i, "type"), "Input should be a valid string")
        if _is_custom_tool(tool):
            found = _field_problem(tool, "name", _STR, True, "tools", i, "custom") or _field_problem(
                tool, "input_schema", _DICT, True, "tools", i, "custom")
        else:
            # the SDK's own required fields for this type (mcp_toolset: mcp_server_name, no name);
            # a type the SDK does not define keeps the old demand of a name (the fake's choice)
            required = tool_required_fields().get(kind, ("name",))
            found = next((p for name in required if (p := _field_problem(
                tool, name, _STR if name == "name" else _ANY, True, "tools", i, kind))), None)
        if found:
            return found
    return None


def _check_tool_name_pattern(ctx: RequestContext) -> Params | None:
    for i, tool in enumerate(_tools(ctx)):
        if _is_custom_tool(tool) and not _TOOL_NAME.fullmatch(str(tool.get("name"))):
            return {"index": i}
    return None


def _check_tool_names_unique(ctx: RequestContext) -> Params | None:
    # toolsets (mcp_toolset, browser_toolset_...) have no name: nothing to compare
    names = [tool["name"] for tool in _tools(ctx) if tool.get("name") is not None]
    return {} if len(names) != len(set(map(str, names))) else None


def _check_tool_choice_needs_tools(ctx: RequestContext) -> Params | None:
    return {} if ctx.body.get("tool_choice") is not None and not ctx.body.get("tools") else None


def _check_tool_choice_name(ctx: RequestContext) -> Params | None:
    choice = _tool_choice(ctx)
    if choice.get("type") != "tool":
        return None
    names = [tool.get("name") for tool in _tools(ctx)]
    return None if choice.get("name") in names else {"name": choice.get("name")}


# --------------------------------------------------------------------------- messages


def _check_message_shapes(ctx: RequestContext) -> Params | None:
    messages = _messages(ctx)
    for i in range(ctx.trusted, len(messages)):  # trusted messages passed already (_context.PrefixMemo)
        message = messages[i]
        if not isinstance(message, dict):
            return _problem(_path("messages", i), "Input should be a valid dictionary")
        for name in ("role", "content"):
            if name not in message:
                return _problem(_path("messages", i, name), "Field required")
        content = message["content"]
        if not isinstance(content, (str, list)):
            return _problem(_path("messages", i, "content"), "Input should be a valid list")
        for j, block in enumerate(content if isinstance(content, list) else []):
            if found := _block_problem(block, "messages", i, "content", j):
                return found
    return None


def _block_problem(block: Any, *where: object) -> Params | None:
    if not isinstance(block, dict):
        return _problem(_path(*where), "Input should be a valid dictionary")
    if found := _field_problem(block, "type", _STR, True, *where):
        return found
    kind = block["type"]
    if kind == "text" and type(block.get("text")) is str:
        return None  # the common case, checked without the generic machinery
    for name, spec, required in _BLOCK_FIELDS.get(kind, ()):
        if found := _field_problem(block, name, spec, required, *where, kind):
            return found
    if kind == "tool_result" and isinstance(block.get("content"), list):
        for k, item in enumerate(block["content"]):
            if found := _nested_block_problem(item, *where, kind, "content", k):
                return found
    return None


def _nested_block_problem(block: Any, *where: object) -> Params | None:
    """A block inside ``tool_result.content``: the same shape checks as a message's blocks, and a
    type among the SDK's ``ToolResultBlockParam`` content union (pydantic's union-tag text, [OBS]
    ``messages.3.content.0.tool_result.content.0: Input tag 'tool_reference' found using 'type' does
    not match any of the expected tags: 'document', 'image', 'search_result', 'text'``, quoted in
    public code about https://github.com/anthropics/claude-code/issues/11678)."""
    if not isinstance(block, dict):
        return _problem(_path(*where), "Input should be a valid dictionary")
    if found := _field_problem(block, "type", _STR, True, *where):
        return found
    kind = block["type"]
    tags = _tool_result_content_tags()
    if kind not in tags:
        return _problem(_path(*where), f"Input tag '{kind}' found using 'type' does not match any of the "
                                       f"expected tags: {_tags(tags)}")
    for name, spec, required in _BLOCK_FIELDS.get(kind, ()):
        if found := _field_problem(block, name, spec, required, *where, kind):
            return found
    return None


@functools.cache
def _tool_result_content_tags() -> tuple[str, ...]:
    """Block types a ``tool_result``'s content list accepts, from the SDK (sorted, as pydantic lists them)."""
    content = request_shape().fields["messages"].items.fields["content"].items.tags["tool_result"]["content"]
    return tuple(sorted(content.items.tags))


def _check_messages_non_empty(ctx: RequestContext) -> Params | None:
    return {} if ctx.body.get("messages") == [] else None


def _check_first_user(ctx: RequestContext) -> Params | None:
    messages = _messages(ctx)
    if ctx.options.first_message_user and messages and _role(messages[0]) != "user":
        return {}
    return None


def _check_role_values(ctx: RequestContext) -> Params | None:
    with_system = bool(ctx.model and ctx.model.mid_conversation_system)
    roles = ("user", "assistant", "system") if with_system else ("user", "assistant")
    messages = _messages(ctx)
    for i in range(ctx.trusted, len(messages)):  # trusted messages passed already (_context.PrefixMemo)
        message = messages[i]
        role = message.get("role") if isinstance(message, dict) else None
        if isinstance(message, dict) and (not isinstance(role, str) or role not in _ROLES):
            return {"index": i, "allowed": _literal(roles)}
    return None


_ROLES = frozenset({"user", "assistant", "system"})


def _check_system_role_supported(ctx: RequestContext) -> Params | None:
    if ctx.model and ctx.model.mid_conversation_system:
        return None
    return {} if "system" in _index(ctx).roles else None


def _check_system_role_placement(ctx: RequestContext) -> Params | None:
    if "system" not in _index(ctx).roles:
        return None
    messages = _messages(ctx)
    for i, message in _iter_messages(ctx):
        if message.get("role") == "system" and (i == 0 or _role(messages[i - 1]) != "user"):
            return {"index": i}
    return None


def _check_alternation(ctx: RequestContext) -> Params | None:
    if not ctx.options.strict_alternation:
        return None
    messages = _messages(ctx)
    for previous, current in zip(messages, messages[1:]):
        role = _role(current)
        if role in ("user", "assistant") and _role(previous) == role:
            return {"role": role}
    return None


def _check_empty_content(ctx: RequestContext) -> Params | None:
    messages = _messages(ctx)
    last = len(messages) - 1
    for i in range(ctx.trusted, len(messages)):  # trusted messages passed already (_context.PrefixMemo)
        message = messages[i]
        if isinstance(message, dict) and message.get("content") in ("", []) and not (i == last and message.get("role") == "assistant"):
            return {"index": i}
    return None


def _iter_text_blocks(ctx: RequestContext) -> Iterator[tuple[int, int, dict[str, Any]]]:
    """``(message index, block index, block)`` for every top-level text block (string content included)
    of the untrusted messages (the trusted ones passed rules 12-12c already, ``_context.PrefixMemo``)."""
    index = _index(ctx)
    if index.text_blocks is None:
        start = index.start
        index.text_blocks = [(i, j, b) for i, j, b in index.of_type("text")
                             if i >= start and isinstance(b.get("text"), str)]
    return iter(index.text_blocks)


def _all_text(ctx: RequestContext) -> list[str]:
    """The ``text`` of every text block of the untrusted messages (``ctx.trusted`` on: the trusted
    ones passed rules 12, 12b and 12c already, ``_context.PrefixMemo``): the messages' own, then
    those inside ``tool_result`` content (rules 12 and 12b apply to both; issue 10: nested blocks
    are validated like top-level ones). Computed once per request; rules 12, 12b and 12c only ask
    whether an empty or blank text is among them."""
    index = _index(ctx)
    if index.all_text is None:
        start = index.start
        texts = [block["text"] for _, _, block in _iter_text_blocks(ctx)]
        for i, _, result in index.of_type("tool_result"):
            if i < start:
                continue
            content = result.get("content")
            if isinstance(content, list):
                texts += [item["text"] for item in content if isinstance(item, dict) and item.get("type") == "text"
                          and isinstance(item.get("text"), str)]
        index.all_text = texts
    return index.all_text


def _check_cache_control_empty_text(ctx: RequestContext) -> Params | None:
    if "" not in _all_text(ctx):
        return None
    for i, j, block in _iter_text_blocks(ctx):
        if block["text"] == "" and block.get("cache_control") is not None:
            return {"index": i, "block": j}
    return None


MAX_CACHE_BREAKPOINTS = 4
"""Most blocks with ``cache_control`` in one request (prompt-caching docs: up to 4 breakpoints; rule 12d)."""


def _cache_breakpoints(ctx: RequestContext) -> list[tuple[str, Any]]:
    """``(path, cache_control)`` of every block-level breakpoint in processing order (tools, system,
    messages; the order the rule-12e text states). Counted: tool definitions, ``system`` blocks and the
    top-level blocks of each message; not the blocks inside ``tool_result`` content, nor the top-level
    ``cache_control`` parameter (automatic caching): whether the API counts them is unknown."""
    cached = ctx.__dict__.get("_rules_breakpoints")
    if cached is not None:
        return cached
    found: list[tuple[str, Any]] = []
    ctx.__dict__["_rules_breakpoints"] = found
    if not ctx.marked:
        return found  # no "cache_control" anywhere in the request's bytes
    for i, tool in enumerate(_tools_as_sent(ctx)):
        if isinstance(tool, dict) and tool.get("cache_control") is not None:
            found.append((_path("tools", i), tool["cache_control"]))
    system = ctx.body.get("system")
    for i, block in enumerate(system if isinstance(system, list) else []):
        if isinstance(block, dict) and block.get("cache_control") is not None:
            found.append((_path("system", i), block["cache_control"]))
    index = _index(ctx)
    marked = [entry for entries in index.by_type.values() for entry in entries
              if entry[2].get("cache_control") is not None]
    marked.sort(key=lambda e: (e[0], e[1]))
    found.extend((_path("messages", i, "content", j), block["cache_control"]) for i, j, block in marked)
    return found


def _check_cache_breakpoint_count(ctx: RequestContext) -> Params | None:
    found = len(_cache_breakpoints(ctx))
    return {"found": found} if found > MAX_CACHE_BREAKPOINTS else None


def _check_cache_ttl_order(ctx: RequestContext) -> Params | None:
    seen_5m = False
    for path, control in _cache_breakpoints(ctx):
        ttl = control.get("ttl") if isinstance(control, dict) else None
        if ttl == "1h" and seen_5m:
            return {"path": path}
        if ttl in (None, "5m"):  # a bare {"type": "ephemeral"} is the 5-minute default
            seen_5m = True
    return None


def _check_empty_text(ctx: RequestContext) -> Params | None:
    return {} if "" in _all_text(ctx) else None


def _check_whitespace_text(ctx: RequestContext) -> Params | None:
    return next(({} for text in _all_text(ctx) if text.isspace()), None)


def _check_prefill_supported(ctx: RequestContext) -> Params | None:
    final = _final_assistant(ctx)
    if final is None or (ctx.model and ctx.model.prefill) or _is_pause_continuation(final[1]):
        return None
    return {}


def _check_prefill_whitespace(ctx: RequestContext) -> Params | None:
    final = _final_assistant(ctx)
    if final is None or not (ctx.model and ctx.model.prefill) or _is_pause_continuation(final[1]):
        return None
    blocks = _blocks(final[1])
    last = blocks[-1] if blocks else None
    text = last.get("text") if _btype(last) == "text" else None
    return {} if isinstance(text, str) and text != text.rstrip() else None


def _tool_turns(ctx: RequestContext) -> Iterator[tuple[int, list[str], Any]]:
    """``(assistant index, its tool_use ids, the next message or None)`` for assistant messages with tool_use."""
    index = _index(ctx)
    messages = index.messages
    ids_by_message: dict[int, list[str]] = {}
    for i, _j, block in index.of_type("tool_use"):
        if index.roles[i] == "assistant":
            ids_by_message.setdefault(i, []).append(str(block.get("id")))
    for i, ids in ids_by_message.items():
        yield i, ids, messages[i + 1] if i + 1 < len(messages) else None


def _check_results_first(ctx: RequestContext) -> Params | None:
    for i, ids, answer in _tool_turns(ctx):
        if _role(answer) != "user":
            continue
        blocks = _blocks(answer)
        kinds = [_btype(b) for b in blocks]
        if "tool_result" in kinds:
            last_result = len(kinds) - 1 - kinds[::-1].index("tool_result")
            if any(kind != "tool_result" for kind in kinds[:last_result]):
                first_other = next(k for k, kind in enumerate(kinds) if kind != "tool_result")
                leading = {str(b.get("tool_use_id")) for b in blocks[:first_other] if isinstance(b, dict)}
                return {"index": i, "ids": ", ".join(tool_id for tool_id in ids if tool_id not in leading)}
    return None


def _check_tool_use_answered(ctx: RequestContext) -> Params | None:
    messages = _messages(ctx)
    for i, ids, answer in _tool_turns(ctx):
        if i == len(messages) - 1 and _is_pause_continuation(messages[i]):
            continue
        answered = set(_tool_result_ids(answer)) if _role(answer) == "user" else set()
        missing = [tool_id for tool_id in ids if tool_id not in answered]
        if missing:
            return {"index": i, "ids": ", ".join(missing)}
    # A paused server tool call (pause_turn) has no result yet: the turn must go back as the last
    # message. Anything after it (a "continue" user message) leaves the call unanswered
    # (reference 3.2 rule 1, [3P]). With client calls in the same turn the server tool runs when
    # their results arrive (reference section 2), so that case is not an error.
    index = _index(ctx)
    for i in sorted({i for i, _j, _b in index.of_type("server_tool_use") if index.roles[i] == "assistant"}):
        if i == len(messages) - 1 or _tool_use_ids(messages[i]):
            continue
        blocks = _blocks(messages[i])
        results = {str(b.get("tool_use_id")) for b in blocks if _is_server_block(b) and _btype(b) != "server_tool_use"}
        missing = [str(b.get("id")) for b in blocks if _btype(b) == "server_tool_use" and str(b.get("id")) not in results]
        if set(missing) & set(_tool_result_ids(messages[i + 1])):
            continue  # a made-up tool_result for the server call: rule 16 names that block
        if missing:
            return {"index": i, "ids": ", ".join(missing)}
    return None


def _check_tool_result_expected(ctx: RequestContext) -> Params | None:
    index = _index(ctx)
    messages = index.messages
    expected_by_message: dict[int, set[str]] = {}
    for i, j, block in index.of_type("tool_result"):
        if index.roles[i] != "user":
            continue
        if i not in expected_by_message:
            previous = messages[i - 1] if i > 0 and index.roles[i - 1] == "assistant" else None
            expected_by_message[i] = set(_tool_use_ids(previous))
        if str(block.get("tool_use_id")) not in expected_by_message[i]:
            return {"index": i, "block": j, "id": block.get("tool_use_id")}
    return None


def _check_single_result_per_tool_use(ctx: RequestContext) -> Params | None:
    seen: set[tuple[int, str]] = set()
    index = _index(ctx)
    for i, j, block in index.of_type("tool_result"):
        key = (i, str(block.get("tool_use_id")))
        if key in seen:
            return {"index": i, "block": j, "id": block.get("tool_use_id")}
        seen.add(key)
    return None


def _check_tool_use_ids_unique(ctx: RequestContext) -> Params | None:
    seen: set[str] = set()
    for i, j, block in _index(ctx).of_type("tool_use"):
        tool_id = str(block.get("id"))
        if tool_id in seen:
            return {"index": i, "block": j}
        seen.add(tool_id)
    return None


def _check_tool_use_id_pattern(ctx: RequestContext) -> Params | None:
    for i, j, block in _index(ctx).of_type("tool_use"):
        if not _TOOL_ID.fullmatch(str(block.get("id"))):
            return {"index": i, "block": j}
    return None


def _check_tool_result_in_assistant(ctx: RequestContext) -> Params | None:
    index = _index(ctx)
    return next(({"index": i} for i, _j, _b in index.of_type("tool_result") if index.roles[i] == "assistant"), None)


# --------------------------------------------------------------------------- thinking


def _thinking_rejected(ctx: RequestContext) -> str | None:
    """The request's ``thinking.type`` when the model does not accept it, else None."""
    kind = _thinking_type(ctx)
    if kind is None or ctx.model is None or kind in ctx.model.thinking_types:
        return None
    return kind


def _check_thinking_enabled_supported(ctx: RequestContext) -> Params | None:
    return {} if _thinking_rejected(ctx) == "enabled" else None


def _check_thinking_disabled_supported(ctx: RequestContext) -> Params | None:
    return {} if _thinking_rejected(ctx) == "disabled" else None


def _check_thinking_type_supported(ctx: RequestContext) -> Params | None:
    kind = _thinking_rejected(ctx)
    return {"type": kind} if kind not in (None, "enabled", "disabled") else None


def _check_temperature_with_thinking(ctx: RequestContext) -> Params | None:
    temperature = ctx.body.get("temperature")
    return {} if _thinking_on(ctx) and temperature is not None and temperature != 1 else None


def _check_top_k_with_thinking(ctx: RequestContext) -> Params | None:
    return {} if _thinking_on(ctx) and _given(ctx, "top_k") else None


def _check_forced_tool_with_thinking(ctx: RequestContext) -> Params | None:
    forced = _tool_choice(ctx).get("type") in ("any", "tool")
    return {} if forced and _thinking_type(ctx) == "enabled" else None


def _budget(ctx: RequestContext) -> int | None:
    budget = _thinking(ctx).get("budget_tokens")
    return budget if _thinking_type(ctx) == "enabled" and _is_int(budget) else None


def _check_budget_minimum(ctx: RequestContext) -> Params | None:
    budget = _budget(ctx)
    return {} if budget is not None and budget < 1024 else None


def _check_budget_below_max_tokens(ctx: RequestContext) -> Params | None:
    budget, max_tokens = _budget(ctx), ctx.body.get("max_tokens")
    if any(value.strip().startswith("interleaved-thinking-") for value in ctx.headers.get("anthropic-beta", "").split(",")):
        return None  # with interleaved thinking the budget is per assistant turn and may exceed max_tokens
    return {} if budget is not None and _is_int(max_tokens) and budget >= max_tokens else None


def _iter_thinking_blocks(message: Any) -> Iterator[tuple[int, dict[str, Any]]]:
    return ((j, b) for j, b in _iter_blocks(message) if b.get("type") in _THINKING_BLOCKS)


def _check_thinking_first(ctx: RequestContext) -> Params | None:
    index = _index(ctx)
    for i in sorted({i for i, _j, _b in index.of_type(*_THINKING_BLOCKS) if index.roles[i] == "assistant"}):
        first = _blocks(index.messages[i])[0]
        if _btype(first) not in _THINKING_BLOCKS:
            return {"index": i, "found": _btype(first)}
    return None


def _check_signatures(ctx: RequestContext) -> Params | None:
    model_id = ctx.model.id if ctx.model else str(ctx.body.get("model"))
    latest = _open_loop_assistant(ctx)
    index = _index(ctx)
    for i, j, block in index.of_type(*_THINKING_BLOCKS):
        if index.roles[i] != "assistant" or ctx.ledger.verify(model_id, block):
            continue
        if i == latest and ctx.ledger.issued(block) and ctx.ledger.key(block) not in (ctx.ledger.original_sequence(block) or ()):
            continue  # an issued block with edited text in the open turn's message: rule 29
        # unchanged but signed for another model (a replay): rule 28, as in earlier turns
        return {"index": i, "block": j}
    return None


def _check_latest_thinking_unmodified(ctx: RequestContext) -> Params | None:
    latest = _open_loop_assistant(ctx)
    if latest is None:
        return None
    message = _messages(ctx)[latest]
    present = list(_iter_thinking_blocks(message))
    issued = next((b for _, b in present if ctx.ledger.issued(b)), None)
    if issued is None:
        return None  # nothing sent back, or nothing the fake issued (rule 28's business)
    expected = ctx.ledger.original_sequence(issued) or ()
    for position, (j, block) in enumerate(present):
        if position >= len(expected) or ctx.ledger.key(block) != expected[position]:
            return {"index": latest, "block": j}
    if len(present) < len(expected):
        return {"index": latest, "block": min(present[-1][0] + 1, len(_blocks(message)) - 1)}
    return None


def _open_loop_assistant(ctx: RequestContext) -> int | None:
    """Index of the assistant message of the in-progress tool loop (reference 3.3), or None.

    That is the last message when it is an assistant message, or the nearest assistant message
    before a final user message whose content starts with ``tool_result`` blocks.
    """
    messages = _messages(ctx)
    if not messages:
        return None
    last = messages[-1]
    if _role(last) == "assistant":
        return len(messages) - 1
    blocks = _blocks(last)
    if _role(last) == "user" and blocks and _btype(blocks[0]) == "tool_result":
        return _last_index(messages[:-1], "assistant")
    return None


def _check_open_loop_starts_with_thinking(ctx: RequestContext) -> Params | None:
    if not _thinking_on(ctx):
        return None
    index = _open_loop_assistant(ctx)
    if index is None:
        return None
    message = _messages(ctx)[index]
    blocks = _blocks(message)
    if not blocks or _btype(blocks[0]) in _THINKING_BLOCKS:
        return None
    if _thinking_type(ctx) == "adaptive":
        ids = [str(b.get("id")) for _, b in _iter_blocks(message) if b.get("type") in ("tool_use", "server_tool_use")]
        if not any(ctx.ledger.thinking_for_tool_use(tool_id) for tool_id in ids):
            return None  # the issued message had no thinking: nothing was dropped
    return {"index": index, "found": _btype(blocks[0])}


def _check_final_thinking_when_disabled(ctx: RequestContext) -> Params | None:
    if _thinking_type(ctx) not in (None, "disabled"):
        return None
    final = _final_assistant(ctx)
    first = next(_iter_thinking_blocks(final[1]), None) if final else None
    return {"index": final[0], "block": first[0]} if final and first else None


# --------------------------------------------------------------------------- size


def _check_context_window(ctx: RequestContext) -> Params | None:
    tokens, window = ctx.input_tokens, ctx.context_window
    return {"tokens": tokens, "window": window} if ctx.model and tokens > window else None


def _check_context_with_max_tokens(ctx: RequestContext) -> Params | None:
    if ctx.model is None or ctx.model.context_window_stop:
        return None
    tokens, window, max_tokens = ctx.input_tokens, ctx.context_window, ctx.body.get("max_tokens")
    if _is_int(max_tokens) and tokens + max_tokens > window:
        return {"tokens": tokens, "max_tokens": max_tokens, "window": window}
    return None


def _never(_: Any) -> Params | None:
    return None


# --------------------------------------------------------------------------- beta header, structured outputs, tool schemas

_BETA_SHAPE = re.compile(r"[a-z][a-z0-9]*(?:-[a-z0-9]+)*?-(\d{4})-?(\d{2})-?(\d{2})")
"""``<name>-YYYY-MM-DD``, or ``<name>-YYYYMMDD`` as in ``claude-code-20250219`` (sent by Claude Code on
every request and accepted by the API)."""


@functools.cache
def _sdk_betas() -> frozenset[str]:
    """The beta names the installed SDK lists (``anthropic.types.AnthropicBetaParam``'s literal)."""
    import typing

    from anthropic.types import AnthropicBetaParam

    names: set[str] = set()
    for arg in typing.get_args(AnthropicBetaParam):
        names.update(a for a in typing.get_args(arg) if isinstance(a, str))
    return frozenset(names)


def _beta_unknown(value: str, today: date) -> bool:
    """Whether one ``anthropic-beta`` value cannot be a beta the API knows on ``today``."""
    if value in _sdk_betas():
        return False
    match = _BETA_SHAPE.fullmatch(value)
    if match is None:
        return True
    try:
        dated = date(int(match[1]), int(match[2]), int(match[3]))
    except ValueError:
        return True
    return dated > today


def _check_beta_header(ctx: RequestContext) -> Params | None:
    """Unknown ``anthropic-beta`` values (rule 4i). The header is a comma-separated list (the SDK
    joins ``betas=[...]`` with ``,``); every value that is not in the SDK's literal and either is
    not shaped ``<name>-YYYY-MM-DD`` or is dated after ``ValidationOptions.today`` is unknown."""
    header = ctx.headers.get("anthropic-beta")
    if header is None:
        return None
    values = [v.strip() for v in str(header).split(",")]
    unknown = [v for v in values if _beta_unknown(v, ctx.options.today)]
    return {"values": "`, `".join(unknown)} if unknown else None


def _output_formats(body: dict[str, Any]) -> Iterator[tuple[str, Any]]:
    """``(path, format)`` of each structured-output format the request sets: ``output_config.format``
    (SDK ``OutputConfigParam``), then the structured-outputs beta's top-level ``output_format``,
    which the API still takes (deprecated; litellm 1.110 sends it for ``response_format=``: the
    real API answered it with ``output_format.schema: ...`` texts, [OBS]
    https://github.com/BerriAI/litellm/issues/35808; "still accepted during a transition window"
    [3P]). Whether it needs its ``anthropic-beta`` header, and what both together do, is unknown:
    the fake takes it either way and answers ``output_config.format`` first (``_model.output_schema``)."""
    config = body.get("output_config")
    fmt = config.get("format") if isinstance(config, dict) else None
    if fmt is not None:
        yield "output_config.format", fmt
    if body.get("output_format") is not None:
        yield "output_format", body["output_format"]


def _check_output_format_shape(ctx: RequestContext) -> Params | None:
    """Malformed ``output_config.format`` or ``output_format`` (rule 4j; SDK ``JSONOutputFormatParam``:
    ``type`` Literal["json_schema"] and ``schema`` Dict[str, object], both required)."""
    for where, fmt in _output_formats(ctx.body):
        if not isinstance(fmt, dict):
            return _problem(where, "Input should be a valid dictionary")
        if "type" not in fmt:
            return _problem(_path(where, "type"), "Field required")
        if fmt["type"] != "json_schema":
            return _problem(_path(where, "type"), "Input should be 'json_schema'")
        if found := _field_problem(fmt, "schema", _DICT, True, where):
            return found
    return None


_NUMERIC_LIMITS = ("exclusiveMaximum", "exclusiveMinimum", "maximum", "minimum", "multipleOf")
"""Numeric keywords the SDK's ``transform_schema`` moves into descriptions (``lib/_parse/_transform.py``)."""


def _subschemas(schema: dict[str, Any]) -> Iterator[Any]:
    """The schemas directly inside ``schema`` (properties, items, $defs, combinators...)."""
    for key in ("properties", "$defs", "definitions", "patternProperties"):
        value = schema.get(key)
        if isinstance(value, dict):
            yield from value.values()
    for key in ("anyOf", "allOf", "oneOf", "prefixItems"):
        value = schema.get(key)
        if isinstance(value, list):
            yield from value
    for key in ("items", "additionalProperties", "not", "if", "then", "else"):
        yield schema.get(key)


def _output_schema_problem(root: dict[str, Any]) -> Params | None:
    """The first structured-output limit ``root`` breaks (rule 4k), walking iteratively (a deep
    schema cannot exhaust the stack), at most 10,000 subschemas (the rest: the fake's choice, not
    checked)."""
    stack: list[Any] = [root]
    seen = 0
    while stack and seen < 10_000:
        schema = stack.pop()
        if not isinstance(schema, dict):
            continue
        seen += 1
        kind = schema.get("type")
        if isinstance(kind, list):  # ["object", "null"] is an object too (nullable)
            kind = next((k for k in ("object", "integer", "number", "array") if k in kind), None)
        if kind == "object":
            extra = schema.get("additionalProperties", None)
            if extra is True:
                return {"problem": "For 'object' type, 'additionalProperties: true' is not supported. "
                                   "Please set 'additionalProperties' to false"}
            if extra is not False:
                return {"problem": "For 'object' type, 'additionalProperties' must be explicitly set to false"}
        elif kind in ("integer", "number"):
            found = [key for key in _NUMERIC_LIMITS if key in schema]
            if len(found) == 1:
                return {"problem": f"For '{kind}' type, property '{found[0]}' is not supported"}
            if found:
                return {"problem": f"For '{kind}' type, properties {', '.join(found)} are not supported"}
        elif kind == "array" and schema.get("minItems", 0) not in (0, 1):
            return {"problem": "For 'array' type, 'minItems' values other than 0 or 1 are not supported"}
        stack.extend(reversed(list(_subschemas(schema))))
    return None


def _check_output_schema_limits(ctx: RequestContext) -> Params | None:
    for where, fmt in _output_formats(ctx.body):
        schema = fmt.get("schema") if isinstance(fmt, dict) else None
        if isinstance(schema, dict) and (found := _output_schema_problem(schema)):
            return {"where": where, **found}
    return None


def _custom_schemas(ctx: RequestContext) -> Iterator[tuple[int, dict[str, Any]]]:
    """``(index, input_schema)`` of every custom tool whose schema is an object."""
    for i, tool in enumerate(_tools_as_sent(ctx)):
        if isinstance(tool, dict) and _is_custom_tool(tool) and isinstance(tool.get("input_schema"), dict):
            yield i, tool["input_schema"]


def _check_strict_tool_schema_limits(ctx: RequestContext) -> Params | None:
    for i, tool in enumerate(_tools_as_sent(ctx)):
        if (isinstance(tool, dict) and _is_custom_tool(tool) and tool.get("strict") is True
                and isinstance(tool.get("input_schema"), dict)):
            found = _output_schema_problem(tool["input_schema"])
            if found:
                return {"index": i, **found}
    return None


def _tools_as_sent(ctx: RequestContext) -> list[Any]:
    tools = ctx.body.get("tools")
    return tools if isinstance(tools, list) else []


def _check_input_schema_type(ctx: RequestContext) -> Params | None:
    """A custom tool's ``input_schema.type`` missing or not ``"object"`` (rule 4h; SDK
    ``tool_param.InputSchema``: ``type: Required[Literal["object"]]``)."""
    for i, schema in _custom_schemas(ctx):
        if "type" not in schema:
            return _problem(_path("tools", i, "custom", "input_schema", "type"), "Field required")
        if schema["type"] != "object":
            return _problem(_path("tools", i, "custom", "input_schema", "type"), "Input should be 'object'")
    return None


def _check_input_schema_top_level_combinators(ctx: RequestContext) -> Params | None:
    for i, schema in _custom_schemas(ctx):
        if "oneOf" in schema or "allOf" in schema or "anyOf" in schema:
            return {"index": i}
    return None


_SCHEMA_VERDICTS: collections.OrderedDict[str, bool] = collections.OrderedDict()
_SCHEMA_VERDICTS_MAX = 512
_SCHEMA_VERDICTS_LOCK = threading.Lock()


def schema_is_valid(schema: dict[str, Any]) -> bool:
    """Whether ``schema`` is a valid JSON Schema draft 2020-12 schema (``jsonschema``'s
    ``Draft202012Validator.check_schema``, without format checks).

    The verdict is cached by the schema's canonical JSON (sorted keys), at most
    ``_SCHEMA_VERDICTS_MAX`` entries, least recently used dropped first: a loop re-sends the same tools on
    every request, so only the first request pays for the check. ``jsonschema`` is imported on the
    first call (``agentlab._jsonschema``), never at ``import agentlab``.
    """
    try:
        key = json.dumps(schema, sort_keys=True, ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError, RecursionError):
        return False
    with _SCHEMA_VERDICTS_LOCK:
        verdict = _SCHEMA_VERDICTS.get(key)
        if verdict is not None:
            _SCHEMA_VERDICTS.move_to_end(key)
            return verdict
    if verdict is None:
        from .._jsonschema import import_jsonschema

        jsonschema = import_jsonschema()
        try:
            jsonschema.Draft202012Validator.check_schema(schema, format_checker=None)
            verdict = True
        except jsonschema.SchemaError:
            verdict = False
        except Exception:  # noqa: BLE001 - a schema jsonschema cannot even walk (too deep: RecursionError)
            verdict = False
        with _SCHEMA_VERDICTS_LOCK:
            _SCHEMA_VERDICTS[key] = verdict
            while len(_SCHEMA_VERDICTS) > _SCHEMA_VERDICTS_MAX:
                _SCHEMA_VERDICTS.popitem(last=False)
    return verdict


def _check_input_schema_valid(ctx: RequestContext) -> Params | None:
    for i, schema in _custom_schemas(ctx):
        if not schema_is_valid(schema):
            return {"index": i}
    return None


# --------------------------------------------------------------------------- the table

_INVALID_REQUEST = "invalid_request_error"
_EXTRA_SOURCE = ("pydantic's extra_forbidden text [OBS]: https://github.com/microsoft/autogen/issues/3034 (messages.0.name), https://github.com/anthropics/claude-code/issues/14135 (context_management), https://github.com/anthropics/claude-code/issues/4378 (messages.65.content.1.tool_use.text); allowed fields from the installed SDK's request types (_shapes.py, which lists the approximations)")
_THINKING_DOCS = "https://docs.claude.com/en/docs/build-with-claude/extended-thinking"


def _rule(id: str, status: int, template: str, source: str, check: Callable[[Any], Params | None], doc: str, *,
          error_type: str = _INVALID_REQUEST, endpoints: frozenset[str] = _BOTH, exact: bool = True,
          phase: str = "body") -> Rule:
    return Rule(id=id, status=status, error_type=error_type, template=template, source=source, check=check,
                endpoints=endpoints, doc=doc, exact=exact, phase=phase)


RULES: tuple[Rule, ...] = (
    # --- transport and auth (validate_http)
    _rule("1", 404, "Not Found", f"{_REF} 1; https://docs.claude.com/en/api/errors", _check_path,
          "Unknown path or method (known: POST /v1/messages and /v1/messages/count_tokens, GET /v1/models and "
          "/v1/models/{model_id}).",
          error_type="not_found_error", exact=False, phase="http"),
    _rule("2", 401, "invalid x-api-key", f"{_REF} 2; reference 0.3, 3.5 [OBS quoted in public code]", _check_auth,
          "Neither `authorization: Bearer <key>` nor `x-api-key: <key>` with a non-empty key.",
          error_type="authentication_error", phase="http"),
    _rule("32", 413, "Request exceeds the maximum allowed number of bytes.",
          f"{_REF} 32; reference 3.1; https://docs.claude.com/en/api/errors", _check_size,
          "Raw body larger than 32 MiB.", error_type="request_too_large", exact=False, phase="http"),
    _rule("3", 400, "There was an issue with the format or content of your request.",
          f"{_REF} 3; https://docs.claude.com/en/api/errors", _check_json,
          "Body is not valid JSON, or not a JSON object.", exact=False, phase="http"),
    # --- top-level parameters
    _rule("4i", 400, "Unexpected value(s) `{values}` for the `anthropic-beta` header. Please consult our documentation "
                     "at docs.claude.com or try again without the header.",
          "[OBS] https://github.com/pacifio/cersei/issues/20 (interleaved-thinking-2025-04-14, docs.claude.com), "
          "https://github.com/QuantumNous/new-api/issues/2975 (two values joined by \"`, `\"), "
          "https://github.com/aaronrussell/anthropix/issues/15 (empty value); known values: SDK "
          "types/anthropic_beta_param.py", _check_beta_header,
          "An anthropic-beta value that is not in the SDK's AnthropicBetaParam literal and is not shaped "
          "<name>-YYYY-MM-DD or is dated after ValidationOptions.today (module docstring)."),
    _rule("4", 400, "{field}: Field required", f"{_REF} 4 [3P]", _check_required,
          "A required parameter is missing (create: max_tokens, messages, model; count_tokens: messages, model).",
          exact=False),
    _rule("4b", 400, "{path}: {problem}", f"{_REF} 4 [3P]; SDK types/message_create_params.py", _check_top_level_types,
          "A top-level parameter has the wrong type or range (pydantic-style path).", exact=False),
    _rule("4j", 400, "{path}: {problem}",
          "SDK types/json_output_format_param.py (type Literal['json_schema'], schema Dict[str, object], both "
          "required); pydantic's texts, paths as the API spells output_config.format.schema "
          "[OBS https://github.com/veryfront/veryfront-code/issues/3918]", _check_output_format_shape,
          "output_config.format (or the beta's top-level output_format) is not an object, its type is not "
          "'json_schema', or its schema is missing or not an object.", exact=False),
    _rule("4k", 400, "{where}.schema: {problem}",
          "[OBS] https://github.com/veryfront/veryfront-code/issues/3918 (additionalProperties absent), "
          "https://github.com/BerriAI/litellm/issues/35808 (additionalProperties true; seen on the old "
          "output_format path), https://github.com/agentjido/req_llm/issues/302 (one numeric keyword), "
          "https://github.com/BerriAI/litellm/issues/21016 and https://github.com/NVIDIA/SkillSpector/issues/66 "
          "(several), https://github.com/ghostlobster/memorize-everything/issues/93 (minItems); which keywords: "
          "the SDK's transform_schema (lib/_parse/_transform.py)", _check_output_schema_limits,
          "output_config.format.schema (or the beta's output_format.schema) breaks a structured-output limit: "
          "an object without additionalProperties "
          "false, a numeric bound on an integer/number, minItems other than 0 or 1.", exact=False),
    _rule("4e", 400, "{path}: Extra inputs are not permitted", _EXTRA_SOURCE, _check_extra_top_level,
          "A field the API does not accept, at the top level or inside a parameter other than tools/messages.",
          exact=False),
    _rule("5", 404, "model: {model}", f"{_REF} 5; reference 3.5 [OBS quoted in public code]", _check_model_known,
          "The model is not in the fake's catalogue.", error_type="not_found_error"),
    _rule("5b", 404, "model: {model}",
          "reference 3.5 (same text as rule 5) [OBS https://github.com/vicharanashala/vibe/issues/1259 (retired "
          "claude-sonnet-4-20250514), https://github.com/anthropics/prompt-eng-interactive-tutorial/issues/93]; "
          "model deprecations page: requests to models past the retirement date fail; dates: _models (SDK "
          "_data/deprecated_models.py)", _check_model_retired,
          "The model is past its end-of-life date (ValidationOptions.today, default the catalogue date).",
          error_type="not_found_error"),
    _rule("6", 400,
          "max_tokens: {max_tokens} > {cap}, which is the maximum allowed number of output tokens for {model}",
          f"{_REF} 6; https://github.com/anthropics/claude-code/issues/24451", _check_max_tokens_cap,
          "max_tokens above the model's output cap.", endpoints=_CREATE),
    _rule("6b", 400, "`temperature` is deprecated for this model.",
          "[OBS] https://github.com/UKGovernmentBEIS/inspect_ai/issues/3721 (opus-4-7), "
          "https://github.com/The-PR-Agent/pr-agent/issues/2456 (opus-4-8, fable-5); temperature 1 accepted: "
          "https://github.com/mnfst/modelparams.dev/pull/238; Sonnet 5 docs: non-default sampling parameters "
          "return 400", _check_temperature_removed,
          "temperature other than 1 on a model whose sampling parameters are removed (catalogue sampling "
          "'default_only').", endpoints=_CREATE),
    _rule("6c", 400, "`top_p` is deprecated for this model.",
          "[OBS] https://github.com/router-for-me/CLIProxyAPI/issues/4383 (opus-4-7, opus-4-8, fable-5); rejected "
          "at any value, 1 included: https://github.com/mnfst/modelparams.dev/pull/238", _check_top_p_removed,
          "top_p (any value) on a model whose sampling parameters are removed.", endpoints=_CREATE),
    _rule("6d", 400, "`top_k` is deprecated for this model.",
          "https://github.com/mnfst/modelparams.dev/pull/238 (top_k 5 and 0 -> 400 deprecated); the exact text is "
          "an approximation by analogy with 6b/6c", _check_top_k_removed,
          "top_k (any value) on a model whose sampling parameters are removed.", endpoints=_CREATE, exact=False),
    _rule("6e", 400, "`temperature` and `top_p` cannot both be specified for this model. Please use only one.",
          "[OBS] https://github.com/langfuse/langfuse/issues/9882 (Sonnet 4.5), "
          "https://github.com/skydiscover-ai/skydiscover/issues/15 (Sonnet 4.6); which other models: _models "
          "(sampling 'one_of', partly the fake's choice)", _check_temperature_and_top_p,
          "temperature and top_p both given on a model that takes only one (catalogue sampling 'one_of').",
          endpoints=_CREATE),
    # --- tools
    _rule("4c", 400, "{path}: {problem}", f"{_REF} 4 [3P]; reference 3.4; SDK types/tool_param.py and every tool TypedDict "
          "of the tools union (Required fields, _shapes.tool_required_fields)", _check_tool_shapes,
          "A tool definition is malformed (custom tools need name and input_schema; other tools the fields their "
          "SDK type requires: a name for most, mcp_server_name for mcp_toolset, nothing for the 2026-08-01 toolsets).",
          exact=False),
    _rule("4h", 400, "{path}: {problem}",
          "[OBS] https://github.com/Kilo-Org/kilocode/issues/12238 (tools.0.custom.input_schema.type: Field "
          "required); SDK types/tool_param.py InputSchema (type Required[Literal['object']]); the text for a type "
          "other than 'object' is pydantic's literal text (approximation)", _check_input_schema_type,
          "A custom tool's input_schema has no type, or a type other than 'object'."),
    _rule("4f", 400, "{path}: Extra inputs are not permitted", _EXTRA_SOURCE, _check_extra_in_tools,
          "A field the API does not accept inside a tool definition (tools.N.<type>.<field>).", exact=False),
    _rule("21", 400, "tools.{index}.custom.name: String should match pattern '^[a-zA-Z0-9_-]{{1,128}}$'",
          f"{_REF} 21; reference 3.4; [OBS] https://github.com/modelcontextprotocol/modelcontextprotocol/issues/1345, "
          "https://github.com/jedisct1/openapi-mcp/issues/9 (the current {1,128} text; {1,64} is the older one)",
          _check_tool_name_pattern, "A custom tool's name does not match ^[a-zA-Z0-9_-]{1,128}$."),
    _rule("21b", 400, "tools: Tool names must be unique.", f"{_REF} 21; reference 3.4", _check_tool_names_unique,
          "Two tools share a name.", exact=False),
    _rule("21c", 400, "tools.{index}.custom.input_schema: input_schema does not support oneOf, allOf, or anyOf at the "
                      "top level",
          "[OBS] https://github.com/anthropics/claude-code/issues/5319, https://github.com/anthropics/claude-code/issues/5973",
          _check_input_schema_top_level_combinators,
          "A custom tool's input_schema has oneOf, allOf or anyOf at its top level."),
    _rule("21d", 400, "tools.{index}.custom.input_schema: JSON schema is invalid. It must match JSON Schema draft 2020-12 "
                      "(https://json-schema.org/draft/2020-12). Learn more about tool use at "
                      "https://docs.claude.com/en/docs/tool-use.",
          "[OBS] https://github.com/anthropics/claude-code/issues/54439, "
          "https://github.com/anthropics/claude-code/issues/63673; the check: jsonschema's "
          "Draft202012Validator.check_schema (what the API's validator accepts beyond the meta-schema is unknown)",
          _check_input_schema_valid,
          "A custom tool's input_schema is not a valid JSON Schema draft 2020-12 schema."),
    _rule("21e", 400, "tools.{index}.custom: {problem}",
          "[OBS] https://github.com/vercel/ai/issues/20681 and https://github.com/strands-agents/harness-sdk/issues/2210 "
          "(tools.0.custom: For 'object' type, 'additionalProperties' must be explicitly set to false, strict: true, "
          "seen through Bedrock); strict tool use docs (strict tools follow the structured-outputs JSON Schema "
          "limitations); the other limits' texts are rule 4k's, by analogy", _check_strict_tool_schema_limits,
          "A strict: true custom tool's input_schema breaks a structured-output limit (rule 4k's checks)."),
    _rule("22", 400, "tool_choice may only be specified while providing tools.",
          f"{_REF} 22; reference 3.4 [OBS/3P]", _check_tool_choice_needs_tools,
          "tool_choice given without tools."),
    _rule("23", 400, "tool_choice.name: tool '{name}' not found in tools", f"{_REF} 23 [3P]", _check_tool_choice_name,
          "tool_choice of type tool names a tool that is not defined.", exact=False),
    # --- messages
    _rule("4d", 400, "{path}: {problem}", f"{_REF} 4 [3P]; SDK types/message_param.py", _check_message_shapes,
          "A message or content block is malformed (pydantic-style path).", exact=False),
    _rule("4g", 400, "{path}: Extra inputs are not permitted", _EXTRA_SOURCE, _check_extra_in_messages,
          "A field the API does not accept on a message or inside a block (messages.N.content.M.<type>.<field>).",
          exact=False),
    _rule("7", 400, "messages: at least one message is required", f"{_REF} 7 [3P]", _check_messages_non_empty,
          "messages is an empty list.", exact=False),
    _rule("9b", 400, "messages.{index}.role: Input should be {allowed}", f"{_REF} 9; reference 3.2 rule 5",
          _check_role_values, "A role other than user/assistant/system.", exact=False),
    _rule("9", 400, 'messages: Unexpected role "system". The Messages API accepts a top-level `system` parameter, '
                    'not "system" as an input message role.',
          f"{_REF} 9; reference 3.2 rule 5 [OBS quoted in public code]", _check_system_role_supported,
          "A system message on a model without mid-conversation system messages."),
    _rule("8", 400, 'messages: first message must use the "user" role',
          f"{_REF} 8; https://github.com/tonyljx/TextWordExplain/issues/2", _check_first_user,
          "The first message is not a user message (only with options.first_message_user)."),
    _rule("9c", 400, "messages.{index}: `system` messages must follow a `user` message and cannot be the first message",
          f"{_REF} 9; reference 1.2 (SDK system_message_param.py; skills mid-conversation-system-messages.md)",
          _check_system_role_placement, "A system message first, or not right after a user message.", exact=False),
    _rule("10", 400, 'messages: roles must alternate between "user" and "assistant", but found multiple "{role}" '
                     'roles in a row',
          f"{_REF} 10; reference 3.2 rule 6; skills shared/error-codes.md [OBS, historical]", _check_alternation,
          "Consecutive same-role messages (only with options.strict_alternation; merged otherwise)."),
    _rule("11", 400, "messages.{index}: all messages must have non-empty content except for the optional final "
                     "assistant message",
          f"{_REF} 11; https://github.com/tidyverse/ellmer/issues/709", _check_empty_content,
          "A message with content \"\" or [] that is not the final assistant message."),
    _rule("12c", 400, "messages.{index}.content.{block}.text: cache_control cannot be set for empty text blocks",
          f"{_REF} 12; reference 3.2 rule 9; https://github.com/anthropics/claude-code/issues/62379",
          _check_cache_control_empty_text, "cache_control on an empty text block."),
    _rule("12d", 400, "A maximum of 4 blocks with cache_control may be provided. Found {found}.",
          "[OBS] https://github.com/Wei-Shaw/sub2api/issues/176, https://github.com/tghamm/Anthropic.SDK/issues/50; "
          "prompt-caching docs (up to 4 cache breakpoints); what counts is partly the fake's choice (module "
          "docstring)", _check_cache_breakpoint_count,
          "More than 4 blocks with cache_control (tools, system blocks, top-level message blocks)."),
    _rule("12e", 400, "{path}.cache_control.ttl: a ttl='1h' cache_control block must not come after a ttl='5m' "
                      "cache_control block. Note that blocks are processed in the following order: `tools`, "
                      "`system`, `messages`.",
          "[OBS] https://github.com/cnighswonger/claude-code-cache-fix/issues/44 (raw JSON, messages path), "
          "https://github.com/anthropics/claude-code/issues/82816, https://github.com/headroomlabs-ai/headroom/pull/2941 "
          "(a bare ephemeral marker counts as 5m); prompt-caching docs (longer TTLs first); the tools and system "
          "paths are by analogy", _check_cache_ttl_order,
          "A ttl '1h' breakpoint after a 5-minute one, in the order tools, system, messages."),
    _rule("12", 400, "messages: text content blocks must be non-empty",
          f"{_REF} 12; https://github.com/anthropics/claude-code/issues/59812", _check_empty_text,
          "A text block with text \"\"."),
    _rule("12b", 400, "messages: text content blocks must contain non-whitespace text",
          f"{_REF} 12; https://github.com/anthropics/claude-code/issues/23440", _check_whitespace_text,
          "A whitespace-only text block or string content."),
    _rule("13", 400, "This model does not support assistant message prefill. The conversation must end with a user "
                     "message.",
          f"{_REF} 13; https://github.com/smallmain/vscode-unify-chat-provider/issues/249", _check_prefill_supported,
          "A final assistant message (not a pause_turn continuation) on a model without prefill."),
    _rule("14", 400, "final assistant content cannot end with trailing whitespace",
          f"{_REF} 14; reference 3.2 rule 10 [OBS quoted in public code]", _check_prefill_whitespace,
          "The prefill's final text ends with whitespace."),
    _rule("17", 400, "messages.{index}: `tool_use` ids were found without `tool_result` blocks immediately after: "
                     "{ids}. Each `tool_use` block must have a corresponding `tool_result` block in the next message.",
          f"{_REF} 17 (best approximation: the rule-15 text; the older API said \"Did not find K `tool_result` "
          "block(s) at the beginning of this message\"); reference 3.2 rules 1, 3; "
          "https://github.com/apify/tester-mcp-client/issues/12",
          _check_results_first, "Another block before the last tool_result of the answering user message."),
    _rule("15", 400, "messages.{index}: `tool_use` ids were found without `tool_result` blocks immediately after: "
                     "{ids}. Each `tool_use` block must have a corresponding `tool_result` block in the next message.",
          f"{_REF} 15; reference 3.2 rule 1; https://github.com/anthropics/claude-code/issues/5989",
          _check_tool_use_answered, "tool_use ids not answered by tool_result blocks in the next message."),
    _rule("16", 400, "messages.{index}.content.{block}: unexpected `tool_use_id` found in `tool_result` blocks: {id}. "
                     "Each `tool_result` block must have a corresponding `tool_use` block in the previous message.",
          f"{_REF} 16; reference 3.2 rule 2; https://github.com/anthropics/claude-code/issues/13460",
          _check_tool_result_expected, "A tool_result whose id is not a tool_use of the previous message."),
    _rule("16b", 400, "messages.{index}.content.{block}: each tool_use must have a single result. Found multiple "
                      "`tool_result` blocks with id: {id}",
          "[OBS quoted in public issues and code, e.g. https://github.com/QwenLM/qwen-code/pull/8163 "
          "(\"messages.4.content.1: each tool_use must have a single result...\"); not in the reference]",
          _check_single_result_per_tool_use, "Two tool_result blocks of one message answer the same tool_use_id."),
    _rule("18", 400, "messages.{index}.content.{block}: `tool_use` ids must be unique",
          f"{_REF} 18; https://github.com/anthropics/claude-code/issues/20901", _check_tool_use_ids_unique,
          "The same tool_use id twice in the request."),
    _rule("19", 400, "messages.{index}.content.{block}.tool_use.id: String should match pattern '^[a-zA-Z0-9_-]+$'",
          f"{_REF} 19; https://github.com/anomalyco/opencode/issues/1279", _check_tool_use_id_pattern,
          "A tool_use id with characters outside [a-zA-Z0-9_-] (or empty)."),
    _rule("20", 400, "messages.{index}: `tool_result` blocks can only be in `user` messages", f"{_REF} 20 [3P]",
          _check_tool_result_in_assistant, "A tool_result block inside an assistant message.", exact=False),
    # --- thinking
    _rule("24a", 400, '"thinking.type.enabled" is not supported for this model. Use "thinking.type.adaptive" and '
                      '"output_config.effort" to control thinking behavior.',
          "reference 3.3 [OBS https://github.com/openclaw/openclaw/issues/91805, "
          "https://github.com/zhukunpenglinyutong/jetbrains-cc-gui/issues/1003]; which models: _models (Opus 4.7 "
          "Bedrock model card, Sonnet 5 docs; the SDK's models_to_warn_with_thinking_enabled only warn)",
          _check_thinking_enabled_supported, "thinking.type 'enabled' on a model without manual thinking."),
    _rule("24b", 400, '"thinking.type.disabled" is not supported for this model. Thinking defaults to adaptive mode '
                      'when not specified; use "thinking.type.enabled" with "budget_tokens" for extended thinking.',
          "reference 3.3 [OBS https://github.com/danny-avila/LibreChat/issues/13704, "
          "https://github.com/ex-machina-co/opencode-anthropic-auth/issues/159]; which models: _models (Fable, "
          "Mythos 5.x, Opus 5.5: thinking always on)",
          _check_thinking_disabled_supported, "thinking.type 'disabled' on a model whose thinking is always on."),
    _rule("24c", 400, '"thinking.type.{type}" is not supported for this model.',
          "reference 3.3; the common prefix of the 24a/24b [OBS] texts (the rest is unknown)",
          _check_thinking_type_supported,
          "Another thinking.type the model does not accept (adaptive before 4.6, between_tools before Claude 5).",
          exact=False),
    _rule("24", 400, "Thinking may not be enabled when tool_choice forces tool use.",
          f"{_REF} 24; https://github.com/mastra-ai/mastra/issues/7507", _check_forced_tool_with_thinking,
          "tool_choice any/tool with thinking type enabled (adaptive accepts forced tools)."),
    _rule("24d", 400, "`temperature` may only be set to 1 when thinking is enabled. Please consult our documentation "
                      "at https://docs.anthropic.com/en/docs/build-with-claude/extended-thinking#important-"
                      "considerations-when-using-extended-thinking",
          "reference 3.3 [3P] (\"With thinking on, temperature may only be 1\"); [OBS] "
          "https://github.com/MartialBE/one-hub/issues/529", _check_temperature_with_thinking,
          "temperature other than 1 with thinking on (enabled or adaptive).", endpoints=_CREATE),
    _rule("24e", 400, "`top_k` must be unset when thinking is enabled. Please consult our documentation at "
                      "https://docs.anthropic.com/en/docs/build-with-claude/extended-thinking#important-"
                      "considerations-when-using-extended-thinking",
          "[OBS] https://github.com/danny-avila/LibreChat/issues/6023", _check_top_k_with_thinking,
          "top_k with thinking on (enabled or adaptive).", endpoints=_CREATE),
    _rule("25", 400, "thinking.enabled.budget_tokens: Input should be greater than or equal to 1024",
          f"{_REF} 25; reference 3.3 [OBS quoted in public code]", _check_budget_minimum,
          "thinking.budget_tokens below 1024."),
    _rule("25b", 400, "`max_tokens` must be greater than `thinking.budget_tokens`.",
          f"{_REF} 25; reference 3.3 [OBS quoted in public code]; not with the interleaved-thinking beta, "
          "where budget_tokens may exceed max_tokens (extended thinking docs, interleaved thinking; quoted in "
          "https://github.com/spring-projects/spring-ai/issues/3513)", _check_budget_below_max_tokens,
          "thinking.budget_tokens not below max_tokens (without the interleaved-thinking beta).", endpoints=_CREATE),
    _rule("27", 400, "messages.{index}.content.0: If an assistant message contains any thinking blocks, the first "
                     "block must be thinking or redacted_thinking. Found {found}.",
          f"{_REF} 27; https://github.com/anthropics/claude-code/issues/20705", _check_thinking_first,
          "An assistant message has thinking, but not as its first block."),
    _rule("28", 400, "messages.{index}.content.{block}: Invalid `signature` in `thinking` block",
          f"{_REF} 28; https://github.com/anthropics/claude-code/issues/10627", _check_signatures,
          "A thinking block whose signature the fake did not issue for that text and model."),
    _rule("29", 400, "messages.{index}.content.{block}: `thinking` or `redacted_thinking` blocks in the latest "
                     "assistant message cannot be modified. These blocks must remain as they were in the original "
                     "response.",
          f"{_REF} 29; https://github.com/anthropics/claude-code/issues/19539", _check_latest_thinking_unmodified,
          "The latest assistant message's thinking was edited, reordered or partly dropped."),
    _rule("26", 400, "messages.{index}.content.0.type: Expected `thinking` or `redacted_thinking`, but found "
                     "`{found}`. When `thinking` is enabled, a final `assistant` message must start with a thinking "
                     "block (preceeding the lastmost set of `tool_use` and `tool_result` blocks). We recommend you "
                     "include thinking blocks from previous turns. To avoid this requirement, disable `thinking`. "
                     f"Please consult our documentation at {_THINKING_DOCS}",
          f"{_REF} 26; reference 3.3; https://github.com/n8n-io/n8n/issues/22550",
          _check_open_loop_starts_with_thinking,
          "Thinking on, and the open tool loop's assistant message does not start with thinking."),
    _rule("30", 400, "messages.{index}.content.{block}: When thinking is disabled, an `assistant` message in the "
                     "final position cannot contain `thinking`. To use thinking blocks, enable `thinking` in your "
                     "request.",
          f"{_REF} 30; https://github.com/tailcallhq/forgecode/issues/1853", _check_final_thinking_when_disabled,
          "Thinking absent or disabled, and the final assistant message contains thinking."),
    # --- size
    _rule("31", 400, "prompt is too long: {tokens} tokens > {window} maximum",
          f"{_REF} 31; https://github.com/earendil-works/pi/issues/102", _check_context_window,
          "Input tokens above the model's context window."),
    _rule("31b", 400, "input length and `max_tokens` exceed context limit: {tokens} + {max_tokens} > {window}, "
                      "decrease input length or `max_tokens` and try again",
          "reference section 2 (model_context_window_exceeded on newer models only); historical API text",
          _check_context_with_max_tokens,
          "Input plus max_tokens above the window, on a model without context_window_stop.", endpoints=_CREATE),
    # --- error shape
    _rule("33", 400, "", f"{_REF} 33; reference 3.1; SDK _base_client.py", _never,
          "Not a check: every error is rendered with the API's body and request-id; 4xx carry x-should-retry: false "
          "(see Rule.error).", phase="response"),
)
"""The rules in validation order (module docstring)."""

RULES_BY_ID: dict[str, Rule] = {rule.id: rule for rule in RULES}
"""The rules by id."""

_HTTP_RULES = tuple(rule for rule in RULES if rule.phase == "http")
_BODY_RULES = tuple(rule for rule in RULES if rule.phase == "body")


# --------------------------------------------------------------------------- entry points


def validate_http(
    path: str, method: str, headers: Mapping[str, str], raw: bytes
) -> tuple[str | None, dict[str, Any] | None, ApiError | None]:
    """Run the transport rules (1, 2, 32, 3) on a raw request.

    Args:
        path: the URL path; a query string (``?beta=true``) is ignored.
        method: the HTTP method.
        headers: request headers (any case).
        raw: the raw body.

    Returns:
        ``(endpoint, body, error)``: the endpoint (``"messages"``/``"count_tokens"``/``"models"``,
        None for an unknown path), the parsed JSON object (``{}`` for a ``models`` GET, None on
        error) and the first error (None if none).
    """
    request = HttpRequest(path=path, method=method, headers={k.lower(): v for k, v in headers.items()}, raw=raw)
    for rule in _HTTP_RULES:
        params = rule.check(request)
        if params is not None:
            return request.endpoint, None, rule.error(**params)
    return request.endpoint, ({} if request.endpoint == "models" else request.body), None


def validate(ctx: RequestContext) -> ApiError | None:
    """Run the body rules in table order on a parsed request; the first violation's error, or None.

    Never raises on a body that is a JSON object, whatever its contents.
    """
    for rule in _BODY_RULES:
        if ctx.endpoint in rule.endpoints:
            params = rule.check(ctx)
            if params is not None:
                return rule.error(**params)
    return None
