"""What a validation rule sees, and what a failed rule produces.

Kept apart from the rules and the API so rules can be tested with a plain dict body, no
transport and no client (STYLE.md section 1).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from functools import cached_property
from typing import Any, Literal

from ._models import CATALOGUE_DATE, ModelSpec, get_model
from ._thinking import ThinkingLedger
from ._tokens import count_input_tokens

__all__ = ["ApiError", "ValidationOptions", "RequestContext", "Endpoint"]

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
        return count_input_tokens(self.body)

    @property
    def context_window(self) -> int:
        """The model's context window in tokens, or the options' override."""
        if self.options.context_window is not None:
            return self.options.context_window
        return self.model.context_window if self.model else 0
