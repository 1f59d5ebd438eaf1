"""Scripted replies of the simulated model, and the small builders that make them.

A :class:`Reply` is what the model "wants" to say at one point of a conversation: content blocks
without ids (the fake assigns ``toolu_``/``srvtoolu_`` ids and thinking signatures when it issues
the reply) and, optionally, an explicit stop reason. The request then shapes it the way the real
API would (``max_tokens`` cuts, ``stop_sequences``, ``tool_choice``, thinking on or off): see
``_model.py``. A reply may also carry a :class:`Fault`: an HTTP error (429, 500, 529) answered
instead of the reply for the first ``times`` attempts at that point, or an ``error`` event in
the middle of a stream.

Builders::

    text("It's sunny.")                                   # end_turn
    tool_use("get_weather", {"city": "Austin"})           # tool_use
    tool_use("get_weather", {"city": "Austin"}, text="Let me check.")   # text + tool_use
    tool_uses(("get_weather", {"city": "Paris"}), ("get_weather", {"city": "Rome"}))  # parallel
    thinking("The user wants...", tool_use(...))          # a thinking block first
    server_tool_use("web_search", {"query": "..."})       # pause_turn with a server tool
    refusal("I can't help with that.", category="cyber")  # refusal with stop_details
    fault(529, times=2, then=text("..."))                 # HTTP 529 twice, then the reply
    stream_error(then=text("..."), after_events=4)        # SSE error event mid-stream
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, replace
from typing import Any, Literal

__all__ = [
    "Reply",
    "Fault",
    "text",
    "tool_use",
    "tool_uses",
    "thinking",
    "redacted_thinking",
    "server_tool_use",
    "web_search",
    "unsupported_server_tool",
    "server_tool_kind",
    "SIMULATED_SERVER_TOOLS",
    "refusal",
    "fault",
    "stream_error",
    "reply",
    "FAULT_TEXTS",
]

FAULT_TEXTS: dict[int, tuple[str, str]] = {
    429: ("rate_limit_error", "Number of request tokens has exceeded your per-minute rate limit"),
    500: ("api_error", "Internal server error"),
    529: ("overloaded_error", "Overloaded"),
}
"""HTTP status -> (``error.type``, message) of injected faults (reference rule 34)."""


@dataclass(frozen=True, kw_only=True)
class Fault:
    """An injected failure at one point of a scenario.

    ``kind="http"``: answer HTTP ``status`` instead of the reply for the first ``times`` attempts
    at this point of the conversation (the SDK retries 429/5xx; each attempt is journaled).
    ``kind="stream"``: for streaming requests, send ``after_events`` events of the reply and then
    an ``error`` event (``overloaded_error``), for the first ``times`` attempts; the SDK raises
    a generic ``APIStatusError`` with status 200 and does not retry (reference 4.2, rule 35).
    Non-streaming requests at that point get the reply.
    """

    kind: Literal["http", "stream"]
    status: int = 529
    times: int = 1
    after_events: int = 3


@dataclass(frozen=True, kw_only=True)
class Reply:
    """One reply of the simulated model, before the request shapes it."""

    content: tuple[dict[str, Any], ...] = ()
    """Response blocks without ids or signatures (the fake adds them when it issues the reply)."""
    stop_reason: str | None = None
    """Explicit stop reason (``pause_turn``, ``refusal``, ``end_turn``...); None means derived:
    ``tool_use`` when a client ``tool_use`` block is present, else ``end_turn``."""
    stop_details: dict[str, Any] | None = None
    """``stop_details`` for a refusal."""
    fault: Fault | None = None
    """A fault injected at this point, before the reply is given."""

    def with_fault(self, fault: Fault) -> "Reply":
        """This reply, preceded by ``fault``."""
        return replace(self, fault=fault)


def _text_block(value: str) -> dict[str, Any]:
    return {"type": "text", "text": value}


def reply(*blocks: dict[str, Any], stop_reason: str | None = None, stop_details: dict | None = None) -> Reply:
    """A reply from raw response blocks (without ids), for shapes the other builders don't cover."""
    return Reply(content=tuple(blocks), stop_reason=stop_reason, stop_details=stop_details)


def text(value: str) -> Reply:
    """A text-only reply (``end_turn``)."""
    return Reply(content=(_text_block(value),))


def tool_use(name: str, input: dict[str, Any] | None = None, *, text: str | None = None) -> Reply:
    """One client tool call, optionally preceded by a text block (``stop_reason: tool_use``)."""
    return tool_uses((name, input or {}), text=text)


def tool_uses(*calls: tuple[str, dict[str, Any]], text: str | None = None) -> Reply:
    """Several client tool calls in one assistant turn (parallel tool use)."""
    blocks: list[dict[str, Any]] = [_text_block(text)] if text else []
    blocks += [{"type": "tool_use", "name": name, "input": dict(args)} for name, args in calls]
    return Reply(content=tuple(blocks))


def thinking(thought: str, then: Reply) -> Reply:
    """``then`` with a thinking block first. Thinking appears only when the request turns thinking on."""
    return replace(then, content=({"type": "thinking", "thinking": thought}, *then.content))


def redacted_thinking(then: Reply) -> Reply:
    """``then`` with a ``redacted_thinking`` block first (opaque data issued by the fake)."""
    return replace(then, content=({"type": "redacted_thinking"}, *then.content))


