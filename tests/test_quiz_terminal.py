"""The terminal front end, ``agentlab quiz``, driven through stdin: full sessions in English and
Spanish, exam mode, quitting early, end of input, bad input that is asked again, fix-the-code
answers given as a file, spot-the-bug answers given as lines, and the instructor's exports.

The banks are a snapshot of the real ``quizzes/`` (``AGENTLAB_QUIZ_DIR``), so the answers this
test computes with the engine match the questions the subprocess asks; progress goes to a
temporary ``AGENTLAB_DATA_DIR``.
"""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from rich.console import Console

from agentlab.quiz import ProgressStore, export, load_bank
from agentlab.quiz._ui import build_session
from agentlab.quiz.terminal import TerminalQuiz, parse_answer, run

from .quiz_answers import ROOT, find, letter, snapshot_banks, typed_right, typed_wrong


@pytest.fixture(scope="module")
def banks(tmp_path_factory) -> Path:
    return snapshot_banks(tmp_path_factory.mktemp("quizzes"))


@pytest.fixture(scope="module")
def bank(banks):
    return load_bank(banks)


@pytest.fixture
def env(banks, tmp_path) -> dict[str, str]:
    e = {k: v for k, v in os.environ.items() if k not in ("AGENTLAB_LANG", "COLUMNS", "LINES")}
    e.update(AGENTLAB_QUIZ_DIR=str(banks), AGENTLAB_DATA_DIR=str(tmp_path / "data"), PYTHONIOENCODING="utf-8",
             COLUMNS="200", NO_COLOR="1")
    return e


def cli(env: dict[str, str], *args: str, stdin: str = "") -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "agentlab", "quiz", *args], input=stdin, capture_output=True,
                          text=True, encoding="utf-8", env=env, cwd=ROOT, timeout=300)


def items(bank, **kw):
    """The questions the CLI will ask for these options (same engine, same seed)."""
    return build_session(bank, **kw).items()


def squash(text: str) -> str:
    """The output with runs of spaces collapsed (rich pads lines)."""
    return re.sub(r"[ \t]+", " ", text)


# =============================================================================== sessions


def test_a_full_practice_session_all_right_covers_every_question_type(bank, env, tmp_path):
    topic = max(bank.topic_ids, key=lambda t: len({q.type for q in bank.topic(t).questions}))
    asked = items(bank, topic=topic, seed=7, n=len(bank.topic(topic).questions))
    assert len({i.type for i in asked}) >= 5, "the snapshot should mix the question types"
    answers = "".join(typed_right(i, tmp_path) + "\n" for i in asked)
    result = cli(env, "--topic", topic, "--seed", "7", "--n", str(len(asked)), stdin=answers)
    assert result.returncode == 0, result.stderr
    out = squash(result.stdout)
    assert out.count("✔ Right") == len(asked)
    assert f"Score: {len(asked)} / {len(asked)} (100%); answered {len(asked)} of {len(asked)}" in out
    assert "Nothing to review: every answer was right." in out
    assert "Retry the incorrect ones only?" not in out
    assert f"Question 1 of {len(asked)}" in out and "seed 7" in out
    first = asked[0]
    assert all(f"{letter(first, o.id)}) " in out for o in first.options)  # options labelled a, b, c...
    # every answer recorded for spaced repetition, under the OS user
    with ProgressStore(env["AGENTLAB_DATA_DIR"]) as store:
        assert len(store.answers()) == len(asked)


def test_a_spanish_session_with_mistakes_then_retry_incorrect_only(bank, env, tmp_path):
    asked = [i for i in items(bank, topic="history", seed=3, n=3, lang="es")]
    wrong = next(i for i in asked if i.options)  # a choice question answered wrong
    answers = [typed_wrong(i, tmp_path) if i is wrong else typed_right(i, tmp_path) for i in asked]
    retry = typed_right(wrong, tmp_path)  # the retry session asks only that one, same option order
    result = cli(env, "--topic", "history", "--seed", "3", "--n", "3", "--lang", "es", "--user", "ana",
                 stdin="\n".join(answers + ["s", retry]) + "\n")
    assert result.returncode == 0, result.stderr
    out = squash(result.stdout)
    assert "Pregunta 1 de 3" in out and "Tu respuesta:" in out
    assert "✘ Incorrecta" in out and "(tu elección, incorrecta)" in out and "(la respuesta correcta)" in out
    assert "Por qué:" in out
    assert "Repaso de las preguntas incorrectas y sin responder" in out
    assert "¿Repetir solo las incorrectas? [s/n]" in out
    assert "Repitiendo 1 pregunta(s)." in out
    assert "Puntuación: 1 / 1 (100%); respondidas 1 de 1" in out  # the retry's summary
    tags = {t for o in wrong.options if not o.correct for t in [o.tag] if t} | set(wrong.question.tags)
    if tags:
        assert "Concepto erróneo:" in out
    with ProgressStore(env["AGENTLAB_DATA_DIR"], user="ana") as store:
        answers = store.answers()
        assert len(answers) == 4  # three, then the retry
        assert [a.correct for a in answers if a.question_id == wrong.id] == [False, True]


