"""Detectors: each reads a :class:`CaseRun` (journal, tool calls, outcome) and reports the
anti-pattern it sees, with the evidence (the step, the ``messages.N`` it concerns, and the API's
own error text when there was one).

A detector is a plain function ``detect(run) -> Finding | None`` registered in
:data:`DETECTORS`, in priority order: when several fire on one case, the first is the case's
diagnosis and the rest are listed too. Tags are the anti-pattern catalogue's
(``agentlab.antipatterns``); outcomes the catalogue does not cover (a hang, a non-string
return, a wrong answer) use the grader's own finding tags in :data:`FINDINGS`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Callable

from ..fake._journal import Exchange
from ._harness import CONTAINMENT_FINDINGS, NOT_RETURNED, CaseRun

__all__ = ["Finding", "ForeignValue", "DETECTORS", "FINDINGS", "detect_all", "DONE_WORDS", "ERROR_RUN_LIMIT", "COMPLETION_CLAIM",
           "UNFINISHED", "returned_text", "safe_describe", "says_unfinished", "lookup_crash"]

DONE_WORDS = re.compile(r"\b(done|final answer|finished|task complete|listo|terminado|respuesta final)\b", re.I)
"""Words a text-parsing loop looks for; the grader uses them to tell why a loop stopped early."""

COMPLETION_CLAIM = re.compile(
    r"\b(?:done|finished|complete|completed|success|successful|successfully|all set|accomplished"
    r"|hecho|listo|lista|terminad[oa]|terminé|completad[oa]|finalizad[oa]|éxito)\b", re.I)
"""Words with which a returned text claims the task is complete ("Task completed.", "Done.",
"Tarea terminada."): such a text is passed off as an answer unless it also says it is unfinished
(:data:`UNFINISHED`, which catches the negated forms: "not finished", "sin terminar")."""

UNFINISHED = re.compile(
    r"\b(?:incomplete|unfinished|not (?:yet )?(?:done|finished|complete|completed)|partial|partially|stopped|"
    r"gave up|giving up|cap|limit|cut|truncated|failed|failing|errors?|could not|couldn't|cannot|can't|unable|"
    r"incomplet[oa]|sin (?:terminar|completar)|no (?:se )?(?:termin|complet)\w*|a medias|parcial|parcialmente|"
    r"l[íi]mite|tope|cortad[oa]|detenid[oa]|se detuvo|fall[óo]|errores|no pud[eo]|no se pudo)\b", re.I)
"""Words with which a returned text says the task is unfinished (English and Spanish). The other
sign the grader reads is structural: the text names the stop reason it stopped on."""

ERROR_RUN_LIMIT = 10
"""Consecutive all-error tool turns from which a loop counts as having no bound on tool errors.
Seed 001 suggests stopping after 3; its own loop's 10-step cap allows at most 9, so a loop is
flagged only when nothing at all bounds the errors."""


@dataclass(frozen=True)
class Finding:
    """One thing a detector saw."""

    tag: str
    """Anti-pattern tag (catalogue) or grader finding tag (:data:`FINDINGS`)."""
    evidence: dict[str, str]
    """One sentence per language on what happened, pointing at the step and ``messages.N``."""
    step: int | None = None
    """The step the evidence is about."""
    api_error: str | None = None
    """The API's error message, quoted as sent, when the fault drew one."""
    fix: dict[str, str] | None = None
    """A fix for this finding in both languages, used instead of the catalogue's or
    :data:`FINDINGS`' (the Agent SDK grader reuses the grader's own tags with fixes for consumers)."""


FINDINGS: dict[str, dict[str, dict[str, str]]] = {
    "timeout": {
        "name": {"en": "Did not finish in time", "es": "No terminó a tiempo"},
        "fix": {"en": "Make sure the loop ends on end_turn and has a safety cap; avoid waiting or spinning outside the API calls.",
                "es": "Asegúrate de que el bucle termina en end_turn y tiene un tope de seguridad; no esperes ni gires fuera de las llamadas a la API."},
    },
    "unstoppable": {
        "name": {"en": "Could not be stopped", "es": "No se pudo detener"},
        "fix": {"en": "Do not block for long inside the loop, and never catch BaseException: catch the exceptions you can handle (anthropic.APIError, your tools' errors).",
                "es": "No te bloquees mucho tiempo dentro del bucle y no captures BaseException: captura solo las excepciones que sabes manejar (anthropic.APIError, los errores de tus herramientas)."},
    },
    "missing-is-error": {
        "name": {"en": "Tool error not flagged is_error", "es": "Error de herramienta sin is_error"},
        "fix": {"en": "Return a failed tool call as {\"type\": \"tool_result\", \"tool_use_id\": ..., \"content\": \"Error: ...\", \"is_error\": true} (seeds 001, 003).",
                "es": "Devuelve la llamada fallida como {\"type\": \"tool_result\", \"tool_use_id\": ..., \"content\": \"Error: ...\", \"is_error\": true} (semillas 001, 003)."},
    },
    "returned-non-string": {
        "name": {"en": "Returned something that is not a string", "es": "Devolvió algo que no es un string"},
        "fix": {"en": "agent_loop(client, prompt, tools, run_tool) returns the final text as a str.",
                "es": "agent_loop(client, prompt, tools, run_tool) devuelve el texto final como str."},
    },
    "wrong-answer": {
        "name": {"en": "Not the final answer", "es": "No es la respuesta final"},
        "fix": {"en": "Return the text blocks of the end_turn response, joined.",
                "es": "Devuelve los bloques de texto de la respuesta end_turn, unidos."},
    },
    "loop-raised": {
        "name": {"en": "The loop raised", "es": "El bucle lanzó una excepción"},
        "fix": {"en": "On this case a correct loop finishes; read the exception and the journal.",
                "es": "En este caso un bucle correcto termina; lee la excepción y el registro."},
    },
    "api-error": {
        "name": {"en": "The API rejected a request", "es": "La API rechazó una petición"},
        "fix": {"en": "Read the API's error text: it names the offending messages.N.",
                "es": "Lee el texto de error de la API: indica el messages.N culpable."},
    },
}
"""The grader's own findings (not anti-patterns): name and fix in English and Spanish."""
FINDINGS.update(CONTAINMENT_FINDINGS)  # the isolated grader's: a refused operation, the child's death, a limit


