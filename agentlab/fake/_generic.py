"""The generic model: a scenario for anyone's agent loop, driven by the request's own tools.

Modelled on pydantic-ai's ``TestModel`` (STYLE.md section 2; the idea, not its code): the
model reads the ``tools`` the request carries (client tools; of the server tools it simulates
``web_search``: a ``server_tool_use``, its ``web_search_tool_result`` and a text answer, when
``tool_choice`` names it, or under ``any``/``auto`` when no client tool is given; other server tools
get a text that says the fake does not run them, never a client ``tool_use``), calls
them with arguments valid under each ``input_schema`` (made by
:mod:`~agentlab.fake._schema_values`, seeded by the scenario name, the tool and the prompt),
reads the ``tool_result`` blocks, and ends with an ``end_turn`` answer that quotes what the
tools returned. Without tools it answers plain text that refers to the prompt. With thinking on
(``enabled``, or ``adaptive`` without a forced ``tool_choice``: reference 3.3) each assistant turn
starts with a thinking block. It is a pure function of the request: same request, same reply; nothing comes from the clock.

One *task* is what follows the last user message that carries text (a new question in a chat
starts a new task). Within a task, per request:

1. ``tool_choice`` first (reference 3.4): ``none`` answers in text; ``{"type": "tool", "name"}``
   calls that tool; ``any`` calls the next planned tool; once the plan is done, the answer tool,
   else a tool not called yet, else the plan's first tool again (a loop that forces tool use every
   time never ends, as on the real API).
2. An ``is_error`` result makes it react: the call is retried once with other arguments (they
   really differ: every optional property filled in, else the first string in another case,
   "Oslo" -> "oslo", else other seeds; see ``_arguments``); a second error gives up on that tool,
   and the final answer says it failed.
3. Otherwise the next tool of the plan that has not been called yet: one call per assistant
   turn, or all of them in one turn with ``parallel=True`` (unless the request sets
   ``disable_parallel_tool_use``).
4. After ``steps`` tool-calling turns, or when the plan is done: the final ``end_turn`` text, or,
   when the request has an *answer tool* (:func:`is_answer_tool`: pydantic-ai's ``final_result``,
   ``final_answer``, ``submit_answer``, ``respond``...), a call to it with schema-valid arguments
   instead (under ``auto`` and ``any``); answer tools are never steps of the plan. After the answer
   tool's result, the final text.

When the system prompt asks for JSON under a schema it gives in its text (pydantic-ai's
``PromptedOutput``), the final text is JSON valid under that schema (:func:`schema_in_instructions`).

Which tools make the plan (``call_tools``):

=============  ===================================================================================
``"auto"``     the tools whose name or description shares a word with the prompt, in request
               order; the first tool when none does (the default)
``"first"``    the first client tool only
``"all"``      every client tool, each once ("call every tool")
``"none"``     no tool: always a text answer
``[names]``    those tools, in the order given (names the request lacks are skipped)
=============  ===================================================================================

A client tool with ``defer_loading: true`` (tool search) is not callable until a ``tool_result``
in the conversation holds a ``tool_reference`` block naming it, so the model first calls the tools
it can see (a client-side search tool) and the deferred tool once the search has loaded it.
Server tools, a server-side tool search included, are not run by the generic model.

Under structured outputs the final text is replaced by schema-valid JSON (``_model``).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Sequence

from ._replies import (SIMULATED_SERVER_TOOLS, Reply, server_tool_kind, text, thinking, tool_uses,
                       unsupported_server_tool, web_search)
from ._scenario import RunTool, Scenario, Turn
from ._schema_values import is_valid, prompt_words, tool_input, value_for

__all__ = ["generic", "GenericOptions", "generic_policy", "is_answer_tool", "schema_in_instructions", "DEFAULT_STEPS"]

DEFAULT_STEPS = 10
"""Tool-calling assistant turns per task before the generic model answers anyway."""

QUOTE_CHARS = 500
"""Characters of each tool result the final answer quotes (the rest is cut, with an ellipsis)."""

MAX_QUOTED_CALLS = 20
"""Tool calls the final answer lists (the last ones of the task)."""

_PROMPT_CHARS = 200


@dataclass(frozen=True, kw_only=True)
class GenericOptions:
    """What the generic model does, as data (see the module docstring)."""

    call_tools: str | tuple[str, ...] = "auto"
    """``"auto"``, ``"first"``, ``"all"``, ``"none"`` or a tuple of tool names."""
    parallel: bool = False
    """Call every planned tool in one assistant turn (parallel tool use) instead of one per turn."""
    steps: int = DEFAULT_STEPS
    """Most tool-calling assistant turns per task (retries included); then the final answer."""
    final_text: str | None = None
    """The final answer's text instead of the quoting summary; ``{prompt}`` and ``{results}`` in it
    are replaced by the task's prompt and the summary of the tool results."""
    retry_errors: bool = True
    """Retry a call once, with other arguments, after an ``is_error`` result."""
    seed: str = "generic"
    """Seeds the generated arguments (the scenario name by default)."""

    def __post_init__(self) -> None:
        if isinstance(self.call_tools, str):
            if self.call_tools not in ("auto", "first", "all", "none"):
                raise ValueError(f"call_tools must be 'auto', 'first', 'all', 'none' or a list of tool names, "
                                 f"not {self.call_tools!r}")
        elif not all(isinstance(n, str) for n in self.call_tools):
            raise TypeError("call_tools: a list of tool names must hold strings only")
        if not isinstance(self.steps, int) or isinstance(self.steps, bool) or self.steps < 0:
            raise ValueError(f"steps must be a non-negative int, not {self.steps!r}")


