"""Server-sent events for ``messages.stream`` / ``stream=True`` (reference section 4).

A Message is streamed as ``message_start`` (content empty, ``stop_reason`` null), one ``ping``,
then for each block ``content_block_start`` (a shell), deltas and ``content_block_stop``, then
``message_delta`` (stop reason, stop sequence, stop details, cumulative usage) and
``message_stop``. Every event has an ``event:`` line whose name equals the JSON ``type``.

Text streams in chunks of up to :data:`TEXT_CHUNK` characters; tool input streams as raw JSON
fragments starting with an empty ``partial_json`` (as real streams do); thinking streams as
``thinking_delta`` chunks followed by one ``signature_delta``; server tool result blocks and
``redacted_thinking`` arrive whole in their start event. A block cut by ``max_tokens`` streams
only the JSON generated before the cut, which the SDK's partial parser turns into the same
``input`` the non-streaming response carries.
"""

from __future__ import annotations

import json
from typing import Any, Iterator

from ._tokens import canonical_json

__all__ = ["message_events", "encode_events", "encode_json", "error_event", "TEXT_CHUNK", "JSON_CHUNK"]

TEXT_CHUNK = 24
JSON_CHUNK = 16


def _chunks(value: str, size: int) -> list[str]:
    return [value[i : i + size] for i in range(0, len(value), size)]


def _block_events(index: int, block: dict[str, Any], partial_json: str | None) -> Iterator[dict[str, Any]]:
    kind = block["type"]
    if kind == "text":
        yield {"type": "content_block_start", "index": index, "content_block": {"type": "text", "text": "", "citations": None}}
        for piece in _chunks(block["text"], TEXT_CHUNK):
            yield {"type": "content_block_delta", "index": index, "delta": {"type": "text_delta", "text": piece}}
    elif kind in ("tool_use", "server_tool_use"):
        shell = {**block, "input": {}}
        yield {"type": "content_block_start", "index": index, "content_block": shell}
        raw = partial_json if partial_json is not None else canonical_json(block["input"])
        for piece in ["", *_chunks(raw, JSON_CHUNK)]:
            yield {"type": "content_block_delta", "index": index, "delta": {"type": "input_json_delta", "partial_json": piece}}
    elif kind == "thinking":
        yield {"type": "content_block_start", "index": index, "content_block": {"type": "thinking", "thinking": "", "signature": ""}}
        for piece in _chunks(block["thinking"], TEXT_CHUNK):
            yield {"type": "content_block_delta", "index": index, "delta": {"type": "thinking_delta", "thinking": piece}}
        yield {"type": "content_block_delta", "index": index, "delta": {"type": "signature_delta", "signature": block["signature"]}}
    else:  # redacted_thinking and server tool results arrive complete
        yield {"type": "content_block_start", "index": index, "content_block": block}
    yield {"type": "content_block_stop", "index": index}


def message_events(message: dict[str, Any], partial_json: dict[int, str] | None = None) -> list[dict[str, Any]]:
    """The stream of events for a Message JSON, as dicts (each has ``type``)."""
    partial_json = partial_json or {}
    usage = dict(message["usage"])
    start_usage = {**usage, "output_tokens": 1 if usage["output_tokens"] else 0}
    start = {**message, "content": [], "stop_reason": None, "stop_sequence": None, "stop_details": None, "usage": start_usage}
    events: list[dict[str, Any]] = [{"type": "message_start", "message": start}, {"type": "ping"}]
    for index, block in enumerate(message["content"]):
        events.extend(_block_events(index, block, partial_json.get(index)))
    delta_usage = {k: usage[k] for k in ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens", "output_tokens") if k in usage}
    if "server_tool_use" in usage:
        delta_usage["server_tool_use"] = usage["server_tool_use"]
    events.append({
        "type": "message_delta",
        "delta": {"stop_reason": message["stop_reason"], "stop_sequence": message["stop_sequence"], "stop_details": message.get("stop_details")},
        "usage": delta_usage,
    })
    events.append({"type": "message_stop"})
    return events


def error_event(error_type: str = "overloaded_error", message: str = "Overloaded") -> dict[str, Any]:
    """The ``error`` event sent after HTTP 200 on a mid-stream fault (reference rule 35)."""
    return {"type": "error", "error": {"type": error_type, "message": message}}


def _json_text(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def encode_json(value: Any) -> bytes:
    """Compact JSON as UTF-8, the bytes ``httpx2.Response(json=...)`` would send, except that a
    lone surrogate (which a request may carry as ``"\\ud800"`` and a reply may echo, and which
    UTF-8 cannot encode) is written as its JSON escape ``\\ud800``, so every reply can be read.

    Raises:
        ValueError: for a non-finite float (NaN, Infinity are not JSON; request bodies with them
            are rejected before any reply is made, ``_rules``).
    """
    # A surrogate can only occur inside a JSON string, and "backslashreplace" writes it as
    # \uXXXX (4 hex digits: surrogates are below U+10000), which is that string's JSON escape.
    return _json_text(value).encode("utf-8", "backslashreplace")


def encode_events(events: list[dict[str, Any]]) -> bytes:
    """``event: <type>\\ndata: <json>\\n\\n`` for each event, UTF-8 (lone surrogates escaped as in
    :func:`encode_json`)."""
    return "".join(
        f"event: {event['type']}\ndata: {_json_text(event)}\n\n" for event in events
    ).encode("utf-8", "backslashreplace")
