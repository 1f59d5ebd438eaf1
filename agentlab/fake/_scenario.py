"""Scenarios: what the simulated model says, as scripted replies or as a policy function.

A :class:`Scenario` carries what a lesson needs to run a loop: its tools, system prompt, model,
a user prompt, a ``run_tool`` for its tools, and the model's side of the conversation.

The reply is chosen from the state of the conversation the request carries, never from how
many calls were made: scripted reply ``k`` answers a request that already holds ``k``
assistant turns. Re-sending the same request gets the same reply, as from a real model at
temperature 0, and the journal shows the repeat. Past the end of the script the last reply is
repeated.

A policy function gets a frozen :class:`Turn` describing the request and returns the next
:class:`~agentlab.fake._replies.Reply`, so the model can read tool results and decide
(pydantic-ai's ``FunctionModel``/``AgentInfo`` shape, STYLE.md section 2).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Callable

from ._context import ValidationOptions
from ._models import DEFAULT_MODEL
from ._replies import Reply

__all__ = ["Scenario", "Turn", "Policy", "RunTool", "SCAN_CHARS"]

RunTool = Callable[[str, dict], str]
"""``run_tool(name, tool_input) -> str``: runs one client tool; it may raise."""


@dataclass(frozen=True, kw_only=True)
class Turn:
    """What a policy function sees of one request (a frozen view; the conversation is complete,
    thread continuations already expanded)."""

    messages: tuple[dict[str, Any], ...]
    """The whole conversation as sent (dicts, SDK nulls included)."""
    index: int
    """How many assistant turns the conversation already holds (0 on the first request)."""
    model: str
    system: Any
    tools: tuple[dict[str, Any], ...]
    tool_choice: dict[str, Any] | None
    max_tokens: int | None
    thinking: Any = None
    """The request's ``thinking`` parameter as sent (``{"type": "adaptive"}``...), or None."""

    def tool_results(self) -> list[dict[str, Any]]:
        """The ``tool_result`` blocks of the last user message (empty if there are none)."""
        last = self.messages[-1] if self.messages else {}
        content = last.get("content") if last.get("role") == "user" else None
        if not isinstance(content, list):
            return []
        return [b for b in content if isinstance(b, dict) and b.get("type") == "tool_result"]

    def tool_result_texts(self) -> list[str]:
        """The text of each ``tool_result`` of the last user message, in order (each bounded to
        its first :data:`SCAN_CHARS` characters)."""
        return [_result_text(b) for b in self.tool_results()]

    def errors(self) -> list[str]:
        """The text of each ``tool_result`` of the last user message that has ``is_error: true``."""
        return [_result_text(b) for b in self.tool_results() if b.get("is_error")]

    def user_text(self) -> str:
        """The text of the first user message (the task), its first :data:`SCAN_CHARS` characters."""
        first = next((m for m in self.messages if m.get("role") == "user"), {})
        return _content_text(first.get("content"))

    def calls_so_far(self) -> list[tuple[str, dict[str, Any]]]:
        """Every client ``(tool name, input)`` the conversation's assistant turns hold, in order."""
        calls = []
        for message in self.messages:
            if message.get("role") == "assistant" and isinstance(message.get("content"), list):
                calls += [
                    (b.get("name"), b.get("input") or {})
                    for b in message["content"]
                    if isinstance(b, dict) and b.get("type") == "tool_use"
                ]
        return calls

    def consecutive_errors(self) -> int:
        """How many user turns in a row, counting back from the last, hold only error results."""
        count = 0
        for message in reversed(self.messages):
            if message.get("role") != "user":
                continue
            content = message.get("content")
            results = [b for b in content if isinstance(b, dict) and b.get("type") == "tool_result"] if isinstance(content, list) else []
            if results and all(b.get("is_error") for b in results):
                count += 1
            else:
                break
        return count


SCAN_CHARS = 20_000
"""How much of a text :class:`Turn`'s helpers (and the built-in policies) read: the first 20,000
characters (about 5,000 tokens, far more than any scenario's prompt or tool result). A bound on the
text policies scan keeps every reply fast whatever a request carries."""


def _content_text(content: Any) -> str:
    """The text of a message's or ``tool_result``'s content (text blocks joined; blocks whose
    ``text`` is not a string are skipped), its first :data:`SCAN_CHARS` characters."""
    if isinstance(content, str):
        return content[:SCAN_CHARS]
    if isinstance(content, list):
        return "".join(b["text"] for b in content if isinstance(b, dict) and b.get("type") == "text"
                       and isinstance(b.get("text"), str))[:SCAN_CHARS]
    return ""


def _result_text(block: dict[str, Any]) -> str:
    content = block.get("content")
    return _content_text(content)


Policy = Callable[[Turn], Reply]
"""A policy: ``policy(turn) -> Reply``. Pure: same turn, same reply."""