# ----------------------------------------------------------------------------------------------
# Reading the request
# ----------------------------------------------------------------------------------------------


def _safe(value: str) -> str:
    """``value`` with lone surrogates replaced, so an echo of it always encodes."""
    return value.encode("utf-8", "replace").decode("utf-8")


def _text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(b["text"] for b in content if isinstance(b, dict) and b.get("type") == "text"
                       and isinstance(b.get("text"), str))
    return ""


def _short(value: str, limit: int) -> str:
    value = " ".join(_safe(value).split())
    return value if len(value) <= limit else value[: limit - 1] + "…"


@dataclass
class _Call:
    """One client tool call of the current task and its result (None while unanswered)."""

    name: str
    input: dict[str, Any]
    result: str | None = None
    is_error: bool = False
    turn: int = 0


def _task(turn: Turn) -> tuple[str, list[_Call], int]:
    """(the task's prompt, its calls in order with their results, its tool-calling turns)."""
    messages = [m for m in turn.messages if isinstance(m, dict)]
    start = 0
    for i, message in enumerate(messages):
        if message.get("role") == "user" and _text_of(message.get("content")).strip():
            start = i
    prompt = _text_of(messages[start].get("content")) if messages else ""
    calls: list[_Call] = []
    by_id: dict[str, _Call] = {}
    turns = 0
    for message in messages[start + 1:]:
        content = message.get("content")
        if not isinstance(content, list):
            continue
        if message.get("role") == "assistant":
            uses = [b for b in content if isinstance(b, dict) and b.get("type") == "tool_use"]
            turns += bool(uses)
            for block in uses:
                call = _Call(str(block.get("name")), block.get("input") if isinstance(block.get("input"), dict) else {},
                             turn=turns)
                calls.append(call)
                if isinstance(block.get("id"), str):
                    by_id[block["id"]] = call
        elif message.get("role") == "user":
            for block in content:
                if isinstance(block, dict) and block.get("type") == "tool_result":
                    tool_use_id = block.get("tool_use_id")
                    call = by_id.get(tool_use_id) if isinstance(tool_use_id, str) else None
                    if call is not None:
                        call.result = _text_of(block.get("content"))
                        call.is_error = bool(block.get("is_error"))
    return prompt, calls, turns


def _referenced_tools(turn: Turn) -> set[str]:
    """Names that ``tool_reference`` blocks inside the conversation's ``tool_result`` blocks load
    (what a tool search returns: ``{"type": "tool_reference", "tool_name": ...}``)."""
    names: set[str] = set()
    for message in turn.messages:
        content = message.get("content") if isinstance(message, dict) else None
        if message.get("role") != "user" or not isinstance(content, list):
            continue
        for block in content:
            inner = block.get("content") if isinstance(block, dict) and block.get("type") == "tool_result" else None
            if isinstance(inner, list):
                names.update(b["tool_name"] for b in inner
                             if isinstance(b, dict) and b.get("type") == "tool_reference" and isinstance(b.get("tool_name"), str))
    return names


