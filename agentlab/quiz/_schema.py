"""The bank format as data: one JSON Schema per question type, and one for a bank file.

These schemas are the structural half of ``quizzes/FORMAT.md`` (fields, types, required
texts, counts of options). What a schema cannot say (ids unique across files, tags from the
catalogue, the correct count per type, ``bug_lines`` inside ``code``...) is checked by
:mod:`agentlab.quiz._bank` after the schema passes. Both are used by the loader, and the
schemas are public so instructors' tools can validate a bank the same way::

    from agentlab.quiz import SCHEMAS
    SCHEMAS["single"]            # a JSON Schema (draft 2020-12) for a `single` question
"""

from __future__ import annotations

import copy
from typing import Any

__all__ = ["BANK_SCHEMA", "QUESTION_TYPES", "SCHEMAS", "STOP_REASONS", "schema"]

QUESTION_TYPES = ("single", "multiple", "next_action", "spot_the_bug", "order", "fix_code")
"""Every question type, in FORMAT.md order."""

STOP_REASONS = ("end_turn", "tool_use", "max_tokens", "stop_sequence", "pause_turn", "refusal",
                "model_context_window_exceeded")
"""The ``stop_reason`` values a ``next_action`` response may carry (the Messages API's)."""

_DRAFT = "https://json-schema.org/draft/2020-12/schema"

TEXT: dict[str, Any] = {
    "type": "object",
    "properties": {
        "en": {"type": "string", "pattern": r"\S"},
        "es": {"type": "string", "pattern": r"\S"},
    },
    "required": ["en", "es"],
    "additionalProperties": False,
}
"""A learner-facing text: non-empty English and Spanish."""

_TAG = {"type": "string", "pattern": r"^[a-z0-9]+(-[a-z0-9]+)*$"}

_OPTION: dict[str, Any] = {
    "type": "object",
    "properties": {
        "id": {"type": "string", "pattern": r"^[a-z][a-z0-9_-]*$"},
        "text": TEXT,
        "correct": {"type": "boolean"},
        "explanation": TEXT,
        "tag": _TAG,
    },
    "required": ["id", "text", "correct", "explanation"],
    "additionalProperties": False,
}

_BLOCK: dict[str, Any] = {
    "type": "object",
    "properties": {"type": {"type": "string", "pattern": r"^[a-z_]+$"}},
    "required": ["type"],
    "allOf": [
        {"if": {"properties": {"type": {"const": "text"}}},
         "then": {"properties": {"text": {"type": "string"}}, "required": ["text"]}},
        {"if": {"properties": {"type": {"enum": ["tool_use", "server_tool_use"]}}},
         "then": {"properties": {"id": {"type": "string"}, "name": {"type": "string"}, "input": {"type": "object"}},
                  "required": ["id", "name", "input"]}},
        {"if": {"properties": {"type": {"const": "thinking"}}},
         "then": {"properties": {"thinking": {"type": "string"}}, "required": ["thinking"]}},
    ],
}

_RESPONSE: dict[str, Any] = {
    "type": "object",
    "properties": {
        "stop_reason": {"enum": list(STOP_REASONS)},
        "content": {"type": "array", "items": _BLOCK},
    },
    "required": ["stop_reason", "content"],
    "additionalProperties": False,
}

_CODE = {"type": "string", "pattern": r"\S"}

_COMMON: dict[str, Any] = {
    "id": {"type": "string", "pattern": r"^[a-z0-9]+(-[a-z0-9]+)*-[0-9]{3,}$"},
    "type": {"enum": list(QUESTION_TYPES)},
    "difficulty": {"type": "integer", "minimum": 1, "maximum": 3},
    "source": {"type": "string", "pattern": r"\S"},
    "tags": {"type": "array", "items": _TAG, "uniqueItems": True},
    "focus": {"type": "array", "items": {"type": "integer", "minimum": 1, "maximum": 5}, "uniqueItems": True},
    "prompt": TEXT,
    "code": _CODE,
    "explanation": TEXT,
}
_COMMON_REQUIRED = ["id", "type", "difficulty", "source", "tags", "prompt", "explanation"]


def _question(kind: str, extra: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {
        "$schema": _DRAFT,
        "$id": f"https://agentlab.invalid/quiz/{kind}.schema.json",
        "title": f"agentlab quiz question: {kind}",
        "type": "object",
        "properties": {**copy.deepcopy(_COMMON), "type": {"const": kind}, **extra},
        "required": _COMMON_REQUIRED + required,
        "additionalProperties": False,
    }


def _options(low: int, high: int) -> dict[str, Any]:
    return {"type": "array", "items": _OPTION, "minItems": low, "maxItems": high}


_BUG_LINES = {"type": "array", "items": {"type": "integer", "minimum": 1}, "minItems": 1, "uniqueItems": True}

SCHEMAS: dict[str, dict[str, Any]] = {
    "single": _question("single", {"options": _options(3, 5)}, ["options"]),
    "multiple": _question("multiple", {"options": _options(3, 6)}, ["options"]),
    "next_action": _question("next_action", {"response": _RESPONSE, "options": _options(3, 5)},
                             ["response", "options"]),
    "spot_the_bug": _question("spot_the_bug", {
        "bug_lines": _BUG_LINES, "bug_tag": _TAG, "fixed_code": _CODE, "options": _options(3, 5),
    }, ["code", "bug_lines", "bug_tag", "fixed_code", "options"]),
    "order": _question("order", {
        "lines": {"type": "array", "items": {"type": "string", "pattern": r"\S"}, "minItems": 3},
    }, ["lines"]),
    "fix_code": _question("fix_code", {"bug_tag": _TAG, "fixed_code": _CODE}, ["code", "bug_tag", "fixed_code"]),
}
"""One JSON Schema (draft 2020-12) per question type. The correct-count rules (exactly one
``correct: true`` for single answers) are semantic checks in the loader, with clearer errors."""

BANK_SCHEMA: dict[str, Any] = {
    "$schema": _DRAFT,
    "$id": "https://agentlab.invalid/quiz/bank.schema.json",
    "title": "agentlab quiz bank file (quizzes/<topic>.yaml)",
    "type": "object",
    "properties": {
        "topic": {"type": "string", "pattern": r"^[a-z][a-z0-9_]*$"},
        "title": TEXT,
        "questions": {"type": "array", "items": {"type": "object"}},
    },
    "required": ["topic", "title", "questions"],
    "additionalProperties": False,
}
"""The envelope of a bank file; each question is then checked against ``SCHEMAS[type]``."""


def schema(kind: str) -> dict[str, Any]:
    """A copy of the JSON Schema of question type ``kind``.

    Raises:
        ValueError: for an unknown type (the message lists the types).
    """
    if kind not in SCHEMAS:
        raise ValueError(f"unknown question type {kind!r}; one of {', '.join(QUESTION_TYPES)}")
    return copy.deepcopy(SCHEMAS[kind])
