"""The Claude Agent SDK on the fake: the real ``claude_agent_sdk`` classes over agentlab's transport.

Each test drives the real SDK (``query()`` or ``ClaudeSDKClient``) and asserts what a learner
would see: message types and order, result subtypes and fields, the limits, permissions, hooks,
resume, and the exception a single-shot query raises after an error result (reference 6,
seed 004).
"""

from __future__ import annotations

import asyncio
import dataclasses
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

sdk = pytest.importorskip("claude_agent_sdk", reason="the agent-sdk extra is part of the README's install")

from claude_agent_sdk import (
    AssistantMessage,
    ClaudeAgentOptions,
    ClaudeSDKClient,
    HookMatcher,
    PermissionResultAllow,
    PermissionResultDeny,
    ResultError,
    ResultMessage,
    StreamEvent,
    SystemMessage,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
    UserMessage,
)

import agentlab
from agentlab.agent_sdk import auth_project, fake_transport, journal
from agentlab.agent_sdk._project import Project

ROOT = Path(__file__).resolve().parents[1]
ALL_TOOLS = ["Read", "Edit", "Bash", "Glob", "Grep"]
TASK = "Find and fix the bug causing test failures in the auth module"


def run(scenario: str = "fix_auth_bug", prompt: Any = TASK, options: ClaudeAgentOptions | None = None,
        **transport: Any) -> tuple[list[Any], BaseException | None]:
    """All messages of one ``query()`` run iterated to its end, and the exception it raised (or None)."""
    messages: list[Any] = []

    async def main() -> BaseException | None:
        try:
            async for message in sdk.query(prompt=prompt, options=options or ClaudeAgentOptions(),
                                           transport=fake_transport(scenario, **transport)):
                messages.append(message)
        except Exception as error:  # noqa: BLE001 - returned for the assertions
            return error
        return None

    error = asyncio.run(asyncio.wait_for(main(), timeout=60))
    return messages, error


def result_of(messages: list[Any]) -> ResultMessage:
    results = [m for m in messages if isinstance(m, ResultMessage)]
    assert len(results) == 1, f"expected one ResultMessage, got {len(results)}"
    return results[0]


def tool_results(messages: list[Any]) -> list[ToolResultBlock]:
    return [b for m in messages if isinstance(m, UserMessage) and isinstance(m.content, list)
            for b in m.content if isinstance(b, ToolResultBlock)]


# -- the stream ---------------------------------------------------------------------------------
def test_seed_004_success_stream_types_order_and_fields() -> None:
    messages, error = run(options=ClaudeAgentOptions(allowed_tools=ALL_TOOLS, max_turns=30))
    assert error is None
    kinds = [type(m).__name__ for m in messages]
    assert kinds[0] == "SystemMessage" and messages[0].subtype == "init"
    assert kinds[-1] == "ResultMessage"
    # seed 004's turns: Bash; Read x2; Edit + Bash; final text. One AssistantMessage per block.
    calls = [b.name for m in messages if isinstance(m, AssistantMessage) for b in m.content if isinstance(b, ToolUseBlock)]
    assert calls == ["Bash", "Read", "Read", "Edit", "Bash"]
    assert all(len(m.content) == 1 for m in messages if isinstance(m, AssistantMessage))
    assert all(len(m.content) == 1 for m in messages if isinstance(m, UserMessage))
    result = result_of(messages)
    assert result.subtype == "success" and result.is_error is False
    assert "All three tests pass now" in result.result
    last_text = [m for m in messages if isinstance(m, AssistantMessage)][-1].content[0]
    assert isinstance(last_text, TextBlock) and last_text.text == result.result
    assert result.stop_reason == "end_turn" and result.terminal_reason == "completed"
    assert result.num_turns == 1 + 5  # the prompt plus one per tool-result message (reference 6.2)
    assert result.total_cost_usd is not None and result.total_cost_usd > 0
    assert result.usage["input_tokens"] > 0 and result.usage["output_tokens"] > 0
    assert result.model_usage["claude-sonnet-5"]["costUSD"] == result.total_cost_usd
    assert result.duration_ms >= result.duration_api_ms > 0
    assert result.permission_denials == []
    # frames carry message_start's usage (sent as each block completes); the result has the totals
    frame_usage = [m.usage for m in messages if isinstance(m, AssistantMessage)]
    assert all(u["output_tokens"] <= 2 for u in frame_usage)
    assert result.usage["cache_creation"]["ephemeral_5m_input_tokens"] == result.usage["cache_creation_input_tokens"]
    assert result.model_usage["claude-sonnet-5"]["maxOutputTokens"] == 128_000  # docs: Sonnet 5 max output 128K


def test_assistant_messages_of_one_response_share_the_message_id() -> None:
    messages, _ = run(options=ClaudeAgentOptions(allowed_tools=ALL_TOOLS))
    assistants = [m for m in messages if isinstance(m, AssistantMessage)]
    groups: dict[str, list[AssistantMessage]] = {}
    for m in assistants:
        groups.setdefault(m.message_id, []).append(m)
    assert len(groups) == 4  # four API responses
    sizes = [len(g) for g in groups.values()]
    assert sizes == [2, 3, 3, 1]  # text+Bash; text+Read+Read; text+Edit+Bash; text
    for group in groups.values():
        # no frame carries the stop reason (null on every frame on CLI 2.1.332; reference 6.1)
        assert [m.stop_reason for m in group] == [None] * len(group)
        assert all(m.session_id == messages[0].data["session_id"] for m in group)


