"""Printable handouts and answer keys of a bank, in Markdown or HTML (for instructors).

::

    from agentlab.quiz import export, load_bank
    print(export(load_bank(), kind="handout", lang="es", fmt="md"))
    html = export(load_bank(), kind="key", lang="en", fmt="html")

The output is deterministic: topics in bank order, questions numbered 1..N across the bank in
file order (the key uses the same numbers), options shuffled by the question id and lettered
in that order (the key uses the same letters), the lines
of an ``order`` question shuffled by the question id only.
"""

from __future__ import annotations

import html
import json
import random
from typing import Any
import re
from typing import Iterable

from .._i18n import language
from ._bank import Bank, Question

__all__ = ["export"]

KINDS = ("handout", "key")
FORMATS = ("md", "html")

WORDS = {
    "en": {"handout": "Quiz handout", "key": "Answer key", "question": "Question", "answer": "Answer",
           "why": "Why", "source": "Source", "multiple": "Choose every correct option.",
           "single": "Choose one option.", "order": "Put these lines in order (write their numbers):",
           "fix": "Edit the code so that `agentlab.grade(agent_loop)` passes every case.",
           "spot": "Which fault does this loop have? Which lines hold it?", "response": "The loop just received:",
           "bug_lines": "Faulty lines", "tag": "Anti-pattern", "fixed": "A fixed version", "empty": "No questions.",
           "right": "right", "wrong": "wrong", "correct_order": "Correct order of the handout's lines",
           "difficulty": "difficulty"},
    "es": {"handout": "Cuestionario", "key": "Soluciones", "question": "Pregunta", "answer": "Respuesta",
           "why": "Por qué", "source": "Fuente", "multiple": "Elige todas las opciones correctas.",
           "single": "Elige una opción.", "order": "Ordena estas líneas (escribe sus números):",
           "fix": "Edita el código para que `agentlab.grade(agent_loop)` supere todos los casos.",
           "spot": "¿Qué fallo tiene este bucle? ¿En qué líneas está?", "response": "El bucle acaba de recibir:",
           "bug_lines": "Líneas con el fallo", "tag": "Antipatrón", "fixed": "Una versión corregida",
           "empty": "No hay preguntas.", "right": "correcta", "wrong": "incorrecta",
           "correct_order": "Orden correcto de las líneas del cuestionario", "difficulty": "dificultad"},
}

Block = tuple  # ("h1"|"h2"|"h3"|"p", text) | ("code", language, text) | ("list"|"olist", [texts])


def handout_options(question: Question) -> list[tuple[str, Any]]:
    """The options as printed on the handout and the key: shuffled by the question id alone and
    lettered a, b, c... in that order, so the position of the right answer gives nothing away."""
    options = list(question.options)
    random.Random(f"handout-options:{question.id}").shuffle(options)
    return [(chr(ord("a") + i), o) for i, o in enumerate(options)]


def handout_lines(question: Question) -> list[str]:
    """An ``order`` question's lines as printed on the handout (shuffled by the id alone)."""
    lines = list(question.lines)
    random.Random(f"handout:{question.id}").shuffle(lines)
    if lines == list(question.lines) and len(set(lines)) > 1:
        lines = lines[1:] + lines[:1]
    return lines


def _numbered(code: str) -> str:
    rows = code.rstrip("\n").split("\n")
    width = len(str(len(rows)))
    return "\n".join(f"{i:>{width}}  {row}" for i, row in enumerate(rows, 1))


def _question_blocks(q: Question, number: int, kind: str, lang: str) -> list[Block]:
    w = WORDS[lang]
    blocks: list[Block] = [("h3", f"{w['question']} {number} · `{q.id}` · {w['difficulty']} {q.difficulty}"),
                           ("p", q.prompt.get(lang))]
    if q.response is not None:
        blocks += [("p", w["response"]), ("code", "json", json.dumps(q.response, indent=2, ensure_ascii=False))]
    if q.code:
        code = _numbered(q.code) if q.type == "spot_the_bug" else q.code.rstrip("\n")
        blocks.append(("code", "python", code))
    if kind == "handout":
        if q.type == "order":
            blocks += [("p", w["order"]), ("olist", [f"`{line}`" for line in handout_lines(q)])]
        elif q.type == "fix_code":
            blocks.append(("p", w["fix"]))
        else:
            hint = w["multiple"] if q.type == "multiple" else (w["spot"] if q.type == "spot_the_bug" else w["single"])
            blocks += [("p", hint), ("list", [f"**{letter})** {o.text.get(lang)}" for letter, o in handout_options(q)])]
        return blocks

    if q.type == "order":
        shown = handout_lines(q)
        remaining = list(range(len(shown)))
        sequence = []
        for line in q.lines:  # the handout number of each line, in the right order (equal lines taken in turn)
            at = next(i for i in remaining if shown[i] == line)
            remaining.remove(at)
            sequence.append(str(at + 1))
        blocks += [("p", f"**{w['answer']}:** {w['correct_order']}: {', '.join(sequence)}"),
                   ("code", "python", "\n".join(q.lines))]
    elif q.type == "fix_code":
        blocks += [("p", f"**{w['tag']}:** `{q.bug_tag}`. {w['fixed']}:"), ("code", "python", (q.fixed_code or "").rstrip("\n"))]
    else:
        right = ", ".join(f"**{letter})** {o.text.get(lang)}" for letter, o in handout_options(q) if o.correct)
        blocks.append(("p", f"**{w['answer']}:** {right}"))
        if q.type == "spot_the_bug":
            blocks.append(("p", f"**{w['bug_lines']}:** {', '.join(map(str, q.bug_lines))} · **{w['tag']}:** `{q.bug_tag}`"))
        blocks.append(("list", [f"**{letter})** ({w['right'] if o.correct else w['wrong']}"
                                f"{', `' + o.tag + '`' if o.tag else ''}) {o.explanation.get(lang)}"
                                for letter, o in handout_options(q)]))
    blocks += [("p", f"**{w['why']}:** {q.explanation.get(lang)}"), ("p", f"*{w['source']}: {q.source}*")]
    return blocks