def test_misconceptions_are_named_from_the_catalogue(bank, env, tmp_path):
    from agentlab import antipatterns

    q = next(q for q in bank.questions if q.options and any(o.tag and not o.correct for o in q.options))
    seed = 0
    item = next(i for i in items(bank, topic=q.topic, seed=seed, n=len(bank.topic(q.topic).questions)) if i.id == q.id)
    tagged = next(o for o in item.options if o.tag and not o.correct)
    asked = items(bank, topic=q.topic, seed=seed, n=len(bank.topic(q.topic).questions))
    answers = ["s"] * [i.id for i in asked].index(q.id) + [letter(item, tagged.id), "q"]
    result = cli(env, "--topic", q.topic, "--seed", str(seed), "--n", str(len(asked)), stdin="\n".join(answers) + "\n")
    name = antipatterns.get(tagged.tag).text("name", "en")
    assert f"Misconception: {name} ({tagged.tag})" in squash(result.stdout)


def test_exam_mode_scores_by_topic_with_pass_fail_review_and_flags(bank, env, tmp_path):
    asked = items(bank, exam=True, seed=11, n=6)
    wrong = next(k for k, i in enumerate(asked) if i.options)  # flagged, then answered wrong (scores 0)
    skipped = next(k for k in range(len(asked)) if k != wrong)  # skipped, then answered on the way back
    lines = []
    for k, i in enumerate(asked):
        lines += ["f", typed_wrong(i, tmp_path)] if k == wrong else ["s"] if k == skipped else [typed_right(i, tmp_path)]
    lines += ["y", typed_right(asked[skipped], tmp_path)]
    first, second = asked[wrong], asked[skipped]
    result = cli(env, "--exam", "--seed", "11", "--n", "6", stdin="\n".join(lines) + "\n")
    assert result.returncode == 0, result.stderr
    out = squash(result.stdout)
    assert "agentlab quiz · exam · 6 questions" in out
    assert "Answer recorded." in out and "✘ Wrong" not in out.split("Exam results")[0]  # no verdicts before the end
    assert "Go back to them? [y/n]" in out
    assert "Exam results" in out and "Score by topic" in out
    assert "Score: 5 / 6 (83%); answered 6 of 6" in out
    assert "✔ PASSED (pass mark 70%)" in out
    for t in {i.question.topic for i in asked}:
        assert bank.topic(t).title.get("en") in out
    review = out.split("Review of the wrong and unanswered questions")[1]
    assert first.id in review and second.id not in review
    assert "Flagged for review:" in out
    assert f"Question {wrong + 1} of 6 · {first.id}" in out.split("Flagged for review:")[1]


def test_a_failed_exam_in_spanish(bank, env, tmp_path):
    asked = items(bank, exam=True, seed=5, n=3, lang="es", topic="stop_reasons")
    lines = [typed_wrong(i, tmp_path) for i in asked]
    result = cli(env, "--exam", "--seed", "5", "--n", "3", "--lang", "es", "--topic", "stop_reasons",
                 stdin="\n".join(lines + ["n"]) + "\n")
    out = squash(result.stdout)
    assert "Resultados del examen" in out and "Puntuación por tema" in out
    assert "✘ NO APROBADO (nota de corte 70%)" in out
    assert "Respuesta registrada." in out


def test_quitting_early_shows_the_summary(bank, env, tmp_path):
    asked = items(bank, topic="lifecycle", seed=2, n=4)
    result = cli(env, "--topic", "lifecycle", "--seed", "2", "--n", "4", stdin=typed_right(asked[0], tmp_path) + "\nq\n")
    assert result.returncode == 0, result.stderr
    out = squash(result.stdout)
    assert "Score: 1 / 4 (25%); answered 1 of 4" in out
    assert "Question 3 of 4" not in out.split("Summary")[0]
    assert out.count("Your answer: not answered") == 3
    assert "Retry the incorrect ones only?" not in out