def test_init_message_carries_the_session_id_in_its_data() -> None:
    messages, _ = run(options=ClaudeAgentOptions(allowed_tools=ALL_TOOLS, model="claude-opus-5",
                                                 permission_mode="acceptEdits"))
    init = messages[0]
    assert isinstance(init, SystemMessage) and init.subtype == "init"
    assert not hasattr(init, "session_id")  # read it from data (reference 6.1)
    assert re.fullmatch(r"[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}", init.data["session_id"])
    assert init.data["session_id"] == result_of(messages).session_id
    assert init.data["model"] == "claude-opus-5" and init.data["permissionMode"] == "acceptEdits"
    assert init.data["tools"] == ["Read", "Edit", "Write", "Bash", "Grep", "Glob"]
    assert init.data["cwd"] == "/project"


def test_tool_results_come_back_as_user_messages_with_the_tool_output() -> None:
    messages, _ = run(options=ClaudeAgentOptions(allowed_tools=ALL_TOOLS))
    results = tool_results(messages)
    first, last = results[0], results[-1]
    assert first.is_error is True and "Tests:       3 failed, 3 total" in first.content
    assert last.is_error is None and "Tests:       3 passed, 3 total" in last.content
    ids = [b.id for m in messages if isinstance(m, AssistantMessage) for b in m.content if isinstance(b, ToolUseBlock)]
    assert [r.tool_use_id for r in results] == ids
    structured = [m.tool_use_result for m in messages if isinstance(m, UserMessage)]
    assert structured[0].startswith("Error: Exit code 1\n> auth-service@1.0.0 test")  # an error: its text
    assert structured[-1]["stdout"].startswith("> auth-service@1.0.0 test")  # a success: the tool's own output
    assert structured[-1]["interrupted"] is False


def test_the_edit_really_changes_the_in_memory_project() -> None:
    project = auth_project()
    run(options=ClaudeAgentOptions(allowed_tools=ALL_TOOLS), project=project)
    assert "return session.expiresAt <= now;" in project.files["src/auth.ts"]
    assert "-  return session.expiresAt > now;" in project.diff()
    assert [ok for _, ok, _ in project.tests(project)] == [True, True, True]


@pytest.mark.parametrize("scenario", agentlab.agent_sdk.scenarios())
def test_every_scenario_ends_with_its_documented_result(scenario: str) -> None:
    spec = agentlab.agent_sdk.get_agent_scenario(scenario)
    messages, error = run(scenario, prompt=spec.prompt, options=ClaudeAgentOptions(allowed_tools=ALL_TOOLS, max_turns=5))
    result = result_of(messages)
    assert result.subtype == spec.extra["subtype"]
    assert result.is_error is (spec.extra["subtype"] != "success" or spec.extra.get("is_error", False))
    if result.is_error:
        assert isinstance(error, ResultError), "a single-shot query() raises after an error result (seed 004)"
    else:
        assert error is None


def test_setting_sources_project_loads_claude_md_and_the_prompt_prefix_is_cached() -> None:
    result = result_of(run(options=ClaudeAgentOptions(allowed_tools=ALL_TOOLS, setting_sources=["project"]))[0])
    system = journal(result.session_id).exchanges[0].request["system"][0]
    assert "Run `npm test` after every change." in system["text"]
    assert system["cache_control"] == {"type": "ephemeral"}
    assert result.usage["cache_creation_input_tokens"] > 0 and result.usage["cache_read_input_tokens"] > 0
    plain = result_of(run(options=ClaudeAgentOptions(allowed_tools=ALL_TOOLS))[0])
    assert "CLAUDE.md" not in journal(plain.session_id).exchanges[0].request["system"][0]["text"]


def test_effort_turns_thinking_on_and_thinking_blocks_are_messages_too() -> None:
    messages, error = run(options=ClaudeAgentOptions(allowed_tools=ALL_TOOLS, effort="high"))
    assert error is None
    groups: dict[str, list[Any]] = {}
    for m in messages:
        if isinstance(m, AssistantMessage):
            groups.setdefault(m.message_id, []).append(m.content[0])
    assert all(isinstance(blocks[0], ThinkingBlock) and blocks[0].signature for blocks in groups.values())
    sent = journal(result_of(messages).session_id).exchanges[0].request
    assert sent["thinking"] == {"type": "adaptive"}
    plain, _ = run(options=ClaudeAgentOptions(allowed_tools=ALL_TOOLS))
    assert not any(isinstance(b, ThinkingBlock) for m in plain if isinstance(m, AssistantMessage) for b in m.content)


# -- results by subtype ---------------------------------------------------------------------------
def test_max_turns_counts_tool_use_turns_and_runs_the_last_turns_tools() -> None:
    messages, error = run(options=ClaudeAgentOptions(allowed_tools=ALL_TOOLS, max_turns=2))
    result = result_of(messages)
    assert result.subtype == "error_max_turns" and result.is_error
    assert result.errors == ["Reached maximum number of turns (2)"]
    assert result.stop_reason == "tool_use" and result.terminal_reason == "max_turns"
    assert result.result is None
    # turn 1 (Bash) and turn 2 (Read x2) ran their tools; no third API call was made
    assert len(tool_results(messages)) == 3
    assert len(journal(result.session_id).exchanges) == 2
    assert isinstance(error, ResultError)
    assert str(error) == "Claude Code returned an error result: Reached maximum number of turns (2) (exit code: 1)"
    assert error.subtype == "error_max_turns"


def test_the_final_answer_needs_a_turn_of_its_own() -> None:
    # fix_auth_bug makes three tool-use turns, then answers: max_turns=3 stops it, 4 lets it finish
    assert result_of(run(options=ClaudeAgentOptions(allowed_tools=ALL_TOOLS, max_turns=3))[0]).subtype == "error_max_turns"
    assert result_of(run(options=ClaudeAgentOptions(allowed_tools=ALL_TOOLS, max_turns=4))[0]).subtype == "success"


