"""Quiz sessions: seeded sampling, shuffling, scoring, exam mode, retry-incorrect.

Pure Python state with no front end inside (the Jupyter and terminal front ends render an
:class:`Item` and pass the learner's answer to :meth:`QuizSession.answer`); the only I/O is
the optional progress store that records each answer::

    from agentlab.quiz import load_bank, QuizSession
    session = QuizSession(load_bank(), topic="stop_reasons", lang="es", seed=7, n=10)
    item = session.current()          # the question, its options in the session's order
    feedback = session.answer("b")    # or ["a", "c"] (multiple), [2, 0, 1] (order), code (fix_code)
    feedback.correct, feedback.score, feedback.options[0].explanation
    session.next()

Scoring (every score is in [0, 1]):

- ``single``, ``next_action``, ``spot_the_bug``: 1 for the correct option, else 0. A
  ``spot_the_bug`` question can also be answered with its faulty lines
  (:meth:`QuizSession.answer_lines`), scored like ``multiple``.
- ``multiple``: partial credit ``max(0, (right picks - wrong picks) / number of correct options)``;
  correct only when exactly the correct options are picked (score 1).
- ``order``: the fraction of positions holding the right line (compared by text, so two equal
  lines are interchangeable); 1 and correct only for the exact order.
- ``fix_code``: the learner's code runs in a fresh namespace and its ``agent_loop`` goes
  through :func:`agentlab.grade`: 1 when the report passes, else 0. A syntax error, an
  exception while defining it, or a missing ``agent_loop`` give score 0 and a message, never a
  crash. The code runs in the isolated grader's child process (``agentlab.grader``), never in
  this one: an exit, a crash or an endless loop in it is a failing answer with a message.
"""

from __future__ import annotations

import math
import numbers
import random
import time
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Mapping, Sequence

from .. import antipatterns
from .._i18n import language
from ._bank import Bank, Option, Question

__all__ = ["ExamOver", "ExamSession", "Feedback", "Item", "OptionFeedback", "QuizSession", "Results",
           "ReviewItem", "TopicScore", "apportion", "grade_code"]

WORDS = {
    "en": {
        "syntax": "Your code has a syntax error on line {line}: {msg}",
        "raised": "Running your code raised {exc}",
        "no_loop": ("Your code defines no function agent_loop(client, prompt, tools, run_tool) (or, for an "
                    "Agent SDK item, async def agent_loop(messages))."),
        "not_callable": "agent_loop is a {kind}, not a function.",
        "grader": "The grader could not run your loop: {exc}",
        "passed": "Every grader case passed.",
        "failed": "{ok} of {n} grader cases passed; first failure: {case}: {why}",
    },
    "es": {
        "syntax": "Tu código tiene un error de sintaxis en la línea {line}: {msg}",
        "raised": "Al ejecutar tu código se lanzó {exc}",
        "no_loop": ("Tu código no define la función agent_loop(client, prompt, tools, run_tool) (o, en una "
                    "pregunta del Agent SDK, async def agent_loop(messages))."),
        "not_callable": "agent_loop es un {kind}, no una función.",
        "grader": "El grader no pudo ejecutar tu bucle: {exc}",
        "passed": "Todos los casos del grader superados.",
        "failed": "{ok} de {n} casos del grader superados; primer fallo: {case}: {why}",
    },
}


class ExamOver(RuntimeError):
    """An answer (or a flag) given after the exam ended: its time ran out or it was finished."""


# --------------------------------------------------------------------------------- views


@dataclass(frozen=True)
class OptionFeedback:
    """One option after answering, in the session's language."""

    id: str
    text: str
    correct: bool
    chosen: bool
    explanation: str
    tag: str | None = None


