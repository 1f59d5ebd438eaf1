"""What a validation rule sees, and what a failed rule produces.

Kept apart from the rules and the API so rules can be tested with a plain dict body, no
transport and no client (STYLE.md section 1).
"""

from __future__ import annotations

import marshal
from dataclasses import dataclass, field
from datetime import date
from functools import cached_property
from typing import Any, Literal

from ._models import CATALOGUE_DATE, ModelSpec, get_model
from ._thinking import ThinkingLedger
from ._tokens import count_input_tokens

__all__ = ["ApiError", "ValidationOptions", "RequestContext", "Endpoint", "PrefixMemo"]

Endpoint = Literal["messages", "count_tokens", "models"]


@dataclass(frozen=True, kw_only=True)
class ValidationOptions:
    """Switches for the rules the reference calls contested (reference section 8)."""

    first_message_user: bool = True
    """Reject a first message that is not ``user`` (reference rule 8). Default on, as the reference recommends."""
    strict_alternation: bool = False
    """Reject consecutive same-role messages with the historical text (reference rule 10).
    Default off: the current API merges them."""
    context_window: int | None = None
    """Override every model's context window (tokens); scenarios use it to reach the window quickly."""
    today: date = CATALOGUE_DATE
    """The fake's "today", for model retirement (rule 5b) and the Models API's ``lifecycle``.
    Defaults to the catalogue's check date (``_models.CATALOGUE_DATE``, 2026-12-01), never the
    wall clock, so the same request gets the same answer on any day. Set an earlier date to run
    a model that has since retired, e.g. ``ValidationOptions(today=date(2026, 6, 1))``."""


@dataclass(frozen=True, kw_only=True)
class ApiError:
    """An error the fake answers with instead of a Message.

    Rendered as ``{"type":"error","error":{"type":error_type,"message":message},"request_id":...}``
    with HTTP ``status`` (reference 3.1 and rule 33).
    """

    status: int
    """HTTP status code."""
    error_type: str
    """``error.type``, e.g. ``invalid_request_error``."""
    message: str
    """``error.message``, exact where the reference marks the text [OBS]."""
    rule: str
    """Id of the rule that produced it, e.g. ``"15"`` (reference section 7 numbering) or ``"fault"``."""
    details: dict[str, Any] | None = None
    """Optional ``error.details`` (the SDK reads ``error_code`` from it)."""
    headers: dict[str, str] = field(default_factory=dict)
    """Extra response headers (``retry-after-ms``, ``x-should-retry``)."""


class PrefixMemo:
    """What one run already knows about the messages of its last valid request, so the next request
    of a loop (the same history plus two messages) does not walk that history again (speed: every
    request re-sends the whole conversation, and the fake's per-call cost is benchmarked).

    A message is *trusted* when it stands at the same index, identical in the ``marshal``
    sense (format 2, which has no object references, so only the values count, and ``1``, ``1.0``
    and ``True`` differ, as they do in JSON), in the last
    request that passed validation, and was not that request's final message. Trusted messages
    skip the message-local rules (4d, 4g, 9b, 11; each would pass again: they read only the
    message itself, and the final-position exemptions never applied to them) and reuse their
    token counts. The result is exactly what a full walk gives; only the time differs.
    """

    __slots__ = ("messages", "tokens", "index")

    def __init__(self) -> None:
        self.messages: list[Any] = []
        """The messages of the last request that passed validation."""
        self.tokens: list[int | None] = []
        """Their token counts with thinking not counted (None: not computed)."""
        self.index: Any = None
        """The rules' message index of that request (``_rules._Index``), or None."""

    def trusted(self, messages: Any) -> int:
        """How many leading messages of ``messages`` are trusted (0 when none or not a list)."""
        previous = self.messages
        if type(messages) is not list or not previous:
            return 0
        limit = min(len(previous) - 1, len(messages) - 1)
        k = 0
        while k < limit and messages[k] == previous[k]:
            k += 1
        if k and marshal.dumps(messages[:k], 2) != marshal.dumps(previous[:k], 2):
            return 0  # equal under ==, but not the same JSON (True vs 1, 1 vs 1.0): trust nothing
        return k

    def remember(self, messages: list[Any], tokens: list[int | None], index: Any) -> None:
        """Keep a request that passed validation (its messages, per-message token counts and the
        rules' message index)."""
        self.messages, self.tokens, self.index = messages, tokens, index


@dataclass(kw_only=True)
class RequestContext:
    """A parsed request, as the validation rules see it."""

    endpoint: Endpoint
    """Which endpoint was called."""
    body: dict[str, Any]
    """The parsed JSON body, with a thread continuation already expanded: ``messages`` is the
    whole conversation and ``system``/``tools`` are the thread's."""
    headers: dict[str, str]
    """Request headers, lower-cased names."""
    options: ValidationOptions
    ledger: ThinkingLedger
    """Thinking the fake issued, for signature checks."""
    marked: bool = True
    """False when no ``cache_control`` can be in the request (its raw JSON has neither the key nor a
    ``\\u`` escape, and no thread history came with it): no breakpoint to look for (speed)."""
    trusted: int = 0
    """Leading messages already validated by an earlier request of the run (:class:`PrefixMemo`):
    the message-local rules start after them. 0 (the default) validates every message."""
    known_tokens: list[int | None] = field(default_factory=list)
    """Token counts (thinking not counted) of the trusted messages, from :class:`PrefixMemo`."""
    prior_index: Any = None
    """The rules' message index of the run's last valid request (:class:`PrefixMemo`), reused for
    the trusted messages."""
    message_tokens: list[int | None] = field(default_factory=list)
    """Filled by :attr:`input_tokens`: each message's count with thinking not counted (None for
    the open turn's message, whose thinking counts), for the memo of the next request."""

    @property
    def messages(self) -> list[Any]:
        """``body["messages"]`` (may be any JSON value if the body is malformed)."""
        return self.body.get("messages")  # type: ignore[return-value]

    @cached_property
    def model(self) -> ModelSpec | None:
        """The catalogue entry for ``body["model"]``, or None."""
        model = self.body.get("model")
        return get_model(model) if isinstance(model, str) else None

    @cached_property
    def input_tokens(self) -> int:
        """Input tokens of the whole request (deterministic counter, ``_tokens``)."""
        return count_input_tokens(self.body, known=self.known_tokens[: self.trusted], out=self.message_tokens)

    @property
    def context_window(self) -> int:
        """The model's context window in tokens, or the options' override."""
        if self.options.context_window is not None:
            return self.options.context_window
        return self.model.context_window if self.model else 0