def test_budget_texts_print_the_cap_as_javascript_does() -> None:
    from agentlab.agent_sdk._engine import _js_number

    assert [_js_number(x) for x in (0.02, 0.005, 5.0, 1e-6, 2.5e-7)] == ["0.02", "0.005", "5", "0.000001", "2.5e-7"]


def test_max_budget_is_checked_after_a_call_so_cost_can_exceed_it() -> None:
    messages, error = run(options=ClaudeAgentOptions(allowed_tools=ALL_TOOLS, max_budget_usd=0.005))
    result = result_of(messages)
    assert result.subtype == "error_max_budget_usd" and result.is_error
    assert result.errors == ["Reached maximum budget ($0.005)"]
    assert result.terminal_reason == "budget_exhausted"
    assert result.total_cost_usd >= 0.005
    # the call that crossed the cap was made, its tools were not run
    assistants = [m for m in messages if isinstance(m, AssistantMessage)]
    assert len({m.message_id for m in assistants}) == len(journal(result.session_id).exchanges)
    assert isinstance(error, ResultError)


def test_transport_limits_override_the_options() -> None:
    messages, _ = run(options=ClaudeAgentOptions(allowed_tools=ALL_TOOLS, max_turns=30), max_budget_usd=0.01)
    assert result_of(messages).subtype == "error_max_budget_usd"
    messages, _ = run(options=ClaudeAgentOptions(allowed_tools=ALL_TOOLS, max_turns=30), max_turns=1)
    assert result_of(messages).errors == ["Reached maximum number of turns (1)"]


def test_crash_gives_error_during_execution_with_zero_cost_and_no_stop_reason() -> None:
    messages, error = run("agent_crash", options=ClaudeAgentOptions(allowed_tools=ALL_TOOLS))
    result = result_of(messages)
    assert result.subtype == "error_during_execution" and result.is_error
    assert result.total_cost_usd == 0 and result.stop_reason is None  # seed 004
    assert result.usage["input_tokens"] == 0
    assert result.num_turns == 2  # the prompt and the first tool result; the crash hit the second call
    assert isinstance(error, ResultError) and "session process was killed" in str(error)
    assert isinstance(messages[-1], ResultMessage)  # the process exits right after it


def test_api_error_is_subtype_success_with_is_error() -> None:
    messages, error = run("agent_api_error", options=ClaudeAgentOptions(allowed_tools=ALL_TOOLS))
    result = result_of(messages)
    assert (result.subtype, result.is_error, result.api_error_status) == ("success", True, 529)
    assert result.result.startswith('API Error: 529 {"type":"error","error":{"type":"overloaded_error"')
    assert isinstance(error, ResultError) and "API Error: 529" in str(error)


def test_cost_fields_can_be_none() -> None:
    messages, _ = run("summarize_project", prompt="Summarize this project", report_cost=False)
    result = result_of(messages)
    assert result.total_cost_usd is None and result.usage is None and result.model_usage is None


def test_session_state_events_frame_the_run_when_asked_for() -> None:
    env = {"CLAUDE_CODE_EMIT_SESSION_STATE_EVENTS": "1"}
    messages, error = run("summarize_project", prompt="Summarize this project", options=ClaudeAgentOptions(env=env))
    states = [(i, m.data["state"]) for i, m in enumerate(messages)
              if isinstance(m, SystemMessage) and m.subtype == "session_state_changed"]
    # as on CLI 2.1.332: "running" before init, "idle" after the result
    assert states == [(0, "running"), (len(messages) - 1, "idle")]
    assert messages[1].subtype == "init" and isinstance(messages[-2], ResultMessage) and error is None
    plain, _ = run("summarize_project", prompt="Summarize this project")
    assert not any(isinstance(m, SystemMessage) and m.subtype == "session_state_changed" for m in plain)
    # after an error result "idle" still follows, and the SDK still raises ResultError at the end
    messages, error = run("agent_stuck", options=ClaudeAgentOptions(allowed_tools=ALL_TOOLS, max_turns=1, env=env))
    assert isinstance(messages[-2], ResultMessage) and messages[-1].data["state"] == "idle"
    assert isinstance(error, ResultError)


def test_a_prompt_suggestion_is_sent_but_the_python_sdk_skips_it() -> None:
    transport = fake_transport("summarize_project", prompt_suggestion="Run the tests?")
    raw: list[dict] = []
    read = transport.read_messages

    async def spy():
        async for frame in read():
            raw.append(frame)
            yield frame

    transport.read_messages = spy

    async def main() -> list[Any]:
        return [m async for m in sdk.query(prompt="Summarize this project", transport=transport)]

    messages = asyncio.run(asyncio.wait_for(main(), timeout=60))
    assert {"type": "prompt_suggestion", "suggestion": "Run the tests?"}.items() <= raw[-2].items()
    assert isinstance(messages[-1], ResultMessage)  # the SDK's parser skips the unknown frame type


def test_no_limit_on_a_stuck_agent_is_stopped_with_a_clear_error() -> None:
    messages, error = run("agent_stuck", options=ClaudeAgentOptions(allowed_tools=ALL_TOOLS))
    assert not any(isinstance(m, ResultMessage) for m in messages)
    assert isinstance(error, sdk.ProcessError)
    assert "runaway agent session" in str(error) and "max_turns" in str(error)


