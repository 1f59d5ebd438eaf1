"""Which fields each request object accepts, derived from the installed SDK's request types.

The API rejects a field it does not know with pydantic's text ``<path>: Extra inputs are not
permitted`` (400 ``invalid_request_error``; [OBS] ``messages.0.name: Extra inputs are not
permitted``, https://github.com/microsoft/autogen/issues/3034; ``context_management: Extra inputs
are not permitted``, https://github.com/anthropics/claude-code/issues/14135;
``messages.65.content.1.tool_use.text: ...``, https://github.com/anthropics/claude-code/issues/4378;
``messages.13.content.0.thinking.cache_control: ...``, https://github.com/Wei-Shaw/sub2api/issues/225;
``system.1.cache_control.ephemeral.scope: ...``, https://github.com/caozhiyuan/copilot-api/issues/145;
``tools.23.custom.defer_loading``, ``tools.0.web_search_20250305.input_schema``,
``thinking.adaptive.effort``, ``tool_result.content.0.text.annotations``, all quoted in public code).

The allowed fields are not written down here: :func:`request_shape` walks the SDK's own request
types once (``MessageCreateParams`` and ``MessageCountTokensParams``, plain and beta, with every
TypedDict and response model they reach through their annotations) and caches the result, so a
field a new SDK adds is accepted without a change here. The response models are part of it on
purpose: the SDK's content-block unions include them (a loop may append ``response.content``
verbatim) and re-sends the fields they were given, explicit nulls included (reference 0.3:
``"citations": null``, ``"caller": {...}``, ``"toolset_name"``), so nothing the fake returns is
ever an extra input. At request time only plain dict and set operations run (no pydantic).

How a path is spelled (pydantic's, as the observed texts show): list items by index; a member of a
union of ``type``-tagged objects by its tag (``messages.0.content.1.tool_use.text``,
``tools.3.custom.strict``, ``thinking.adaptive.effort``, ``tool_choice.auto.x``); a lone object
type without its tag (``system.1.cache_control``), except ``cache_control``, which the API tags
(``cache_control.ephemeral.scope``); a union without a ``type`` tag (a message: user, assistant,
system) without a tag (``messages.0.name``). A custom tool without ``type`` is tagged ``custom``
(``tools.16.custom.name``, reference 3.4).

Approximations (the fake's choices, where the real behaviour is not known or not modelled):

- The plain and beta request types are merged, so a beta-only field is accepted without its
  ``anthropic-beta`` header (the API rejects some, e.g. ``thinking.adaptive.block_binding``) and
  ``count_tokens`` accepts what ``create`` does (and the reverse).
- ``temperature``, ``top_p`` and ``top_k`` are accepted at the top level although the installed
  SDK no longer declares them: the API still takes them on models that allow sampling (issue 10;
  the per-model sampling rules judge their values). So is the structured-outputs beta's
  top-level ``output_format`` (deprecated for ``output_config.format``, still taken by the API and
  sent by litellm; rules 4j/4k check it, ``_rules._output_formats``). ``betas`` is not a body
  field (the SDK sends it as the ``anthropic-beta`` header) and is rejected.
- Only the first extra field is reported (pydantic lists every error, joined by ``", "``).
- Objects whose SDK type is a free-form ``Dict[str, object]`` (a tool's ``input_schema``, a
  ``tool_use`` block's ``input``) accept anything.
"""

from __future__ import annotations

import collections.abc
import functools
import types
import typing
from typing import Any

import typing_extensions

__all__ = ["Shape", "request_shape", "first_extra", "tool_required_fields"]

ALWAYS_TAGGED = frozenset({"cache_control"})
"""Field names whose object the API tags by ``type`` even where the SDK declares one type
(``system.1.cache_control.ephemeral.scope`` [OBS])."""

TOP_LEVEL_BEYOND_SDK = frozenset({"temperature", "top_p", "top_k", "output_format"})
"""Top-level parameters the API accepts that the installed SDK does not declare (module docstring)."""

NOT_BODY_FIELDS = frozenset({"betas"})
"""SDK parameters that never reach the body (sent as headers)."""


