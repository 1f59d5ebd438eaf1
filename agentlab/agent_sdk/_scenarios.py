"""Scenarios for the Agent SDK lessons: the simulated model driving Claude Code's built-in tools.

They are ordinary :class:`~agentlab.fake.Scenario` objects (the fake Messages API answers them),
whose policies call ``Read``/``Edit``/``Bash``/``Grep``/``Glob`` and react to what the tools
returned, including a tool the session did not allow: the model sees the denial and says so.
Each also names the in-memory project it works on (``extra["project"]``).

The table::

    fix_auth_bug       seed 004: npm test (3 failures), Read auth.ts + auth.test.ts, Edit + npm test, answer
    summarize_project  read-only: Glob, Read README.md + package.json, a summary (runs with no options)
    agent_stuck        re-runs the tests forever and never edits: only max_turns/max_budget_usd end it
    agent_crash        the session crashes while a tool runs: error_during_execution, zero cost, no stop_reason
    agent_api_error    HTTP 529 on every attempt of the second call: subtype "success" with is_error true
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..fake._replies import Reply, fault, text, thinking, tool_use, tool_uses
from ..fake._scenario import Scenario, Turn
from ._project import CWD, Project, auth_project

__all__ = ["AGENT_SCENARIOS", "agent_scenarios", "get_agent_scenario", "project_for", "tool_history"]

AGENT_MODEL = "claude-sonnet-5"
"""The model the fake CLI uses unless ``ClaudeAgentOptions.model`` says otherwise."""

FIXED_LINE = "return session.expiresAt <= now;"
BUGGY_LINE = "return session.expiresAt > now;"
ANSWER = ("I fixed the authentication bug: `isExpired` in src/auth.ts compared the expiry the wrong way round "
          "(`>` instead of `<=`). All three tests pass now.")


@dataclass(frozen=True)
class ToolCall:
    """One client tool call of the conversation with its result (None while unanswered)."""

    name: str
    input: dict[str, Any]
    result: str | None
    is_error: bool


def tool_history(turn: Turn) -> list[ToolCall]:
    """Every tool call of the conversation in order, each paired with its ``tool_result``."""
    results: dict[str, tuple[str, bool]] = {}
    for message in turn.messages:
        content = message.get("content")
        if message.get("role") == "user" and isinstance(content, list):
            for block in content:
                if isinstance(block, dict) and block.get("type") == "tool_result":
                    body = block.get("content")
                    if isinstance(body, list):
                        body = "".join(b.get("text", "") for b in body if isinstance(b, dict))
                    results[block.get("tool_use_id", "")] = (str(body or ""), bool(block.get("is_error")))
    calls = []
    for message in turn.messages:
        content = message.get("content")
        if message.get("role") == "assistant" and isinstance(content, list):
            for block in content:
                if isinstance(block, dict) and block.get("type") == "tool_use":
                    result = results.get(block.get("id", ""))
                    calls.append(ToolCall(block.get("name", ""), dict(block.get("input") or {}),
                                          result[0] if result else None, bool(result and result[1])))
    return calls


def _tools(turn: Turn) -> set[str]:
    return {t.get("name") for t in turn.tools if isinstance(t, dict)}


def _tests_pass(call: ToolCall) -> bool:
    return call.result is not None and not call.is_error and "failed" not in call.result


def _denied(call: ToolCall) -> str:
    """The reason a call did not run, in one line without its final period (the model's own
    sentence adds one)."""
    text = (call.result or "").replace("<tool_use_error>", "").replace("</tool_use_error>", "").strip()
    return (text.splitlines() or [""])[0].rstrip(".")


def _fix_reply(turn: Turn) -> Reply:
    tools, history = _tools(turn), tool_history(turn)
    tests = [c for c in history if c.name == "Bash" and "test" in c.input.get("command", "")]
    reads = {c.input.get("file_path") for c in history if c.name == "Read" and not c.is_error}
    edits = [c for c in history if c.name == "Edit"]
    auth, auth_test = f"{CWD}/src/auth.ts", f"{CWD}/src/auth.test.ts"
    if not history and "Bash" in tools:
        return tool_use("Bash", {"command": "npm test", "description": "Run the test suite"},
                        text="I'll start by running the tests to see what fails.")
    if tests and tests[0].is_error and not tests[0].result.startswith("Exit code") and not edits:
        return text(f"I could not run the tests: {_denied(tests[0])}. Allow the Bash tool so I can run "
                    "`npm test`, and ask again.")
    if not {auth, auth_test} <= reads:
        if "Read" not in tools:
            return text("I can't read the project's files in this session (the Read tool is not available).")
        if history and all(c.name == "Read" and c.is_error for c in history[-2:]):
            return text(f"I could not read the files: {_denied(history[-1])}.")
        return tool_uses(("Read", {"file_path": auth}), ("Read", {"file_path": auth_test}),
                         text="Three tests fail. Let me read the module and its tests.")
    if not edits:
        calls: list[tuple[str, dict[str, Any]]] = [
            ("Edit", {"file_path": auth, "old_string": BUGGY_LINE, "new_string": FIXED_LINE})]
        if "Bash" in tools:
            calls.append(("Bash", {"command": "npm test", "description": "Run the tests again"}))
        return tool_uses(*calls, text="`isExpired` returns true for live sessions: the comparison is inverted. "
                                      "Fixing it and running the tests again.")
    if edits[-1].is_error:
        return text("I found the bug (`isExpired` in src/auth.ts compares the expiry the wrong way round: `>` "
                    f"should be `<=`), but I could not edit the file: {_denied(edits[-1])}.")
    edit_at = max(i for i, c in enumerate(history) if c.name == "Edit")
    after = [c for c in history[edit_at + 1:] if c.name == "Bash" and "test" in c.input.get("command", "")]
    last_test = after[-1] if after else None
    if last_test is None or last_test.result is None:
        return text("I fixed the comparison in `isExpired` (`>` became `<=`), but I could not run the tests "
                    "to confirm it.")
    if last_test.is_error and not last_test.result.startswith("Exit code"):
        return text("I fixed the comparison in `isExpired` (`>` became `<=`), but I could not run the tests "
                    f"to confirm it: {_denied(last_test)}.")
    if _tests_pass(last_test):
        return text(ANSWER)
    return text("I changed `isExpired`, but the tests still fail; the output above shows which ones.")


_FIX_THOUGHTS = {
    "Bash": "The user reports failing tests in the auth module. Run the suite first to see what fails.",
    "Read": "All three failures are about session expiry. Read the module and its tests before changing anything.",
    "Edit": "isExpired returns expiresAt > now, which is true for a live session. Expired means expiresAt <= now, "
            "which also covers the exact moment of expiry that the third test checks.",
    None: "Decide what to report to the user from the last tool results.",
}


def _fix_policy(turn: Turn) -> Reply:
    """Seed 004's run. Each reply starts with a thinking block, which the fake keeps only when the
    request turns thinking on (the CLI does for ``effort`` or ``thinking`` options)."""
    reply = _fix_reply(turn)
    first_call = next((b["name"] for b in reply.content if b.get("type") == "tool_use"), None)
    return thinking(_FIX_THOUGHTS.get(first_call, _FIX_THOUGHTS[None]), reply)


def _summary_policy(turn: Turn) -> Reply:
    tools, history = _tools(turn), tool_history(turn)
    if not history:
        if "Glob" not in tools:
            return text("I can't list the project's files in this session.")
        return tool_use("Glob", {"pattern": "**/*"}, text="Let me see what the project contains.")
    reads = [c for c in history if c.name == "Read"]
    if not reads and "Read" in tools:
        return tool_uses(("Read", {"file_path": f"{CWD}/README.md"}), ("Read", {"file_path": f"{CWD}/package.json"}))
    return text("auth-service is a small TypeScript module for session tokens: `validateToken` maps a token to "
                "a user id while its session is live, and `isExpired` decides when a session has ended. Its "
                "Jest suite (src/auth.test.ts) runs with `npm test`.")


_STUCK_COMMANDS = ("npm test", "npm test -- --verbose", "npx jest src/auth.test.ts", "npm test -- --runInBand")


def _stuck_policy(turn: Turn) -> Reply:
    history = tool_history(turn)
    command = _STUCK_COMMANDS[len(history) % len(_STUCK_COMMANDS)]
    note = "The tests fail. They may be flaky; running them again." if history else "Running the tests first."
    return tool_use("Bash", {"command": command, "description": "Run the tests"}, text=note)


def _crash_policy(turn: Turn) -> Reply:
    history = tool_history(turn)
    if not history:
        return tool_use("Bash", {"command": "npm test", "description": "Run the test suite"})
    return tool_uses(("Read", {"file_path": f"{CWD}/src/auth.ts"}), ("Read", {"file_path": f"{CWD}/src/auth.test.ts"}))


def _api_error_policy(turn: Turn) -> Reply:
    history = tool_history(turn)
    if not history:
        return tool_use("Bash", {"command": "npm test", "description": "Run the test suite"})
    return fault(529, times=99, then=text("unreachable"))


def _table() -> list[Scenario]:
    def scenario(name: str, description: str, description_es: str, policy: Callable[[Turn], Reply], needed: int,
                 prompt: str = "Find and fix the bug causing test failures in the auth module", **extra: Any) -> Scenario:
        return Scenario(name=name, description=description, description_es=description_es, prompt=prompt,
                        model=AGENT_MODEL, max_tokens=32_000, policy=policy, needed_requests=needed,
                        extra={"project": "auth", **extra})

    return [
        scenario("fix_auth_bug", "seed 004: run the tests, read two files, fix one, run the tests again",
                 "semilla 004: ejecutar las pruebas, leer dos archivos, arreglar uno y volver a ejecutarlas",
                 _fix_policy, 4, answer_contains="All three tests pass now", subtype="success"),
        scenario("summarize_project", "read-only: Glob, then Read two files, then a summary",
                 "solo lectura: Glob, luego Read de dos archivos y un resumen",
                 _summary_policy, 3, prompt="Summarize this project", subtype="success"),
        scenario("agent_stuck", "re-runs the tests forever and never edits: only max_turns or max_budget_usd end it",
                 "vuelve a ejecutar las pruebas sin fin y nunca edita: solo max_turns o max_budget_usd lo paran",
                 _stuck_policy, 30, subtype="error_max_turns"),
        scenario("agent_crash", "the session crashes while a tool runs: error_during_execution",
                 "la sesión se bloquea mientras se ejecuta una herramienta: error_during_execution",
                 _crash_policy, 2, crash_on_tool_call=2, subtype="error_during_execution"),
        scenario("agent_api_error", "HTTP 529 on every retry of the second call: subtype success with is_error",
                 "HTTP 529 en cada reintento de la segunda llamada: subtipo success con is_error",
                 _api_error_policy, 5, subtype="success", is_error=True),
    ]


AGENT_SCENARIOS: dict[str, Scenario] = {s.name: s for s in _table()}
"""The Agent SDK scenarios by name."""

PROJECTS: dict[str, Callable[[], Project]] = {"auth": auth_project}
"""Project factories by the name a scenario's ``extra["project"]`` gives."""


def agent_scenarios() -> list[str]:
    """Names of the Agent SDK scenarios, in table order."""
    return list(AGENT_SCENARIOS)


def get_agent_scenario(name: str) -> Scenario:
    """The Agent SDK scenario called ``name``.

    Raises:
        KeyError: for an unknown name; the message lists the known ones.
    """
    try:
        return AGENT_SCENARIOS[name]
    except KeyError:
        raise KeyError(f"unknown Agent SDK scenario {name!r}; known: {', '.join(AGENT_SCENARIOS)}") from None


def project_for(scenario: Scenario) -> Project:
    """A fresh copy of the project ``scenario`` works on (the auth project when it names none)."""
    return PROJECTS[scenario.extra.get("project", "auth")]()
