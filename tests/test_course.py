"""The course as a whole: every stop reason and anti-pattern taught (really run), the lesson plan,
each lesson's check and link, the learner copy, and deterministic stored outputs.

The coverage tests read the notebooks' stored OUTPUTS (what running them printed), not their
prose: a stop reason only counts once a notebook has shown it happening. nbval (``pytest
--nbval notebooks``) keeps those outputs honest.
"""

from __future__ import annotations

import json
import re
import typing
from pathlib import Path

import anthropic.types
import pytest

from agentlab import course
from agentlab.antipatterns import TAGS
from agentlab.cli import main as cli_main

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"

PLAN = (
    "00_start_here",
    "01_the_agent_loop",
    "02_tool_use_in_depth",
    "03_end_turn_and_stop_sequence",
    "04_max_tokens",
    "05_pause_turn",
    "06_refusal_and_context_window",
    "07_guardrails",
    "08_thinking",
    "09_antipattern_gallery",
    "10_agents_vs_workflows",
    "11_streaming",
    "12_build_your_own_loop",
    "13_practice_exam",
    "14_agent_sdk_loop",
    "15_typescript_over_http",
)
"""Issue 5's plan, in order."""

STOP_REASONS = typing.get_args(anthropic.types.StopReason)
SKIPPED_MIME = ("application/vnd.jupyter.widget-view+json", "application/vnd.jupyter.widget-state+json")
CHECK_CALL = re.compile(r"\b(grade|quiz)\(")


# ------------------------------------------------------------------------------------------ helpers


