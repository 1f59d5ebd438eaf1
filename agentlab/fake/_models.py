"""The fake's model catalogue: capabilities, limits and prices, as data.

Every model id that appears in the course's seeds (``shared/seeds``) and in the behavioural
reference is here, so seed code runs unchanged. The numbers are the fake's, chosen to be
plausible for late 2026; they are not claims about the real models. Capabilities follow the
reference: prefill is rejected on the 4.6+ family and later (reference 3.2 rule 10),
``thinking.type = "enabled"`` is rejected on the newest models (reference 3.3), and
``model_context_window_exceeded`` is a stop reason on newer models while older ones answer
400 when input plus ``max_tokens`` exceeds the window (reference section 2).

Prices are USD per million tokens. Cache writes cost 1.25x the input price and cache reads
0.1x, as on the real price list for 5-minute cache writes.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["ModelSpec", "MODELS", "DEFAULT_MODEL", "get_model", "cost_usd"]


@dataclass(frozen=True, kw_only=True)
class ModelSpec:
    """One fake model: its limits (tokens), capabilities and prices (USD per million tokens)."""

    id: str
    """The model id as sent in ``model``."""
    context_window: int
    """Input plus output tokens the model can hold."""
    max_output_tokens: int
    """Largest accepted ``max_tokens`` (reference rule 6)."""
    prefill: bool
    """Whether a final assistant message (prefill) is accepted (reference rule 13)."""
    thinking_types: frozenset[str]
    """Accepted ``thinking.type`` values."""
    context_window_stop: bool
    """True: generation that fills the window stops with ``model_context_window_exceeded``.
    False: input plus ``max_tokens`` above the window is a 400."""
    mid_conversation_system: bool = False
    """Whether ``role: "system"`` messages are accepted inside ``messages``."""
    input_usd_per_mtok: float
    output_usd_per_mtok: float

    @property
    def cache_write_usd_per_mtok(self) -> float:
        """Price of a 5-minute cache write: 1.25x input."""
        return self.input_usd_per_mtok * 1.25

    @property
    def cache_read_usd_per_mtok(self) -> float:
        """Price of a cache read: 0.1x input."""
        return self.input_usd_per_mtok * 0.1


_NEW_THINKING = frozenset({"adaptive", "disabled", "between_tools"})
_ALL_THINKING = frozenset({"enabled", "adaptive", "disabled", "between_tools"})

MODELS: dict[str, ModelSpec] = {
    spec.id: spec
    for spec in (
        ModelSpec(id="claude-opus-4-20250514", context_window=200_000, max_output_tokens=32_000,
                  prefill=True, thinking_types=frozenset({"enabled", "disabled"}),
                  context_window_stop=False, input_usd_per_mtok=15.0, output_usd_per_mtok=75.0),
        ModelSpec(id="claude-opus-4-5-20251101", context_window=200_000, max_output_tokens=64_000,
                  prefill=True, thinking_types=frozenset({"enabled", "disabled"}),
                  context_window_stop=True, input_usd_per_mtok=5.0, output_usd_per_mtok=25.0),
        ModelSpec(id="claude-opus-4-7", context_window=1_000_000, max_output_tokens=128_000,
                  prefill=False, thinking_types=_ALL_THINKING,
                  context_window_stop=True, input_usd_per_mtok=5.0, output_usd_per_mtok=25.0),
        ModelSpec(id="claude-sonnet-5", context_window=1_000_000, max_output_tokens=64_000,
                  prefill=False, thinking_types=_ALL_THINKING,
                  context_window_stop=True, input_usd_per_mtok=3.0, output_usd_per_mtok=15.0),
        ModelSpec(id="claude-sonnet-5-5", context_window=1_000_000, max_output_tokens=128_000,
                  prefill=False, thinking_types=_NEW_THINKING, mid_conversation_system=True,
                  context_window_stop=True, input_usd_per_mtok=3.0, output_usd_per_mtok=15.0),
        ModelSpec(id="claude-opus-5", context_window=1_000_000, max_output_tokens=128_000,
                  prefill=False, thinking_types=_NEW_THINKING, mid_conversation_system=True,
                  context_window_stop=True, input_usd_per_mtok=5.0, output_usd_per_mtok=25.0),
        ModelSpec(id="claude-fable-5", context_window=200_000, max_output_tokens=64_000,
                  prefill=False, thinking_types=_NEW_THINKING,
                  context_window_stop=True, input_usd_per_mtok=1.0, output_usd_per_mtok=5.0),
    )
}

DEFAULT_MODEL = "claude-sonnet-5"
"""The model of seed 002's weather loop; built-in scenarios use it unless they say otherwise."""


def get_model(model_id: str) -> ModelSpec | None:
    """Return the catalogue entry for ``model_id``, or None when the fake does not know it."""
    return MODELS.get(model_id)


def cost_usd(usage: object, model_id: str) -> float:
    """Price in USD of one response's usage under the catalogue's prices.

    Args:
        usage: an ``anthropic.types.Usage`` or a dict with ``input_tokens``, ``output_tokens``
            and optionally ``cache_creation_input_tokens`` and ``cache_read_input_tokens``.
        model_id: a catalogue model id.

    Returns:
        The cost in USD, not rounded.

    Raises:
        KeyError: when ``model_id`` is not in the catalogue.
    """
    spec = MODELS[model_id]

    def field(name: str) -> int:
        value = usage.get(name) if isinstance(usage, dict) else getattr(usage, name, None)
        return int(value or 0)

    return (
        field("input_tokens") * spec.input_usd_per_mtok
        + field("output_tokens") * spec.output_usd_per_mtok
        + field("cache_creation_input_tokens") * spec.cache_write_usd_per_mtok
        + field("cache_read_input_tokens") * spec.cache_read_usd_per_mtok
    ) / 1_000_000
