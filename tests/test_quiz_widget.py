"""The Jupyter front end, ``agentlab.quiz(...)``, driven headlessly: build the app, answer each
question type by setting widget values, click Check / Next / Flag / Finish, and read the
feedback and score widgets. Also: the HTML is deterministic for a seed, every control has a
visible label and every button a tooltip, and ``import agentlab`` stays light.

The banks are a snapshot of the real ``quizzes/``; progress goes to a temporary folder.
"""

from __future__ import annotations

import html
import json
import re
import subprocess
import sys

import pytest

widgets = pytest.importorskip("ipywidgets")

import agentlab
from agentlab.quiz import ProgressStore, load_bank
from agentlab.quiz.widget import QuizApp, quiz

from .quiz_answers import ROOT, find, right_order, snapshot_banks


@pytest.fixture(scope="module")
def bank(tmp_path_factory):
    return load_bank(snapshot_banks(tmp_path_factory.mktemp("quizzes")))


@pytest.fixture(autouse=True)
def data_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("AGENTLAB_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.delenv("AGENTLAB_LANG", raising=False)
    return tmp_path / "data"


def one(bank, q, **kw) -> QuizApp:
    """An app asking just question ``q``."""
    kw.setdefault("progress", False)
    return quiz(bank=bank, retry_incorrect_from=[q.id], **kw)


def text(markup: str) -> str:
    """The text a reader sees: block ends become spaces, other tags vanish, entities decoded."""
    spaced = re.sub(r"<(?:br|/p|/li|/h\d|/td|/th|/tr|/caption|/ul|/table|/pre)\b[^>]*>", " ", markup)
    return re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", "", spaced))).strip()


def right_option_ids(app):
    return [o.id for o in app.item.options if o.correct]


def arrange(app):
    """Put an order question's lines in the right order with the Move up button."""
    target = right_order(app.item)  # the display indices in the right order
    for place, want in enumerate(target):  # selection sort: bring each right line to its place
        labels = [label for label, _ in app.order_list.options]
        pos = next(k for k in range(place, len(labels)) if _body(labels[k]) == app.item.lines[want])
        app.order_list.value = pos
        for _ in range(pos - place):
            app.up_button.click()
        assert app.order_list.value == place  # the selection follows the moved line


def _body(label: str) -> str:
    return re.sub(r"^\s*\d+ │ ", "", label).replace("\u00a0", " ")


def walk(widget):
    yield widget
    for child in getattr(widget, "children", ()):
        yield from walk(child)


# =============================================================================== each type


@pytest.mark.parametrize("qtype", ["single", "next_action", "spot_the_bug"])
def test_one_answer_questions_right_and_wrong(bank, qtype):
    q = find(bank, qtype)
    app = one(bank, q)
    assert isinstance(app.choice, widgets.RadioButtons) and app.choice.value is None
    assert [v for _, v in app.choice.options] == [o.id for o in app.item.options]
    assert app.choice.options[0][0].startswith("a) ")
    if qtype == "next_action":
        assert "The loop just received:" in app.response_html.value and q.response["stop_reason"] in app.response_html.value
    if qtype == "spot_the_bug":
        assert "Code" in app.code_html.value and '<div class="highlight"' in app.code_html.value
    app.choice.value = right_option_ids(app)[0]
    app.check_button.click()
    assert "✔ Right" in text(app.feedback_html.value)
    assert "(your choice, right)" in text(app.feedback_html.value)
    assert "Why:" in text(app.feedback_html.value)
    assert text(app.score_html.value) == "Score: 1 of 1 answered (100%)"
    assert app.check_button.disabled and app.choice.disabled
    if qtype == "spot_the_bug":
        assert f"Faulty lines: {', '.join(map(str, q.bug_lines))}" in text(app.feedback_html.value)

    app = one(bank, q)
    wrong = next(o for o in app.item.options if not o.correct)
    app.choice.value = wrong.id
    app.check()
    shown = text(app.feedback_html.value)
    assert "✘ Wrong" in shown and "(your choice, wrong)" in shown and "(the right answer)" in shown
    assert text(app.score_html.value) == "Score: 0 of 1 answered (0%)"
    if wrong.tag:
        from agentlab import antipatterns

        assert f"Misconception: {antipatterns.get(wrong.tag).text('name', 'en')} ({wrong.tag})" in shown


def test_multiple_choice_with_partial_credit(bank):
    q = next(q for q in bank.questions if q.type == "multiple" and len(q.correct_ids) >= 2)
    app = one(bank, q)
    assert app.choice is None and len(app.checkboxes) == len(q.options)
    assert all(isinstance(c, widgets.Checkbox) for c in app.checkboxes)
    first_right = next(k for k, o in enumerate(app.item.options) if o.correct)
    app.checkboxes[first_right].value = True
    app.check_button.click()
    shown = text(app.feedback_html.value)
    credit = 1 / len(q.correct_ids)
    assert f"◐ Partly right ({round(100 * credit)}% credit)" in shown and "(right, not picked)" in shown
    assert text(app.score_html.value) == f"Score: {round(credit, 2):g} of 1 answered ({round(100 * credit)}%)"

    app = one(bank, q)
    for box, o in zip(app.checkboxes, app.item.options):
        box.value = o.correct
    app.check()
    assert "✔ Right" in text(app.feedback_html.value)


def test_order_by_moving_lines_up_and_down(bank):
    q = find(bank, "order")
    app = one(bank, q)
    assert isinstance(app.order_list, widgets.Select)
    assert app.up_button.description == "Move up" and app.down_button.description == "Move down"
    arrange(app)
    labels = [label for label, _ in app.order_list.options]
    assert [_body(label) for label in labels] == list(q.lines)
    app.check_button.click()
    shown = text(app.feedback_html.value)
    assert "✔ Right" in shown and "line 1: in its place" in shown

    app = one(bank, q)  # shuffled as shown: never the right order
    app.order_list.value = len(q.lines) - 1
    app.down_button.click()  # at the bottom already: nothing moves
    app.check()
    shown = text(app.feedback_html.value)
    assert ("✘ Wrong" in shown or "Partly right" in shown) and "out of place" in shown and "The right order:" in shown


def test_fix_code_in_the_editor(bank):
    q = find(bank, "fix_code")
    app = one(bank, q)
    assert isinstance(app.code_area, widgets.Textarea) and app.code_area.value == q.code.rstrip("\n")
    app.check_button.click()  # the buggy code as given
    shown = text(app.feedback_html.value)
    assert "✘ Wrong" in shown and "Grader:" in shown and "A fixed version:" in shown and "Misconception:" in shown

    app = one(bank, q)
    app.code_area.value = "def agent_loop(:\n"
    app.reset_button.click()
    assert app.code_area.value == q.code.rstrip("\n")
    app.code_area.value = q.fixed_code
    app.check()
    assert "✔ Right" in text(app.feedback_html.value) and "Every grader case passed." in text(app.feedback_html.value)


def test_spot_the_bug_by_faulty_lines(bank):
    q = find(bank, "spot_the_bug")
    app = one(bank, q)
    assert app.lines_text is not None and app.lines_text.description.startswith("Or the faulty lines")
    app.lines_text.value = "x, y"
    app.check()
    assert "Give line numbers from 1 to" in text(app.feedback_html.value) and not app.check_button.disabled
    app.lines_text.value = "0"
    app.check()
    assert "Give line numbers from 1 to" in text(app.feedback_html.value)
    app.lines_text.value = ", ".join(map(str, q.bug_lines))
    app.check()
    shown = text(app.feedback_html.value)
    assert "✔ Right" in shown and f"Your lines: {', '.join(map(str, q.bug_lines))}" in shown


def test_checking_with_nothing_chosen_asks_for_an_answer(bank):
    app = one(bank, find(bank, "single"))
    assert app.check() is None
    assert "Choose an answer first." in text(app.feedback_html.value)
    assert app.session.answered == 0


# =============================================================================== sessions


def test_a_session_with_next_flag_summary_and_retry(bank, data_dir):
    app = quiz(topic="history", seed=3, n=3, bank=bank)  # records to the temporary data dir
    assert text(app.header_html.value).startswith("Question 1 of 3 · ")
    first = app.item
    app.flag_button.click()
    assert "flagged for review" in text(app.header_html.value) and app.flag_button.description == "Unflag"
    assert "Flagged for review." in text(app.feedback_html.value)
    if app.choice is not None:
        app.choice.value = next(o.id for o in first.options if not o.correct)
    elif app.checkboxes is not None:
        app.checkboxes[[o.correct for o in first.options].index(False)].value = True
    app.check()
    app.next_button.click()
    assert text(app.header_html.value).startswith("Question 2 of 3")
    app.next()  # leave question 2 unanswered
    app.finish_button.click()
    summary = text(app.summary_html.value)
    assert summary.startswith("Summary") and "answered 1 of 3" in summary
    assert "Review of the wrong and unanswered questions" in summary and "Your answer: not answered" in summary
    assert f"Flagged for review Question 1 of 3 · {first.id}" in summary
    assert app.check_button.disabled and app.next_button.disabled and app.answer_box.children == ()
    with ProgressStore(data_dir) as store:
        assert [a.question_id for a in store.answers()] == [first.id]
    if first.question.type in ("single", "multiple", "next_action", "spot_the_bug"):
        assert app.retry_button.layout.display != "none"
        app.retry_button.click()
        assert app.session.total == 1 and app.item.id == first.id and app.summary_html.value == ""
        assert not app.check_button.disabled


def test_exam_mode_holds_the_verdicts_for_the_review(bank):
    app = quiz(exam=True, seed=4, n=4, bank=bank, progress=False)
    assert repr(app) == "agentlab quiz: exam, 4 questions, seed 4, lang en"
    for _ in range(4):
        item = app.item
        if app.choice is not None:
            app.choice.value = next(o.id for o in item.options if o.correct)
        elif app.checkboxes is not None:
            for box, o in zip(app.checkboxes, item.options):
                box.value = o.correct
        elif app.code_area is not None:
            app.code_area.value = item.question.fixed_code
        elif app.order_list is not None:
            arrange(app)
        app.check()
        assert text(app.feedback_html.value) == "Answer recorded."
        assert "Right" not in app.feedback_html.value
        assert text(app.score_html.value).startswith(f"Answered {item.number} of 4")
        app.next()
    summary = text(app.summary_html.value)
    assert summary.startswith("Exam results") and "Score: 4 / 4 (100%)" in summary
    assert "✔ PASSED (pass mark 70%)" in summary and "Score by topic" in summary
    assert "<table>" in app.summary_html.value and "<caption>Score by topic</caption>" in app.summary_html.value
    assert "Nothing to review" in summary


def test_spanish(bank):
    q = find(bank, "single")
    app = one(bank, q, lang="es")
    assert app.check_button.description == "Comprobar" and app.next_button.description == "Siguiente"
    assert app.flag_button.description == "Marcar" and app.choice.description == "Respuesta"
    assert text(app.header_html.value).startswith("Pregunta 1 de 1")
    assert q.prompt.es.split()[0] in app.question_html.value
    app.choice.value = next(o.id for o in app.item.options if not o.correct)
    app.check()
    assert "✘ Incorrecta" in text(app.feedback_html.value) and "Por qué:" in text(app.feedback_html.value)
    app.next()
    assert text(app.summary_html.value).startswith("Resumen")
    assert app.retry_button.description == "Repetir solo las incorrectas"


# =============================================================================== accessibility


def test_every_control_has_a_visible_label_and_every_button_a_tooltip(bank):
    controls = (widgets.RadioButtons, widgets.Checkbox, widgets.Select, widgets.Text, widgets.Textarea)
    for qtype in ("single", "multiple", "next_action", "spot_the_bug", "order", "fix_code"):
        q = find(bank, qtype)
        for lang in ("en", "es"):
            app = one(bank, q, lang=lang)
            tree = list(walk(app))
            buttons = [w for w in tree if isinstance(w, widgets.Button)]
            assert len(buttons) >= 5
            for b in buttons:
                assert b.description.strip() and b.tooltip and b.tooltip.strip(), (qtype, b)
            found = [w for w in tree if isinstance(w, controls)]
            assert found, qtype
            for c in found:
                assert c.description.strip(), (qtype, type(c).__name__)
            # a group label precedes the answer controls, and the verdict is text, not colour
            assert isinstance(app.answer_box.children[0], widgets.Label) and app.answer_box.children[0].value


# =============================================================================== determinism


def _all_html(app) -> list[str]:
    """Every HTML and label the app shows while answering each question wrong-or-first."""
    seen = []
    while app.item is not None:
        if app.choice is not None:
            app.choice.value = app.item.options[0].id
        elif app.checkboxes is not None:
            app.checkboxes[0].value = True
        elif app.code_area is not None:
            app.code_area.value = "def agent_loop(client, prompt, tools, run_tool):\n    return ''\n"
        app.check()
        seen += [w.value for w in walk(app) if isinstance(w, (widgets.HTML, widgets.Label))]
        seen += [repr(getattr(w, "options", None)) for w in walk(app) if isinstance(w, (widgets.Select, widgets.RadioButtons))]
        app.next()
    seen.append(app.summary_html.value)
    return seen


def test_the_html_is_deterministic_for_a_seed(bank):
    a = _all_html(quiz(seed=21, n=8, bank=bank, progress=False))
    b = _all_html(quiz(seed=21, n=8, bank=bank, progress=False))
    assert a == b
    joined = "\n".join(a)
    assert not re.search(r"\b[0-9a-f]{32}\b", joined)  # no widget ids / uuids
    assert not re.search(r"\b20\d\d-\d\d-\d\d", joined)  # no timestamps
    assert _all_html(quiz(seed=22, n=8, bank=bank, progress=False)) != a


def test_what_a_notebook_stores_is_deterministic(bank):
    app = quiz(topic="thinking", seed=0, n=5, bank=bank, progress=False)
    bundle = app._repr_mimebundle_()
    assert bundle["text/plain"] == "agentlab quiz: practice, 5 questions, seed 0, lang en"
    assert "application/vnd.jupyter.widget-view+json" in bundle
    assert "text/html" not in bundle
    again = quiz(topic="thinking", seed=0, n=5, bank=bank, progress=False)._repr_mimebundle_()
    assert again["text/plain"] == bundle["text/plain"]


# =============================================================================== the package


def test_agentlab_quiz_is_lazy_and_callable(bank):
    code = ("import sys, agentlab; light = [m for m in ('ipywidgets', 'agentlab.quiz', 'anthropic', 'agentlab.fake') "
            "if m in sys.modules]; q = agentlab.quiz; after = 'ipywidgets' in sys.modules; "
            "import json; print(json.dumps([light, after, callable(q), q.__name__]))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    assert json.loads(out.stdout) == [[], False, True, "agentlab.quiz"]
    app = agentlab.quiz(topic="history", lang="es", seed=1, n=2, bank=bank, progress=False)
    assert isinstance(app, QuizApp) and app.session.total == 2 and app.lang == "es"


def test_nbclient_runs_a_notebook_with_the_quiz_to_the_same_output(tmp_path, bank):
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    pytest.importorskip("ipykernel")
    source = ("import agentlab\n"
              f"agentlab.quiz(topic='history', seed=5, n=3, lang='es', progress=False, bank={str(bank.path)!r})")
    outputs = []
    for _ in range(2):
        nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(source)])
        nbclient.NotebookClient(nb, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(ROOT)}}).execute()
        data = nb.cells[0].outputs[0]["data"]
        outputs.append(data["text/plain"])
        assert "text/html" not in data
    assert outputs[0] == outputs[1] == "cuestionario de agentlab: práctica, 3 preguntas, semilla 5, idioma es"