def test_end_of_input_ends_cleanly_with_the_summary(env):
    result = cli(env, "--topic", "thinking", "--seed", "1", "--n", "3", stdin="")
    assert result.returncode == 0, result.stderr
    out = squash(result.stdout)
    assert "Summary" in out and "answered 0 of 3" in out
    assert "Traceback" not in result.stderr and "EOFError" not in result.stderr
    eof_in_exam = cli(env, "--exam", "--seed", "1", "--n", "2", stdin="")
    assert eof_in_exam.returncode == 0 and "NOT PASSED" in eof_in_exam.stdout


def test_bad_input_is_asked_again_with_a_clear_message(bank, env, tmp_path):
    q = find(bank, "single", options=4)
    n = len(bank.topic(q.topic).questions)
    asked = items(bank, topic=q.topic, seed=4, n=n)
    i = [x.id for x in asked].index(q.id)
    item = asked[i]
    lines = ["s"] * i + ["", "z", "a,b", "b b", "?", typed_right(item, tmp_path), "q"]
    result = cli(env, "--topic", q.topic, "--seed", "4", "--n", str(n), stdin="\n".join(lines) + "\n")
    out = squash(result.stdout)
    assert "Type an answer, or ? for help." in out
    assert "'z' is not an option here: use a letter from a to d." in out
    assert "This question takes exactly one letter (e.g. b)." in out
    assert "You gave 'b' twice." in out
    assert "Commands: ? help" in out
    assert "✔ Right" in out


def test_order_answers_and_their_errors(bank, env, tmp_path):
    q = find(bank, "order")
    n = len(bank.topic(q.topic).questions)
    asked = items(bank, topic=q.topic, seed=8, n=n)
    i = [x.id for x in asked].index(q.id)
    item = asked[i]
    k = len(item.lines)
    lines = ["s"] * i + ["1 1", "a b", typed_wrong(item, tmp_path), "q"]
    out = squash(cli(env, "--topic", q.topic, "--seed", "8", "--n", str(n), stdin="\n".join(lines) + "\n").stdout)
    assert f"Give each number from 1 to {k} exactly once" in out
    assert "✘ Wrong" in out or "Partly right" in out
    assert "out of place" in out and "The right order:" in out
    right = cli(env, "--topic", q.topic, "--seed", "8", "--n", str(n),
                stdin="\n".join(["s"] * i + [typed_right(item, tmp_path), "q"]) + "\n")
    assert "✔ Right" in right.stdout


def test_fix_code_answers_are_files(bank, env, tmp_path):
    q = find(bank, "fix_code")
    n = len(bank.topic(q.topic).questions)
    asked = items(bank, topic=q.topic, seed=6, n=n)
    i = [x.id for x in asked].index(q.id)
    item = asked[i]
    missing = tmp_path / "nope.py"
    saved = tmp_path / "mine.py"
    lines = ["s"] * i + [str(missing), f"save {saved}", typed_wrong(item, tmp_path), "q"]
    result = cli(env, "--topic", q.topic, "--seed", "6", "--n", str(n), stdin="\n".join(lines) + "\n")
    out = squash(result.stdout)
    assert f"No such file: {missing}." in out
    assert saved.read_text(encoding="utf-8") == q.code  # `save FILE` wrote the code to edit
    assert "Grading your code..." in out and "✘ Wrong" in out
    assert "Grader:" in out and "grader cases passed" in out
    assert "A fixed version:" in out and "Misconception:" in out
    good = cli(env, "--topic", q.topic, "--seed", "6", "--n", str(n),
               stdin="\n".join(["s"] * i + [typed_right(item, tmp_path), "q"]) + "\n")
    assert "✔ Right" in good.stdout and "Every grader case passed." in good.stdout


def test_spot_the_bug_answers_by_lines(bank, env, tmp_path):
    q = find(bank, "spot_the_bug")
    n = len(bank.topic(q.topic).questions)
    asked = items(bank, topic=q.topic, seed=9, n=n)
    i = [x.id for x in asked].index(q.id)
    lines_in_code = len(q.code.rstrip("\n").split("\n"))
    wrong_line = next(k for k in range(1, lines_in_code + 1) if k not in q.bug_lines)
    typed = "lines " + ",".join(map(str, q.bug_lines))
    lines = ["s"] * i + [f"lines {lines_in_code + 5}", typed, "q"]
    out = squash(cli(env, "--topic", q.topic, "--seed", "9", "--n", str(n), stdin="\n".join(lines) + "\n").stdout)
    assert f"Give line numbers from 1 to {lines_in_code}" in out
    assert "✔ Right" in out and f"Faulty lines: {', '.join(map(str, q.bug_lines))}" in out
    spanish = cli(env, "--topic", q.topic, "--seed", "9", "--n", str(n), "--lang", "es",
                  stdin="\n".join(["s"] * i + [f"líneas {wrong_line}", "q"]) + "\n")
    out = squash(spanish.stdout)
    assert "✘ Incorrecta" in out and f"Tus líneas: {wrong_line}" in out


