"""The quiz engine: loading and validating banks (with the malformed-bank corpus), sessions,
scoring of every question type, exam mode, retry-incorrect, and the export hook.

The banks used here are ``tests/quiz_bad_banks/valid/`` (the control of the corpus: every
question type, loads cleanly) and small ones written to a temporary folder.
"""

from __future__ import annotations

import json
import subprocess
import sys
import types
from pathlib import Path

import pytest
import yaml

from agentlab.quiz import (
    SCHEMAS,
    Bank,
    BankError,
    ExamOver,
    ExamSession,
    QuizSession,
    apportion,
    export,
    grade_code,
    load_bank,
    schema,
)

ROOT = Path(__file__).resolve().parent.parent
CORPUS = Path(__file__).resolve().parent / "quiz_bad_banks"
VALID = CORPUS / "valid"

# A self-contained loop that passes every grader case (no module helpers: it is exec'd alone).
GOOD_LOOP = '''
def agent_loop(client, prompt, tools, run_tool):
    messages = [{"role": "user", "content": prompt}]
    max_tokens, errors = 1024, 0
    for _ in range(25):
        response = client.messages.create(
            model="claude-sonnet-5", max_tokens=max_tokens, tools=tools, messages=messages)
        if response.stop_reason == "max_tokens":
            if response.content[-1].type == "tool_use" and max_tokens == 1024:
                max_tokens = 4096
                continue
            raise RuntimeError("Answer cut by max_tokens")
        messages.append({"role": "assistant", "content": response.content})
        if response.stop_reason in ("end_turn", "stop_sequence"):
            return "".join(b.text for b in response.content if b.type == "text")
        if response.stop_reason == "tool_use":
            results = []
            for block in response.content:
                if block.type != "tool_use":
                    continue
                try:
                    out = run_tool(block.name, block.input)
                    results.append({"type": "tool_result", "tool_use_id": block.id, "content": out})
                except Exception as e:
                    results.append({"type": "tool_result", "tool_use_id": block.id,
                                    "content": f"Error: {e}", "is_error": True})
            messages.append({"role": "user", "content": results})
            errors = errors + 1 if all(r.get("is_error") for r in results) else 0
            if errors >= 3:
                raise RuntimeError("The tools kept failing")
        elif response.stop_reason == "refusal":
            return "The model declined this request."
        elif response.stop_reason != "pause_turn":
            raise RuntimeError(f"Unhandled stop_reason: {response.stop_reason}")
    raise RuntimeError("No end_turn after 25 requests")
'''

# The same loop ending on the text: "DONE" instead of stop_reason (text-parsing-termination).
BROKEN_LOOP = GOOD_LOOP.replace(
    '        if response.stop_reason in ("end_turn", "stop_sequence"):\n',
    '        if "done" in "".join(b.text for b in response.content if b.type == "text").lower() \\\n'
    '                or response.stop_reason in ("end_turn", "stop_sequence"):\n')


@pytest.fixture(scope="module")
def bank() -> Bank:
    return load_bank(VALID, cache=False)


@pytest.fixture(autouse=True)
def own_cache(tmp_path, monkeypatch):
    """Every test gets its own validation cache, so none reads another run's verdicts."""
    monkeypatch.setenv("AGENTLAB_CACHE_DIR", str(tmp_path / "cache"))


def answer_right(session: QuizSession):
    item = session.current()
    q = item.question
    if q.type == "order":
        return session.answer([item.lines.index(line) for line in q.lines])
    if q.type == "fix_code":
        return session.answer(q.fixed_code)
    return session.answer(list(q.correct_ids) if q.type == "multiple" else q.correct_ids[0])


def answer_wrong(session: QuizSession):
    item = session.current()
    q = item.question
    if q.type == "order":
        return session.answer(list(range(len(item.lines))))  # the shuffled order is never the right one
    if q.type == "fix_code":
        return session.answer(q.code)
    return session.answer(next(o.id for o in item.options if not o.correct))


def go_to(session, question_id):
    index = [q.id for q in session.questions].index(question_id)
    return session.goto(index)


# =============================================================================== loader


def test_the_valid_bank_loads_every_type(bank):
    assert bank.topic_ids == ("basics", "bugs")
    assert [q.id for q in bank] == ["basics-001", "basics-002", "basics-003", "basics-004", "bugs-001", "bugs-002"]
    assert {q.type for q in bank} == set(SCHEMAS)
    q = bank.question("basics-002")
    assert q.correct_ids == ("a", "b") and q.topic == "basics" and q.focus == (2,)
    assert q.prompt.get("es").startswith("¿Qué va") and q.option("c").tag == "rebuilt-assistant-turn"
    assert (q.path.name, q.line) == ("basics.yaml", 34)
    spot = bank.question("bugs-001")
    assert spot.bug_lines == (12, 13) and spot.code.splitlines()[11].strip().startswith("if response.stop_reason")
    assert bank.question("bugs-002").fixed_code == spot.fixed_code  # a YAML alias is fine
    assert bank.question("basics-003").response["stop_reason"] == "pause_turn"


def test_bank_lookups_fail_clearly(bank):
    with pytest.raises(KeyError, match="did you mean 'basics-001'"):
        bank.question("basics-01")
    with pytest.raises(ValueError, match="unknown topic 'nope'; topics: basics, bugs"):
        bank.topic("nope")
    with pytest.raises(ValueError, match="question basics-001: no option 'z'"):
        bank.question("basics-001").option("z")


