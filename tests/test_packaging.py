"""The repository's set-up files agree with each other.

pyproject.toml is the install source of truth. environment.yml (the conda route) must
install the same dependency set, the README's test command must be what CI runs, and
the entry points other parts rely on (the `fake_anthropic` pytest plugin, the `agentlab`
command) must be declared.
"""

from __future__ import annotations

import ast
import copy
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent.parent
EXTRAS = ("agent-sdk", "course", "dev")
SHELL_OPERATORS = ("<", ">", "|", "&", ";", "2>")


def load_pyproject() -> dict:
    with open(ROOT / "pyproject.toml", "rb") as fh:
        return tomllib.load(fh)


def load_environment() -> dict:
    with open(ROOT / "environment.yml", encoding="utf-8") as fh:
        return yaml.safe_load(fh)


def pip_section(environment: dict) -> list[str]:
    sections = [d["pip"] for d in environment.get("dependencies", []) if isinstance(d, dict) and "pip" in d]
    assert len(sections) == 1, "environment.yml needs exactly one `pip:` section"
    return [str(line).strip() for line in sections[0]]


def editable_extras(line: str) -> set[str] | None:
    """The extras of an `-e .[a,b]` line (an empty set for plain `-e .`); None otherwise."""
    match = re.fullmatch(r"(?:-e|--editable)\s+\.(?:\[([\w,\s-]*)\])?", line)
    if match is None:
        return None
    return {e.strip() for e in (match.group(1) or "").split(",") if e.strip()}


def drift(pyproject: dict, environment: dict) -> list[str]:
    """Every way environment.yml disagrees with pyproject.toml; empty when they agree.

    A pyproject dependency (core, or extra `course`/`dev`) must be either listed in the
    pip section with the same specifier and marker, or covered by an `-e .[...]` line
    (core dependencies by any such line, an extra's only when the line names that extra).
    Whatever the pip section lists must be a pyproject dependency, the package itself
    must be installed by an `-e .` line, and conda's python must match requires-python.
    """
    project = pyproject["project"]
    wanted: dict[str, tuple[Requirement, str]] = {}
    for line in project.get("dependencies", []):
        req = Requirement(line)
        wanted[canonicalize_name(req.name)] = (req, "core")
    for extra in EXTRAS:
        for line in project.get("optional-dependencies", {}).get(extra, []):
            req = Requirement(line)
            wanted.setdefault(canonicalize_name(req.name), (req, extra))

    problems: list[str] = []
    listed: dict[str, Requirement] = {}
    editable: set[str] | None = None
    for line in pip_section(environment):
        extras = editable_extras(line)
        if extras is not None:
            editable = (editable or set()) | extras
            continue
        req = Requirement(line)
        listed[canonicalize_name(req.name)] = req

    if editable is None:
        problems.append("the pip section does not install agentlab itself (`-e .` or `-e .[course,dev]`)")
    for name, (req, where) in wanted.items():
        if name in listed:
            got = listed[name]
            if got.specifier != req.specifier or str(got.marker or "") != str(req.marker or ""):
                problems.append(f"{req.name} ({where}): pyproject says {str(req)!r}, environment.yml says {str(got)!r}")
        elif editable is None or (where != "core" and where not in editable):
            problems.append(f"{req.name} ({where}): missing from environment.yml's pip section")
    for name, got in listed.items():
        if name not in wanted:
            problems.append(f"{got.name}: in environment.yml but not a dependency in pyproject.toml")

    conda = [d for d in environment.get("dependencies", []) if isinstance(d, str)]
    pythons = [d for d in conda if re.match(r"python\b", d)]
    requires = project.get("requires-python", "")
    if pythons != [f"python{requires}"]:
        problems.append(f"conda python is {pythons}, pyproject's requires-python is {requires!r}")
    if "pip" not in conda:
        problems.append("conda dependencies must include pip")
    return problems


# -- environment.yml vs pyproject.toml ------------------------------------------------


def test_environment_yml_matches_pyproject():
    assert drift(load_pyproject(), load_environment()) == []


