"""Class grading (``agentlab grade DIR``): finding submissions, loading notebooks, grading in
worker processes, the class outputs (table, CSV, HTML, feedback, Gradescope), exit statuses, and
the single report's text at 80 columns."""

from __future__ import annotations

import csv
import inspect
import io
import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from agentlab.cli import main
from agentlab.grader import grade
from agentlab.grader._class import find_submissions, grade_class
from agentlab.grader._class_report import CSV_COLUMNS, ClassReport, feedback_markdown, gradescope_results
from agentlab._load import LoadError, load_function, notebook_cells
from agentlab.loops import specimens

nbformat = pytest.importorskip("nbformat")

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"
ONLY = ["end_turn", "failing_tool", "persistent_tool_errors"]
HEADER = "".join(  # what the specimens share, written into the file as a learner would have it
    [f"{name} = {getattr(specimens, name)!r}\n" for name in ("MODEL", "MAX_TOKENS", "RETRY_MAX_TOKENS", "MAX_STEPS",
                                                              "MAX_TOOL_ERRORS")]
    + ["\n\n" + inspect.getsource(specimens.run_one), "\n\n" + inspect.getsource(specimens.text_of), "\n\n"])


def loop_file(function) -> str:
    """The source of a specimen (or the reference) as a learner's file defining ``agent_loop``."""
    return HEADER + inspect.getsource(function).replace(f"def {function.__name__}(", "def agent_loop(", 1)


def notebook(*cells, **kinds) -> str:
    """An nbformat 4 notebook: each cell a source string, or (source, tags), or ("md", text)."""
    nb = nbformat.v4.new_notebook()
    for cell in cells:
        if isinstance(cell, tuple) and cell[0] == "md":
            nb.cells.append(nbformat.v4.new_markdown_cell(cell[1]))
        elif isinstance(cell, tuple):
            nb.cells.append(nbformat.v4.new_code_cell(cell[0], metadata={"tags": list(cell[1])}))
        else:
            nb.cells.append(nbformat.v4.new_code_cell(cell))
    return nbformat.writes(nb)


def lesson_12_learner_copy(filled: bool) -> str:
    """Lesson 12 as ``agentlab course student-copy`` writes it; ``filled``: with each placeholder
    replaced by the instructor's solution, as a learner who did the exercises would have it."""
    from agentlab import course

    instructor = nbformat.read(NOTEBOOKS / "12_build_your_own_loop.ipynb", as_version=4)
    learner, blocks = course.strip_solutions(instructor)
    assert blocks >= 4
    if filled:
        for theirs, mine in zip(instructor["cells"], learner["cells"]):
            if course.SOLUTION_TAG in theirs.get("metadata", {}).get("tags", []):
                mine["source"] = "\n".join(line for line in course._source(theirs).splitlines()
                                           if line.strip() not in (course.BEGIN, course.END))
    return nbformat.writes(nbformat.from_dict(learner))


GOOD_NOTEBOOK_CELLS = (
    ("md", "# My loop"),
    "%pip install nothing-at-all\nimport json",
    "%%bash\necho this cell is shell",
    HEADER + "!ls\n" + inspect.getsource(specimens.correct_loop).replace("def correct_loop(", "def agent_loop(", 1),
    ("import agentlab\nassert agentlab.grade(agent_loop, only=['nope']).passed", ["check"]),
)


