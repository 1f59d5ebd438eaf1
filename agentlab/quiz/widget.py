"""The Jupyter front end of the quiz: ``agentlab.quiz(topic=..., lang="es", exam=False)``.

::

    import agentlab
    agentlab.quiz(topic="stop_reasons", lang="es")      # the app shows below the cell

One ipywidgets app: the question (HTML), its code highlighted with pygments, the answer
controls (radio buttons for one answer, checkboxes for several, a reorderable list for an
order question, a code editor for a fix-the-code one), the buttons Check, Next, Flag and
Finish, the feedback and the score. Every control has a visible text label and every button a
tooltip; the verdict is written out ("Right", "Wrong"), never shown by colour alone.

What a notebook stores as the cell's output is deterministic (``text/plain`` is a fixed
summary, no timestamps or random ids in any HTML; the same seed gives the same questions), so
nbval can compare it. The callbacks are plain methods, so tests drive the app headlessly::

    app = quiz(topic="history", seed=1)
    app.choice.value = app.item.options[0].id        # or app.checkboxes, app.order_list, app.code_area
    app.check()                                       # same as app.check_button.click()
    app.feedback_html.value, app.score_html.value
    app.next()
"""

from __future__ import annotations

import html
import json
import warnings
from typing import Any

import ipywidgets as widgets
from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import JsonLexer, PythonLexer

from .._i18n import language
from ._engine import ExamOver, ExamSession, Feedback, Item, Results
from ._ui import (TEXT, answer_quietly, build_session, fmt_pct, fmt_points, fmt_time, is_lines_answer,
                  letters, misconception_names, option_statuses, plain, topic_title, verdict, verdict_text)

__all__ = ["QuizApp", "quiz"]

_CSS = """<style>
.agentlab-quiz .widget-radio-box label, .agentlab-quiz .widget-checkbox label {white-space: normal; height: auto;}
.agentlab-quiz .widget-radio-box label {display: flex; align-items: flex-start; gap: .4em;}
.agentlab-quiz .widget-radio-box label input {order: -1; float: none; margin-top: .25em;}
.agentlab-quiz textarea, .agentlab-quiz select {font-family: monospace;}
.agentlab-quiz .agentlab-code pre {margin: 0; padding: .4em; overflow-x: auto; white-space: pre; color: #1f1f1f;}
</style>"""
_MARK = {"right": "✔", "partly": "◐", "wrong": "✘"}
_COLOUR = {"right": "#116611", "partly": "#8a6100", "wrong": "#b00020"}
_NBSP = "\u00a0"


def _markdown(text: str) -> str:
    """Markdown to HTML (raw HTML in the text is escaped; code fences highlighted)."""
    from markdown_it import MarkdownIt

    def fence(code: str, lang: str, _attrs: Any) -> str:
        return _code_html(code, lang or "python", numbers=False)

    md = MarkdownIt("commonmark", {"html": False, "highlight": fence})
    return md.render(text).strip()


def _code_html(code: str, lang: str = "python", *, numbers: bool = True, marked: Any = ()) -> str:
    lexer = JsonLexer() if lang == "json" else PythonLexer()
    formatter = HtmlFormatter(noclasses=True, linenos="inline" if numbers else False, hl_lines=list(marked or ()),
                              style="default")
    return f'<div class="agentlab-code" style="color:#1f1f1f">{highlight(code.rstrip(chr(10)) + chr(10), lexer, formatter)}</div>'


def _select_label(number: int, line: str, width: int) -> str:
    """``" 3 │    return x"``: a line of an order question for a Select (indentation kept)."""
    body = line.replace("\t", "    ")
    indent = len(body) - len(body.lstrip(" "))
    return f"{number:>{width}} │ " + _NBSP * indent + body.lstrip(" ")


