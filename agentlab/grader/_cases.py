"""The conformance cases: a scenario, what a correct loop does on it, and the faults it exposes.

Each case runs the loop under test on one built-in scenario with a spy ``run_tool``; the
grader then reads the journal (what was sent at each step), the tool calls and the outcome.
A case expects one of:

- ``finish``: the loop returns the final answer (a string that contains ``answer_contains``);
- ``stop``: the loop stops on its own, by returning a message or raising, without re-sending
  (refusal, a cut text, a full context window, a model that never stops, a tool that always
  fails). Seed 001's loop raises on ``max_tokens`` and returns a message on ``refusal``: both
  are accepted.

Every stop reason the API can return to the loop's requests (``anthropic.types.StopReason``) is
met by at least one case (``tests/test_strict_verdicts.py`` checks it from the scenarios' own
``stop_reasons``). ``stop_sequence`` needs ``stop_sequences`` in the request, which a loop of this
contract never sends: the ``stop_sequence`` case runs it behind a gateway that adds them
(:func:`agentlab.fake._catalogue.tagged_weather`), so the stop is the API's real answer to the
request it received, and the loop's code and signature are unchanged.

``exposes`` lists the anti-pattern tags the case is built to catch (any detector may still fire
on any case: the journal shows what it shows).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Literal

from ..fake._catalogue import get_scenario, tagged_weather
from ..fake._scenario import Scenario

__all__ = ["Case", "CASES", "CASE_NAMES", "get_case"]


@dataclass(frozen=True, kw_only=True)
class Case:
    """One conformance case."""

    name: str
    """Stable name (``only=[...]`` selects by it)."""
    scenario: Scenario
    """The scenario the loop runs on."""
    expect: Literal["finish", "stop"]
    """What a correct loop does (see the module docstring)."""
    exposes: tuple[str, ...]
    """Anti-pattern tags this case is built to catch."""
    description: dict[str, str] = field(default_factory=dict)
    """One line, ``{"en": ..., "es": ...}``: what the case checks."""
    answer_contains: str | None = None
    """A substring the final answer must contain (``finish`` cases)."""
    long_task: bool = False
    """A loud stop by the loop's own step cap before the end is a note, not a failure."""
    time_limit: float = 10.0
    """Seconds the loop may run before the grader stops it."""


def _case(name: str, scenario: str | Scenario, expect: Literal["finish", "stop"], exposes: tuple[str, ...],
          en: str, es: str, **kw) -> Case:
    sc = get_scenario(scenario) if isinstance(scenario, str) else scenario
    answer = kw.pop("answer_contains", sc.extra.get("answer_contains") if expect == "finish" else None)
    return Case(name=name, scenario=sc, expect=expect, exposes=exposes, description={"en": en, "es": es},
                answer_contains=answer, **kw)


def _thinking_by_default() -> Scenario:
    """The ``thinking`` scenario on a model that thinks when the request does not say (adaptive):
    a loop that filters or edits thinking blocks is rejected on its next request."""
    return replace(get_scenario("thinking"), name="thinking_by_default", thinking_default={"type": "adaptive"})