@pytest.fixture(scope="module")
def klass(tmp_path_factory) -> Path:
    """A class folder: good, faulty, broken and notebook submissions, and things to skip."""
    root = tmp_path_factory.mktemp("submissions")
    (root / "ana.py").write_text(loop_file(specimens.correct_loop), encoding="utf-8")
    (root / "beto.es.py").write_text(loop_file(specimens.specimen_unbounded_tool_errors), encoding="utf-8")
    (root / "carla.py").write_text("def agent_loop(client, prompt, tools, run_tool):\n    return (\n", encoding="utf-8")
    (root / "dario.py").write_text("def my_loop(client, prompt, tools, run_tool):\n    return ''\n", encoding="utf-8")
    (root / "elena.ipynb").write_text('{"cells": [', encoding="utf-8")
    (root / "fede.ipynb").write_text(notebook(*GOOD_NOTEBOOK_CELLS), encoding="utf-8")
    (root / "gema.ipynb").write_text(lesson_12_learner_copy(filled=True), encoding="utf-8")
    (root / "hugo.ipynb").write_text(lesson_12_learner_copy(filled=False), encoding="utf-8")
    (root / "ines").mkdir()
    (root / "ines" / "helpers.py").write_text(
        inspect.getsource(specimens.run_one).replace("def run_one(", "def run_one_mine(", 1), encoding="utf-8")
    (root / "ines" / "loop.py").write_text(
        "from helpers import run_one_mine\n" + loop_file(specimens.specimen_missing_assistant_turn), encoding="utf-8")
    for skipped in (".ipynb_checkpoints", "__pycache__", ".git", "venv/lib/python3.11/site-packages/x", "venv/bin"):
        (root / skipped).mkdir(parents=True)
        (root / skipped / "ana-checkpoint.py").write_text("raise SystemExit(1)\n", encoding="utf-8")
    (root / "venv" / "pyvenv.cfg").write_text("home = /usr/bin\n", encoding="utf-8")
    (root / ".hidden.py").write_text("raise SystemExit(1)\n", encoding="utf-8")
    (root / "notes.txt").write_text("not a submission\n", encoding="utf-8")
    return root


EXPECTED = {  # learner -> (passed, tags, load error contains)
    "ana": (True, [], ""),
    "beto": (False, ["unbounded-tool-errors"], ""),
    "carla": (False, [], "carla.py:2: SyntaxError"),
    "dario": (False, [], "has no function 'agent_loop'; functions found: my_loop"),
    "elena": (False, [], "is not a notebook"),
    "fede": (True, [], ""),
    "gema": (True, [], ""),
    "hugo": (False, ["loop-raised"], ""),
    "ines": (False, ["missing-assistant-turn"], ""),
}


# ------------------------------------------------------------------------------------ finding and loading


def test_submissions_are_found_recursively_with_learner_ids_and_languages(klass):
    subs = find_submissions([str(klass)])
    assert [s.learner for s in subs] == list(EXPECTED)
    by = {s.learner: s for s in subs}
    assert by["beto"].lang == "es" and by["ana"].lang is None
    assert by["ines"].path.name == "loop.py"  # helpers.py defines no agent_loop: a helper, not a submission
    assert not any(part.startswith(".") or part == "__pycache__" for s in subs for part in s.path.parts[-2:])


def test_targets_name_files_functions_and_missing_paths(tmp_path, klass):
    subs = find_submissions([f"{klass / 'dario.py'}:my_loop", str(tmp_path / "nobody.py"), str(klass / "ana.py")],
                            function="agent_loop")
    assert [(s.learner, s.function) for s in subs] == [("dario", "my_loop"), ("nobody", "agent_loop"), ("ana", "agent_loop")]
    assert [s.learner for s in find_submissions([str(klass / "ana.py"), str(klass), str(klass / "ana.py")])] == \
        ["ana"] + [learner for learner in EXPECTED if learner != "ana"]  # a file named twice is graded once
    (tmp_path / "ana.ipynb").write_text(notebook("x = 1"), encoding="utf-8")
    (tmp_path / "ana.py").write_text("x = 1\n", encoding="utf-8")
    assert sorted(s.learner for s in find_submissions([str(tmp_path)])) == [
        "ana.ipynb", "ana.py"]  # the same id twice: the paths relative to the class folder tell them apart