def _ev(en: str, es: str) -> dict[str, str]:
    return {"en": en, "es": es}


# ------------------------------------------------------------------------------------ views


def _text(content: list[dict[str, Any]]) -> str:
    return "".join(b.get("text", "") for b in content if b.get("type") == "text")


def _api_errors(run: CaseRun) -> list[Exchange]:
    return [e for e in run.journal.steps if e.error is not None and e.rule not in (None, "fault", "runaway")]


def _last_ok(run: CaseRun) -> Exchange | None:
    ok = [e for e in run.journal.steps if e.ok]
    return ok[-1] if ok else None


def _returned(run: CaseRun) -> bool:
    return run.returned is not NOT_RETURNED and run.exception is None


def returned_text(run: CaseRun) -> str | None:
    """What the loop returned when it is a real ``str`` (``type(x) is str``), else None.

    The type is checked before anything else: a ``str`` subclass may override ``in``, ``strip``
    or ``==``, so none of its methods is ever called (it is ``returned-non-string``)."""
    value = run.returned
    return value if type(value) is str else None


class ForeignValue:
    """Base of the grader's stand-ins for a value a loop in another language returned (the
    TypeScript grader's ``JsValue``): the type is the grader's own, so its methods are safe to
    call. :func:`safe_describe` uses :meth:`describe`, and ``judge``'s ``returned-non-string``
    text uses :meth:`returned_non_string`, so the detectors stay the same for every language."""

    def describe(self) -> str:
        """The value for an explanation (what :func:`safe_describe` gives)."""
        raise NotImplementedError

    def returned_non_string(self) -> tuple[dict[str, str], dict[str, str] | None]:
        """``(evidence, fix)`` of the ``returned-non-string`` finding, each ``{"en": ..., "es": ...}``
        (fix None: the catalogue's)."""
        raise NotImplementedError


def safe_describe(value: Any, limit: int = 80) -> str:
    """``value`` for an explanation without running the learner's code: ``repr`` only for exact
    built-in scalars and strings (through ``str.__repr__`` for a ``str`` subclass), otherwise the
    type's name alone (read from the type, never from the object)."""
    kind = type(value)
    if type(kind) is type and issubclass(kind, ForeignValue):
        text = kind.describe(value)
    elif kind in (type(None), bool, int, float, bytes, str):
        text = repr(value)
    elif isinstance(value, str):
        text = f"{kind.__qualname__ if type(kind) is type else 'str subclass'} {str.__repr__(value)}"
    else:
        text = f"a {kind.__qualname__ if type(kind) is type else 'object'} object"
    return text if len(text) <= limit else text[: limit - 1] + "…"


def says_unfinished(text: str, stop_reason: str | None) -> bool:
    """Whether ``text`` (not the model's) says the work is unfinished: it names ``stop_reason``
    (the structural sign: "Stopped early: max_tokens") or holds a word of :data:`UNFINISHED`."""
    return bool(stop_reason and stop_reason in text) or UNFINISHED.search(text) is not None


def _passed_off_as_answer(run: CaseRun) -> bool:
    """Whether the loop returned something as if it were the finished answer when it was not.

    A loop may stop early by returning a text that says so (seed 001: return the partial work and
    make clear the task is unfinished). Passed off as the answer: the model's own text, or an empty
    string (indistinguishable from a finished answer), or a text of the loop's own that claims
    completion (:data:`COMPLETION_CLAIM`: "Task completed.") without saying it is unfinished
    (:func:`says_unfinished`). A returned value that is not a real ``str`` is not judged here.
    """
    said = returned_text(run)
    if said is None:
        return False
    said = said.strip()
    texts = {_text(e.content).strip() for e in run.journal.steps if e.ok}
    if said == "" or said in texts:
        return True
    last = _last_ok(run)
    return COMPLETION_CLAIM.search(said) is not None and not says_unfinished(said, last.stop_reason if last else None)