def _client_tools(turn: Turn) -> list[dict[str, Any]]:
    """The client tools the model can call now: a tool with ``defer_loading: true`` only once a tool
    search has returned a ``tool_reference`` to it (the Messages API docs on tool search: deferred
    tools are not loaded into the context until found)."""
    tools = [t for t in turn.tools if t.get("type") in (None, "custom") and isinstance(t.get("name"), str)]
    if not any(t.get("defer_loading") is True for t in tools):
        return tools
    loaded = _referenced_tools(turn)
    return [t for t in tools if t.get("defer_loading") is not True or t["name"] in loaded]


def _words(value: str) -> set[str]:
    return {w.lower()[:5] for w in prompt_words(value, limit=64) if len(w) >= 3 and not w.isdigit()}


def _split_name(name: str) -> str:
    return " ".join(re.split(r"[_\-\s]+|(?<=[a-z])(?=[A-Z])", name))


_ANSWER_NAME = re.compile(
    r"(?:final_?(?:result|answer|response|output)\w*"
    r"|(?:submit|return|give|provide|deliver|send)_?(?:the_?)?(?:final_?)?(?:answer|result|response|output)s?"
    r"|submit|respond|answer|reply)", re.IGNORECASE)
_ANSWER_DESCRIPTION = re.compile(
    r"\bfinal (?:answer|result|response|output)\b|\bends? (?:this|the) conversation\b", re.IGNORECASE)


def is_answer_tool(tool: dict[str, Any]) -> bool:
    """Whether ``tool`` is the tool meant for the final answer, not a step of the work: its name is
    ``final_result``/``final_result_<Type>`` (pydantic-ai's output tools, described "The final
    response which ends this conversation"), ``final_answer``, ``submit``, ``submit_answer``,
    ``respond``, ``answer``, ``reply``, ``return_result``... (the whole name), or its description
    speaks of the "final answer/result/response/output" or says it "ends this conversation".
    A tool named ``submit_order`` is an ordinary tool (it does something; it carries no answer).
    Unknown: the fake's choice of words, after pydantic-ai's ``_output.py`` and common agent code."""
    name = tool.get("name")
    description = tool.get("description")
    return (isinstance(name, str) and _ANSWER_NAME.fullmatch(name) is not None
            or isinstance(description, str) and _ANSWER_DESCRIPTION.search(description[:2_000]) is not None)


def _plan(tools: list[dict[str, Any]], options: GenericOptions, prompt: str) -> list[dict[str, Any]]:
    """The tools the model means to call for this task, in order. Answer tools
    (:func:`is_answer_tool`) are not steps of the plan (they come last, see the policy), unless
    ``call_tools`` names them."""
    if not tools:
        return []
    choice = options.call_tools
    if choice == "none":
        return []
    if isinstance(choice, str):
        tools = [t for t in tools if not is_answer_tool(t)]
        if not tools:
            return []
    if choice == "first":
        return tools[:1]
    if choice == "all":
        return list(tools)
    if choice == "auto":
        asked = _words(prompt)
        relevant = [t for t in tools
                    if asked & _words(f"{_split_name(t['name'])} {t.get('description') if isinstance(t.get('description'), str) else ''}")]
        return relevant or tools[:1]
    by_name = {t["name"]: t for t in tools}
    return [by_name[n] for n in choice if n in by_name]


# ----------------------------------------------------------------------------------------------
# The replies
# ----------------------------------------------------------------------------------------------


def _recased(value: dict[str, Any]) -> list[dict[str, Any]]:
    """``value`` with its first string property in another case: lower, Title, UPPER."""
    for key, item in value.items():
        if isinstance(item, str) and item.strip():
            return [{**value, key: form} for form in (item.lower(), item.title(), item.upper()) if form != item]
    return []


def _arguments(tool: dict[str, Any], options: GenericOptions, prompt: str, attempt: int,
               before: Sequence[dict[str, Any]] = (), results: str = "") -> dict[str, Any]:
    """The input of a call to ``tool``; on a retry (``before``: the inputs already sent to it this
    task) one that differs from each of them and is still valid: the seeded input, else with every
    optional property filled in, else its first string in another case (lower, Title, UPPER:
    "Oslo" -> "oslo"), else other seeds, else the input made without the prompt's words.
    ``results`` (the task's earlier tool results, joined) and the prompt give the entities that
    fill properties named for them (``_entities``: "CDG to JFK" -> origin/destination, an id a
    search returned -> ``flight_id``).
    Unknown: the fake's choice; a real model rewrites its arguments after an error."""
    schema = tool.get("input_schema")
    seed = f"{options.seed}/{tool['name']}/{attempt}"
    first = tool_input(schema, seed=seed, words=_safe(prompt), results=_safe(results))
    if not before or first not in before:
        return first
    candidates = [tool_input(schema, seed=seed, words=_safe(prompt), optional="all", results=_safe(results)),
                  *_recased(first)]
    candidates += [tool_input(schema, seed=f"{seed}/{k}", words=_safe(prompt)) for k in range(1, 4)]
    candidates.append(tool_input(schema, seed=seed))
    for candidate in candidates:
        if candidate not in before and (not isinstance(schema, dict) or is_valid(candidate, schema)):
            return candidate
    return first


