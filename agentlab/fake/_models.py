"""The fake's model catalogue: ids, aliases, limits, capabilities, lifecycle and prices, as data.

Every id and alias of the installed SDK's ``anthropic.types.Model`` literal is here (a test fails
when the SDK adds one the catalogue lacks), plus every id the course's seeds, lessons and tests
use. Each fact carries its source in :data:`SOURCES` (one entry per source key used by the specs
below); where the real value is not known the source says ``unknown: the fake's choice``.

What the specs drive (reference section 7 and ``_rules``):

- ``context_window`` / ``max_output_tokens``: rules 31 and 6. ``max_output_tokens`` is the largest
  accepted ``max_tokens`` (what the Models API reports as ``max_tokens``; pydantic-ai,
  langchain-anthropic and litellm send it as their default ``max_tokens``).
- ``thinking_types``: rules 24a-24c (which ``thinking.type`` values a model accepts).
- ``sampling``: rules 6b-6e (``temperature`` / ``top_p`` / ``top_k`` per model).
- ``prefill``: rules 13/14. ``context_window_stop``: ``model_context_window_exceeded`` vs rule 31b.
- ``mid_conversation_system``: rule 9. ``retires_at``: rule 5b (404 once retired).
- ``created_at``, ``display_name``, ``line``: the Models API (``GET /v1/models``, ``_models_api``).

Aliases: for models before the 4.6 generation the undated alias "is a convenience pointer that
resolves to the dated ID" (models overview, ``model-ids-and-versions`` page); from 4.6 on the
dateless id is itself the pinned snapshot. An alias and its dated id share one spec. The Models
API resolves an alias to the dated id (SDK ``models.retrieve`` docstring); that a Messages reply
to an alias names the dated id in its ``model`` field is unknown: the fake's choice, made so that
thinking signatures and prices follow the model, whichever name was sent.

"Today": whether a model is retired depends on a date. The fake never reads the wall clock (same
input, same bytes): "today" is :data:`CATALOGUE_DATE`, the day this catalogue was checked, unless
``ValidationOptions.today`` overrides it.

Prices are USD per million tokens. Cache writes cost 1.25x the input price and cache reads 0.1x
(the 5-minute cache-write price list: e.g. Sonnet 5.5 $2 input, $2.50 cache write, $0.20 read).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import Literal

__all__ = [
    "ALIASES",
    "CATALOGUE_DATE",
    "DEFAULT_MODEL",
    "MODELS",
    "ModelSpec",
    "SOURCES",
    "Sampling",
    "cost_usd",
    "get_model",
    "resolve",
]

CATALOGUE_DATE = date(2026, 12, 1)
"""The day the catalogue was checked against its sources: the fake's "today" for retirement
(overridable through ``ValidationOptions.today``). Never the wall clock."""

Sampling = Literal["any", "one_of", "default_only"]
"""How a model takes the sampling parameters ``temperature`` / ``top_p`` / ``top_k``:

- ``"any"``: any combination (older models).
- ``"one_of"``: ``temperature`` and ``top_p`` may not both be given (rule 6e).
- ``"default_only"``: ``temperature`` only at its default 1; ``top_p`` and ``top_k`` at any value
  are rejected as deprecated (rules 6b-6d)."""

Lifecycle = Literal["active", "deprecated", "retired"]

SOURCES: dict[str, str] = {
    # official documentation pages (as stored by the search tool's docs corpus, late 2026)
    "docs-overview": "https://platform.claude.com/docs/en/models/overview (models overview, comparison table)",
    "docs-model-page": "https://platform.claude.com/docs/en/models/<model>/overview (per-model page: "
                       "release date, context window, max output, pricing)",
    "docs-ids": "https://platform.claude.com/docs/en/about-claude/models/model-ids-and-versions (aliases before "
                "the 4.6 generation resolve to the dated id; dateless ids from 4.6 on are snapshots)",
    "docs-thinking": "https://platform.claude.com/docs/en/build-with-claude/thinking (which models think by "
                     "default; Opus 5 accepts disabled)",
    "docs-sonnet-5": "https://platform.claude.com/docs/zh-CN/models/sonnet-5/overview (manual extended thinking "
                     "returns 400, deprecated on Sonnet 4.6; non-default temperature/top_p/top_k return 400)",
    "docs-opus-5-5": "https://platform.claude.com/docs/zh-CN/models/opus-5-5/overview (thinking cannot be "
                     "disabled; the first three breaking changes also apply to Fable 5.1)",
    "docs-deprecations": "https://platform.claude.com/docs/en/about-claude/model-deprecations (requests to models "
                         "past the retirement date fail; at least 60 days' notice)",
    "bedrock-opus-4-7": "https://docs.aws.amazon.com/bedrock/latest/userguide/model-card-anthropic-claude-opus-4-7.md "
                        "(launched Apr 16 2026, 1M / 128K, thinking.type enabled returns 400)",
    # the installed SDK's own data
    "sdk-model": "anthropic 2.14.0 anthropic/types/model.py (the Model literal)",
    "sdk-deprecated": "anthropic 2.14.0 anthropic/_data/deprecated_models.py (end-of-life dates)",
    "sdk-warn-thinking": "anthropic 2.14.0 anthropic/_data/models_to_warn_with_thinking_enabled.py (models that "
                         "accept thinking.type enabled with a deprecation warning)",
    # public issue threads and third-party catalogues [3P / OBS]
    "obs-enabled-400": "[OBS] https://github.com/openclaw/openclaw/issues/91805 (Fable 5), "
                       "https://github.com/zhukunpenglinyutong/jetbrains-cc-gui/issues/1003",
    "obs-disabled-400": "[OBS] https://github.com/danny-avila/LibreChat/issues/13704, "
                        "https://github.com/ex-machina-co/opencode-anthropic-auth/issues/159 (Fable 5, Mythos 5), "
                        "https://github.com/lobehub/lobehub/pull/19034 (Fable 5.1 too; Opus 5 and 4.8 accept it)",
    "obs-sampling-removed": "[OBS] https://github.com/mnfst/modelparams.dev/pull/238 (opus-4-8 probed: temperature "
                            "1 accepted, 0/0.5 rejected; top_p and top_k rejected at any value), "
                            "https://github.com/router-for-me/CLIProxyAPI/issues/4383 (opus-4-7, opus-4-8, fable-5), "
                            "https://github.com/Significant-Gravitas/AutoGPT/pull/13629 (whole Claude 5 family)",
    "obs-one-of": "[OBS] https://github.com/langfuse/langfuse/issues/9882 (Sonnet 4.5), "
                  "https://github.com/skydiscover-ai/skydiscover/issues/15 (Sonnet 4.6)",
    "3p-opus-4-retired": "[3P] https://raw.githubusercontent.com/ottto-ai/ai-provider-watch/main/data/events/"
                         "2026-06-15-anthropic-sonnet-4-opus-4-retirement.json (release notes: Opus 4 retired "
                         "June 15 2026)",
    "3p-opus-4-5-deprecated": "[3P] https://github.com/samarthputhraya/Modelpin/releases/tag/v0.5.7 (Opus 4.5 "
                              "deprecated 23 November 2026; 5.2 models added)",
    "3p-mid-system": "[3P] https://github.com/langchain-ai/langchainjs/releases/tag/@langchain%2Fanthropic@1.5.13 "
                     "(mid-conversation system messages: Opus 4.8, Opus 5, Opus 5.5, Sonnet 5.5, Haiku 5.5, Fable 5 "
                     "and 5.1, Mythos 5 and 5.1, Sonnet 5)",
    "3p-claude-4-caps": "[3P] https://github.com/UKGovernmentBEIS/inspect_ai/pull/2675 (max output: 32k for Opus 4 "
                        "and 4.1, 64k for Sonnet 4, Sonnet 4.5 and Haiku 4.5); Sonnet 4.5's 200,000 input: "
                        "https://github.com/langchain-ai/langchainjs/releases/tag/@langchain%2Fanthropic@1.5.13",
    "3p-128k": "[3P] https://github.com/dcdpr/jp/pull/820 (claude-sonnet-5: 1M context, 128k max output; "
               "claude-sonnet-4-6 corrected from 64,000 to 128,000 to match the published limits)",
    "3p-release": "[3P] release dates from third-party catalogues (apiyi: Fable 5.1 2026-09-01; runware: Sonnet 5.5 "
                  "2026-09-28; multidotdev: Opus 5.5 by 2026-09-24)",
    "kept": "unknown: the fake's choice (kept from the catalogue before issue 10)",
    "fake": "unknown: the fake's choice",
}
"""Where the catalogue's facts come from; a spec's ``sources`` maps a fact name to keys of this table."""


@dataclass(frozen=True, kw_only=True)
class ModelSpec:
    """One model: its limits (tokens), capabilities, lifecycle (dates) and prices (USD per million tokens)."""

    id: str
    """The canonical model id (the dated id for models before the 4.6 generation)."""
    display_name: str
    """Human-readable name, as the Models API's ``display_name``."""
    line: str | None
    """Model line (``opus``, ``sonnet``, ``haiku``, ``fable``, ``mythos``), as ``ModelInfo.line``."""
    created_at: date
    """Release date (``ModelInfo.created_at``)."""
    aliases: tuple[str, ...] = ()
    """Other names that resolve to this spec (e.g. ``claude-haiku-4-5``)."""
    context_window: int
    """Input plus output tokens the model can hold (``ModelInfo.max_input_tokens``)."""
    max_output_tokens: int
    """Largest accepted ``max_tokens`` (reference rule 6; ``ModelInfo.max_tokens``)."""
    prefill: bool
    """Whether a final assistant message (prefill) is accepted (reference rule 13)."""
    thinking_types: frozenset[str]
    """Accepted ``thinking.type`` values (rules 24a-24c)."""
    sampling: Sampling
    """How ``temperature`` / ``top_p`` / ``top_k`` are taken (rules 6b-6e)."""
    context_window_stop: bool
    """True: generation that fills the window stops with ``model_context_window_exceeded``.
    False: input plus ``max_tokens`` above the window is a 400."""
    mid_conversation_system: bool = False
    """Whether ``role: "system"`` messages are accepted inside ``messages``."""
    deprecated_at: date | None = None
    """When the model was deprecated (None while active)."""
    retires_at: date | None = None
    """End-of-life date: from that day on, requests answer 404 (rule 5b)."""
    input_usd_per_mtok: float
    output_usd_per_mtok: float
    sources: dict[str, str] = field(default_factory=dict, compare=False)
    """Fact name -> key of :data:`SOURCES` (``limits``, ``prices``, ``thinking``, ``sampling``,
    ``lifecycle``, ``created_at``, ``prefill``, ``mid_conversation_system``)."""

    @property
    def cache_write_usd_per_mtok(self) -> float:
        """Price of a 5-minute cache write: 1.25x input."""
        return self.input_usd_per_mtok * 1.25

    @property
    def cache_read_usd_per_mtok(self) -> float:
        """Price of a cache read: 0.1x input."""
        return self.input_usd_per_mtok * 0.1

    def lifecycle(self, today: date = CATALOGUE_DATE) -> Lifecycle:
        """``"retired"`` from ``retires_at`` on, ``"deprecated"`` from ``deprecated_at``, else ``"active"``."""
        if self.retires_at is not None and today >= self.retires_at:
            return "retired"
        if self.deprecated_at is not None and today >= self.deprecated_at:
            return "deprecated"
        return "active"

    def retired(self, today: date = CATALOGUE_DATE) -> bool:
        """Whether requests naming this model fail on ``today`` (reference: "Requests to models past
        the retirement date will fail", model deprecations page)."""
        return self.lifecycle(today) == "retired"