def lookup_crash(run: CaseRun) -> str | None:
    """The stop reason the loop crashed on while looking it up, or None.

    A dispatch table without a key for a stop reason (``STEPS[response.stop_reason]``) raises
    ``KeyError('<stop reason>')``: the loop had no branch for it and died by accident, instead of
    stopping on purpose with an error that names it (reference 2; the SDK's tool runner keys its
    table by every ``StopReason``). Read from the exception's type and ``args`` only."""
    exc = run.exception
    last = _last_ok(run)
    if last is None or last.stop_reason is None or not isinstance(exc, KeyError):
        return None
    args = BaseException.__getattribute__(exc, "args")
    return last.stop_reason if len(args) == 1 and type(args[0]) is str and args[0] == last.stop_reason else None


def merged_last_user_turn(messages: list[Any]) -> tuple[int, list[dict[str, Any]]]:
    """The last user turn as the model reads it: the trailing run of consecutive ``user`` messages
    merged into one turn (the API combines consecutive same-role turns: SDK docstring of
    ``MessageCreateParams.messages``, reference 3.2 rule 6; tool pairing, rule 1, is still checked
    on the messages as sent).

    Returns:
        ``(first, blocks)``: the index of the run's first message (``len(messages)`` when the last
        message is not a user message) and the run's content blocks in order, a string content
        counted as one text block; blocks that are not dicts are skipped.
    """
    first = len(messages)
    while first > 0 and isinstance(messages[first - 1], dict) and messages[first - 1].get("role") == "user":
        first -= 1
    blocks: list[dict[str, Any]] = []
    for message in messages[first:]:
        blocks += _blocks_of(message)
    return first, blocks


def _calls_at(run: CaseRun, step: int | None) -> list:
    return [c for c in run.calls if c.step == step]


def _tool_uses(e: Exchange) -> list[dict[str, Any]]:
    return [b for b in e.content if b.get("type") == "tool_use"]


def _is_tool_error(run: CaseRun) -> bool:
    exc = run.exception
    tool_errors = [c.error for c in run.calls if c.error is not None]
    seen = set()
    while exc is not None and id(exc) not in seen:
        if any(exc is err for err in tool_errors):
            return True
        seen.add(id(exc))
        exc = exc.__cause__ or exc.__context__
    return False


def _blocks_of(message: Any) -> list[dict[str, Any]]:
    content = message.get("content") if isinstance(message, dict) else None
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return [b for b in content if isinstance(b, dict)] if isinstance(content, list) else []


# ------------------------------------------------------------------------------------ API errors


def _error_with_rule(run: CaseRun, *rules: str) -> Exchange | None:
    return next((e for e in _api_errors(run) if e.rule in rules), None)


def _misplaced_assistant_turn(run: CaseRun) -> tuple[Exchange, int, int] | None:
    """A request whose conversation ends with an assistant turn of tool calls whose results were
    appended BEFORE it: ``(exchange, results_index, assistant_index)``."""
    for e in _api_errors(run):
        if not e.messages or not isinstance(e.messages[-1], dict) or e.messages[-1].get("role") != "assistant":
            continue
        ids = {b.get("id") for b in _blocks_of(e.messages[-1]) if b.get("type") == "tool_use"}
        for i in range(len(e.messages) - 2, -1, -1):
            message = e.messages[i]
            if isinstance(message, dict) and message.get("role") == "assistant":
                break
            if ids & {b.get("tool_use_id") for b in _blocks_of(message) if b.get("type") == "tool_result"}:
                return e, i, len(e.messages) - 1
    return None


def missing_assistant_turn(run: CaseRun) -> Finding | None:
    misplaced = _misplaced_assistant_turn(run)
    if misplaced is not None:
        e, results, assistant = misplaced
        return Finding("missing-assistant-turn", _ev(
            f"At step {e.step}, messages.{results} holds tool results but the assistant turn that asked for them comes "
            f"after it (messages.{assistant}): the results were appended before the assistant turn.",
            f"En el paso {e.step}, messages.{results} lleva resultados de herramientas pero el turno del asistente que "
            f"los pidió va después (messages.{assistant}): los resultados se añadieron antes que el turno del asistente."),
            step=e.step, api_error=e.error["message"])
    e = _error_with_rule(run, "16")
    if e is None or "srvtoolu_" in e.error["message"]:
        return None
    index = int(re.match(r"messages\.(\d+)", e.error["message"]).group(1))
    previous = e.messages[index - 1] if index > 0 else None
    if isinstance(previous, dict) and previous.get("role") == "assistant":
        return None
    return Finding("missing-assistant-turn", _ev(
        f"At step {e.step}, messages.{index} holds tool results but the message before it is not the assistant turn that asked for them.",
        f"En el paso {e.step}, messages.{index} lleva resultados de herramientas pero el mensaje anterior no es el turno del asistente que los pidió."),
        step=e.step, api_error=e.error["message"])


def fabricated_server_tool_result(run: CaseRun) -> Finding | None:
    for e in run.journal.steps:
        for i, message in enumerate(e.messages):
            for block in _blocks_of(message):
                if block.get("type") == "tool_result" and str(block.get("tool_use_id", "")).startswith("srvtoolu_"):
                    return Finding("fabricated-server-tool-result", _ev(
                        f"At step {e.step}, messages.{i} answers the server tool call {block.get('tool_use_id')} with a made-up tool_result.",
                        f"En el paso {e.step}, messages.{i} responde a la llamada de herramienta de servidor {block.get('tool_use_id')} con un tool_result inventado."),
                        step=e.step, api_error=e.error["message"] if e.error else None)
    return None


