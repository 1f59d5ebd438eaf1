"""The fake Claude Code CLI: the agent loop the Agent SDK normally runs in a subprocess.

For each prompt it emits the frames the real CLI writes to stdout (reference 6.1, seed 004):
``system/init``; per API response one ``assistant`` frame per content block, all sharing the
message id; per tool call a permission decision (hooks, deny rules, permission mode, allow
rules, ``can_use_tool``), the tool run on the in-memory project and one ``user`` frame with its
``tool_result``; and a final ``result`` frame. The model's side comes from the fake Messages API
(a real ``anthropic.AsyncAnthropic`` on a :class:`~agentlab.fake.FakeAPI`), so every call is
validated and journaled like a learner's own loop.

Limits are enforced here because a custom transport bypasses the CLI flags that normally carry
them (reference 6.3/6.4):

- ``max_turns`` counts tool-use round trips: after the tools of round N run, round N+1 would
  exceed ``max_turns=N`` and the run ends with ``error_max_turns``, ``errors: ["Reached maximum
  number of turns (N)"]``, ``stop_reason: "tool_use"`` [3P captures, reference 6.2].
- ``max_budget_usd`` is checked after each API call, before its tools run: the run ends with
  ``error_max_budget_usd`` once the cost reaches the cap, so ``total_cost_usd`` can exceed it
  [SDK ``ClaudeAgentOptions.max_budget_usd`` docstring]. A call that ends the task (no tool
  use) completes the run as ``success`` (our choice; not documented).
- ``num_turns`` is counted as the CLI reports it: the prompt plus one per tool-result message,
  so parallel calls inflate it [3P, reference 6.2]. Do not compare it with ``max_turns``.

Frame shapes, denial texts, hook and ``can_use_tool`` failures, session state events and flag
checks follow what the bundled CLI 2.1.332 was seen doing (``tools/real_cli_probe/OBSERVED.md``,
which also says how to check them again).

Simulated durations (``duration_ms``, ``duration_api_ms``) are deterministic: 600 ms plus 15 ms
per output token for each API call, and each tool's own simulated time.
"""

from __future__ import annotations

import fnmatch
import hashlib
import json
import re
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from ..fake._models import MODELS, cost_usd
from ..fake._tokens import message_tokens
from ..fake._scenario import Scenario
from ._project import (
    BUILTIN_TOOLS,
    CWD,
    EDIT_TOOLS,
    READ_ONLY_TOOLS,
    TOOL_DEFINITIONS,
    Project,
    ToolOutcome,
)

__all__ = ["CLAUDE_CODE_VERSION", "SESSIONS", "SYSTEM_PROMPT", "Control", "FakeCLI", "Session"]

CLAUDE_CODE_VERSION = "2.1.332"
"""The CLI version ``system/init`` reports (the one bundled with claude-agent-sdk 0.2.189, reference 0.1)."""

SYSTEM_PROMPT = "\n\n".join((
    ("You are Claude Code, Anthropic's official CLI for Claude. You are an interactive agent that helps users "
    f"with software engineering tasks in the working directory ({CWD}). Use the instructions below and the "
    "tools available to you to assist the user."),
    ("# Doing tasks\nThe user will mostly ask you to fix bugs, add features, refactor or explain code. For these "
    "tasks: understand the code first (search and read the relevant files before changing them); make the "
    "smallest change that solves the problem; verify the change with the project's own tests or checks; never "
    "assume a test framework, read the project's configuration to find how tests are run."),
    ("# Using tools\nRead files with Read, never with cat; search file contents with Grep and file names with "
    "Glob; change files with Edit (exact string replacement; read the file first) or Write; run commands with "
    "Bash. When several independent pieces of information are needed, request the tool calls together in one "
    "response. A tool call the user did not approve comes back as an error: do not retry it, adjust or explain."),
    ("# Tone\nBe concise and direct. Report what you changed and how you verified it. Do not add explanations "
    "the user did not ask for. When you cannot finish a task, say what blocked you."),
    ("# Safety\nOnly change files inside the working directory. Never run destructive commands (rm -rf, git "
    "reset --hard, force pushes) unless the user asks for them explicitly. Keep secrets out of files and output."),
    "# Environment\nPlatform: linux. Shell: bash. The working directory is a git repository on branch main.",
))
"""The system prompt the fake CLI sends (a condensed stand-in for Claude Code's own) when
``ClaudeAgentOptions.system_prompt`` is not a plain string. It ends in a ``cache_control``
breakpoint, so from the second call on its prefix is read from the prompt cache, as in Claude Code."""

MODEL_ALIASES = {"sonnet": "claude-sonnet-5-5", "opus": "claude-opus-5"}
"""Model aliases the CLI resolves before calling the API ("sonnet" -> claude-sonnet-5-5 observed on
CLI 2.1.332; "opus" by analogy)."""