@dataclass(frozen=True, kw_only=True)
class Scenario:
    """A named situation for the simulated model.

    Give either ``replies`` (scripted, indexed by the number of assistant turns the request
    holds) or ``policy`` (a function of the request).
    """

    __test__ = False  # not a pytest test class

    name: str
    """Stable name, e.g. ``"weather"``; also seeds the ids of each run."""
    description: str = ""
    """One line: what this scenario shows (English)."""
    description_es: str = ""
    """The same line in Spanish."""
    prompt: str = ""
    """The user prompt a loop sends to run the scenario."""
    tools: tuple[dict[str, Any], ...] = ()
    """Tool definitions (``tools`` param) the loop should send."""
    system: str | None = None
    """System prompt the loop should send (None: none)."""
    model: str = DEFAULT_MODEL
    """Model id the loop should use."""
    max_tokens: int = 1024
    """``max_tokens`` the scenario's lessons start from."""
    replies: tuple[Reply, ...] = ()
    """Scripted replies; reply ``k`` answers a request holding ``k`` assistant turns."""
    policy: Policy | None = None
    """Alternative to ``replies``: a function of the request."""
    run_tool: RunTool | None = None
    """Runs the scenario's tools (``run_tool(name, input) -> str``; may raise)."""
    needed_requests: int | None = None
    """Requests a correct loop makes (default: ``len(replies)`` plus injected faults)."""
    runaway_after: int = 20
    """``agentlab.RunawayLoop`` is raised on the request that goes this many past ``needed_requests``."""
    thinking_default: dict[str, Any] | None = None
    """The ``thinking`` the model applies when a request omits it (model-dependent on the real
    API, reference 3.3), e.g. ``{"type": "adaptive"}``; None: no thinking unless asked."""
    validation: ValidationOptions = field(default_factory=ValidationOptions)
    """Contested-rule switches and a context-window override."""
    gateway_params: dict[str, Any] = field(default_factory=dict)
    """Request parameters a gateway in front of the API adds to every ``/v1/messages`` request that
    omits them, e.g. ``{"stop_sequences": ["</answer>"]}`` (a deployment's per-model defaults, as
    an LLM proxy sets them). The API sees, validates, answers and journals the request with them;
    the loop's own code is unchanged. Empty (no gateway) for every built-in scenario. The real API
    applies no such defaults itself: ``stop_sequence`` comes back only for the request's own
    ``stop_sequences`` (SDK ``Message.stop_reason`` docstring, reference 2)."""
    extra: dict[str, Any] = field(default_factory=dict)
    """Anything a lesson or the grader wants to keep with the scenario (expected answer...)."""

    def __post_init__(self) -> None:
        if not self.name:
            raise ValueError("Scenario.name must be a non-empty string")
        if self.policy is None and not self.replies:
            raise ValueError(f"scenario {self.name!r}: give `replies` or `policy`")
        if self.policy is not None and self.replies:
            raise ValueError(f"scenario {self.name!r}: give `replies` or `policy`, not both")
        if self.policy is not None and self.needed_requests is None:
            raise ValueError(f"scenario {self.name!r}: a policy scenario must say how many requests a correct "
                             "loop needs (`needed_requests`), so the runaway guard knows when to stop a loop")

    def describe(self, lang: str | None = None) -> str:
        """The one-line description in ``lang`` (``"en"``/``"es"``; default: the learner's language),
        falling back to English when no Spanish line was written."""
        from .._i18n import language

        return (self.description_es or self.description) if language(lang) == "es" else self.description

    @property
    def request_budget(self) -> int:
        """Requests a correct loop needs, faults and retries included."""
        if self.needed_requests is not None:
            return self.needed_requests
        retries = sum(r.fault.times for r in self.replies if r.fault is not None and r.fault.kind == "http")
        return len(self.replies) + retries

    def reply_for(self, turn: Turn) -> Reply:
        """The reply for a request at ``turn``: scripted reply ``turn.index`` (the last one past the
        end), or ``policy(turn)``.

        Raises:
            TypeError: when the policy returns something that is not a ``Reply``.
        """
        if self.policy is not None:
            result = self.policy(turn)
            if not isinstance(result, Reply):
                raise TypeError(f"scenario {self.name!r}: policy returned {type(result).__name__}, expected Reply")
            return result
        return self.replies[min(turn.index, len(self.replies) - 1)]

    def params(self) -> dict[str, Any]:
        """``model``, ``max_tokens``, ``tools`` and ``system`` as keyword arguments for ``messages.create``."""
        params: dict[str, Any] = {"model": self.model, "max_tokens": self.max_tokens}
        if self.tools:
            params["tools"] = [json.loads(json.dumps(t)) for t in self.tools]
        if self.system:
            params["system"] = self.system
        return params