# -- permissions ----------------------------------------------------------------------------------
def test_default_mode_runs_read_only_tools_and_denies_the_others() -> None:
    messages, error = run()
    assert error is None
    first = tool_results(messages)[0]
    assert first.is_error and first.content == "This command requires approval"  # CLI 2.1.332's text
    denied = [m for m in messages if isinstance(m, SystemMessage) and m.subtype == "permission_denied"]
    assert len(denied) == 1 and denied[0].data["tool_name"] == "Bash"
    assert denied[0].data["decision_reason_type"] == "other" and denied[0].data["message"] == first.content
    assert messages.index(denied[0]) == messages.index(next(m for m in messages if isinstance(m, UserMessage))) - 1
    result = result_of(messages)
    assert [d["tool_name"] for d in result.permission_denials] == ["Bash"]
    assert result.result.startswith("I could not run the tests: This command requires approval. Allow the Bash tool")
    # read-only commands run without asking
    project = auth_project()
    project.run_tool("Read", {"file_path": "src/auth.ts"})
    assert "This command requires approval" not in project.run_tool("Bash", {"command": "ls"}).content


def test_an_edit_without_permission_is_denied_with_the_clis_text() -> None:
    messages, _ = run(options=ClaudeAgentOptions(allowed_tools=["Bash"]))
    edit = [r for r in tool_results(messages) if "write to" in str(r.content)]
    assert [r.content for r in edit] == [
        "Claude requested permissions to write to /project/src/auth.ts, but you haven't granted it yet."]
    structured = [m.tool_use_result for m in messages if isinstance(m, UserMessage)]
    assert f"Error: {edit[0].content}" in structured


def test_read_only_session_summarizes_without_any_options() -> None:
    messages, error = run("summarize_project", prompt="Summarize this project", options=None)
    assert error is None and result_of(messages).subtype == "success"
    assert "auth-service" in result_of(messages).result


def test_disallowed_tools_leave_the_models_context() -> None:
    messages, _ = run(options=ClaudeAgentOptions(allowed_tools=ALL_TOOLS, disallowed_tools=["Bash"]))
    assert "Bash" not in messages[0].data["tools"]
    sent = journal(result_of(messages).session_id).exchanges[0].request
    assert "Bash" not in [t["name"] for t in sent["tools"]]
    calls = [b.name for m in messages if isinstance(m, AssistantMessage) for b in m.content if isinstance(b, ToolUseBlock)]
    assert "Bash" not in calls
    assert "could not run the tests" in result_of(messages).result


def test_a_disallowed_command_pattern_blocks_matching_calls_only() -> None:
    messages, _ = run(options=ClaudeAgentOptions(allowed_tools=ALL_TOOLS, disallowed_tools=["Bash(npm test)"]))
    assert "Bash" in messages[0].data["tools"]
    denied = [r for r in tool_results(messages)
              if r.content == "Permission to use Bash with command npm test has been denied."]
    assert len(denied) == 1
    frames = [m.data for m in messages if isinstance(m, SystemMessage) and m.subtype == "permission_denied"]
    assert [f["decision_reason_type"] for f in frames] == ["rule"]


def test_allowed_tools_is_not_a_restriction_and_modes_apply() -> None:
    # Edit needs approval in default mode; acceptEdits approves it; Bash still needs allowed_tools
    messages, _ = run(options=ClaudeAgentOptions(permission_mode="acceptEdits", allowed_tools=["Bash"]))
    assert "All three tests pass now" in result_of(messages).result
    messages, _ = run(options=ClaudeAgentOptions(permission_mode="bypassPermissions"))
    assert "All three tests pass now" in result_of(messages).result
    messages, _ = run(options=ClaudeAgentOptions(permission_mode="plan", allowed_tools=ALL_TOOLS))
    assert result_of(messages).permission_denials  # plan mode runs nothing that changes the project


def test_can_use_tool_is_asked_for_tools_that_need_approval() -> None:
    asked: list[str] = []

    async def can_use(name: str, tool_input: dict, context: Any) -> Any:
        asked.append(name)
        if name == "Edit":
            return PermissionResultDeny(message="No edits during the freeze")
        return PermissionResultAllow()

    async def prompts():
        yield {"type": "user", "message": {"role": "user", "content": TASK}}

    messages, error = run(prompt=prompts(), options=ClaudeAgentOptions(can_use_tool=can_use))
    assert error is None
    assert asked == ["Bash", "Edit", "Bash"]  # Read needs no approval
    assert "No edits during the freeze" in [r.content for r in tool_results(messages)]
    assert "could not edit the file: No edits during the freeze." in result_of(messages).result


# -- hooks ----------------------------------------------------------------------------------------
def test_a_pre_tool_use_hook_blocks_a_call_before_it_runs() -> None:
    seen: list[dict] = []

    async def guard(hook_input: dict, tool_use_id: str | None, context: Any) -> dict:
        seen.append(hook_input)
        return {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny",
                                       "permissionDecisionReason": "src/ is frozen"}}

    project = auth_project()
    options = ClaudeAgentOptions(allowed_tools=ALL_TOOLS, hooks={"PreToolUse": [HookMatcher(matcher="Edit", hooks=[guard])]})
    messages, error = run(options=options, project=project)
    assert error is None
    assert [h["tool_name"] for h in seen] == ["Edit"]  # the matcher selects Edit only
    assert seen[0]["hook_event_name"] == "PreToolUse" and seen[0]["tool_use_id"].startswith("toolu_")
    assert "PreToolUse:Edit hook error: src/ is frozen" in [r.content for r in tool_results(messages)]
    assert project.files["src/auth.ts"] == project.original["src/auth.ts"]
    assert result_of(messages).permission_denials[0]["tool_name"] == "Edit"


