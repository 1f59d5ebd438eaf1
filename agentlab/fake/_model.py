"""The simulated model: turn a scenario's :class:`Reply` into the Message the API returns.

The request shapes the reply the way the real API does (reference sections 2 and 3.4):

- thinking blocks appear only when the request turns thinking on (``enabled`` or ``adaptive``);
  with adaptive thinking and a forced tool, thinking is skipped;
- ``tool_choice``: ``none`` removes tool calls (the model answers in text), ``any``/``tool``
  force a call and drop text before it (the API prefills the call), ``tool`` forces that tool;
  ``disable_parallel_tool_use`` keeps the first call; a call to a tool the request does not
  define is not made (the model can only call tools it was given);
- text blocks after the ``tool_result`` blocks in the last user turn give an empty ``end_turn``
  reply, as the seeds and the reference describe (seed 000, reference section 2);
- ``stop_sequences``: the reply stops before the first one generated, ``stop_sequence`` is set;
- ``max_tokens``: output is cut at the budget, inside a ``tool_use`` block when that is where
  the cut falls, leaving partial JSON (non-streaming ``input`` is what the SDK's partial JSON
  parser makes of it, so JSON and SSE give the same final Message);
- the context window: on models with ``context_window_stop`` generation that fills the window
  stops with ``model_context_window_exceeded``;
- structured outputs (``output_config.format`` of type ``json_schema``, or the beta's top-level
  ``output_format``): the answer's text becomes one text block of JSON valid under the schema,
  made by :mod:`~agentlab.fake._schema_values` from the prompt, on every scenario (a scripted
  final text is replaced); a turn that calls tools keeps no text blocks, so ``messages.parse``
  never meets free text (unknown: the fake's choice); a refusal keeps its text, and a
  ``max_tokens`` cut leaves the JSON incomplete, as the structured-outputs docs warn.

Ids come from the run's :class:`~agentlab.fake._ids.IdFactory`; thinking signatures from
:func:`~agentlab.fake._thinking.sign`.
"""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass, field
from typing import Any

import jiter

from ._context import RequestContext
from ._ids import IdFactory
from ._replies import Reply, is_client_tool
from ._schema_values import tool_input, value_for
from ._thinking import redacted_data, sign
from ._tokens import TOOL_USE_OVERHEAD, block_output_tokens, canonical_json, text_tokens

__all__ = ["Generated", "generate", "output_schema", "EMPTY_REPLY_OUTPUT_TOKENS"]

EMPTY_REPLY_OUTPUT_TOKENS = 3
"""Output tokens of an empty ``end_turn`` reply ("~2-3 output tokens", reference section 2)."""

DEFAULT_THOUGHT = "Let me work out what the user needs and which step comes next."
"""The thinking the model does under ``thinking.type = "enabled"`` when the reply brings none."""


@dataclass
class Generated:
    """A generated Message plus what the SSE encoder needs to stream it faithfully."""

    message: dict[str, Any]
    """The Message JSON (``type: "message"``)."""
    partial_json: dict[int, str] = field(default_factory=dict)
    """For blocks cut mid-input: block index -> the JSON text generated before the cut."""


def _thinking_on(body: dict[str, Any]) -> bool:
    thinking = body.get("thinking")
    return isinstance(thinking, dict) and thinking.get("type") in ("enabled", "adaptive")


def _tool_names(body: dict[str, Any]) -> tuple[set[str], set[str]]:
    """(client tool names, server tool names) defined by the request."""
    client, server = set(), set()
    for tool in body.get("tools") or []:
        if not isinstance(tool, dict) or not isinstance(tool.get("name"), str):
            continue
        if is_client_tool(tool):  # custom tools and Anthropic-defined client tools (bash, text_editor...)
            client.add(tool["name"])
        else:
            server.add(tool["name"])
    return client, server


def _first_user_text(body: dict[str, Any]) -> str:
    """The text of the first user message (the task), for meaningful generated values."""
    messages = body.get("messages") if isinstance(body.get("messages"), list) else []
    first = next((m for m in messages if isinstance(m, dict) and m.get("role") == "user"), {})
    content = first.get("content")
    if isinstance(content, str):
        return content[:2_000]
    if isinstance(content, list):
        return " ".join(b["text"] for b in content if isinstance(b, dict) and isinstance(b.get("text"), str))[:2_000]
    return ""


