"""Benchmark: what the fake costs over a bare mock, and what `import agentlab` costs.

Prints ratios, not verdicts (run: ``python benchmarks/bench_fake.py``). Goals from issue 2:

- per-call cost of ``client.messages.create`` on the fake, with a 40-message history, at most
  1.5x the same call on a bare ``httpx2.MockTransport`` that returns a canned Message;
- ``import agentlab`` at most 1.2x ``import anthropic`` (each in a fresh interpreter).

Both sides of each ratio run the real SDK, so the ratio measures what the fake adds
(validation, token counting, the simulated model, the journal) on top of the SDK's own work.
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import time

import anthropic
import httpx2

import agentlab
from agentlab.fake import Scenario, text

HISTORY_PAIRS = 20  # 40 messages: 20 user + 20 assistant, then the new user turn
CALLS = 200
ROUNDS = 9


def history() -> list[dict]:
    messages: list[dict] = []
    for i in range(HISTORY_PAIRS):
        messages.append({"role": "user", "content": f"Question {i}: what is the weather like in city number {i}?"})
        messages.append({"role": "assistant", "content": [{"type": "text", "text": f"Answer {i}: it is sunny, 25C."}]})
    messages.append({"role": "user", "content": "And tomorrow?"})
    return messages


CANNED = {
    "id": "msg_01AAAAAAAAAAAAAAAAAAAAAA", "type": "message", "role": "assistant", "model": "claude-sonnet-5",
    "content": [{"type": "text", "text": "Sunny again.", "citations": None}], "stop_reason": "end_turn",
    "stop_sequence": None, "stop_details": None,
    "usage": {"input_tokens": 500, "output_tokens": 3, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0},
}


def bare_client() -> anthropic.Anthropic:
    body = json.dumps(CANNED).encode()

    def handler(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(200, content=body, headers={"content-type": "application/json", "request-id": "req_1"})

    return anthropic.Anthropic(api_key="k", http_client=httpx2.Client(transport=httpx2.MockTransport(handler)))


def fake_client() -> anthropic.Anthropic:
    scenario = Scenario(name="bench", replies=(text("Sunny again."),))
    return agentlab.fake_client(scenario, runaway_after=10**9)


def per_call(make_client, messages: list[dict]) -> float:
    """Best CPU time per call over ROUNDS rounds of CALLS calls, each round on a fresh client (a
    fresh journal, as in a real run, which makes tens of calls, not thousands). CPU time, not wall
    time, so a busy machine (a test run beside it) skews the ratio less."""
    client = make_client()
    start = time.process_time()  # CPU time of this process: other processes on the machine don't count
    for _ in range(CALLS):
        client.messages.create(model="claude-sonnet-5", max_tokens=1024, messages=messages)
    return (time.process_time() - start) / CALLS


def import_time(module: str, runs: int = 7) -> float:
    code = f"import time; t = time.perf_counter(); import {module}; print(time.perf_counter() - t)"
    times = [float(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout)
             for _ in range(runs)]
    return statistics.median(times)


def main() -> None:
    messages = history()
    per_call(bare_client, messages), per_call(fake_client, messages)  # warm up both
    bare_times, fake_times = [], []
    for _ in range(ROUNDS):  # interleaved, so a busy moment hits both sides
        bare_times.append(per_call(bare_client, messages))
        fake_times.append(per_call(fake_client, messages))
    bare_s, fake_s = min(bare_times), min(fake_times)
    print(f"per call, 40-message history: bare mock {bare_s * 1e3:.3f} ms, fake {fake_s * 1e3:.3f} ms, "
          f"ratio {fake_s / bare_s:.2f}x (goal <= 1.5x)")
    anthropic_s, agentlab_s = import_time("anthropic"), import_time("agentlab")
    print(f"import: anthropic {anthropic_s * 1e3:.1f} ms, agentlab {agentlab_s * 1e3:.1f} ms, "
          f"ratio {agentlab_s / anthropic_s:.2f}x (goal <= 1.2x)")
    first_use = import_time("agentlab; agentlab.fake_client('weather')")
    print(f"import agentlab + first use of fake_client (loads the SDK and the fake): {first_use * 1e3:.1f} ms, "
          f"ratio to import anthropic {first_use / anthropic_s:.2f}x")


if __name__ == "__main__":
    main()