def test_a_notebook_runs_its_code_cells_without_magics_shell_lines_or_checks(tmp_path):
    path = tmp_path / "mine.ipynb"
    path.write_text(notebook(*GOOD_NOTEBOOK_CELLS), encoding="utf-8")
    kept = notebook_cells(json.loads(path.read_text(encoding="utf-8")))
    assert [index for index, _ in kept] == [1, 3]  # no markdown, no %%bash cell, no check cell
    assert kept[0][1].startswith("pass\nimport json") and "\npass\n" in kept[1][1]
    loop = load_function(path)
    assert loop.__name__ == "agent_loop" and grade(loop, only=["end_turn"]).passed


def test_lesson_12s_learner_copy_loads_with_its_checks_skipped(tmp_path):
    path = tmp_path / "lesson12.ipynb"
    path.write_text(lesson_12_learner_copy(filled=True), encoding="utf-8")
    assert grade(load_function(path), only=["end_turn", "refusal"]).passed
    assert grade(load_function(path, "loop_1"), only=["end_turn"]).passed


def test_a_loaded_module_keeps_dataclasses_working_and_leaves_sys_modules_alone(tmp_path):
    path = tmp_path / "typed.py"
    path.write_text("from __future__ import annotations\nfrom dataclasses import dataclass\n\n\n@dataclass\nclass Step:\n"
                    "    n: int = 1\n\n\ndef agent_loop(client, prompt, tools, run_tool):\n    return str(Step())\n",
                    encoding="utf-8")
    assert load_function(path)(None, "", [], None) == "Step(n=1)"
    assert "agentlab_graded_typed" not in sys.modules  # pickled by value, never by a name only this process knows


def test_load_errors_name_the_file_cell_and_line(tmp_path):
    bad = tmp_path / "bad.ipynb"
    bad.write_text(notebook("x = 1", "def agent_loop(client, prompt, tools, run_tool):\n    return (\n"), encoding="utf-8")
    with pytest.raises(LoadError, match=r"bad\.ipynb \[cell 1\]:2: SyntaxError") as info:
        load_function(bad)
    assert "no se pudo cargar" in info.value.message("es")
    raises = tmp_path / "raises.ipynb"
    raises.write_text(notebook("def helper():\n    pass", "1 / 0"), encoding="utf-8")
    with pytest.raises(LoadError, match=r"raises\.ipynb \[cell 1\]:1: ZeroDivisionError"):
        load_function(raises)
    other = tmp_path / "other.ipynb"
    other.write_text(notebook("def loop_1(client, prompt, tools, run_tool):\n    return ''"), encoding="utf-8")
    with pytest.raises(LoadError, match="has no function 'agent_loop'; functions found: loop_1"):
        load_function(other)
    for text in ("not json", '{"cells": 3}', "[1, 2]"):
        bad.write_text(text, encoding="utf-8")
        with pytest.raises(LoadError, match="is not a notebook"):
            load_function(bad)


# ------------------------------------------------------------------------------------ grading in workers


@pytest.fixture(scope="module")
def graded(klass):
    return grade_class(find_submissions([str(klass)]), only=ONLY, lang="en", jobs=2)


def test_each_submission_gets_its_verdict_and_one_broken_file_stops_nothing(graded):
    got = {g.learner: (g.passed, g.tags, (g.error or {}).get("en", "")) for g in graded}
    assert set(got) == set(EXPECTED)
    for learner, (passed, tags, error) in EXPECTED.items():
        assert got[learner][:2] == (passed, tags), (learner, got[learner])
        assert error in got[learner][2] and bool(error) == bool(got[learner][2]), (learner, got[learner][2])
    beto = next(g for g in graded if g.learner == "beto")
    assert beto.lang == "es" and "Arreglo" in beto.report["persistent_tool_errors"].explanation