def test_usage_errors_exit_2(env):
    bad = cli(env, "--topic", "nope")
    assert bad.returncode == 2 and "unknown topic 'nope'" in bad.stderr and "stop_reasons" in bad.stderr
    stray = cli(env, "--format", "html")
    assert stray.returncode == 2 and "--format only make sense with --export" in stray.stderr
    assert cli(env, "--n", "-1").returncode == 2


def test_the_existing_commands_still_work(env):
    listed = subprocess.run([sys.executable, "-m", "agentlab", "scenarios", "--json"], capture_output=True, text=True,
                            env=env, cwd=ROOT, timeout=120)
    assert listed.returncode == 0 and '"name": "weather"' in listed.stdout
    helped = subprocess.run([sys.executable, "-m", "agentlab", "--lang", "es", "quiz", "--help"], capture_output=True,
                            text=True, env=env, cwd=ROOT, timeout=120)
    assert helped.returncode == 0 and "--export {handout,key}" in helped.stdout and "ponte a prueba" in helped.stdout


# =============================================================================== exports


@pytest.mark.parametrize("kind", ["handout", "key"])
@pytest.mark.parametrize("fmt", ["md", "html"])
def test_export_writes_the_engines_handout_and_key(bank, env, tmp_path, kind, fmt):
    lang = "es" if kind == "key" else "en"
    to_stdout = cli(env, "--export", kind, "--format", fmt, "--lang", lang, "--topic", "history")
    assert to_stdout.returncode == 0, to_stdout.stderr
    assert to_stdout.stdout == export(bank, kind=kind, lang=lang, fmt=fmt, topic="history")
    out = tmp_path / f"{kind}.{fmt}"
    to_file = cli(env, "--export", kind, "--format", fmt, "--lang", lang, "--output", str(out))
    assert to_file.returncode == 0 and to_file.stdout == ""
    assert str(out) in to_file.stderr
    assert out.read_text(encoding="utf-8") == export(bank, kind=kind, lang=lang, fmt=fmt)
    if fmt == "html":
        assert out.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")


def test_export_defaults_to_markdown():
    env = {k: v for k, v in os.environ.items() if k != "AGENTLAB_LANG"}
    result = subprocess.run([sys.executable, "-m", "agentlab", "quiz", "--export", "handout"], capture_output=True,
                            text=True, encoding="utf-8", env=env, cwd=ROOT, timeout=120)
    assert result.returncode == 0 and result.stdout.startswith("# agentlab · Quiz handout")


# =============================================================================== in process


def test_parse_answer_for_each_question_type(bank):
    def item_of(qtype, **kw):
        q = find(bank, qtype, **kw)
        return next(i for i in build_session(bank, topic=q.topic, seed=0, n=999).items() if i.id == q.id)

    single = item_of("single", options=4)
    assert parse_answer(single, " B ") == ("answer", single.options[1].id)
    assert parse_answer(single, "b)") == ("answer", single.options[1].id)
    assert parse_answer(single, "?")[0] == "help" and parse_answer(single, "Q")[0] == "quit"
    assert parse_answer(single, "f")[0] == "flag" and parse_answer(single, "skip")[0] == "skip"
    assert parse_answer(single, "e", "es") == ("error", "'e' no es una opción aquí: usa una letra de la a a la d.")
    multiple = item_of("multiple")
    assert parse_answer(multiple, "a, c") == ("answer", [multiple.options[0].id, multiple.options[2].id])
    six = find(bank, "multiple", options=6) or find(bank, "single", options=6)
    if six is not None:
        it = next(i for i in build_session(bank, topic=six.topic, seed=0, n=999).items() if i.id == six.id)
        assert parse_answer(it, "f") == ("answer", [it.options[5].id] if six.type == "multiple" else it.options[5].id)
        assert parse_answer(it, "flag")[0] == "flag"
    order = item_of("order")
    k = len(order.lines)
    assert parse_answer(order, " ".join(str(n) for n in range(k, 0, -1))) == ("answer", list(range(k - 1, -1, -1)))
    assert parse_answer(order, "1")[0] == "error"
    spot = item_of("spot_the_bug")
    assert parse_answer(spot, "lines 3, 4") == ("lines", [3, 4])
    assert parse_answer(spot, "línea 3") == ("lines", [3])
    assert parse_answer(spot, "3 3")[0] == "error"
    assert parse_answer(spot, "a") == ("answer", spot.options[0].id)
    fix = item_of("fix_code")
    assert parse_answer(fix, ' "my loop.py" ') == ("file", "my loop.py")
    assert parse_answer(fix, "save out.py") == ("save", "out.py")
    assert parse_answer(fix, "s")[0] == "skip"