def _tool_result_text(body: dict[str, Any]) -> str:
    """The text of every ``tool_result`` in the conversation, joined (first 4,000 characters),
    so structured outputs can use what the tools returned (a ``temp`` after "20C")."""
    messages = body.get("messages") if isinstance(body.get("messages"), list) else []
    parts: list[str] = []
    for message in messages:
        content = message.get("content") if isinstance(message, dict) and message.get("role") == "user" else None
        for block in content if isinstance(content, list) else []:
            if not isinstance(block, dict) or block.get("type") != "tool_result" or block.get("is_error"):
                continue
            inner = block.get("content")
            if isinstance(inner, str):
                parts.append(inner)
            elif isinstance(inner, list):
                parts += [b["text"] for b in inner if isinstance(b, dict) and isinstance(b.get("text"), str)]
    return "\n".join(parts)[:4_000]


def output_schema(body: dict[str, Any]) -> dict[str, Any] | None:
    """The JSON schema the request asks the answer to follow, or None: ``output_config.format``
    with ``type: "json_schema"`` (SDK ``OutputConfigParam``/``JSONOutputFormatParam``; what
    ``messages.parse(output_format=Model)`` sends), else the beta's top-level ``output_format``."""
    config = body.get("output_config")
    fmt = config.get("format") if isinstance(config, dict) else None
    if fmt is None:
        fmt = body.get("output_format")
    if isinstance(fmt, dict) and fmt.get("type") == "json_schema" and isinstance(fmt.get("schema"), dict):
        return fmt["schema"]
    return None


def structured_text(schema: dict[str, Any], body: dict[str, Any], seed: str) -> str:
    """The JSON text (valid under ``schema``) the model answers with under structured outputs."""
    prompt = _first_user_text(body)
    value = value_for(schema, seed=f"{seed}/{prompt}", words=prompt, results=_tool_result_text(body))
    return json.dumps(value, ensure_ascii=False)


def _structured(blocks: list[dict[str, Any]], stop_reason: str | None, body: dict[str, Any],
                seed: str) -> list[dict[str, Any]]:
    """Blocks under structured outputs (see the module docstring); unchanged without a schema."""
    schema = output_schema(body)
    if schema is None or stop_reason == "refusal":
        return blocks
    if any(b.get("type") in ("tool_use", "server_tool_use") for b in blocks) or stop_reason == "pause_turn":
        return [b for b in blocks if b.get("type") != "text"]
    kept = [b for b in blocks if b.get("type") != "text"]
    return [*kept, {"type": "text", "text": structured_text(schema, body, seed)}]


def _last_user_has_text_after_results(messages: list[Any]) -> bool:
    if not messages or not isinstance(messages[-1], dict) or messages[-1].get("role") != "user":
        return False
    content = messages[-1].get("content")
    if not isinstance(content, list):
        return False
    kinds = [b.get("type") for b in content if isinstance(b, dict)]
    if "tool_result" not in kinds:
        return False
    last_result = max(i for i, k in enumerate(kinds) if k == "tool_result")
    return any(k == "text" for k in kinds[last_result + 1 :])