def _text_message_before_results(run: CaseRun) -> tuple[Exchange, int] | None:
    """A rule-15 rejection whose assistant turn is followed by a user message of text and then a
    user message with the tool results: one user turn once the API merges them, with the text
    first (pairing itself is checked on the messages as sent, reference 3.2 rule 6)."""
    found = _rule15(run)
    if found is None:
        return None
    e, index, _, following = found
    users = []
    for message in following:
        if not (isinstance(message, dict) and message.get("role") == "user"):
            break
        users.append(message)
    kinds = [b.get("type") for m in users for b in _blocks_of(m)]
    if len(users) >= 2 and kinds and kinds[0] == "text" and "tool_result" in kinds:
        return e, index + 1
    return None


def text_before_tool_result(run: CaseRun) -> Finding | None:
    separate = _text_message_before_results(run)
    if separate is not None:
        e, i = separate
        return Finding("text-before-tool-result", _ev(
            f"At step {e.step} a user message of text (messages.{i}) came before the tool results: once the API merges "
            "the consecutive user messages, the text is first in that turn.",
            f"En el paso {e.step} un mensaje de usuario con texto (messages.{i}) llegó antes de los resultados: cuando la "
            "API une los mensajes de usuario seguidos, el texto va primero en ese turno."),
            step=e.step, api_error=e.error["message"])
    e = _error_with_rule(run, "17")
    if e is None:
        return None
    return Finding("text-before-tool-result", _ev(
        f"At step {e.step} the user turn put a text block before its tool_result blocks.",
        f"En el paso {e.step} el turno de usuario puso un bloque de texto antes de sus tool_result."),
        step=e.step, api_error=e.error["message"])


def _rule15(run: CaseRun) -> tuple[Exchange, int, list[dict], list[dict]] | None:
    e = _error_with_rule(run, "15")
    if e is None:
        return None
    index = int(re.match(r"messages\.(\d+)", e.error["message"]).group(1))
    following = e.messages[index + 1 :]
    return e, index, _blocks_of(e.messages[index]), following


def results_not_appended(run: CaseRun) -> Finding | None:
    if _misplaced_assistant_turn(run) is not None:
        return None  # appended, but before the assistant turn: missing-assistant-turn names it
    prefill = _error_with_rule(run, "13", "14")
    if prefill is not None and prefill.messages and any(
            b.get("type") == "tool_use" for b in _blocks_of(prefill.messages[-1])):
        index = len(prefill.messages) - 1
        return Finding("results-not-appended", _ev(
            f"At step {prefill.step} the conversation ends with the assistant's tool calls (messages.{index}): the tool results were never appended.",
            f"En el paso {prefill.step} la conversación termina con las llamadas del asistente (messages.{index}): los resultados nunca se añadieron."),
            step=prefill.step, api_error=prefill.error["message"])
    found = _rule15(run)
    if found is not None and not found[3]:
        e, index, _, _ = found
        return Finding("results-not-appended", _ev(
            f"At step {e.step} the conversation ends with the assistant's tool calls (messages.{index}): the tool results were never appended.",
            f"En el paso {e.step} la conversación termina con las llamadas del asistente (messages.{index}): los resultados nunca se añadieron."),
            step=e.step, api_error=e.error["message"])
    steps = run.journal.steps
    for prev, e in zip(steps, steps[1:]):
        if e.repeat_of is not None and prev.stop_reason == "tool_use" and _calls_at(run, prev.step):
            return Finding("results-not-appended", _ev(
                f"Step {e.step} re-sent exactly the request of step {e.repeat_of}: the tools ran, but neither the assistant turn nor the results reached the history.",
                f"El paso {e.step} reenvió exactamente la petición del paso {e.repeat_of}: las herramientas se ejecutaron, pero ni el turno del asistente ni los resultados llegaron al historial."),
                step=e.step)
    return None


def split_tool_results(run: CaseRun) -> Finding | None:
    found = _rule15(run)
    if found is None:
        return None
    e, index, _, following = found
    users = []
    for message in following:
        if not (isinstance(message, dict) and message.get("role") == "user"):
            break
        users.append(message)
    if len(users) < 2 or not all(any(b.get("type") == "tool_result" for b in _blocks_of(m)) for m in users):
        return None
    return Finding("split-tool-results", _ev(
        f"At step {e.step} the results of messages.{index}'s tool calls came in {len(users)} separate user messages instead of one.",
        f"En el paso {e.step} los resultados de las llamadas de messages.{index} llegaron en {len(users)} mensajes de usuario separados en lugar de uno."),
        step=e.step, api_error=e.error["message"])


def missing_tool_result(run: CaseRun) -> Finding | None:
    found = _rule15(run)
    if (found is None or not found[3] or split_tool_results(run) is not None or "srvtoolu_" in found[0].error["message"]
            or _text_message_before_results(run) is not None):
        return None
    e, index, _, _ = found
    return Finding("missing-tool-result", _ev(
        f"At step {e.step} some tool calls of messages.{index} got no tool_result in messages.{index + 1}.",
        f"En el paso {e.step} algunas llamadas de messages.{index} no recibieron tool_result en messages.{index + 1}."),
        step=e.step, api_error=e.error["message"])