@dataclass(frozen=True)
class Feedback:
    """What :meth:`QuizSession.answer` returns: the verdict and every explanation.

    ``response`` is the answer as given, normalised: option ids (a tuple, in the order picked),
    display indices for ``order``, the code string for ``fix_code``. ``chosen`` and
    ``right_answer`` are readable: option ids, or the lines (``order``), or the code
    (``fix_code``).
    """

    question_id: str
    type: str
    lang: str
    correct: bool
    score: float
    response: Any
    chosen: tuple[str, ...]
    right_answer: tuple[str, ...]
    explanation: str
    options: tuple[OptionFeedback, ...] = ()
    """Every option in display order, with its explanation (choice questions)."""
    misconceptions: tuple[str, ...] = ()
    """Tags of the wrong options picked; when the answer is wrong and those carry no tag, the
    question's tags (for fix_code: the catalogue tags the grader diagnosed)."""
    positions: tuple[bool, ...] = ()
    """``order``: whether each position holds the right line."""
    bug_lines: tuple[int, ...] = ()
    """``spot_the_bug``: the faulty lines of the code (1-based), to highlight."""
    report: Any = None
    """``fix_code``: the :class:`agentlab.grader.Report` (None when the code could not run)."""
    message: str = ""
    """``fix_code``: what the grader said, or what kept the code from running."""


@dataclass(frozen=True)
class Item:
    """The question on screen: what a front end renders."""

    question: Question
    index: int
    """0-based position in the session."""
    total: int
    lang: str
    options: tuple[Option, ...] = ()
    """Choice questions: the options in the session's (shuffled) order."""
    lines: tuple[str, ...] = ()
    """``order``: the lines in the session's shuffled order; answer with indices into this."""
    flagged: bool = False
    feedback: Feedback | None = None
    """The feedback once answered, else None."""

    @property
    def id(self) -> str:
        return self.question.id

    @property
    def type(self) -> str:
        return self.question.type

    @property
    def prompt(self) -> str:
        return self.question.prompt.get(self.lang)

    @property
    def code(self) -> str | None:
        return self.question.code

    @property
    def number(self) -> int:
        """1-based position, for "question 3 of 10"."""
        return self.index + 1

    def option_text(self, option: Option) -> str:
        return option.text.get(self.lang)


@dataclass(frozen=True)
class TopicScore:
    topic: str
    questions: int
    answered: int
    points: float
    score: float
    """points / questions (unanswered questions count 0)."""


@dataclass(frozen=True)
class ReviewItem:
    """A question answered wrong (score < 1) or left unanswered, for the review."""

    question: Question
    your_answer: tuple[str, ...] | None
    """Readable, as :attr:`Feedback.chosen`; None when unanswered."""
    right_answer: tuple[str, ...]
    score: float
    explanation: str
    options: tuple[OptionFeedback, ...] = ()
    feedback: Feedback | None = None
    flagged: bool = False


@dataclass(frozen=True)
class Results:
    """The outcome of a session (an exam's or a practice one's)."""

    total: int
    answered: int
    points: float
    score: float
    """points / total: unanswered questions count 0."""
    by_topic: dict[str, TopicScore]
    review: tuple[ReviewItem, ...]
    flagged: tuple[str, ...]
    passed: bool | None = None
    """Exams: score >= pass_mark; None for practice."""
    pass_mark: float | None = None
    elapsed: float | None = None
    """Exams: seconds from the start to the end (at most the time limit)."""
    timed_out: bool = False


# --------------------------------------------------------------------------------- scoring


def _choice_ids(question: Question, response: Any, multiple: bool) -> tuple[str, ...]:
    if isinstance(response, str):
        picked: list[Any] = [response]
    elif isinstance(response, (list, tuple)):
        picked = list(response)
    else:
        raise ValueError(f"question {question.id}: answer with an option id (a string)"
                         f"{' or a list of them' if multiple else ''}, not {type(response).__name__}")
    valid = [o.id for o in question.options]
    for p in picked:
        if not isinstance(p, str) or p not in valid:
            raise ValueError(f"question {question.id}: {p!r} is not one of its options ({', '.join(valid)})")
    if len(set(picked)) != len(picked):
        raise ValueError(f"question {question.id}: an option is picked twice in {picked!r}")
    if not picked:
        raise ValueError(f"question {question.id}: pick at least one option")
    if not multiple and len(picked) != 1:
        raise ValueError(f"question {question.id}: a {question.type} question takes exactly one option, got {picked!r}")
    return tuple(picked)


def score_multiple(question: Question, picked: Sequence[str]) -> float:
    """``max(0, (right picks - wrong picks) / number of correct options)``."""
    right = set(question.correct_ids)
    hits = sum(1 for p in picked if p in right)
    misses = len(picked) - hits
    return max(0.0, (hits - misses) / len(right))


