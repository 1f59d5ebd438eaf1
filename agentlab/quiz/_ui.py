"""What the two quiz front ends share: their words (English and Spanish), option letters, the
session they build from the same arguments, misconception names, and answering without the
learner's prints reaching the screen.

Nothing here renders: :mod:`agentlab.quiz.terminal` (rich) and :mod:`agentlab.quiz.widget`
(ipywidgets) do. Importing this module loads neither.
"""

from __future__ import annotations

import re
from typing import Any, Iterable

from .. import antipatterns
from .._i18n import language
from ._engine import ExamSession, Feedback, Item, QuizSession

__all__ = ["DEFAULT_N", "TEXT", "answer_quietly", "build_session", "fmt_pct", "fmt_points", "fmt_time", "is_lines_answer",
           "letter_of", "letters", "misconception_names", "order_example", "parse_topics", "plain",
           "topic_title", "verdict", "verdict_text", "words"]

DEFAULT_N = {"practice": 10, "exam": 20}
"""Questions per session when ``n`` is not given."""

LETTERS = "abcdefghijklmnopqrstuvwxyz"

TEXT: dict[str, dict[str, str]] = {
    "en": {
        # both front ends
        "title": "agentlab quiz",
        "practice": "practice",
        "exam": "exam",
        "questions": "{n} questions",
        "question_n": "Question {n} of {total}",
        "difficulty": "difficulty {d}",
        "flagged": "flagged for review",
        "response": "The loop just received:",
        "code": "Code",
        "right": "Right",
        "wrong": "Wrong",
        "partly": "Partly right ({pct} credit)",
        "chosen_right": "your choice, right",
        "chosen_wrong": "your choice, wrong",
        "right_one": "the right answer",
        "missed": "right, not picked",
        "misconception": "Misconception",
        "why": "Why",
        "bug_lines": "Faulty lines",
        "your_lines": "Your lines",
        "position_ok": "line {i}: in its place",
        "position_bad": "line {i}: out of place",
        "right_order": "The right order",
        "your_order": "Your order",
        "fixed": "A fixed version",
        "grader": "Grader",
        "recorded": "Answer recorded.",
        "score": "Score: {points} of {answered} answered ({pct})",
        "score_exam": "Answered {answered} of {total}",
        "summary": "Summary",
        "exam_results": "Exam results",
        "final_score": "Score: {points} / {total} ({pct}); answered {answered} of {total}",
        "by_topic": "Score by topic",
        "topic": "Topic",
        "col_questions": "Questions",
        "col_answered": "Answered",
        "col_points": "Points",
        "col_score": "Score",
        "passed": "PASSED (pass mark {mark})",
        "failed": "NOT PASSED (pass mark {mark})",
        "timed_out": "Time ran out.",
        "time_used": "Time used: {time}",
        "time_left": "time left: {time}",
        "review": "Review of the wrong and unanswered questions",
        "review_none": "Nothing to review: every answer was right.",
        "your_answer": "Your answer",
        "right_answer": "Right answer",
        "unanswered": "not answered",
        "flagged_list": "Flagged for review",
        "empty": "No questions to ask.",
        "no_due": "Nothing is due for review yet: answer some questions first.",
        "time_up": "Time is up: the exam is over.",
        "progress_off": "Progress is not saved: {error}",
        # terminal
        "seed": "seed {seed} (run again with --seed {seed} for the same questions)",
        "prompt": "Your answer: ",
        "hint_single": "Answer with a letter (e.g. b). ? for help.",
        "hint_multiple": "Choose every correct option: letters separated by commas (e.g. a,c). ? for help.",
        "hint_spot": "Name the fault with a letter, or give the faulty lines (e.g. lines 12,13). ? for help.",
        "hint_order": "Type the line numbers in the right order (e.g. {example}). ? for help.",
        "hint_fix": ("Fix the code in a file and type the file's path; `save FILE` writes this code to FILE "
                     "for you to edit; s skips. ? for help."),
        "hint_f_option": "(Here f is an option: type flag to flag the question.)",
        "help": ("Commands: ? help · f (or flag) flag for review · s (or skip) skip · q (or quit) quit and see the "
                 "summary.\nAnswers: a letter (b); several letters for 'choose every' questions (a,c); for a "
                 "spot-the-bug question a letter or the faulty lines (lines 12,13); for an order question the line "
                 "numbers in order (3 1 2 4); for a fix-the-code question the path of the file with your code."),
        "err_empty": "Type an answer, or ? for help.",
        "err_letter": "'{x}' is not an option here: use a letter from a to {last}.",
        "err_one": "This question takes exactly one letter (e.g. b).",
        "err_twice": "You gave '{x}' twice.",
        "err_order": "Give each number from 1 to {n} exactly once, separated by spaces (e.g. {example}).",
        "err_lines": "Give line numbers from 1 to {n} (e.g. lines {example}).",
        "err_no_file": "No such file: {path}. Type the path of the file with your code, or s to skip.",
        "err_read": "Could not read {path}: {error}",
        "err_save": "Could not write {path}: {error}",
        "saved": "Wrote the code to {path}: edit it, then type that path.",
        "flag_on": "Flagged for review.",
        "flag_off": "Flag removed.",
        "skipped": "Skipped.",
        "grading": "Grading your code...",
        "go_back": "You left {n} question(s) unanswered. Go back to them? [y/n] ",
        "retry": "Retry the incorrect ones only? [y/n] ",
        "yes_no": "Please answer y or n.",
        "retrying": "Retrying {n} question(s).",
        "bye": "Bye.",
        # widget
        "check": "Check",
        "check_tip": "Check your answer",
        "next": "Next",
        "next_tip": "Go to the next question (an unanswered question scores 0)",
        "flag": "Flag",
        "unflag": "Unflag",
        "flag_tip": "Flag this question for review, or remove the flag",
        "finish": "Finish",
        "finish_tip": "End the session now and see the summary",
        "retry_button": "Retry incorrect only",
        "retry_tip": "Start a new session with the questions you got wrong",
        "up": "Move up",
        "up_tip": "Move the selected line one place up",
        "down": "Move down",
        "down_tip": "Move the selected line one place down",
        "reset": "Reset code",
        "reset_tip": "Put the original code back in the editor",
        "answer": "Answer",
        "choose_one": "Choose one option:",
        "choose_every": "Choose every correct option:",
        "or_lines": "Or the faulty lines (e.g. 12, 13):",
        "lines_label": "Lines",
        "order_help": "Select a line, then move it up or down until the lines are in order:",
        "your_code": "Your code",
        "edit_code": "Edit the code so that agentlab.grade(agent_loop) passes every case:",
        "pick_first": "Choose an answer first.",
        "widget_repr": "agentlab quiz: {mode}, {n} questions, seed {seed}, lang {lang}",
        "finished": "The session is over: see the summary.",
    },
    "es": {
        "title": "cuestionario de agentlab",
        "practice": "práctica",
        "exam": "examen",
        "questions": "{n} preguntas",
        "question_n": "Pregunta {n} de {total}",
        "difficulty": "dificultad {d}",
        "flagged": "marcada para revisar",
        "response": "El bucle acaba de recibir:",
        "code": "Código",
        "right": "Correcta",
        "wrong": "Incorrecta",
        "partly": "Parcialmente correcta ({pct} de la puntuación)",
        "chosen_right": "tu elección, correcta",
        "chosen_wrong": "tu elección, incorrecta",
        "right_one": "la respuesta correcta",
        "missed": "correcta, no la elegiste",
        "misconception": "Concepto erróneo",
        "why": "Por qué",
        "bug_lines": "Líneas con el fallo",
        "your_lines": "Tus líneas",
        "position_ok": "línea {i}: en su sitio",
        "position_bad": "línea {i}: fuera de su sitio",
        "right_order": "El orden correcto",
        "your_order": "Tu orden",
        "fixed": "Una versión corregida",
        "grader": "Grader",
        "recorded": "Respuesta registrada.",
        "score": "Puntuación: {points} de {answered} respondidas ({pct})",
        "score_exam": "Respondidas {answered} de {total}",
        "summary": "Resumen",
        "exam_results": "Resultados del examen",
        "final_score": "Puntuación: {points} / {total} ({pct}); respondidas {answered} de {total}",
        "by_topic": "Puntuación por tema",
        "topic": "Tema",
        "col_questions": "Preguntas",
        "col_answered": "Respondidas",
        "col_points": "Puntos",
        "col_score": "Puntuación",
        "passed": "APROBADO (nota de corte {mark})",
        "failed": "NO APROBADO (nota de corte {mark})",
        "timed_out": "Se acabó el tiempo.",
        "time_used": "Tiempo empleado: {time}",
        "time_left": "tiempo restante: {time}",
        "review": "Repaso de las preguntas incorrectas y sin responder",
        "review_none": "Nada que repasar: todas las respuestas fueron correctas.",
        "your_answer": "Tu respuesta",
        "right_answer": "Respuesta correcta",
        "unanswered": "sin responder",
        "flagged_list": "Marcadas para revisar",
        "empty": "No hay preguntas.",
        "no_due": "Aún no hay nada pendiente de repaso: responde antes algunas preguntas.",
        "time_up": "Se acabó el tiempo: el examen ha terminado.",
        "progress_off": "No se guarda el progreso: {error}",
        "seed": "semilla {seed} (vuelve a ejecutar con --seed {seed} para las mismas preguntas)",
        "prompt": "Tu respuesta: ",
        "hint_single": "Responde con una letra (p. ej. b). ? para ayuda.",
        "hint_multiple": "Elige todas las opciones correctas: letras separadas por comas (p. ej. a,c). ? para ayuda.",
        "hint_spot": ("Nombra el fallo con una letra, o da las líneas con el fallo (p. ej. lines 12,13). "
                      "? para ayuda."),
        "hint_order": "Escribe los números de línea en el orden correcto (p. ej. {example}). ? para ayuda.",
        "hint_fix": ("Corrige el código en un archivo y escribe su ruta; `save ARCHIVO` guarda este código en "
                     "ARCHIVO para que lo edites; s salta la pregunta. ? para ayuda."),
        "hint_f_option": "(Aquí f es una opción: escribe flag para marcar la pregunta.)",
        "help": ("Comandos: ? ayuda · f (o flag) marcar para revisar · s (o skip) saltar · q (o quit) salir y ver el "
                 "resumen.\nRespuestas: una letra (b); varias letras en las preguntas de «elige todas» (a,c); en "
                 "una pregunta de buscar el fallo, una letra o las líneas con el fallo (lines 12,13, o líneas "
                 "12,13); en una de ordenar, los números de línea en orden (3 1 2 4); en una de corregir el "
                 "código, la ruta del archivo con tu código."),
        "err_empty": "Escribe una respuesta, o ? para ayuda.",
        "err_letter": "'{x}' no es una opción aquí: usa una letra de la a a la {last}.",
        "err_one": "Esta pregunta admite exactamente una letra (p. ej. b).",
        "err_twice": "Has dado '{x}' dos veces.",
        "err_order": "Da cada número del 1 al {n} exactamente una vez, separados por espacios (p. ej. {example}).",
        "err_lines": "Da números de línea del 1 al {n} (p. ej. lines {example}).",
        "err_no_file": "No existe el archivo: {path}. Escribe la ruta del archivo con tu código, o s para saltar.",
        "err_read": "No se pudo leer {path}: {error}",
        "err_save": "No se pudo escribir {path}: {error}",
        "saved": "Código guardado en {path}: edítalo y luego escribe esa ruta.",
        "flag_on": "Marcada para revisar.",
        "flag_off": "Marca quitada.",
        "skipped": "Saltada.",
        "grading": "Evaluando tu código...",
        "go_back": "Has dejado {n} pregunta(s) sin responder. ¿Volver a ellas? [s/n] ",
        "retry": "¿Repetir solo las incorrectas? [s/n] ",
        "yes_no": "Responde s o n.",
        "retrying": "Repitiendo {n} pregunta(s).",
        "bye": "Hasta luego.",
        "check": "Comprobar",
        "check_tip": "Comprueba tu respuesta",
        "next": "Siguiente",
        "next_tip": "Pasa a la siguiente pregunta (una pregunta sin responder puntúa 0)",
        "flag": "Marcar",
        "unflag": "Desmarcar",
        "flag_tip": "Marca esta pregunta para revisarla, o quita la marca",
        "finish": "Terminar",
        "finish_tip": "Termina la sesión ahora y muestra el resumen",
        "retry_button": "Repetir solo las incorrectas",
        "retry_tip": "Empieza una sesión nueva con las preguntas que fallaste",
        "up": "Subir",
        "up_tip": "Sube un puesto la línea seleccionada",
        "down": "Bajar",
        "down_tip": "Baja un puesto la línea seleccionada",
        "reset": "Restaurar código",
        "reset_tip": "Vuelve a poner el código original en el editor",
        "answer": "Respuesta",
        "choose_one": "Elige una opción:",
        "choose_every": "Elige todas las opciones correctas:",
        "or_lines": "O las líneas con el fallo (p. ej. 12, 13):",
        "lines_label": "Líneas",
        "order_help": "Selecciona una línea y súbela o bájala hasta que las líneas queden en orden:",
        "your_code": "Tu código",
        "edit_code": "Edita el código para que agentlab.grade(agent_loop) supere todos los casos:",
        "pick_first": "Elige antes una respuesta.",
        "widget_repr": "cuestionario de agentlab: {mode}, {n} preguntas, semilla {seed}, idioma {lang}",
        "finished": "La sesión ha terminado: mira el resumen.",
    },
}