CASES: tuple[Case, ...] = (
    _case("end_turn", "weather", "finish",
          ("missing-assistant-turn", "no-text-means-done", "text-before-tool-result", "text-after-tool-result",
           "results-not-appended", "forced-tool-choice", "text-parsing-termination"),
          "Seed 002's exchange: tool_use, then end_turn with the answer.",
          "El intercambio de la semilla 002: tool_use y luego end_turn con la respuesta."),
    _case("text_and_tool_use", "text_and_tool_use", "finish", ("has-text-means-done", "rebuilt-assistant-turn"),
          "A turn with text AND a tool call: the loop must run the tool, not stop at the text.",
          "Un turno con texto Y una llamada a herramienta: el bucle debe ejecutarla, no parar por el texto."),
    _case("says_done", "says_done", "finish", ("text-parsing-termination",),
          "The tool call is narrated with \"DONE\"/\"Final answer\": only stop_reason decides.",
          "La llamada llega con texto \"DONE\"/\"Final answer\": solo stop_reason decide."),
    _case("parallel_tools", "parallel_tools", "finish", ("missing-tool-result", "split-tool-results"),
          "Three tool calls in one turn: three tool_result blocks in one user message.",
          "Tres llamadas en un turno: tres bloques tool_result en un único mensaje de usuario."),
    _case("failing_tool", "failing_tool", "finish", ("tool-error-crashes-loop",),
          "A tool raises: its error goes back as an is_error tool_result and the loop goes on.",
          "Una herramienta lanza una excepción: vuelve como tool_result con is_error y el bucle sigue."),
    _case("persistent_tool_errors", "persistent_tool_errors", "stop", ("unbounded-tool-errors",),
          "A tool that always fails and a model that keeps retrying: the loop must bound consecutive errors.",
          "Una herramienta que siempre falla y un modelo que reintenta: el bucle debe limitar los errores seguidos."),
    _case("pause_turn", "pause_turn", "finish", ("ignores-pause-turn", "fabricated-server-tool-result"),
          "pause_turn with a server tool: send the assistant turn back unchanged and call again.",
          "pause_turn con una herramienta de servidor: reenvía el turno del asistente sin cambios y vuelve a llamar."),
    _case("max_tokens_text", "max_tokens_text", "stop", ("ignores-max-tokens", "resends-unchanged-request"),
          "The answer is cut by max_tokens: do not present it as complete, do not re-send it unchanged.",
          "max_tokens corta la respuesta: no la presentes como completa ni reenvíes la misma petición."),
    _case("max_tokens_tool_use", "max_tokens_tool_use", "finish", ("executes-truncated-tool-use",),
          "max_tokens cuts a tool_use: never run it; retry with a larger max_tokens (or stop loudly).",
          "max_tokens corta un tool_use: no lo ejecutes; reintenta con más max_tokens (o para con un error)."),
    _case("refusal", "refusal", "stop", ("retries-refusal",),
          "stop_reason refusal: stop with a clear message, do not retry the same request.",
          "stop_reason refusal: para con un mensaje claro, no reintentes la misma petición."),
    _case("context_window", "context_window", "stop", ("unhandled-stop-reason",),
          "model_context_window_exceeded: stop with a clear error instead of falling through.",
          "model_context_window_exceeded: para con un error claro en lugar de seguir de largo."),
    _case("stop_sequence", tagged_weather(), "finish", ("unhandled-stop-reason",),
          "A gateway adds stop_sequences: the tagged answer ends with stop_sequence, a controlled end; return its text.",
          "Un gateway añade stop_sequences: la respuesta etiquetada acaba en stop_sequence, un fin controlado; devuelve su texto."),
    _case("long_task", "long_task", "finish", ("iteration-cap-as-stop",),
          "A task that needs 13 requests: the loop ends at end_turn, not at an iteration count.",
          "Una tarea que necesita 13 peticiones: el bucle termina en end_turn, no al contar vueltas.",
          long_task=True),
    _case("stuck_model", "stuck_model", "stop", ("no-safety-cap", "iteration-cap-as-stop"),
          "A model that never stops calling tools: a safety cap must end the loop, loudly.",
          "Un modelo que nunca deja de pedir herramientas: un tope de seguridad debe cortar el bucle, avisando."),
    _case("chained_tools", "chained_tools", "finish", ("hardcoded-tool-sequence",),
          "The second call needs the first call's result: run what the model asks, in its order.",
          "La segunda llamada necesita el resultado de la primera: ejecuta lo que pide el modelo, en su orden."),
    _case("thinking", _thinking_by_default(), "finish", ("strips-thinking",),
          "The model thinks: thinking blocks go back untouched with the tool_use they preceded.",
          "El modelo razona: los bloques thinking vuelven intactos junto al tool_use que precedían."),
)
"""Every conformance case, in the order the report lists them."""

CASE_NAMES: tuple[str, ...] = tuple(c.name for c in CASES)


def get_case(name: str) -> Case:
    """The case called ``name``.

    Raises:
        KeyError: naming the known cases.
    """
    for case in CASES:
        if case.name == name:
            return case
    raise KeyError(f"unknown case {name!r}; cases: {', '.join(CASE_NAMES)}")
