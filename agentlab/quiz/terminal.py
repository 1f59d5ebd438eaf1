"""The terminal front end of the quiz: ``agentlab quiz [--topic T] [--lang es] [--exam]``.

Renders each question with rich (the prompt as Markdown, code highlighted with line numbers,
the API response of a next-action question as JSON, options labelled a, b, c...) and reads the
answers one line at a time from a text stream (stdin by default), so a session can be typed or
piped::

    from agentlab.quiz.terminal import run
    run(topic="stop_reasons", lang="es", seed=3)           # reads stdin, prints to stdout

Answers: a letter (``b``); letters for "choose every" questions (``a,c``); for spot-the-bug a
letter or the faulty lines (``lines 12,13``); for order the line numbers in order (``3 1 2 4``);
for fix-the-code the path of a file with the fixed loop (``save FILE`` writes the code to edit).
Commands: ``?`` help, ``f`` flag for review, ``s`` skip, ``q`` quit. End of input ends the
session cleanly with its summary. Practice shows the feedback after each answer; an exam shows
it in the final review, with the score by topic and pass or fail. Tests inject ``input_fn``
(called with the prompt, returns a line, raises :class:`EOFError` at the end) and ``console``.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any, Callable, TextIO

from rich.console import Console
from rich.markdown import Markdown
from rich.rule import Rule
from rich.syntax import Syntax
from rich.table import Table
from rich.text import Text

from .._i18n import language
from ._engine import ExamOver, ExamSession, Feedback, Item, Results
from ._ui import (LETTERS, TEXT, answer_quietly, build_session, fmt_pct, fmt_points, fmt_time,
                  is_lines_answer, letters, misconception_names, option_statuses, order_example, plain,
                  topic_title, verdict,
                  verdict_text)

__all__ = ["TerminalQuiz", "open_quiz", "parse_answer", "run"]

_COMMANDS = {
    "?": "help", "h": "help", "help": "help", "ayuda": "help",
    "f": "flag", "flag": "flag", "marcar": "flag",
    "s": "skip", "skip": "skip", "saltar": "skip",
    "q": "quit", "quit": "quit", "exit": "quit", "salir": "quit",
}
_LINES = re.compile(r"^(?:lines?|l[ií]neas?|l)\s*[:=]?\s*(.*)$", re.IGNORECASE)
_YES = {"en": {"y", "yes"}, "es": {"s", "si", "sí", "y", "yes"}}
_NO = {"n", "no"}
_STYLE = {"right": "bold green", "partly": "bold yellow", "wrong": "bold red"}
_MARK = {"right": "✔", "partly": "◐", "wrong": "✘"}


class _Stop(Exception):
    """End the session now (quit or end of input)."""

    def __init__(self, why: str) -> None:
        self.why = why
        super().__init__(why)


# --------------------------------------------------------------------------------- parsing


def parse_answer(item: Item, text: str, lang: str | None = None) -> tuple[str, Any]:
    """What a typed line means for this question: ``(kind, value)``.

    Kinds: ``"help"``, ``"flag"``, ``"skip"``, ``"quit"`` (value None); ``"answer"`` (the value
    to pass to :meth:`QuizSession.answer`: an option id, a list of them, display indices for
    order); ``"lines"`` (faulty line numbers, spot-the-bug); ``"file"`` (a path, fix-the-code);
    ``"save"`` (a path to write the code to); ``"error"`` (the message to show, then ask again).
    """
    w = TEXT[language(lang)]
    raw = text.strip()
    low = raw.lower()
    has_f = item.type in ("single", "multiple", "next_action", "spot_the_bug") and len(item.options) > 5
    command = _COMMANDS.get(low)
    if command and not (low == "f" and has_f):
        return command, None
    if not raw:
        return "error", w["err_empty"]
    if item.type == "fix_code":
        if low.startswith(("save ", "guardar ")):
            return "save", raw.split(None, 1)[1].strip().strip("\"'")
        return "file", raw.strip("\"'")
    if item.type == "order":
        size = len(item.lines)
        parts = [p for p in re.split(r"[\s,;]+", raw) if p]
        if not all(p.isdigit() for p in parts) or sorted(int(p) for p in parts) != list(range(1, size + 1)):
            return "error", w["err_order"].format(n=size, example=order_example(size))
        return "answer", [int(p) - 1 for p in parts]
    if item.type == "spot_the_bug":
        match = _LINES.match(raw)
        body = match.group(1) if match else raw
        parts = [p for p in re.split(r"[\s,;]+", body) if p]
        if parts and all(p.isdigit() for p in parts):
            size = len((item.code or "").rstrip("\n").split("\n"))
            nums = [int(p) for p in parts]
            if any(not 1 <= n <= size for n in nums):
                return "error", w["err_lines"].format(n=size, example="3,4" if size >= 4 else "1")
            if len(set(nums)) != len(nums):
                return "error", w["err_twice"].format(x=next(p for p in parts if parts.count(p) > 1))
            return "lines", nums
        if match and low.split()[0] in ("line", "lines", "linea", "línea", "lineas", "líneas"):
            size = len((item.code or "").rstrip("\n").split("\n"))
            return "error", w["err_lines"].format(n=size, example="3,4" if size >= 4 else "1")
    labels = letters(item)
    by_letter = {v: k for k, v in labels.items()}
    last = LETTERS[len(item.options) - 1]
    picked = [p for p in re.split(r"[\s,;]+", low) if p]
    for p in picked:
        if p.rstrip(")") not in by_letter:
            return "error", w["err_letter"].format(x=p, last=last)
    picked = [p.rstrip(")") for p in picked]
    for p in picked:
        if picked.count(p) > 1:
            return "error", w["err_twice"].format(x=p)
    if item.type != "multiple":
        if len(picked) != 1:
            return "error", w["err_one"]
        return "answer", by_letter[picked[0]]
    return "answer", [by_letter[p] for p in picked]


def _stdin_reader(console: Console, stream: TextIO | None = None) -> Callable[[str], str]:
    """Print the prompt, read one line of ``stream`` (default stdin); EOFError at its end. When
    the input is not a terminal, the line read is echoed so the transcript reads naturally."""

    def read(prompt: str) -> str:
        source = stream if stream is not None else sys.stdin
        if source is sys.stdin and getattr(source, "isatty", lambda: False)():
            return console.input(Text(prompt))  # line editing and history on a terminal; EOFError on Ctrl-D
        console.print(prompt, end="", markup=False, highlight=False)
        console.file.flush()
        line = source.readline()
        if not line:
            console.print()
            raise EOFError
        interactive = getattr(source, "isatty", lambda: False)()
        if not interactive:
            console.print(line.rstrip("\n"), markup=False, highlight=False)
        return line.rstrip("\r\n")

    return read


# --------------------------------------------------------------------------------- the session


class TerminalQuiz:
    """Runs one session (and its "retry incorrect only" follow-ups) in a terminal.

    Args:
        session: a :class:`QuizSession` or :class:`ExamSession`.
        console: where to print (default: a rich console on stdout).
        input_fn: reads one answer: called with the prompt, returns the line typed, raises
            :class:`EOFError` at the end of input (default: stdin).
        bank: for topic titles (default: the session's bank).
        seed: shown in the header so the learner can replay the same questions.
    """

    def __init__(self, session: Any, *, console: Console | None = None, input_fn: Callable[[str], str] | None = None,
                 seed: Any = None) -> None:
        self.session = session
        self.lang = session.lang
        self.w = TEXT[self.lang]
        self.console = console or Console(highlight=False)
        self.input_fn = input_fn or _stdin_reader(self.console)
        self.seed = seed
        self.eof = False
        self.quit = False
        self.review = False
        self._store: Any = None

    def close(self) -> None:
        """Close the progress store if this front end opened it."""
        if self._store is not None:
            self._store.close()
            self._store = None

    # ---------------------------------------------------------------- printing

    @property
    def exam(self) -> bool:
        return isinstance(self.session, ExamSession)

    def _p(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("highlight", False)
        self.console.print(*args, **kwargs)

    def _text(self, text: str, style: str | None = None) -> None:
        self._p(Text(text, style=style or ""))

    def _code(self, code: str, lexer: str = "python", *, numbers: bool = True, highlight: Any = None) -> None:
        self._p(Syntax(code.rstrip("\n"), lexer, line_numbers=numbers, word_wrap=True, theme="ansi_dark",
                       background_color="default", highlight_lines=set(highlight or ())))

    def _intro(self) -> None:
        s = self.session
        mode = self.w["exam" if self.exam else "practice"]
        self._p(Rule(f"{self.w['title']} · {mode} · {self.w['questions'].format(n=s.total)}"))
        if self.seed is not None:
            self._text(self.w["seed"].format(seed=self.seed), "dim")
        if self.exam and s.time_limit is not None:
            self._text(self.w["time_left"].format(time=fmt_time(s.time_limit)))
        self._text(self.w["help"], "dim")

    def _header(self, item: Item) -> None:
        s = self.session
        q = item.question
        parts = [self.w["question_n"].format(n=item.number, total=item.total), topic_title(s.bank, q.topic, self.lang),
                 self.w["difficulty"].format(d=q.difficulty)]
        if item.flagged:
            parts.append(self.w["flagged"])
        if self.exam and s.time_left is not None:
            parts.append(self.w["time_left"].format(time=fmt_time(s.time_left)))
        self._p()
        self._p(Rule(" · ".join(parts), align="left"))

    def show(self, item: Item) -> None:
        """Print the question: prompt, response, code or lines, options and a hint."""
        self._header(item)
        self._p(Markdown(item.prompt))
        q = item.question
        if q.response is not None:
            self._p()
            self._text(self.w["response"], "bold")
            self._code(json.dumps(q.response, indent=2, ensure_ascii=False), "json", numbers=False)
        if item.type == "order":
            self._p()
            self._code("\n".join(item.lines))
        elif item.code:
            self._p()
            self._code(item.code)
        if item.options:
            self._p()
            for o in item.options:
                self._p(Markdown(f"**{letters(item)[o.id]})** {item.option_text(o)}"))
        self._p()
        hint = {"multiple": "hint_multiple", "spot_the_bug": "hint_spot", "order": "hint_order",
                "fix_code": "hint_fix"}.get(item.type, "hint_single")
        self._text(self.w[hint].format(example=order_example(len(item.lines))), "dim")
        if len(item.options) > 5:
            self._text(self.w["hint_f_option"], "dim")

    def _verdict(self, feedback: Feedback) -> None:
        v = verdict(feedback)
        self._text(f"{_MARK[v]} {verdict_text(feedback, self.lang)}", _STYLE[v])

    def show_feedback(self, item: Item, feedback: Feedback, *, verdict_line: bool = True) -> None:
        """Print the verdict and every explanation of an answered question."""
        w = self.w
        if verdict_line:
            self._verdict(feedback)
        if feedback.type == "spot_the_bug":
            if is_lines_answer(feedback):
                self._text(f"{w['your_lines']}: {', '.join(feedback.chosen)}")
            self._text(f"{w['bug_lines']}: {', '.join(map(str, feedback.bug_lines))}", "bold")
            self._code(item.code or "", highlight=feedback.bug_lines)
        if feedback.options:
            labels = letters(item)
            for o, status in option_statuses(feedback, w):
                self._p(Markdown(f"**{labels.get(o.id, o.id)})** ({status}) {o.text}  \n{o.explanation}"))
        if feedback.type == "order":
            for i, ok in enumerate(feedback.positions, 1):
                self._text(("✔ " if ok else "✘ ") + w["position_ok" if ok else "position_bad"].format(i=i),
                           "green" if ok else "red")
            if not feedback.correct:
                self._text(w["right_order"] + ":", "bold")
                self._code("\n".join(feedback.right_answer))
        if feedback.type == "fix_code":
            self._text(f"{w['grader']}: {feedback.message}")
            if not feedback.correct and feedback.right_answer and feedback.right_answer[0]:
                self._text(w["fixed"] + ":", "bold")
                self._code(feedback.right_answer[0])
        for tag, name in misconception_names(feedback.misconceptions, self.lang):
            self._text(f"{w['misconception']}: {name} ({tag})", "yellow")
        self._p(Markdown(f"**{w['why']}:** {feedback.explanation}"))

    def _score_line(self) -> None:
        s = self.session
        if self.exam:
            self._text(self.w["score_exam"].format(answered=s.answered, total=s.total), "bold")
        else:
            self._text(self.w["score"].format(points=fmt_points(s.points), answered=s.answered,
                                              pct=fmt_pct(s.points / s.answered if s.answered else 0)), "bold")

    # ---------------------------------------------------------------- reading

    def _read(self, prompt: str) -> str:
        try:
            return self.input_fn(prompt)
        except EOFError:
            self.eof = True
            raise _Stop("eof") from None
        except KeyboardInterrupt:
            self._p()
            self.quit = True
            raise _Stop("quit") from None

    def _yes(self, prompt: str) -> bool:
        while True:
            answer = self._read(prompt).strip().lower()
            if answer in _YES[self.lang]:
                return True
            if answer in _NO or answer in ("q", "quit", "salir"):
                return False
            self._text(self.w["yes_no"], "yellow")

    def ask(self, item: Item) -> Feedback | None:
        """Ask the current question until it is answered, skipped or the session stops; returns
        the feedback, or None when skipped."""
        w = self.w
        s = self.session
        while True:
            kind, value = parse_answer(item, self._read(w["prompt"]), self.lang)
            if kind == "help":
                self._text(w["help"])
                continue
            if kind == "quit":
                self.quit = True
                raise _Stop("quit")
            if kind == "skip":
                self._text(w["skipped"], "dim")
                return None
            if kind == "error":
                self._text(value, "yellow")
                continue
            if kind == "flag":
                try:
                    flagged = s.flag(not s.current().flagged)
                except ExamOver:
                    self._text(w["time_up"], "bold red")
                    raise _Stop("time") from None
                self._text(w["flag_on" if flagged else "flag_off"])
                continue
            if kind == "save":
                path = Path(value).expanduser()
                try:
                    path.write_text(item.code or "", encoding="utf-8")
                except OSError as exc:
                    self._text(w["err_save"].format(path=path, error=exc), "yellow")
                    continue
                self._text(w["saved"].format(path=path))
                continue
            try:
                if kind == "file":
                    path = Path(value).expanduser()
                    if not path.is_file():
                        self._text(w["err_no_file"].format(path=path), "yellow")
                        continue
                    try:
                        code = path.read_text(encoding="utf-8")
                    except (OSError, UnicodeDecodeError) as exc:
                        self._text(w["err_read"].format(path=path, error=exc), "yellow")
                        continue
                    self._text(w["grading"], "dim")
                    return answer_quietly(s, code)
                if kind == "lines":
                    return s.answer_lines(value)
                return s.answer(value)
            except ExamOver:
                self._text(w["time_up"], "bold red")
                raise _Stop("time") from None
            except ValueError as exc:  # the engine refused the answer: say why, ask again
                self._text(str(exc), "yellow")

    def _play(self, indices: list[int]) -> list[int]:
        """Ask the questions at ``indices``; returns those left unanswered."""
        s = self.session
        left = []
        for i in indices:
            if self.exam and s.over:
                self._text(self.w["time_up"], "bold red")
                raise _Stop("time")
            item = s.goto(i)
            if item.feedback is not None:
                continue
            self.show(item)
            feedback = self.ask(item)
            if feedback is None:
                left.append(i)
                continue
            if self.exam:
                self._text(self.w["recorded"])
            else:
                self.show_feedback(s.current(), feedback)
            self._score_line()
        return left

    # ---------------------------------------------------------------- summary

    def summary(self, results: Results) -> None:
        """Print the score (by topic for an exam), pass or fail, the review and the flags."""
        w = self.w
        s = self.session
        self._p()
        self._p(Rule(w["exam_results" if self.exam else "summary"]))
        self._text(w["final_score"].format(points=fmt_points(results.points), total=results.total,
                                           pct=fmt_pct(results.score), answered=results.answered), "bold")
        if self.exam:
            if results.timed_out:
                self._text(w["timed_out"], "bold red")
            if s.time_limit is not None and results.elapsed is not None:
                self._text(w["time_used"].format(time=fmt_time(results.elapsed)))
            mark = fmt_pct(results.pass_mark or 0)
            self._text(("✔ " + w["passed"] if results.passed else "✘ " + w["failed"]).format(mark=mark),
                       "bold green" if results.passed else "bold red")
            table = Table(title=w["by_topic"], title_justify="left")
            for col in ("topic", "col_questions", "col_answered", "col_points", "col_score"):
                table.add_column(w[col], justify="left" if col == "topic" else "right")
            for t in results.by_topic.values():
                table.add_row(topic_title(s.bank, t.topic, self.lang), str(t.questions), str(t.answered),
                              fmt_points(t.points), fmt_pct(t.score))
            self._p(table)
        items = {i.id: i for i in s.items()}
        if results.total:
            self._p()
            self._p(Rule(w["review"], align="left"))
            if not results.review:
                self._text(w["review_none"])
        for r in results.review:
            item = items[r.question.id]
            self._p()
            self._text(f"{w['question_n'].format(n=item.number, total=item.total)} · {r.question.id}", "bold")
            self._p(Markdown(r.question.prompt.get(self.lang)))
            if r.feedback is None:
                self._text(f"{w['your_answer']}: {w['unanswered']}")
            else:
                self._text(f"{w['your_answer']}: {self._readable(item, r.your_answer or (), r.feedback)} · "
                           f"{verdict_text(r.feedback, self.lang)}")
            if self.exam and r.feedback is not None:  # an exam showed no feedback yet: show it all now
                self.show_feedback(item, r.feedback, verdict_line=False)
                continue
            if r.question.type == "order":
                self._text(w["right_order"] + ":")
                self._code("\n".join(r.right_answer))
            elif r.question.type == "fix_code":
                self._text(w["fixed"] + ":")
                self._code(r.right_answer[0] if r.right_answer else "")
            else:
                self._text(f"{w['right_answer']}: {self._readable(item, r.right_answer)}")
                if r.question.type == "spot_the_bug":
                    self._text(f"{w['bug_lines']}: {', '.join(map(str, r.question.bug_lines))}")
            self._p(Markdown(f"**{w['why']}:** {r.explanation}"))
        if results.flagged:
            self._p()
            self._text(w["flagged_list"] + ":", "bold")
            for qid in results.flagged:
                item = items[qid]
                self._text(f"  {w['question_n'].format(n=item.number, total=item.total)} · {qid}")

    def _readable(self, item: Item, answer: tuple[str, ...], feedback: Feedback | None = None) -> str:
        if is_lines_answer(feedback):
            return f"{self.w['your_lines'].lower()} {', '.join(answer)}"
        if item.type == "order":
            return " / ".join(a.strip() for a in answer)
        if item.type == "fix_code":
            return feedback.message if feedback is not None else ""
        labels = letters(item)
        texts = {o.id: plain(item.option_text(o)) for o in item.options}
        return "; ".join(f"{labels.get(a, a)}) {texts.get(a, '')}".strip() for a in answer)

    # ---------------------------------------------------------------- run

    def run(self) -> Results:
        """Play the session, print the summary, offer "retry incorrect only"; returns the results
        of the last session played."""
        while True:
            results = self._run_one()
            s = self.session
            if self.eof or self.quit or not s.incorrect_ids():
                return results
            try:
                if not self._yes(self.w["retry"]):
                    return results
            except _Stop:
                return results
            self.session = s.retry_incorrect()
            self._text(self.w["retrying"].format(n=self.session.total), "bold")

    def _run_one(self) -> Results:
        s = self.session
        self._intro()
        if s.total == 0:
            self._text(self.w["no_due" if self.review else "empty"])
            return s.results()
        try:
            left = self._play(list(range(s.total)))
            if left and self._yes(self.w["go_back"].format(n=len(left))):
                self._play(left)
        except _Stop:
            pass
        results = s.finish() if self.exam else s.results()
        self.summary(results)
        return results


def open_quiz(*, topic: Any = None, lang: str | None = None, exam: bool = False, n: int | None = None,
              seed: Any = 0, user: str | None = None, data_dir: Any = None, progress: Any = None, bank: Any = None,
              time_limit: float | None = None, pass_mark: float = 0.7, review: bool = False,
              console: Console | None = None, input_fn: Callable[[str], str] | None = None) -> TerminalQuiz:
    """Build the session (and open the progress store) without playing it: see :func:`run`.

    Raises:
        ValueError: an unknown topic or bad numbers. BankError: a broken bank.
    """
    from ._bank import load_bank

    lang = language(lang)
    console = console or Console(highlight=False)
    if bank is None or isinstance(bank, (str, Path)):
        bank = load_bank(bank)
    owned = progress is None
    if progress is None:
        from ._progress import ProgressError, ProgressStore

        try:
            progress = ProgressStore(data_dir, user=user)
        except (ProgressError, OSError, ValueError) as exc:
            console.print(Text(TEXT[lang]["progress_off"].format(error=exc), style="yellow"), highlight=False)
            progress = owned = None
    elif progress is False:
        progress = None
    try:
        session = build_session(bank, topic=topic, lang=lang, exam=exam, seed=seed, n=n, progress=progress,
                                time_limit=time_limit, pass_mark=pass_mark, review=review)
    except Exception:
        if owned:
            progress.close()
        raise
    quiz = TerminalQuiz(session, console=console, input_fn=input_fn, seed=seed)
    quiz.review = review
    quiz._store = progress if owned else None
    return quiz


def run(*, topic: Any = None, lang: str | None = None, exam: bool = False, n: int | None = None, seed: Any = 0,
        user: str | None = None, data_dir: Any = None, progress: Any = None, bank: Any = None,
        time_limit: float | None = None, pass_mark: float = 0.7, review: bool = False,
        console: Console | None = None, input_fn: Callable[[str], str] | None = None) -> Results:
    """Build a session and play it in the terminal; returns its results.

    Args:
        topic: a topic id, ``"a,b"`` or a list (default: every topic).
        lang: ``"en"`` or ``"es"`` (default: the learner's language).
        exam: an exam (score by topic, pass mark, feedback in the final review) instead of practice.
        n: how many questions (default 10 for practice, 20 for an exam).
        seed: the same seed gives the same questions in the same order.
        user, data_dir: whose progress and where (see :class:`ProgressStore`); ``progress``: a
            store to use instead, or False to record nothing.
        bank: a loaded :class:`Bank` or a path (default: the course's ``quizzes/``).
        time_limit: seconds (exams); pass_mark: fraction to pass (exams).
        review: practise the questions due for review (spaced repetition).
        console, input_fn: where to print and how to read (tests).

    Raises:
        ValueError: an unknown topic or bad numbers. BankError: a broken bank.
    """
    quiz = open_quiz(topic=topic, lang=lang, exam=exam, n=n, seed=seed, user=user, data_dir=data_dir,
                     progress=progress, bank=bank, time_limit=time_limit, pass_mark=pass_mark, review=review,
                     console=console, input_fn=input_fn)
    try:
        return quiz.run()
    finally:
        quiz.close()
