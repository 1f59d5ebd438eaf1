"""Benchmark: grading the reference loop on every conformance case.

Prints (run: ``python benchmarks/bench_grader.py``):

- the wall time of ``agentlab.grade(reference agent_loop)`` on every case, warm (goal: under 1 s
  on this 2-core machine), and the first, cold run (imports and the SDK's first-use costs);
- the grader's overhead as a ratio against the bare fake calls it makes: every request the
  graded loop sent is replayed with ``client.messages.create`` on a fresh fake client, without
  the grader's thread, spy, detectors or report.
"""

from __future__ import annotations

import time

import anthropic

import agentlab
from agentlab.grader import CASES
from agentlab.loops.reference import agent_loop

ROUNDS = 5


def bare_replay(report_runs) -> float:
    """Seconds to send every journaled request again, straight to a fresh fake per case."""
    start = time.perf_counter()
    for case, requests in report_runs:
        client = agentlab.fake_client(case.scenario, max_retries=0, runaway_after=10**6)
        for body in requests:
            try:
                client.messages.create(**{k: v for k, v in body.items() if k != "stream"})
            except anthropic.APIError:
                pass
    return time.perf_counter() - start


def main() -> None:
    start = time.perf_counter()
    report = agentlab.grade(agent_loop)
    cold = time.perf_counter() - start
    assert report.passed, str(report)

    from agentlab.grader._harness import run_case

    runs = [(case, [e.request for e in run_case(agent_loop, case).journal.steps]) for case in CASES]
    requests = sum(len(r) for _, r in runs)
    graded = min(_timed(lambda: agentlab.grade(agent_loop)) for _ in range(ROUNDS))
    bare = min(bare_replay(runs) for _ in range(ROUNDS))
    print(f"grade(reference agent_loop), {len(CASES)} cases, {requests} requests: {graded * 1e3:.0f} ms warm "
          f"(goal < 1000 ms), {cold * 1e3:.0f} ms cold (first call in a fresh process)")
    print(f"bare fake calls for the same requests: {bare * 1e3:.0f} ms; grader/bare ratio {graded / bare:.2f}x; "
          f"overhead per case {(graded - bare) / len(CASES) * 1e3:.2f} ms")


def _timed(fn) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


if __name__ == "__main__":
    main()
