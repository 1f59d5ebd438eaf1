"""Benchmark: grading the reference loop on every conformance case.

Prints (run: ``python benchmarks/bench_grader.py``):

- the wall time of ``agentlab.grade(reference agent_loop)`` on every case, warm (goal: under 1 s
  on this 2-core machine), and the first, cold run (imports and the SDK's first-use costs);
- the grader's overhead as a ratio against the bare fake calls it makes: every request the
  graded loop sent is replayed with ``client.messages.create`` on a fresh fake client, without
  the grader's thread, spy, detectors or report;
- isolation's cost: ``grade(agent_loop)`` (the loop in a child process, the default) against
  ``grade(agent_loop, isolate=False)`` (in this process), warm, as a ratio (goal: at most 2x),
  and the parent's resident memory before and after 100 isolated gradings (goal: flat).
- class grading (``agentlab.grader._class.grade_class``, what ``agentlab grade DIR`` runs): a
  class of 100 submissions (the reference loop and every specimen, written out as files, in
  turn), every case, one worker process per submission on the machine's cores: the wall time
  (goal: at most 60 s on this 2-core machine) and the parent's peak RSS after each quarter of the
  class (goal: flat; the reports are all it keeps).
"""

from __future__ import annotations

import inspect
import os
import resource
import tempfile
import time
from pathlib import Path

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
    graded = min(_timed(lambda: agentlab.grade(agent_loop)) for _ in range(ROUNDS * 2))
    in_process = min(_timed(lambda: agentlab.grade(agent_loop, isolate=False)) for _ in range(ROUNDS * 2))
    cpu_isolated = min(_cpu(lambda: agentlab.grade(agent_loop)) for _ in range(ROUNDS))
    cpu_in_process = min(_cpu(lambda: agentlab.grade(agent_loop, isolate=False)) for _ in range(ROUNDS))
    bare = min(bare_replay(runs) for _ in range(ROUNDS))
    print(f"grade(reference agent_loop), {len(CASES)} cases, {requests} requests: {graded * 1e3:.0f} ms warm "
          f"(goal < 1000 ms), {cold * 1e3:.0f} ms cold (first call in a fresh process: imports, the forkserver)")
    print(f"isolated {graded * 1e3:.0f} ms vs in-process {in_process * 1e3:.0f} ms: ratio {graded / in_process:.2f}x "
          f"(goal <= 2x; wall time, best of {ROUNDS * 2}: two processes taking turns suffer most on a loaded machine)")
    print(f"CPU (this process + the child): isolated {cpu_isolated * 1e3:.0f} ms vs in-process {cpu_in_process * 1e3:.0f} ms: "
          f"ratio {cpu_isolated / cpu_in_process:.2f}x")
    print(f"bare fake calls for the same requests: {bare * 1e3:.0f} ms; in-process grader/bare ratio "
          f"{in_process / bare:.2f}x; overhead per case {(in_process - bare) / len(CASES) * 1e3:.2f} ms")
    before = _rss_mib()
    for _ in range(GRADINGS):
        agentlab.grade(agent_loop)
    print(f"parent memory over {GRADINGS} isolated gradings: {before:.0f} MiB -> {_rss_mib():.0f} MiB resident "
          f"(goal: flat)")
    bench_class()


GRADINGS = 100


def _rss_mib() -> float:
    """This process's resident set (MiB), from /proc (0 where there is none)."""
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20
    except OSError:
        return 0.0


def _cpu(fn) -> float:
    """CPU seconds of ``fn()`` in this process plus the grader's children it stopped."""
    from agentlab.grader._isolate import CHILD_CPU

    start, child = time.process_time(), CHILD_CPU["seconds"]
    fn()
    return time.process_time() - start + CHILD_CPU["seconds"] - child


CLASS_SIZE = 100


def bench_class() -> None:
    """Grade a class of CLASS_SIZE files in worker processes; print wall time and parent memory."""
    from agentlab.grader._class import find_submissions, grade_class
    from agentlab.loops import specimens

    header = "".join([f"{name} = {getattr(specimens, name)!r}\n" for name in (
        "MODEL", "MAX_TOKENS", "RETRY_MAX_TOKENS", "MAX_STEPS", "MAX_TOOL_ERRORS")]
        + ["\n\n" + inspect.getsource(specimens.run_one), "\n\n" + inspect.getsource(specimens.text_of), "\n\n"])
    loops = [specimens.correct_loop, *specimens.SPECIMENS.values()]
    rss: list[int] = []
    with tempfile.TemporaryDirectory() as folder:
        for i in range(CLASS_SIZE):
            loop = loops[i % len(loops)]
            source = inspect.getsource(loop).replace(f"def {loop.__name__}(", "def agent_loop(", 1)
            Path(folder, f"learner{i:03d}.py").write_text(header + source, encoding="utf-8")
        subs = find_submissions([folder])

        def done(graded, n, total) -> None:
            if n % (total // 4) == 0:
                rss.append(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)

        start = time.perf_counter()
        graded = grade_class(subs, lang="en", on_done=done)
        wall = time.perf_counter() - start
    passed = sum(g.passed for g in graded)
    errors = sum(g.error is not None for g in graded)
    print(f"class of {len(graded)} submissions x {len(CASES)} cases, {os.cpu_count()} cores: {wall:.1f} s wall "
          f"(goal <= 60 s; includes starting the worker server), {passed} passed, {errors} not graded; parent peak "
          f"RSS after each quarter: {', '.join(f'{kb / 1024:.0f} MB' for kb in rss)} (goal: flat)")


def _timed(fn) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


if __name__ == "__main__":
    main()
