"""Deterministic token counting.

The fake counts tokens with a fixed rule instead of a tokenizer, so every number is
reproducible and easy to explain in a lesson:

- text of any kind: ``ceil(characters / 4)`` (an empty string is 0);
- each message: 4 tokens of framing; the request: 3;
- ``system``: its text; each tool: ``ceil(len(canonical JSON) / 4)``; a request with tools adds
  the 300-token tool-use system prompt (the real API adds a few hundred, reference 5);
- ``tool_use`` / ``server_tool_use`` blocks: name plus canonical JSON of ``input`` plus 8;
- ``tool_result``: its content plus 8; images and documents: a flat 400;
- thinking blocks count only in the assistant turn of the tool loop in progress: thinking from
  earlier, completed turns is ignored by the API for context (reference 3.3 and 5).

``count_tokens`` returns exactly the ``input_tokens`` the same request would report
(reference rule 36), because both call :func:`count_input_tokens`.
"""

from __future__ import annotations

import json
import math
from typing import Any, Sequence

__all__ = [
    "text_tokens",
    "json_tokens",
    "count_input_tokens",
    "block_output_tokens",
    "TOOL_USE_OVERHEAD",
    "TOOLS_SYSTEM_PROMPT",
    "MESSAGE_OVERHEAD",
    "REQUEST_OVERHEAD",
]

MESSAGE_OVERHEAD = 4
REQUEST_OVERHEAD = 3
TOOLS_SYSTEM_PROMPT = 300
TOOL_USE_OVERHEAD = 8
_MEDIA = 400


def text_tokens(text: str | None) -> int:
    """Tokens in a string: ``ceil(len / 4)``; None is 0, and any other non-string (a malformed
    block's ``"text": 5``) counts as its JSON."""
    if text is None or isinstance(text, str):
        return math.ceil(len(text or "") / 4)
    return json_tokens(text)


def canonical_json(value: Any) -> str:
    """The JSON text the fake counts and streams for a value (compact, keys in given order)."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def json_tokens(value: Any) -> int:
    """Tokens of the canonical JSON of ``value``."""
    return text_tokens(canonical_json(value))


def _content_tokens(content: Any, *, count_thinking: bool) -> int:
    if content is None:
        return 0
    if isinstance(content, str):
        return text_tokens(content)
    if not isinstance(content, list):
        return json_tokens(content)
    return sum(_block_tokens(b, count_thinking=count_thinking) for b in content)


def _block_tokens(block: Any, *, count_thinking: bool) -> int:
    if not isinstance(block, dict):
        return json_tokens(block)
    kind = block.get("type")
    if kind == "text":
        return text_tokens(block.get("text"))
    if kind in ("tool_use", "server_tool_use"):
        return text_tokens(block.get("name")) + json_tokens(block.get("input", {})) + TOOL_USE_OVERHEAD
    if kind == "tool_result":
        return _content_tokens(block.get("content"), count_thinking=count_thinking) + TOOL_USE_OVERHEAD
    if kind == "thinking":
        return text_tokens(block.get("thinking")) if count_thinking else 0
    if kind == "redacted_thinking":
        return text_tokens(block.get("data")) if count_thinking else 0
    if kind in ("image", "document"):
        return _MEDIA
    if kind == "search_result":
        return text_tokens(block.get("title")) + _content_tokens(block.get("content"), count_thinking=count_thinking)
    # server tool results and anything else: their JSON
    return json_tokens({k: v for k, v in block.items() if k != "cache_control"})


def system_tokens(system: Any) -> int:
    """Tokens of the top-level ``system`` parameter (a string or a list of text blocks)."""
    return _content_tokens(system, count_thinking=False)


def tools_tokens(tools: Any) -> int:
    """Tokens of the ``tools`` list, including the tool-use system prompt when non-empty."""
    if not tools:
        return 0
    return TOOLS_SYSTEM_PROMPT + sum(json_tokens(t) for t in tools)


def message_tokens(message: Any, *, count_thinking: bool) -> int:
    """Tokens of one message, framing included."""
    if not isinstance(message, dict):
        return MESSAGE_OVERHEAD
    return MESSAGE_OVERHEAD + _content_tokens(message.get("content"), count_thinking=count_thinking)


def count_input_tokens(body: dict[str, Any], *, known: Sequence[int | None] = (),
                       out: list[int | None] | None = None) -> int:
    """Total input tokens of a request body (``system``, ``tools``, ``messages``), before caching.

    Args:
        body: the parsed request body of ``/v1/messages`` or ``/v1/messages/count_tokens``,
            with the full conversation (thread continuations already expanded).
        known: counts already made for the leading messages (thinking not counted), reused
            instead of walking those messages again (``_context.PrefixMemo``); None entries and
            the open turn's message are counted afresh.
        out: if given, filled with each message's count with thinking not counted (None for the
            open turn's message), for the next request's ``known``.

    Returns:
        The count in tokens.
    """
    messages = body.get("messages") or []
    open_turn = _open_turn(messages)
    total = REQUEST_OVERHEAD + system_tokens(body.get("system")) + tools_tokens(body.get("tools"))
    if out is not None:
        out.clear()
    for i, message in enumerate(messages):
        if i == open_turn:
            total += message_tokens(message, count_thinking=True)
            if out is not None:
                out.append(None)
            continue
        count = known[i] if i < len(known) else None
        if count is None:
            count = message_tokens(message, count_thinking=False)
        total += count
        if out is not None:
            out.append(count)
    return total


def _open_turn(messages: list[Any]) -> int:
    """Index of the assistant message of the tool loop in progress, whose thinking counts: the
    final message when it is an assistant turn, or the assistant turn answered by a final user
    message of ``tool_result`` blocks; -1 when the conversation has no open turn (thinking
    from completed turns is ignored, reference 3.3 and 5)."""
    if not messages or not isinstance(messages[-1], dict):
        return -1
    last = messages[-1]
    if last.get("role") == "assistant":
        return len(messages) - 1
    content = last.get("content")
    first = content[0] if isinstance(content, list) and content else None
    if last.get("role") == "user" and isinstance(first, dict) and first.get("type") == "tool_result":
        for i in range(len(messages) - 2, -1, -1):
            if isinstance(messages[i], dict) and messages[i].get("role") == "assistant":
                return i
    return -1


def block_output_tokens(block: dict[str, Any]) -> int:
    """Output tokens the fake model spends to generate ``block`` (a response content block)."""
    return _block_tokens(block, count_thinking=True)