def strips_thinking(run: CaseRun) -> Finding | None:
    e = _error_with_rule(run, "26", "27", "28", "29")
    if e is None:
        return None
    return Finding("strips-thinking", _ev(
        f"At step {e.step} the assistant turn came back without its thinking blocks exactly as issued.",
        f"En el paso {e.step} el turno del asistente volvió sin sus bloques thinking tal como llegaron."),
        step=e.step, api_error=e.error["message"])


# ------------------------------------------------------------------------------------ history


_THINKING = ("thinking", "redacted_thinking")


def _normal(block: dict[str, Any]) -> tuple:
    kind = block.get("type")
    if kind == "text":
        return (kind, block.get("text"))
    if kind in ("tool_use", "server_tool_use"):
        return (kind, block.get("id"), block.get("name"), repr(block.get("input")))
    if kind == "thinking":
        return (kind, block.get("thinking"), block.get("signature"))
    if kind == "redacted_thinking":
        return (kind, block.get("data"))
    return (kind, block.get("tool_use_id"))


def rebuilt_assistant_turn(run: CaseRun) -> Finding | None:
    steps = run.journal.steps
    for j, e in enumerate(steps):
        if not e.ok or e.stop_reason not in ("tool_use", "pause_turn"):
            continue
        position = len(e.messages)
        for later in steps[j + 1 :]:
            if len(later.messages) <= position:
                continue
            sent = later.messages[position]
            if not (isinstance(sent, dict) and sent.get("role") == "assistant"):
                break
            # thinking blocks are strips-thinking's business (the API rejects those changes itself)
            issued = [_normal(b) for b in e.content if b.get("type") not in _THINKING]
            if [_normal(b) for b in _blocks_of(sent) if b.get("type") not in _THINKING] != issued:
                return Finding("rebuilt-assistant-turn", _ev(
                    f"At step {later.step}, messages.{position} is not the assistant turn of step {e.step} as it came: blocks were dropped, changed or reordered.",
                    f"En el paso {later.step}, messages.{position} no es el turno del asistente del paso {e.step} tal como llegó: se quitaron, cambiaron o reordenaron bloques."),
                    step=later.step)
            break
    return None


def text_after_tool_result(run: CaseRun) -> Finding | None:
    """Text after the tool_result blocks of the last user turn, judged on the turn as the API merges
    it: a separate user message of text after the tool_result message is the same trailing text
    (consecutive user turns are combined: SDK docstring of ``MessageCreateParams.messages``,
    reference 3.2 rule 6)."""
    for e in run.journal.steps:
        first, blocks = merged_last_user_turn(e.messages)
        kinds = [b.get("type") for b in blocks]
        if "tool_result" in kinds and "text" in kinds[len(kinds) - kinds[::-1].index("tool_result"):]:
            last = len(e.messages) - 1
            where = f"messages.{last}" if first == last else f"messages.{first}-{last} (one turn once the API merges them)"
            donde = f"messages.{last}" if first == last else f"messages.{first}-{last} (un solo turno cuando la API los une)"
            return Finding("text-after-tool-result", _ev(
                f"At step {e.step} the user turn {where} added text after its tool_result blocks"
                + (": the model answered with an empty end_turn." if e.ok and not e.content else "."),
                f"En el paso {e.step} el turno de usuario {donde} añadió texto después de sus tool_result"
                + (": el modelo respondió con un end_turn vacío." if e.ok and not e.content else "."),),
                step=e.step)
    return None


def forced_tool_choice(run: CaseRun) -> Finding | None:
    for e in run.journal.steps:
        choice = (e.request or {}).get("tool_choice")
        if isinstance(choice, dict) and choice.get("type") in ("any", "tool"):
            return Finding("forced-tool-choice", _ev(
                f"Step {e.step} sent tool_choice {choice.get('type')!r}: the model must call a tool and can never finish with text.",
                f"El paso {e.step} envió tool_choice {choice.get('type')!r}: el modelo está obligado a llamar a una herramienta y nunca puede terminar con texto."),
                step=e.step)
    return None


# ------------------------------------------------------------------------------------ stop reasons


def _after(run: CaseRun, stop_reason: str) -> tuple[Exchange, list[Exchange]] | None:
    steps = run.journal.steps
    for j, e in enumerate(steps):
        if e.stop_reason == stop_reason:
            return e, steps[j + 1 :]
    return None


def retries_refusal(run: CaseRun) -> Finding | None:
    found = _after(run, "refusal")
    if found is None or not found[1]:
        return None
    e, later = found
    return Finding("retries-refusal", _ev(
        f"Step {e.step} was refused (stop_reason refusal) and the loop sent {len(later)} more request(s).",
        f"El paso {e.step} fue rechazado (stop_reason refusal) y el bucle envió {len(later)} petición(es) más."),
        step=later[0].step)


def resends_unchanged_request(run: CaseRun) -> Finding | None:
    steps = run.journal.steps
    for prev, e in zip(steps, steps[1:]):
        if e.repeat_of is not None and prev.stop_reason == "max_tokens":
            return Finding("resends-unchanged-request", _ev(
                f"Step {e.step} re-sent the request of step {e.repeat_of} unchanged after stop_reason max_tokens: the same cut, paid again.",
                f"El paso {e.step} reenvió sin cambios la petición del paso {e.repeat_of} tras stop_reason max_tokens: el mismo corte, pagado otra vez."),
                step=e.step)
    return None