def words(lang: str | None) -> dict[str, str]:
    """The front ends' strings in ``lang`` (default: the learner's language)."""
    return TEXT[language(lang)]


# --------------------------------------------------------------------------------- helpers


def letters(item: Item) -> dict[str, str]:
    """``{option id: display letter}``: the options are labelled a, b, c... in the order shown."""
    return {o.id: LETTERS[i] for i, o in enumerate(item.options)}


def letter_of(item: Item, option_id: str) -> str:
    return letters(item).get(option_id, option_id)


def fmt_points(x: float) -> str:
    """``2``, ``1.5``, ``0.33``: points without trailing zeros."""
    return f"{round(x, 2):g}"


def fmt_pct(x: float) -> str:
    return f"{round(100 * x)}%"


def fmt_time(seconds: float) -> str:
    seconds = max(0, int(seconds))
    return f"{seconds // 60} min {seconds % 60:02d} s"


def plain(text: str) -> str:
    """Markdown inline marks removed, for plain-text labels (radio buttons, checkboxes)."""
    text = text.replace("`", "")
    return re.sub(r"\*\*(.+?)\*\*", r"\1", text)


def verdict(feedback: Feedback) -> str:
    """``"right"``, ``"partly"`` or ``"wrong"``."""
    if feedback.correct:
        return "right"
    return "partly" if feedback.score > 0 else "wrong"