def _shape(reply: Reply, body: dict[str, Any]) -> tuple[list[dict[str, Any]], str | None, dict | None]:
    """Apply thinking, tool availability and ``tool_choice`` to the reply's blocks."""
    blocks = [copy.deepcopy(b) for b in reply.content]
    stop_reason, stop_details = reply.stop_reason, reply.stop_details
    client_tools, server_tools = _tool_names(body)
    choice = body.get("tool_choice") if isinstance(body.get("tool_choice"), dict) else {}
    choice_type = choice.get("type", "auto")
    forced = choice_type in ("any", "tool")
    server_forced = (choice.get("name") in server_tools if choice_type == "tool"
                     else choice_type == "any" and not client_tools and bool(server_tools))

    if not _thinking_on(body) or forced:
        blocks = [b for b in blocks if b.get("type") not in ("thinking", "redacted_thinking")]
    elif body["thinking"].get("type") == "enabled" and not any(b.get("type") == "thinking" for b in blocks):
        # Manual thinking always thinks first (an assistant turn must start with a thinking block).
        blocks.insert(0, {"type": "thinking", "thinking": DEFAULT_THOUGHT})

    # The model only calls tools the request defines.
    missing = [b["name"] for b in blocks if b.get("type") == "tool_use" and b.get("name") not in client_tools]
    missing += [b["name"] for b in blocks if b.get("type") == "server_tool_use" and b.get("name") not in server_tools]
    if missing:
        blocks = [
            b for b in blocks
            if not (b.get("type") in ("tool_use", "server_tool_use") and b.get("name") in missing)
            and not b.get("type", "").endswith("_tool_result")
        ]
        blocks.append({"type": "text", "text": f"I can't do that without the {missing[0]} tool."})
        if stop_reason == "pause_turn":
            stop_reason = None

    if stop_reason == "refusal":
        # A refusal holds partial (possibly empty) text and stop_details, never a completed tool
        # call (reference section 2); under a forced tool_choice nothing precedes the call the
        # classifier stopped, so nothing is left.
        blocks = [] if forced else [b for b in blocks if b.get("type") not in ("tool_use", "server_tool_use")]
    elif choice_type == "none":
        calls = [b for b in blocks if b.get("type") == "tool_use"]
        blocks = [b for b in blocks if b.get("type") != "tool_use"]
        if calls and not any(b.get("type") == "text" for b in blocks):
            blocks.append({"type": "text", "text": f"I would call {calls[0]['name']} next, but tool use is turned off for this request."})
    elif forced and server_forced:
        # Forcing a server tool (or ``any`` with only server tools): the model runs the server
        # tool (server_tool_use + its result, then text), never a client tool_use (reference 1.2,
        # section 2); the API prefills the call, so no text before it. A reply without that server
        # call (a server tool the fake does not run) keeps its text: never an empty turn.
        first = next((i for i, b in enumerate(blocks) if b.get("type") == "server_tool_use"
                      and (choice_type == "any" or b.get("name") == choice.get("name"))), None)
        if first is not None:
            blocks = blocks[first:]
        elif not any(b.get("type") == "text" for b in blocks):
            blocks = [{"type": "text", "text": f"I can't run the {choice.get('name') or 'server'} tool here."}]
        else:
            blocks = [b for b in blocks if b.get("type") not in ("tool_use", "server_tool_use")
                      and not b.get("type", "").endswith("_tool_result")]
    elif forced:
        wanted = choice.get("name") if choice_type == "tool" else None
        calls = [b for b in blocks if b.get("type") == "tool_use" and (wanted is None or b.get("name") == wanted)]
        if not calls:
            name = wanted or next(
                (t["name"] for t in body.get("tools") or [] if isinstance(t, dict) and t.get("type") in (None, "custom")),
                None,
            )
            schema = next((t.get("input_schema") for t in body.get("tools") or [] if isinstance(t, dict) and t.get("name") == name), {})
            calls = [{"type": "tool_use", "name": name,
                      "input": tool_input(schema, seed=name, words=_first_user_text(body),
                                         results=_tool_result_text(body))}] if name else []
        blocks = calls  # the API prefills the call: no text before it
        if stop_reason in ("pause_turn", "end_turn"):
            stop_reason = None

    if choice.get("disable_parallel_tool_use"):
        first = next((i for i, b in enumerate(blocks) if b.get("type") == "tool_use"), None)
        if first is not None:
            blocks = blocks[: first + 1] + [b for b in blocks[first + 1 :] if b.get("type") != "tool_use"]
    return blocks, stop_reason, stop_details


def _assign_ids(blocks: list[dict[str, Any]], model: str, ids: IdFactory) -> list[dict[str, Any]]:
    """Give calls fresh ids, thinking blocks signatures, and result blocks the id of their call."""
    out: list[dict[str, Any]] = []
    last_server_id = None
    for n, block in enumerate(blocks):
        kind = block.get("type")
        if kind == "tool_use":
            out.append({"type": "tool_use", "id": ids.next("toolu"), "name": block["name"],
                        "input": block.get("input", {}), "caller": {"type": "direct"}})
        elif kind == "server_tool_use":
            last_server_id = ids.next("srvtoolu")
            out.append({"type": "server_tool_use", "id": last_server_id, "name": block["name"],
                        "input": block.get("input", {})})
        elif kind == "thinking":
            out.append({"type": "thinking", "thinking": block["thinking"], "signature": sign(model, block["thinking"])})
        elif kind == "redacted_thinking":
            out.append({"type": "redacted_thinking", "data": redacted_data(model, f"{ids.seed}/{n}/{len(out)}/{canonical_json(blocks)}")})
        elif kind == "text":
            out.append({"type": "text", "text": block.get("text", ""), "citations": None})
        elif isinstance(kind, str) and kind.endswith("_tool_result"):
            out.append({"type": kind, "tool_use_id": block.get("tool_use_id") or last_server_id,
                        "content": block.get("content", [])})
        else:
            out.append(dict(block))
    return out