def test_hooks_can_allow_rewrite_and_observe() -> None:
    observed: list[Any] = []

    async def allow_and_rewrite(hook_input: dict, tool_use_id: str | None, context: Any) -> dict:
        command = hook_input["tool_input"]["command"]
        return {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow",
                                       "updatedInput": {"command": command + " -- --ci"}}}

    async def audit(hook_input: dict, tool_use_id: str | None, context: Any) -> dict:
        observed.append((hook_input["tool_name"], hook_input["tool_input"], type(hook_input["tool_response"]).__name__))
        return {}

    options = ClaudeAgentOptions(hooks={"PreToolUse": [HookMatcher(matcher="Bash", hooks=[allow_and_rewrite])],
                                        "PostToolUse": [HookMatcher(hooks=[audit])]})
    run(options=options)
    bash = [o for o in observed if o[0] == "Bash"]
    assert bash and all(o[1]["command"].endswith("-- --ci") for o in bash)  # allowed without allowed_tools
    assert [o[0] for o in observed] == ["Bash", "Read", "Read", "Bash"]  # Edit was denied: no PostToolUse


def test_a_failing_hook_fails_open_and_a_failing_can_use_tool_denies() -> None:
    """As on CLI 2.1.332: a hook that raises counts as an empty answer (the tool runs, an
    informational message says so); a can_use_tool that raises or answers badly denies the call."""
    async def broken_hook(hook_input: dict, tool_use_id: str | None, context: Any) -> dict:
        return hook_input["tool_nam"]  # a typo: KeyError inside the SDK's handler

    project = auth_project()
    options = ClaudeAgentOptions(allowed_tools=ALL_TOOLS, hooks={"PreToolUse": [HookMatcher(matcher="Edit",
                                                                                            hooks=[broken_hook])]})
    messages, error = run(options=options, project=project)
    assert error is None and result_of(messages).subtype == "success"
    assert "<= now" in project.files["src/auth.ts"]  # the guard failed open: the edit ran
    info = [m.data for m in messages if isinstance(m, SystemMessage) and m.subtype == "informational"]
    assert [(i["tag"], i["level"]) for i in info] == [("hook_callback_failed", "warning")]
    assert info[0]["content"].startswith("PreToolUse: Hook callback hook_0 failed: the SDK host replied with an error")

    async def wrong_answer(name: str, tool_input: dict, context: Any) -> Any:
        return True  # not a PermissionResult

    async def prompts():
        yield {"type": "user", "message": {"role": "user", "content": TASK}}

    messages, error = run(prompt=prompts(), options=ClaudeAgentOptions(can_use_tool=wrong_answer))
    assert error is None
    first = tool_results(messages)[0]
    assert first.is_error and first.content.startswith("Tool permission request failed: Error: Tool permission "
                                                       "callback must return PermissionResult")
    assert result_of(messages).permission_denials[0]["tool_name"] == "Bash"


def test_bad_matchers_and_bad_decisions_do_not_crash_and_on_failure_block_denies() -> None:
    seen: list[str] = []

    async def log(hook_input: dict, tool_use_id: str | None, context: Any) -> dict:
        seen.append(hook_input["tool_name"])
        return {}

    async def shouty(hook_input: dict, tool_use_id: str | None, context: Any) -> dict:
        return {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "Deny"}}

    hooks = {"PreToolUse": [HookMatcher(matcher="Bash(", hooks=[log]), HookMatcher(matcher="Edit", hooks=[shouty])]}
    project = auth_project()
    messages, error = run(options=ClaudeAgentOptions(allowed_tools=ALL_TOOLS, hooks=hooks), project=project)
    assert error is None and seen == []  # a matcher that is not a valid pattern matches nothing
    info = [m.data["tag"] for m in messages if isinstance(m, SystemMessage) and m.subtype == "informational"]
    assert info == ["hook_callback_failed"]  # "Deny" is not a decision: a failed hook, which fails open
    assert "<= now" in project.files["src/auth.ts"]

    async def broken(hook_input: dict, tool_use_id: str | None, context: Any) -> dict:
        raise ValueError("boom")

    project = auth_project()
    hooks = {"PreToolUse": [HookMatcher(matcher="Edit", hooks=[broken], on_failure="block")]}
    messages, error = run(options=ClaudeAgentOptions(allowed_tools=ALL_TOOLS, hooks=hooks), project=project)
    assert error is None and project.files["src/auth.ts"] == project.original["src/auth.ts"]
    assert any("failed and its matcher blocks on failure" in str(r.content) for r in tool_results(messages))


def test_commands_with_shell_operators_need_approval() -> None:
    from agentlab.agent_sdk._engine import _read_only_command

    assert _read_only_command("ls") and _read_only_command("ls src && cat README.md") and _read_only_command("git diff")
    for command in ("echo hi > src/auth.ts", "echo hi; npm test", "ls || npm test", "echo $(npm test)",
                    "cat a | sh", "git diff --output=x.txt", "npm test"):
        assert not _read_only_command(command), command


def test_a_tool_the_session_does_not_offer_comes_back_unavailable() -> None:
    # The fake API's model never calls a tool the request does not define, so check the CLI's rule itself.
    from agentlab.agent_sdk._engine import FakeCLI, _Unavailable

    async def no_control(body: dict) -> dict:
        raise AssertionError("not asked")

    cli = FakeCLI(agentlab.agent_sdk.get_agent_scenario("fix_auth_bug"), auth_project(),
                  ClaudeAgentOptions(disallowed_tools=["Bash"]), no_control)
    verdict = cli._rules("Bash", {"command": "npm test"})
    assert verdict == _Unavailable("<tool_use_error>Error: No such tool available: Bash. Bash is disabled for this "
                                   "session, in subagents as well as here.</tool_use_error>")  # CLI 2.1.332's text
    cli = FakeCLI(agentlab.agent_sdk.get_agent_scenario("fix_auth_bug"), auth_project(),
                  ClaudeAgentOptions(tools=["Read"]), no_control)
    assert cli._rules("Edit", {}) == _Unavailable("<tool_use_error>Error: No such tool available: Edit</tool_use_error>")


