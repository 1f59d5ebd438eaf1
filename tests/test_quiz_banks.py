"""The real question banks (``quizzes/*.yaml``): they validate, and every executable item is
proven by running it.

- every ``spot_the_bug`` and ``fix_code`` item: its ``code`` fails :func:`agentlab.grade` with
  its ``bug_tag`` among some case's diagnoses, and its ``fixed_code`` passes every case
  (one test per item and side, named by the question id). An Agent SDK item defines
  ``async def agent_loop(messages)``, a consumer of ``query()``'s messages, which ``grade`` runs on
  the SDK cases (skipped when claude-agent-sdk is not installed);
- the bank's size: at least 150 questions, and every exam focus point of seed 000 (1-5) drilled
  by at least 3 questions. These two are skipped, saying why, while the banks are still being
  written (fewer than 150 questions);
- no length cue in the Agent SDK bank: in its single-answer questions the correct option is
  strictly the longest in at most 35% of them (English and Spanish texts), and strictly the
  shortest (English) in at most 35% of them, so neither "pick the longest" nor "pick the
  shortest" pays.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

import agentlab
from agentlab.quiz import BankError, load_bank

QUIZZES = Path(__file__).resolve().parent.parent / "quizzes"
MIN_QUESTIONS = 150
MIN_PER_FOCUS = 3
SINGLE_ANSWER_TYPES = ("single", "next_action", "spot_the_bug")
MAX_LONGEST_CORRECT_SHARE = 0.35
MAX_SHORTEST_CORRECT_SHARE = 0.35


def _load():
    try:
        return load_bank(QUIZZES, cache=False), None
    except BankError as exc:
        return None, exc


BANK, LOAD_ERROR = _load()
EXECUTABLE = [q for q in BANK if q.type in ("spot_the_bug", "fix_code")] if BANK is not None else []
BANKS_STILL_ARRIVING = BANK is None or len(BANK) < MIN_QUESTIONS


def test_the_real_banks_validate():
    assert LOAD_ERROR is None, f"quizzes/ does not validate:\n{LOAD_ERROR}"


def run(code: str, question_id: str, side: str):
    """Exec a bank item's code alone and grade its agent_loop (English report)."""
    if "claude_agent_sdk" in code:
        pytest.importorskip("claude_agent_sdk", reason="Agent SDK items need the agent-sdk extra")
    namespace: dict = {"__name__": f"quiz_{question_id.replace('-', '_')}_{side}"}
    exec(compile(code, f"<{question_id} {side}>", "exec"), namespace)  # noqa: S102 - the bank's own code
    assert callable(namespace.get("agent_loop")), f"{question_id}: {side} defines no agent_loop"
    return agentlab.grade(namespace["agent_loop"], lang="en")


@pytest.mark.parametrize("question", EXECUTABLE, ids=[q.id for q in EXECUTABLE])
def test_the_buggy_code_fails_with_its_tag(question):
    report = run(question.code, question.id, "code")
    diagnosed = {tag for case in report.cases for tag in case.diagnoses}
    summary = "; ".join(f"{c.name}: {c.diagnoses or 'passed'}" for c in report.cases)
    assert not report.passed, f"{question.where} {question.id}: the buggy code passes every case"
    assert question.bug_tag in diagnosed, (
        f"{question.where} {question.id}: bug_tag {question.bug_tag!r} is not among the diagnoses ({summary})")


@pytest.mark.parametrize("question", EXECUTABLE, ids=[q.id for q in EXECUTABLE])
def test_the_fixed_code_passes(question):
    report = run(question.fixed_code, question.id, "fixed_code")
    failed = "; ".join(f"{c.name}: {c.diagnoses} {c.explanation}" for c in report.cases if not c.passed)
    assert report.passed, f"{question.where} {question.id}: fixed_code fails: {failed}"


@pytest.mark.skipif(BANKS_STILL_ARRIVING, reason=f"quizzes/ holds {0 if BANK is None else len(BANK)} questions: "
                    f"the {MIN_QUESTIONS}-question minimum is enforced once the banks land")
def test_at_least_150_questions():
    assert len(BANK) >= MIN_QUESTIONS


@pytest.mark.skipif(BANKS_STILL_ARRIVING, reason=f"quizzes/ holds {0 if BANK is None else len(BANK)} questions: "
                    f"the per-focus minimum is enforced once the banks land")
def test_every_focus_point_has_several_questions():
    per_focus = Counter(f for q in BANK for f in q.focus)
    thin = {f: per_focus.get(f, 0) for f in range(1, 6) if per_focus.get(f, 0) < MIN_PER_FOCUS}
    assert not thin, f"focus points with fewer than {MIN_PER_FOCUS} questions: {thin}"


def test_every_item_is_bilingual_and_explained():
    """Belt and braces over the schema: the texts a learner sees, in both languages."""
    for q in BANK or ():
        for lang in ("en", "es"):
            assert q.prompt.get(lang).strip() and q.explanation.get(lang).strip(), q.id
            for o in q.options:
                assert o.text.get(lang).strip() and o.explanation.get(lang).strip(), (q.id, o.id)


def _agent_sdk_single_answer():
    assert BANK is not None, f"quizzes/ does not validate:\n{LOAD_ERROR}"
    single = [q for q in BANK.topic("agent_sdk").questions if q.type in SINGLE_ANSWER_TYPES]
    assert single, "the agent_sdk bank has no single-answer questions"
    return single


def _correct_is_strictly(extreme: str, lang: str) -> tuple[list[str], int]:
    """Ids of the agent_sdk single-answer questions whose correct option is strictly the
    ``extreme`` ("longest" or "shortest") option in ``lang``, and how many questions were checked."""
    single = _agent_sdk_single_answer()
    hits = []
    for q in single:
        (correct,) = [len(o.text.get(lang)) for o in q.options if o.correct]
        others = [len(o.text.get(lang)) for o in q.options if not o.correct]
        if all((correct > n) if extreme == "longest" else (correct < n) for n in others):
            hits.append(q.id)
    return hits, len(single)


@pytest.mark.parametrize("lang", ["en", "es"])
def test_agent_sdk_correct_option_is_not_usually_the_longest(lang):
    """A learner who always picks the longest option must not score well on the agent_sdk bank,
    in either language."""
    longest, total = _correct_is_strictly("longest", lang)
    share = len(longest) / total
    assert share <= MAX_LONGEST_CORRECT_SHARE, (
        f"agent_sdk: the correct option is strictly the longest ({lang}) in {len(longest)}/{total} "
        f"single-answer questions = {share:.0%} (max {MAX_LONGEST_CORRECT_SHARE:.0%}): {', '.join(longest)}")


def test_agent_sdk_correct_option_is_not_usually_the_shortest():
    """The reverse cue: always picking the shortest option must not pay either."""
    shortest, total = _correct_is_strictly("shortest", "en")
    share = len(shortest) / total
    assert share <= MAX_SHORTEST_CORRECT_SHARE, (
        f"agent_sdk: the correct option is strictly the shortest (en) in {len(shortest)}/{total} "
        f"single-answer questions = {share:.0%} (max {MAX_SHORTEST_CORRECT_SHARE:.0%}): {', '.join(shortest)}")
