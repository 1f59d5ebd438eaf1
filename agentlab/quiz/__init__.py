"""agentlab.quiz: the question banks and the quiz engine (no front end in here).

::

    from agentlab.quiz import load_bank, QuizSession, ExamSession, ProgressStore, export

    bank = load_bank()                                   # every quizzes/*.yaml, validated
    session = QuizSession(bank, topic="stop_reasons", lang="es", seed=1, n=10,
                          progress=ProgressStore())      # answers recorded for spaced repetition
    item = session.current()                             # render item.prompt, item.code, item.options
    feedback = session.answer("b")                       # feedback.correct, .score, .options, .explanation
    session.next()

    exam = ExamSession(bank, n=20, weights={"stop_reasons": 2, "history": 1},
                       time_limit=30 * 60, pass_mark=0.7)
    exam.results()                                       # score, by_topic, passed, review, flagged

    export(bank, kind="handout", lang="es", fmt="md")    # printable handout / answer key

The bank format is ``quizzes/FORMAT.md``; one JSON Schema per question type is in
:data:`SCHEMAS`. Front ends (Jupyter: ``agentlab.quiz.widget``; terminal: ``agentlab quiz``)
render :class:`Item` and :class:`Feedback` and are imported only when used: ``import
agentlab.quiz`` loads neither ipywidgets nor the grader. Calling the module,
``agentlab.quiz(...)``, hands the arguments to the Jupyter front end's ``quiz()``.
"""

from __future__ import annotations

import sys
import types
from importlib import import_module
from typing import Any

__all__ = [
    "AnswerRecord", "Bank", "BankError", "DueItem", "ExamOver", "ExamSession", "Feedback", "Item", "Option",
    "OptionFeedback", "ProgressError", "ProgressStore", "QUESTION_TYPES", "Question", "QuizSession", "Results",
    "ReviewItem", "SCHEMAS", "Text", "Topic", "TopicScore", "apportion", "default_cache_dir", "default_data_dir",
    "default_quiz_dir", "default_scheduler", "export", "grade_code", "load_bank", "schema",
]

_LAZY = {
    "QUESTION_TYPES": "._schema", "SCHEMAS": "._schema", "schema": "._schema",
    "Bank": "._bank", "BankError": "._bank", "Option": "._bank", "Question": "._bank", "Text": "._bank",
    "Topic": "._bank", "default_cache_dir": "._bank", "default_quiz_dir": "._bank", "load_bank": "._bank",
    "ExamOver": "._engine", "ExamSession": "._engine", "Feedback": "._engine", "Item": "._engine",
    "OptionFeedback": "._engine", "QuizSession": "._engine", "Results": "._engine", "ReviewItem": "._engine",
    "TopicScore": "._engine", "apportion": "._engine", "grade_code": "._engine",
    "AnswerRecord": "._progress", "DueItem": "._progress", "ProgressError": "._progress",
    "ProgressStore": "._progress", "default_data_dir": "._progress", "default_scheduler": "._progress",
    "export": "._export",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        value = getattr(import_module(_LAZY[name], __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'agentlab.quiz' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


class _CallableModule(types.ModuleType):
    """Lets ``agentlab.quiz(topic=..., lang="es", exam=False)`` open the Jupyter front end."""

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        try:
            widget = import_module(".widget", __name__)
        except ModuleNotFoundError as exc:
            if exc.name not in (f"{__name__}.widget", "ipywidgets"):
                raise
            raise ImportError("agentlab.quiz(...) needs the Jupyter front end (agentlab.quiz.widget and ipywidgets: "
                              "pip install 'agentlab[course]'); the engine works without it: "
                              "agentlab.quiz.QuizSession") from exc
        return widget.quiz(*args, **kwargs)


sys.modules[__name__].__class__ = _CallableModule
