"""agentlab.loops: the reference agent loop, and (in ``specimens``) one loop per anti-pattern.

::

    from agentlab.loops import agent_loop, run_agent, Guardrails
    result = run_agent(client, prompt, tools, run_tool, guardrails=Guardrails(max_steps=10))
    result.stopped_because, result.explanation()

``SPECIMENS`` loads on first use from ``agentlab.loops.specimens``. The Agent SDK counterparts
(``async def consume(messages) -> str`` done right, and one per agent-sdk anti-pattern) are in
``agentlab.loops.sdk_specimens``. The folder ``typescript/`` (package data) holds the same loops in
TypeScript for ``agentlab grade FILE.ts``: ``correct_loop.ts``, the exam guide's loop adapted
(``seed_loop.ts:agente``) and one twin per specimen, named after its tag.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

from .reference import (
    STEP_FOR_STOP_REASON,
    Guardrails,
    LoopError,
    LoopStopped,
    RunResult,
    Step,
    StoppedBecause,
    ToolCall,
    TurnTrace,
    aagent_loop,
    agent_loop,
    arun_agent,
    refusal_message,
    run_agent,
)

__all__ = [
    "Guardrails",
    "LoopError",
    "LoopStopped",
    "RunResult",
    "SPECIMENS",
    "STEP_FOR_STOP_REASON",
    "Step",
    "StoppedBecause",
    "ToolCall",
    "TurnTrace",
    "aagent_loop",
    "agent_loop",
    "arun_agent",
    "refusal_message",
    "run_agent",
]


def __getattr__(name: str) -> Any:
    if name == "SPECIMENS":
        value = import_module(".specimens", __name__).SPECIMENS
        globals()[name] = value
        return value
    raise AttributeError(f"module 'agentlab.loops' has no attribute {name!r}")