def _order_indices(question: Question, response: Any, size: int) -> tuple[int, ...]:
    if isinstance(response, (str, bytes)) or not isinstance(response, (list, tuple)):
        raise ValueError(f"question {question.id}: answer an order question with a list of line indices "
                         f"(0..{size - 1}), not {type(response).__name__}")
    if any(isinstance(i, bool) or not isinstance(i, numbers.Integral) for i in response):
        raise ValueError(f"question {question.id}: line indices must be integers, got {list(response)!r}")
    if sorted(int(i) for i in response) != list(range(size)):
        raise ValueError(f"question {question.id}: give each of the {size} line indices 0..{size - 1} exactly once, "
                         f"got {list(response)!r}")
    return tuple(int(i) for i in response)


def grade_code(code: Any, lang: str | None = None, *, question_id: str = "fix_code") -> tuple[float, Any, str, tuple[str, ...]]:
    """Run a learner's loop source and grade it: ``(score, report or None, message, diagnosed tags)``.

    Never raises for what the code does: a syntax error, an exception while defining it or a
    missing ``agent_loop`` give score 0 and a message saying so.

    Raises:
        ValueError: when ``code`` is not a string (naming ``question_id``).
    """
    if not isinstance(code, str):
        raise ValueError(f"question {question_id}: answer a fix_code question with your code as a string, "
                         f"not {type(code).__name__}")
    words = WORDS[language(lang)]
    try:
        compile(code, f"<{question_id}>", "exec")  # a syntax error is named here, without running anything
    except SyntaxError as exc:
        return 0.0, None, words["syntax"].format(line=exc.lineno, msg=exc.msg), ()
    except ValueError as exc:  # e.g. null bytes in the source
        return 0.0, None, words["syntax"].format(line="?", msg=exc), ()
    from ..grader import LoadError, grade_source

    try:
        # The code runs in the isolated grader's child process (agentlab.grader, "Isolation"):
        # an exit, a crash, an endless loop or a rebound judge there cannot touch this process.
        report = grade_source(code, "agent_loop", lang=language(lang), filename=f"<{question_id}>")
    except LoadError as exc:
        if exc.kind == "missing":
            return 0.0, None, words["no_loop"], ()
        if exc.kind == "not-callable":
            return 0.0, None, words["not_callable"].format(kind=exc.type_name or "value"), ()
        if exc.kind == "syntax":
            return 0.0, None, words["syntax"].format(line=exc.line or "?", msg=str(exc).partition(": ")[2]), ()
        if exc.kind == "raised":
            return 0.0, None, words["raised"].format(exc=str(exc)), ()
        return 0.0, None, words["grader"].format(exc=exc.texts.get(language(lang), str(exc))), ()
    except Exception as exc:  # noqa: BLE001 - reported to the learner
        return 0.0, None, words["grader"].format(exc=f"{type(exc).__name__}: {exc}"), ()
    tags = tuple(dict.fromkeys(t for c in report.cases for t in c.diagnoses if t in antipatterns.BY_TAG))
    if report.passed:
        return 1.0, report, words["passed"], tags
    failed = [c for c in report.cases if not c.passed]
    message = words["failed"].format(ok=len(report.cases) - len(failed), n=len(report.cases), case=failed[0].name,
                                     why=failed[0].explanation)
    return 0.0, report, message, tags


# --------------------------------------------------------------------------------- sessions


@dataclass
class _Slot:
    question: Question
    options: tuple[Option, ...]
    lines: tuple[str, ...]
    feedback: Feedback | None = None
    flagged: bool = False


def _arrange(question: Question, seed: Any, shuffle: bool) -> tuple[tuple[Option, ...], tuple[str, ...]]:
    """The question's options (or lines) in this session's order: seeded by (seed, question id),
    so a question shows the same order whatever else the session holds."""
    rng = random.Random(f"{seed}:{question.id}")
    options = list(question.options)
    lines = list(question.lines)
    if shuffle:
        rng.shuffle(options)
    if lines:  # a Parsons problem is always shuffled, and never shown already in order
        rng.shuffle(lines)
        if lines == list(question.lines) and len(set(lines)) > 1:
            lines = lines[1:] + lines[:1]
    return tuple(options), tuple(lines)