def unhandled_stop_reason(run: CaseRun) -> Finding | None:
    """A stop reason the loop has no branch for: it crashed looking it up (a dispatch table without
    the key), went round again after ``model_context_window_exceeded`` or ``stop_sequence`` (a
    controlled end), or returned the context window's cut text as if it were complete."""
    crashed = lookup_crash(run)
    if crashed is not None:
        last = _last_ok(run)
        return Finding("unhandled-stop-reason", _ev(
            f"Step {last.step} ended with stop_reason {crashed} and the loop crashed with KeyError: {crashed!r} while "
            "looking it up: its dispatch has no entry for this stop reason and no default that stops on purpose.",
            f"El paso {last.step} terminó con stop_reason {crashed} y el bucle cayó con KeyError: {crashed!r} al "
            "buscarlo: su tabla de despacho no tiene entrada para esta razón de detención ni un caso por defecto que "
            "pare a propósito."),
            step=last.step)
    for reason in ("model_context_window_exceeded", "stop_sequence"):
        found = _after(run, reason)
        if found is not None and found[1]:
            e, later = found
            return Finding("unhandled-stop-reason", _ev(
                f"Step {e.step} ended with {reason} and the loop kept going ({len(later)} more request(s))"
                + (": stop_sequence is a controlled end, so return the text." if reason == "stop_sequence" else "."),
                f"El paso {e.step} terminó con {reason} y el bucle siguió ({len(later)} petición(es) más)"
                + (": stop_sequence es un fin controlado, así que devuelve el texto." if reason == "stop_sequence" else "."),),
                step=later[0].step, api_error=next((x.error["message"] for x in later if x.error), None))
    found = _after(run, "model_context_window_exceeded")
    if found is None:
        return None
    e, _ = found
    if _returned(run) and _passed_off_as_answer(run):
        return Finding("unhandled-stop-reason", _ev(
            f"Step {e.step} ended with model_context_window_exceeded and the loop returned the cut text as if it were complete.",
            f"El paso {e.step} terminó con model_context_window_exceeded y el bucle devolvió el texto cortado como si estuviera completo."),
            step=e.step)
    return None


def ignores_pause_turn(run: CaseRun) -> Finding | None:
    paused = _rule15(run)
    if paused is not None and "srvtoolu_" in paused[0].error["message"]:
        e, index, _, following = paused
        return Finding("ignores-pause-turn", _ev(
            f"At step {e.step} a message was added after the paused turn messages.{index} (pause_turn): it must go back unchanged, as the last message.",
            f"En el paso {e.step} se añadió un mensaje después del turno pausado messages.{index} (pause_turn): debe volver sin cambios, como último mensaje."),
            step=e.step, api_error=e.error["message"])
    found = _after(run, "pause_turn")
    if found is None:
        return None
    e, later = found
    if later:
        return None
    return Finding("ignores-pause-turn", _ev(
        f"Step {e.step} ended with pause_turn and the loop stopped there instead of sending the assistant turn back.",
        f"El paso {e.step} terminó con pause_turn y el bucle paró ahí en lugar de reenviar el turno del asistente."),
        step=e.step)


def executes_truncated_tool_use(run: CaseRun) -> Finding | None:
    for e in run.journal.steps:
        if e.stop_reason != "max_tokens" or not e.content or e.content[-1].get("type") != "tool_use":
            continue
        cut = e.content[-1]
        for call in _calls_at(run, e.step):
            if call.name == cut.get("name"):
                return Finding("executes-truncated-tool-use", _ev(
                    f"Step {e.step} was cut by max_tokens inside a {cut.get('name')} call and the loop ran it with the incomplete input {call.input!r}.",
                    f"El paso {e.step} se cortó por max_tokens dentro de una llamada a {cut.get('name')} y el bucle la ejecutó con el input incompleto {call.input!r}."),
                    step=e.step)
    return None


def ignores_max_tokens(run: CaseRun) -> Finding | None:
    last = _last_ok(run)
    if last is None or last.stop_reason != "max_tokens" or not _returned(run):
        return None
    if _passed_off_as_answer(run):
        return Finding("ignores-max-tokens", _ev(
            f"Step {last.step} was cut by max_tokens and the loop returned its text as the finished answer.",
            f"El paso {last.step} se cortó por max_tokens y el bucle devolvió su texto como respuesta terminada."),
            step=last.step)
    return None


# ------------------------------------------------------------------------------------ termination


def text_parsing_termination(run: CaseRun) -> Finding | None:
    steps = run.journal.steps
    for prev, e in zip(steps, steps[1:]):
        if prev.stop_reason == "end_turn" and prev.content and (e.ok or e.error):
            return Finding("text-parsing-termination", _ev(
                f"Step {prev.step} ended with end_turn but the loop sent another request (step {e.step}): it was waiting for words in the text, not for stop_reason.",
                f"El paso {prev.step} terminó con end_turn pero el bucle envió otra petición (paso {e.step}): esperaba palabras en el texto, no stop_reason."),
                step=e.step, api_error=e.error["message"] if e.error else None)
    last = _last_ok(run)
    if last is not None and last.stop_reason == "tool_use" and _returned(run) and not _calls_at(run, last.step):
        said = _text(last.content)
        if DONE_WORDS.search(said):
            return Finding("text-parsing-termination", _ev(
                f"Step {last.step} asked for a tool (stop_reason tool_use) but its text said {DONE_WORDS.search(said).group(0)!r} and the loop stopped.",
                f"El paso {last.step} pedía una herramienta (stop_reason tool_use) pero su texto decía {DONE_WORDS.search(said).group(0)!r} y el bucle paró."),
                step=last.step)
    return None