def _summary(calls: Sequence[_Call]) -> str:
    """One line per call of the task: what it returned, or how it failed."""
    lines = []
    for call in list(calls)[-MAX_QUOTED_CALLS:]:
        args = _short(json.dumps(call.input, ensure_ascii=False), 120)
        said = _short(call.result or "", QUOTE_CHARS) or "(empty)"
        verb = "failed" if call.is_error else "returned"
        lines.append(f"- {call.name}({args}) {verb}: {said}")
    return "\n".join(lines)


_SCHEMA_KEYS = frozenset({"type", "properties", "$defs", "definitions", "anyOf", "oneOf", "allOf", "$ref", "enum"})
_ASKS_JSON = re.compile(r"\bJSON\b[^{]{0,300}\bschema\b|\bschema\b[^{]{0,300}\bJSON\b", re.IGNORECASE)


def schema_in_instructions(system: Any) -> dict[str, Any] | None:
    """The JSON Schema that the system prompt asks the answer to follow, or None: the system text
    mentions JSON and a schema (pydantic-ai's ``PromptedOutput``: "Always respond with a JSON object
    that's compatible with this schema: {...}") and holds a JSON object with schema keywords
    (``type``, ``properties``, ``$defs``, ``anyOf``...). Bounded: the first 50,000 characters,
    at most 50 candidate ``{``. Unknown: the fake's choice; a real model follows such text too."""
    source = _text_of(system)[:50_000]
    if "{" not in source or not _ASKS_JSON.search(source):
        return None
    decoder = json.JSONDecoder()
    start = source.find("{")
    for _ in range(50):
        if start < 0:
            break
        try:
            found, _end = decoder.raw_decode(source, start)
        except (ValueError, RecursionError):
            found = None
        if isinstance(found, dict) and _SCHEMA_KEYS & found.keys():
            return found
        start = source.find("{", start + 1)
    return None


def _final(prompt: str, calls: list[_Call], tools: list[dict[str, Any]], options: GenericOptions,
           *, reason: str = "", system: Any = None) -> Reply:
    if options.final_text is None:
        schema = schema_in_instructions(system)
        if schema is not None:  # the instructions ask for JSON under a schema: answer with exactly that
            results = "\n".join(c.result for c in calls if c.result is not None and not c.is_error)
            return text(json.dumps(value_for(schema, seed=f"{options.seed}/{prompt}", words=_safe(prompt),
                                             results=_safe(results)),
                                   ensure_ascii=False))
    asked = _short(prompt, _PROMPT_CHARS) or "(no text)"
    summary = _summary([c for c in calls if c.result is not None])
    if options.final_text is not None:
        return text(options.final_text.replace("{prompt}", asked).replace("{results}", summary) or summary or asked)
    if summary:
        failed = sorted({c.name for c in calls if c.is_error} - {c.name for c in calls if c.result is not None and not c.is_error})
        tail = f"\n{', '.join(failed)} failed; I could not get that part done." if failed else ""
        head = f"Here is what the tools returned for “{asked}”:"
        if reason:
            head = f"{reason} {head}"
        return text(f"{head}\n{summary}{tail}")
    if tools:
        why = reason or "I answered without calling a tool."
        return text(f"You asked: “{asked}”. {why}")
    return text(f"You asked: “{asked}”. No tools came with this request, so this text is my whole answer.")