class _Session:
    """What practice and exam sessions share: the questions, answers, flags and results."""

    mode = "practice"

    def __init__(self, bank: Bank, questions: Sequence[Question], *, lang: str | None, seed: Any,
                 shuffle: bool, progress: Any) -> None:
        self.bank = bank
        self.lang = language(lang)
        self.seed = seed
        self.progress = progress
        self._slots = [_Slot(q, *_arrange(q, seed, shuffle)) for q in questions]
        self._index = 0

    # -- navigation
    @property
    def questions(self) -> tuple[Question, ...]:
        return tuple(s.question for s in self._slots)

    @property
    def total(self) -> int:
        return len(self._slots)

    @property
    def index(self) -> int:
        """0-based position of the current question (== total once past the last)."""
        return self._index

    def _item(self, i: int) -> Item:
        s = self._slots[i]
        return Item(question=s.question, index=i, total=self.total, lang=self.lang, options=s.options,
                    lines=s.lines, flagged=s.flagged, feedback=s.feedback)

    def current(self) -> Item | None:
        """The question on screen, or None past the last one."""
        return self._item(self._index) if self._index < self.total else None

    def next(self) -> Item | None:
        """Move to the next question (answered or not) and return it; None past the last."""
        self._index = min(self._index + 1, self.total)
        return self.current()

    def goto(self, index: int) -> Item:
        """Jump to question ``index`` (0-based), e.g. back to a flagged one.

        Raises:
            IndexError: outside 0..total-1.
        """
        if isinstance(index, bool) or not isinstance(index, int) or not 0 <= index < self.total:
            raise IndexError(f"no question {index!r} in this session (0..{self.total - 1})")
        self._index = index
        return self._item(index)

    def items(self) -> tuple[Item, ...]:
        """Every question of the session as an :class:`Item`."""
        return tuple(self._item(i) for i in range(self.total))

    # -- answering
    def _slot(self) -> _Slot:
        if self._index >= self.total:
            raise ValueError("the session is over: no current question (see results())")
        return self._slots[self._index]

    def _check_open(self) -> None:
        """Exams refuse answers once over."""

    def answer(self, response: Any) -> Feedback:
        """Answer the current question and return the feedback.

        Args:
            response: an option id (``"b"``) or a list of them (``multiple``); for ``order``, the
                display indices of :attr:`Item.lines` in the order you put them; for
                ``fix_code``, your code as a string.

        Raises:
            ValueError: a malformed answer, or a question already answered (the message names
                the question id); no current question.
            ExamOver: in an exam, after its time ran out or it was finished.
        """
        self._check_open()
        slot = self._slot()
        q = slot.question
        if slot.feedback is not None:
            raise ValueError(f"question {q.id} is already answered")
        feedback = self._score(slot, response)
        slot.feedback = feedback
        self._record(q, feedback)
        return feedback

    def answer_lines(self, lines: Sequence[int]) -> Feedback:
        """Answer the current ``spot_the_bug`` question by picking its faulty lines (1-based, of
        its code) instead of naming the anti-pattern.

        Scored like multiple choice: ``max(0, (right lines - wrong lines) / faulty lines)``,
        correct only for exactly ``bug_lines``. The feedback's ``response`` is ``{"lines": (...)}``,
        ``chosen`` the line numbers as text, ``bug_lines`` the right ones; every option is listed
        with its explanation, none chosen.

        Raises:
            ValueError: not a spot-the-bug question, bad line numbers, already answered (naming
                the question id).
            ExamOver: in an exam that is over.
        """
        self._check_open()
        slot = self._slot()
        q, lang = slot.question, self.lang
        if q.type != "spot_the_bug":
            raise ValueError(f"question {q.id} is a {q.type} question: only spot-the-bug questions take faulty lines")
        if slot.feedback is not None:
            raise ValueError(f"question {q.id} is already answered")
        size = len((q.code or "").rstrip("\n").split("\n"))
        if isinstance(lines, (str, bytes)) or not isinstance(lines, Iterable):
            raise ValueError(f"question {q.id}: give the faulty lines as a list of line numbers, not {lines!r}")
        picked = tuple(lines)
        if (not picked or any(isinstance(n, bool) or not isinstance(n, numbers.Integral) or not 1 <= n <= size
                              for n in picked) or len(set(picked)) != len(picked)):
            raise ValueError(f"question {q.id}: give distinct line numbers from 1 to {size}, got {list(picked)!r}")
        picked = tuple(int(n) for n in picked)
        right = set(q.bug_lines)
        hits = sum(1 for n in picked if n in right)
        correct = set(picked) == right
        score = 1.0 if correct else max(0.0, (hits - (len(picked) - hits)) / len(right))
        options = tuple(OptionFeedback(id=o.id, text=o.text.get(lang), correct=o.correct, chosen=False,
                                       explanation=o.explanation.get(lang), tag=o.tag) for o in slot.options)
        feedback = Feedback(question_id=q.id, type=q.type, lang=lang, correct=correct, score=score,
                            response={"lines": picked}, chosen=tuple(str(n) for n in picked),
                            right_answer=q.correct_ids, explanation=q.explanation.get(lang), options=options,
                            misconceptions=() if correct else (q.tags or ((q.bug_tag,) if q.bug_tag else ())),
                            bug_lines=q.bug_lines)
        slot.feedback = feedback
        self._record(q, feedback)
        return feedback

    def _record(self, q: Question, feedback: Feedback) -> None:
        if self.progress is not None:
            self.progress.record(q.id, topic=q.topic, correct=feedback.correct, score=feedback.score, tags=q.tags,
                                 misconceptions=feedback.misconceptions, mode=self.mode)

    def _score(self, slot: _Slot, response: Any) -> Feedback:
        q, lang = slot.question, self.lang
        common = {"question_id": q.id, "type": q.type, "lang": lang, "explanation": q.explanation.get(lang)}
        if q.type == "order":
            indices = _order_indices(q, response, len(slot.lines))
            arranged = tuple(slot.lines[i] for i in indices)
            positions = tuple(a == b for a, b in zip(arranged, q.lines))
            score = sum(positions) / len(positions)
            correct = all(positions)
            return Feedback(**common, correct=correct, score=1.0 if correct else score, response=indices,
                            chosen=arranged, right_answer=q.lines, positions=positions,
                            misconceptions=() if correct else q.tags)
        if q.type == "fix_code":
            score, report, message, diagnosed = grade_code(response, lang, question_id=q.id)
            correct = score == 1.0
            return Feedback(**common, correct=correct, score=score, response=response, chosen=(response,),
                            right_answer=(q.fixed_code or "",), report=report, message=message,
                            misconceptions=() if correct else (diagnosed or q.tags))
        picked = _choice_ids(q, response, multiple=q.type == "multiple")
        right = set(q.correct_ids)
        if q.type == "multiple":
            score = score_multiple(q, picked)
            correct = set(picked) == right
        else:
            correct = picked[0] in right
            score = 1.0 if correct else 0.0
        hit = tuple(dict.fromkeys(o.tag for o in slot.options if o.id in picked and not o.correct and o.tag))
        # Only a wrong pick reveals a misconception: missing a right option in a multiple-choice
        # question does not mean the learner believes the question's misconception.
        wrong_pick = any(o.id in picked and not o.correct for o in slot.options)
        options = tuple(OptionFeedback(id=o.id, text=o.text.get(lang), correct=o.correct, chosen=o.id in picked,
                                       explanation=o.explanation.get(lang), tag=o.tag) for o in slot.options)
        return Feedback(**common, correct=correct, score=score, response=picked, chosen=picked,
                        right_answer=q.correct_ids, options=options, bug_lines=q.bug_lines,
                        misconceptions=() if correct else (hit or (q.tags if wrong_pick else ())))

    def flag(self, flagged: bool = True) -> bool:
        """Flag the current question for review (``flag(False)`` clears it); returns the flag."""
        self._check_open()
        slot = self._slot()
        slot.flagged = bool(flagged)
        return slot.flagged

    # -- scores
    @property
    def answered(self) -> int:
        return sum(1 for s in self._slots if s.feedback is not None)

    @property
    def points(self) -> float:
        """The sum of the scores so far."""
        return sum(s.feedback.score for s in self._slots if s.feedback is not None)

    @property
    def score(self) -> float:
        """points / total (unanswered questions count 0); 0 for an empty session."""
        return self.points / self.total if self.total else 0.0

    @property
    def finished(self) -> bool:
        """Past the last question, or every question answered."""
        return self._index >= self.total or self.answered == self.total

    @property
    def flagged(self) -> tuple[str, ...]:
        """Ids of the flagged questions, in session order."""
        return tuple(s.question.id for s in self._slots if s.flagged)

    @property
    def feedback(self) -> tuple[Feedback | None, ...]:
        """The feedback of every question, None where unanswered."""
        return tuple(s.feedback for s in self._slots)

    def incorrect_ids(self) -> tuple[str, ...]:
        """Ids of the questions answered with a score below 1 (partial credit included)."""
        return tuple(s.question.id for s in self._slots if s.feedback is not None and s.feedback.score < 1)

    def retry_incorrect(self, **kwargs: Any) -> QuizSession:
        """A new practice session over the questions answered wrong here (same language and seed
        unless given)."""
        kwargs.setdefault("lang", self.lang)
        kwargs.setdefault("seed", self.seed)
        kwargs.setdefault("progress", self.progress)
        return QuizSession(self.bank, retry_incorrect_from=self, **kwargs)

    def _results(self, *, passed: bool | None = None, pass_mark: float | None = None, elapsed: float | None = None,
                 timed_out: bool = False) -> Results:
        by_topic: dict[str, TopicScore] = {}
        for topic in dict.fromkeys(s.question.topic for s in self._slots):
            slots = [s for s in self._slots if s.question.topic == topic]
            points = sum(s.feedback.score for s in slots if s.feedback is not None)
            by_topic[topic] = TopicScore(topic=topic, questions=len(slots),
                                         answered=sum(1 for s in slots if s.feedback is not None),
                                         points=points, score=points / len(slots))
        review = []
        for s in self._slots:
            f = s.feedback
            if f is not None and f.score >= 1:
                continue
            q = s.question
            options = f.options if f is not None else tuple(
                OptionFeedback(id=o.id, text=o.text.get(self.lang), correct=o.correct, chosen=False,
                               explanation=o.explanation.get(self.lang), tag=o.tag) for o in s.options)
            right = f.right_answer if f is not None else (
                q.correct_ids or q.lines or ((q.fixed_code,) if q.fixed_code else ()))
            review.append(ReviewItem(question=q, your_answer=None if f is None else f.chosen, right_answer=right,
                                     score=0.0 if f is None else f.score, explanation=q.explanation.get(self.lang),
                                     options=options, feedback=f, flagged=s.flagged))
        return Results(total=self.total, answered=self.answered, points=self.points, score=self.score,
                       by_topic=by_topic, review=tuple(review), flagged=self.flagged, passed=passed,
                       pass_mark=pass_mark, elapsed=elapsed, timed_out=timed_out)

    def results(self) -> Results:
        """Scores (overall and by topic), the review of wrong and unanswered questions, the flags."""
        return self._results()