def verdict_text(feedback: Feedback, lang: str) -> str:
    w = TEXT[lang]
    v = verdict(feedback)
    return w["partly"].format(pct=fmt_pct(feedback.score)) if v == "partly" else w[v]


def option_statuses(feedback: Feedback, w: dict[str, str]) -> list[tuple[Any, str]]:
    """The options a feedback shows (the chosen ones and the right ones), each with its status
    label in the front end's language: chosen and right, chosen and wrong, the right one, missed."""
    shown = []
    for o in feedback.options:
        if not (o.chosen or o.correct):
            continue
        if o.chosen:
            status = w["chosen_right"] if o.correct else w["chosen_wrong"]
        else:
            status = w["right_one"] if feedback.type != "multiple" else w["missed"]
        shown.append((o, status))
    return shown


def misconception_names(tags: Iterable[str], lang: str) -> list[tuple[str, str]]:
    """``[(tag, catalogue name)]`` for each tag (the tag itself when not in the catalogue)."""
    out = []
    for tag in dict.fromkeys(tags):
        ap = antipatterns.BY_TAG.get(tag)
        out.append((tag, ap.text("name", lang) if ap is not None else tag))
    return out


def topic_title(bank: Any, topic_id: str, lang: str) -> str:
    try:
        return bank.topic(topic_id).title.get(lang)
    except (ValueError, AttributeError):
        return topic_id