class Shape:
    """The accepted fields of one place in a request body.

    An object is either untagged (``fields``) or a union tagged by ``type`` (``tags``, with
    ``default`` the tag assumed when ``type`` is absent); ``items`` describes list items.
    ``fields`` maps each accepted key to the Shape of its value, or None when the value is not
    checked (strings, numbers, free-form dicts). ``free`` means any object is accepted.
    """

    __slots__ = ("fields", "tags", "default", "items", "free", "allowed", "nested", "nested_keys", "own_tag")

    def __init__(self) -> None:
        self.fields: dict[str, Shape | None] | None = None
        self.tags: dict[str, dict[str, Shape | None]] | None = None
        self.default: str | None = None
        self.items: Shape | None = None
        self.free = False
        self.own_tag: str | None = None
        """For an untagged object of one type: that type's tag (used when merged into a union)."""
        self.allowed: dict[str, frozenset[str]] = {}
        """Per tag (``""`` when untagged): the accepted keys, set by :meth:`finish`."""
        self.nested: dict[str, tuple[tuple[str, Shape], ...]] = {}
        """Per tag: the keys whose value has a Shape of its own (the only ones walked into)."""
        self.nested_keys: dict[str, frozenset[str]] = {}

    def finish(self) -> None:
        """Freeze the key sets used at request time (after building and merging)."""
        variants = dict(self.tags or {})
        if self.fields is not None:
            variants[""] = self.fields
        for tag, fields in variants.items():
            self.allowed[tag] = frozenset(fields)
            self.nested[tag] = tuple((k, v) for k, v in fields.items() if v is not None)
            self.nested_keys[tag] = frozenset(k for k, _ in self.nested[tag])


# ---------------------------------------------------------------------------------- building

_LIST_ORIGINS = (list, tuple, set, frozenset, collections.abc.Iterable, collections.abc.Sequence,
                 collections.abc.Collection, collections.abc.Set)
_WRAPPERS = ("Required", "NotRequired", "ReadOnly")


def _strip(annotation: Any) -> Any:
    """Drop ``Required``/``NotRequired``/``Annotated`` wrappers."""
    while True:
        origin = typing_extensions.get_origin(annotation)
        if origin is typing.Annotated:
            annotation = typing_extensions.get_args(annotation)[0]
        elif origin is not None and getattr(origin, "_name", None) in _WRAPPERS:
            annotation = typing_extensions.get_args(annotation)[0]
        elif getattr(annotation, "_name", None) in _WRAPPERS and typing_extensions.get_args(annotation):
            annotation = typing_extensions.get_args(annotation)[0]
        else:
            return annotation


def _members(annotation: Any) -> list[Any]:
    annotation = _strip(annotation)
    origin = typing_extensions.get_origin(annotation)
    if origin is typing.Union or origin is types.UnionType:
        return [m for arg in typing_extensions.get_args(annotation) for m in _members(arg)]
    return [annotation]


def _is_model(cls: Any) -> bool:
    return isinstance(cls, type) and hasattr(cls, "model_fields")


def _is_object_type(cls: Any) -> bool:
    return isinstance(cls, type) and (typing_extensions.is_typeddict(cls) or _is_model(cls))


@functools.cache
def _class_fields(cls: type) -> dict[str, Any]:
    """``wire name -> annotation`` of a TypedDict or a pydantic model (its aliases)."""
    if _is_model(cls):
        return {(info.alias or name): info.annotation for name, info in cls.model_fields.items()}
    try:
        return typing_extensions.get_type_hints(cls, include_extras=True)
    except Exception:  # an unresolvable forward reference: keep the names, check nothing below them
        return {name: Any for name in getattr(cls, "__annotations__", {})}


def _is_wrapped(annotation: Any, name: str) -> bool:
    origin = typing_extensions.get_origin(annotation)
    return getattr(origin, "_name", None) == name or getattr(annotation, "_name", None) == name


@functools.cache
def _tag_of(cls: type) -> tuple[str | None, bool]:
    """``(tag, optional)``: the ``type`` Literal of a class, and whether ``type`` may be absent.

    The SDK's TypedDicts are ``total=False`` with ``Required[...]`` written in string annotations,
    so ``__optional_keys__`` cannot be trusted: the resolved annotation says it.
    """
    annotation = _class_fields(cls).get("type")
    if annotation is None:
        return None, False
    if _is_model(cls):
        optional = not cls.model_fields["type"].is_required()
    else:
        optional = _is_wrapped(annotation, "NotRequired") or (
            not getattr(cls, "__total__", True) and not _is_wrapped(annotation, "Required"))
    for member in _members(annotation):
        if member is type(None):
            optional = True
        elif typing_extensions.get_origin(member) is typing.Literal and typing_extensions.get_args(member):
            tag = typing_extensions.get_args(member)[0]
            return (tag if isinstance(tag, str) else None), optional
    return None, False


