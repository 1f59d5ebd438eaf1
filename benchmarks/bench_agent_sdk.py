"""Benchmark: the Agent SDK on the fake CLI, against the bare fake API calls underneath it.

Prints (run: ``python benchmarks/bench_agent_sdk.py``; needs the agent-sdk extra):

- the wall time of one ``query()`` run of seed 004's task (``fix_auth_bug``, 4 API calls) and of
  a 30-turn ``agent_stuck`` run stopped by ``max_turns``, through the real ``claude_agent_sdk``
  and agentlab's transport (warm: best of several rounds);
- the same runs' API requests replayed straight to a fresh fake with
  ``AsyncAnthropic.messages.stream`` (what the fake CLI itself does per call), without the SDK's
  control protocol, parsing, the tools or the frames: the ratio is the cost of the Agent SDK
  layer over the fake Messages API.
"""

from __future__ import annotations

import asyncio
import time

from claude_agent_sdk import ClaudeAgentOptions, ResultMessage, query

import agentlab
from agentlab.agent_sdk import fake_transport, journal

ROUNDS = 5
TOOLS = ["Read", "Edit", "Bash", "Glob", "Grep"]


async def sdk_run(scenario: str, max_turns: int) -> str:
    """One query() run on the fake CLI; returns its session id."""
    session_id = ""
    try:
        async for message in query(prompt="Find and fix the bug causing test failures in the auth module",
                                   options=ClaudeAgentOptions(allowed_tools=TOOLS, max_turns=max_turns),
                                   transport=fake_transport(scenario)):
            if isinstance(message, ResultMessage):
                session_id = message.session_id
    except Exception:  # noqa: BLE001 - error_max_turns ends in the SDK's ResultError, as it should
        pass
    return session_id


async def bare_replay(scenario: str, requests: list[dict]) -> None:
    """The same API requests, streamed straight to a fresh fake."""
    client = agentlab.fake_async_client(agentlab.agent_sdk.get_agent_scenario(scenario), max_retries=0,
                                        runaway_after=10**6)
    for body in requests:
        async with client.messages.stream(**{k: v for k, v in body.items() if k != "stream"}) as stream:
            async for _ in stream:
                pass
            await stream.get_final_message()


def measure(scenario: str, max_turns: int) -> None:
    session_id = asyncio.run(sdk_run(scenario, max_turns))
    requests = [e.request for e in journal(session_id).steps]
    sdk = min(_timed(lambda: asyncio.run(sdk_run(scenario, max_turns))) for _ in range(ROUNDS))
    bare = min(_timed(lambda: asyncio.run(bare_replay(scenario, requests))) for _ in range(ROUNDS))
    print(f"{scenario} (max_turns={max_turns}), {len(requests)} API calls: query() on the fake CLI "
          f"{sdk * 1e3:.0f} ms, bare fake calls {bare * 1e3:.0f} ms; ratio {sdk / bare:.2f}x, "
          f"SDK layer {(sdk - bare) / len(requests) * 1e3:.1f} ms per call")


def _timed(fn) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


if __name__ == "__main__":
    measure("fix_auth_bug", 30)
    measure("agent_stuck", 30)