# -- sessions -------------------------------------------------------------------------------------
def test_resume_by_session_id_continues_the_same_conversation() -> None:
    project = auth_project()
    messages, error = run(options=ClaudeAgentOptions(allowed_tools=ALL_TOOLS, max_turns=2), project=project)
    first = result_of(messages)
    assert first.subtype == "error_max_turns" and isinstance(error, ResultError)
    messages, error = run(prompt="Continue", options=ClaudeAgentOptions(allowed_tools=ALL_TOOLS, resume=first.session_id))
    second = result_of(messages)
    assert error is None and second.subtype == "success" and second.session_id == first.session_id
    assert messages[0].data["session_id"] == first.session_id
    # the resumed run did not repeat the first run's work, and the project it edited is the session's
    calls = [b.name for m in messages if isinstance(m, AssistantMessage) for b in m.content if isinstance(b, ToolUseBlock)]
    assert calls == ["Edit", "Bash"]
    assert "<= now" in project.files["src/auth.ts"]
    sent = journal(first.session_id).exchanges[-1].request["messages"]
    assert sent[0]["content"] == TASK and any(m["content"] == "Continue" for m in sent)


def test_resume_of_an_unknown_session_fails_at_startup() -> None:
    messages, error = run(prompt="Continue", options=ClaudeAgentOptions(resume="no-such-session"))
    assert messages == []
    assert isinstance(error, ResultError)
    assert str(error) == ("Claude Code returned an error result: No conversation found with session ID: "
                          "no-such-session (exit code: 1)")


def test_fork_session_gets_a_new_id_with_the_history() -> None:
    first = result_of(run(options=ClaudeAgentOptions(allowed_tools=ALL_TOOLS, max_turns=2))[0])
    messages, _ = run(prompt="Continue", options=ClaudeAgentOptions(allowed_tools=ALL_TOOLS, resume=first.session_id,
                                                                    fork_session=True))
    forked = result_of(messages)
    assert forked.subtype == "success" and forked.session_id != first.session_id
    assert forked.session_id in agentlab.agent_sdk.sessions()


def test_client_keeps_the_session_across_queries_and_compacts() -> None:
    async def main() -> list[Any]:
        seen: list[Any] = []
        options = ClaudeAgentOptions(allowed_tools=ALL_TOOLS)
        async with ClaudeSDKClient(options, transport=fake_transport("fix_auth_bug")) as client:
            await client.query(TASK)
            seen += [m async for m in client.receive_response()]
            await client.query("/compact")
            seen += [m async for m in client.receive_response()]
        return seen

    seen = asyncio.run(asyncio.wait_for(main(), timeout=60))
    results = [m for m in seen if isinstance(m, ResultMessage)]
    assert [r.subtype for r in results] == ["success", "success"]
    assert results[0].session_id == results[1].session_id
    boundary = [m for m in seen if isinstance(m, SystemMessage) and m.subtype == "compact_boundary"]
    assert len(boundary) == 1 and boundary[0].data["compact_metadata"]["trigger"] == "manual"
    assert boundary[0].data["compact_metadata"]["pre_tokens"] > 0


def test_interrupt_ends_the_run_with_error_during_execution() -> None:
    async def main() -> list[Any]:
        seen: list[Any] = []
        async with ClaudeSDKClient(ClaudeAgentOptions(allowed_tools=ALL_TOOLS),
                                   transport=fake_transport("agent_stuck")) as client:
            await client.query(TASK)
            async for message in client.receive_response():
                seen.append(message)
                if isinstance(message, UserMessage) and len(seen) > 8:
                    await client.interrupt()
        return seen

    seen = asyncio.run(asyncio.wait_for(main(), timeout=60))
    result = seen[-1]
    assert isinstance(result, ResultMessage) and result.subtype == "error_during_execution"
    assert result.terminal_reason in ("aborted_streaming", "aborted_tools")


def test_partial_messages_stream_raw_events() -> None:
    messages, _ = run("summarize_project", prompt="Summarize this project",
                      options=ClaudeAgentOptions(include_partial_messages=True))
    events = [m.event["type"] for m in messages if isinstance(m, StreamEvent)]
    assert events[0] == "message_start" and "content_block_delta" in events and events.count("message_stop") == 3


@pytest.mark.parametrize(("options", "stderr"), [
    (ClaudeAgentOptions(max_budget_usd=0), "error: option '--max-budget-usd <amount>' argument '0' is invalid. "
                                           "--max-budget-usd must be a number greater than 0"),
    (ClaudeAgentOptions(max_budget_usd=-1), "error: option '--max-budget-usd <amount>' argument '-1' is invalid. "
                                            "--max-budget-usd must be a number greater than 0"),
    (ClaudeAgentOptions(permission_mode="bogus"), "error: option '--permission-mode <mode>' argument 'bogus' is "
                                                  "invalid. Allowed choices are acceptEdits, auto, bypassPermissions, "
                                                  "manual, dontAsk, plan."),
])
def test_flags_the_cli_rejects_end_the_process_before_any_message(options: ClaudeAgentOptions, stderr: str,
                                                                   capsys: pytest.CaptureFixture) -> None:
    messages, error = run(options=options)
    assert messages == []
    assert isinstance(error, sdk.ProcessError) and not isinstance(error, ResultError)
    assert error.exit_code == 1 and error.stderr == "Check stderr output for details"  # as the SDK reports it
    assert stderr in capsys.readouterr().err  # the CLI's own message, on stderr
    lines: list[str] = []
    run(options=dataclasses.replace(options, stderr=lines.append))
    assert lines == [stderr]  # or to the stderr callback, when one is given