def _own_text(run: CaseRun) -> bool:
    """Whether the loop returned a non-empty ``str`` of its own: not any text the model wrote."""
    said = returned_text(run)
    if said is None or not said.strip():
        return False
    return said.strip() not in {_text(e.content).strip() for e in run.journal.steps if e.ok}


def _stopped_on_tool_use_without_running(run: CaseRun) -> Exchange | None:
    """The last step asked for tools, none ran, and the loop returned the model's text or nothing
    (a text of the loop's own is a stop at its cap: :func:`iteration_cap_as_stop`)."""
    last = _last_ok(run)
    if (last is None or last.stop_reason != "tool_use" or not _returned(run) or _calls_at(run, last.step)
            or _own_text(run)):
        return None
    return last


def has_text_means_done(run: CaseRun) -> Finding | None:
    last = _stopped_on_tool_use_without_running(run)
    if last is None or not _text(last.content) or DONE_WORDS.search(_text(last.content)):
        return None
    return Finding("has-text-means-done", _ev(
        f"Step {last.step} had text AND a tool call (stop_reason tool_use); the loop returned the text and never ran the tool.",
        f"El paso {last.step} traía texto Y una llamada (stop_reason tool_use); el bucle devolvió el texto y nunca ejecutó la herramienta."),
        step=last.step)


def no_text_means_done(run: CaseRun) -> Finding | None:
    last = _stopped_on_tool_use_without_running(run)
    if last is None or _text(last.content):
        return None
    return Finding("no-text-means-done", _ev(
        f"Step {last.step} had no text, only a tool call (stop_reason tool_use); the loop took that as the end.",
        f"El paso {last.step} no traía texto, solo una llamada (stop_reason tool_use); el bucle lo tomó como el final."),
        step=last.step)


def iteration_cap_as_stop(run: CaseRun) -> Finding | None:
    """The loop returned while the model was still working (stop_reason ``tool_use``) and passed
    what it returned off as the answer: after running the last step's tools, the model's text or
    nothing; with or without running them, a completion claim of its own such as "Task
    completed." (see :func:`_passed_off_as_answer`)."""
    last = _last_ok(run)
    if last is None or last.stop_reason != "tool_use" or not _returned(run) or not _passed_off_as_answer(run):
        return None
    if not _calls_at(run, last.step) and not _own_text(run):
        return None  # the model's text or nothing, tools not run: has-text-means-done / no-text-means-done
    said = safe_describe(run.returned)
    return Finding("iteration-cap-as-stop", _ev(
        f"The loop returned {said} after {len(run.journal.steps)} requests while the model was still working (step {last.step}: stop_reason tool_use), as if the task were done.",
        f"El bucle devolvió {said} tras {len(run.journal.steps)} peticiones mientras el modelo seguía trabajando (paso {last.step}: stop_reason tool_use), como si la tarea hubiera terminado."),
        step=last.step)


# ------------------------------------------------------------------------------------ tools and guardrails


def _error_never_sent(run: CaseRun) -> Any:
    """The first failed tool call when the loop ended right after it (no later request at all), so
    its ``tool_use`` never got a ``tool_result`` and the model never saw the error; else None."""
    call = next((c for c in run.calls if c.error is not None), None)
    if call is None or call.step is None:
        return None
    return call if not [e for e in run.journal.steps if e.step > call.step] else None


def tool_error_crashes_loop(run: CaseRun) -> Finding | None:
    """A tool's exception ended the loop, or the loop caught it and ended (an apology, a default
    answer, its own exception) without ever sending the error back: the failing call's
    ``tool_use`` is never answered, whatever the loop returns."""
    swallowed = _error_never_sent(run) if not _is_tool_error(run) else None
    if swallowed is not None:
        outcome_en = ("returned " + safe_describe(run.returned) if run.exception is None
                      else f"raised {type(run.exception).__name__}")
        outcome_es = ("devolvió " + safe_describe(run.returned) if run.exception is None
                      else f"lanzó {type(run.exception).__name__}")
        return Finding("tool-error-crashes-loop", _ev(
            f"The tool {swallowed.name} raised {type(swallowed.error).__name__}: {swallowed.error} at step {swallowed.step}; "
            f"the loop {outcome_en} without sending the error back, so its tool_use never got a tool_result and the "
            "model never learned the call failed.",
            f"La herramienta {swallowed.name} lanzó {type(swallowed.error).__name__}: {swallowed.error} en el paso "
            f"{swallowed.step}; el bucle {outcome_es} sin devolver el error, así que su tool_use nunca recibió un "
            "tool_result y el modelo no supo que la llamada falló."),
            step=swallowed.step)
    if not _is_tool_error(run):
        return None
    call = next(c for c in run.calls if c.error is not None)
    return Finding("tool-error-crashes-loop", _ev(
        f"The tool {call.name} raised {type(call.error).__name__}: {call.error} at step {call.step}, and the exception ended the loop.",
        f"La herramienta {call.name} lanzó {type(call.error).__name__}: {call.error} en el paso {call.step}, y la excepción terminó el bucle."),
        step=call.step)


