"""The fake Models API: ``GET /v1/models`` and ``GET /v1/models/{model_id}`` from the catalogue.

Shapes follow the installed SDK (``anthropic/types/model_info.py``, ``model_capabilities.py``,
``model_list_params.py``, ``pagination.py``: ``SyncPage`` reads ``data``, ``has_more``,
``first_id``, ``last_id`` and pages with ``after_id`` / ``before_id``), so ``client.models.list()``
(auto-pagination included) and ``client.models.retrieve(id)`` work on the fake:

- The list holds ``active`` and ``deprecated`` models unless ``lifecycle`` asks for others
  (``retired`` models "appear only when retired is requested explicitly"), most recently released
  first, ``limit`` 1-1000 (default 20) [SDK ``model_list_params.py``, ``resources/models.py``].
- ``retrieve`` takes an id or an alias ("resolve a model alias to a model ID": the answer's ``id``
  is the canonical, dated id) and answers retired models too ("It remains in the catalogue as the
  historical record of its retirement") [SDK ``model_info.py``].
- Lifecycle is computed on ``today`` (``ValidationOptions.today``, default the catalogue date),
  never the wall clock; ``created_at`` and the other dates come from the catalogue (``_models``).

Unknown: the fake's choice: the 404 text for an unknown id (rule 5's ``model: <id>``), the 400
texts for bad query parameters (pydantic style), and every capability but ``thinking`` (which
follows the catalogue's ``thinking_types``) and ``effort`` (supported where adaptive thinking is).
"""

from __future__ import annotations

from datetime import date
from typing import Any
from urllib.parse import parse_qsl, unquote

from ._context import ApiError
from ._models import MODELS, ModelSpec, get_model

__all__ = ["answer", "model_info"]

_LIFECYCLES = ("active", "deprecated", "retired")
_DEFAULT_LIMIT = 20
_MAX_LIMIT = 1000
_PREFIX = "/v1/models"


def _timestamp(day: date | None) -> str | None:
    """RFC 3339, midnight UTC (the API's ``created_at`` style)."""
    return None if day is None else f"{day.isoformat()}T00:00:00Z"


def _yes(flag: bool = True) -> dict[str, bool]:
    return {"supported": flag}


def _capabilities(spec: ModelSpec) -> dict[str, Any]:
    """A full ``ModelCapabilities`` object (every key present, as the SDK's docstring says)."""
    types = spec.thinking_types
    adaptive = "adaptive" in types
    return {
        "batch": _yes(),
        "citations": _yes(),
        "code_execution": _yes(),
        "context_management": {"supported": True, "clear_thinking_20251015": _yes(),
                               "clear_tool_uses_20250919": _yes(), "compact_20260112": _yes(adaptive)},
        "effort": {"supported": adaptive, "low": _yes(adaptive), "medium": _yes(adaptive), "high": _yes(adaptive),
                   "max": _yes(adaptive), "xhigh": _yes(adaptive and "enabled" not in types)},
        "image_input": _yes(),
        "pdf_input": _yes(),
        "server_tools": {"supported": True, "code_execution": _yes(), "web_search": _yes()},
        "structured_outputs": _yes(),
        "thinking": {"supported": True,
                     "types": {kind: _yes(kind in types) for kind in ("adaptive", "between_tools", "disabled",
                                                                      "enabled")}},
    }


def model_info(spec: ModelSpec, today: date) -> dict[str, Any]:
    """The ``ModelInfo`` JSON for one catalogue model on ``today``.

    Returns:
        ``{"type": "model", "id", "display_name", "created_at", "lifecycle", "deprecated_at",
        "retires_at", "line", "max_input_tokens", "max_tokens", "capabilities"}``; dates as RFC 3339
        strings, token limits in tokens.
    """
    lifecycle = spec.lifecycle(today)
    return {
        "type": "model",
        "id": spec.id,
        "display_name": spec.display_name,
        "created_at": _timestamp(spec.created_at),
        "lifecycle": lifecycle,
        "deprecated_at": _timestamp(spec.deprecated_at) if lifecycle != "active" else None,
        "retires_at": _timestamp(spec.retires_at) if lifecycle != "active" else None,
        "line": spec.line,
        "max_input_tokens": spec.context_window,
        "max_tokens": spec.max_output_tokens,
        "capabilities": _capabilities(spec),
    }


