"""Benchmark: loading and validating every question bank (``quizzes/*.yaml``).

Prints (run: ``python benchmarks/bench_quiz.py [folder]``), each against the 200 ms goal:

- full validation, warm process: YAML parse with line marks, JSON Schema per question, the
  semantic checks (ids, tags, code that compiles...), dataclasses; no cache (best of 5);
- the same with the validation cache hit (the banks unchanged since their last validation:
  what a learner's ``agentlab quiz`` pays on every start after the first);
- a fresh process: imports plus the first full validation (what CI and a bank author pay);
- where the full validation's time goes (parse, schema, the rest).
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from agentlab.quiz import _bank, load_bank  # noqa: E402  (after the path set-up above)

GOAL = 0.200
ROUNDS = 5


def best(fn, rounds: int = ROUNDS) -> float:
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def verdict(seconds: float) -> str:
    return f"{seconds * 1e3:7.1f} ms  {'under' if seconds < GOAL else 'OVER '} 200 ms  ({seconds / GOAL:.2f}x the goal)"


def breakdown(folder: Path) -> dict[str, float]:
    """Seconds per stage of a full validation, best of 3 each: parse (YAML with line marks),
    schema (jsonschema on every question), the rest (semantic checks, code compiled, dataclasses)."""
    files = sorted(folder.glob("*.yaml"))
    texts = [f.read_bytes().decode("utf-8") for f in files]
    parsed: list = []

    def parse() -> None:
        parsed.clear()
        for f, text in zip(files, texts):
            checked = _bank._File(f)
            _bank._parse(checked, text)
            parsed.append(checked)

    def schema() -> None:
        for checked in parsed:
            for q in checked.data["questions"]:
                list(_bank._validator(q["type"]).iter_errors(q))

    times = {"parse": best(parse, 3), "schema": best(schema, 3), "total": best(lambda: load_bank(folder, cache=False), 3)}
    times["rest"] = max(0.0, times["total"] - times["parse"] - times["schema"])
    return times


def main() -> None:
    folder = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "quizzes"
    bank = load_bank(folder, cache=False)
    size = sum(f.stat().st_size for f in folder.glob("*.yaml"))
    print(f"{len(bank)} questions in {len(bank.topics)} banks, {size / 1024:.0f} KiB of YAML ({folder})")

    full = best(lambda: load_bank(folder, cache=False))
    print(f"full validation, warm process:          {verdict(full)}")
    with tempfile.TemporaryDirectory() as cache:
        load_bank(folder, cache=cache)
        cached = best(lambda: load_bank(folder, cache=cache))
    print(f"validation cache hit (banks unchanged):  {verdict(cached)}  [{full / cached:.0f}x faster than full]")

    code = ("import time; t = time.perf_counter(); from agentlab.quiz import load_bank; "
            f"load_bank({str(folder)!r}, cache=False); print(time.perf_counter() - t)")
    fresh = min(float(subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                                     check=True).stdout) for _ in range(3))
    print(f"fresh process, imports + full:          {verdict(fresh)}")

    parts = breakdown(folder)
    print("full validation by stage: " + ", ".join(
        f"{k} {v * 1e3:.0f} ms ({v / parts['total']:.0%})" for k, v in parts.items() if k != "total")
        + f"; per question {parts['total'] / max(1, len(bank)) * 1e3:.2f} ms")


if __name__ == "__main__":
    main()