def test_an_explicit_session_id_must_be_new_unless_forgotten() -> None:
    options = ClaudeAgentOptions(session_id="00000000-0000-4000-8000-000000000001")
    first, error = run("summarize_project", prompt="Summarize this project", options=options)
    assert error is None and result_of(first).session_id == options.session_id
    lines: list[str] = []
    again, error = run("summarize_project", prompt="Summarize this project",
                       options=dataclasses.replace(options, stderr=lines.append))
    assert again == [] and isinstance(error, sdk.ProcessError)
    assert lines == [f"Error: Session ID {options.session_id} is already in use."]
    agentlab.agent_sdk.forget_session(options.session_id)
    assert run("summarize_project", prompt="Summarize this project", options=options)[1] is None


def test_model_aliases_resolve_like_the_cli() -> None:
    messages, _ = run("summarize_project", prompt="Summarize this project", options=ClaudeAgentOptions(model="sonnet"))
    assert messages[0].data["model"] == "claude-sonnet-5-5" and result_of(messages).subtype == "success"
    assert journal(result_of(messages).session_id).exchanges[0].request["model"] == "claude-sonnet-5-5"


def test_a_transport_runs_one_process_only() -> None:
    transport = fake_transport("summarize_project")

    async def main() -> BaseException | None:
        async for _ in sdk.query(prompt="Summarize this project", transport=transport):
            pass
        try:
            async for _ in sdk.query(prompt="Summarize this project", transport=transport):
                pass
        except RuntimeError as error:
            return error
        return None

    error = asyncio.run(asyncio.wait_for(main(), timeout=60))
    assert "make a new one with agentlab.agent_sdk.fake_transport(...)" in str(error)


# -- determinism and packaging --------------------------------------------------------------------
SEED_004_EXAMPLE = '''\
import asyncio
from claude_agent_sdk import query, ClaudeAgentOptions, ResultMessage


async def run_agent():
    session_id = None

    try:
        async for message in query(
            prompt="Find and fix the bug causing test failures in the auth module",
            options=ClaudeAgentOptions(
                allowed_tools=[
                    "Read",
                    "Edit",
                    "Bash",
                    "Glob",
                    "Grep",
                ],  # Listing tools here auto-approves them (no prompting)
                setting_sources=[
                    "project"
                ],  # Load CLAUDE.md, skills, hooks from current directory
                max_turns=30,  # Prevent runaway sessions
                effort="high",  # Thorough reasoning for complex debugging
            ),
        ):
            # Handle the final result
            if isinstance(message, ResultMessage):
                session_id = message.session_id  # Save for potential resumption

                if message.subtype == "success":
                    print(f"Done: {message.result}")
                elif message.subtype == "error_max_turns":
                    # Agent ran out of turns. Resume with a higher limit.
                    print(f"Hit turn limit. Resume session {session_id} to continue.")
                elif message.subtype == "error_max_budget_usd":
                    print("Hit budget limit.")
                else:
                    print(f"Stopped: {message.subtype}")
                if message.total_cost_usd is not None:
                    print(f"Cost: ${message.total_cost_usd:.4f}")
    except Exception as error:
        # A single-shot query() raises after yielding an error result. If the
        # failure was an error result, the error subtype branches above have
        # already run; connection or process failures yield no result message.
        print(f"Session ended with an error: {error}")


asyncio.run(run_agent())
'''
"""Seed 004's "Ponerlo todo junto" Python example, verbatim (checked against the seed when present)."""


TRANSPORTS = {
    "success": 'fake_transport("fix_auth_bug")',
    "error_max_turns": 'fake_transport("agent_stuck")',
    "error_max_budget_usd": 'fake_transport("fix_auth_bug", max_budget_usd=0.01)',
    "error_during_execution": 'fake_transport("agent_crash")',
}
EXPECTED = {
    "success": r"Done: I fixed the authentication bug: .* All three tests pass now\.\nCost: \$0\.\d{4}\n",
    "error_max_turns": (r"Hit turn limit\. Resume session [0-9a-f-]{36} to continue\.\nCost: \$\d\.\d{4}\n"
                        r"Session ended with an error: Claude Code returned an error result: Reached maximum "
                        r"number of turns \(30\) \(exit code: 1\)\n"),
    "error_max_budget_usd": (r"Hit budget limit\.\nCost: \$0\.0\d{3}\nSession ended with an "
                             r"error: Claude Code returned an error result: Reached maximum budget \(\$0\.01\) "
                             r"\(exit code: 1\)\n"),
    "error_during_execution": (r"Stopped: error_during_execution\nCost: \$0\.0000\nSession ended with an error: "
                               r"Claude Code returned an error result: .*\n"),
}


def _seed_example_with(transport: str) -> str:
    """The seed's example with only ``transport=...`` added to the ``query()`` call."""
    anchor = "            ),\n        ):\n"
    assert SEED_004_EXAMPLE.count(anchor) == 1
    return SEED_004_EXAMPLE.replace(anchor, f"            ),\n            transport={transport},\n        ):\n")