def test_the_dataclasses_are_frozen(bank):
    q = bank.question("basics-001")
    with pytest.raises(AttributeError):
        q.id = "x"  # type: ignore[misc]
    with pytest.raises(AttributeError):
        q.options[0].correct = False  # type: ignore[misc]


def test_an_empty_folder_is_an_empty_bank(tmp_path):
    empty = load_bank(tmp_path)
    assert len(empty) == 0 and empty.topics == () and list(empty) == []
    session = QuizSession(empty)
    assert session.total == 0 and session.current() is None and session.finished and session.score == 0


def test_a_missing_folder_is_a_clear_error(tmp_path):
    with pytest.raises(FileNotFoundError, match="AGENTLAB_QUIZ_DIR"):
        load_bank(tmp_path / "nowhere")


def test_a_single_file_loads(tmp_path):
    bank = load_bank(VALID / "bugs.yaml")
    assert bank.topic_ids == ("bugs",)


def test_the_default_folder_is_the_checkouts_quizzes_or_the_env(monkeypatch, tmp_path):
    from agentlab.quiz import default_quiz_dir

    monkeypatch.delenv("AGENTLAB_QUIZ_DIR", raising=False)
    assert default_quiz_dir() == ROOT / "quizzes"
    monkeypatch.setenv("AGENTLAB_QUIZ_DIR", str(tmp_path))
    assert default_quiz_dir() == tmp_path and len(load_bank()) == 0


# The malformed-bank corpus: folder -> every error expected, as (file, line, question id, words).
CORPUS_ERRORS = {
    "bad_stop_reason": [("alpha.yaml", 16, "alpha-001", "response.stop_reason: 'tool_calls' is not one of")],
    "bad_yaml_syntax": [("alpha.yaml", 40, "alpha-002", "YAML syntax error: did not find expected key")],
    "bug_lines_out_of_range": [("alpha.yaml", 20, "alpha-001", "line 9 is past the end of code (4 lines)")],
    "code_without_agent_loop": [("alpha.yaml", 15, "alpha-001", "code: defines no top-level function agent_loop")],
    "correct_option_tag_not_bug_tag": [("alpha.yaml", 26, "alpha-001",
                                        "correct option 'a' must have tag: missing-assistant-turn (= bug_tag)")],
    "difficulty_out_of_range": [("alpha.yaml", 9, "alpha-001", "difficulty: is 4; must be at most 3")],
    "duplicate_id_across_files": [
        ("beta.yaml", 33, "alpha-001", "must start with the topic: beta-NNN"),
        ("beta.yaml", 33, "alpha-001", "duplicate question id 'alpha-001': already used at "
                                       "tests/quiz_bad_banks/duplicate_id_across_files/alpha.yaml:7"),
    ],
    "duplicate_id_same_file": [("alpha.yaml", 33, "alpha-001", "already used at "
                                                              "tests/quiz_bad_banks/duplicate_id_same_file/alpha.yaml:7")],
    "duplicate_option_id": [("alpha.yaml", 25, "alpha-001", "option id 'b' repeated")],
    "duplicate_yaml_key": [("alpha.yaml", 15, "alpha-001", "duplicate key 'en' (first at line 13)")],
    "empty_es": [("alpha.yaml", 31, "alpha-001", "explanation.es: must not be empty")],
    "empty_file": [("alpha.yaml", None, None, "the file is empty")],
    "fixed_code_syntax_error": [("alpha.yaml", 24, "alpha-001", "fixed_code: Python syntax error on its line 2")],
    "focus_out_of_range": [("alpha.yaml", 12, "alpha-001", "focus[1]: is 6; must be at most 5")],
    "id_without_topic_prefix": [("alpha.yaml", 7, "stop-reasons-001", "must start with the topic: alpha-NNN")],
    "missing_es": [("alpha.yaml", 12, "alpha-001", "prompt: missing text 'es'")],
    "next_action_without_response": [("alpha.yaml", 7, "alpha-001", "missing field 'response'")],
    "no_correct_multiple": [("alpha.yaml", 15, "alpha-001", "needs at least one correct option")],
    "option_explanation_missing": [("alpha.yaml", 25, "alpha-001", "options[2]: missing field 'explanation'")],
    "order_with_options": [("alpha.yaml", 14, "alpha-001", "unknown field 'options'")],
    "several_faults": [
        ("alpha.yaml", 9, "alpha-001", "difficulty: is 0; must be at least 1"),
        ("alpha.yaml", 37, "alpha-002", "unknown misconception tag 'nope'"),
        ("alpha.yaml", 64, "alpha-003", "prompt: missing text 'es'"),
    ],
    "too_few_options": [("alpha.yaml", 15, "alpha-001", "options: has 2 items; needs at least 3")],
    "two_correct_single": [("alpha.yaml", 41, "alpha-002", "needs exactly one correct option; correct: a, b")],
    "unknown_field": [
        ("alpha.yaml", 7, "alpha-001", "missing field 'explanation'"),
        ("alpha.yaml", 29, "alpha-001", "unknown field 'explanaton' (did you mean 'explanation'?"),
    ],
    "unknown_option_tag": [("alpha.yaml", 24, "alpha-001", "unknown misconception tag 'parses-text'")],
    "unknown_tag": [("alpha.yaml", 11, "alpha-001",
                     "unknown misconception tag 'text-parsing-terminaton' (did you mean 'text-parsing-termination'?)")],
    "unknown_type": [("alpha.yaml", 8, "alpha-001", "unknown question type 'true_false'; one of single, multiple")],
    "wrong_topic_name": [("alpha.yaml", 2, None, "topic 'alfa' must equal the file name 'alpha'")],
    "yml_extension": [("alpha.yml", None, None, "bank files end in .yaml")],
}