def test_pyproject_keeps_the_extras_the_setup_installs():
    extras = load_pyproject()["project"]["optional-dependencies"]
    assert set(EXTRAS) <= set(extras)


def _environment_with(pyproject_edit=None, pip_edit=None):
    pyproject, environment = copy.deepcopy(load_pyproject()), copy.deepcopy(load_environment())
    if pyproject_edit:
        pyproject_edit(pyproject["project"])
    if pip_edit:
        section = next(d for d in environment["dependencies"] if isinstance(d, dict))
        section["pip"] = pip_edit(section["pip"])
    return drift(pyproject, environment)


def test_drift_in_a_specifier_is_detected():
    def bump(project):
        project["dependencies"] = [
            "anthropic>=2.99,<3" if Requirement(d).name == "anthropic" else d for d in project["dependencies"]
        ]

    problems = _environment_with(pyproject_edit=bump)
    assert any(p.startswith("anthropic (core)") for p in problems), problems


def test_a_new_dev_dependency_missing_from_environment_yml_is_detected():
    problems = _environment_with(
        pyproject_edit=lambda project: project["optional-dependencies"]["dev"].append("ruff>=0.5")
    )
    assert problems == ["ruff (dev): missing from environment.yml's pip section"]


def test_an_extra_dependency_is_covered_by_an_editable_line_naming_that_extra():
    def add_and_cover(project):
        project["optional-dependencies"]["course"].append("matplotlib>=3.8")

    def editable(line):
        return lambda pip: [*(x for x in pip if editable_extras(x) is None), line]

    assert _environment_with(pyproject_edit=add_and_cover, pip_edit=editable("-e .[course]")) == []
    # A plain `-e .` does not pull in the extras, so it covers core dependencies only.
    assert _environment_with(pyproject_edit=add_and_cover, pip_edit=editable("-e .")) == [
        "matplotlib (course): missing from environment.yml's pip section"
    ]


def test_an_unknown_package_and_a_missing_self_install_are_detected():
    extra = _environment_with(pip_edit=lambda pip: [*pip, "requests>=2"])
    assert extra == ["requests: in environment.yml but not a dependency in pyproject.toml"]
    no_self = _environment_with(pip_edit=lambda pip: [line for line in pip if editable_extras(line) is None])
    assert any("does not install agentlab itself" in p for p in no_self), no_self


# -- the README's commands and CI ----------------------------------------------------