class QuizApp(widgets.VBox):
    """The quiz app: one widget tree over a :class:`QuizSession` or :class:`ExamSession`.

    Attributes (the controls, for tests and for keyboard users alike):
        header_html, question_html, response_html, code_html: what the question shows.
        choice: RadioButtons (single, next_action, spot_the_bug); checkboxes: a list of
            Checkbox (multiple); lines_text: Text, the faulty lines (spot_the_bug);
            order_list: Select with up_button/down_button (order); code_area: Textarea with
            reset_button (fix_code). Each is None when the question does not use it.
        check_button, next_button, flag_button, finish_button, retry_button.
        feedback_html, score_html, summary_html.
    """

    def __init__(self, session: Any, *, seed: Any = 0, progress: Any = None, **kwargs: Any) -> None:
        self.session = session
        self.seed = seed
        self.progress = progress
        self.lang = session.lang
        self.w = TEXT[self.lang]
        self.results: Results | None = None
        w = self.w
        self.style_html = widgets.HTML(_CSS)
        self.header_html = widgets.HTML()
        self.question_html = widgets.HTML()
        self.response_html = widgets.HTML()
        self.code_html = widgets.HTML()
        self.answer_box = widgets.VBox()
        self.check_button = widgets.Button(description=w["check"], tooltip=w["check_tip"], icon="check",
                                           button_style="primary")
        self.next_button = widgets.Button(description=w["next"], tooltip=w["next_tip"], icon="arrow-right")
        self.flag_button = widgets.Button(description=w["flag"], tooltip=w["flag_tip"], icon="flag")
        self.finish_button = widgets.Button(description=w["finish"], tooltip=w["finish_tip"], icon="stop")
        self.retry_button = widgets.Button(description=w["retry_button"], tooltip=w["retry_tip"], icon="repeat",
                                           layout=widgets.Layout(display="none", width="auto"))
        self.check_button.on_click(lambda _b: self.check())
        self.next_button.on_click(lambda _b: self.next())
        self.flag_button.on_click(lambda _b: self.flag())
        self.finish_button.on_click(lambda _b: self.finish())
        self.retry_button.on_click(lambda _b: self.retry())
        self.buttons = widgets.HBox([self.check_button, self.next_button, self.flag_button, self.finish_button,
                                     self.retry_button])
        self.feedback_html = widgets.HTML()
        self.score_html = widgets.HTML()
        self.summary_html = widgets.HTML()
        self.choice: widgets.RadioButtons | None = None
        self.checkboxes: list[widgets.Checkbox] | None = None
        self.lines_text: widgets.Text | None = None
        self.order_list: widgets.Select | None = None
        self.up_button: widgets.Button | None = None
        self.down_button: widgets.Button | None = None
        self.code_area: widgets.Textarea | None = None
        self.reset_button: widgets.Button | None = None
        self._order: list[int] = []
        super().__init__(children=[self.style_html, self.header_html, self.question_html, self.response_html,
                                   self.code_html, self.answer_box, self.buttons, self.feedback_html, self.score_html,
                                   self.summary_html], **kwargs)
        self.add_class("agentlab-quiz")
        self._render()

    # ---------------------------------------------------------------- state

    @property
    def exam(self) -> bool:
        return isinstance(self.session, ExamSession)

    @property
    def item(self) -> Item | None:
        """The question on screen (None once the session is over)."""
        return None if self.results is not None else self.session.current()

    def __repr__(self) -> str:
        s = self.session
        return self.w["widget_repr"].format(mode=self.w["exam" if self.exam else "practice"], n=s.total,
                                            seed=self.seed, lang=self.lang)

    def _repr_mimebundle_(self, **kwargs: Any) -> dict[str, Any]:
        bundle = super()._repr_mimebundle_(**kwargs) or {}
        bundle["text/plain"] = repr(self)  # deterministic: nbval compares it
        return bundle

    # ---------------------------------------------------------------- rendering

    def _render(self) -> None:
        """Show the current question (or the summary once the session is over)."""
        item = self.item
        self.feedback_html.value = ""
        if item is None:
            self._show_summary()
            return
        w = self.w
        q = item.question
        self._render_header(item)
        self.question_html.value = _markdown(item.prompt)
        self.response_html.value = "" if q.response is None else (
            f"<p><strong>{html.escape(w['response'])}</strong></p>"
            + _code_html(json.dumps(q.response, indent=2, ensure_ascii=False), "json", numbers=False))
        self.code_html.value = "" if not item.code or item.type == "order" else (
            f"<p><strong>{html.escape(w['code'])}</strong></p>" + _code_html(item.code))
        self._build_controls(item)
        self.flag_button.description = w["unflag" if item.flagged else "flag"]
        if item.feedback is not None:
            self._show_feedback(item, item.feedback)
        else:
            self._set_enabled(True)
        self._show_score()

    def _build_controls(self, item: Item) -> None:
        w = self.w
        self.choice = self.checkboxes = self.lines_text = self.order_list = None
        self.up_button = self.down_button = self.code_area = self.reset_button = None
        wide = widgets.Layout(width="100%")
        labels = letters(item)
        children: list[widgets.Widget] = []
        if item.type in ("single", "next_action", "spot_the_bug"):
            self.choice = widgets.RadioButtons(
                options=[(f"{labels[o.id]}) {plain(item.option_text(o))}", o.id) for o in item.options], value=None,
                description=w["answer"], layout=wide, style={"description_width": "initial"})
            children += [widgets.Label(w["choose_one"]), self.choice]
            if item.type == "spot_the_bug":
                self.lines_text = widgets.Text(value="", description=w["or_lines"], placeholder="12, 13",
                                               style={"description_width": "initial"},
                                               layout=widgets.Layout(width="24em"))
                children.append(self.lines_text)
        elif item.type == "multiple":
            self.checkboxes = [widgets.Checkbox(value=False, description=f"{labels[o.id]}) {plain(item.option_text(o))}",
                                                indent=False, layout=wide) for o in item.options]
            children += [widgets.Label(w["choose_every"]), *self.checkboxes]
        elif item.type == "order":
            self._order = list(range(len(item.lines)))
            self.order_list = widgets.Select(options=self._order_options(item), value=0, rows=len(item.lines),
                                             description=w["lines_label"], layout=wide)
            self.up_button = widgets.Button(description=w["up"], tooltip=w["up_tip"], icon="arrow-up")
            self.down_button = widgets.Button(description=w["down"], tooltip=w["down_tip"], icon="arrow-down")
            self.up_button.on_click(lambda _b: self.move(-1))
            self.down_button.on_click(lambda _b: self.move(+1))
            children += [widgets.Label(w["order_help"]), self.order_list, widgets.HBox([self.up_button, self.down_button])]
        elif item.type == "fix_code":
            code = (item.code or "").rstrip("\n")
            self.code_area = widgets.Textarea(value=code, description=w["your_code"], rows=min(40, code.count("\n") + 2),
                                              layout=wide, style={"description_width": "initial"})
            self.reset_button = widgets.Button(description=w["reset"], tooltip=w["reset_tip"], icon="undo")
            self.reset_button.on_click(lambda _b: self.reset_code())
            children += [widgets.Label(w["edit_code"]), self.code_area, self.reset_button]
        self.answer_box.children = tuple(children)

    def _order_options(self, item: Item) -> list[tuple[str, int]]:
        width = len(str(len(item.lines)))
        return [(_select_label(pos + 1, item.lines[i], width), pos) for pos, i in enumerate(self._order)]

    def _controls(self) -> list[widgets.Widget]:
        out: list[widgets.Widget] = []
        for c in (self.choice, self.lines_text, self.order_list, self.up_button, self.down_button, self.code_area,
                  self.reset_button):
            if c is not None:
                out.append(c)
        return out + list(self.checkboxes or ())

    def _set_enabled(self, open_: bool) -> None:
        """Answer controls and Check usable while the question is unanswered."""
        for c in self._controls():
            c.disabled = not open_
        self.check_button.disabled = not open_

    def _show_score(self) -> None:
        s = self.session
        w = self.w
        if self.exam:
            text = w["score_exam"].format(answered=s.answered, total=s.total)
            if s.time_limit is not None:
                text += " · " + w["time_left"].format(time=fmt_time(s.time_left or 0))
        else:
            text = w["score"].format(points=fmt_points(s.points), answered=s.answered,
                                     pct=fmt_pct(s.points / s.answered if s.answered else 0))
        self.score_html.value = f"<p><strong>{html.escape(text)}</strong></p>"

    def _verdict_html(self, feedback: Feedback) -> str:
        v = verdict(feedback)
        return (f'<p style="color:{_COLOUR[v]}"><strong>{_MARK[v]} {html.escape(verdict_text(feedback, self.lang))}'
                "</strong></p>")

    def feedback_html_for(self, item: Item, feedback: Feedback, *, verdict_line: bool = True) -> str:
        """The feedback of an answered question as HTML (also used by the summary's review)."""
        w = self.w
        out: list[str] = [self._verdict_html(feedback)] if verdict_line else []
        if feedback.type == "spot_the_bug":
            if is_lines_answer(feedback):
                out.append(f"<p>{html.escape(w['your_lines'])}: {html.escape(', '.join(feedback.chosen))}</p>")
            out.append(f"<p><strong>{html.escape(w['bug_lines'])}: {', '.join(map(str, feedback.bug_lines))}</strong></p>")
            out.append(_code_html(item.code or "", marked=feedback.bug_lines))
        if feedback.options:
            labels = letters(item)
            rows = []
            for o, status in option_statuses(feedback, w):
                rows.append(f"<li><strong>{labels.get(o.id, o.id)})</strong> ({html.escape(status)}) "
                            f"{_inline(o.text)}<br>{_inline(o.explanation)}</li>")
            out.append("<ul>" + "".join(rows) + "</ul>")
        if feedback.type == "order":
            rows = [f"<li>{'✔' if ok else '✘'} {html.escape(w['position_ok' if ok else 'position_bad'].format(i=i))}</li>"
                    for i, ok in enumerate(feedback.positions, 1)]
            out.append("<ul>" + "".join(rows) + "</ul>")
            if not feedback.correct:
                out.append(f"<p><strong>{html.escape(w['right_order'])}:</strong></p>"
                           + _code_html("\n".join(feedback.right_answer)))
        if feedback.type == "fix_code":
            out.append(f"<p>{html.escape(w['grader'])}: {html.escape(feedback.message)}</p>")
            if not feedback.correct and feedback.right_answer and feedback.right_answer[0]:
                out.append(f"<p><strong>{html.escape(w['fixed'])}:</strong></p>" + _code_html(feedback.right_answer[0]))
        for tag, name in misconception_names(feedback.misconceptions, self.lang):
            out.append(f"<p>{html.escape(w['misconception'])}: {html.escape(name)} (<code>{html.escape(tag)}</code>)</p>")
        out.append(f"<p><strong>{html.escape(w['why'])}:</strong> {_inline(feedback.explanation)}</p>")
        return "\n".join(out)

    def _show_feedback(self, item: Item, feedback: Feedback) -> None:
        self._set_enabled(False)
        if self.exam:
            self.feedback_html.value = f"<p>{html.escape(self.w['recorded'])}</p>"
        else:
            self.feedback_html.value = self.feedback_html_for(item, feedback)

    def _say(self, text: str) -> None:
        self.feedback_html.value = f'<p role="alert">{html.escape(text)}</p>'

    # ---------------------------------------------------------------- callbacks

    def response(self) -> tuple[str, Any] | None:
        """The answer the controls hold: ``("answer", value)`` or ``("lines", [numbers])``; None
        when nothing is chosen yet."""
        item = self.item
        if item is None:
            return None
        if self.choice is not None and self.choice.value is not None:
            return "answer", self.choice.value
        if self.lines_text is not None and self.lines_text.value.strip():
            parts = [p for p in self.lines_text.value.replace(",", " ").replace(";", " ").split() if p]
            if not all(p.isdigit() for p in parts):
                return "error", parts
            return "lines", [int(p) for p in parts]
        if self.checkboxes is not None:
            picked = [o.id for o, box in zip(item.options, self.checkboxes) if box.value]
            return ("answer", picked) if picked else None
        if self.order_list is not None:
            return "answer", list(self._order)
        if self.code_area is not None:
            return "answer", self.code_area.value
        return None

    def check(self) -> Feedback | None:
        """Check the answer in the controls (the Check button); returns the feedback."""
        item = self.item
        if item is None or item.feedback is not None:
            return None
        chosen = self.response()
        if chosen is None:
            self._say(self.w["pick_first"])
            return None
        kind, value = chosen
        size = len((item.code or "").rstrip("\n").split("\n"))
        if kind == "lines" and (any(not 1 <= n <= size for n in value) or len(set(value)) != len(value)):
            kind = "error"
        try:
            if kind == "error":
                raise ValueError(self.w["err_lines"].format(n=size, example="3,4"))
            feedback = self.session.answer_lines(value) if kind == "lines" else answer_quietly(self.session, value)
        except ExamOver:
            self._say(self.w["time_up"])
            self.finish()
            return None
        except ValueError as exc:
            self._say(str(exc))
            return None
        self._show_feedback(self.session.current(), feedback)
        self._show_score()
        return feedback

    def next(self) -> Item | None:
        """Go to the next question (the Next button); the summary after the last one."""
        if self.results is not None:
            return None
        item = self.session.next()
        if item is None:
            self.finish()
            return None
        self._render()
        return item

    def flag(self) -> bool | None:
        """Flag the question for review, or remove the flag (the Flag button)."""
        item = self.item
        if item is None:
            return None
        try:
            flagged = self.session.flag(not item.flagged)
        except ExamOver:
            self._say(self.w["time_up"])
            self.finish()
            return None
        self.flag_button.description = self.w["unflag" if flagged else "flag"]
        self._render_header(self.item)
        self._say(self.w["flag_on" if flagged else "flag_off"])
        return flagged

    def _render_header(self, item: Item) -> None:
        w = self.w
        q = item.question
        parts = [w["question_n"].format(n=item.number, total=item.total), topic_title(self.session.bank, q.topic, self.lang),
                 w["difficulty"].format(d=q.difficulty)]
        if item.flagged:
            parts.append(w["flagged"])
        self.header_html.value = "<p><strong>" + html.escape(" · ".join(parts)) + "</strong></p>"

    def move(self, step: int) -> None:
        """Move the selected line of an order question up (-1) or down (+1)."""
        item = self.item
        if item is None or self.order_list is None or self.order_list.value is None:
            return
        pos = self.order_list.value
        to = pos + step
        if not 0 <= to < len(self._order):
            return
        self._order[pos], self._order[to] = self._order[to], self._order[pos]
        self.order_list.options = self._order_options(item)
        self.order_list.value = to

    def reset_code(self) -> None:
        """Put the question's original code back in the editor."""
        item = self.item
        if item is not None and self.code_area is not None:
            self.code_area.value = (item.code or "").rstrip("\n")

    def finish(self) -> Results:
        """End the session now and show the summary (the Finish button)."""
        if self.results is None:
            s = self.session
            self.results = s.finish() if self.exam else s.results()
            self._render()
        return self.results

    def retry(self) -> Item | None:
        """Start a practice session over the questions answered wrong (the retry button)."""
        if self.results is None or not self.session.incorrect_ids():
            return None
        self.session = self.session.retry_incorrect()
        self.results = None
        self.summary_html.value = ""
        self.retry_button.layout.display = "none"
        for b in (self.next_button, self.flag_button, self.finish_button):
            b.disabled = False
        self._render()
        return self.item

    # ---------------------------------------------------------------- summary

    def summary_html_for(self, results: Results) -> str:
        w = self.w
        s = self.session
        out = [f"<h3>{html.escape(w['exam_results' if self.exam else 'summary'])}</h3>",
               "<p><strong>" + html.escape(w["final_score"].format(points=fmt_points(results.points), total=results.total,
                                                                   pct=fmt_pct(results.score),
                                                                   answered=results.answered)) + "</strong></p>"]
        if self.exam:
            if results.timed_out:
                out.append(f"<p>{html.escape(w['timed_out'])}</p>")
            if s.time_limit is not None and results.elapsed is not None:
                out.append(f"<p>{html.escape(w['time_used'].format(time=fmt_time(results.elapsed)))}</p>")
            mark = fmt_pct(results.pass_mark or 0)
            passed = results.passed
            out.append(f'<p style="color:{_COLOUR["right" if passed else "wrong"]}"><strong>'
                       f'{"✔ " if passed else "✘ "}{html.escape(w["passed" if passed else "failed"].format(mark=mark))}'
                       "</strong></p>")
            head = "".join(f"<th>{html.escape(w[c])}</th>" for c in
                           ("topic", "col_questions", "col_answered", "col_points", "col_score"))
            rows = "".join(f"<tr><td>{html.escape(topic_title(s.bank, t.topic, self.lang))}</td><td>{t.questions}</td>"
                           f"<td>{t.answered}</td><td>{fmt_points(t.points)}</td><td>{fmt_pct(t.score)}</td></tr>"
                           for t in results.by_topic.values())
            out.append(f"<table><caption>{html.escape(w['by_topic'])}</caption><thead><tr>{head}</tr></thead>"
                       f"<tbody>{rows}</tbody></table>")
        items = {i.id: i for i in s.items()}
        if results.total:
            out.append(f"<h4>{html.escape(w['review'])}</h4>")
            if not results.review:
                out.append(f"<p>{html.escape(w['review_none'])}</p>")
        for r in results.review:
            item = items[r.question.id]
            out.append(f"<h5>{html.escape(w['question_n'].format(n=item.number, total=item.total))} · "
                       f"<code>{html.escape(r.question.id)}</code></h5>")
            out.append(_markdown(r.question.prompt.get(self.lang)))
            if r.feedback is None:
                out.append(f"<p>{html.escape(w['your_answer'])}: {html.escape(w['unanswered'])}</p>")
            else:
                out.append(f"<p>{html.escape(w['your_answer'])}: {self._answer_html(item, r.feedback)} · "
                           f"{html.escape(verdict_text(r.feedback, self.lang))}</p>")
            if self.exam and r.feedback is not None:  # an exam showed no feedback yet: show it all now
                out.append(self.feedback_html_for(item, r.feedback, verdict_line=False))
                continue
            out.append(self._right_answer_html(item, r.right_answer))
            out.append(f"<p><strong>{html.escape(w['why'])}:</strong> {_inline(r.explanation)}</p>")
        if results.flagged:
            rows = "".join(f"<li>{html.escape(w['question_n'].format(n=items[q].number, total=items[q].total))} · "
                           f"<code>{html.escape(q)}</code></li>" for q in results.flagged)
            out.append(f"<h4>{html.escape(w['flagged_list'])}</h4><ul>{rows}</ul>")
        return "\n".join(out)

    def _answer_html(self, item: Item, feedback: Feedback) -> str:
        if is_lines_answer(feedback):
            return html.escape(f"{self.w['your_lines'].lower()} {', '.join(feedback.chosen)}")
        if item.type == "order":
            return " / ".join(f"<code>{html.escape(line.strip())}</code>" for line in feedback.chosen)
        if item.type == "fix_code":
            return html.escape(feedback.message)
        labels = letters(item)
        texts = {o.id: item.option_text(o) for o in item.options}
        return "; ".join(f"<strong>{labels.get(a, a)})</strong> {_inline(texts.get(a, ''))}" for a in feedback.chosen)

    def _right_answer_html(self, item: Item, right: tuple[str, ...]) -> str:
        w = self.w
        if item.type == "order":
            return f"<p><strong>{html.escape(w['right_order'])}:</strong></p>" + _code_html("\n".join(right))
        if item.type == "fix_code":
            return f"<p><strong>{html.escape(w['fixed'])}:</strong></p>" + _code_html(right[0] if right else "")
        labels = letters(item)
        texts = {o.id: item.option_text(o) for o in item.options}
        answer = "; ".join(f"<strong>{labels.get(a, a)})</strong> {_inline(texts.get(a, ''))}" for a in right)
        extra = ""
        if item.type == "spot_the_bug":
            extra = f"<br>{html.escape(w['bug_lines'])}: {', '.join(map(str, item.question.bug_lines))}"
        return f"<p>{html.escape(w['right_answer'])}: {answer}{extra}</p>"

    def _show_summary(self) -> None:
        results = self.results if self.results is not None else self.finish()
        for h in (self.header_html, self.question_html, self.response_html, self.code_html):
            h.value = ""
        self.answer_box.children = ()
        self.choice = self.checkboxes = self.lines_text = self.order_list = None
        self.up_button = self.down_button = self.code_area = self.reset_button = None
        for b in (self.check_button, self.next_button, self.flag_button, self.finish_button):
            b.disabled = True
        self._show_score()
        self.summary_html.value = self.summary_html_for(results)
        if self.session.incorrect_ids():
            self.retry_button.layout.display = ""