class _Builder:
    def __init__(self) -> None:
        self.class_fields: dict[type, dict[str, Shape | None]] = {}

    def fields_of(self, cls: type) -> dict[str, Shape | None]:
        cached = self.class_fields.get(cls)
        if cached is not None:
            return cached
        fields: dict[str, Shape | None] = {}
        self.class_fields[cls] = fields  # placeholder first: recursive types end here
        for name, annotation in _class_fields(cls).items():
            fields[name] = self.shape(annotation, force_tag=name in ALWAYS_TAGGED)
        return fields

    def shape(self, annotation: Any, *, force_tag: bool = False) -> Shape | None:
        """The Shape of a value of this annotation, or None when nothing inside it is checked."""
        objects: list[type] = []
        item_annotations: list[Any] = []
        free = False
        for member in _members(annotation):
            member = _strip(member)
            origin = typing_extensions.get_origin(member)
            if _is_object_type(member):
                objects.append(member)
            elif origin in _LIST_ORIGINS or getattr(member, "_name", None) == "SequenceNotStr" or (
                    origin is not None and getattr(origin, "__name__", "") == "SequenceNotStr"):
                args = typing_extensions.get_args(member)
                if args:
                    item_annotations.append(args[0])
            elif origin in (dict, collections.abc.Mapping) or member in (dict, object, Any) or member is typing.Any:
                free = True
        if not objects and not item_annotations:
            return None  # scalars, or a free-form dict: nothing inside is checked
        result = Shape()
        result.free = free
        if objects and not free:
            tagged = [(cls, *_tag_of(cls)) for cls in objects]
            if (len(objects) > 1 or force_tag) and any(tag for _, tag, _ in tagged):
                result.tags = {}
                for cls, tag, optional in tagged:
                    key = tag or ""
                    _merge_fields_into(result.tags.setdefault(key, {}), self.fields_of(cls))
                    if optional and result.default is None:
                        result.default = key
            else:
                result.fields = {}
                result.own_tag = tagged[0][1] if len(objects) == 1 else None
                for cls in objects:
                    _merge_fields_into(result.fields, self.fields_of(cls))
        if item_annotations:
            items = [self.shape(a) for a in item_annotations]
            result.items = functools.reduce(_merge, items) if None not in items else None
        return result


def _merge_fields_into(target: dict[str, Shape | None], source: dict[str, Shape | None]) -> None:
    for name, shape in source.items():
        target[name] = _merge(target[name], shape) if name in target else shape


def _merge(a: Shape | None, b: Shape | None, _seen: dict[tuple[int, int], Shape] | None = None) -> Shape | None:
    """A Shape accepting what either accepts (None, i.e. unchecked, wins)."""
    if a is None or b is None:
        return None
    if a is b:
        return a
    seen = {} if _seen is None else _seen
    key = (id(a), id(b))
    if key in seen:
        return seen[key]
    result = seen[key] = Shape()
    result.free = a.free or b.free
    if not result.free:
        if a.tags is not None or b.tags is not None:
            result.tags = {}
            for side in (a, b):
                if side.tags is not None:
                    for tag, fields in side.tags.items():
                        _merge_fields_seen(result.tags.setdefault(tag, {}), fields, seen)
                elif side.fields is not None:  # an untagged object merged into a union: its own variant
                    _merge_fields_seen(result.tags.setdefault(side.own_tag or "", {}), side.fields, seen)
            result.default = a.default or b.default
        elif a.fields is not None or b.fields is not None:
            result.fields = {}
            result.own_tag = a.own_tag if a.own_tag == b.own_tag else None
            for side in (a, b):
                _merge_fields_seen(result.fields, side.fields or {}, seen)
    if a.items is not None and b.items is not None:
        result.items = _merge(a.items, b.items, seen)
    else:
        result.items = a.items or b.items
    return result


def _merge_fields_seen(target: dict[str, Shape | None], source: dict[str, Shape | None],
                       seen: dict[tuple[int, int], Shape]) -> None:
    for name, shape in source.items():
        target[name] = _merge(target[name], shape, seen) if name in target else shape


def _finish_all(root: Shape) -> None:
    stack, done = [root], set()
    while stack:
        shape = stack.pop()
        if id(shape) in done:
            continue
        done.add(id(shape))
        shape.finish()
        children = list((shape.fields or {}).values())
        for fields in (shape.tags or {}).values():
            children.extend(fields.values())
        children.append(shape.items)
        stack.extend(child for child in children if child is not None)


@functools.cache
def request_shape() -> Shape:
    """The Shape of a ``/v1/messages`` or ``count_tokens`` body, built once from the installed SDK.

    Returns:
        The top-level Shape (untagged object). Takes a few hundred milliseconds the first time
        (it walks several hundred SDK types); cached for the life of the process.
    """
    from anthropic.types import message_count_tokens_params, message_create_params
    from anthropic.types.beta import message_count_tokens_params as beta_count
    from anthropic.types.beta import message_create_params as beta_create

    builder = _Builder()
    roots = [builder.shape(cls) for cls in (
        message_create_params.MessageCreateParamsNonStreaming, message_create_params.MessageCreateParamsStreaming,
        beta_create.MessageCreateParamsNonStreaming, beta_create.MessageCreateParamsStreaming,
        message_count_tokens_params.MessageCountTokensParams, beta_count.MessageCountTokensParams)]
    root = functools.reduce(_merge, roots)
    assert root is not None and root.fields is not None
    root.fields = {name: shape for name, shape in root.fields.items() if name not in NOT_BODY_FIELDS}
    for name in TOP_LEVEL_BEYOND_SDK:
        root.fields.setdefault(name, None)
    _finish_all(root)
    return root