PERMISSION_MODES = ("acceptEdits", "auto", "bypassPermissions", "manual", "dontAsk", "plan", "default")
"""The ``--permission-mode`` values the CLI accepts (2.1.332 lists all but ``default``, which the SDK
sends as no flag)."""


def resolve_model(model: str) -> str:
    """``model`` with a CLI alias (``sonnet``, ``opus``) replaced by the model id it stands for."""
    return MODEL_ALIASES.get(model, model)


def startup_error(options: Any, max_budget_usd: float | None) -> str | None:
    """What the CLI prints to its stderr before exiting 1 when its flags are invalid, or None.

    Checked as CLI 2.1.332 checks them: ``--max-budget-usd`` must be above 0, ``--permission-mode``
    one of :data:`PERMISSION_MODES`, and an explicit ``session_id`` must not be taken already.
    """
    budget = max_budget_usd if max_budget_usd is not None else getattr(options, "max_budget_usd", None)
    if budget is not None and not budget > 0:
        return (f"error: option '--max-budget-usd <amount>' argument '{_js_number(budget)}' is invalid. "
                "--max-budget-usd must be a number greater than 0")
    mode = getattr(options, "permission_mode", None)
    if mode is not None and mode not in PERMISSION_MODES:
        return (f"error: option '--permission-mode <mode>' argument '{mode}' is invalid. Allowed choices are "
                f"{', '.join(PERMISSION_MODES[:-1])}.")
    session_id = getattr(options, "session_id", None)
    if session_id and session_id in SESSIONS and not getattr(options, "resume", None):
        return f"Error: Session ID {session_id} is already in use."
    return None


SLASH_COMMANDS = ["compact", "clear", "context", "cost", "init", "review"]

RAW_STREAM_EVENTS = frozenset({"message_start", "content_block_start", "content_block_delta", "content_block_stop",
                               "message_delta", "message_stop"})

Control = Callable[[dict[str, Any]], Awaitable[dict[str, Any]]]
"""Sends a ``control_request`` body to the SDK and returns the SDK's ``response`` dict (raises on an
error response)."""


@dataclass
class Session:
    """What resuming a session by id needs: its conversation, project, model client and scenario."""

    session_id: str
    scenario: Scenario
    project: Project
    client: Any
    messages: list[dict[str, Any]] = field(default_factory=list)


SESSIONS: dict[str, Session] = {}
"""Every session this process ran, by id (what ``ClaudeAgentOptions(resume=...)`` finds)."""

_SESSION_SEEDS: dict[str, int] = {}


def _new_session_id(seed: str) -> str:
    n = _SESSION_SEEDS.get(seed, 0)
    _SESSION_SEEDS[seed] = n + 1
    return str(_uuid(f"session:{seed}:{n}"))


def _uuid(seed: str) -> uuid.UUID:
    return uuid.UUID(bytes=hashlib.sha256(seed.encode()).digest()[:16], version=4)


class _Stop(Exception):
    """Ends a run with a result frame."""

    def __init__(self, result: dict[str, Any], *, exit_now: bool = False) -> None:
        super().__init__(result.get("subtype"))
        self.result = result
        self.exit_now = exit_now


@dataclass
class _Run:
    """Counters of one prompt's run."""

    cost: float = 0.0
    usage: dict[str, int] = field(default_factory=lambda: {"input_tokens": 0, "output_tokens": 0,
                                                            "cache_creation_input_tokens": 0,
                                                            "cache_read_input_tokens": 0})
    api_ms: int = 0
    tool_ms: int = 0
    tool_results: int = 0
    rounds: int = 0
    tool_calls: int = 0
    stop_reason: str | None = None
    denials: list[dict[str, Any]] = field(default_factory=list)