def test_hostile_top_levels_fail_their_learner_only(tmp_path):
    files = {
        "exits.py": "import os\nos._exit(0)\n",
        "sysexit.py": "import sys\nsys.exit(0)\n",
        "spins.py": "while True:\n    pass\n",
        "deletes.py": "import os\nfor name in os.listdir('.'):\n    os.remove(name)\n" + loop_file(specimens.correct_loop),
        "good.py": loop_file(specimens.correct_loop),
    }
    for name, text in files.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    result = {g.learner: g for g in grade_class(find_submissions([str(tmp_path)]), only=["end_turn"], load_limit=3)}
    # each top level runs in the isolated grader's child: its end is that learner's load error
    assert "exited with status 0" in result["exits"].error["en"] and not result["exits"].passed
    assert "SystemExit" in result["sysexit"].error["en"] and not result["sysexit"].passed
    assert "could not load" in result["spins"].error["en"] and not result["spins"].passed
    assert result["deletes"].passed and result["good"].passed  # it ran in a scratch folder...
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(files)  # ...so the class folder is intact


def test_reused_workers_grade_the_same_and_a_dead_one_is_replaced(klass, graded, tmp_path):
    again = grade_class(find_submissions([str(klass)]), only=ONLY, lang="en", jobs=2, reuse=True)
    assert [(g.learner, g.passed, g.tags, g.error) for g in again] == [(g.learner, g.passed, g.tags, g.error) for g in graded]
    (tmp_path / "a_dies.py").write_text("import os\nos._exit(5)\n", encoding="utf-8")
    (tmp_path / "b_good.py").write_text(loop_file(specimens.correct_loop), encoding="utf-8")
    (tmp_path / "c_good.py").write_text(loop_file(specimens.correct_loop), encoding="utf-8")
    result = grade_class(find_submissions([str(tmp_path)]), only=["end_turn"], jobs=1, reuse=True)
    assert [g.passed for g in result] == [False, True, True] and "exited with status 5" in result[0].error["en"]


# ------------------------------------------------------------------------------------ the outputs


def test_the_class_table_reads_at_80_columns(graded):
    text = ClassReport(graded, "en").to_text(80)
    assert text.startswith("agentlab grade: 9 submissions, 3 passed, 3 failed, 3 not graded")
    for line in text.splitlines():
        assert len(line) <= 80 or " " not in line.strip(), line
    assert re.search(r"^  beto\s+FAILED\s+2/3\s+unbounded-tool-errors$", text, re.M)
    assert re.search(r"^  carla\s+NOT GRADED\s+-$", text, re.M) and "carla.py:2: SyntaxError" in " ".join(text.split())
    chart = text[text.index("Most common diagnoses"):]
    assert [line.split()[0] for line in chart.splitlines()[1:]] == ["loop-raised", "missing-assistant-turn",
                                                                    "unbounded-tool-errors"]
    assert "diagnósticos" in ClassReport(graded, "es").to_text()


def test_the_html_report_has_a_chart_and_no_script(graded):
    page = ClassReport(graded, "en").to_html()
    assert page.startswith("<!DOCTYPE html>") and "<script" not in page and "http" not in page
    assert page.count("class='bar'") == 3 and "width:16.7%" in page  # 1 of 6 graded learners each
    assert "<code>unbounded-tool-errors</code>" in page and "carla.py:2: SyntaxError" in page


def test_the_gradebook_has_one_row_per_submission(graded):
    rows = list(csv.DictReader(io.StringIO(ClassReport(graded, "en").to_csv())))
    assert tuple(rows[0]) == CSV_COLUMNS
    by = {r["learner"]: r for r in rows}
    assert set(by) == set(EXPECTED)
    assert (by["ana"]["passed"], by["ana"]["cases_passed"], by["ana"]["cases_total"],
                                            by["ana"]["tags"], by["ana"]["load_error"]) == ("true", "3", "3", "", "")
    assert (by["beto"]["passed"], by["beto"]["cases_passed"], by["beto"]["tags"], by["beto"]["lang"]) == (
        "false", "2", "unbounded-tool-errors", "es")
    assert by["dario"]["cases_total"] == "" and "functions found: my_loop" in by["dario"]["load_error"]