def test_every_corpus_folder_has_its_expected_errors():
    folders = {p.name for p in CORPUS.iterdir() if p.is_dir()} - {"valid"}
    assert folders == set(CORPUS_ERRORS)


@pytest.mark.parametrize("case", sorted(CORPUS_ERRORS))
def test_malformed_bank_gives_its_clear_error(case, monkeypatch):
    monkeypatch.chdir(ROOT)  # errors show paths relative to the working folder
    with pytest.raises(BankError) as info:
        load_bank(CORPUS / case)
    err = info.value
    assert isinstance(err, ValueError)
    found = [(e.path.name, e.line, e.question_id) for e in err.errors]
    assert found == [(f, line, qid) for f, line, qid, _ in CORPUS_ERRORS[case]], str(err)
    text = str(err)
    for (name, line, qid, words), e in zip(CORPUS_ERRORS[case], err.errors):
        assert words in e.message, e.message
        where = f"tests/quiz_bad_banks/{case}/{name}" + (f":{line}" if line else "") + (f" question {qid}" if qid else "")
        assert f"{where}: {e.message}" in text  # one message lists every problem with its place
    first = err.errors[0]
    assert (err.path, err.line, err.question_id) == (first.path, first.line, first.question_id)


def test_a_bad_file_does_not_hide_the_problems_of_another(tmp_path):
    for case in ("missing_es", "unknown_tag"):
        src = (CORPUS / case / "alpha.yaml").read_text(encoding="utf-8")
        topic = case.replace("_", "")
        (tmp_path / f"{topic}.yaml").write_text(src.replace("alpha", topic), encoding="utf-8")
    with pytest.raises(BankError) as info:
        load_bank(tmp_path)
    assert str(info.value).startswith("2 problems in 2 bank files:")
    assert [e.path.name for e in info.value.errors] == ["missinges.yaml", "unknowntag.yaml"]


def copy_valid(folder: Path) -> Path:
    folder.mkdir()
    for f in VALID.glob("*.yaml"):
        (folder / f.name).write_bytes(f.read_bytes())
    return folder


def test_a_validated_file_is_cached_by_its_bytes(tmp_path, monkeypatch):
    from agentlab.quiz import _bank

    banks, cache = copy_valid(tmp_path / "banks"), tmp_path / "verdicts"
    first = load_bank(banks, cache=cache)
    entries = sorted(p.name for p in (cache / "quiz").iterdir())
    assert [e.split("-")[0] for e in entries] == ["basics", "bugs"]

    def no_checks(*args):
        raise AssertionError("a cached file was checked again")

    monkeypatch.setattr(_bank, "_check_file", no_checks)
    assert load_bank(banks, cache=cache) == first  # same dataclasses, lines included
    assert [q.line for q in load_bank(banks, cache=cache)] == [q.line for q in first]
    monkeypatch.undo()

    edited = (banks / "basics.yaml").read_text(encoding="utf-8").replace("What ends the loop?", "What ends it?")
    (banks / "basics.yaml").write_text(edited, encoding="utf-8")
    assert load_bank(banks, cache=cache).question("basics-001").prompt.en == "What ends it?"
    now = sorted(p.name for p in (cache / "quiz").iterdir())
    assert len(now) == 2 and now != entries and now[1] == entries[1]  # the old verdict is replaced


def test_the_cache_never_hides_a_problem(tmp_path):
    banks, cache = copy_valid(tmp_path / "banks"), tmp_path / "verdicts"
    load_bank(banks, cache=cache)
    # a new file reusing a cached file's id: the check across files still runs
    (banks / "more.yaml").write_text((banks / "basics.yaml").read_text(encoding="utf-8")
                                     .replace("topic: basics", "topic: more").replace("basics-00", "more-00")
                                     .replace("id: more-001", "id: basics-001"), encoding="utf-8")
    with pytest.raises(BankError, match="duplicate question id 'basics-001'"):
        load_bank(banks, cache=cache)
    (banks / "more.yaml").unlink()
    for entry in (cache / "quiz").iterdir():  # a damaged verdict is a miss, not a crash
        entry.write_text("{not json", encoding="utf-8")
    assert len(load_bank(banks, cache=cache)) == 6
    (banks / "bugs.yaml").write_text("topic: bugs\n", encoding="utf-8")
    for _ in range(2):  # a bad file is never remembered
        with pytest.raises(BankError, match="missing field 'title', 'questions'"):
            load_bank(banks, cache=cache)
    blocked = tmp_path / "a-file"
    blocked.write_text("x")
    assert len(load_bank(VALID, cache=blocked)) == 6  # an unwritable cache costs time, nothing else


def test_the_default_cache_folder(monkeypatch, tmp_path):
    import platformdirs

    from agentlab.quiz._bank import default_cache_dir

    assert default_cache_dir() == tmp_path / "cache"  # this file's fixture sets AGENTLAB_CACHE_DIR
    load_bank(VALID)
    assert len(list((tmp_path / "cache" / "quiz").iterdir())) == 2
    monkeypatch.delenv("AGENTLAB_CACHE_DIR")
    assert default_cache_dir() == Path(platformdirs.user_cache_dir("agentlab", appauthor=False))