def _server_choice(turn: Turn, servers: list[tuple[str, str]], has_client_tools: bool, kind: str,
                   forced_name: Any) -> tuple[str, str] | None:
    """The server tool ``(name, kind)`` this turn uses, or None: the one ``tool_choice`` names;
    under ``any`` with no client tool, the first server tool (a simulated one first); under
    ``auto`` with no client tool, ``web_search`` once per task (the request holds nothing else
    to use). Unknown: the fake's choice."""
    if kind == "tool":
        return next((s for s in servers if s[0] == forced_name), None)
    if has_client_tools:
        return None
    if kind == "any":
        return sorted(servers, key=lambda s: s[1] not in SIMULATED_SERVER_TOOLS)[0]
    if kind == "auto":
        start = max((i for i, m in enumerate(turn.messages) if m.get("role") == "user"
                     and _text_of(m.get("content")).strip()), default=0)
        searched = any(isinstance(b, dict) and b.get("type") == "server_tool_use"
                       for m in turn.messages[start:] if m.get("role") == "assistant"
                       and isinstance(m.get("content"), list) for b in m["content"])
        return None if searched else next((s for s in servers if s[1] == "web_search"), None)
    return None


def _server_call(name: str, kind: str, prompt: str) -> Reply:
    """A simulated web search on the task's prompt, or text saying the fake does not run ``name``."""
    if kind == "web_search":
        return web_search(_short(prompt, 200))
    return unsupported_server_tool(name)


def _thinks(turn: Turn) -> bool:
    """Whether this request's assistant turn starts with a thinking block: thinking is on
    (``enabled`` or ``adaptive``), except adaptive thinking under a forced ``tool_choice``
    (``any``/``tool``), where the API skips thinking (reference 3.3). Manual thinking with a
    forced tool is a 400 before any policy runs (rules)."""
    thinking = turn.thinking if isinstance(turn.thinking, dict) else {}
    kind = thinking.get("type")
    if kind == "enabled":
        return True
    choice = turn.tool_choice if isinstance(turn.tool_choice, dict) else {}
    return kind == "adaptive" and choice.get("type") not in ("any", "tool")


def _thought(prompt: str, answer: Reply) -> str:
    """A short, deterministic thought about what ``answer`` does next (unknown: the fake's words)."""
    asked = _short(prompt, 120) or "(no text)"
    calls = [b["name"] for b in answer.content if b.get("type") in ("tool_use", "server_tool_use")]
    if calls:
        return f"The user asks: “{asked}”. Next step: call {', '.join(calls)}."
    return f"The user asks: “{asked}”. I have what I need to answer."


def generic_policy(options: GenericOptions) -> "Any":
    """The policy (``Turn -> Reply``) of a generic model with ``options``. When the request turns
    thinking on (:func:`_thinks`), every assistant turn starts with a thinking block (the fake
    signs it when it issues the turn: ``_model._assign_ids``)."""

    decide = _generic_decide(options)

    def policy(turn: Turn) -> Reply:
        answer = decide(turn)
        if _thinks(turn) and not any(b.get("type") in ("thinking", "redacted_thinking") for b in answer.content):
            answer = thinking(_thought(_task(turn)[0], answer), answer)
        return answer

    policy.__doc__ = f"The generic model's policy ({options})."
    return policy


