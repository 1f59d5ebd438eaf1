"""The anti-pattern catalogue: every fault the course teaches, as data, in one place.

Each :class:`AntiPattern` is one row: a stable kebab-case ``tag`` (the grader's diagnoses, the
quiz's misconception tags and the notebooks' sections all use it), a short ``name``, an
``explanation`` (what the fault is and the symptom the learner sees) and the ``fix``, each in
English and Spanish, the ``seed`` it comes from, the built-in ``scenarios`` that expose it, a
``family`` for grouping, and ``api_error``: the reference section-7 rule id when the fault makes
the API answer 400 (:data:`agentlab.fake._rules.RULES_BY_ID` has the same ids). The
``agent-sdk`` family holds the faults of code that consumes the Claude Agent SDK's messages
(graded by ``agentlab.grade`` on an ``async def consume(messages)``, seed 004)::

    from agentlab import antipatterns
    ap = antipatterns.get("missing-assistant-turn")
    ap.text("fix", "es")          # the fix in Spanish (default: the learner's language)
    antipatterns.TAGS             # every tag, in course order
    antipatterns.SDK_TAGS         # the agent-sdk family's (LOOP_TAGS: all the others)

Where the seeds disagree, the texts teach the nuance instead of picking a side:

- Seed 002's minimal loop stops on "any stop reason other than tool_use", while seed 003 says
  ``max_tokens`` is not the end of the task and seeds 000/001 continue on ``pause_turn``.
  Stopping is never the fault: ``ignores-max-tokens`` is returning the cut text *as if it were
  complete*, ``ignores-pause-turn`` applies once server tools are in play, and seed 002's own
  ``else`` branch (stop, say why) is the cure for ``resends-unchanged-request``.
- A step cap is both a fault and a requirement: as the main stop that returns as if done it is
  ``iteration-cap-as-stop`` (seeds 000, 003); as a loud safety net its absence is
  ``no-safety-cap`` (seed 001's ``MAX_PASOS`` loop raises when it trips).
- Text after the ``tool_result`` blocks is accepted by the API (reference 3.2 rule 3; seed 001
  only asks for results *before* your text) but seed 000 teaches results only, because of the
  empty ``end_turn`` replies it causes; the entry says both.
- A fixed tool sequence is a workflow, which seed 000 recommends when the path is truly fixed and
  seed 003 keeps for strict steps (verify identity, approve a payment): the fault is using one
  where the model should decide.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass

from ._i18n import LANGUAGES, language

__all__ = ["AntiPattern", "ANTIPATTERNS", "BY_TAG", "FAMILIES", "FIELDS", "LOOP_TAGS", "SDK_FAMILY", "SDK_TAGS", "TAGS",
           "get"]

FAMILIES = ("termination", "history", "tools", "stop-reasons", "guardrails", "thinking", "design", "agent-sdk")
"""The groups, in the order the course teaches them."""

SDK_FAMILY = "agent-sdk"
"""The family of faults in code that consumes the Claude Agent SDK's messages (not a Messages API loop)."""

FIELDS = ("name", "explanation", "fix")
"""The bilingual fields that :meth:`AntiPattern.text` reads."""

_TAG = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")


@dataclass(frozen=True, kw_only=True)
class AntiPattern:
    """One fault of an agent loop, with its explanation and fix in English and Spanish."""

    tag: str
    """Stable kebab-case tag, e.g. ``"missing-assistant-turn"``."""
    name: dict[str, str]
    """Short name: ``{"en": ..., "es": ...}``."""
    explanation: dict[str, str]
    """What the fault is and the symptom the learner sees (1-3 sentences)."""
    fix: dict[str, str]
    """The correct behaviour, concretely (1-2 sentences)."""
    seed: str
    """Where the course teaches it: ``"seed NNN (section title)"`` and/or ``"reference ..."``,
    several separated by ``"; "``."""
    scenarios: tuple[str, ...]
    """Built-in scenarios (``agentlab.scenarios()``) on which a loop with this fault shows it; for
    the ``agent-sdk`` family, Agent SDK scenarios (``agentlab.agent_sdk.scenarios()``) on which a
    consumer of ``query()``'s messages shows it."""
    family: str
    """One of :data:`FAMILIES`."""
    api_error: str | None = None
    """The reference section-7 rule id of the 400 this fault causes, or None when the API accepts
    the requests and the fault shows some other way."""

    def __post_init__(self) -> None:
        if not _TAG.fullmatch(self.tag):
            raise ValueError(f"anti-pattern tag {self.tag!r} is not kebab-case")
        for field in FIELDS:
            value = getattr(self, field)
            if set(value) != set(LANGUAGES) or not all(isinstance(v, str) and v.strip() for v in value.values()):
                raise ValueError(f"anti-pattern {self.tag!r}: {field} needs non-empty {', '.join(LANGUAGES)} texts")
        if self.family not in FAMILIES:
            raise ValueError(f"anti-pattern {self.tag!r}: unknown family {self.family!r}; one of {', '.join(FAMILIES)}")
        if not self.scenarios:
            raise ValueError(f"anti-pattern {self.tag!r}: name at least one scenario that exposes it")

    def __hash__(self) -> int:  # the dict fields are not hashable; the tag is unique
        return hash(self.tag)

    def text(self, field: str, lang: str | None = None) -> str:
        """``name``, ``explanation`` or ``fix`` in ``lang`` (``"en"``/``"es"``; default: the
        learner's language, see :func:`agentlab._i18n.language`).

        Raises:
            ValueError: for an unknown language (the message names the supported ones) or field.
        """
        if field not in FIELDS:
            raise ValueError(f"unknown field {field!r}; one of {', '.join(FIELDS)}")
        return getattr(self, field)[language(lang)]