@pytest.fixture(scope="module")
def seed_example_runs() -> list[dict[str, str]]:
    """Stdout of the seed's example for each subtype's transport, from two separate processes."""
    script = ["from agentlab.agent_sdk import fake_transport"]
    for subtype, transport in TRANSPORTS.items():
        script += [f"print('=== {subtype}')", _seed_example_with(transport)]
    runs = []
    for _ in range(2):
        done = subprocess.run([sys.executable, "-c", "\n".join(script)], capture_output=True, text=True, timeout=240,
                              cwd=ROOT, check=False)
        assert done.returncode == 0, done.stderr
        parts = re.split(r"^=== (\w+)\n", done.stdout, flags=re.MULTILINE)[1:]
        runs.append(dict(zip(parts[::2], parts[1::2])))
    return runs


@pytest.mark.parametrize("subtype", list(TRANSPORTS))
def test_done_when_seed_004_example_runs_unchanged_but_for_the_transport(
        subtype: str, seed_example_runs: list[dict[str, str]]) -> None:
    """Issue 6's "Done when": the seed's example, with only ``transport=`` added, prints the branch
    of each of the four result subtypes, the same bytes in every process."""
    first, second = seed_example_runs
    assert re.fullmatch(EXPECTED[subtype], first[subtype], flags=re.DOTALL), first[subtype]
    assert first[subtype] == second[subtype]  # deterministic, session ids included


def test_missing_sdk_gives_an_install_hint(monkeypatch: pytest.MonkeyPatch) -> None:
    import agentlab.agent_sdk as module

    monkeypatch.setattr(module, "_TRANSPORT_CLASS", None)
    monkeypatch.setitem(sys.modules, "claude_agent_sdk", None)
    with pytest.raises(ImportError, match=r'pip install "agentlab\[agent-sdk\]"'):
        fake_transport("fix_auth_bug")


def test_importing_agentlab_does_not_import_the_sdk() -> None:
    code = "import sys, agentlab, agentlab.agent_sdk; print('claude_agent_sdk' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, cwd=ROOT, check=False)
    assert out.stdout.strip() == "False", out.stderr


def test_unknown_scenario_names_the_known_ones() -> None:
    with pytest.raises(KeyError, match="fix_auth_bug"):
        fake_transport("no_such_scenario")


# -- the in-memory project's tools ----------------------------------------------------------------
@pytest.fixture
def project() -> Project:
    return auth_project()


def test_read_numbers_lines_and_edit_requires_a_read_first(project: Project) -> None:
    edit = {"file_path": "/project/src/auth.ts", "old_string": "> now", "new_string": "<= now"}
    refused = project.run_tool("Edit", edit)
    assert refused.is_error and refused.content == "File has not been read yet. Read it first before writing to it."
    read = project.run_tool("Read", {"file_path": "/project/src/auth.ts", "offset": 8, "limit": 1})
    assert read.content == "     8\t  return session.expiresAt > now;"
    assert not project.run_tool("Edit", edit).is_error
    assert project.run_tool("Edit", edit).content.startswith("String to replace not found in file.")


def test_edit_refuses_ambiguous_replacements(project: Project) -> None:
    project.run_tool("Read", {"file_path": "src/auth.test.ts"})
    out = project.run_tool("Edit", {"file_path": "src/auth.test.ts", "old_string": "NOW", "new_string": "T0"})
    assert out.is_error and out.content.startswith("Found 7 matches of the string to replace, but replace_all is false.")
    assert not project.run_tool("Edit", {"file_path": "src/auth.test.ts", "old_string": "NOW", "new_string": "T0",
                                         "replace_all": True}).is_error
    assert "NOW" not in project.files["src/auth.test.ts"]


def test_glob_grep_and_paths_stay_inside_the_project(project: Project) -> None:
    assert project.run_tool("Glob", {"pattern": "**/*.ts"}).content == "/project/src/auth.test.ts\n/project/src/auth.ts"
    assert project.run_tool("Glob", {"pattern": "*.md"}).content == "/project/CLAUDE.md\n/project/README.md"
    assert project.run_tool("Grep", {"pattern": "isExpired"}).content == (
        "Found 2 files\n/project/src/auth.test.ts\n/project/src/auth.ts")
    content = project.run_tool("Grep", {"pattern": r"expiresAt [<>]", "output_mode": "content"}).content
    assert content == "/project/src/auth.ts:8:  return session.expiresAt > now;"
    outside = project.run_tool("Read", {"file_path": "/etc/passwd"})
    assert outside.is_error and "outside the working directory" in outside.content
    assert project.run_tool("Read", {"file_path": "/project/nope.ts"}).content == "File does not exist."
    assert project.run_tool("Nope", {}).is_error


def test_bash_runs_the_simulated_tests_and_a_few_commands(project: Project) -> None:
    failing = project.run_tool("Bash", {"command": "npm test"})
    assert failing.is_error and failing.content.startswith("Exit code 1\n> auth-service@1.0.0 test")
    assert "✕ auth › isExpired is true at the moment of expiry" in failing.content
    project.files["src/auth.ts"] = project.files["src/auth.ts"].replace("> now", "< now")
    partly = project.run_tool("Bash", {"command": "npm test"}).content
    assert "Tests:       1 failed, 2 passed, 3 total" in partly  # a wrong fix is caught by the third test
    assert project.run_tool("Bash", {"command": "git status"}).content.endswith("modified:   src/auth.ts")
    assert project.run_tool("Bash", {"command": "ls src"}).content == "auth.test.ts\nauth.ts"
    assert project.run_tool("Bash", {"command": "pwd && echo hi"}).content == "/project\nhi"
    missing = project.run_tool("Bash", {"command": "rm -rf /"})
    assert missing.is_error and missing.content == "Exit code 127\nbash: rm: command not found"
