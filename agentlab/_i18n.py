"""The learner's language: English (``en``) or Spanish (``es``).

One setting for every learner-facing string (journal transcripts, the runaway message, the
CLI). It comes from, in order: an explicit ``lang`` argument, :func:`set_language`, the
``AGENTLAB_LANG`` environment variable, then English. Code identifiers and the API's own error
texts stay English, as the real API sends them.
"""

from __future__ import annotations

import os

__all__ = ["LANGUAGES", "language", "set_language"]

LANGUAGES = ("en", "es")
_chosen: str | None = None


def _check(lang: str) -> str:
    if lang not in LANGUAGES:
        raise ValueError(f"unknown language {lang!r}; agentlab speaks {', '.join(LANGUAGES)}")
    return lang


def set_language(lang: str) -> None:
    """Use ``lang`` (``"en"`` or ``"es"``) for learner-facing text from now on.

    Raises:
        ValueError: for any other value.
    """
    global _chosen
    _chosen = _check(lang)


def language(lang: str | None = None) -> str:
    """The language to use: ``lang`` if given, else the chosen one, else ``AGENTLAB_LANG``, else ``"en"``.

    Raises:
        ValueError: when ``lang`` is not a supported language (an unsupported ``AGENTLAB_LANG``
            falls back to English instead, so printing never fails).
    """
    if lang is not None:
        return _check(lang)
    if _chosen is not None:
        return _chosen
    env = (os.environ.get("AGENTLAB_LANG") or "").strip().lower()[:2]  # "es_ES", "ES" -> "es"
    return env if env in LANGUAGES else "en"  # an unknown value never breaks printing