def _topics(bank: Bank, topic: str | Iterable[str] | None) -> list[str]:
    if topic is None:
        return list(bank.topic_ids)
    wanted = [topic] if isinstance(topic, str) else list(topic)
    for t in wanted:
        bank.topic(t)  # raises ValueError naming the topics
    return wanted


def _retry_ids(bank: Bank, source: Any) -> tuple[list[str], bool]:
    """(question ids, keep their order) from a session, a progress store, or a list."""
    if isinstance(source, _Session):
        return [i for i in source.incorrect_ids() if i in bank], False
    if hasattr(source, "incorrect_ids") and callable(source.incorrect_ids):
        return [i for i in source.incorrect_ids() if i in bank], False
    if isinstance(source, (str, bytes)) or not isinstance(source, Iterable):
        raise ValueError("retry_incorrect_from takes a session, a progress store or a list of question ids, "
                         f"not {type(source).__name__}")
    ids = [getattr(x, "question_id", x) for x in source]
    for i in ids:
        if i not in bank:
            bank.question(i)  # KeyError naming the id
    return list(dict.fromkeys(ids)), True


class QuizSession(_Session):
    """A practice session over some topics of a bank.

    Args:
        bank: the loaded :class:`~agentlab.quiz.Bank`.
        topic: a topic id, a list of them, or None for every topic.
        lang: ``"en"`` or ``"es"`` (default: the learner's language).
        seed: the same seed gives the same questions in the same order with the same option order.
        n: how many questions (default: all; more than there are means all).
        retry_incorrect_from: keep only the questions answered wrong in a previous session, in a
            progress store (its :meth:`incorrect_ids`), or a list of question ids (or of
            ``store.due()`` items), which keeps its order.
        shuffle: shuffle the options (``order`` lines are always shuffled).
        progress: a :class:`~agentlab.quiz.ProgressStore` that records every answer.

    Raises:
        ValueError: an unknown topic or a bad ``n``.
        KeyError: an unknown id in ``retry_incorrect_from``.
    """

    def __init__(self, bank: Bank, *, topic: str | Iterable[str] | None = None, lang: str | None = None,
                 seed: Any = 0, n: int | None = None, retry_incorrect_from: Any = None, shuffle: bool = True,
                 progress: Any = None) -> None:
        topics = set(_topics(bank, topic))
        pool = [q for q in bank.questions if q.topic in topics]
        keep_order = False
        if retry_incorrect_from is not None:
            ids, keep_order = _retry_ids(bank, retry_incorrect_from)
            if keep_order:
                pool = [bank.question(i) for i in ids if bank.question(i).topic in topics]
            else:
                wanted = set(ids)
                pool = [q for q in pool if q.id in wanted]
        if n is not None and (isinstance(n, bool) or not isinstance(n, int) or n < 0):
            raise ValueError(f"n must be a whole number >= 0 or None, not {n!r}")
        k = len(pool) if n is None else min(n, len(pool))
        chosen = pool[:k] if keep_order else random.Random(seed).sample(pool, k)
        self.topics = tuple(t for t in bank.topic_ids if t in topics)
        super().__init__(bank, chosen, lang=lang, seed=seed, shuffle=shuffle, progress=progress)