def _ap(tag: str, family: str, *, name: tuple[str, str], explanation: tuple[str, str], fix: tuple[str, str],
        seed: str, scenarios: tuple[str, ...], api_error: str | None = None) -> AntiPattern:
    """One row, texts given as ``(english, spanish)``."""

    def both(pair: tuple[str, str]) -> dict[str, str]:
        return {"en": pair[0], "es": pair[1]}

    return AntiPattern(tag=tag, family=family, name=both(name), explanation=both(explanation), fix=both(fix),
                       seed=seed, scenarios=scenarios, api_error=api_error)


ANTIPATTERNS: tuple[AntiPattern, ...] = (
    # ------------------------------------------------------------------ termination
    _ap(
        "text-parsing-termination", "termination",
        name=("Parsing text to end the loop",
              "Parsear el texto para terminar el bucle"),
        explanation=(
            'The loop ends when the assistant\'s text contains words like "DONE" or "Final answer" '
            "instead of branching on stop_reason. The model can say it is done in endless ways and still "
            "ask for a tool in the same turn, so the loop stops early and drops the tool call, or never "
            "stops when the wording changes.",
            "El bucle termina cuando el texto del asistente contiene palabras como «DONE» o «Final answer», "
            "en vez de ramificar sobre stop_reason. El modelo puede anunciar que terminó de infinitas formas "
            "y aun así pedir una herramienta en el mismo turno: el bucle corta antes de tiempo y descarta la "
            "llamada, o no corta nunca si cambia la frase.",
        ),
        fix=(
            'Branch on response.stop_reason only: "tool_use" means run the tools and call again, "end_turn" '
            "means return. The text never decides: if it announces a search that never happened and the "
            "stop reason is end_turn, end_turn wins.",
            'Ramifica solo sobre response.stop_reason: "tool_use" significa ejecutar las herramientas y volver '
            'a llamar; "end_turn", devolver la respuesta. El texto nunca decide: si anuncia una búsqueda que '
            "no ocurrió y el stop_reason es end_turn, manda end_turn.",
        ),
        seed="seed 000 (Antipatrones que evitar); seed 003 (Las trampas típicas)",
        scenarios=("says_done",),
    ),
    _ap(
        "iteration-cap-as-stop", "termination",
        name=("Iteration cap as the main stop",
              "Tope de iteraciones como parada principal"),
        explanation=(
            "A fixed count ends the loop (for _ in range(10)) and the function then returns as if the task "
            'were done: the text so far, or a message of its own such as "Task completed.". Long tasks are cut '
            "half done and reported as finished, and whatever keeps a loop from ending is never fixed.",
            "Un número fijo de vueltas termina el bucle (for _ in range(10)) y la función devuelve como si la "
            "tarea estuviera hecha: el texto que haya, o un mensaje propio como «Tarea completada». Las tareas "
            "largas se cortan a medias y se reportan como terminadas, y la causa de un bucle que no termina "
            "nunca se arregla.",
        ),
        fix=(
            'Let stop_reason == "end_turn" end the loop. Keep a cap only as a safety net that ends loudly: '
            "raise, or return the partial work saying the task is unfinished, and log the runs that reach it.",
            'Deja que stop_reason == "end_turn" termine el bucle. Mantén el tope solo como red de seguridad '
            "que avisa al saltar: lanza un error o devuelve el trabajo parcial diciendo que la tarea quedó a "
            "medias, y registra los casos que llegan a él.",
        ),
        seed="seed 000 (Antipatrones que evitar); seed 003 (Las trampas típicas)",
        scenarios=("long_task",),
    ),
    _ap(
        "has-text-means-done", "termination",
        name=("Having text means done",
              "Tener texto es haber terminado"),
        explanation=(
            "The loop returns as soon as the reply has a text block. A turn can hold text and tool_use "
            "blocks together (the model narrates while it asks for a tool), so the tool call is dropped and "
            "the narration (\"I'll look that up...\") comes back as the answer.",
            "El bucle devuelve en cuanto la respuesta trae un bloque text. Un turno puede traer bloques text y "
            "tool_use a la vez (el modelo narra mientras pide una herramienta): la llamada se descarta y la "
            "narración («Voy a buscarlo...») se devuelve como respuesta.",
        ),
        fix=(
            'Branch on stop_reason and walk the content blocks by type: with stop_reason "tool_use" the text '
            "is an interim comment, and every tool_use block still has to run.",
            'Ramifica sobre stop_reason y recorre los bloques de content por type: con stop_reason "tool_use" '
            "ese texto es un comentario intermedio, y cada bloque tool_use se ejecuta igual.",
        ),
        seed="seed 000 (Antipatrones que evitar); seed 003 (Las trampas típicas)",
        scenarios=("text_and_tool_use",),
    ),
    _ap(
        "no-text-means-done", "termination",
        name=("No text means done",
              "Sin texto es haber terminado"),
        explanation=(
            "The loop treats a reply without text as the end. A tool_use turn often has no text at all, so "
            "the loop returns an empty answer before the tool ever runs.",
            "El bucle toma una respuesta sin texto como el final. Un turno tool_use muchas veces no trae "
            "texto, así que el bucle devuelve una respuesta vacía sin haber ejecutado la herramienta.",
        ),
        fix=(
            "Branch on stop_reason, not on whether there is text: no text says nothing about the task. An "
            "empty end_turn is still the end; a tool_use without text is not.",
            "Ramifica sobre stop_reason, no sobre si hay texto: que no haya texto no dice nada sobre la tarea. "
            "Un end_turn vacío sigue siendo el final; un tool_use sin texto, no.",
        ),
        seed="seed 003 (Las trampas típicas); seed 001 (Anatomía del bucle)",
        scenarios=("weather",),
    ),
    # ------------------------------------------------------------------ history
    _ap(
        "missing-assistant-turn", "history",
        name=("Missing assistant turn",
              "Falta el turno del asistente"),
        explanation=(
            "The tool_result blocks are appended without first appending the assistant turn that holds the "
            "tool_use blocks (or before it). The API cannot find the calls they answer and returns 400: \"unexpected "
            "`tool_use_id` found in `tool_result` blocks ... Each `tool_result` block must have a "
            "corresponding `tool_use` block in the previous message.\"",
            "Se añaden los bloques tool_result sin añadir antes el turno del asistente con los bloques "
            "tool_use (o delante de él). La API no encuentra a qué llamadas responden y devuelve 400: \"unexpected "
            "`tool_use_id` found in `tool_result` blocks ... Each `tool_result` block must have a "
            "corresponding `tool_use` block in the previous message.\"",
        ),
        fix=(
            'After each tool_use reply, append {"role": "assistant", "content": response.content} first, '
            "then one user message with the tool_result blocks.",
            'Tras cada respuesta tool_use, añade primero {"role": "assistant", "content": response.content} '
            "y después un único mensaje user con los bloques tool_result.",
        ),
        seed="seed 000 (Antipatrones que evitar); seed 003 (Cómo se arma el historial); reference 7 rule 16",
        scenarios=("weather",),
        api_error="16",
    ),
    _ap(
        "rebuilt-assistant-turn", "history",
        name=("Assistant turn rebuilt by hand",
              "Turno del asistente reconstruido a mano"),
        explanation=(
            "The assistant turn is rebuilt by hand (only the tool_use blocks, or new dicts with new ids) "
            "instead of appending response.content as it came. Text and thinking blocks are lost, which is a "
            "400 when thinking is on, and a changed id breaks the tool_use/tool_result correlation (a 400 "
            "too).",
            "El turno del asistente se reconstruye a mano (solo los bloques tool_use, o dicts nuevos con ids "
            "nuevos) en vez de añadir response.content tal cual llegó. Se pierden los bloques text y "
            "thinking, lo que da 400 con el razonamiento activado, y un id cambiado rompe la correlación "
            "entre tool_use y tool_result (también 400).",
        ),
        fix=(
            'Append the whole response.content unchanged: messages.append({"role": "assistant", "content": '
            "response.content}). The SDK's blocks can be sent back as they are.",
            'Añade response.content entero y sin cambios: messages.append({"role": "assistant", "content": '
            "response.content}). Los bloques del SDK se pueden reenviar tal cual.",
        ),
        seed="seed 001 (Errores frecuentes); seed 000 (Implementaciones de referencia)",
        scenarios=("text_and_tool_use", "thinking"),
    ),
    _ap(
        "results-not-appended", "history",
        name=("Tool results never appended",
              "Resultados que no se añaden al historial"),
        explanation=(
            "The loop runs the tools (maybe it logs the output) but never appends the assistant turn and the "
            "results to messages. The API keeps no state, so the model never sees the result and asks for "
            "the same tool again: the same paid request, over and over, until something stops the loop.",
            "El bucle ejecuta las herramientas (quizá imprime la salida en un log) pero nunca añade el turno "
            "del asistente ni los resultados a messages. La API no guarda estado: el modelo nunca ve el "
            "resultado y vuelve a pedir la misma herramienta, la misma petición pagada una y otra vez, hasta "
            "que algo corta el bucle.",
        ),
        fix=(
            "Each tool_use step adds two messages to the history: the assistant turn as it came, then one "
            "user message with the tool_result blocks. Every request sends the whole history.",
            "Cada vuelta tool_use suma dos mensajes al historial: el turno del asistente tal cual llegó y un "
            "mensaje user con los bloques tool_result. Cada petición envía el historial completo.",
        ),
        seed="seed 003 (Cómo se arma el historial); seed 000 (El bucle de agente, de extremo a extremo)",
        scenarios=("weather",),
    ),
    # ------------------------------------------------------------------ tools (the tool_result turn)
    _ap(
        "text-before-tool-result", "tools",
        name=("Text before the tool results",
              "Texto antes de los tool_result"),
        explanation=(
            "The user message that answers the tool calls starts with a text block and the tool_result "
            "blocks come after it. The API wants the results first and returns 400: \"`tool_use` ids were "
            "found without `tool_result` blocks immediately after...\"",
            "El mensaje user que responde a las llamadas empieza con un bloque text y los tool_result van "
            "después. La API exige los resultados primero y devuelve 400: \"`tool_use` ids were found "
            "without `tool_result` blocks immediately after...\"",
        ),
        fix=(
            "Put every tool_result block first in that user message; better still, send nothing but "
            "tool_result blocks there.",
            "Pon todos los bloques tool_result primero en ese mensaje user; mejor aún, no pongas nada más que "
            "bloques tool_result.",
        ),
        seed="seed 001 (Errores frecuentes); reference 7 rule 17",
        scenarios=("weather",),
        api_error="17",
    ),
    _ap(
        "text-after-tool-result", "tools",
        name=("Text after the tool results",
              "Texto después de los tool_result"),
        explanation=(
            'The loop adds text ("Continue", "Here are the results") after the tool_result blocks, in the same '
            "user message or in another one right after it (the API merges consecutive user messages). The API "
            "accepts it, but the model learns to expect user text after every tool call: the next reply is "
            "often an empty end_turn, and the loop ends with no answer.",
            "El bucle añade texto («Continúa», «Aquí están los resultados») después de los bloques tool_result, "
            "en el mismo mensaje user o en otro justo detrás (la API une los mensajes user seguidos). La API lo "
            "acepta, pero el modelo aprende a esperar texto tras cada llamada: la siguiente respuesta suele ser "
            "un end_turn vacío y el bucle termina sin respuesta.",
        ),
        fix=(
            "The user message after a tool_use holds only tool_result blocks, one per tool_use_id. Put "
            "standing instructions in the system prompt.",
            "El mensaje user después de un tool_use lleva solo bloques tool_result, uno por tool_use_id. Las "
            "instrucciones para el modelo van en el prompt de sistema.",
        ),
        seed="seed 000 (Antipatrones que evitar); reference 2 (end_turn)",
        scenarios=("weather",),
    ),
    _ap(
        "missing-tool-result", "tools",
        name=("Missing tool result",
              "Falta un tool_result"),
        explanation=(
            "The model asked for several tools in one turn and the loop answers only some of them (often "
            "just the first tool_use block). The API rejects the next request with 400: \"`tool_use` ids "
            "were found without `tool_result` blocks immediately after: ...\"",
            "El modelo pidió varias herramientas en un turno y el bucle responde solo algunas (a menudo solo "
            "el primer bloque tool_use). La API rechaza la siguiente petición con 400: \"`tool_use` ids were "
            "found without `tool_result` blocks immediately after: ...\"",
        ),
        fix=(
            'Loop over every block with type == "tool_use" and return one tool_result per tool_use_id, all '
            "in the same user message; a tool that fails still gets its result, with is_error: true.",
            'Recorre todos los bloques con type == "tool_use" y devuelve un tool_result por cada tool_use_id, '
            "todos en el mismo mensaje user; una herramienta que falla también lleva su resultado, con "
            "is_error: true.",
        ),
        seed="seed 001 (Errores frecuentes); seed 003 (Cómo se arma el historial); reference 7 rule 15",
        scenarios=("parallel_tools",),
        api_error="15",
    ),
    _ap(
        "split-tool-results", "tools",
        name=("Tool results split across messages",
              "Resultados repartidos en varios mensajes"),
        explanation=(
            "Each tool_result goes in its own user message instead of one message holding all of them. The "
            "API pairs calls and results on the messages as sent (even though it merges consecutive user "
            "messages otherwise), so the message right after the assistant turn lacks the other results: "
            "400 \"`tool_use` ids were found without `tool_result` blocks immediately after\".",
            "Cada tool_result va en su propio mensaje user en vez de ir todos en uno. La API empareja "
            "llamadas y resultados sobre los mensajes tal como se enviaron (aunque en otros casos une los "
            "mensajes user seguidos), así que al mensaje que sigue al turno del asistente le faltan los demás "
            "resultados: 400 \"`tool_use` ids were found without `tool_result` blocks immediately after\".",
        ),
        fix=(
            'Collect every result in a list and append a single user message: {"role": "user", "content": '
            "tool_results}.",
            'Junta todos los resultados en una lista y añade un único mensaje user: {"role": "user", '
            '"content": tool_results}.',
        ),
        seed="seed 001 (Ejemplo completo); seed 003 (Cómo se arma el historial); reference 7 rule 15",
        scenarios=("parallel_tools",),
        api_error="15",
    ),
    _ap(
        "tool-error-crashes-loop", "tools",
        name=("Tool error crashes the loop",
              "Un error de herramienta rompe el bucle"),
        explanation=(
            "A tool raises and the exception escapes the loop, killing the agent mid-task, or a catch-all "
            "turns it into an apology and the loop ends. Either way the failed call never gets its "
            "tool_result: the model never learns it failed, so it cannot retry with other input, try another "
            "tool or explain the limit to the user.",
            "Una herramienta lanza una excepción que escapa del bucle y mata al agente a mitad de la tarea, o "
            "un except general la convierte en una disculpa y el bucle termina. La llamada fallida nunca "
            "recibe su tool_result: el modelo no se entera de que falló, así que no puede reintentar con otro "
            "input, probar otra herramienta ni explicarle el límite al usuario.",
        ),
        fix=(
            "Catch the exception around each tool call and return it as that call's result: "
            '{"type": "tool_result", "tool_use_id": block.id, "content": f"Error: {e}", "is_error": True}.',
            "Captura la excepción en cada llamada a una herramienta y devuélvela como su resultado: "
            '{"type": "tool_result", "tool_use_id": block.id, "content": f"Error: {e}", "is_error": True}.',
        ),
        seed="seed 001 (Ejemplo completo); seed 003 (Cómo se arma el historial)",
        scenarios=("failing_tool",),
    ),
    # ------------------------------------------------------------------ stop reasons
    _ap(
        "ignores-pause-turn", "stop-reasons",
        name=("Ignoring pause_turn",
              "Ignorar pause_turn"),
        explanation=(
            'The loop treats stop_reason "pause_turn" as the end (or as an error). A server tool such as web '
            "search hit the server's own iteration limit and paused the turn, so the loop hands back a "
            'partial answer like "Let me search..." and the work is cut off.',
            'El bucle trata stop_reason "pause_turn" como el final (o como un error). Una herramienta del '
            "servidor, como la búsqueda web, llegó al límite de iteraciones del propio servidor y pausó el "
            "turno: el bucle devuelve una respuesta parcial como «Voy a buscar...» y el trabajo queda cortado.",
        ),
        fix=(
            "Append the assistant turn unchanged (response.content) and call again, with no tool_result and "
            'no extra "continue" message; cap the continuations. "Any stop reason other than tool_use ends '
            'the loop" only holds without server tools.',
            "Añade el turno del asistente sin cambios (response.content) y vuelve a llamar, sin tool_result ni "
            "un mensaje extra de «continúa»; pon un tope a las continuaciones. «Cualquier razón que no sea "
            "tool_use termina el bucle» solo vale sin herramientas del servidor.",
        ),
        seed=("seed 000 (Antipatrones que evitar); seed 001 (Valores de stop_reason y qué hacer con cada uno); "
              "reference 2 (pause_turn)"),
        scenarios=("pause_turn",),
    ),
    _ap(
        "fabricated-server-tool-result", "stop-reasons",
        name=("Made-up result for a server tool",
              "Resultado inventado para una herramienta del servidor"),
        explanation=(
            "After pause_turn the loop answers the paused server_tool_use block with a tool_result it made "
            "up. A server tool's id (srvtoolu_...) is not a client tool_use, so the API returns 400: "
            "\"unexpected `tool_use_id` found in `tool_result` blocks: srvtoolu_...\"",
            "Tras pause_turn, el bucle responde al bloque server_tool_use pausado con un tool_result "
            "inventado. El id de una herramienta del servidor (srvtoolu_...) no es un tool_use del cliente, "
            "así que la API devuelve 400: \"unexpected `tool_use_id` found in `tool_result` blocks: "
            "srvtoolu_...\"",
        ),
        fix=(
            "Server tools run on the server: never write a tool_result for a server_tool_use. On pause_turn, "
            "append the assistant turn unchanged and call again; only client tool_use blocks get results.",
            "Las herramientas del servidor se ejecutan en el servidor: nunca escribas un tool_result para un "
            "server_tool_use. Ante pause_turn, añade el turno del asistente sin cambios y vuelve a llamar; "
            "solo los bloques tool_use del cliente llevan resultado.",
        ),
        seed="seed 000 (Implementaciones de referencia); reference 7 rule 16",
        scenarios=("pause_turn",),
        api_error="16",
    ),
    _ap(
        "ignores-max-tokens", "stop-reasons",
        name=("Treating max_tokens as done",
              "Tomar max_tokens como fin de la tarea"),
        explanation=(
            "The loop returns the text of a max_tokens reply as if it were the final answer. max_tokens means "
            "the reply was cut at the length limit, not that the task is done, so the caller gets a "
            "truncated answer with no warning.",
            "El bucle devuelve el texto de una respuesta max_tokens como si fuera la respuesta final. "
            "max_tokens significa que la respuesta se cortó por el límite de largo, no que la tarea terminó: "
            "quien llama recibe una respuesta cortada sin ningún aviso.",
        ),
        fix=(
            "Give max_tokens its own branch: retry with a larger max_tokens (or ask the model to continue), or "
            "stop with a clear error that says the answer was cut. Stopping is fine; passing the cut text "
            "off as complete is the fault.",
            "Dale a max_tokens su propia rama: reintenta con un max_tokens mayor (o pídele que continúe) o "
            "detente con un error claro que diga que la respuesta se cortó. Detenerse está bien; lo que "
            "falla es presentar el texto cortado como completo.",
        ),
        seed=("seed 003 (Otros valores de stop_reason); "
              "seed 001 (Valores de stop_reason y qué hacer con cada uno)"),
        scenarios=("max_tokens_text",),
    ),
    _ap(
        "executes-truncated-tool-use", "stop-reasons",
        name=("Running a cut tool_use",
              "Ejecutar un tool_use cortado"),
        explanation=(
            "The reply stopped at max_tokens inside a tool_use block and the loop runs it anyway. Its input "
            "JSON is incomplete (fields missing or cut short), so the tool acts on half an input, for "
            "example writing a file without its content.",
            "La respuesta se cortó por max_tokens dentro de un bloque tool_use y el bucle lo ejecuta igual. "
            "Su input JSON está incompleto (faltan campos o están a medias), así que la herramienta actúa con "
            "medio input; por ejemplo, escribe un archivo sin su contenido.",
        ),
        fix=(
            'When stop_reason is "max_tokens" and the last block is a tool_use, do not run it: send the '
            "request again with a larger max_tokens, and stop with a clear error if it is still cut. "
            "Retrying with the same limit fails again.",
            'Si stop_reason es "max_tokens" y el último bloque es un tool_use, no lo ejecutes: repite la '
            "petición con un max_tokens mayor y, si vuelve a cortarse, detente con un error claro. Reintentar "
            "con el mismo límite falla otra vez.",
        ),
        seed="seed 000 (Antipatrones que evitar); reference 2 (max_tokens)",
        scenarios=("max_tokens_tool_use",),
    ),
    _ap(
        "resends-unchanged-request", "stop-reasons",
        name=("Re-sending an unchanged request",
              "Reenviar la misma petición sin cambios"),
        explanation=(
            "After a stop reason that will not change on its own (max_tokens with the same limit, "
            "model_context_window_exceeded), the loop sends the very same request again, often because it "
            "has no else branch. Nothing in messages changed, so it pays again for the same cut, every time.",
            "Tras una razón de detención que no cambia sola (max_tokens con el mismo límite, "
            "model_context_window_exceeded), el bucle envía exactamente la misma petición otra vez, muchas "
            "veces por no tener una rama else. Nada cambió en messages, así que vuelve a pagar por el mismo "
            "corte cada vez.",
        ),
        fix=(
            "Re-send only after changing what caused the stop (a larger max_tokens, a shorter context); "
            "otherwise stop and say why. Every loop needs a last branch for the stop reasons it does not "
            "continue on.",
            "Reenvía solo después de cambiar lo que causó la detención (un max_tokens mayor, un contexto más "
            "corto); si no, detente y di por qué. Todo bucle necesita una última rama para las razones de "
            "detención con las que no continúa.",
        ),
        seed="seed 002 (Un ejemplo mínimo que funciona); seed 000 (Antipatrones que evitar)",
        scenarios=("max_tokens_text",),
    ),
    _ap(
        "retries-refusal", "stop-reasons",
        name=("Retrying a refusal",
              "Reintentar tras un refusal"),
        explanation=(
            'The loop re-sends the request after stop_reason "refusal", hoping for a different answer. The '
            "model declined for safety reasons and the unchanged request keeps being refused, so the loop "
            "pays for refusal after refusal.",
            'El bucle reenvía la petición tras stop_reason "refusal" esperando otra respuesta. El modelo se '
            "negó por motivos de seguridad y la misma petición se sigue rechazando: el bucle paga un refusal "
            "tras otro.",
        ),
        fix=(
            "Do not retry in a loop: log the case (stop_details says why), return a clear message to the "
            "user and end.",
            "No reintentes en bucle: registra el caso (stop_details dice por qué), devuelve un mensaje claro "
            "al usuario y termina.",
        ),
        seed="seed 001 (Valores de stop_reason y qué hacer con cada uno); reference 2 (refusal)",
        scenarios=("refusal",),
    ),
    _ap(
        "unhandled-stop-reason", "stop-reasons",
        name=("Unhandled stop reason",
              "Razón de detención sin manejar"),
        explanation=(
            "The loop has no branch for some stop reason, such as model_context_window_exceeded or "
            "stop_sequence. It falls through and re-sends, silently returns the cut text, or crashes on a "
            "dispatch table without that key (KeyError), instead of stopping with a clear error that names "
            "the stop reason.",
            "El bucle no tiene rama para alguna razón de detención, como model_context_window_exceeded o "
            "stop_sequence. Sigue de largo y reenvía, devuelve en silencio el texto cortado o cae en una "
            "tabla de despacho sin esa clave (KeyError), en vez de detenerse con un error claro que nombre el "
            "stop_reason.",
        ),
        fix=(
            "Give every stop reason you know its own branch and end with an else that raises with the value: "
            'raise RuntimeError(f"unhandled stop_reason: {resp.stop_reason}"). On '
            "model_context_window_exceeded, stop and say the context is full.",
            "Dale a cada stop_reason que conoces su propia rama y termina con un else que lance un error con "
            'el valor: raise RuntimeError(f"stop_reason desconocido: {resp.stop_reason}"). Ante '
            "model_context_window_exceeded, detente y di que el contexto está lleno.",
        ),
        seed="seed 000 (Implementaciones de referencia); seed 001 (Ejemplo completo); reference 2",
        scenarios=("context_window",),
    ),
    # ------------------------------------------------------------------ guardrails
    _ap(
        "unbounded-tool-errors", "guardrails",
        name=("No limit on tool errors",
              "Errores de herramienta sin límite"),
        explanation=(
            "The loop returns tool errors as is_error results, as it should, but never counts them. When a "
            "tool keeps failing, the model keeps retrying and the loop keeps feeding the failures back, "
            "spending tokens with no progress.",
            "El bucle devuelve los errores como resultados con is_error, como debe, pero nunca los cuenta. Si "
            "una herramienta falla una y otra vez, el modelo sigue reintentando y el bucle sigue "
            "devolviéndole los fallos: gasta tokens sin avanzar.",
        ),
        fix=(
            "Count consecutive is_error results and stop at a limit (3 is a good start): return the work done "
            "so far and say the task stopped because the tool kept failing.",
            "Cuenta los resultados is_error consecutivos y detente al llegar a un límite (3 es un buen valor "
            "de partida): devuelve lo conseguido hasta entonces y deja claro que la tarea se detuvo porque la "
            "herramienta seguía fallando.",
        ),
        seed="seed 001 (Límites que todo bucle necesita)",
        scenarios=("persistent_tool_errors",),
    ),
    _ap(
        "no-safety-cap", "guardrails",
        name=("No safety cap",
              "Sin red de seguridad"),
        explanation=(
            "The loop has no step cap and no token or time budget. A model that never stops calling tools "
            "keeps the loop running, and paying, forever.",
            "El bucle no tiene tope de pasos ni presupuesto de tokens o de tiempo. Un modelo que nunca deja de "
            "llamar herramientas mantiene el bucle corriendo, y cobrando, para siempre.",
        ),
        fix=(
            "Add guardrails as a safety net, not as the stop: a step cap (10 to 30), a token budget (input, "
            "output and both cache fields), a time limit. When one trips, end loudly with the partial work "
            "and the reason.",
            "Añade guardrails como red de seguridad, no como parada: un tope de pasos (entre 10 y 30), un "
            "techo de tokens acumulados (entrada, salida y los dos campos de caché) y un tiempo máximo. "
            "Cuando salte uno, termina avisando, con el trabajo parcial y el motivo.",
        ),
        seed="seed 001 (Límites que todo bucle necesita); seed 003 (Las trampas típicas)",
        scenarios=("stuck_model",),
    ),
    # ------------------------------------------------------------------ thinking
    _ap(
        "strips-thinking", "thinking",
        name=("Stripping thinking blocks",
              "Quitar los bloques thinking"),
        explanation=(
            "With thinking on, the loop filters out or edits the thinking blocks before appending the "
            "assistant turn. The API needs them back complete and unmodified and returns 400: \"Expected "
            "`thinking` or `redacted_thinking`, but found `tool_use`...\" for a dropped block, \"cannot be "
            "modified\" or an invalid signature for an edited one.",
            "Con el razonamiento activado, el bucle filtra o edita los bloques thinking antes de añadir el "
            "turno del asistente. La API los necesita completos y sin cambios y devuelve 400: \"Expected "
            "`thinking` or `redacted_thinking`, but found `tool_use`...\" si falta un bloque, y \"cannot be "
            "modified\" o una firma inválida si se editó.",
        ),
        fix=(
            "Append the whole response.content, thinking and redacted_thinking blocks included, in order and "
            "untouched: the model needs them to follow its own reasoning from one tool to the next.",
            "Añade response.content completo, con los bloques thinking y redacted_thinking incluidos, en orden "
            "y sin tocar: el modelo los necesita para seguir su propio hilo entre una herramienta y la "
            "siguiente.",
        ),
        seed="seed 001 (Razonamiento dentro del bucle); reference 3.3; reference 7 rule 26",
        scenarios=("thinking",),
        api_error="26",
    ),
    # ------------------------------------------------------------------ design
    _ap(
        "hardcoded-tool-sequence", "design",
        name=("Hard-coded tool sequence",
              "Secuencia de herramientas fija"),
        explanation=(
            "The code decides which tools run and in what order (tool_a() then tool_b()), a pre-configured "
            "decision tree, instead of running the tool_use blocks the model asked for. That is a workflow, "
            "not an agent: it cannot adapt when one call's result should change the next call or its input.",
            "El código decide qué herramientas se ejecutan y en qué orden (tool_a() y luego tool_b()), un "
            "árbol de decisión preconfigurado, en vez de ejecutar los bloques tool_use que pidió el modelo. "
            "Eso es un workflow, no un agente: no se adapta cuando el resultado de una llamada debería cambiar "
            "la siguiente o su input.",
        ),
        fix=(
            "In an agent loop, run exactly the tool_use blocks the model sent, with their input, and let it "
            "choose the next call. Fix a sequence in code only on purpose: for a path that is truly fixed (a "
            "workflow) or for strict steps such as verifying identity before a payment.",
            "En un bucle de agente, ejecuta exactamente los bloques tool_use que envió el modelo, con su input, "
            "y deja que elija la siguiente llamada. Fija una secuencia en código solo a propósito: para una "
            "ruta realmente fija (un workflow) o para pasos estrictos, como verificar la identidad antes de "
            "un pago.",
        ),
        seed="seed 000 (Antipatrones que evitar); seed 003 (Modelo o guion fijo)",
        scenarios=("chained_tools",),
    ),
    _ap(
        "forced-tool-choice", "design",
        name=("Forcing tool_choice",
              "Forzar tool_choice"),
        explanation=(
            'The loop sets tool_choice to {"type": "any"} (or to one tool) on every request to "keep it '
            'working". Every reply must then be a tool_use, so the model can never finish with a text answer '
            "and the loop only ends at a cap.",
            'El bucle fija tool_choice en {"type": "any"} (o en una herramienta) en cada petición para que '
            "«siga trabajando». Así toda respuesta tiene que ser un tool_use: el modelo nunca puede terminar "
            "con una respuesta de texto y el bucle solo acaba al chocar con un tope.",
        ),
        fix=(
            "Leave tool_choice on auto (the default) so the model can end with end_turn. If one step must "
            "call a tool, force it for that request only, not for the whole loop.",
            "Deja tool_choice en auto (el valor por defecto) para que el modelo pueda terminar con end_turn. "
            "Si un paso concreto debe llamar a una herramienta, fuérzalo solo en esa petición, no en todo el "
            "bucle.",
        ),
        seed="seed 003 (Las trampas típicas)",
        scenarios=("weather",),
    ),
    # ------------------------------------------------------------------ agent-sdk
    _ap(
        "error-result-as-success", "agent-sdk",
        name=("Treating an error result as success",
              "Tratar un resultado de error como éxito"),
        explanation=(
            "The code takes ResultMessage.result as the answer without checking the outcome. "
            "error_max_turns, error_max_budget_usd and error_during_execution end an unfinished task, and a "
            'failed API call arrives as subtype "success" with is_error true. Swallowing the exception '
            "query() raises after an error result hides the failure too.",
            "El código toma ResultMessage.result como la respuesta sin comprobar el resultado. "
            "error_max_turns, error_max_budget_usd y error_during_execution cierran una tarea sin terminar, y "
            'una llamada fallida a la API llega con subtipo "success" e is_error true. Tragarse la excepción '
            "que query() lanza tras un resultado de error también esconde el fallo.",
        ),
        fix=(
            'Use result only when subtype == "success" and is_error is false. Otherwise raise, or let '
            "query()'s ResultError propagate, and keep subtype, errors and session_id to report or resume.",
            'Usa result solo cuando subtype == "success" e is_error es false. Si no, lanza una excepción o '
            "deja que se propague el ResultError de query(), y guarda subtype, errors y session_id para "
            "informar o reanudar.",
        ),
        seed="seed 004 (Tipos de mensajes); seed 004 (Ponerlo todo junto); reference 6.2",
        scenarios=("agent_stuck", "agent_crash", "agent_api_error"),
    ),
    _ap(
        "breaks-at-result", "agent-sdk",
        name=("Breaking at the result",
              "Romper en el resultado"),
        explanation=(
            "The code stops iterating (break or return) as soon as the ResultMessage arrives. The result ends "
            "the agent loop, not the stream: a few final system events such as prompt_suggestion can follow "
            "it, and they are lost.",
            "El código deja de iterar (break o return) en cuanto llega el ResultMessage. El resultado cierra "
            "el bucle del agente, no el flujo: pueden seguirle algunos eventos finales del sistema, como "
            "prompt_suggestion, y se pierden.",
        ),
        fix=(
            "Handle the ResultMessage when it arrives (keep it, branch on subtype) and let the async for run "
            "to the end of the stream; return or raise after the loop.",
            "Maneja el ResultMessage cuando llegue (guárdalo, ramifica según subtype) y deja que el async for "
            "llegue hasta el final del flujo; devuelve o lanza después del bucle.",
        ),
        seed="seed 004 (Tipos de mensajes); reference 6.2",
        scenarios=("fix_auth_bug",),
    ),
    _ap(
        "ignores-none-cost", "agent-sdk",
        name=("Assuming the cost is always there",
              "Dar por hecho que el coste siempre llega"),
        explanation=(
            "The code formats or adds ResultMessage.total_cost_usd (or reads usage or model_usage) as if it "
            "were always set. In Python those fields are typed Optional, so a result without them crashes it "
            "with a TypeError on None after the work is done.",
            "El código formatea o suma ResultMessage.total_cost_usd (o lee usage o model_usage) como si "
            "siempre vinieran. En Python esos campos son opcionales, así que un resultado sin ellos lo hace "
            "fallar con un TypeError sobre None cuando el trabajo ya está hecho.",
        ),
        fix=(
            "Check for None before reading them: if message.total_cost_usd is not None: ... (the same for "
            "usage and model_usage). After a crash the cost can be zero: do not log it as the real cost.",
            "Comprueba None antes de leerlos: if message.total_cost_usd is not None: ... (igual con usage y "
            "model_usage). Tras un bloqueo el coste puede ser cero: no lo registres como el coste real.",
        ),
        seed="seed 004 (Manejar el resultado); reference 6.1",
        scenarios=("fix_auth_bug",),
    ),
)
"""Every anti-pattern, grouped by family in :data:`FAMILIES` order."""