def _inline(text: str) -> str:
    """A one-paragraph Markdown text as inline HTML (no surrounding <p>)."""
    rendered = _markdown(text)
    if rendered.startswith("<p>") and rendered.endswith("</p>") and rendered.count("<p>") == 1:
        return rendered[3:-4]
    return rendered


def quiz(topic: Any = None, lang: str | None = None, exam: bool = False, seed: Any = 0, n: int | None = None,
         **kw: Any) -> QuizApp:
    """The quiz as an ipywidgets app (display it, or leave it as the cell's last expression).

    Args:
        topic: a topic id, ``"a,b"`` or a list (default: every topic).
        lang: ``"en"`` or ``"es"`` (default: the learner's language).
        exam: exam mode: the verdicts wait for the final review, which adds the score by topic
            and pass or fail.
        seed: the same seed gives the same questions, options and lines in the same order.
        n: how many questions (default 10 in practice, 20 in an exam).
        **kw: ``bank`` (a Bank or a path), ``progress`` (a ProgressStore, or False for none;
            default: the learner's store), ``user``, ``data_dir``, ``time_limit`` (seconds),
            ``pass_mark``, ``weights`` (exam topic weights), ``review`` (the questions due for
            spaced-repetition review).

    Raises:
        ValueError: an unknown topic or bad numbers. BankError: a broken bank.
    """
    from ._bank import load_bank

    lang = language(lang)
    bank = kw.pop("bank", None)
    if bank is None or isinstance(bank, str) or hasattr(bank, "__fspath__"):
        bank = load_bank(bank)
    progress = kw.pop("progress", None)
    user = kw.pop("user", None)
    data_dir = kw.pop("data_dir", None)
    if progress is None:
        from ._progress import ProgressError, ProgressStore

        try:
            progress = ProgressStore(data_dir, user=user)
        except (ProgressError, OSError, ValueError) as exc:
            warnings.warn(TEXT[lang]["progress_off"].format(error=exc), stacklevel=2)
            progress = None
    elif progress is False:
        progress = None
    session = build_session(bank, topic=topic, lang=lang, exam=exam, seed=seed, n=n, progress=progress, **kw)
    return QuizApp(session, seed=seed, progress=progress)