def server_tool_use(
    name: str = "web_search",
    input: dict[str, Any] | None = None,
    *,
    text: str | None = None,
    results: list[dict[str, Any]] | None = None,
    paused: bool = True,
) -> Reply:
    """A server tool call. With ``paused`` (default) the turn ends in ``pause_turn`` with the
    ``server_tool_use`` block last and no result (the server's own loop hit its limit); the loop
    must send the assistant turn back unchanged. With ``results``, a ``web_search_tool_result``
    block follows the call (``paused=False`` then gives a finished ``end_turn`` turn).
    """
    blocks: list[dict[str, Any]] = [_text_block(text)] if text else []
    blocks.append({"type": "server_tool_use", "name": name, "input": dict(input or {})})
    if results is not None:
        blocks.append({"type": f"{name}_tool_result", "content": list(results)})
    return Reply(content=tuple(blocks), stop_reason="pause_turn" if paused else None)


SIMULATED_SERVER_TOOLS = ("web_search",)
"""Server tools whose calls the fake can simulate (a ``server_tool_use`` plus its result block).
Other server tools (``web_fetch``, ``code_execution``, tool search...) are answered in text that
says the fake does not run them. Unknown: the fake's choice."""


def server_tool_kind(tool: dict[str, Any]) -> str | None:
    """The server tool ``tool`` is (``"web_search"``, ``"web_fetch"``, ``"code_execution"``,
    ``"tool_search"``), from its versioned ``type`` (``web_search_20250305``...), or None for a
    client tool (``custom``/no type) or an Anthropic-defined client tool (bash, text_editor,
    computer, memory: run by the caller, answered with ``tool_use``). Source: reference 1.2."""
    kind = tool.get("type") if isinstance(tool, dict) else None
    if not isinstance(kind, str):
        return None
    for prefix in ("web_search", "web_fetch", "code_execution", "tool_search_tool"):
        if kind.startswith(prefix + "_"):
            return "tool_search" if prefix == "tool_search_tool" else prefix
    return None


ANTHROPIC_CLIENT_TOOLS = ("bash", "text_editor", "computer", "memory")
"""Anthropic-defined tools the caller runs (versioned types such as ``bash_20250124``): the model
answers them with ``tool_use`` like custom tools (reference 1.2; the tool-use docs)."""


def is_client_tool(tool: Any) -> bool:
    """True for a tool the caller runs: a custom tool (no ``type`` or ``"custom"``) or an
    Anthropic-defined client tool (:data:`ANTHROPIC_CLIENT_TOOLS`); False for server tools, toolsets
    and anything else."""
    kind = tool.get("type") if isinstance(tool, dict) else None
    if kind is None or kind == "custom":
        return True
    return isinstance(kind, str) and any(kind.startswith(prefix + "_") for prefix in ANTHROPIC_CLIENT_TOOLS)


def web_search(query: str, *, answer: str | None = None) -> Reply:
    """A finished web search turn (``end_turn``): ``server_tool_use`` (name ``web_search``, input
    ``{"query": query}``), its ``web_search_tool_result`` with two deterministic
    ``web_search_result`` entries (``url``, ``title``, ``encrypted_content``, ``page_age``: the
    fields of ``anthropic.types.WebSearchResultBlock``), then a text answer that names them.
    The results are invented from the query (unknown: the fake's choice; no network)."""
    query = " ".join(query.split())[:200] or "(empty query)"
    slug = "-".join(re.findall(r"[a-z0-9]+", query.lower())[:8]) or "search"
    results = []
    for n, (site, what) in enumerate((("en.wikipedia.org/wiki", "Overview"), ("www.example.org/articles", "Latest"))):
        digest = hashlib.sha256(f"{n}\x00{query}".encode("utf-8", "surrogatepass")).hexdigest()[:48]
        results.append({"type": "web_search_result", "url": f"https://{site}/{slug}",
                        "title": f"{what}: {query[:80]}", "encrypted_content": f"Eq{digest}", "page_age": None})
    found = server_tool_use("web_search", {"query": query}, results=results, paused=False)
    said = answer or ("I searched the web for “" + query + "”. The top results: "
                      + "; ".join(f"{r['title']} ({r['url']})" for r in results) + ".")
    return Reply(content=(*found.content, _text_block(said)), stop_reason=None)


def unsupported_server_tool(name: str) -> Reply:
    """Text saying the fake does not run the server tool ``name`` (instead of a wrong block)."""
    return text(f"I would use the {name} server tool here, but this simulated API does not run it, "
                "so I answered without it.")


def refusal(partial_text: str = "", *, category: str | None = "cyber", explanation: str | None = None) -> Reply:
    """A refusal: partial (possibly empty) text, ``stop_reason: refusal`` and ``stop_details``
    (reference section 2)."""
    blocks = (_text_block(partial_text),) if partial_text else ()
    return Reply(
        content=blocks,
        stop_reason="refusal",
        stop_details={"type": "refusal", "category": category, "explanation": explanation},
    )


def fault(status: int, *, times: int = 1, then: Reply) -> Reply:
    """``then``, preceded by HTTP ``status`` (429, 500 or 529) on the first ``times`` attempts."""
    if status not in FAULT_TEXTS:
        raise ValueError(f"fault status must be one of {sorted(FAULT_TEXTS)}, got {status}")
    return then.with_fault(Fault(kind="http", status=status, times=times))


def stream_error(*, then: Reply, times: int = 1, after_events: int = 3) -> Reply:
    """``then``, but a streaming request gets an ``error`` event after ``after_events`` events
    on the first ``times`` attempts."""
    return then.with_fault(Fault(kind="stream", times=times, after_events=after_events))