# ---------------------------------------------------------------------------------- checking


def first_extra(value: Any, shape: Shape | None, path: tuple[Any, ...] = ()) -> tuple[Any, ...] | None:
    """The path of the first field ``shape`` does not accept, depth first in key order, or None.

    Args:
        value: any JSON value (a malformed one is not an error here: shape rules report it).
        shape: where ``value`` sits (from :func:`request_shape`), None to check nothing.
        path: the path of ``value`` (pydantic style parts, joined with ``.`` by the caller).

    Returns:
        The extra field's path, tag included (``("messages", 0, "content", 1, "tool_use", "text")``).
    """
    found = _walk(value, shape) if shape is not None else None
    return (*path, *reversed(found)) if found else None


def _walk(value: Any, shape: Shape) -> list[Any] | None:
    """``first_extra`` without building paths on the way down: the path comes back reversed,
    built only when something is found (this runs on every block of every request)."""
    if type(value) is dict:
        if shape.free:
            return None
        if shape.tags is not None:
            tag = value.get("type")
            if tag is None:
                tag = shape.default
            allowed = shape.allowed.get(tag) if type(tag) is str else None
            if allowed is None:
                return None  # unknown or missing tag: the shape rules' business
        elif shape.fields is not None:
            tag = ""
            allowed = shape.allowed[""]
        else:
            return None
        found = None
        if not value.keys() <= allowed:
            found = [next(key for key in value if key not in allowed)]
        elif value.keys().isdisjoint(shape.nested_keys[tag]):
            return None  # nothing inside to walk into (the common text block)
        else:
            for key, child in shape.nested[tag]:
                item = value.get(key)
                if type(item) is dict or type(item) is list:
                    found = _walk(item, child)
                    if found is not None:
                        found.append(key)
                        break
        if found is not None and tag:
            found.append(tag)
        return found
    if type(value) is list:
        items = shape.items
        if items is not None:
            for i, item in enumerate(value):
                if type(item) is dict or type(item) is list:
                    found = _walk(item, items)
                    if found is not None:
                        found.append(i)
                        return found
    return None


def _tool_classes() -> list[type]:
    """The TypedDicts of the ``tools`` union of the SDK's request types (plain and beta)."""
    from anthropic.types import message_count_tokens_params, message_create_params
    from anthropic.types.beta import message_count_tokens_params as beta_count
    from anthropic.types.beta import message_create_params as beta_create

    classes: list[type] = []
    for root in (message_create_params.MessageCreateParamsBase, beta_create.MessageCreateParamsBase,
                 message_count_tokens_params.MessageCountTokensParams, beta_count.MessageCountTokensParams):
        annotation = _strip(_class_fields(root)["tools"])
        for item in typing_extensions.get_args(annotation):
            classes.extend(m for m in _members(item) if typing_extensions.is_typeddict(m) and m not in classes)
    return classes


@functools.cache
def tool_required_fields() -> dict[str, tuple[str, ...]]:
    """Which fields each tool type requires, derived from the installed SDK's tool TypedDicts.

    Returns:
        ``tool type tag -> required field names`` (declaration order, ``type`` left out), for every
        member of the ``tools`` union of ``MessageCreateParams``/``MessageCountTokensParams``, plain and
        beta; a custom tool is ``"custom"`` (``name``, ``input_schema``), ``mcp_toolset`` is
        ``("mcp_server_name",)``, ``browser_toolset_20260801`` ``()``. When the plain and beta types of
        one tag disagree, only the fields both require are kept (never a false rejection). The SDK's
        TypedDicts are ``total=False`` with ``Required[...]`` in string annotations, so
        ``__required_keys__`` is empty: the resolved annotation says which are required. Cached.
    """
    result: dict[str, tuple[str, ...]] = {}
    for cls in _tool_classes():
        tag, _ = _tag_of(cls)
        if tag is None:
            continue
        required = tuple(name for name, annotation in _class_fields(cls).items()
                         if name != "type" and _is_wrapped(annotation, "Required"))
        result[tag] = tuple(n for n in result[tag] if n in required) if tag in result else required
    return result