BY_TAG: dict[str, AntiPattern] = {ap.tag: ap for ap in ANTIPATTERNS}
"""The catalogue by tag."""

TAGS: tuple[str, ...] = tuple(BY_TAG)
"""Every tag, in catalogue order."""

LOOP_TAGS: tuple[str, ...] = tuple(ap.tag for ap in ANTIPATTERNS if ap.family != SDK_FAMILY)
"""The faults of a hand-written Messages API loop (the loop grader's cases and ``loops.SPECIMENS``)."""

SDK_TAGS: tuple[str, ...] = tuple(ap.tag for ap in ANTIPATTERNS if ap.family == SDK_FAMILY)
"""The faults of an Agent SDK consumer (the SDK grader's cases and ``loops.sdk_specimens.SDK_SPECIMENS``)."""

if len(BY_TAG) != len(ANTIPATTERNS):  # pragma: no cover - a data error, caught at import
    raise RuntimeError("duplicate anti-pattern tags in ANTIPATTERNS")


def get(tag: str) -> AntiPattern:
    """The anti-pattern with this tag.

    Raises:
        KeyError: for an unknown tag; the message suggests the closest tag and lists them all.
    """
    try:
        return BY_TAG[tag]
    except (KeyError, TypeError):
        close = difflib.get_close_matches(str(tag), TAGS, n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise KeyError(f"unknown anti-pattern tag {tag!r}{hint}; known tags: {', '.join(TAGS)}") from None
