"""Run the real Claude Code CLI bundled with claude-agent-sdk against server.py, and print the stream.

This is how the fake CLI's behaviour was checked (see OBSERVED.md): the real ``query()`` with no
custom transport starts the bundled CLI, which talks to ``server.py`` on localhost (a dummy key;
nothing leaves the machine). Usage, from this folder::

    python server.py 18765 &            # the scripted Messages API
    python probe.py                     # list the cases
    python probe.py hook_deny           # one case
    kill %1

The first user message steers the scripted model: ``CMD<npm test>`` asks for one Bash call,
``PAR<2>`` for two parallel ones, ``TOOL<{"name": ..., "input": ...}>`` for any tool,
``LOOPFOREVER`` keeps calling tools (for the limits).
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import os
import sys
import tempfile

HOME = os.path.join(tempfile.gettempdir(), "real_cli_probe_home")
PROJECT = os.path.join(HOME, "proj")
os.makedirs(PROJECT, exist_ok=True)
with open(os.path.join(PROJECT, "a.txt"), "w", encoding="utf-8") as handle:
    handle.write("hello\n")
os.environ.update(HOME=HOME, ANTHROPIC_BASE_URL="http://127.0.0.1:18765", ANTHROPIC_API_KEY="dummy-not-a-key",
                  CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1", DISABLE_TELEMETRY="1", DISABLE_AUTOUPDATER="1")
os.environ.pop("ANTHROPIC_AUTH_TOKEN", None)

from claude_agent_sdk import (  # noqa: E402
    AssistantMessage,
    ClaudeAgentOptions,
    HookMatcher,
    ResultMessage,
    SystemMessage,
    UserMessage,
    query,
)


async def hook_deny(hook_input, tool_use_id, context):
    return {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny",
                                   "permissionDecisionReason": "nope"}}


async def hook_raise(hook_input, tool_use_id, context):
    raise ValueError("boom in hook")


async def can_use_raise(name, tool_input, context):
    raise RuntimeError("boom in can_use_tool")


def _tool(name: str, tool_input: dict) -> str:
    return "TOOL<" + json.dumps({"name": name, "input": tool_input}) + ">"


CASES = {
    "no_permission": ("CMD<npm test>", {}),
    "edit_no_permission": (_tool("Edit", {"file_path": f"{PROJECT}/a.txt", "old_string": "hello",
                                          "new_string": "bye"}), {}),
    "bash_disallowed": ("CMD<npm test>", {"disallowed_tools": ["Bash"]}),
    "bash_pattern": ("CMD<npm test>", {"allowed_tools": ["Bash"], "disallowed_tools": ["Bash(npm test)"]}),
    "hook_deny": ("CMD<echo hi>", {"allowed_tools": ["Bash"],
                                   "hooks": {"PreToolUse": [HookMatcher(matcher=None, hooks=[hook_deny])]}}),
    "hook_raise": ("CMD<echo hi>", {"allowed_tools": ["Bash"],
                                    "hooks": {"PreToolUse": [HookMatcher(matcher=None, hooks=[hook_raise])]}}),
    "can_use_tool_raise": ("CMD<npm test>", {"can_use_tool": can_use_raise}),
    "state_events": ("CMD<echo hi>", {"allowed_tools": ["Bash"], "env": {"CLAUDE_CODE_EMIT_SESSION_STATE_EVENTS": "1"}}),
    "parallel": ("PAR<2>", {"allowed_tools": ["Bash"]}),
    "max_turns": ("LOOPFOREVER CMD<echo hi>", {"allowed_tools": ["Bash"], "max_turns": 2}),
    "budget": ("LOOPFOREVER CMD<echo hi>", {"allowed_tools": ["Bash"], "max_budget_usd": 0.02}),
    "budget_zero": ("CMD<echo hi>", {"allowed_tools": ["Bash"], "max_budget_usd": 0}),
    "model_alias": ("CMD<echo hi>", {"allowed_tools": ["Bash"], "model": "sonnet"}),
}


def describe(message) -> str:
    if isinstance(message, SystemMessage):
        return f"SystemMessage({message.subtype}) {json.dumps(message.data)[:400]}"
    if isinstance(message, AssistantMessage):
        block = message.content[0]
        return (f"AssistantMessage({type(block).__name__}) id={message.message_id} stop_reason={message.stop_reason} "
                f"usage={message.usage}")
    if isinstance(message, UserMessage):
        return f"UserMessage {message.content!r:.300} tool_use_result={message.tool_use_result!r:.150}"
    if isinstance(message, ResultMessage):
        return f"ResultMessage {json.dumps(dataclasses.asdict(message), default=str)[:1500]}"
    return type(message).__name__


async def main(name: str) -> None:
    prompt, options = CASES[name]
    try:
        async for message in query(prompt=f"say hi {prompt}",
                                   options=ClaudeAgentOptions(cwd=PROJECT, setting_sources=[], **options)):
            print(describe(message))
    except Exception as error:  # noqa: BLE001 - printed: it is part of what is observed
        print(f"RAISED {type(error).__name__}: {error}")


if __name__ == "__main__":
    if len(sys.argv) != 2 or sys.argv[1] not in CASES:
        print("cases:", ", ".join(CASES))
        raise SystemExit(2)
    asyncio.run(main(sys.argv[1]))