def apportion(n: int, weights: Mapping[str, float], capacity: Mapping[str, int], seed: Any = 0) -> dict[str, int]:
    """Split ``n`` questions among topics by weight (largest remainders; ties by the seed),
    never giving a topic more than its ``capacity``: the surplus goes to the others by weight.

    Raises:
        ValueError: for negative weights, no positive weight, or ``n`` above the capacity of the
            weighted topics.
    """
    for topic, w in weights.items():
        if isinstance(w, bool) or not isinstance(w, numbers.Real) or w < 0 or not math.isfinite(w):
            raise ValueError(f"the weight of topic {topic!r} must be a number >= 0, not {w!r}")
    active = [t for t, w in weights.items() if w > 0]
    if n and not active:
        raise ValueError("give at least one topic a positive weight")
    room = sum(capacity[t] for t in active)
    if n > room:
        raise ValueError(f"an exam of {n} questions needs more than the {room} questions of its topics "
                         f"({', '.join(f'{t}: {capacity[t]}' for t in active)})")
    rng = random.Random(f"{seed}:apportion")
    tiebreak = {t: rng.random() for t in active}
    alloc = dict.fromkeys(weights, 0)
    left = n
    open_ = [t for t in active if capacity[t] > 0]
    while left > 0:
        total = sum(weights[t] for t in open_)
        quota = {t: left * weights[t] / total for t in open_}
        seats = {t: int(quota[t]) for t in open_}
        extra = left - sum(seats.values())
        for t in sorted(open_, key=lambda t: (-(quota[t] - seats[t]), tiebreak[t]))[:extra]:
            seats[t] += 1
        for t in open_:
            give = min(seats[t], capacity[t] - alloc[t])
            alloc[t] += give
            left -= give
        open_ = [t for t in open_ if alloc[t] < capacity[t]]
    return alloc