def test_feedback_is_in_the_learners_language_with_each_explanation_once(graded):
    by = {g.learner: g for g in graded}
    beto = feedback_markdown(by["beto"])
    assert beto.startswith("# agentlab grade: beto") and "**2 de 3 casos superados.**" in beto
    assert "## `unbounded-tool-errors`" in beto and beto.count("**Arreglo:**") == 1
    ines = feedback_markdown(by["ines"])
    assert ines.count("**Fix:**") == 1 and ines.count("The API answered") == 1  # 3 cases, one explanation
    assert "Your submission could not be graded:" in feedback_markdown(by["elena"])


def test_gradescope_results_have_the_autograder_shape(graded):
    by = {g.learner: g for g in graded}
    beto = gradescope_results(by["beto"], ONLY)
    assert beto["score"] == 2.0 and [t["name"] for t in beto["tests"]] == ONLY
    for test in beto["tests"]:
        assert set(test) == {"name", "score", "max_score", "status", "output"}
        assert test["status"] == ("passed" if test["score"] == test["max_score"] == 1.0 else "failed")
    assert beto["tests"][2]["output"].startswith("[unbounded-tool-errors]")
    carla = gradescope_results(by["carla"], ONLY)
    assert carla["score"] == 0 and len(carla["tests"]) == 3 and "SyntaxError" in carla["output"]
    assert carla["extra_data"]["max_score"] == 3.0


# ------------------------------------------------------------------------------------ the command


def _cli(*args: str, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "agentlab", *args], capture_output=True, text=True, timeout=240,
                          env={**os.environ, **env})


def test_the_command_grades_a_folder_and_writes_every_output(klass, tmp_path):
    out = tmp_path / "out"
    result = _cli("grade", str(klass), "--only", ",".join(ONLY), "--csv", str(out / "grades.csv"),
                  "--html", str(out / "class.html"), "--feedback-dir", str(out / "feedback"),
                  "--gradescope", str(out / "gradescope"), COLUMNS="80")
    assert result.returncode == 1, result.stderr
    assert result.stdout.startswith("agentlab grade: 9 submissions, 3 passed")
    assert all(len(line) <= 80 for line in result.stdout.splitlines() if " " in line.strip())
    assert "\r" not in result.stderr and "━" not in result.stderr  # no progress bar when stderr is not a terminal
    assert len(list(csv.DictReader((out / "grades.csv").open(encoding="utf-8")))) == 9
    assert "<div class='chart'>" in (out / "class.html").read_text(encoding="utf-8")
    assert sorted(p.name for p in (out / "feedback").iterdir()) == sorted(f"{n}.md" for n in EXPECTED)
    assert "Arreglo" in (out / "feedback" / "beto.md").read_text(encoding="utf-8")
    results = json.loads((out / "gradescope" / "ana.json").read_text(encoding="utf-8"))
    assert results["score"] == 3.0 and all(t["status"] == "passed" for t in results["tests"])


def _main(capsys, *args: str) -> tuple[int, str, str]:
    """The command in this process (class grading reuses the test session's worker server)."""
    try:
        code = main(list(args))
    except SystemExit as exc:  # a single file that cannot be loaded exits 2 from load_loop
        code = exc.code
    out, err = capsys.readouterr()
    return code, out, err


