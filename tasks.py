#!/usr/bin/env python3
"""Set up agentlab and run it, on a machine that has nothing but Python 3.10+.

    python3 tasks.py lab     set up, then open the course in JupyterLab
    python3 tasks.py test    set up, then run the whole test suite (tests + notebooks)
    python3 tasks.py setup   set up only
    python3 tasks.py notebooks  set up, then re-run every notebook and store its outputs
                             (for course authors, after changing a lesson or the fake)
    python3 tasks.py clean   remove .venv, caches and build artefacts

"Set up" means: create `.venv` with `python -m venv` if it is missing, upgrade pip in it,
then `pip install -e ".[agent-sdk,course,dev]"`. The install is skipped when neither pyproject.toml,
the venv's Python nor the checkout's location changed since the last one (a stamp file
inside `.venv` records them). Then, when Node.js and npm are on PATH, `npm ci` installs the
TypeScript side (package-lock.json: @anthropic-ai/sdk and tsx, to run and grade TypeScript
loops); it is skipped when package-lock.json and the Node.js version did not change (a stamp
inside `node_modules`), and skipped with a message when Node.js is absent. Arguments after
the command are passed through: to `jupyter lab` for `lab`, to pytest for `test`.

This file uses the standard library only, on purpose: it is what runs before anything
is installed. It works on Linux, macOS and Windows (on Windows: `py tasks.py lab`).
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = ROOT / ".venv"
STAMP = VENV / ".agentlab-install-stamp"
NODE_MODULES = ROOT / "node_modules"
NPM_STAMP = NODE_MODULES / ".agentlab-npm-stamp"
EXTRAS = "agent-sdk,course,dev"
MIN_PYTHON = (3, 10)
TEST_PATHS = ("tests", "notebooks")
PYTEST_NBVAL = ("--nbval", "--nbval-current-env")


def say(message: str) -> None:
    print(f"[tasks.py] {message}", flush=True)


def show(cmd: list[str]) -> str:
    return " ".join(f'"{part}"' if " " in part else part for part in cmd)


def run(cmd: list[str]) -> None:
    say(f"$ {show(cmd)}")
    result = subprocess.run(cmd, cwd=ROOT)
    if result.returncode != 0:
        say(f"failed with exit code {result.returncode}: {show(cmd)}")
        sys.exit(result.returncode)


def venv_python() -> Path:
    if os.name == "nt":
        return VENV / "Scripts" / "python.exe"
    return VENV / "bin" / "python"


def python_works(python: Path) -> bool:
    if not python.exists():
        return False
    try:
        probe = subprocess.run(
            [str(python), "-c", "import sys; print(sys.version_info >= (3, 10))"],
            capture_output=True,
            text=True,
            timeout=60,
        )
    except (OSError, subprocess.TimeoutExpired):
        return False
    return probe.returncode == 0 and probe.stdout.strip() == "True"


def install_fingerprint(python: Path) -> str:
    """What the installed environment depends on: the dependency set, the interpreter,
    and where the checkout is (the editable install points at it)."""
    digest = hashlib.sha256()
    digest.update((ROOT / "pyproject.toml").read_bytes())
    digest.update(f"\0extras={EXTRAS}\0python={python.resolve()}\0root={ROOT}".encode())
    return digest.hexdigest()


def node_fingerprint(node: str) -> str:
    """What node_modules depends on: the lock file, package.json and the Node.js version."""
    digest = hashlib.sha256()
    for name in ("package.json", "package-lock.json"):
        digest.update((ROOT / name).read_bytes() + b"\0")
    try:
        version = subprocess.run([node, "--version"], capture_output=True, text=True, timeout=60).stdout.strip()
    except (OSError, subprocess.TimeoutExpired):
        version = "unknown"
    digest.update(f"node={version}".encode())
    return digest.hexdigest()


def setup_node() -> None:
    """`npm ci` the TypeScript side when Node.js and npm exist and the lock file changed."""
    if not (ROOT / "package-lock.json").exists():
        return
    node, npm = shutil.which("node"), shutil.which("npm")
    if node is None or npm is None:
        say(
            "Node.js/npm not found: skipping `npm ci` (only the TypeScript loops need it). To run and "
            "grade TypeScript loops, install Node.js 20 or newer, then run `python3 tasks.py setup` again."
        )
        return
    fingerprint = node_fingerprint(node)
    if NPM_STAMP.exists() and NPM_STAMP.read_text(encoding="utf-8").strip() == fingerprint:
        say("node_modules is up to date with package-lock.json; skipping npm ci")
        return
    run([npm, "ci", "--no-audit", "--no-fund"])
    NPM_STAMP.write_text(fingerprint + "\n", encoding="utf-8")


def setup() -> Path:
    """Create the venv and install agentlab into it, then the npm packages when Node.js is there;
    return the venv's python."""
    python = setup_python()
    setup_node()
    return python