def parse_topics(topic: str | Iterable[str] | None) -> list[str] | None:
    """``"a,b"`` or ``["a", "b"]`` -> ``["a", "b"]``; None or empty -> None (every topic)."""
    if topic is None:
        return None
    items = topic.split(",") if isinstance(topic, str) else list(topic)
    topics = [t.strip() for t in items if t and t.strip()]
    return topics or None


def build_session(bank: Any, *, topic: str | Iterable[str] | None = None, lang: str | None = None,
                  exam: bool = False, seed: Any = 0, n: int | None = None, progress: Any = None,
                  time_limit: float | None = None, pass_mark: float = 0.7, review: bool = False,
                  weights: dict[str, float] | None = None, **kw: Any) -> QuizSession | ExamSession:
    """The session both front ends run.

    Practice: ``n`` questions (default 10) of the topics. Exam: ``n`` questions (default 20, at
    most what the topics hold) by topic weights (default: the topics' sizes), ``time_limit`` in
    seconds, ``pass_mark``. ``review``: the questions the progress store says are due (spaced
    repetition), worst misconceptions first.

    Raises:
        ValueError: an unknown topic, a bad ``n``, ``time_limit`` or ``pass_mark``.
    """
    topics = parse_topics(topic)
    for t in topics or ():
        bank.topic(t)  # ValueError listing the topics
    if exam:
        if weights is None:
            chosen = topics if topics is not None else list(bank.topic_ids)
            weights = {t: len(bank.topic(t).questions) for t in chosen}
        if n is None:
            n = min(DEFAULT_N["exam"], sum(len(bank.topic(t).questions) for t, w in weights.items() if w))
        return ExamSession(bank, n=n, weights=weights, time_limit=time_limit, pass_mark=pass_mark, lang=lang,
                           seed=seed, progress=progress, **kw)
    if review:
        ids = progress.due_ids(bank=bank, limit=n) if progress is not None else []
        return QuizSession(bank, topic=topics, lang=lang, seed=seed, retry_incorrect_from=ids, progress=progress, **kw)
    return QuizSession(bank, topic=topics, lang=lang, seed=seed, n=DEFAULT_N["practice"] if n is None else n,
                       progress=progress, **kw)


def order_example(size: int) -> str:
    """``"2 1 3 4"``: an example answer for an order question of ``size`` lines."""
    nums = list(range(1, size + 1))
    if size > 1:
        nums[0], nums[1] = nums[1], nums[0]
    return " ".join(map(str, nums))


# --------------------------------------------------------------------------------- answering


def answer_quietly(session: QuizSession | ExamSession, response: Any) -> Feedback:
    """``session.answer(response)`` with whatever the learner's code prints while it is graded
    (fix-the-code runs the loop on the grader's cases) kept off the screen."""
    import contextlib
    import io

    sink = io.StringIO()
    with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
        return session.answer(response)


def is_lines_answer(feedback: Feedback | None) -> bool:
    return feedback is not None and isinstance(feedback.response, dict) and "lines" in feedback.response
