"""Simulated prompt caching, so usage carries real cache numbers (reference 1.3).

A request caches the prefix that ends at its last ``cache_control`` breakpoint: a block (in
``tools``, ``system`` or ``messages``) that carries ``cache_control``, or, with the top-level
``cache_control`` parameter (automatic caching), the last block of the last message. Prefixes
shorter than :data:`MIN_CACHEABLE_TOKENS` are not cached, as on the real API.

Like the real API, a request reads the longest prefix already in the cache, looking back from
its breakpoint over the earlier breakpoints and message boundaries (so an agent loop that
moves its breakpoint forward every turn reads the previous turn's prefix and writes only the
new part). Usage then reports ``cache_read_input_tokens`` for what was read,
``cache_creation_input_tokens`` for what was written, and ``input_tokens`` for the rest; the
three add up to the request's total input (the documented invariant). Entries never expire
by time within one scenario run (the 5-minute TTL is longer than any lesson's run); the cache
keeps its :data:`CACHE_ENTRIES` most recently written or read prefixes (the fake's choice, so a
long-lived client's memory stays flat), so only a prefix unused for that many others is missed.
"""

from __future__ import annotations

import hashlib
import json
from collections import OrderedDict
from typing import Any

from ._tokens import count_input_tokens

__all__ = ["PromptCache", "MIN_CACHEABLE_TOKENS", "CACHE_ENTRIES"]

CACHE_ENTRIES = 1000
"""How many cached prefixes one run keeps, least recently used dropped first (unknown: the
fake's choice; the real cache's capacity is not documented, only its 5-minute TTL)."""

MIN_CACHEABLE_TOKENS = 1024
"""Shortest cacheable prefix in tokens (the real minimum for most models)."""

Position = tuple[int, int, int]
"""(section, item, block): section 0 tools, 1 system, 2 messages; a prefix ends after it."""


def _strip(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _strip(v) for k, v in value.items() if k != "cache_control"}
    if isinstance(value, list):
        return [_strip(v) for v in value]
    return value


def _blocks(content: Any) -> list[Any]:
    if isinstance(content, list):
        return content
    return [{"type": "text", "text": content}] if isinstance(content, str) and content else []


def _prefix(body: dict[str, Any], pos: Position) -> dict[str, Any]:
    """The request cut after ``pos``: what a cache entry ending there holds."""
    section, item, block = pos
    tools = body.get("tools") or []
    system = body.get("system")
    messages = body.get("messages") or []
    out: dict[str, Any] = {"model": body.get("model")}
    if section == 0:
        out["tools"] = tools[: item + 1]
        return out
    out["tools"] = tools
    if section == 1:
        out["system"] = _blocks(system)[: item + 1]
        return out
    out["system"] = system
    kept = list(messages[:item])
    last = messages[item]
    kept.append({**last, "content": _blocks(last.get("content"))[: block + 1]})
    out["messages"] = kept
    return out


def _breakpoints(body: dict[str, Any]) -> list[Position]:
    points: list[Position] = []
    for i, tool in enumerate(body.get("tools") or []):
        if isinstance(tool, dict) and tool.get("cache_control"):
            points.append((0, i, 0))
    system = body.get("system")
    if isinstance(system, list):
        points += [(1, i, 0) for i, b in enumerate(system) if isinstance(b, dict) and b.get("cache_control")]
    messages = body.get("messages") or []
    for i, message in enumerate(messages):
        content = message.get("content") if isinstance(message, dict) else None
        if isinstance(content, list):
            points += [(2, i, j) for j, b in enumerate(content) if isinstance(b, dict) and b.get("cache_control")]
    if body.get("cache_control") and messages and isinstance(messages[-1], dict):
        last = messages[-1]
        points.append((2, len(messages) - 1, max(0, len(_blocks(last.get("content"))) - 1)))
    return sorted(set(points))


class PromptCache:
    """The cache of one scenario run: prefix fingerprint -> its token count."""

    def __init__(self) -> None:
        self._entries: OrderedDict[str, int] = OrderedDict()

    @staticmethod
    def _key(prefix: dict[str, Any]) -> str:
        text = json.dumps(_strip(prefix), sort_keys=True, ensure_ascii=False, separators=(",", ":"))
        return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()  # a lone surrogate too

    def apply(self, body: dict[str, Any], total: int, *, marked: bool = True) -> tuple[int, int, int]:
        """Split a request's ``total`` input tokens into (input, cache creation, cache read), and
        remember what it wrote.

        Args:
            body: the validated request, whole conversation.
            total: ``count_input_tokens(body)``.
            marked: False when the caller knows no ``cache_control`` can occur in ``body`` (its raw
                JSON has neither the key nor any ``\\u`` escape): nothing to look for (speed).

        Returns:
            ``(input_tokens, cache_creation_input_tokens, cache_read_input_tokens)``.
        """
        points = _breakpoints(body) if marked else []
        if not points:
            return total, 0, 0
        last = points[-1]
        candidates = set(points)
        candidates |= {(2, i, max(0, len(_blocks(m.get("content"))) - 1))
                       for i, m in enumerate(body.get("messages") or []) if isinstance(m, dict)}
        candidates = {p for p in candidates if p <= last}
        measured = {p: (self._key(_prefix(body, p)), count_input_tokens(_prefix(body, p))) for p in candidates}
        cached_tokens = min(measured[last][1], total)
        if cached_tokens < MIN_CACHEABLE_TOKENS:
            return total, 0, 0
        hits = [(key, tokens) for key, tokens in measured.values() if key in self._entries]
        read = min(max((tokens for _, tokens in hits), default=0), cached_tokens)
        for key, _ in hits:
            self._entries.move_to_end(key)  # a read refreshes an entry, as on the real API
        for p in points:
            key, tokens = measured[p]
            if tokens >= MIN_CACHEABLE_TOKENS:
                self._entries[key] = tokens
                self._entries.move_to_end(key)
        while len(self._entries) > CACHE_ENTRIES:
            self._entries.popitem(last=False)
        return total - cached_tokens, cached_tokens - read, read