def test_injected_input_and_console(bank, tmp_path):
    asked = items(bank, topic="guardrails", seed=1, n=2)
    answers = iter([typed_right(asked[0], tmp_path), typed_wrong(asked[1], tmp_path), "n"])
    prompts = []

    def input_fn(prompt):
        prompts.append(prompt)
        try:
            return next(answers)
        except StopIteration:
            raise EOFError from None

    buf = io.StringIO()
    results = run(topic="guardrails", seed=1, n=2, bank=bank, progress=False, input_fn=input_fn,
                  console=Console(file=buf, width=120, color_system=None))
    assert (results.total, results.answered, results.points) == (2, 2, 1.0)
    assert prompts == ["Your answer: ", "Your answer: ", "Retry the incorrect ones only? [y/n] "]
    text = buf.getvalue()
    assert "Score: 1 of 1 answered (100%)" in squash(text) and "Score: 1 of 2 answered (50%)" in squash(text)


def test_time_limit_ends_the_exam(bank, tmp_path):
    now = [0.0]
    session = build_session(bank, exam=True, seed=2, n=3, time_limit=60, clock=lambda: now[0])
    first = session.current()

    def input_fn(prompt):
        now[0] += 61  # the learner took too long
        return typed_wrong(first, tmp_path)

    buf = io.StringIO()
    quiz = TerminalQuiz(session, console=Console(file=buf, width=120, color_system=None), input_fn=input_fn)
    results = quiz.run()
    out = squash(buf.getvalue())
    assert results.timed_out and results.answered == 0
    assert "Time is up: the exam is over." in out and "Time ran out." in out and "Time used: 1 min 00 s" in out


def test_what_the_learners_code_prints_while_graded_stays_off_the_screen(bank, tmp_path, capsys):
    signature = "def agent_loop(client, prompt, tools, run_tool):"
    q = next(q for q in bank.questions if q.type == "fix_code" and signature in q.fixed_code)  # a loop, not an SDK consumer
    noisy = tmp_path / "noisy.py"
    noisy.write_text('print("NOISE at import")\n' + q.fixed_code.replace(
        signature, signature + '\n    print("NOISE in the loop")', 1), encoding="utf-8")
    assert "NOISE in the loop" in noisy.read_text(encoding="utf-8")
    answers = iter([str(noisy)])

    def input_fn(prompt):
        try:
            return next(answers)
        except StopIteration:
            raise EOFError from None

    buf = io.StringIO()
    from agentlab.quiz import QuizSession

    session = QuizSession(bank, retry_incorrect_from=[q.id])
    TerminalQuiz(session, console=Console(file=buf, width=120, color_system=None), input_fn=input_fn).run()
    captured = capsys.readouterr()
    assert "NOISE" not in captured.out + captured.err + buf.getvalue()
    assert session.answered == 1


def test_review_asks_the_questions_due_for_spaced_repetition(bank, tmp_path):
    from datetime import datetime, timedelta, timezone

    now = [datetime(2026, 1, 5, 9, 0, tzinfo=timezone.utc)]
    store = ProgressStore(tmp_path / "data", user="rev", clock=lambda: now[0])
    first = items(bank, topic="history", seed=1, n=1)[0]
    answers = iter([typed_wrong(first, tmp_path)])

    def input_fn(prompt):
        try:
            return next(answers)
        except StopIteration:
            raise EOFError from None

    def console():
        return Console(file=io.StringIO(), width=120, color_system=None)

    run(topic="history", seed=1, n=1, bank=bank, progress=store, input_fn=input_fn, console=console())
    quiet = console()
    assert run(review=True, bank=bank, progress=ProgressStore(tmp_path / "empty"), input_fn=input_fn,
               console=quiet).total == 0
    assert "Nothing is due for review yet" in quiet.file.getvalue()
    now[0] += timedelta(days=1)
    shown = console()
    results = run(review=True, bank=bank, progress=store, input_fn=input_fn, console=shown)
    assert first.id in [r.question.id for r in results.review]  # the missed question is back (none answered: EOF)
    assert f"Question 1 of {results.total}" in shown.file.getvalue()
    store.close()