def test_the_schemas_are_valid_json_schemas_and_match_the_valid_bank():
    import jsonschema

    for kind, sch in SCHEMAS.items():
        jsonschema.Draft202012Validator.check_schema(sch)
        assert sch["properties"]["type"] == {"const": kind}
    raw = [q for f in sorted(VALID.glob("*.yaml")) for q in yaml.safe_load(f.read_text(encoding="utf-8"))["questions"]]
    for q in raw:
        assert list(jsonschema.Draft202012Validator(SCHEMAS[q["type"]]).iter_errors(q)) == []
    assert schema("single") == SCHEMAS["single"] and schema("single") is not SCHEMAS["single"]
    with pytest.raises(ValueError, match="unknown question type"):
        schema("essay")


def test_importing_the_engine_stays_light():
    code = ("import sys, agentlab.quiz as q; q.QuizSession; q.load_bank; "
            "print(sorted(m for m in ('ipywidgets', 'agentlab.grader', 'anthropic', 'fsrs', 'sqlite3', 'jsonschema') "
            "if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    assert json.loads(out.stdout.replace("'", '"')) == []


def test_calling_the_module_hands_over_to_the_jupyter_front_end(monkeypatch):
    import agentlab.quiz as quiz

    fake = types.ModuleType("agentlab.quiz.widget")
    fake.quiz = lambda *args, **kwargs: ("widget", args, kwargs)
    monkeypatch.setitem(sys.modules, "agentlab.quiz.widget", fake)
    assert quiz(topic="history", lang="es", exam=False) == ("widget", (), {"topic": "history", "lang": "es", "exam": False})


# =============================================================================== sessions


def test_same_seed_same_questions_same_order_same_options(bank):
    def shape(session):
        return [(i.id, [o.id for o in i.options], i.lines) for i in session.items()]

    a, b = QuizSession(bank, seed=42, n=4), QuizSession(bank, seed=42, n=4)
    assert shape(a) == shape(b)
    assert shape(QuizSession(bank, seed=43, n=4)) != shape(a)
    assert len({tuple(q.id for q in QuizSession(bank, seed=s).questions) for s in range(10)}) > 1


def test_a_questions_option_order_depends_on_the_seed_not_on_the_rest(bank):
    whole = {i.id: [o.id for o in i.options] for i in QuizSession(bank, seed=5).items()}
    alone = {i.id: [o.id for o in i.options] for i in QuizSession(bank, seed=5, topic="basics").items()}
    assert all(whole[qid] == order for qid, order in alone.items())
    orders = {tuple(o.id for o in go_to(QuizSession(bank, seed=s), "basics-002").options) for s in range(12)}
    assert len(orders) > 3  # the options really are shuffled
    plain = go_to(QuizSession(bank, seed=1, shuffle=False), "basics-002")
    assert [o.id for o in plain.options] == ["a", "b", "c", "d"]


def test_order_lines_are_shuffled_and_never_shown_in_order(bank):
    q = bank.question("basics-004")
    shown = {go_to(QuizSession(bank, seed=s), q.id).lines for s in range(30)}
    assert q.lines not in shown and len(shown) > 5
    assert all(sorted(lines) == sorted(q.lines) for lines in shown)


def test_topic_and_n_select_the_pool(bank):
    assert {q.topic for q in QuizSession(bank, topic="bugs").questions} == {"bugs"}
    assert QuizSession(bank, topic=["basics", "bugs"], n=3).total == 3
    assert QuizSession(bank, n=100).total == 6
    assert QuizSession(bank, n=0).total == 0
    with pytest.raises(ValueError, match="unknown topic 'history'"):
        QuizSession(bank, topic="history")
    for bad in (-1, 2.5, True):
        with pytest.raises(ValueError, match="n must be"):
            QuizSession(bank, n=bad)


def test_navigation_flags_and_progress(bank):
    s = QuizSession(bank, seed=3)
    assert s.current().number == 1 and s.current().total == 6 and not s.finished
    assert s.flag() is True and s.current().flagged
    first = s.current().id
    answer_right(s)
    assert (s.answered, s.points) == (1, 1.0) and s.score == pytest.approx(1 / 6)
    assert s.current().feedback.correct  # the item shows its feedback once answered
    s.next()
    s.next()
    assert s.index == 2
    assert s.flag() and not s.flag(False)
    assert s.flagged == (first,)
    assert s.goto(0).id == first
    with pytest.raises(IndexError):
        s.goto(6)
    for _ in range(10):
        s.next()
    assert s.current() is None and s.finished and s.index == 6
    with pytest.raises(ValueError, match="no current question"):
        s.answer("a")


def test_the_session_language_is_used_everywhere(bank):
    s = QuizSession(bank, lang="es", seed=0)
    item = go_to(s, "basics-001")
    assert item.prompt == "¿Qué termina el bucle?" and item.option_text(item.options[0]) in {
        "`stop_reason` es `end_turn`", "El texto dice DONE", "Diez vueltas"}
    fb = s.answer("b")
    assert fb.lang == "es" and fb.explanation == "El bucle termina con end_turn."
    assert {o.id: o.explanation for o in fb.options}["b"] == "El texto nunca decide."
    with pytest.raises(ValueError, match="unknown language"):
        QuizSession(bank, lang="fr")


def test_the_default_language_is_the_learners(bank, monkeypatch):
    monkeypatch.setenv("AGENTLAB_LANG", "es")
    assert QuizSession(bank).lang == "es"


# =============================================================================== scoring


def test_single_choice_scores_0_or_1_and_names_the_misconception(bank):
    s = QuizSession(bank, seed=0)
    go_to(s, "basics-001")
    fb = s.answer("b")
    assert (fb.correct, fb.score, fb.chosen, fb.right_answer) == (False, 0.0, ("b",), ("a",))
    assert fb.misconceptions == ("text-parsing-termination",)
    chosen = [o for o in fb.options if o.chosen]
    assert [(o.id, o.correct, o.tag) for o in chosen] == [("b", False, "text-parsing-termination")]
    assert len(fb.options) == 3 and all(o.explanation for o in fb.options)
    s2 = QuizSession(bank, seed=0)
    go_to(s2, "basics-001")
    fb2 = s2.answer(["a"])  # a one-item list is fine too
    assert (fb2.correct, fb2.score, fb2.misconceptions) == (True, 1.0, ())


def test_a_wrong_option_without_a_tag_falls_back_to_the_questions_tags(tmp_path, bank):
    s = QuizSession(bank, seed=0)
    go_to(s, "basics-002")  # multiple; tags [missing-assistant-turn]; every wrong option has a tag
    assert s.answer(["c"]).misconceptions == ("rebuilt-assistant-turn",)
    s = QuizSession(bank, seed=0)
    go_to(s, "basics-004")  # order: no options, so the question's tags (none here)
    assert s.answer([0, 1, 2, 3, 4]).misconceptions == ()


@pytest.mark.parametrize("picked, score, correct", [
    (["a", "b"], 1.0, True),
    (["b", "a"], 1.0, True),
    (["a"], 0.5, False),
    (["a", "b", "c"], 0.5, False),   # (2 right - 1 wrong) / 2 correct
    (["a", "c"], 0.0, False),        # (1 - 1) / 2
    (["c", "d"], 0.0, False),        # never below 0
    (["a", "c", "d"], 0.0, False),   # max(0, (1 - 2) / 2)
])
def test_multiple_choice_partial_credit(bank, picked, score, correct):
    s = QuizSession(bank, seed=0)
    go_to(s, "basics-002")
    fb = s.answer(picked)
    assert (fb.score, fb.correct) == (score, correct)
    assert fb.right_answer == ("a", "b") and set(fb.chosen) == set(picked)


def test_next_action_and_spot_the_bug(bank):
    s = QuizSession(bank, seed=0)
    go_to(s, "basics-003")
    fb = s.answer("c")
    assert (fb.correct, fb.misconceptions) == (False, ("fabricated-server-tool-result",))
    go_to(s, "bugs-001")
    fb = s.answer("a")
    assert fb.correct and fb.score == 1.0 and fb.bug_lines == (12, 13)
    s = QuizSession(bank, seed=0)
    go_to(s, "bugs-001")
    assert s.answer("b").misconceptions == ("split-tool-results",)


def test_order_scores_the_fraction_in_place(bank):
    q = bank.question("basics-004")
    s = QuizSession(bank, seed=9)
    item = go_to(s, q.id)
    right = [item.lines.index(line) for line in q.lines]
    two_swapped = right[:]
    two_swapped[0], two_swapped[1] = two_swapped[1], two_swapped[0]
    fb = s.answer(two_swapped)
    assert fb.score == pytest.approx(3 / 5) and not fb.correct
    assert fb.positions == (False, False, True, True, True)
    assert fb.right_answer == q.lines and fb.chosen[0] == q.lines[1]
    s2 = QuizSession(bank, seed=9)
    go_to(s2, q.id)
    fb = s2.answer(right)
    assert (fb.score, fb.correct, fb.positions) == (1.0, True, (True,) * 5)


def test_order_with_repeated_lines_counts_equal_lines_as_interchangeable(tmp_path):
    src = (VALID / "basics.yaml").read_text(encoding="utf-8")
    data = yaml.safe_load(src)
    data["questions"] = [q for q in data["questions"] if q["type"] == "order"]
    data["questions"][0]["lines"] = ["a = 1", "    pass", "b = 2", "    pass"]
    (tmp_path / "basics.yaml").write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
    bank = load_bank(tmp_path)
    s = QuizSession(bank, seed=1)
    item = s.current()
    order = [item.lines.index("a = 1"), item.lines.index("    pass"), item.lines.index("b = 2")]
    order.append(next(i for i in range(4) if i not in order))
    assert s.answer(order).correct


def test_fix_code_grades_the_learners_loop(bank):
    s = QuizSession(bank, seed=0, lang="en")
    go_to(s, "bugs-002")
    fb = s.answer(GOOD_LOOP)
    assert (fb.correct, fb.score) == (True, 1.0) and fb.report.passed and fb.message == "Every grader case passed."
    assert fb.right_answer == (bank.question("bugs-002").fixed_code,)

    s = QuizSession(bank, seed=0, lang="es")
    go_to(s, "bugs-002")
    fb = s.answer(BROKEN_LOOP)
    assert (fb.correct, fb.score) == (False, 0.0) and not fb.report.passed
    assert "text-parsing-termination" in fb.misconceptions and fb.report.lang == "es"
    assert "casos del grader superados" in fb.message


@pytest.mark.parametrize("code, words", [
    ("def agent_loop(client, prompt, tools, run_tool)\n    return 'x'\n", "syntax error on line 1"),
    ("def helper():\n    return 1\n", "defines no function agent_loop"),
    ("agent_loop = 3\n", "agent_loop is a int, not a function"),
    ("raise KeyError('boom')\n", "Running your code raised KeyError: 'boom'"),
    ("import does_not_exist_anywhere\n", "ModuleNotFoundError"),
    ("x = 'a\0b'\n", "syntax error"),
])
def test_fix_code_never_crashes_on_bad_code(bank, code, words):
    s = QuizSession(bank, seed=0, lang="en")
    go_to(s, "bugs-002")
    fb = s.answer(code)
    assert (fb.correct, fb.score, fb.report) == (False, 0.0, None)
    assert words in fb.message
    assert fb.misconceptions == ("missing-assistant-turn",)  # what the question drills


def test_grade_code_reports_the_grader_failure_by_case():
    score, report, message, tags = grade_code(BROKEN_LOOP, "en")
    assert score == 0.0 and not report.passed and tags[0] == "text-parsing-termination"
    assert message.startswith(f"{sum(c.passed for c in report.cases)} of {len(report.cases)} grader cases passed")
    with pytest.raises(ValueError, match="question fix_code: answer a fix_code question with your code"):
        grade_code(["not", "code"])


@pytest.mark.parametrize("qid, response, words", [
    ("basics-001", "z", "'z' is not one of its options"),
    ("basics-001", ["a", "b"], "takes exactly one option"),
    ("basics-001", 1, "answer with an option id"),
    ("basics-001", None, "answer with an option id"),
    ("basics-002", [], "pick at least one option"),
    ("basics-002", ["a", "a"], "picked twice"),
    ("basics-002", [1], "is not one of its options"),
    ("basics-003", {"a": True}, "answer with an option id"),
    ("basics-004", [0, 1, 2], "exactly once"),
    ("basics-004", [0, 1, 2, 3, 3], "exactly once"),
    ("basics-004", [0, 1, 2, 3, 5], "exactly once"),
    ("basics-004", [True, False, 2, 3, 4], "must be integers"),
    ("basics-004", "01234", "list of line indices"),
    ("bugs-002", b"def agent_loop(): pass", "your code as a string"),
])
def test_a_bad_answer_raises_valueerror_naming_the_question(bank, qid, response, words):
    s = QuizSession(bank, seed=0)
    go_to(s, qid)
    with pytest.raises(ValueError, match=f"question {qid}") as info:
        s.answer(response)
    assert words in str(info.value)
    assert s.answered == 0  # nothing recorded


def test_a_question_is_answered_once(bank):
    s = QuizSession(bank, seed=0)
    go_to(s, "basics-001")
    s.answer("a")
    with pytest.raises(ValueError, match="question basics-001 is already answered"):
        s.answer("b")


# =============================================================================== results, retry


def test_results_review_the_wrong_and_the_unanswered(bank):
    s = QuizSession(bank, seed=0)
    go_to(s, "basics-001")
    s.answer("a")
    go_to(s, "basics-002")
    s.answer(["a"])                 # partial credit: still reviewed
    go_to(s, "basics-003")
    s.flag()
    s.answer("b")
    r = s.results()
    assert (r.total, r.answered, r.points, r.passed) == (6, 3, 1.5, None)
    assert r.score == pytest.approx(1.5 / 6)
    assert r.by_topic["basics"].points == 1.5 and r.by_topic["basics"].score == pytest.approx(1.5 / 4)
    assert r.by_topic["bugs"].answered == 0 and r.by_topic["bugs"].score == 0
    reviewed = {i.question.id: i for i in r.review}
    assert set(reviewed) == {"basics-002", "basics-003", "basics-004", "bugs-001", "bugs-002"}
    assert reviewed["basics-003"].your_answer == ("b",) and reviewed["basics-003"].right_answer == ("a",)
    assert reviewed["basics-003"].flagged and r.flagged == ("basics-003",)
    assert reviewed["basics-002"].score == 0.5
    assert reviewed["bugs-001"].your_answer is None and reviewed["bugs-001"].right_answer == ("a",)
    assert reviewed["basics-004"].right_answer == bank.question("basics-004").lines
    assert all(i.explanation for i in r.review) and all(o.explanation for o in reviewed["bugs-001"].options)


def test_retry_incorrect_only(bank):
    s = QuizSession(bank, seed=4)
    wrong = set()
    while s.current() is not None:
        if s.current().type in ("single", "multiple", "order"):
            answer_wrong(s)
            wrong.add(s.current().id)
        elif s.current().type != "fix_code":
            answer_right(s)
        s.next()
    assert set(s.incorrect_ids()) == wrong == {"basics-001", "basics-002", "basics-004"}
    retry = s.retry_incorrect()
    assert set(q.id for q in retry.questions) == wrong and retry.lang == s.lang
    again = QuizSession(bank, retry_incorrect_from=s, topic="basics", seed=4)
    assert [q.id for q in again.questions] == [q.id for q in retry.questions]
    assert QuizSession(bank, retry_incorrect_from=s, topic="bugs").total == 0


def test_retry_from_a_list_keeps_its_order(bank):
    ids = ["bugs-001", "basics-003", "basics-001"]
    s = QuizSession(bank, retry_incorrect_from=ids, seed=99)
    assert [q.id for q in s.questions] == ids
    assert [q.id for q in QuizSession(bank, retry_incorrect_from=ids, n=2).questions] == ids[:2]
    with pytest.raises(KeyError, match="basics-999"):
        QuizSession(bank, retry_incorrect_from=["basics-999"])
    with pytest.raises(ValueError, match="retry_incorrect_from takes"):
        QuizSession(bank, retry_incorrect_from="basics-001")


# =============================================================================== exams


def test_apportion_by_largest_remainders():
    cap = {"a": 50, "b": 50, "c": 50}
    split = apportion(10, {"a": 2, "b": 1, "c": 1}, cap)  # quotas 5, 2.5, 2.5: the seed breaks the tie
    assert split["a"] == 5 and sorted((split["b"], split["c"])) == [2, 3]
    assert apportion(6, {"a": 3, "b": 2, "c": 1}, cap) == {"a": 3, "b": 2, "c": 1}
    assert apportion(7, {"a": 1, "b": 0, "c": 1}, cap)["b"] == 0
    for seed in range(20):
        split = apportion(10, {"a": 1, "b": 1, "c": 1}, cap, seed)
        assert sum(split.values()) == 10 and sorted(split.values()) == [3, 3, 4]
        assert split == apportion(10, {"a": 1, "b": 1, "c": 1}, cap, seed)  # deterministic
    assert len({tuple(apportion(10, {"a": 1, "b": 1, "c": 1}, cap, s).values()) for s in range(20)}) > 1


def test_apportion_gives_a_full_topics_surplus_to_the_others():
    assert apportion(10, {"a": 8, "b": 1, "c": 1}, {"a": 2, "b": 20, "c": 20}) == {"a": 2, "b": 4, "c": 4}
    assert apportion(5, {"a": 1, "b": 1}, {"a": 0, "b": 9}) == {"a": 0, "b": 5}
    with pytest.raises(ValueError, match="needs more than the 4 questions"):
        apportion(5, {"a": 1, "b": 1}, {"a": 2, "b": 2})
    with pytest.raises(ValueError, match="weight of topic 'a'"):
        apportion(1, {"a": -1}, {"a": 3})
    with pytest.raises(ValueError, match="positive weight"):
        apportion(1, {"a": 0}, {"a": 3})


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_exam_draws_by_weights_deterministically(bank):
    exam = ExamSession(bank, n=4, weights={"basics": 1, "bugs": 1}, seed=7)
    assert exam.allocation == {"basics": 2, "bugs": 2}
    assert sorted(q.topic for q in exam.questions) == ["basics", "basics", "bugs", "bugs"]
    again = ExamSession(bank, n=4, weights={"basics": 1, "bugs": 1}, seed=7)
    assert [q.id for q in again.questions] == [q.id for q in exam.questions]
    assert ExamSession(bank, n=3, weights={"basics": 1}).allocation == {"basics": 3}
    assert ExamSession(bank).total == 6 and ExamSession(bank).allocation == {"basics": 4, "bugs": 2}
    with pytest.raises(ValueError, match="unknown topic"):
        ExamSession(bank, n=2, weights={"history": 1})
    with pytest.raises(ValueError, match="needs more than"):
        ExamSession(bank, n=5, weights={"bugs": 1})
    with pytest.raises(ValueError, match="pass_mark"):
        ExamSession(bank, n=2, pass_mark=70)
    with pytest.raises(ValueError, match="time_limit"):
        ExamSession(bank, n=2, time_limit=0)


def test_exam_time_limit_with_a_fake_clock(bank):
    clock = FakeClock()
    exam = ExamSession(bank, n=6, time_limit=600, clock=clock, seed=2)
    assert exam.time_left == 600 and not exam.over
    clock.now += 100
    answer_right(exam)
    assert exam.time_left == 500 and exam.elapsed == 100
    exam.next()
    clock.now += 500  # exactly at the limit: still open
    answer_wrong(exam)
    exam.next()
    exam.flag()
    clock.now += 0.5
    assert exam.over and exam.timed_out and exam.time_left == 0
    with pytest.raises(ExamOver, match="time limit of 600 s ran out"):
        answer_right(exam)
    with pytest.raises(ExamOver):
        exam.flag(False)
    assert exam.current() is not None  # still readable for the review
    clock.now += 1000
    r = exam.results()
    assert r.timed_out and r.elapsed == 600 and r.answered == 2 and r.points == 1.0
    assert r.score == pytest.approx(1 / 6) and r.passed is False and r.pass_mark == 0.7
    assert len(r.review) == 5 and r.flagged == (exam.questions[2].id,)
    assert sum(t.questions for t in r.by_topic.values()) == 6


def test_exam_pass_mark_score_by_topic_and_finish(bank):
    clock = FakeClock()
    exam = ExamSession(bank, weights={"basics": 1, "bugs": 1}, n=6, pass_mark=0.5, clock=clock, seed=1)
    for item in exam.items():
        exam.goto(item.index)
        if item.question.topic == "basics":
            answer_right(exam)
        elif item.type == "spot_the_bug":
            answer_wrong(exam)
    clock.now += 42
    r = exam.finish()
    assert exam.over and not exam.timed_out and r.elapsed == 42
    assert r.by_topic["basics"].score == 1.0 and r.by_topic["bugs"].score == 0.0
    assert r.score == pytest.approx(4 / 6) and r.passed is True
    assert {i.question.id for i in r.review} == {"bugs-001", "bugs-002"}
    with pytest.raises(ExamOver, match="it was finished"):
        exam.answer("a")
    assert not ExamSession(bank, n=6, pass_mark=1.0, seed=1).finish().passed
    assert ExamSession(bank, n=1, pass_mark=0.0, seed=1).finish().passed  # 0 >= 0


def test_exam_without_time_limit_and_retry_after(bank):
    exam = ExamSession(bank, n=3, seed=3)
    assert exam.time_left is None
    answer_wrong(exam)
    retry = exam.retry_incorrect()
    assert [q.id for q in retry.questions] == [exam.questions[0].id]


# =============================================================================== export


def test_export_handout_and_key(bank):
    handout = export(bank, kind="handout", lang="en", fmt="md")
    key = export(bank, kind="key", lang="en", fmt="md")
    assert handout == export(bank, kind="handout", lang="en", fmt="md")  # deterministic
    assert handout.startswith("# agentlab · Quiz handout\n") and "## Loop basics" in handout
    assert "### Question 6 · `bugs-002`" in handout and "### Question 6 · `bugs-002`" in key
    assert "Yes, first." not in handout and "Yes, first." in key  # explanations only in the key
    assert "**a)** The assistant turn, verbatim" in handout
    assert "\n12          if response.stop_reason == \"pause_turn\":" in handout  # spot_the_bug: numbered lines
    assert "**Faulty lines:** 12, 13 · **Anti-pattern:** `missing-assistant-turn`" in key
    assert '"stop_reason": "pause_turn"' in handout
    assert "Put these lines in order" in handout and "Correct order of the handout's lines:" in key
    es = export(bank, kind="key", lang="es")
    assert "## Bucle básico" in es and "Sí, primero." in es and "**Por qué:**" in es


def test_export_order_key_matches_the_handout_numbers(bank):
    from agentlab.quiz._export import handout_lines

    q = bank.question("basics-004")
    shown = handout_lines(q)
    key = export(bank, kind="key", topic="basics")
    line = next(x for x in key.splitlines() if "Correct order of the handout's lines" in x)
    numbers = [int(n) for n in line.split(":")[-1].split(",")]
    assert [shown[n - 1] for n in numbers] == list(q.lines)


def test_export_html_escapes_and_renders(bank):
    page = export(bank, kind="handout", lang="es", fmt="html")
    assert page.startswith("<!DOCTYPE html>") and '<html lang="es">' in page and page.endswith("</html>\n")
    assert "<code>stop_reason</code>" in page and "{&quot;role&quot;: &quot;assistant&quot;" in page
    assert '<pre><code class="language-python">' in page and "<script" not in page
    assert export(bank, kind="key", fmt="html") == export(bank, kind="key", fmt="html")


def test_export_rejects_unknown_values(bank, tmp_path):
    with pytest.raises(ValueError, match="export kind"):
        export(bank, kind="answers")
    with pytest.raises(ValueError, match="export format"):
        export(bank, fmt="pdf")
    with pytest.raises(ValueError, match="unknown topic"):
        export(bank, topic="history")
    assert "No questions." in export(load_bank(tmp_path))


# =============================================================================== faulty lines


@pytest.mark.parametrize("lines, score, correct", [
    ([12, 13], 1.0, True),
    ([13, 12], 1.0, True),
    ([12], 0.5, False),
    ([12, 13, 14], 0.5, False),
    ([1, 2], 0.0, False),
])
def test_spot_the_bug_by_its_faulty_lines(bank, lines, score, correct):
    s = QuizSession(bank, seed=0)
    go_to(s, "bugs-001")
    fb = s.answer_lines(lines)
    assert (fb.score, fb.correct) == (score, correct)
    assert fb.response == {"lines": tuple(lines)} and fb.chosen == tuple(map(str, lines)) and fb.bug_lines == (12, 13)
    assert fb.misconceptions == (() if correct else ("missing-assistant-turn",))
    assert not any(o.chosen for o in fb.options) and len(fb.options) == 3
    assert s.answered == 1 and s.points == score


@pytest.mark.parametrize("lines, words", [
    ([], "distinct line numbers from 1 to 35"),
    ([0], "distinct line numbers"),
    ([36], "distinct line numbers"),
    ([12, 12], "distinct line numbers"),
    ([True], "distinct line numbers"),
    ("12", "as a list of line numbers"),
])
def test_bad_faulty_lines_name_the_question(bank, lines, words):
    s = QuizSession(bank, seed=0)
    go_to(s, "bugs-001")
    with pytest.raises(ValueError, match="question bugs-001") as info:
        s.answer_lines(lines)
    assert words in str(info.value)
    go_to(s, "basics-001")
    with pytest.raises(ValueError, match="question basics-001 is a single question"):
        s.answer_lines([1])


def test_faulty_lines_are_recorded_and_refused_after_the_exam(bank, tmp_path):
    from agentlab.quiz import ProgressStore

    with ProgressStore(tmp_path, user="ana") as store:
        s = QuizSession(bank, seed=0, progress=store)
        go_to(s, "bugs-001")
        s.answer_lines([12])
        assert [(a.question_id, a.score) for a in store.answers()] == [("bugs-001", 0.5)]
    exam = ExamSession(bank, weights={"bugs": 1}, n=2, seed=0)
    go_to(exam, "bugs-001")
    exam.finish()
    with pytest.raises(ExamOver):
        exam.answer_lines([12, 13])