def setup_python() -> Path:
    """Create the venv and install agentlab into it; return the venv's python."""
    if sys.version_info < MIN_PYTHON:
        say(
            f"agentlab needs Python {MIN_PYTHON[0]}.{MIN_PYTHON[1]} or newer; "
            f"this is {sys.version.split()[0]} ({sys.executable})."
        )
        sys.exit(2)

    python = venv_python()
    if not python_works(python):
        if VENV.exists():
            say(f"{VENV.name} exists but has no working Python; recreating it")
            shutil.rmtree(VENV)
        say(f"creating {VENV.name} with {sys.executable} (Python {sys.version.split()[0]})")
        result = subprocess.run([sys.executable, "-m", "venv", str(VENV)], cwd=ROOT)
        if result.returncode != 0 or not python.exists():
            say(
                "could not create the virtual environment. On Debian/Ubuntu install the "
                "venv module first (e.g. `apt install python3-venv`), then run this again."
            )
            sys.exit(result.returncode or 1)

    fingerprint = install_fingerprint(python)
    if STAMP.exists() and STAMP.read_text(encoding="utf-8").strip() == fingerprint:
        say(f"{VENV.name} is up to date with pyproject.toml; skipping the install")
        return python

    started = time.monotonic()
    run([str(python), "-m", "pip", "install", "--upgrade", "pip"])
    run([str(python), "-m", "pip", "install", "-e", f".[{EXTRAS}]"])
    STAMP.write_text(fingerprint + "\n", encoding="utf-8")
    say(f"installed agentlab[{EXTRAS}] into {VENV.name} in {time.monotonic() - started:.0f} s")
    return python


def handoff(cmd: list[str]) -> int:
    """Run `cmd` in the checkout as the last thing this script does; return its exit code."""
    say(f"$ {show(cmd)}")
    sys.stdout.flush()
    sys.stderr.flush()
    os.chdir(ROOT)
    if os.name != "nt":
        # Replace this process, so signals (Ctrl-C in JupyterLab) go straight to it.
        os.execv(cmd[0], cmd)
    try:
        return subprocess.run(cmd).returncode
    except KeyboardInterrupt:
        return 130


def names_a_path(arg: str) -> bool:
    return not arg.startswith("-") and (ROOT / arg.split("::", 1)[0]).exists()


def cmd_lab(args: list[str]) -> int:
    python = setup()
    extra = list(args)
    if hasattr(os, "geteuid") and os.geteuid() == 0 and "--allow-root" not in extra:
        say("running as root (a container?): passing --allow-root to JupyterLab")
        extra.append("--allow-root")
    return handoff([str(python), "-m", "jupyterlab", "notebooks", *extra])


def cmd_test(args: list[str]) -> int:
    python = setup()
    if any(names_a_path(arg) for arg in args):
        paths: list[str] = []  # the caller chose what to run
    else:
        paths = [p for p in TEST_PATHS if (ROOT / p).is_dir()]
    return handoff([str(python), "-m", "pytest", *PYTEST_NBVAL, *paths, *args])


def cmd_notebooks(args: list[str]) -> int:
    """Execute each notebook (or those named) in place, so the stored outputs nbval compares are
    the ones the current code prints."""
    python = setup()
    names = [a for a in args if a.endswith(".ipynb")] or sorted(
        str(p.relative_to(ROOT)) for p in (ROOT / "notebooks").rglob("*.ipynb") if ".ipynb_checkpoints" not in p.parts
    )
    for name in names:
        run([str(python), "-m", "jupyter", "nbconvert", "--to", "notebook", "--execute", "--inplace", name])
        strip_run_metadata(ROOT / name)
    return 0


def strip_run_metadata(path: Path) -> None:
    """Drop what changes on every run but is not output (execution timestamps), so a re-run
    notebook differs from the committed one only where its outputs changed."""
    import json

    notebook = json.loads(path.read_text(encoding="utf-8"))
    for cell in notebook.get("cells", []):
        cell.get("metadata", {}).pop("execution", None)
    notebook.get("metadata", {}).pop("widgets", None)  # widget state with random model ids
    path.write_text(json.dumps(notebook, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


def cmd_setup(args: list[str]) -> int:
    setup()
    return 0


def cmd_clean(args: list[str]) -> int:
    def remove(path: Path) -> None:
        if path.exists():
            say(f"removing {path.relative_to(ROOT)}")
            shutil.rmtree(path, ignore_errors=True)

    for name in (".venv", "node_modules", "build", "dist", ".pytest_cache", ".hypothesis"):
        remove(ROOT / name)
    for path in [*ROOT.glob("*.egg-info"), *ROOT.rglob("__pycache__"), *ROOT.rglob(".ipynb_checkpoints")]:
        remove(path)
    return 0


COMMANDS = {"lab": cmd_lab, "test": cmd_test, "notebooks": cmd_notebooks, "setup": cmd_setup, "clean": cmd_clean}


def main(argv: list[str]) -> int:
    if not argv or argv[0] in ("-h", "--help", "help") or argv[0] not in COMMANDS:
        print(__doc__.strip())
        if argv and argv[0] not in ("-h", "--help", "help"):
            print(f"\nunknown command: {argv[0]}")
            return 2
        return 0
    return COMMANDS[argv[0]](argv[1:])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