def readme_commands() -> list[str]:
    """Lines of the README's fenced blocks that run tasks.py."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"^```[^\n]*\n(.*?)^```", text, flags=re.S | re.M)
    return [line.strip() for block in blocks for line in block.splitlines() if "tasks.py" in line]


def readme_command(task: str) -> str:
    matches = [c for c in readme_commands() if shlex.split(c)[-1:] == [task]]
    assert matches, f"README.md has no fenced `... tasks.py {task}` command"
    return matches[0]


def runs_command(script: str, command: str) -> bool:
    """Whether a line of the shell script runs `command`, no more arguments added."""
    want = shlex.split(command)
    for line in script.splitlines():
        try:
            words = shlex.split(line, comments=True)
        except ValueError:
            continue
        if words[: len(want)] == want:
            rest = words[len(want):]
            if not rest or rest[0].startswith(SHELL_OPERATORS):
                return True
    return False


def test_readme_gives_two_commands_each_alone_on_its_line():
    assert readme_command("lab") == "python3 tasks.py lab"
    assert readme_command("test") == "python3 tasks.py test"


def test_ci_runs_the_readme_test_command():
    ci = ROOT / ".ci" / "run"
    script = ci.read_text(encoding="utf-8")
    assert script.startswith("#!/usr/bin/env bash")
    assert "set -euo pipefail" in script
    assert runs_command(script, readme_command("test")), f".ci/run does not run {readme_command('test')!r}"
    if sys.platform != "win32":
        assert ci.stat().st_mode & 0o111, ".ci/run must be executable"


def test_runs_command_tells_a_different_command_apart():
    assert runs_command("x=1\npython3 tasks.py test </dev/null || s=$?\n", "python3 tasks.py test")
    assert not runs_command("python3 tasks.py test -k journal\n", "python3 tasks.py test")
    assert not runs_command("# python3 tasks.py test\npython3 -m pytest\n", "python3 tasks.py test")


def test_makefile_targets_call_tasks_py():
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    for target in ("lab", "test", "clean"):
        recipe = re.search(rf"^{target}:.*\n\t(.+)$", makefile, flags=re.M)
        assert recipe and f"tasks.py {target}" in recipe.group(1), target


def test_tasks_py_uses_the_standard_library_only():
    tree = ast.parse((ROOT / "tasks.py").read_text(encoding="utf-8"))
    imported = {alias.name.split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
    imported |= {
        node.module.split(".")[0]
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0
    }
    assert imported - {"__future__"} <= set(sys.stdlib_module_names), imported - set(sys.stdlib_module_names)


# -- entry points ---------------------------------------------------------------------


def module_file(module: str) -> Path:
    path = ROOT.joinpath(*module.split("."))
    return path / "__init__.py" if path.is_dir() else path.with_suffix(".py")


def test_pytest_plugin_and_console_script_are_declared():
    project = load_pyproject()["project"]
    assert project["entry-points"]["pytest11"] == {"agentlab": "agentlab.pytest_plugin"}
    assert project["scripts"] == {"agentlab": "agentlab.cli:main"}


@pytest.mark.parametrize("target", ["agentlab.pytest_plugin", "agentlab.cli:main"])
def test_entry_points_name_modules_that_exist(target):
    module = target.split(":")[0]
    assert module_file(module).is_file(), f"{target} is declared in pyproject.toml, but {module} is missing"


def test_installed_metadata_declares_the_entry_points():
    from importlib.metadata import PackageNotFoundError, distribution

    try:
        dist = distribution("agentlab")
    except PackageNotFoundError:
        pytest.skip("agentlab is not installed (run the suite with `python3 tasks.py test`)")
    points = {(ep.group, ep.name): ep.value for ep in dist.entry_points}
    assert points.get(("pytest11", "agentlab")) == "agentlab.pytest_plugin"
    assert points.get(("console_scripts", "agentlab")) == "agentlab.cli:main"


# -- the README's examples run --------------------------------------------------------


def readme_python_blocks() -> dict[str, str]:
    """The README's fenced Python blocks that start with `# FILENAME.py`, by file name;
    the block with no file name (the plain-Python example) under `example.py`."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks: dict[str, str] = {}
    for block in re.findall(r"^```python\n(.*?)^```", text, flags=re.S | re.M):
        named = re.match(r"# (\w+\.py)\b", block)
        if named:
            blocks[named.group(1)] = block
        elif "from my_agent import" in block:
            blocks["example.py"] = block
    return blocks


def test_readme_examples_run_on_the_fake(tmp_path):
    blocks = readme_python_blocks()
    assert {"my_agent.py", "test_my_agent.py", "example.py"} <= set(blocks), sorted(blocks)
    for name, code in blocks.items():
        (tmp_path / name).write_text(code, encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k not in ("AGENTLAB_LIVE", "ANTHROPIC_API_KEY")}

    tested = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_my_agent.py"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120,
    )
    assert tested.returncode == 0, tested.stdout + tested.stderr
    ran = subprocess.run(
        [sys.executable, "example.py"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120
    )
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert ran.stdout.strip(), "the plain-Python example printed nothing"


def test_committed_notebooks_carry_outputs_but_no_run_timestamps():
    import json

    for path in sorted((ROOT / "notebooks").glob("*.ipynb")):
        notebook = json.loads(path.read_text(encoding="utf-8"))
        code = [c for c in notebook["cells"] if c["cell_type"] == "code"]
        assert any(c.get("outputs") for c in code), f"{path.name}: no stored outputs for nbval to compare"
        assert not any("execution" in c.get("metadata", {}) for c in notebook["cells"]), (
            f"{path.name}: run timestamps in cell metadata; re-run with `python3 tasks.py notebooks`")