def _md(blocks: Iterable[Block]) -> str:
    out: list[str] = []
    for block in blocks:
        kind = block[0]
        if kind in ("h1", "h2", "h3"):
            out.append("#" * int(kind[1]) + " " + block[1])
        elif kind == "p":
            out.append(block[1])
        elif kind == "code":
            fence = "````" if "```" in block[2] else "```"
            out.append(f"{fence}{block[1]}\n{block[2]}\n{fence}")
        elif kind == "list":
            out.append("\n".join(f"- {item}" for item in block[1]))
        elif kind == "olist":
            out.append("\n".join(f"{i}. {item}" for i, item in enumerate(block[1], 1)))
    return "\n\n".join(out) + "\n"


def _inline(text: str) -> str:
    """Markdown inline code, bold and italics to HTML (the rest escaped); paragraphs kept."""
    parts = re.split(r"(`[^`]+`)", text)
    rendered = []
    for part in parts:
        if part.startswith("`") and part.endswith("`") and len(part) > 1:
            rendered.append(f"<code>{html.escape(part[1:-1])}</code>")
        else:
            chunk = html.escape(part)
            chunk = re.sub(r"\*\*(.+?)\*\*", r"<strong>\1</strong>", chunk)
            chunk = re.sub(r"(?<![\w*])\*(?!\s)(.+?)(?<!\s)\*(?![\w*])", r"<em>\1</em>", chunk)
            rendered.append(chunk)
    return "".join(rendered).replace("\n\n", "</p>\n<p>")


def _html(blocks: Iterable[Block], title: str, lang: str) -> str:
    out = [f'<!DOCTYPE html>\n<html lang="{lang}">\n<head>\n<meta charset="utf-8">\n<title>{html.escape(title)}</title>\n'
           "<style>body{font-family:sans-serif;max-width:50em;margin:auto}pre{background:#f4f4f4;padding:.5em;"
           "overflow-x:auto}h3{page-break-after:avoid}</style>\n</head>\n<body>"]
    for block in blocks:
        kind = block[0]
        if kind in ("h1", "h2", "h3"):
            out.append(f"<{kind}>{_inline(block[1])}</{kind}>")
        elif kind == "p":
            out.append(f"<p>{_inline(block[1])}</p>")
        elif kind == "code":
            out.append(f'<pre><code class="language-{block[1]}">{html.escape(block[2])}</code></pre>')
        elif kind in ("list", "olist"):
            tag = "ul" if kind == "list" else "ol"
            out.append(f"<{tag}>\n" + "\n".join(f"<li>{_inline(item)}</li>" for item in block[1]) + f"\n</{tag}>")
    out.append("</body>\n</html>\n")
    return "\n".join(out)


def export(bank: Bank, kind: str = "handout", lang: str | None = "en", fmt: str = "md", *,
           topic: str | Iterable[str] | None = None) -> str:
    """A printable handout (questions, options, code) or answer key (answers, explanations).

    Args:
        bank: the loaded bank.
        kind: ``"handout"`` or ``"key"``.
        lang: ``"en"`` or ``"es"`` (None: the learner's language).
        fmt: ``"md"`` (Markdown) or ``"html"`` (a standalone page).
        topic: a topic id or a list of them (default: every topic).

    Raises:
        ValueError: an unknown kind, format, language or topic.
    """
    if kind not in KINDS:
        raise ValueError(f"unknown export kind {kind!r}; one of {', '.join(KINDS)}")
    if fmt not in FORMATS:
        raise ValueError(f"unknown export format {fmt!r}; one of {', '.join(FORMATS)}")
    lang = language(lang)
    if topic is None:
        topics = list(bank.topics)
    else:
        topics = [bank.topic(t) for t in ([topic] if isinstance(topic, str) else topic)]
    w = WORDS[lang]
    title = f"agentlab · {w[kind]}"
    blocks: list[Block] = [("h1", title)]
    number = 0
    for t in topics:
        blocks.append(("h2", t.title.get(lang)))
        for q in t.questions:
            number += 1
            blocks += _question_blocks(q, number, kind, lang)
    if number == 0:
        blocks.append(("p", w["empty"]))
    return _md(blocks) if fmt == "md" else _html(blocks, title, lang)