# --------------------------------------------------------------------------- the table

_OLD = frozenset({"enabled", "disabled"})                    # extended thinking only
_FOUR_SIX = frozenset({"enabled", "adaptive", "disabled"})   # enabled deprecated but accepted
_ADAPTIVE = frozenset({"adaptive", "disabled", "between_tools"})  # enabled returns 400
_ALWAYS_ON = frozenset({"adaptive", "between_tools"})        # enabled and disabled return 400
_FIVE_FIVE = frozenset({"adaptive", "disabled", "between_tools"})

_K = 1_000
_M = 1_000_000


def _retire(retires: date) -> date:
    """A deprecation date where only the retirement is known: 60 days before it (the deprecations
    page's minimum notice). Unknown: the fake's choice."""
    return retires - timedelta(days=60)


def _specs() -> tuple[ModelSpec, ...]:
    doc = {"limits": "docs-model-page", "prices": "docs-model-page", "created_at": "docs-model-page"}
    return (
        # --- retired or retiring, before the 4.6 generation: dated ids, prefill accepted
        ModelSpec(id="claude-opus-4-20250514", display_name="Claude Opus 4", line="opus",
                  created_at=date(2025, 5, 14), aliases=("claude-opus-4-0",),
                  context_window=200 * _K, max_output_tokens=32 * _K, prefill=True, thinking_types=_OLD,
                  sampling="any", context_window_stop=False,
                  deprecated_at=_retire(date(2026, 6, 15)), retires_at=date(2026, 6, 15),
                  input_usd_per_mtok=15.0, output_usd_per_mtok=75.0,
                  sources={"limits": "3p-claude-4-caps", "prices": "kept", "created_at": "fake", "thinking": "kept",
                           "sampling": "fake", "lifecycle": "3p-opus-4-retired", "prefill": "kept"}),
        ModelSpec(id="claude-sonnet-4-5-20250929", display_name="Claude Sonnet 4.5", line="sonnet",
                  created_at=date(2025, 9, 29), aliases=("claude-sonnet-4-5",),
                  context_window=200 * _K, max_output_tokens=64 * _K, prefill=True, thinking_types=_OLD,
                  sampling="one_of", context_window_stop=True,
                  deprecated_at=_retire(date(2026, 11, 30)), retires_at=date(2026, 11, 30),
                  input_usd_per_mtok=3.0, output_usd_per_mtok=15.0,
                  sources={"limits": "3p-claude-4-caps", "prices": "fake", "created_at": "fake", "thinking": "kept",
                           "sampling": "obs-one-of", "lifecycle": "sdk-deprecated", "prefill": "kept"}),
        ModelSpec(id="claude-haiku-4-5-20251001", display_name="Claude Haiku 4.5", line="haiku",
                  created_at=date(2025, 10, 1), aliases=("claude-haiku-4-5",),
                  context_window=200 * _K, max_output_tokens=64 * _K, prefill=True, thinking_types=_OLD,
                  sampling="one_of", context_window_stop=True,
                  input_usd_per_mtok=1.0, output_usd_per_mtok=5.0,
                  sources={"limits": "docs-overview", "prices": "docs-overview", "created_at": "fake",
                           "thinking": "docs-overview", "sampling": "fake", "lifecycle": "docs-overview",
                           "prefill": "kept"}),
        ModelSpec(id="claude-opus-4-5-20251101", display_name="Claude Opus 4.5", line="opus",
                  created_at=date(2025, 11, 24), aliases=("claude-opus-4-5",),
                  context_window=200 * _K, max_output_tokens=64 * _K, prefill=True, thinking_types=_OLD,
                  sampling="one_of", context_window_stop=True,
                  deprecated_at=date(2026, 11, 23), retires_at=date(2027, 1, 22),
                  input_usd_per_mtok=5.0, output_usd_per_mtok=25.0,
                  sources={**doc, "thinking": "kept", "sampling": "fake",
                           "lifecycle": "sdk-deprecated; 3p-opus-4-5-deprecated", "prefill": "kept"}),
        # --- the 4.6 generation: dateless ids, no prefill, adaptive thinking
        ModelSpec(id="claude-opus-4-6", display_name="Claude Opus 4.6", line="opus", created_at=date(2026, 2, 5),
                  context_window=_M, max_output_tokens=128 * _K, prefill=False, thinking_types=_FOUR_SIX,
                  sampling="one_of", context_window_stop=True, input_usd_per_mtok=5.0, output_usd_per_mtok=25.0,
                  sources={**doc, "thinking": "sdk-warn-thinking", "sampling": "fake", "lifecycle": "docs-model-page",
                           "prefill": "kept"}),
        ModelSpec(id="claude-sonnet-4-6", display_name="Claude Sonnet 4.6", line="sonnet",
                  created_at=date(2026, 2, 17),
                  context_window=_M, max_output_tokens=128 * _K, prefill=False, thinking_types=_FOUR_SIX,
                  sampling="one_of", context_window_stop=True, input_usd_per_mtok=3.0, output_usd_per_mtok=15.0,
                  sources={**doc, "limits": "docs-model-page; 3p-128k", "thinking": "docs-sonnet-5",
                           "sampling": "obs-one-of",
                           "lifecycle": "docs-model-page", "prefill": "kept"}),
        ModelSpec(id="claude-mythos-preview", display_name="Claude Mythos Preview", line="mythos",
                  created_at=date(2026, 4, 7),
                  context_window=_M, max_output_tokens=128 * _K, prefill=False, thinking_types=_FOUR_SIX,
                  sampling="one_of", context_window_stop=True,
                  deprecated_at=_retire(date(2026, 6, 30)), retires_at=date(2026, 6, 30),
                  input_usd_per_mtok=10.0, output_usd_per_mtok=50.0,
                  sources={"limits": "fake", "prices": "fake", "created_at": "fake", "thinking": "sdk-warn-thinking",
                           "sampling": "fake", "lifecycle": "sdk-deprecated", "prefill": "fake"}),
        ModelSpec(id="claude-opus-4-7", display_name="Claude Opus 4.7", line="opus", created_at=date(2026, 4, 16),
                  context_window=_M, max_output_tokens=128 * _K, prefill=False, thinking_types=_ADAPTIVE - {"between_tools"},
                  sampling="default_only", context_window_stop=True, input_usd_per_mtok=5.0, output_usd_per_mtok=25.0,
                  sources={"limits": "bedrock-opus-4-7", "prices": "kept", "created_at": "bedrock-opus-4-7",
                           "thinking": "bedrock-opus-4-7; obs-enabled-400", "sampling": "obs-sampling-removed",
                           "lifecycle": "bedrock-opus-4-7", "prefill": "kept"}),
        ModelSpec(id="claude-opus-4-8", display_name="Claude Opus 4.8", line="opus", created_at=date(2026, 5, 28),
                  context_window=_M, max_output_tokens=128 * _K, prefill=False, thinking_types=_ADAPTIVE - {"between_tools"},
                  sampling="default_only", context_window_stop=True, mid_conversation_system=True,
                  input_usd_per_mtok=5.0, output_usd_per_mtok=25.0,
                  sources={**doc, "thinking": "docs-thinking; obs-disabled-400", "sampling": "obs-sampling-removed",
                           "lifecycle": "docs-model-page", "prefill": "fake", "mid_conversation_system": "3p-mid-system"}),
        # --- the Claude 5 family: adaptive thinking, sampling parameters removed
        ModelSpec(id="claude-fable-5", display_name="Claude Fable 5", line="fable", created_at=date(2026, 6, 9),
                  context_window=_M, max_output_tokens=128 * _K, prefill=False, thinking_types=_ALWAYS_ON,
                  sampling="default_only", context_window_stop=True, mid_conversation_system=True,
                  input_usd_per_mtok=10.0, output_usd_per_mtok=50.0,
                  sources={**doc, "thinking": "obs-enabled-400; obs-disabled-400", "sampling": "obs-sampling-removed",
                           "lifecycle": "docs-model-page", "prefill": "kept", "mid_conversation_system": "3p-mid-system"}),
        ModelSpec(id="claude-mythos-5", display_name="Claude Mythos 5", line="mythos", created_at=date(2026, 6, 9),
                  context_window=_M, max_output_tokens=128 * _K, prefill=False, thinking_types=_ALWAYS_ON,
                  sampling="default_only", context_window_stop=True, mid_conversation_system=True,
                  input_usd_per_mtok=10.0, output_usd_per_mtok=50.0,
                  sources={**doc, "thinking": "obs-disabled-400", "sampling": "obs-sampling-removed",
                           "lifecycle": "docs-model-page", "prefill": "fake", "mid_conversation_system": "3p-mid-system"}),
        ModelSpec(id="claude-sonnet-5", display_name="Claude Sonnet 5", line="sonnet", created_at=date(2026, 6, 30),
                  context_window=_M, max_output_tokens=128 * _K, prefill=False, thinking_types=_ADAPTIVE,
                  sampling="default_only", context_window_stop=True, input_usd_per_mtok=3.0, output_usd_per_mtok=15.0,
                  sources={**doc, "limits": "docs-model-page; 3p-128k", "prices": "kept: NOT the docs' $2 / $10 (docs-model-page): the course's seed 004 "
                                            "budget example (max_budget_usd=0.01, agent_sdk) is built on $3 / $15",
                           "thinking": "docs-sonnet-5 (between_tools: kept)", "sampling": "docs-sonnet-5",
                           "lifecycle": "docs-model-page", "prefill": "kept",
                           "mid_conversation_system": "kept (3p-mid-system lists Sonnet 5 with system messages, not "
                                                      "applied: the course's default model keeps rule 9)"}),
        ModelSpec(id="claude-opus-5", display_name="Claude Opus 5", line="opus", created_at=date(2026, 7, 24),
                  context_window=_M, max_output_tokens=128 * _K, prefill=False, thinking_types=_ADAPTIVE,
                  sampling="default_only", context_window_stop=True, mid_conversation_system=True,
                  input_usd_per_mtok=5.0, output_usd_per_mtok=25.0,
                  sources={**doc, "thinking": "docs-thinking; obs-disabled-400 (between_tools: kept)",
                           "sampling": "obs-sampling-removed", "lifecycle": "docs-model-page", "prefill": "kept",
                           "mid_conversation_system": "3p-mid-system"}),
        ModelSpec(id="claude-fable-5-1", display_name="Claude Fable 5.1", line="fable", created_at=date(2026, 9, 1),
                  context_window=_M, max_output_tokens=128 * _K, prefill=False, thinking_types=_ALWAYS_ON,
                  sampling="default_only", context_window_stop=True, mid_conversation_system=True,
                  input_usd_per_mtok=10.0, output_usd_per_mtok=50.0,
                  sources={"limits": "docs-overview", "prices": "docs-overview", "created_at": "3p-release",
                           "thinking": "docs-opus-5-5; obs-disabled-400", "sampling": "obs-sampling-removed",
                           "lifecycle": "docs-overview", "prefill": "fake", "mid_conversation_system": "3p-mid-system"}),
        ModelSpec(id="claude-mythos-5-1", display_name="Claude Mythos 5.1", line="mythos", created_at=date(2026, 9, 1),
                  context_window=_M, max_output_tokens=128 * _K, prefill=False, thinking_types=_ALWAYS_ON,
                  sampling="default_only", context_window_stop=True, mid_conversation_system=True,
                  input_usd_per_mtok=10.0, output_usd_per_mtok=50.0,
                  sources={"limits": "fake (Fable 5.1's: Mythos shares Fable's specs and pricing)", "prices": "fake",
                           "created_at": "fake", "thinking": "docs-thinking", "sampling": "fake", "lifecycle": "fake",
                           "prefill": "fake", "mid_conversation_system": "3p-mid-system"}),
        ModelSpec(id="claude-opus-5-5", display_name="Claude Opus 5.5", line="opus", created_at=date(2026, 9, 24),
                  context_window=_M, max_output_tokens=128 * _K, prefill=False, thinking_types=_ALWAYS_ON,
                  sampling="default_only", context_window_stop=True, mid_conversation_system=True,
                  input_usd_per_mtok=4.0, output_usd_per_mtok=20.0,
                  sources={"limits": "docs-opus-5-5", "prices": "docs-opus-5-5", "created_at": "3p-release",
                           "thinking": "docs-opus-5-5", "sampling": "fake (like the rest of the Claude 5 family)",
                           "lifecycle": "docs-overview", "prefill": "fake", "mid_conversation_system": "3p-mid-system"}),
        ModelSpec(id="claude-sonnet-5-5", display_name="Claude Sonnet 5.5", line="sonnet", created_at=date(2026, 9, 28),
                  context_window=_M, max_output_tokens=128 * _K, prefill=False, thinking_types=_FIVE_FIVE,
                  sampling="default_only", context_window_stop=True, mid_conversation_system=True,
                  input_usd_per_mtok=2.0, output_usd_per_mtok=10.0,
                  sources={"limits": "docs-model-page", "prices": "docs-model-page", "created_at": "3p-release",
                           "thinking": "docs-model-page (between_tools turns off upfront thinking)",
                           "sampling": "fake (like the rest of the Claude 5 family)", "lifecycle": "docs-overview",
                           "prefill": "kept", "mid_conversation_system": "3p-mid-system"}),
        ModelSpec(id="claude-haiku-5-5", display_name="Claude Haiku 5.5", line="haiku", created_at=date(2026, 10, 7),
                  context_window=_M, max_output_tokens=128 * _K, prefill=False, thinking_types=_FIVE_FIVE,
                  sampling="default_only", context_window_stop=True, mid_conversation_system=True,
                  input_usd_per_mtok=0.10, output_usd_per_mtok=0.50,
                  sources={**doc, "prices": "docs-model-page (prompts up to 100K tokens: the fake ignores the dearer "
                                            "tier above)", "thinking": "docs-model-page",
                           "sampling": "fake (like the rest of the Claude 5 family)", "lifecycle": "docs-model-page",
                           "prefill": "fake", "mid_conversation_system": "3p-mid-system"}),
        ModelSpec(id="claude-fable-5-2", display_name="Claude Fable 5.2", line="fable", created_at=date(2026, 11, 24),
                  context_window=_M, max_output_tokens=128 * _K, prefill=False, thinking_types=_ALWAYS_ON,
                  sampling="default_only", context_window_stop=True, mid_conversation_system=True,
                  input_usd_per_mtok=8.0, output_usd_per_mtok=40.0,
                  sources={"limits": "docs-overview", "prices": "docs-overview", "created_at": "fake",
                           "thinking": "docs-overview (Adaptive, always on)", "sampling": "fake",
                           "lifecycle": "3p-opus-4-5-deprecated", "prefill": "fake", "mid_conversation_system": "fake"}),
        ModelSpec(id="claude-mythos-5-2", display_name="Claude Mythos 5.2", line="mythos", created_at=date(2026, 11, 24),
                  context_window=_M, max_output_tokens=128 * _K, prefill=False, thinking_types=_ALWAYS_ON,
                  sampling="default_only", context_window_stop=True, mid_conversation_system=True,
                  input_usd_per_mtok=8.0, output_usd_per_mtok=40.0,
                  sources={"limits": "fake (Fable 5.2's)", "prices": "fake (Fable 5.2's)", "created_at": "fake",
                           "thinking": "fake", "sampling": "fake", "lifecycle": "3p-opus-4-5-deprecated",
                           "prefill": "fake", "mid_conversation_system": "fake"}),
    )


