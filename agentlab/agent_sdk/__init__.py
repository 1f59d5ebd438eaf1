"""agentlab.agent_sdk: the Claude Agent SDK's loop, run offline on the fake.

The real ``claude_agent_sdk`` (an optional extra: ``pip install "agentlab[agent-sdk]"``; the
README's commands install it) runs unchanged; only its transport is agentlab's::

    from claude_agent_sdk import query, ClaudeAgentOptions, ResultMessage
    from agentlab.agent_sdk import fake_transport

    async for message in query(prompt="Find and fix the bug causing test failures in the auth module",
                               options=ClaudeAgentOptions(allowed_tools=["Read", "Edit", "Bash"], max_turns=30),
                               transport=fake_transport("fix_auth_bug")):
        ...

The fake CLI behind the transport runs the agent loop on agentlab's fake Messages API (so its
calls are journaled: :func:`journal`), enforces ``max_turns``, ``max_budget_usd``,
``allowed_tools``/``disallowed_tools``, the permission mode, ``PreToolUse``/``PostToolUse``
hooks and ``can_use_tool``, resumes sessions by id, and runs Read/Edit/Write/Bash/Grep/Glob on
an in-memory :class:`Project` (never the real disk). The SDK bundles a CLI binary; the fake
never runs it. Facts about the SDK come from the reference, section 6, and seed 004.
"""

from __future__ import annotations

from typing import Any

from ._project import BUILTIN_TOOLS, Project, ToolOutcome, auth_project
from ._scenarios import (
    AGENT_SCENARIOS,
    agent_scenarios,
    get_agent_scenario,
    tool_history,
)

__all__ = [
    "AGENT_SCENARIOS",
    "BUILTIN_TOOLS",
    "FakeAgentTransport",
    "Project",
    "ToolOutcome",
    "auth_project",
    "fake_transport",
    "forget_session",
    "get_agent_scenario",
    "journal",
    "scenarios",
    "sessions",
    "tool_history",
]

INSTALL_HINT = ('the Agent SDK lessons need claude-agent-sdk: pip install "agentlab[agent-sdk]" '
                "(python3 tasks.py setup installs it)")

_TRANSPORT_CLASS: type | None = None


def _transport_class() -> type:
    global _TRANSPORT_CLASS
    if _TRANSPORT_CLASS is None:
        try:
            import claude_agent_sdk  # noqa: F401
        except ImportError as error:
            raise ImportError(INSTALL_HINT) from error
        from ._transport import make_transport_class

        _TRANSPORT_CLASS = make_transport_class()
    return _TRANSPORT_CLASS


def fake_transport(scenario: Any = "fix_auth_bug", *, project: Project | None = None, options: Any = None,
                   max_turns: int | None = None, max_budget_usd: float | None = None,
                   prompt_suggestion: str | None = None, report_cost: bool = True) -> Any:
    """A fresh fake CLI for ``query(..., transport=...)`` or ``ClaudeSDKClient(options, transport=...)``.

    Args:
        scenario: an Agent SDK scenario name (:func:`scenarios`) or a ``Scenario`` whose policy
            calls the built-in tools.
        project: the in-memory project (default: a fresh copy of the scenario's).
        options: the ``ClaudeAgentOptions`` to enforce (default: the ones the SDK was called with).
        max_turns: overrides ``options.max_turns`` (tool-use round trips; None: the options').
        max_budget_usd: overrides ``options.max_budget_usd`` (USD; None: the options').
        prompt_suggestion: when given, a ``prompt_suggestion`` frame with this text follows each
            successful result, as the CLI sends when suggestions are on (seed 004). The Python SDK
            skips that frame type; to see a message after the result in Python, ask for the session
            state events: ``ClaudeAgentOptions(env={"CLAUDE_CODE_EMIT_SESSION_STATE_EVENTS": "1"})``.
        report_cost: False omits ``total_cost_usd``, ``usage`` and ``model_usage`` from results
            (they are Optional in the SDK's types; seed 004: check them for None).

    Returns:
        A ``claude_agent_sdk.Transport``. Use one per ``query()`` call, as each is one CLI process.

    Raises:
        ImportError: when claude-agent-sdk is not installed (the message says how to install it).
        KeyError: for an unknown scenario name.
    """
    return _transport_class()(scenario, project=project, options=options, max_turns=max_turns,
                              max_budget_usd=max_budget_usd, prompt_suggestion=prompt_suggestion,
                              report_cost=report_cost)


def scenarios() -> list[str]:
    """Names of the Agent SDK scenarios (``fix_auth_bug``, ``summarize_project``, ``agent_stuck``...)."""
    return agent_scenarios()


def sessions() -> list[str]:
    """Ids of the sessions this process ran, oldest first (what ``resume=`` accepts)."""
    from ._engine import SESSIONS

    return list(SESSIONS)


def forget_session(session_id: str) -> None:
    """Drop a session from this process's store, so its id can be given as ``session_id`` again
    (the CLI refuses an id that is already in use). Unknown ids are ignored."""
    from ._engine import SESSIONS

    SESSIONS.pop(session_id, None)


def journal(session_id: str) -> Any:
    """The journal of the Messages API calls a session made (an :class:`agentlab.fake.Journal`).

    Raises:
        KeyError: when no session has that id.
    """
    from .._client import journal as client_journal
    from ._engine import SESSIONS

    try:
        session = SESSIONS[session_id]
    except KeyError:
        raise KeyError(f"no session {session_id!r} in this process; known: {', '.join(SESSIONS) or 'none'}") from None
    return client_journal(session.client)


def __getattr__(name: str) -> Any:
    if name == "FakeAgentTransport":
        return _transport_class()
    raise AttributeError(f"module 'agentlab.agent_sdk' has no attribute {name!r}")