def _failed_call_ids(run: CaseRun) -> set[str]:
    """``tool_use`` ids whose run_tool call raised (error results count as errors with or without ``is_error``)."""
    by_step = {e.step: e for e in run.journal.steps}
    failed: set[str] = set()
    for call in run.calls:
        e = by_step.get(call.step)
        if call.error is not None and e is not None:
            failed |= {b.get("id") for b in _tool_uses(e) if b.get("name") == call.name and b.get("input") == call.input}
    return failed


def missing_is_error(run: CaseRun) -> Finding | None:
    """A tool raised and its error went back as an ordinary result, without ``is_error: true``."""
    failed = _failed_call_ids(run)
    for e in run.journal.steps:
        last = e.messages[-1] if e.messages else None
        if not (isinstance(last, dict) and last.get("role") == "user"):
            continue
        for j, b in enumerate(_blocks_of(last)):
            if b.get("type") == "tool_result" and b.get("tool_use_id") in failed and not b.get("is_error"):
                i = len(e.messages) - 1
                return Finding("missing-is-error", _ev(
                    f"At step {e.step}, messages.{i}.content.{j} reports a failed tool call as an ordinary result (no is_error: true): the model cannot tell it failed.",
                    f"En el paso {e.step}, messages.{i}.content.{j} devuelve una llamada fallida como resultado normal (sin is_error: true): el modelo no sabe que falló."),
                    step=e.step)
    return None


def error_streak(run: CaseRun) -> int:
    """The longest run of consecutive requests whose last user turn holds only error results
    (flagged ``is_error``, or the result of a call whose run_tool raised)."""
    failed = _failed_call_ids(run)
    streak, longest = 0, 0
    for e in run.journal.steps:
        last = e.messages[-1] if e.messages else None
        results = [b for b in _blocks_of(last) if b.get("type") == "tool_result"] if isinstance(last, dict) and last.get("role") == "user" else []
        streak = streak + 1 if results and all(b.get("is_error") or b.get("tool_use_id") in failed for b in results) else 0
        longest = max(longest, streak)
    return longest


def unbounded_tool_errors(run: CaseRun) -> Finding | None:
    longest = error_streak(run)
    if longest < ERROR_RUN_LIMIT and not (run.runaway and longest >= 3):
        return None
    return Finding("unbounded-tool-errors", _ev(
        f"The loop sent {longest} turns in a row whose tool results were all errors before anything stopped it: "
        "nothing bounds consecutive tool errors (seed 001: stop after 3).",
        f"El bucle envió {longest} turnos seguidos con todos los resultados en error antes de que algo lo parara: "
        "nada limita los errores seguidos (semilla 001: parar tras 3)."))


def hardcoded_tool_sequence(run: CaseRun) -> Finding | None:
    by_step = {e.step: e for e in run.journal.steps}
    for call in run.calls:
        e = by_step.get(call.step)
        asked = [(b.get("name"), b.get("input")) for b in _tool_uses(e)] if e is not None else []
        if (call.name, call.input) not in asked:
            where = f"after step {call.step}" if call.step is not None else "before the first request"
            donde = f"tras el paso {call.step}" if call.step is not None else "antes de la primera petición"
            return Finding("hardcoded-tool-sequence", _ev(
                f"The loop ran {call.name}({call.input!r}) {where}, which the model did not ask for: the code, not the model, chose the tool.",
                f"El bucle ejecutó {call.name}({call.input!r}) {donde}, y el modelo no lo había pedido: eligió el código, no el modelo."),
                step=call.step)
    return None


def no_safety_cap(run: CaseRun) -> Finding | None:
    if not run.runaway:
        return None
    return Finding("no-safety-cap", _ev(
        f"The loop made {len(run.journal.steps)} requests and never stopped on its own: the fake stopped it (RunawayLoop).",
        f"El bucle hizo {len(run.journal.steps)} peticiones y nunca paró por sí mismo: lo detuvo el fake (RunawayLoop)."))


DETECTORS: tuple[Callable[[CaseRun], Finding | None], ...] = (
    fabricated_server_tool_result,
    missing_assistant_turn,
    text_before_tool_result,
    split_tool_results,
    results_not_appended,
    missing_tool_result,
    strips_thinking,
    rebuilt_assistant_turn,
    forced_tool_choice,
    text_after_tool_result,
    executes_truncated_tool_use,
    tool_error_crashes_loop,
    missing_is_error,
    retries_refusal,
    unhandled_stop_reason,
    resends_unchanged_request,
    ignores_pause_turn,
    ignores_max_tokens,
    text_parsing_termination,
    has_text_means_done,
    no_text_means_done,
    hardcoded_tool_sequence,
    unbounded_tool_errors,
    iteration_cap_as_stop,
    no_safety_cap,
)
"""Every detector, in priority order (the most specific evidence first)."""


def detect_all(run: CaseRun) -> list[Finding]:
    """Every finding on ``run``, in priority order, one per tag."""
    findings: list[Finding] = []
    for detector in DETECTORS:
        finding = detector(run)
        if finding is not None and all(f.tag != finding.tag for f in findings):
            findings.append(finding)
    return findings