def _generic_decide(options: GenericOptions) -> "Any":
    """The generic model's choice of reply, before thinking (see :func:`generic_policy`)."""

    def policy(turn: Turn) -> Reply:
        tools = _client_tools(turn)
        prompt, calls, turns = _task(turn)
        choice = turn.tool_choice if isinstance(turn.tool_choice, dict) else {}
        kind = choice.get("type", "auto")
        one_at_a_time = not options.parallel or bool(choice.get("disable_parallel_tool_use"))
        by_name = {t["name"]: t for t in tools}

        def attempts(name: str) -> int:
            return sum(1 for c in calls if c.name == name)

        def call(tool: dict[str, Any]) -> tuple[str, dict[str, Any]]:
            before = [c.input for c in calls if c.name == tool["name"]]
            results = "\n".join(c.result for c in calls if c.result is not None and not c.is_error)
            return tool["name"], _arguments(tool, options, prompt, attempts(tool["name"]), before, results)

        servers = [(t["name"], server_tool_kind(t)) for t in turn.tools
                   if server_tool_kind(t) and isinstance(t.get("name"), str)]
        if servers and kind != "none":
            server = _server_choice(turn, servers, bool(tools), kind, choice.get("name"))
            if server is not None:
                return _server_call(*server, prompt)
        if not tools or kind == "none":
            reason = "Tool use is turned off for this request, so I answered in text." if tools else ""
            return _final(prompt, calls, tools, options, reason=reason, system=turn.system)
        if kind == "tool" and isinstance(choice.get("name"), str) and choice["name"] in by_name:
            return tool_uses(call(by_name[choice["name"]]))

        plan = _plan(tools, options, prompt)
        last_turn = max((c.turn for c in calls), default=0)
        retries: list[dict[str, Any]] = []
        if options.retry_errors:
            for c in calls:
                if c.turn == last_turn and c.is_error and c.name in by_name and attempts(c.name) < 2:
                    if by_name[c.name] not in retries:
                        retries.append(by_name[c.name])
        called = {c.name for c in calls}
        fresh = [t for t in plan if t["name"] not in called]
        todo = retries + fresh
        # The answer tool comes last, instead of the final text, once (a failed answer is retried above).
        answer = None if options.call_tools == "none" else \
            next((t for t in tools if is_answer_tool(t) and t not in plan), None)
        answer_due = answer is not None and answer["name"] not in called
        if turns >= options.steps and kind == "auto":
            if answer_due:
                return tool_uses(call(answer))
            return _final(prompt, calls, tools, options, reason=f"I stopped after {options.steps} tool-calling turns.",
                          system=turn.system)
        if not todo:
            if answer_due:
                return tool_uses(call(answer))
            if kind != "any":
                return _final(prompt, calls, tools, options, system=turn.system)
            # Forced, the plan done: a tool not called yet (answer tools first), else the plan's first again
            # (a loop that forces tool use every time never ends, as on the real API).
            uncalled = [t for t in tools if t["name"] not in called]
            uncalled.sort(key=lambda t: not is_answer_tool(t))
            todo = uncalled[:1] or plan[:1] or tools[:1]
        chosen = todo[:1] if one_at_a_time else todo
        return tool_uses(*(call(t) for t in chosen))

    return policy


def generic(
    call_tools: str | Sequence[str] = "auto",
    *,
    parallel: bool = False,
    steps: int = DEFAULT_STEPS,
    final_text: str | None = None,
    retry_errors: bool = True,
    name: str = "generic",
    prompt: str = "",
    tools: Sequence[dict[str, Any]] = (),
    run_tool: RunTool | None = None,
    runaway_after: int = 20,
    description: str = "",
    description_es: str = "",
    extra: dict[str, Any] | None = None,
) -> Scenario:
    """A :class:`Scenario` on the generic model (see the module docstring for what it does).

    Args:
        call_tools: ``"auto"`` (tools the prompt mentions, else the first), ``"first"``,
            ``"all"`` (call every tool), ``"none"``, or a list of tool names.
        parallel: call the planned tools in one assistant turn instead of one per turn.
        steps: most tool-calling assistant turns per task (retries included), then the final
            answer. The runaway guard allows ``steps + 1`` requests per run, plus ``runaway_after``.
        final_text: the final answer's text (``{prompt}`` and ``{results}`` are filled in);
            default: a summary that quotes each tool result.
        retry_errors: retry a call once with other arguments after an ``is_error`` result.
        name: the scenario's name (it also seeds ids and arguments).
        prompt, tools, run_tool: what a lesson or test may use to drive it (the model itself
            reads the tools from each request, not from here).
        runaway_after: requests past ``steps + 1`` before :class:`agentlab.RunawayLoop`.
        description, description_es: one line each (defaults say what it does).
        extra: the scenario's ``extra`` (see ``_catalogue``).

    Returns:
        A ``Scenario`` whose policy is :func:`generic_policy`.

    Raises:
        ValueError: an unknown ``call_tools`` word, or a negative ``steps``.
        TypeError: a ``call_tools`` list holding something other than names.
    """
    names = call_tools if isinstance(call_tools, str) else tuple(call_tools)
    options = GenericOptions(call_tools=names, parallel=parallel, steps=steps, final_text=final_text,
                             retry_errors=retry_errors, seed=name)
    return Scenario(
        name=name,
        description=description or "The generic model: calls the request's own tools with schema-valid arguments, then quotes their results (end_turn).",
        description_es=description_es or "El modelo genérico: llama a las herramientas de la propia petición con argumentos válidos según su esquema y cita sus resultados (end_turn).",
        prompt=prompt,
        tools=tuple(tools),
        policy=generic_policy(options),
        run_tool=run_tool,
        needed_requests=steps + 1,
        runaway_after=runaway_after,
        extra=dict(extra or {}),
    )