def _cut(blocks: list[dict[str, Any]], budget: int) -> tuple[list[dict[str, Any]], int, bool, dict[int, str]]:
    """Keep what fits in ``budget`` output tokens. Returns (blocks, tokens used, cut?, partial JSON)."""
    kept: list[dict[str, Any]] = []
    partial: dict[int, str] = {}
    used = 0
    for block in blocks:
        cost = block_output_tokens(block)
        if used + cost <= budget:
            kept.append(block)
            used += cost
            continue
        remaining = budget - used
        kind = block.get("type")
        if remaining > 0 and kind == "text":
            kept.append({**block, "text": block["text"][: remaining * 4]})
        elif remaining > 0 and kind == "thinking":
            kept.append({**block, "thinking": block["thinking"][: remaining * 4], "signature": ""})
        elif remaining > 0 and kind in ("tool_use", "server_tool_use"):
            chars = max(0, remaining - TOOL_USE_OVERHEAD - text_tokens(block["name"])) * 4
            fragment = canonical_json(block.get("input", {}))[:chars]
            parsed = jiter.from_json(fragment.encode("utf-8", "backslashreplace"), partial_mode=True) if fragment else {}
            partial[len(kept)] = fragment
            kept.append({**block, "input": parsed if isinstance(parsed, dict) else {}})
        return kept, budget, True, partial
    return kept, used, False, partial


def _apply_stop_sequences(blocks: list[dict[str, Any]], sequences: Any) -> tuple[list[dict[str, Any]], str | None]:
    if not isinstance(sequences, list):
        return blocks, None
    sequences = [s for s in sequences if isinstance(s, str) and s]
    for i, block in enumerate(blocks):
        if block.get("type") != "text":
            continue
        hits = [(block["text"].find(s), s) for s in sequences if s in block["text"]]
        if hits:
            pos, seq = min(hits)
            head = block["text"][:pos]
            return blocks[:i] + ([{**block, "text": head}] if head else []), seq
    return blocks, None


def generate(
    reply: Reply,
    ctx: RequestContext,
    *,
    ids: IdFactory,
    input_tokens: int,
    cache_creation: int = 0,
    cache_read: int = 0,
) -> Generated:
    """Build the Message JSON for ``reply`` answering the (validated) request in ``ctx``.

    Args:
        reply: the scenario's reply at this point of the conversation.
        ctx: the validated request (full conversation, thread continuations expanded).
        ids: the run's id factory (``msg_``, ``toolu_``, ``srvtoolu_``).
        input_tokens: uncached input tokens to report.
        cache_creation: tokens written to the prompt cache.
        cache_read: tokens read from the prompt cache.

    Returns:
        A :class:`Generated` with the Message and any partial JSON of a cut block.
    """
    body = ctx.body
    spec = ctx.model
    model = spec.id if spec else body["model"]  # an alias answers with (and signs for) its dated id: _models
    if _last_user_has_text_after_results(ctx.messages):
        blocks, stop_reason, stop_details = [], "end_turn", None
    else:
        blocks, stop_reason, stop_details = _shape(reply, body)
        blocks = _structured(blocks, stop_reason, body, ids.seed)
    blocks = _assign_ids(blocks, model, ids)

    blocks, matched = _apply_stop_sequences(blocks, body.get("stop_sequences"))
    max_tokens = int(body.get("max_tokens") or 0)
    total_input = input_tokens + cache_creation + cache_read
    window_room = ctx.context_window - total_input
    window_binds = spec is not None and spec.context_window_stop and window_room < max_tokens
    budget = max(0, window_room) if window_binds else max_tokens
    blocks, used, was_cut, partial = _cut(blocks, budget)

    if was_cut:
        stop_reason, stop_details, matched = (
            "model_context_window_exceeded" if window_binds else "max_tokens"
        ), None, None
    elif matched is not None:
        stop_reason, stop_details = "stop_sequence", None
    elif stop_reason is None or (stop_reason == "pause_turn" and not any(b["type"] == "server_tool_use" for b in blocks)):
        stop_reason = "tool_use" if any(b["type"] == "tool_use" for b in blocks) else "end_turn"
    elif stop_reason == "end_turn" and any(b["type"] == "tool_use" for b in blocks):
        stop_reason = "tool_use"

    if not blocks and not was_cut:
        used = EMPTY_REPLY_OUTPUT_TOKENS
    usage: dict[str, Any] = {
        "input_tokens": input_tokens,
        "cache_creation_input_tokens": cache_creation,
        "cache_read_input_tokens": cache_read,
        "cache_creation": {"ephemeral_5m_input_tokens": cache_creation, "ephemeral_1h_input_tokens": 0},
        "output_tokens": used,
        "service_tier": "standard",
    }
    searches = sum(1 for b in blocks if b["type"] == "server_tool_use" and b["name"] == "web_search")
    fetches = sum(1 for b in blocks if b["type"] == "server_tool_use" and b["name"] == "web_fetch")
    if searches or fetches:
        usage["server_tool_use"] = {"web_search_requests": searches, "web_fetch_requests": fetches}
    message = {
        "id": ids.next("msg"),
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": blocks,
        "stop_reason": stop_reason,
        "stop_sequence": matched,
        "stop_details": stop_details if stop_reason == "refusal" else None,
        "usage": usage,
    }
    return Generated(message=message, partial_json=partial)