MODELS: dict[str, ModelSpec] = {spec.id: spec for spec in _specs()}
"""Every model by canonical id (aliases are in :data:`ALIASES`; :func:`get_model` takes both)."""

ALIASES: dict[str, str] = {alias: spec.id for spec in MODELS.values() for alias in spec.aliases}
"""Alias -> canonical id (source: ``docs-ids``)."""

DEFAULT_MODEL = "claude-sonnet-5"
"""The model of seed 002's weather loop; built-in scenarios use it unless they say otherwise."""


def resolve(model_id: str) -> str | None:
    """The canonical id for ``model_id`` (an id or an alias), or None when the catalogue lacks it."""
    if model_id in MODELS:
        return model_id
    return ALIASES.get(model_id)


def get_model(model_id: str) -> ModelSpec | None:
    """Return the catalogue entry for ``model_id`` (an id or an alias), or None when the fake does
    not know it. Retired models are returned too: whether one answers is rule 5b's business."""
    canonical = resolve(model_id) if isinstance(model_id, str) else None
    return MODELS[canonical] if canonical else None


def cost_usd(usage: object, model_id: str) -> float:
    """Price in USD of one response's usage under the catalogue's prices.

    Args:
        usage: an ``anthropic.types.Usage`` or a dict with ``input_tokens``, ``output_tokens``
            and optionally ``cache_creation_input_tokens`` and ``cache_read_input_tokens``.
        model_id: a catalogue model id or alias.

    Returns:
        The cost in USD, not rounded.

    Raises:
        KeyError: when ``model_id`` is not in the catalogue.
    """
    spec = get_model(model_id)
    if spec is None:
        raise KeyError(model_id)

    def field(name: str) -> int:
        value = usage.get(name) if isinstance(usage, dict) else getattr(usage, name, None)
        return int(value or 0)

    return (
        field("input_tokens") * spec.input_usd_per_mtok
        + field("output_tokens") * spec.output_usd_per_mtok
        + field("cache_creation_input_tokens") * spec.cache_write_usd_per_mtok
        + field("cache_read_input_tokens") * spec.cache_read_usd_per_mtok
    ) / 1_000_000