def test_the_command_exits_0_only_when_every_submission_passed(klass, tmp_path, capsys):
    code, out, err = _main(capsys, "grade", str(klass / "ana.py"), str(klass / "fede.ipynb"), "--only", "end_turn",
                           "--json", "--gradescope", str(tmp_path / "gs"))
    assert code == 0, err
    data = json.loads(out)
    assert data["passed"] is True and [s["learner"] for s in data["submissions"]] == ["ana", "fede"]
    assert sorted(p.name for p in (tmp_path / "gs").iterdir()) == ["ana.json", "fede.json"]
    code, out, err = _main(capsys, "grade", str(klass / "ana.py"), "--only", "end_turn", "--gradescope",
                           str(tmp_path / "results.json"))
    assert code == 0 and json.loads((tmp_path / "results.json").read_text())["score"] == 1.0  # one: the file itself
    (tmp_path / "results").mkdir()  # Gradescope's /autograder/results/
    assert _main(capsys, "grade", str(klass / "ana.py"), "--only", "end_turn", "--gradescope",
                 str(tmp_path / "results"))[0] == 0
    assert json.loads((tmp_path / "results" / "results.json").read_text())["tests"][0]["status"] == "passed"
    code, out, err = _main(capsys, "grade", str(klass / "ana.py"), str(tmp_path / "nobody.py"), "--only", "end_turn")
    assert code == 1 and re.search(r"^  nobody\s+NOT GRADED", out, re.M) and "no such file" in out
    (tmp_path / "empty").mkdir()
    code, out, err = _main(capsys, "grade", str(tmp_path / "empty"))
    assert code == 2 and "no .py or .ipynb files" in err
    assert _main(capsys, "grade", str(klass), "--only", "nope")[0] == 2


def test_one_file_keeps_the_single_report_and_its_exit_codes(klass, capsys):
    code, out, err = _main(capsys, "grade", str(klass / "gema.ipynb"), "--only", "end_turn,refusal")
    assert code == 0, err
    assert out.startswith("agentlab grade agent_loop: 2 of 2 cases passed")
    code, out, err = _main(capsys, "grade", str(klass / "elena.ipynb"))
    assert code == 2 and out == "" and "is not a notebook" in err
    code, out, err = _main(capsys, "grade", str(klass / "gema.ipynb"), "--function", "loop_1", "--only", "end_turn",
                           "--json")
    assert code == 0 and json.loads(out)["loop"] == "loop_1"
    code, out, err = _main(capsys, "grade", str(klass / "hugo.ipynb"), "--only", "end_turn")
    assert code == 1 and "[loop-raised]" in out and "NotImplementedError: your code here" in out


def test_one_file_that_exits_at_its_top_level_cannot_be_loaded(tmp_path, capsys):
    path = tmp_path / "quits.py"
    path.write_text("import sys\nsys.exit(0)\n", encoding="utf-8")
    code, out, err = _main(capsys, "grade", str(path))
    assert code == 2 and out == "" and f"could not load {path}:2: SystemExit" in err  # loaded in the sandbox child


# ------------------------------------------------------------------------------------ the single report


def test_the_single_report_gives_each_explanation_once_and_never_cuts_a_tag():
    report = grade(specimens.SPECIMENS["missing-assistant-turn"])
    text = report.to_text(80)
    failed = [c for c in report.cases if not c.passed]
    assert len(failed) > 3
    for c in report.cases:
        assert f"  {c.name:<22}  {'passed' if c.passed else 'FAILED'}" + (f"  [{c.diagnosis}]" if c.diagnosis else "") \
            in text.splitlines()
    assert text.count("Fix: ") == 1 and text.count("The API answered") == 1
    assert all(len(line) <= 80 for line in text.splitlines()), text
    assert "[missing-assistant-turn] " in text
    spanish = grade(specimens.SPECIMENS["missing-assistant-turn"], only=["end_turn", "says_done"], lang="es").to_text(80)
    assert spanish.count("Arreglo: ") == 1 and "[missing-assistant-turn] end_turn, says_done" in spanish


def test_the_single_report_prints_plain_text_when_piped():
    report = grade(specimens.SPECIMENS["unbounded-tool-errors"], only=["persistent_tool_errors"])
    buffer = io.StringIO()
    report.print(file=buffer)
    assert buffer.getvalue() == report.to_text(80) + "\n" and "\x1b[" not in buffer.getvalue()
    assert textwrap.dedent("""\
        agentlab grade specimen_unbounded_tool_errors: 0 of 1 cases passed
          persistent_tool_errors  FAILED  [unbounded-tool-errors]

          [unbounded-tool-errors] persistent_tool_errors""") in buffer.getvalue()


