"""Benchmark: what serving the fake over HTTP costs over calling it in-process.

Prints a ratio, not a verdict (run: ``python benchmarks/bench_serve.py``). Goal from issue 11: a
served call costs at most 3x an in-process call.

Both sides run the real ``anthropic`` SDK and the reference loop (``agentlab.loops.agent_loop``)
on the same scenario: in-process through the httpx2 transport, served through uvicorn on a
loopback socket (``agentlab.serve.running``, in a thread of the same process, so client and
server share one GIL: the worst case; ``agentlab serve`` in its own process is cheaper). The
measure is the process's CPU time per API call (client and server threads together; CPU time,
not wall time, so other load on the machine does not move it), best of ``ROUNDS`` rounds of
``RUNS`` whole loop runs, after a warm-up (clients are made before the clock starts).
"""

from __future__ import annotations

import statistics
import time

import anthropic

import agentlab
from agentlab.fake import get_scenario
from agentlab.loops import agent_loop
from agentlab.serve import FakeApp, running

SCENARIOS = ("weather", "long_task")
RUNS = 15
ROUNDS = 7


def per_call(make_client, scenario_name: str, rounds: int = ROUNDS, runs: int = RUNS) -> float:
    """Best-of-rounds milliseconds per API call of the reference loop on ``scenario_name``."""
    scenario = get_scenario(scenario_name)
    best = float("inf")
    for round_ in range(rounds + 1):  # the first round warms up
        clients = [make_client(scenario_name, f"{round_}-{i}") for i in range(runs)]
        calls = 0
        start = time.process_time()
        for client in clients:
            agent_loop(client, scenario.prompt, list(scenario.tools), scenario.run_tool)
        elapsed = time.process_time() - start
        calls = runs * scenario.request_budget
        if round_:
            best = min(best, elapsed / calls * 1000)
    return best


def main() -> None:
    with running(FakeApp()) as server:
        def served(name: str, label: str) -> anthropic.Anthropic:
            return anthropic.Anthropic(base_url=server.base_url, api_key=f"{name}:{label}")

        def local(name: str, label: str) -> anthropic.Anthropic:
            return agentlab.fake_client(name)

        ratios = []
        for name in SCENARIOS:
            here = per_call(local, name)
            there = per_call(served, name)
            ratios.append(there / here)
            print(f"{name:<10} in-process {here:6.2f} ms CPU/call   served {there:6.2f} ms CPU/call   ratio {there / here:4.2f}x")
    print(f"served / in-process (median of scenarios): {statistics.median(ratios):.2f}x  (goal: at most 3x)")


if __name__ == "__main__":
    main()
