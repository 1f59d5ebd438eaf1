"""Benchmark: executing every notebook of the course against the floor.

Each notebook runs in a kernel of its own with nbclient (start, every cell, shut down), as
``pytest --nbval`` and ``python3 tasks.py notebooks`` run them. The floor is what a notebook
cannot avoid: a kernel start plus ``import agentlab`` (then the shut-down), once per notebook.
Goal: all notebooks cost at most 2x the floor. Floor and notebook runs alternate, so a machine
that slows down mid-run weighs on both.

Also printed, for reading the gap: the same floor with ``import anthropic`` too (the SDK every
notebook that builds a client loads; ``import agentlab`` alone stays light on purpose).

Run: ``python benchmarks/bench_notebooks.py [--rounds N] [notebooks/NN_name.ipynb ...]``
(default: every ``notebooks/*.ipynb``, 1 round; with N rounds each time is the best of N).
Nothing is written back to the notebooks.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"
GOAL = 2.0


def execute(notebook: nbformat.NotebookNode, cwd: Path) -> float:
    """Seconds to start a kernel, run every cell and shut the kernel down."""
    client = NotebookClient(notebook, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(cwd)}})
    start = time.perf_counter()
    client.execute()
    return time.perf_counter() - start


def floor_notebook(source: str) -> nbformat.NotebookNode:
    return nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(source)])


def best(fn, rounds: int) -> float:
    return min(fn() for _ in range(rounds))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("notebooks", nargs="*", help="notebooks to run (default: every notebooks/*.ipynb)")
    parser.add_argument("--rounds", type=int, default=1, help="best of N runs per notebook (default 1)")
    args = parser.parse_args(argv)
    paths = [Path(p) for p in args.notebooks] or sorted(NOTEBOOKS.glob("*.ipynb"))
    if not paths:
        print("no notebooks to run")
        return 1

    floor_nb = floor_notebook("import agentlab")
    sdk_nb = floor_notebook("import agentlab\nimport anthropic")
    rows = []
    failed = []
    for path in paths:
        cwd = path.parent
        floor = best(lambda: execute(floor_nb, cwd), args.rounds)  # noqa: B023 - called right here
        sdk = best(lambda: execute(sdk_nb, cwd), args.rounds)  # noqa: B023
        try:
            seconds = best(lambda: execute(nbformat.read(path, as_version=4), cwd), args.rounds)  # noqa: B023
        except CellExecutionError as exc:
            failed.append(path.name)
            print(f"{path.name}: FAILED ({str(exc).strip().splitlines()[-1]})", file=sys.stderr)
            continue
        rows.append((path.name, seconds, floor, sdk))
        print(f"  {path.name:<40} {seconds:6.2f} s   floor {floor:5.2f} s   {seconds / floor:4.2f}x", flush=True)

    if not rows:
        return 1
    total = sum(r[1] for r in rows)
    floor_total = sum(r[2] for r in rows)
    sdk_total = sum(r[3] for r in rows)
    ratio = total / floor_total
    print()
    print(f"notebooks ({len(rows)}, one kernel each): {total:7.2f} s")
    print(f"floor (kernel start + import agentlab, x{len(rows)}): {floor_total:7.2f} s")
    print(f"ratio: {ratio:.2f}x  ({'under' if ratio <= GOAL else 'OVER'} the {GOAL:g}x goal)")
    print(f"for reference, kernel start + import agentlab + import anthropic, x{len(rows)}: {sdk_total:7.2f} s "
          f"(notebooks / that: {total / sdk_total:.2f}x)")
    slowest = max(rows, key=lambda r: r[1] - r[2])
    print(f"slowest above its floor: {slowest[0]} (+{slowest[1] - slowest[2]:.2f} s)")
    if failed:
        print(f"failed: {', '.join(failed)}")
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