# ------------------------------------------------------------------------------------ what learners control


@pytest.fixture(scope="module")
def hostile_class(tmp_path_factory) -> tuple[Path, list]:
    """A class whose names and exception texts try to inject into the outputs, with clashing names."""
    root = tmp_path_factory.mktemp("hostile_class")
    (root / "=HYPERLINK(1+1).py").write_text(loop_file(specimens.correct_loop), encoding="utf-8")
    (root / "-cmd.py").write_text(loop_file(specimens.correct_loop), encoding="utf-8")
    (root / "out_inject.py").write_text(
        "def agent_loop(client, prompt, tools, run_tool):\n"
        "    raise ValueError('<b>bold</b>\\n\\n# injected heading\\n| a | b |\\n[x](http://e.vil)')\n",
        encoding="utf-8")
    (root / "carlos.py").write_text("def agent_loop(client, prompt, tools, run_tool):\n    return (\n", encoding="utf-8")
    (root / "ana.py").write_text(loop_file(specimens.correct_loop), encoding="utf-8")
    (root / "ana.es.py").write_text(loop_file(specimens.correct_loop), encoding="utf-8")
    (root / "ana").mkdir()
    (root / "ana" / "loop.py").write_text(loop_file(specimens.correct_loop), encoding="utf-8")
    return root, grade_class(find_submissions([str(root)]), only=["end_turn"], lang="en", jobs=2)


def test_gradebook_cells_a_spreadsheet_would_evaluate_are_quoted(hostile_class):
    root, graded = hostile_class
    text = ClassReport(graded, "en").to_csv()
    rows = list(csv.DictReader(io.StringIO(text)))
    for row in rows:
        for column in ("learner", "submission", "lang", "tags", "load_error"):
            assert not row[column].startswith(("=", "+", "-", "@", "\t", "\r")), (column, row[column])
    assert {"'=HYPERLINK(1+1)", "'-cmd"} <= {r["learner"] for r in rows}
    assert "'=HYPERLINK(1+1).py" in {r["submission"] for r in rows}


def test_feedback_shows_what_the_learner_raised_as_text_not_markdown(hostile_class):
    _, graded = hostile_class
    page = feedback_markdown(next(g for g in graded if g.learner == "out_inject"))
    assert "<b>" not in page and "\n# injected" not in page and "[x](http" not in page
    assert "\\<b\\>bold\\</b\\> \\# injected heading \\| a \\| b \\|" in page  # shown as typed, on one line
    assert [line for line in page.splitlines() if line.startswith("#")] == [
        "# agentlab grade: out\\_inject", "## `loop-raised`"]


def test_outputs_name_files_relative_to_the_class_folder_and_clashes_by_short_paths(hostile_class):
    root, graded = hostile_class
    by = {g.learner: g for g in graded}
    assert {"ana.py", "ana.es.py", "ana/loop.py"} <= set(by)  # the clash, not absolute paths
    assert by["ana/loop.py"].passed and by["ana.es.py"].lang == "es"
    report = ClassReport(graded, "en")
    outputs = [report.to_csv(), json.dumps(report.to_dict()), report.to_text(80), report.to_html()]
    outputs += [feedback_markdown(g) for g in graded] + [json.dumps(gradescope_results(g, ["end_turn"])) for g in graded]
    for text in outputs:
        assert str(root) not in text
    rows = {r["learner"]: r for r in csv.DictReader(io.StringIO(report.to_csv()))}
    assert rows["carlos"]["submission"] == "carlos.py"
    assert rows["carlos"]["load_error"].startswith("could not load carlos.py:2: SyntaxError")
    assert rows["ana/loop.py"]["submission"] == "ana/loop.py"
    assert "could not load carlos.py:2" in gradescope_results(by["carlos"], ["end_turn"])["output"]