class ExamSession(_Session):
    """An exam: ``n`` questions drawn by topic weights, a time limit and a pass mark.

    Args:
        bank: the loaded bank.
        n: how many questions (default: every question of the weighted topics).
        weights: ``{topic: weight}``; the questions are apportioned by largest remainders (ties
            broken by the seed) and a topic never gets more than it has. Default: every topic,
            weighted by its number of questions. Topics left out or weighted 0 are not asked.
        time_limit: seconds from the session's creation; after it, answers raise
            :class:`ExamOver` and the exam is over. None: no limit.
        pass_mark: the fraction of the total score needed to pass (default 0.7).
        clock: seconds as a float, monotonic (default :func:`time.monotonic`); inject a fake in
            tests.
        lang, seed, shuffle, progress: as in :class:`QuizSession`.

    Raises:
        ValueError: unknown topics, bad weights, ``n``, ``time_limit`` or ``pass_mark``.
    """

    mode = "exam"

    def __init__(self, bank: Bank, *, n: int | None = None, weights: Mapping[str, float] | None = None,
                 time_limit: float | None = None, pass_mark: float = 0.7, lang: str | None = None, seed: Any = 0,
                 clock: Callable[[], float] = time.monotonic, shuffle: bool = True, progress: Any = None) -> None:
        if weights is None:
            weights = {t.id: len(t.questions) for t in bank.topics}
        weights = dict(weights)
        for t in weights:
            bank.topic(t)
        capacity = {t: len(bank.topic(t).questions) for t in weights}
        if n is None:
            n = sum(capacity[t] for t, w in weights.items() if w)
        if isinstance(n, bool) or not isinstance(n, int) or n < 0:
            raise ValueError(f"n must be a whole number >= 0 or None, not {n!r}")
        if time_limit is not None and (isinstance(time_limit, bool) or not isinstance(time_limit, numbers.Real)
                                       or not time_limit > 0):
            raise ValueError(f"time_limit must be a number of seconds > 0 or None, not {time_limit!r}")
        if isinstance(pass_mark, bool) or not isinstance(pass_mark, numbers.Real) or not 0 <= pass_mark <= 1:
            raise ValueError(f"pass_mark is a fraction between 0 and 1, not {pass_mark!r}")
        self.weights = weights
        self.allocation = apportion(n, weights, capacity, seed)
        rng = random.Random(seed)
        chosen: list[Question] = []
        for t in bank.topic_ids:
            if self.allocation.get(t):
                chosen.extend(rng.sample(list(bank.topic(t).questions), self.allocation[t]))
        rng.shuffle(chosen)
        self.time_limit = None if time_limit is None else float(time_limit)
        self.pass_mark = float(pass_mark)
        self._clock = clock
        self._finished_at: float | None = None
        self._timed_out = False
        super().__init__(bank, chosen, lang=lang, seed=seed, shuffle=shuffle, progress=progress)
        self.started_at = clock()

    @property
    def elapsed(self) -> float:
        """Seconds since the start (frozen once over; at most the time limit)."""
        end = self._finished_at if self._finished_at is not None else self._clock()
        spent = end - self.started_at
        return min(spent, self.time_limit) if self.time_limit is not None else spent

    @property
    def time_left(self) -> float | None:
        """Seconds left (0 once over), or None without a time limit."""
        if self.time_limit is None:
            return None
        return 0.0 if self.over else max(0.0, self.time_limit - self.elapsed)

    @property
    def timed_out(self) -> bool:
        """True when the time limit ended the exam."""
        return self.over and self._timed_out

    @property
    def over(self) -> bool:
        """True once finished or past the time limit."""
        if self._finished_at is None and self.time_limit is not None and self._clock() - self.started_at > self.time_limit:
            self._finished_at = self.started_at + self.time_limit
            self._timed_out = True
        return self._finished_at is not None

    def _check_open(self) -> None:
        if self.over:
            if self._timed_out:
                raise ExamOver(f"the exam is over: its time limit of {self.time_limit:g} s ran out; "
                               "no more answers (see results())")
            raise ExamOver("the exam is over: it was finished; no more answers (see results())")

    def finish(self) -> Results:
        """End the exam now (if still open) and return the results."""
        if not self.over:
            self._finished_at = self._clock()
        return self.results()

    def results(self) -> Results:
        """The results so far (final once :attr:`over`): passed is score >= pass_mark."""
        return self._results(passed=self.score >= self.pass_mark, pass_mark=self.pass_mark, elapsed=self.elapsed,
                             timed_out=self.timed_out)