def _bad(message: str) -> ApiError:
    return ApiError(status=400, error_type="invalid_request_error", message=message, rule="models",
                    headers={"x-should-retry": "false"})


def _not_found(model_id: str) -> ApiError:
    return ApiError(status=404, error_type="not_found_error", message=f"model: {model_id}", rule="models",
                    headers={"x-should-retry": "false"})


def _ordered() -> list[ModelSpec]:
    """Every model, most recently released first (ties by id, so the order is stable)."""
    return sorted(MODELS.values(), key=lambda s: (s.created_at, s.id), reverse=True)


def _list(query: str, today: date) -> dict[str, Any] | ApiError:
    params: dict[str, list[str]] = {}
    for key, value in parse_qsl(query, keep_blank_values=True):
        params.setdefault(key.removesuffix("[]"), []).append(value)
    raw_limit = params.get("limit", [str(_DEFAULT_LIMIT)])[-1]
    try:
        limit = int(raw_limit)
    except ValueError:
        return _bad("limit: Input should be a valid integer")
    if not 1 <= limit <= _MAX_LIMIT:
        return _bad(f"limit: Input should be {'greater than or equal to 1' if limit < 1 else 'less than or equal to 1000'}")
    wanted = [part for value in params.get("lifecycle", []) for part in value.split(",") if part]
    for value in wanted:
        if value not in _LIFECYCLES:
            return _bad("lifecycle: Input should be 'active', 'deprecated' or 'retired'")
    stages = set(wanted) or {"active", "deprecated"}
    models = [spec for spec in _ordered() if spec.lifecycle(today) in stages]
    ids = [spec.id for spec in models]
    after, before = params.get("after_id", [None])[-1], params.get("before_id", [None])[-1]
    if after is not None and before is not None:
        return _bad("after_id: cannot be combined with before_id")
    start, stop, has_more = 0, len(models), False
    for name, cursor in (("after_id", after), ("before_id", before)):
        if cursor is None:
            continue
        spec = get_model(cursor)
        if spec is None or spec.id not in ids:
            return _bad(f"{name}: no model with id '{cursor}' in this list")
        if name == "after_id":
            start = ids.index(spec.id) + 1
            stop = min(len(models), start + limit)
            has_more = stop < len(models)
        else:
            stop = ids.index(spec.id)
            start = max(0, stop - limit)
            has_more = start > 0
    if after is None and before is None:
        stop = min(len(models), limit)
        has_more = stop < len(models)
    page = models[start:stop]
    return {
        "data": [model_info(spec, today) for spec in page],
        "first_id": page[0].id if page else None,
        "last_id": page[-1].id if page else None,
        "has_more": has_more,
    }


def answer(path: str, query: str, today: date) -> dict[str, Any] | ApiError:
    """Answer a Models API GET.

    Args:
        path: the URL path, ``/v1/models`` or ``/v1/models/{model_id}`` (percent-encoded).
        query: the raw query string (``limit=2&after_id=...&lifecycle[]=retired``).
        today: the day lifecycle is computed on.

    Returns:
        The JSON body (a page or a ``ModelInfo``), or the :class:`ApiError` to answer with: 404
        ``not_found_error`` ``model: <id>`` for an id the catalogue lacks, 400 for bad query values.
    """
    rest = path[len(_PREFIX):].strip("/")
    if not rest:
        return _list(query, today)
    model_id = unquote(rest)
    spec = get_model(model_id)
    return _not_found(model_id) if spec is None else model_info(spec, today)