def load(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def source(cell: dict) -> str:
    text = cell.get("source", "")
    return "".join(text) if isinstance(text, list) else text


def output_texts(notebook: dict):
    """(cell index, text) for every stored output: streams, every text-like mime type, errors."""
    for index, cell in enumerate(notebook.get("cells", [])):
        for output in cell.get("outputs", []) if cell.get("cell_type") == "code" else ():
            kind = output.get("output_type")
            if kind == "stream":
                yield index, source({"source": output.get("text", "")})
            elif kind == "error":
                yield index, f"{output.get('ename', '')}: {output.get('evalue', '')}"
            elif kind in ("execute_result", "display_data"):
                for mime, data in output.get("data", {}).items():
                    if mime in SKIPPED_MIME or mime.startswith("image/"):
                        continue
                    if isinstance(data, list):
                        data = "".join(data)
                    yield index, data if isinstance(data, str) else json.dumps(data)


def all_notebooks() -> list[Path]:
    return sorted(p for p in NOTEBOOKS.glob("*.ipynb"))


def stored_outputs() -> dict[str, str]:
    """Notebook name -> every stored output, joined."""
    return {p.name: "\n".join(text for _, text in output_texts(load(p))) for p in all_notebooks()}


def token(word: str) -> re.Pattern:
    """``word`` as a whole token: not part of a longer identifier, tag or ``name=`` argument
    (``tool_use`` does not match ``tool_use_id``, ``max_tokens`` does not match ``max_tokens=1024``)."""
    return re.compile(rf"(?<![\w-]){re.escape(word)}(?![\w=-])")


def missing_from_outputs(words) -> tuple[list[str], dict[str, list[str]]]:
    outputs = stored_outputs()
    seen = {w: [name for name, text in outputs.items() if token(w).search(text)] for w in words}
    return [w for w, where in seen.items() if not where], seen


def exercise_checks(notebook: dict) -> list[int]:
    """Index of the check of each exercise: the first code cell after each ``solution`` cell."""
    cells = notebook["cells"]
    checks = []
    for index, cell in enumerate(cells):
        if course.SOLUTION_TAG in cell.get("metadata", {}).get("tags", []):
            following = next((j for j in range(index + 1, len(cells)) if cells[j]["cell_type"] == "code"), None)
            assert following is not None, f"cell {index}: an exercise without a check after it"
            assert course.SOLUTION_TAG not in cells[following].get("metadata", {}).get("tags", []), (
                f"cell {index}: the cell after an exercise must be its check, not another exercise")
            checks.append(following)
    return checks


def solution_notebooks() -> list[Path]:
    return [p for p in all_notebooks() if any(True for _ in course.solution_lines(load(p)))]


# ------------------------------------------------------------------ (a) everything taught, really run


def test_every_stop_reason_appears_in_some_notebooks_outputs():
    missing, seen = missing_from_outputs(STOP_REASONS)
    assert not missing, (
        f"stop reasons no notebook has run yet (absent from every stored output): {missing}; "
        f"seen: {{{', '.join(f'{w}: {where[0]}' for w, where in seen.items() if where)}}}; "
        f"notebooks scanned: {[p.name for p in all_notebooks()]}")


def test_every_antipattern_tag_appears_in_some_notebooks_outputs():
    missing, _seen = missing_from_outputs(TAGS)
    assert not missing, (
        f"{len(missing)} of {len(TAGS)} anti-pattern tags appear in no stored output (the gallery, lesson 09, "
        f"should run every specimen): {missing}")


# ------------------------------------------------------------------------------ (b) the lesson plan


def test_the_plan_is_issue_5s():
    assert tuple(lesson.stem for lesson in course.LESSONS) == PLAN
    assert [lesson.number for lesson in course.LESSONS] == [f"{n:02d}" for n in range(len(PLAN))]


def test_every_lesson_of_the_plan_exists():
    missing = [f"{stem}.ipynb" for stem in PLAN if not (NOTEBOOKS / f"{stem}.ipynb").is_file()]
    extra = sorted(p.name for p in NOTEBOOKS.glob("[0-9][0-9]_*.ipynb") if p.stem not in PLAN)
    assert not missing and not extra, f"missing notebooks: {missing}; numbered notebooks not in the plan: {extra}"


# ------------------------------------------------------------- (c) each lesson ends with a check


@pytest.mark.parametrize("stem", PLAN)
def test_each_lesson_ends_with_a_check_and_links_the_next(stem):
    path = NOTEBOOKS / f"{stem}.ipynb"
    if not path.is_file():
        pytest.skip(f"{path.name} is not written yet (test_every_lesson_of_the_plan_exists names it)")
    cells = load(path)["cells"]
    code = [source(c) for c in cells if c["cell_type"] == "code" and source(c).strip()]
    assert any(CHECK_CALL.search(text) for text in code[-2:]), (
        f"{path.name}: its last code cells should be the check, a grade(...) or quiz(...) call; they are: {code[-2:]}")
    position = PLAN.index(stem)
    if position + 1 < len(PLAN):
        target = f"{PLAN[position + 1]}.ipynb"
        linked = any(c["cell_type"] == "markdown" and f"({target})" in source(c) and "Next" in source(c) for c in cells)
        assert linked, f"{path.name}: no **Next:** link to [..]({target})"


def test_start_here_shows_the_suggested_timings():
    path = NOTEBOOKS / "00_start_here.ipynb"
    if not path.is_file():
        pytest.skip("00_start_here.ipynb is not written yet")
    notebook = load(path)
    shown = course.timings("en")
    outputs = "\n".join(text for _, text in output_texts(notebook))
    markdown = "\n".join(source(c) for c in notebook["cells"] if c["cell_type"] == "markdown")
    assert shown.to_text() in outputs or shown.to_markdown() in markdown, (
        "00's map should show the workshop timings from agentlab.course: a code cell "
        "`agentlab.course.timings()`, or the table of `agentlab.course.timings().to_markdown()`")


def test_lesson_12_shows_each_exercise_with_its_timing():
    path = NOTEBOOKS / "12_build_your_own_loop.ipynb"
    markdown = "\n".join(source(c) for c in load(path)["cells"] if c["cell_type"] == "markdown")
    for exercise in course.EXERCISES:
        assert f"## Exercise {exercise.number} · {exercise.title['en']} (about {exercise.minutes} min)" in markdown
    assert sum(e.minutes for e in course.EXERCISES) < course.LESSONS[12].minutes


# --------------------------------------------------------------------------- (d) the learner copy


def test_learner_copy_has_no_solutions_left(tmp_path):
    written = course.student_copy(tmp_path / "learner", source=NOTEBOOKS)
    names = {w.path.name for w in written}
    assert {p.name for p in all_notebooks()} <= names
    assert {"README.md", "CONVENTIONS.md"} <= names
    assert solution_notebooks(), "no notebook holds exercise solutions (lesson 12 should)"
    for path in all_notebooks():
        copy = tmp_path / "learner" / path.name
        text = copy.read_text(encoding="utf-8")
        assert "BEGIN SOLUTION" not in text and "END SOLUTION" not in text, copy.name
        solutions = {line.strip() for line in course.solution_lines(load(path))}
        if not solutions:
            assert copy.read_bytes() == path.read_bytes(), f"{path.name} has no exercises: copied unchanged"
            continue
        learner = load(copy)
        code = [c for c in learner["cells"] if c["cell_type"] == "code"]
        left = solutions & {line.strip() for c in code for line in source(c).splitlines()}
        assert not left, f"{copy.name}: solution lines left: {sorted(left)}"
        for index, cell in enumerate(learner["cells"]):
            if course.SOLUTION_TAG not in cell["metadata"].get("tags", []):
                continue
            assert course.PLACEHOLDER in source(cell) and cell["outputs"] == [], f"{copy.name} cell {index}"
        for index in exercise_checks(learner):
            assert learner["cells"][index]["outputs"] == [], f"{copy.name}: check cell {index} kept its output"


def _run(path: Path, cwd: Path) -> dict:
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    notebook = nbformat.read(path, as_version=4)
    nbclient.NotebookClient(notebook, timeout=300, kernel_name="python3", allow_errors=True,
                            resources={"metadata": {"path": str(cwd)}}).execute()
    return json.loads(nbformat.writes(notebook))


def _errors(notebook: dict) -> dict[int, str]:
    return {i: o["ename"] for i, c in enumerate(notebook["cells"]) if c["cell_type"] == "code"
            for o in c.get("outputs", []) if o.get("output_type") == "error"}


def test_learner_copy_runs_and_its_checks_fail_while_the_instructors_pass(tmp_path):
    dest = tmp_path / "learner"
    course.student_copy(dest, source=NOTEBOOKS)
    for path in solution_notebooks():
        learner = _run(dest / path.name, dest)
        checks = exercise_checks(learner)
        errors = _errors(learner)
        assert set(errors) == set(checks), (
            f"{path.name} (learner copy): errors in cells {sorted(errors)}, expected exactly the checks {checks}")
        assert all(errors[i] in ("AssertionError", "NotImplementedError") for i in checks), errors

        instructor = _run(path, NOTEBOOKS)
        assert _errors(instructor) == {}, f"{path.name} (instructor): errors {_errors(instructor)}"
        for index in exercise_checks(instructor):
            printed = "".join(text for i, text in output_texts(instructor) if i == index)
            assert "cases passed" in printed, printed


def test_learner_copy_refuses_a_non_empty_folder_unless_forced(tmp_path, capsys):
    dest = tmp_path / "learner"
    dest.mkdir()
    (dest / "notes.txt").write_text("mine", encoding="utf-8")
    with pytest.raises(course.CourseError) as err:
        course.student_copy(dest, source=NOTEBOOKS)
    assert err.value.key == "not_empty" and not list(dest.glob("*.ipynb"))
    assert cli_main(["course", "student-copy", str(dest), "--source", str(NOTEBOOKS)]) == 2
    assert "not empty" in capsys.readouterr().err
    assert cli_main(["course", "student-copy", str(dest), "--source", str(NOTEBOOKS), "--lang", "es"]) == 2
    assert "no está vacía" in capsys.readouterr().err
    assert cli_main(["course", "student-copy", str(dest), "--source", str(NOTEBOOKS), "--force"]) == 0
    out = capsys.readouterr().out
    assert "12_build_your_own_loop.ipynb" in out and "raise NotImplementedError" in out
    assert (dest / "notes.txt").read_text(encoding="utf-8") == "mine"
    assert (dest / "12_build_your_own_loop.ipynb").is_file()
    for inside in (NOTEBOOKS, NOTEBOOKS / "learner"):  # nbval would collect the learner's failing checks
        with pytest.raises(course.CourseError, match="instructor's folder"):
            course.student_copy(inside, source=NOTEBOOKS, force=True)
    assert not (NOTEBOOKS / "learner").exists()


def _nb(*cells: tuple[str, str, list[str]]) -> dict:
    out = []
    for kind, text, tags in cells:
        cell = {"cell_type": kind, "metadata": {"tags": tags} if tags else {}, "source": text}
        if kind == "code":
            cell.update(outputs=[{"output_type": "stream", "name": "stdout", "text": "x\n"}], execution_count=1)
        out.append(cell)
    return {"cells": out, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}


def test_strip_solutions_keeps_the_skeleton_and_the_indentation():
    exercise = ("def f(x):\n    \"\"\"Double x.\"\"\"\n    # hint\n    ### BEGIN SOLUTION\n    return 2 * x\n"
                "    ### END SOLUTION\n\n\n### BEGIN SOLUTION\nY = 1\n### END SOLUTION\nprint(f(Y))")
    notebook = _nb(("code", "import math", []), ("code", exercise, ["solution"]), ("markdown", "text", []),
                   ("code", "assert f(2) == 4", []), ("code", "f(3)", []), ("code", "g()", ["check"]))
    learner, blocks = course.strip_solutions(notebook, "demo.ipynb")
    assert blocks == 2
    assert source(learner["cells"][1]) == ('def f(x):\n    """Double x."""\n    # hint\n'
                                           '    raise NotImplementedError("your code here")\n\n\n'
                                           'raise NotImplementedError("your code here")\nprint(f(Y))')
    outputs = [c.get("outputs") for c in learner["cells"]]
    assert outputs == [notebook["cells"][0]["outputs"], [], None, [], notebook["cells"][4]["outputs"], []]
    assert notebook["cells"][1]["outputs"], "the instructor's notebook is not modified"


@pytest.mark.parametrize("text, tags, key", [
    ("### BEGIN SOLUTION\nx = 1\n", ["solution"], "unclosed"),
    ("x = 1\n### END SOLUTION\n", ["solution"], "end_alone"),
    ("### BEGIN SOLUTION\n### BEGIN SOLUTION\n### END SOLUTION\n", ["solution"], "nested"),
    ("x = 1\n", ["solution"], "no_markers"),
    ("### BEGIN SOLUTION\nx = 1\n### END SOLUTION\n", [], "untagged"),
])
def test_strip_solutions_refuses_broken_markers(text, tags, key):
    with pytest.raises(course.CourseError) as err:
        course.strip_solutions(_nb(("code", text, tags)), "demo.ipynb")
    assert err.value.key == key and "demo.ipynb, cell 0" in str(err.value)
    assert "demo.ipynb, celda 0" in err.value.message("es")


def test_timings_command_in_both_languages(capsys):
    assert cli_main(["course", "timings"]) == 0
    english = capsys.readouterr().out
    assert "12  Build your own loop" in english and f"total: {course.timings().total} minutes" in english
    assert all(f"{lesson.minutes:>3} min" in english for lesson in course.LESSONS)
    assert cli_main(["course", "timings", "--lang", "es"]) == 0
    assert "Construye tu propio bucle" in capsys.readouterr().out
    assert cli_main(["course", "timings", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [row["notebook"] for row in data["lessons"]] == [f"{stem}.ipynb" for stem in PLAN]
    assert data["total_minutes"] == sum(row["minutes"] for row in data["lessons"])


# ---------------------------------------------------------------- (e) deterministic stored outputs

ADDRESS = re.compile(r"0x[0-9a-fA-F]{6,}")
TIMESTAMP = re.compile(r"\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}|\b\d{1,2}:\d{2}:\d{2}\b")


def test_no_stored_output_holds_a_memory_address_or_a_timestamp():
    found = []
    for path in all_notebooks():
        for index, text in output_texts(load(path)):
            for pattern in (ADDRESS, TIMESTAMP):
                found += [f"{path.name} cell {index}: {m.group(0)!r}" for m in pattern.finditer(text)]
    assert not found, "outputs that change from run to run: " + "; ".join(found)