class FakeCLI:
    """The agent loop of one fake CLI process (one transport).

    Args:
        scenario: the simulated model's scenario.
        project: the in-memory project the tools work on (shared with a resumed session).
        options: the ``ClaudeAgentOptions`` the SDK was called with (read by the transport).
        control: sends control requests (hooks, ``can_use_tool``) to the SDK.
        max_turns, max_budget_usd: override the options' limits (as CLI flags would).
        prompt_suggestion: when given, a ``prompt_suggestion`` frame (the CLI's own type, which the
            Python SDK skips) follows each successful result (seed 004: final events can follow it).
        report_cost: False drops ``total_cost_usd``, ``usage`` and ``modelUsage`` from results
            (the SDK types them Optional; seed 004: check for None before reading them).
        hooks: the ``hooks`` of the SDK's ``initialize`` request (event -> matchers with callback ids).
    """

    def __init__(self, scenario: Scenario, project: Project, options: Any, control: Control, *,
                 max_turns: int | None = None, max_budget_usd: float | None = None,
                 prompt_suggestion: str | None = None, report_cost: bool = True) -> None:
        self.scenario = scenario
        self.prompt_suggestion = prompt_suggestion
        self.report_cost = report_cost
        self.project = project
        self.options = options
        self.control = control
        self.max_turns = max_turns if max_turns is not None else (getattr(options, "max_turns", None) or None)
        self.max_budget_usd = max_budget_usd if max_budget_usd is not None else getattr(options, "max_budget_usd", None)
        mode = getattr(options, "permission_mode", None) or "default"
        self.permission_mode: str = "default" if mode in ("auto", "manual") else mode
        self.model: str = resolve_model(getattr(options, "model", None) or scenario.model)
        self.hooks: dict[str, list[dict[str, Any]]] = {}
        self.interrupted = False
        self._pending: list[dict[str, Any]] = []
        self._start_usage: dict[str, Any] | None = None
        self.session: Session | None = None
        self.last_result_is_error = False
        self._frames = 0

    # -- session -------------------------------------------------------------------------------
    def open_session(self) -> dict[str, Any] | None:
        """Start, resume or fork the session the options ask for.

        Returns:
            None, or an error ``result`` frame when ``resume`` names no known session (the CLI
            then exits: "No conversation found with session ID: <id>").
        """
        from .._client import fake_async_client

        resume = getattr(self.options, "resume", None)
        if getattr(self.options, "continue_conversation", False) and not resume:
            same = [s for s in SESSIONS.values() if s.scenario.name == self.scenario.name]
            resume = same[-1].session_id if same else None
        if resume:
            found = SESSIONS.get(resume)
            if found is None:
                return self._error_result("error_during_execution", [f"No conversation found with session ID: {resume}"],
                                          session_id=str(resume), run=_Run())
            if getattr(self.options, "fork_session", False):
                sid = _new_session_id(f"{self.scenario.name}:fork:{resume}")
                self.session = Session(sid, found.scenario, found.project, found.client, list(found.messages))
                SESSIONS[sid] = self.session
            else:
                self.session = found
            self.scenario, self.project = self.session.scenario, self.session.project
            return None
        sid = getattr(self.options, "session_id", None) or _new_session_id(self.scenario.name)
        client = fake_async_client(self.scenario, max_retries=2)
        self.session = Session(sid, self.scenario, self.project, client)
        SESSIONS[sid] = self.session
        return None

    @property
    def session_id(self) -> str:
        assert self.session is not None
        return self.session.session_id

    def _next_uuid(self) -> str:
        self._frames += 1
        return str(_uuid(f"frame:{self.session_id}:{len(self.session.messages) if self.session else 0}:{self._frames}"))

    # -- tools offered ------------------------------------------------------------------------
    def available_tools(self) -> list[str]:
        """Built-in tools in the model's context: ``tools`` (the base set) minus whole-tool
        ``disallowed_tools`` entries (those remove the tool from the context, reference 6.3)."""
        base = getattr(self.options, "tools", None)
        names = list(BUILTIN_TOOLS) if base is None or isinstance(base, dict) else [t for t in BUILTIN_TOOLS if t in base]
        removed = {rule for rule in (getattr(self.options, "disallowed_tools", None) or []) if "(" not in rule}
        return [n for n in names if n not in removed]

    # -- one prompt ---------------------------------------------------------------------------
    async def run_prompt(self, content: Any) -> AsyncIterator[dict[str, Any]]:
        """Run the agent loop for one user prompt, yielding CLI frames (and control requests)."""
        assert self.session is not None
        self.interrupted = False
        run = _Run()
        yield self._state_frame("running")
        yield self._init_frame()
        try:
            if content == "/compact":
                async for frame in self._compact(run):
                    yield frame
                return
            self._add_prompt(content)
            while True:
                if self.interrupted:
                    raise _Stop(self._error_result("error_during_execution", ["Request was aborted."], run=run,
                                                   terminal_reason="aborted_streaming"))
                message = None
                async for item in self._call_model(run):
                    if isinstance(item, dict):
                        yield item
                    else:
                        message = item
                assert message is not None
                blocks = [b.to_dict() for b in message.content]
                self.session.messages.append({"role": "assistant", "content": blocks})
                for frame in self._assistant_frames(message, blocks):
                    yield frame
                calls = [b for b in blocks if b.get("type") == "tool_use"]
                if (self.max_budget_usd is not None and calls and run.cost >= self.max_budget_usd):
                    raise _Stop(self._error_result("error_max_budget_usd",
                                                   [f"Reached maximum budget (${_js_number(self.max_budget_usd)})"], run=run,
                                                   terminal_reason="budget_exhausted"))
                if message.stop_reason == "pause_turn":
                    continue
                if not calls:
                    answer = "".join(b.get("text", "") for b in blocks if b.get("type") == "text")
                    raise _Stop(self._success(answer, run))
                results: list[dict[str, Any]] = []
                for call in calls:
                    if self.interrupted:
                        results += [_result_block(c["id"], "The user doesn't want to proceed with this tool use. "
                                                  "The tool use was rejected.", True) for c in calls[len(results):]]
                        self.session.messages.append({"role": "user", "content": results})
                        yield self._user_frame([{"type": "text", "text": "[Request interrupted by user for tool use]"}])
                        raise _Stop(self._error_result("error_during_execution", ["Request was aborted."], run=run,
                                                       terminal_reason="aborted_tools"))
                    outcome = await self._use_tool(call, run)
                    for frame in self._pending:
                        yield frame
                    self._pending.clear()
                    block = _result_block(call["id"], outcome.content, outcome.is_error)
                    results.append(block)
                    run.tool_results += 1
                    yield self._user_frame([block], structured=(f"Error: {outcome.content}" if outcome.is_error
                                                                else outcome.structured))
                self.session.messages.append({"role": "user", "content": results})
                run.rounds += 1
                if self.max_turns and run.rounds + 1 > self.max_turns:
                    raise _Stop(self._error_result("error_max_turns",
                                                   [f"Reached maximum number of turns ({self.max_turns})"], run=run,
                                                   terminal_reason="max_turns"))
        except _Stop as stop:
            self.last_result_is_error = bool(stop.result.get("is_error"))
            if not self.report_cost:
                for key in ("total_cost_usd", "usage", "modelUsage"):
                    stop.result.pop(key, None)
            yield stop.result
            if stop.exit_now:
                yield {"type": "_exit", "code": 1}
                return
            # Not after an error result: any frame after it but session_state_changed would make the
            # SDK report the CLI's exit as a plain ProcessError instead of ResultError
            # (claude_agent_sdk _internal/query.py). The CLI's own frame type is "prompt_suggestion",
            # which the Python SDK's parser skips as unknown.
            if self.prompt_suggestion and not stop.result.get("is_error"):
                yield {"type": "prompt_suggestion", "suggestion": self.prompt_suggestion,
                       "session_id": self.session_id, "uuid": self._next_uuid()}
            yield self._state_frame("idle")

    def _add_prompt(self, content: Any) -> None:
        """Append the prompt as its own user message, as Claude Code's transcript keeps it (after a
        resumed ``error_max_turns`` it follows the tool results' user turn; the API merges
        consecutive user turns)."""
        assert self.session is not None
        self.session.messages.append({"role": "user", "content": content})

    async def _call_model(self, run: _Run) -> AsyncIterator[Any]:
        """One Messages API call (streamed, as Claude Code does); yields ``stream_event`` frames
        when partial messages are on, then the final ``anthropic.types.Message``."""
        import anthropic

        assert self.session is not None
        params: dict[str, Any] = {
            "model": self.model,
            "max_tokens": self.scenario.max_tokens,
            "system": [{"type": "text", "text": self._system_text(), "cache_control": {"type": "ephemeral"}}],
            "messages": self.session.messages,
        }
        thinking = self._thinking()
        if thinking is not None:
            params["thinking"] = thinking
        tools = [json.loads(json.dumps(TOOL_DEFINITIONS[n])) for n in self.available_tools()]
        if tools:
            params["tools"] = tools
        partial = bool(getattr(self.options, "include_partial_messages", False))
        try:
            async with self.session.client.messages.stream(**params) as stream:
                async for event in stream:
                    if event.type == "message_start":
                        self._start_usage = event.message.usage.to_dict()
                    if partial and event.type in RAW_STREAM_EVENTS:
                        yield {"type": "stream_event", "uuid": self._next_uuid(), "session_id": self.session_id,
                               "event": event.to_dict(), "parent_tool_use_id": None}
                message = await stream.get_final_message()
        except anthropic.APIStatusError as error:
            body = json.dumps(error.body, separators=(",", ":")) if error.body is not None else str(error)
            result = self._error_result("success", [], run=run, terminal_reason="model_error")
            result.update(result=f"API Error: {error.status_code} {body}", api_error_status=error.status_code)
            raise _Stop(result) from None
        usage = message.usage
        for key in run.usage:
            run.usage[key] += int(getattr(usage, key, 0) or 0)
        run.cost += cost_usd(usage, self.model) if self.model in MODELS else 0.0
        run.api_ms += 600 + 15 * int(usage.output_tokens or 0)
        run.stop_reason = message.stop_reason
        yield message

    def _thinking(self) -> dict[str, Any] | None:
        """The ``thinking`` request parameter: the options' ``thinking`` as given, else adaptive
        thinking when an ``effort`` is set, else none (the model then writes no thinking blocks)."""
        thinking = getattr(self.options, "thinking", None)
        if isinstance(thinking, dict):
            return dict(thinking)
        if getattr(self.options, "effort", None):
            return {"type": "adaptive"}
        return None

    def _system_text(self) -> str:
        """The system prompt: the options' string, or the CLI's own (plus a preset's ``append``),
        plus the project's CLAUDE.md when ``setting_sources`` includes ``"project"`` (seed 004)."""
        prompt = getattr(self.options, "system_prompt", None)
        if isinstance(prompt, str):
            return prompt
        text = SYSTEM_PROMPT
        if isinstance(prompt, dict) and isinstance(prompt.get("append"), str):
            text = f"{text}\n\n{prompt['append']}"
        if "project" in (getattr(self.options, "setting_sources", None) or []) and "CLAUDE.md" in self.project.files:
            text = f"{text}\n\n# Project instructions (CLAUDE.md)\n{self.project.files['CLAUDE.md']}"
        return text

    # -- permissions and tools ---------------------------------------------------------------
    async def _use_tool(self, call: dict[str, Any], run: _Run) -> ToolOutcome:
        """Decide (hooks, rules, ``can_use_tool``) and run one tool call."""
        name, tool_input, tool_use_id = call["name"], dict(call.get("input") or {}), call["id"]
        run.tool_calls += 1
        crash_at = self.scenario.extra.get("crash_on_tool_call")
        if crash_at is not None and run.tool_calls >= int(crash_at) and self.session is not None \
                and sum(1 for m in self.session.messages if m["role"] == "assistant") >= int(crash_at):
            # After a session crash the cost fields can be zero and stop_reason is null (seed 004).
            crashed = self._error_result("error_during_execution",
                                         [f"{name} tool execution failed: the session process was killed (SIGKILL)"],
                                         run=run, terminal_reason=None)
            zero = _Run()
            crashed.update(stop_reason=None, total_cost_usd=0.0, usage={**zero.usage, "service_tier": "standard"},
                           modelUsage={})
            raise _Stop(crashed, exit_now=True)
        decision, reason = None, ""
        for hook_output in await self._run_hooks("PreToolUse", name, {"tool_name": name, "tool_input": tool_input,
                                                                      "tool_use_id": tool_use_id}, tool_use_id):
            specific = hook_output.get("hookSpecificOutput") or {}
            if not isinstance(specific, dict):
                specific = {}
            choice = specific.get("permissionDecision")
            if hook_output.get("decision") == "block":
                choice = "deny"
            if isinstance(specific.get("updatedInput"), dict):
                tool_input = dict(specific["updatedInput"])
            if choice == "deny" or (choice and decision is None):
                decision = choice
                reason = str(specific.get("permissionDecisionReason") or hook_output.get("reason") or "")
            if choice == "deny":
                break
        if decision == "deny":
            # observed on CLI 2.1.332: "PreToolUse:Bash hook error: <reason>", recorded as a denial
            return self._deny(run, name, tool_input, tool_use_id, f"PreToolUse:{name} hook error: {reason}")
        if decision != "allow":
            verdict = self._rules(name, tool_input)
            if verdict is None:
                verdict = await self._ask(name, tool_input, tool_use_id)
            if isinstance(verdict, _Unavailable):
                return ToolOutcome(verdict.text, is_error=True, duration_ms=0)
            if isinstance(verdict, _Denied):
                if verdict.frame is not None:
                    self._pending.append({"type": "system", "subtype": "permission_denied", "tool_name": name,
                                          "tool_use_id": tool_use_id, **verdict.frame, "message": verdict.text,
                                          "uuid": self._next_uuid(), "session_id": self.session_id})
                return self._deny(run, name, tool_input, tool_use_id, verdict.text)
        outcome = self.project.run_tool(name, tool_input)
        run.tool_ms += outcome.duration_ms
        await self._run_hooks("PostToolUse", name, {"tool_name": name, "tool_input": tool_input,
                                                    "tool_response": outcome.structured or outcome.content,
                                                    "tool_use_id": tool_use_id}, tool_use_id)
        return outcome

    def _deny(self, run: _Run, name: str, tool_input: dict[str, Any], tool_use_id: str, reason: str) -> ToolOutcome:
        run.denials.append({"tool_name": name, "tool_use_id": tool_use_id, "tool_input": tool_input})
        return ToolOutcome(reason, is_error=True, duration_ms=0)

    def _rules(self, name: str, tool_input: dict[str, Any]) -> bool | _Denied | _Unavailable | None:
        """Deny rules, permission mode, allow rules, in that order (seed 004 "Permisos"): True to run,
        a denial, an unavailable tool, or None to ask ``can_use_tool``. Texts as observed on the
        bundled CLI 2.1.332 (plan mode's is ours: the CLI's depends on a server-side check)."""
        if name in self._disallowed_whole() or name not in BUILTIN_TOOLS or name not in self.available_tools():
            why = f" {name} is disabled for this session, in subagents as well as here." \
                if name in self._disallowed_whole() else ""
            return _Unavailable(f"<tool_use_error>Error: No such tool available: {name}.{why}</tool_use_error>"
                                if why else f"<tool_use_error>Error: No such tool available: {name}</tool_use_error>")
        for rule in getattr(self.options, "disallowed_tools", None) or []:
            if _rule_matches(rule, name, tool_input):
                what = f" with command {tool_input.get('command', '')}" if name == "Bash" else ""
                return _Denied(f"Permission to use {name}{what} has been denied.", {"decision_reason_type": "rule"})
        mode = self.permission_mode
        read_only = name in READ_ONLY_TOOLS or (name == "Bash" and _read_only_command(str(tool_input.get("command", ""))))
        if mode == "bypassPermissions":
            return True
        if mode == "plan" and not read_only:  # the mode is checked before the allow rules (seed 004)
            return _Denied(f"{name} does not run in plan mode: present a plan instead of changing anything.",
                           {"decision_reason_type": "mode"})
        if mode == "acceptEdits" and name in EDIT_TOOLS:
            return True
        if any(_rule_matches(rule, name, tool_input) for rule in getattr(self.options, "allowed_tools", None) or []):
            return True
        if read_only:
            return True
        if mode == "dontAsk" or getattr(self.options, "can_use_tool", None) is None:
            if name in EDIT_TOOLS:
                target = tool_input.get("file_path", "")
                return _Denied(f"Claude requested permissions to write to {target}, but you haven't granted it yet.", {})
            return _Denied("This command requires approval", {"decision_reason_type": "other",
                                                               "decision_reason": "This command requires approval"})
        return None

    def _disallowed_whole(self) -> set[str]:
        return {rule.strip() for rule in getattr(self.options, "disallowed_tools", None) or [] if "(" not in rule}

    async def _ask(self, name: str, tool_input: dict[str, Any], tool_use_id: str) -> bool | _Denied:
        """Ask the SDK's ``can_use_tool``; a callback that raises or answers badly denies the call
        ("Tool permission request failed: Error: ...", observed on CLI 2.1.332)."""
        try:
            response = await self.control({"subtype": "can_use_tool", "tool_name": name, "input": tool_input,
                                           "permission_suggestions": None, "blocked_path": None,
                                           "tool_use_id": tool_use_id})
        except RuntimeError as error:
            return _Denied(f"Tool permission request failed: Error: {error}", None)
        if response.get("behavior") == "allow":
            if isinstance(response.get("updatedInput"), dict):
                tool_input.clear()
                tool_input.update(response["updatedInput"])
            return True
        if response.get("interrupt"):
            self.interrupted = True
        return _Denied(str(response.get("message") or f"Permission to use {name} has been denied."), None)

    async def _run_hooks(self, event: str, tool_name: str, fields: dict[str, Any], tool_use_id: str) -> list[dict]:
        """Call every hook callback registered for ``event`` whose matcher matches ``tool_name``.

        A callback that raises or answers badly (not a dict, or a ``permissionDecision`` that is not
        allow/deny/ask/defer) fails open, as on CLI 2.1.332: its answer counts as empty and an
        ``informational`` system message says so. Under a matcher with ``on_failure="block"`` the
        failure denies the call instead (the SDK's ``HookMatcher.on_failure``)."""
        outputs = []
        for matcher in self.hooks.get(event) or []:
            if not _matcher_matches(matcher.get("matcher"), tool_name):
                continue
            for callback_id in matcher.get("hookCallbackIds") or []:
                hook_input = {"session_id": self.session_id, "transcript_path": f"/fake/.claude/{self.session_id}.jsonl",
                              "cwd": CWD, "permission_mode": self.permission_mode, "hook_event_name": event, **fields}
                try:
                    output = await self.control({"subtype": "hook_callback", "callback_id": callback_id,
                                                 "input": hook_input, "tool_use_id": tool_use_id})
                except RuntimeError:
                    output = None
                if not _valid_hook_output(output):
                    self._pending.append({
                        "type": "system", "subtype": "informational",
                        "content": f"{event}: Hook callback {callback_id} failed: the SDK host replied with an error "
                                   "or an invalid answer. Its answer was treated as empty.",
                        "level": "warning", "tag": "hook_callback_failed", "uuid": self._next_uuid(),
                        "session_id": self.session_id})
                    output = {}
                    if matcher.get("onFailure") not in (None, "continue"):  # on_failure="block" (any other value too)
                        output = {"hookSpecificOutput": {
                            "hookEventName": event, "permissionDecision": "deny",
                            "permissionDecisionReason": f"hook callback {callback_id} failed and its matcher blocks "
                                                        "on failure"}}
                outputs.append(output)
        return outputs

    # -- compaction ----------------------------------------------------------------------------
    async def _compact(self, run: _Run) -> AsyncIterator[dict[str, Any]]:
        """``/compact``: the history becomes one summary message; a ``compact_boundary`` frame marks it."""
        assert self.session is not None
        before = sum(message_tokens(m, count_thinking=True) for m in self.session.messages)  # the fake API's count
        await self._run_hooks("PreCompact", "", {"trigger": "manual", "custom_instructions": None}, "")  # notified only
        for frame in self._pending:  # a PreCompact hook that failed
            yield frame
        self._pending.clear()
        calls = [f"{b['name']}({json.dumps(b.get('input'))})" for m in self.session.messages if m["role"] == "assistant"
                 for b in m["content"] if b.get("type") == "tool_use"]
        summary = "This session is being continued from an earlier conversation. Summary: the user asked: " \
                  f"{_first_text(self.session.messages)!r}. Tools used: {', '.join(calls) or 'none'}."
        self.session.messages[:] = [{"role": "user", "content": summary}, {"role": "assistant", "content": [
            {"type": "text", "text": "Understood; continuing from the summary."}]}] if self.session.messages else []
        yield {"type": "system", "subtype": "compact_boundary", "session_id": self.session_id, "uuid": self._next_uuid(),
               "compact_metadata": {"trigger": "manual", "pre_tokens": before}}
        raise _Stop(self._success("", run))

    # -- frames --------------------------------------------------------------------------------
    def _init_frame(self) -> dict[str, Any]:
        return {"type": "system", "subtype": "init", "cwd": CWD, "session_id": self.session_id,
                "tools": self.available_tools(), "mcp_servers": [], "model": self.model,
                "permissionMode": self.permission_mode, "slash_commands": SLASH_COMMANDS, "apiKeySource": "none",
                "claude_code_version": CLAUDE_CODE_VERSION, "output_style": "default", "agents": [], "skills": [],
                "plugins": [], "uuid": self._next_uuid()}

    def _state_frame(self, state: str) -> dict[str, Any]:
        """``session_state_changed`` (``running`` before ``init``, ``idle`` after the result, as on CLI
        2.1.332). The SDK reads it to know when the run is over; the caller sees it as a
        ``SystemMessage`` only when ``env`` sets ``CLAUDE_CODE_EMIT_SESSION_STATE_EVENTS=1``
        (otherwise it is ``sdk_host_only`` and the SDK drops it)."""
        frame: dict[str, Any] = {"type": "system", "subtype": "session_state_changed", "state": state,
                                 "uuid": self._next_uuid(), "session_id": self.session_id}
        env = getattr(self.options, "env", None) or {}
        if str(env.get("CLAUDE_CODE_EMIT_SESSION_STATE_EVENTS", "")).lower() not in ("1", "true"):
            frame["sdk_host_only"] = True
        return frame

    def _assistant_frames(self, message: Any, blocks: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """One ``assistant`` frame per content block, sharing the message id. None of them carries
        the stop reason (``stop_reason`` is null on every frame on CLI 2.1.332; reference 6.1: do not
        rely on it); the result has the last one."""
        # each frame goes out as its block completes, before message_delta: it carries message_start's
        # usage (output_tokens still 1 or so), as observed on CLI 2.1.332; the result has the totals
        usage = self._start_usage or message.usage.to_dict()
        frames = []
        for block in blocks:
            frames.append({"type": "assistant", "message": {
                "id": message.id, "type": "message", "role": "assistant", "model": message.model,
                "content": [block], "stop_reason": None, "stop_sequence": None, "usage": usage},
                "parent_tool_use_id": None, "session_id": self.session_id, "uuid": self._next_uuid()})
        return frames

    def _user_frame(self, content: list[dict[str, Any]], structured: Any = None) -> dict[str, Any]:
        frame = {"type": "user", "message": {"role": "user", "content": content}, "parent_tool_use_id": None,
                 "session_id": self.session_id, "uuid": self._next_uuid()}
        if structured is not None:
            frame["tool_use_result"] = structured
        return frame

    def _common(self, run: _Run, session_id: str | None = None) -> dict[str, Any]:
        return {"type": "result", "duration_ms": run.api_ms + run.tool_ms + (50 if run.api_ms else 0),
                "duration_api_ms": run.api_ms, "num_turns": 1 + run.tool_results,
                "session_id": session_id or self.session_id, "total_cost_usd": round(run.cost, 6),
                "usage": {**run.usage, "server_tool_use": {"web_search_requests": 0, "web_fetch_requests": 0},
                          "service_tier": "standard",
                          "cache_creation": {"ephemeral_1h_input_tokens": 0,
                                             "ephemeral_5m_input_tokens": run.usage["cache_creation_input_tokens"]}},
                "modelUsage": ({self.model: {"inputTokens": run.usage["input_tokens"],
                                             "outputTokens": run.usage["output_tokens"],
                                             "cacheReadInputTokens": run.usage["cache_read_input_tokens"],
                                             "cacheCreationInputTokens": run.usage["cache_creation_input_tokens"],
                                             "webSearchRequests": 0, "costUSD": round(run.cost, 6),
                                             "contextWindow": MODELS[self.model].context_window,
                                             "maxOutputTokens": MODELS[self.model].max_output_tokens}}
                               if run.api_ms and self.model in MODELS else {}),
                "permission_denials": list(run.denials), "uuid": str(_uuid(f"result:{session_id or self.session_id}:"
                                                                            f"{self._frames}"))}

    def _success(self, answer: str, run: _Run) -> dict[str, Any]:
        return {**self._common(run), "subtype": "success", "is_error": False, "result": answer,
                "stop_reason": run.stop_reason, "terminal_reason": "completed"}

    def _error_result(self, subtype: str, errors: list[str], *, run: _Run, session_id: str | None = None,
                      terminal_reason: str | None = None) -> dict[str, Any]:
        result = {**self._common(run, session_id), "subtype": subtype, "is_error": True,
                  "stop_reason": run.stop_reason, "errors": errors}
        if terminal_reason is not None:
            result["terminal_reason"] = terminal_reason
        return result


def _result_block(tool_use_id: str, content: str, is_error: bool) -> dict[str, Any]:
    block: dict[str, Any] = {"tool_use_id": tool_use_id, "type": "tool_result", "content": content}
    if is_error:
        block["is_error"] = True
    return block


def _first_text(messages: list[dict[str, Any]]) -> str:
    for message in messages:
        if message["role"] == "user":
            content = message["content"]
            return content if isinstance(content, str) else " ".join(
                b.get("text", "") for b in content if isinstance(b, dict) and b.get("type") == "text")
    return ""


def _rule_matches(rule: str, name: str, tool_input: dict[str, Any]) -> bool:
    """A permission rule: ``"Bash"`` (the whole tool) or ``"Bash(npm test)"`` / ``"Bash(npm:*)"`` /
    ``"Edit(src/*)"`` (a command prefix or a path glob)."""
    match = re.fullmatch(r"\s*([A-Za-z_]+)\s*(?:\((.*)\))?\s*", rule)
    if match is None or match.group(1) != name:
        return False
    spec = match.group(2)
    if spec is None:
        return True
    if name == "Bash":
        command = str(tool_input.get("command", ""))
        if spec.endswith(":*"):
            return command == spec[:-2] or command.startswith(spec[:-2] + " ")
        return fnmatch.fnmatchcase(command, spec)
    target = Project.relative(str(tool_input.get("file_path") or tool_input.get("path") or "")) or ""
    return fnmatch.fnmatchcase(target, spec.lstrip("/"))


@dataclass(frozen=True)
class _Denied:
    """A permission denial: the ``tool_result`` text, and the extra fields of the
    ``permission_denied`` system frame the CLI sends first (None: no frame)."""

    text: str
    frame: dict[str, Any] | None


@dataclass(frozen=True)
class _Unavailable:
    """A call to a tool the session does not offer (not recorded as a permission denial)."""

    text: str


_READ_ONLY_COMMANDS = (("ls",), ("cat",), ("pwd",), ("echo",), ("git", "status"), ("git", "diff"))


def _read_only_command(command: str) -> bool:
    """True for commands Claude Code runs without asking (reading only), e.g. ``ls``, ``cat``,
    ``git diff``; every ``&&`` part must be one, and any other shell operator, a redirect or a
    substitution (``;``, ``|``, ``>``, ``<``, ``$(``, backticks) needs approval."""
    if re.search(r"[;|<>`]|\$\(", command.replace("&&", " ")) or "--output" in command:
        return False
    parts = [p.split() for p in command.split("&&")]
    return bool(parts) and all(p and any(tuple(p[:len(r)]) == r for r in _READ_ONLY_COMMANDS) for p in parts)


def _js_number(value: float) -> str:
    """``value`` as JavaScript prints a number (the CLI is JavaScript): ``0.02``, ``5``, ``0.000001``."""
    if value == int(value) and abs(value) < 1e21:
        return str(int(value))
    if abs(value) >= 1e-6:
        return repr(float(value)) if "e" not in repr(float(value)) else f"{value:.15f}".rstrip("0")
    mantissa, exponent = f"{value:e}".split("e")
    return f"{mantissa.rstrip('0').rstrip('.')}e{int(exponent)}"


_HOOK_DECISIONS = (None, "allow", "deny", "ask", "defer")


def _valid_hook_output(output: Any) -> bool:
    """A hook answer the CLI accepts: a dict whose ``hookSpecificOutput`` (if any) is a dict with a
    known ``permissionDecision`` (the SDK's HookMatcher docstring counts e.g. "Deny" as a failure)."""
    if not isinstance(output, dict):
        return False
    specific = output.get("hookSpecificOutput")
    if specific is None:
        return True
    return isinstance(specific, dict) and specific.get("permissionDecision") in _HOOK_DECISIONS


def _matcher_matches(pattern: Any, tool_name: str) -> bool:
    """A hook matcher: none, ``""`` or ``"*"`` match every tool; tool names joined by ``|`` match
    exactly; anything else is a regular expression searched in the name, and one that does not
    compile matches nothing."""
    if pattern in (None, "", "*"):
        return True
    text = str(pattern)
    if re.fullmatch(r"[A-Za-z0-9_]+(\|[A-Za-z0-9_]+)*", text):
        return tool_name in text.split("|")
    try:
        return re.search(text, tool_name) is not None
    except re.error:
        return False
