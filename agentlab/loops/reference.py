"""The reference agent loop: the seeds' loop done right, sync and async.

An agent is a model using tools in a loop (seed 000). Each turn: send the whole conversation,
read ``stop_reason``, act on it, repeat. ``stop_reason`` is the only signal the loop branches on
(seeds 000, 001, 004): never the text, never "has text" or "has no text".

What the loop does with each stop reason (the table :data:`STEP_FOR_STOP_REASON` encodes)::

    stop_reason                    step          what the loop does                                 from
    -----------------------------  ------------  -------------------------------------------------  -------------------------
    end_turn                       finish        return the text of the turn                        seeds 000, 001, 002; ref. §2
    stop_sequence                  finish        a controlled end; ``stop_sequence`` says which     seed 001 table; ref. §2
    tool_use                       run_tools     append the assistant turn verbatim, run every      seeds 000, 001, 004; ref. §2
                                                 tool_use (concurrently when there are several),
                                                 send ONE user message with one tool_result per
                                                 tool_use, in order, and nothing else; a tool that
                                                 raises comes back as an ``is_error`` result
    pause_turn                     resume        append the assistant turn unchanged and call       seeds 000, 001; ref. §2
                                                 again, with no extra user message
    max_tokens                     grow_or_stop  cut inside a tool_use: never run it; drop the      seeds 000, 003; ref. §2
                                                 cut turn and send the same request with a larger
                                                 max_tokens. Cut in text: stop, keep the partial
                                                 text, say so (do not re-send it unchanged)         seed 002
    refusal                        refused       do not retry; stop with a clear message            seed 001; ref. §2
    model_context_window_exceeded  window_full   stop: the conversation no longer fits              ref. §2

The seeds disagree on one point, and the loop follows the finer one: seed 002 says "any other
stop reason also ends the loop", while seed 003 says ``max_tokens`` is not the end of the task.
Both are half right: a turn cut in its text ends the run (stopping beats paying for the same
cut again, seed 002) but is reported as partial work, not as an answer; a turn cut inside a
``tool_use`` is retried with room to finish the call (seed 000's anti-patterns, seed 003).

Guardrails (seed 001, "Límites que todo bucle necesita") are safety nets, never the way the loop
normally ends (seeds 000, 004): steps, cumulative tokens (input, output and both cache fields),
wall time, consecutive tool errors. When one trips the run ends with the partial work and the
reason, never silently.

Two entry points::

    result = run_agent(client, prompt, tools, run_tool)      # RunResult: text, why it stopped, trace
    text = agent_loop(client, prompt, tools, run_tool)       # str, or raises LoopStopped

and their async twins :func:`arun_agent` and :func:`aagent_loop` on ``anthropic.AsyncAnthropic``.
"""

from __future__ import annotations

import asyncio
import inspect
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Awaitable, Callable, Literal, Union

from anthropic.types import StopReason

from .._i18n import language

__all__ = [
    "STEP_FOR_STOP_REASON",
    "Step",
    "StoppedBecause",
    "Guardrails",
    "ToolCall",
    "TurnTrace",
    "RunResult",
    "LoopError",
    "LoopStopped",
    "run_agent",
    "arun_agent",
    "agent_loop",
    "aagent_loop",
    "refusal_message",
]

RunTool = Callable[[str, dict], Union[str, Awaitable[str]]]
"""``run_tool(name, tool_input) -> str``: runs one client tool; it may raise. In the async loop it
may also be a coroutine function."""

# ----------------------------------------------------------------------------------------------
# The table: stop reason -> step
# ----------------------------------------------------------------------------------------------

Step = Literal["finish", "run_tools", "resume", "grow_or_stop", "refused", "window_full"]
"""What the loop does next, once it has read a response's ``stop_reason``:

- ``finish``: the model is done (``end_turn``) or hit one of our ``stop_sequences``: keep the
  turn and return its text.
- ``run_tools``: keep the turn verbatim, run every ``tool_use`` block, send one user message with
  one ``tool_result`` per ``tool_use`` (same order, nothing else), call again.
- ``resume``: the server paused a long turn (``pause_turn``): keep the turn unchanged and call
  again, with no user message; there is nothing to run and no result to invent.
- ``grow_or_stop``: the reply hit ``max_tokens``. If the cut fell inside a ``tool_use``, its input
  is incomplete: never run it, drop the turn, and send the same request with a larger
  ``max_tokens``. If the cut fell in text, stop and report the partial text.
- ``refused``: the model declined (``refusal``). Re-sending refuses again: stop with a clear message.
- ``window_full``: the conversation filled the context window (``model_context_window_exceeded``):
  stop; more of the same cannot fit.
"""

STEP_FOR_STOP_REASON: dict[StopReason, Step] = {
    "end_turn": "finish",
    "stop_sequence": "finish",
    "tool_use": "run_tools",
    "pause_turn": "resume",
    "max_tokens": "grow_or_stop",
    "refusal": "refused",
    "model_context_window_exceeded": "window_full",
}
"""Every stop reason of the Messages API and the step the loop takes on it. A test asserts that
the keys are exactly ``typing.get_args(anthropic.types.StopReason)``, so a stop reason added to the
API fails CI until someone decides here what the loop does with it."""

StoppedBecause = Literal[
    "end_turn",
    "stop_sequence",
    "refusal",
    "max_tokens",
    "context_window",
    "guardrail:steps",
    "guardrail:tokens",
    "guardrail:time",
    "guardrail:tool_errors",
]
"""Why a run ended. Only ``end_turn`` and ``stop_sequence`` are a finished task."""

FINISHED: frozenset[str] = frozenset({"end_turn", "stop_sequence"})
"""The values of :data:`StoppedBecause` that mean the task is done."""

USAGE_FIELDS = ("input_tokens", "output_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")
"""The four token counts of ``response.usage`` that cost money (seed 001: all four count)."""


class LoopError(Exception):
    """Something the loop cannot handle on purpose (an unknown stop reason), or, as
    :class:`LoopStopped`, a run that ended before the task was done."""


class LoopStopped(LoopError):
    """Raised by :func:`agent_loop` when a run ends without finishing (a guardrail, a cut reply,
    a full context window). ``result`` is the :class:`RunResult` with the partial work; the
    message is ``result.explanation()``."""

    def __init__(self, result: "RunResult") -> None:
        self.result = result
        super().__init__(result.explanation())


# ----------------------------------------------------------------------------------------------
# Guardrails, trace and result
# ----------------------------------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class Guardrails:
    """Safety nets (seed 001, "Límites que todo bucle necesita"). None turns a limit off.

    They catch a loop when something goes wrong; ``stop_reason`` is how it normally ends
    (seeds 000, 004: a cap used as the stop mechanism ends hard tasks half done).
    """

    max_steps: int | None = 25
    """Requests to ``/v1/messages`` in one run (retries with a larger ``max_tokens`` and
    ``pause_turn`` continuations count). Seed 001: "between 10 and 30 depending on the task";
    25 lets a 13-step task finish."""
    max_total_tokens: int | None = None
    """Tokens over the whole run: ``input_tokens + output_tokens + cache_creation_input_tokens +
    cache_read_input_tokens`` summed over every response (seed 001: the cost ceiling of a task)."""
    max_seconds: float | None = None
    """Wall time of the run in seconds, read from ``clock`` (seed 001: "what your user tolerates")."""
    max_consecutive_tool_errors: int | None = 3
    """Tool turns in a row whose results are ALL ``is_error`` (seed 001: "3 consecutive errors")."""
    clock: Callable[[], float] = time.monotonic
    """Where ``max_seconds`` reads the time (seconds). Tests pass a fake clock, so nothing sleeps."""


@dataclass(frozen=True)
class ToolCall:
    """One client tool call the loop ran."""

    name: str
    input: dict[str, Any]
    is_error: bool
    """True when the tool raised (or was unknown) and the result went back with ``is_error``."""


@dataclass
class TurnTrace:
    """One response of the run, as the loop saw it (a line of the run's log)."""

    step: int
    """0-based request number, as in the journal."""
    stop_reason: str | None
    action: Step
    """The step the loop took (from :data:`STEP_FOR_STOP_REASON`)."""
    blocks: list[str]
    """The ``type`` of each content block, in order."""
    tool_calls: list[ToolCall] = field(default_factory=list)
    """The client tools run for this turn (empty unless ``action == "run_tools"``)."""
    usage: dict[str, int] = field(default_factory=dict)
    """This response's four token counts (:data:`USAGE_FIELDS`)."""
    max_tokens: int = 0
    """The ``max_tokens`` the request was sent with."""
    stop_sequence: str | None = None
    """The stop sequence matched, on ``stop_sequence``."""
    stop_details: dict[str, Any] | None = None
    """``stop_details`` of a refusal (category, explanation)."""


_TEXT: dict[str, dict[str, str]] = {
    "en": {
        "end_turn": "The model finished its turn (stop_reason end_turn) after {steps} step(s).",
        "stop_sequence": "The model reached the stop sequence {sequence!r} (stop_reason stop_sequence), a controlled "
                         "end, after {steps} step(s).",
        "refusal": "The model declined the request (stop_reason refusal{why}) and the loop did not retry it, so the "
                   "work is partial.",
        "max_tokens": "The reply was cut at max_tokens={max_tokens} (stop_reason max_tokens) after {steps} step(s), "
                      "so the work is partial: raise max_tokens or ask the model to continue.",
        "max_tokens_tool": "The reply was cut inside a tool_use even at max_tokens={max_tokens}, the retry limit, "
                           "so the cut call was not run and the work is partial.",
        "context_window": "The conversation filled the model's context window (stop_reason "
                          "model_context_window_exceeded) after {steps} step(s), so the work is partial: trim or "
                          "summarise the history.",
        "guardrail:steps": "The step guardrail tripped: {steps} requests reached max_steps={limit} before the model "
                           "ended its turn, so the work is partial.",
        "guardrail:tokens": "The token guardrail tripped: {tokens} tokens (input, output and both cache fields) "
                            "reached max_total_tokens={limit} after {steps} step(s), so the work is partial.",
        "guardrail:time": "The time guardrail tripped: {seconds:.1f} s reached max_seconds={limit} after {steps} "
                          "step(s), so the work is partial.",
        "guardrail:tool_errors": "The tool-error guardrail tripped: {errors} tool turns in a row returned only errors "
                                 "(max_consecutive_tool_errors={limit}), so the work is partial.",
        "declined": "The model declined this request.",
        "declined_why": "The model declined this request ({why}).",
    },
    "es": {
        "end_turn": "El modelo terminó su turno (stop_reason end_turn) tras {steps} paso(s).",
        "stop_sequence": "El modelo llegó a la secuencia de parada {sequence!r} (stop_reason stop_sequence), un fin "
                         "controlado, tras {steps} paso(s).",
        "refusal": "El modelo rechazó la petición (stop_reason refusal{why}) y el bucle no la reintentó, así que el "
                   "trabajo quedó a medias.",
        "max_tokens": "La respuesta se cortó en max_tokens={max_tokens} (stop_reason max_tokens) tras {steps} "
                      "paso(s), así que el trabajo quedó a medias: sube max_tokens o pide al modelo que continúe.",
        "max_tokens_tool": "La respuesta se cortó dentro de un tool_use incluso con max_tokens={max_tokens}, el "
                           "límite de reintento, así que la llamada cortada no se ejecutó y el trabajo quedó a medias.",
        "context_window": "La conversación llenó la ventana de contexto del modelo (stop_reason "
                          "model_context_window_exceeded) tras {steps} paso(s), así que el trabajo quedó a medias: "
                          "recorta o resume el historial.",
        "guardrail:steps": "Saltó el límite de pasos: {steps} peticiones alcanzaron max_steps={limit} antes de que "
                           "el modelo terminara su turno, así que el trabajo quedó a medias.",
        "guardrail:tokens": "Saltó el límite de tokens: {tokens} tokens (entrada, salida y los dos campos de "
                            "caché) alcanzaron max_total_tokens={limit} tras {steps} paso(s), así que el trabajo "
                            "quedó a medias.",
        "guardrail:time": "Saltó el límite de tiempo: {seconds:.1f} s alcanzaron max_seconds={limit} tras {steps} "
                          "paso(s), así que el trabajo quedó a medias.",
        "guardrail:tool_errors": "Saltó el límite de errores de herramienta: {errors} turnos seguidos devolvieron "
                                 "solo errores (max_consecutive_tool_errors={limit}), así que el trabajo quedó a "
                                 "medias.",
        "declined": "El modelo ha rechazado esta petición.",
        "declined_why": "El modelo ha rechazado esta petición ({why}).",
    },
}
"""Learner-facing sentences of :meth:`RunResult.explanation` and :func:`refusal_message`."""


@dataclass
class RunResult:
    """What a run of :func:`run_agent` produced, and why it ended."""

    text: str
    """The final text; when the run stopped early, the latest text the model wrote (partial work)."""
    stop_reason: str | None
    """The last ``stop_reason`` seen."""
    stopped_because: StoppedBecause
    """Why the run ended (see :data:`StoppedBecause`)."""
    finished: bool
    """True only when the model ended the task (``end_turn`` or ``stop_sequence``)."""
    turns: list[TurnTrace] = field(default_factory=list, repr=False)
    """One :class:`TurnTrace` per response, in order."""
    usage: dict[str, int] = field(default_factory=dict)
    """Totals over the run of the four token counts (:data:`USAGE_FIELDS`)."""
    messages: list[dict[str, Any]] = field(default_factory=list, repr=False)
    """The conversation as the loop left it (assistant turns as they came back). Not kept: a turn
    cut inside a tool_use (it was retried) and a refused turn. When a guardrail stops a tool_use
    turn, that turn is the last message and its tool_use blocks were not run."""
    guardrails: Guardrails = field(default_factory=Guardrails, repr=False)
    """The limits the run had."""
    elapsed_seconds: float = field(default=0.0, repr=False)
    """Wall time of the run, from ``guardrails.clock``."""
    consecutive_tool_errors: int = field(default=0, repr=False)
    """Tool turns in a row, at the end of the run, whose results were all errors."""

    @property
    def steps(self) -> int:
        """How many requests the run made (retries and continuations included)."""
        return len(self.turns)

    @property
    def total_tokens(self) -> int:
        """The sum of :attr:`usage`: what ``Guardrails.max_total_tokens`` is compared with."""
        return sum(self.usage.values())

    def explanation(self, lang: str | None = None) -> str:
        """One sentence: why the run stopped and, if it did not finish, that the work is partial.

        Args:
            lang: ``"en"`` or ``"es"`` (default: the learner's language, :func:`agentlab._i18n.language`).
        """
        lang = language(lang)
        t = _TEXT[lang]
        last = self.turns[-1] if self.turns else None
        key: str = self.stopped_because
        limits = {
            "guardrail:steps": self.guardrails.max_steps,
            "guardrail:tokens": self.guardrails.max_total_tokens,
            "guardrail:time": self.guardrails.max_seconds,
            "guardrail:tool_errors": self.guardrails.max_consecutive_tool_errors,
        }
        reason = _refusal_reason(last.stop_details if last else None, lang)
        why = f", {reason}" if reason else ""
        if key == "max_tokens" and last is not None and last.blocks and last.blocks[-1] == "tool_use":
            key = "max_tokens_tool"
        limit = limits.get(key)
        return t[key].format(
            steps=self.steps, limit=_number(limit, lang), tokens=_number(self.total_tokens, lang), seconds=self.elapsed_seconds,
            errors=self.consecutive_tool_errors, max_tokens=last.max_tokens if last else 0,
            sequence=last.stop_sequence if last else None, why=why,
        )


def refusal_message(result: RunResult, lang: str | None = None) -> str:
    """The clear message :func:`agent_loop` returns on a refusal (seed 001 returns "No puedo
    ayudar con esta petición."), with the category and explanation from ``stop_details`` when
    the API gave them."""
    lang = language(lang)
    why = _refusal_reason(result.turns[-1].stop_details if result.turns else None, lang)
    t = _TEXT[lang]
    return t["declined_why"].format(why=why) if why else t["declined"]


def _refusal_reason(details: dict[str, Any] | None, lang: str) -> str:
    """"category cyber: <explanation>" from a refusal's ``stop_details`` ("" when there are none).
    The explanation is the API's own text, quoted as it came."""
    if not details:
        return ""
    word = "categoría" if lang == "es" else "category"
    category, explanation = details.get("category"), (details.get("explanation") or "").strip().rstrip(".")
    if category and explanation:
        return f"{word} {category}: {explanation}"
    return f"{word} {category}" if category else explanation


def _number(value: Any, lang: str) -> Any:
    """An int with thousands separators as the language writes them (12,345 / 12.345)."""
    if not isinstance(value, int):
        return value
    text = f"{value:,}"
    return text.replace(",", ".") if lang == "es" else text


# ----------------------------------------------------------------------------------------------
# One run's state, shared by the sync and async loops
# ----------------------------------------------------------------------------------------------


def _text_of(content: list[Any]) -> str:
    return "".join(block.text for block in content if block.type == "text")


def _usage_of(response: Any) -> dict[str, int]:
    return {name: int(getattr(response.usage, name, 0) or 0) for name in USAGE_FIELDS}


def _cut_inside_tool_use(response: Any) -> bool:
    """A max_tokens reply whose LAST block is a tool_use: that block's input is incomplete."""
    return bool(response.content) and response.content[-1].type == "tool_use"


class _Run:
    """The state of one run: the conversation, the trace, the totals and the guardrail checks.
    The loops below only call the API, run the tools and branch on the step."""

    def __init__(self, prompt: str, tools: list[dict], *, model: str, max_tokens: int, system: str | None,
                 guardrails: Guardrails, max_tokens_retry_limit: int, params: dict[str, Any]) -> None:
        self.messages: list[dict[str, Any]] = [{"role": "user", "content": prompt}]
        self.tools = list(tools)
        self.tool_names = {t.get("name") for t in self.tools if isinstance(t, dict)}
        self.model = model
        self.max_tokens = max_tokens
        self.max_tokens_retry_limit = max_tokens_retry_limit
        self.system = system
        self.params = params
        self.guardrails = guardrails
        self.turns: list[TurnTrace] = []
        self.usage = dict.fromkeys(USAGE_FIELDS, 0)
        self.last_content: list[Any] = []
        self.last_text = ""
        self.consecutive_tool_errors = 0
        self.started = guardrails.clock()
        self.elapsed = 0.0

    def request(self) -> dict[str, Any]:
        """The keyword arguments of the next ``client.messages.create``: always the whole conversation."""
        request: dict[str, Any] = {"model": self.model, "max_tokens": self.max_tokens, "messages": self.messages}
        if self.tools:
            request["tools"] = self.tools
        if self.system is not None:
            request["system"] = self.system
        return {**self.params, **request}

    def read(self, response: Any) -> Step:
        """Record the response (trace, usage, time) and look its stop reason up in the table.

        Raises:
            LoopError: for a stop reason the table does not know.
        """
        self.elapsed = self.guardrails.clock() - self.started
        usage = _usage_of(response)
        for name, value in usage.items():
            self.usage[name] += value
        self.last_content = response.content
        text = _text_of(response.content)
        if text:
            self.last_text = text
        if response.stop_reason not in STEP_FOR_STOP_REASON:
            raise LoopError(
                f"unknown stop_reason {response.stop_reason!r} at step {len(self.turns)}: this loop knows "
                f"{', '.join(STEP_FOR_STOP_REASON)}. Decide what the loop does with it in STEP_FOR_STOP_REASON."
            )
        step = STEP_FOR_STOP_REASON[response.stop_reason]
        details = response.stop_details.model_dump() if getattr(response, "stop_details", None) else None
        self.turns.append(TurnTrace(
            step=len(self.turns), stop_reason=response.stop_reason, action=step,
            blocks=[block.type for block in response.content], usage=usage, max_tokens=self.max_tokens,
            stop_sequence=response.stop_sequence, stop_details=details,
        ))
        return step

    def keep(self, response: Any) -> None:
        """Append the assistant turn exactly as it came back (thinking blocks and signatures included)."""
        self.messages.append({"role": "assistant", "content": response.content})

    def can_grow(self, response: Any) -> bool:
        """True when a max_tokens reply was cut inside a tool_use and max_tokens may still grow."""
        return _cut_inside_tool_use(response) and self.max_tokens < self.max_tokens_retry_limit

    def grow(self) -> None:
        """Double max_tokens, up to the retry limit, for the same request again (the cut turn was never appended)."""
        self.max_tokens = min(self.max_tokens * 2, self.max_tokens_retry_limit)

    def tripped_guardrail(self) -> StoppedBecause | None:
        """The first of steps, tokens and time that has reached its limit, checked after a response
        that asks for more work."""
        g = self.guardrails
        if g.max_steps is not None and len(self.turns) >= g.max_steps:
            return "guardrail:steps"
        if g.max_total_tokens is not None and sum(self.usage.values()) >= g.max_total_tokens:
            return "guardrail:tokens"
        if g.max_seconds is not None and self.elapsed >= g.max_seconds:
            return "guardrail:time"
        return None

    def add_results(self, response: Any, results: list[dict[str, Any]]) -> StoppedBecause | None:
        """Send the results back as ONE user message (results only), trace the calls, and check
        the consecutive-tool-errors guardrail."""
        if not results:
            raise LoopError(f"stop_reason tool_use with no tool_use block at step {len(self.turns) - 1}: nothing to run")
        self.messages.append({"role": "user", "content": results})
        calls = [block for block in response.content if block.type == "tool_use"]
        self.turns[-1].tool_calls = [
            ToolCall(name=call.name, input=call.input, is_error=bool(result.get("is_error")))
            for call, result in zip(calls, results)
        ]
        if all(result.get("is_error") for result in results):
            self.consecutive_tool_errors += 1
        else:
            self.consecutive_tool_errors = 0
        limit = self.guardrails.max_consecutive_tool_errors
        if limit is not None and self.consecutive_tool_errors >= limit:
            return "guardrail:tool_errors"
        return None

    def result(self, because: StoppedBecause) -> RunResult:
        """The run's :class:`RunResult`; the text is the last turn's when finished, else the latest text seen."""
        finished = because in FINISHED
        return RunResult(
            text=_text_of(self.last_content) if finished else self.last_text,
            stop_reason=self.turns[-1].stop_reason if self.turns else None,
            stopped_because=because,
            finished=finished,
            turns=self.turns,
            usage=dict(self.usage),
            messages=self.messages,
            guardrails=self.guardrails,
            elapsed_seconds=self.elapsed,
            consecutive_tool_errors=self.consecutive_tool_errors,
        )

    # tool results ------------------------------------------------------------------------

    def unknown_tool(self, block: Any) -> dict[str, Any] | None:
        """An is_error result for a tool_use whose name is not among the tools sent, else None."""
        if block.name in self.tool_names:
            return None
        available = ", ".join(sorted(str(n) for n in self.tool_names)) or "none"
        return _error_result(block, f"unknown tool {block.name!r}; available tools: {available}")


def _error_result(block: Any, message: str) -> dict[str, Any]:
    return {"type": "tool_result", "tool_use_id": block.id, "content": f"Error: {message}", "is_error": True}


def _ok_result(block: Any, output: Any) -> dict[str, Any]:
    content = output if isinstance(output, (str, list)) else str(output)
    return {"type": "tool_result", "tool_use_id": block.id, "content": content}


def _call_tool(run: _Run, run_tool: RunTool, block: Any) -> dict[str, Any]:
    """Run one tool_use block; an exception becomes an is_error result the model can read."""
    unknown = run.unknown_tool(block)
    if unknown is not None:
        return unknown
    try:
        return _ok_result(block, run_tool(block.name, block.input))
    except Exception as exc:  # noqa: BLE001 - returned to the model, not raised (seed 001)
        return _error_result(block, str(exc) or type(exc).__name__)


async def _acall_tool(run: _Run, run_tool: RunTool, block: Any) -> dict[str, Any]:
    """Async :func:`_call_tool`: await a coroutine function, run a plain function in a thread."""
    unknown = run.unknown_tool(block)
    if unknown is not None:
        return unknown
    try:
        if inspect.iscoroutinefunction(run_tool):
            output = await run_tool(block.name, block.input)
        else:
            output = await asyncio.to_thread(run_tool, block.name, block.input)
            if inspect.isawaitable(output):
                output = await output
        return _ok_result(block, output)
    except Exception as exc:  # noqa: BLE001 - returned to the model, not raised (seed 001)
        return _error_result(block, str(exc) or type(exc).__name__)


def _run_tools(run: _Run, run_tool: RunTool, content: list[Any]) -> list[dict[str, Any]]:
    """One tool_result per tool_use, in the same order. Several calls in one turn are independent
    (the model asked for them together), so they run at the same time."""
    calls = [block for block in content if block.type == "tool_use"]
    if len(calls) <= 1:
        return [_call_tool(run, run_tool, block) for block in calls]
    with ThreadPoolExecutor(max_workers=len(calls)) as pool:
        return list(pool.map(lambda block: _call_tool(run, run_tool, block), calls))


async def _arun_tools(run: _Run, run_tool: RunTool, content: list[Any]) -> list[dict[str, Any]]:
    """Async :func:`_run_tools`: ``asyncio.gather`` keeps the order of the calls."""
    calls = [block for block in content if block.type == "tool_use"]
    return list(await asyncio.gather(*(_acall_tool(run, run_tool, block) for block in calls)))


# ----------------------------------------------------------------------------------------------
# The loops
# ----------------------------------------------------------------------------------------------


def run_agent(
    client: Any,
    prompt: str,
    tools: list[dict],
    run_tool: RunTool,
    *,
    model: str = "claude-sonnet-5",
    max_tokens: int = 1024,
    system: str | None = None,
    guardrails: Guardrails = Guardrails(),
    max_tokens_retry_limit: int = 16384,
    **params: Any,
) -> RunResult:
    """Run the agent loop on ``client`` (an ``anthropic.Anthropic``) until the model ends the task
    or the run has to stop, and say which.

    Args:
        client: the SDK client.
        prompt: the user's task (the first user message).
        tools: tool definitions sent on every request (client and server tools).
        run_tool: ``run_tool(name, tool_input) -> str``; it may raise (the error goes back to the
            model as an ``is_error`` result).
        model, max_tokens, system: request parameters.
        guardrails: the safety nets (:class:`Guardrails`).
        max_tokens_retry_limit: the largest ``max_tokens`` a reply cut inside a tool_use is retried with.
        **params: more ``messages.create`` parameters (``thinking``, ``stop_sequences``, ``tool_choice``...).

    Returns:
        A :class:`RunResult`. Guardrails and early stops are reported there, never raised.

    Raises:
        LoopError: on a stop reason :data:`STEP_FOR_STOP_REASON` does not know. SDK errors
            (``anthropic.APIError``) propagate after the SDK's own retries.
    """
    run = _Run(prompt, tools, model=model, max_tokens=max_tokens, system=system, guardrails=guardrails,
               max_tokens_retry_limit=max_tokens_retry_limit, params=params)
    while True:
        response = client.messages.create(**run.request())
        step = run.read(response)

        # 1. The steps that end the run.
        match step:
            case "finish":
                run.keep(response)
                return run.result(response.stop_reason)
            case "refused":
                return run.result("refusal")  # not retried: the same request refuses again
            case "window_full":
                run.keep(response)
                return run.result("context_window")
            case "grow_or_stop" if not run.can_grow(response):
                if not _cut_inside_tool_use(response):
                    run.keep(response)  # cut in text: keep the partial answer
                return run.result("max_tokens")

        # 2. The model wants more work: the guardrails first (a safety net, not the way out).
        tripped = run.tripped_guardrail()
        if tripped is not None:
            if step != "grow_or_stop":
                run.keep(response)
            return run.result(tripped)

        # 3. The steps that continue.
        match step:
            case "resume":
                run.keep(response)  # pause_turn: sent back unchanged, no user message
            case "grow_or_stop":
                run.grow()  # the cut turn is never appended and its tool_use never run
            case "run_tools":
                run.keep(response)
                results = _run_tools(run, run_tool, response.content)
                tripped = run.add_results(response, results)
                if tripped is not None:
                    return run.result(tripped)


async def arun_agent(
    client: Any,
    prompt: str,
    tools: list[dict],
    run_tool: RunTool,
    *,
    model: str = "claude-sonnet-5",
    max_tokens: int = 1024,
    system: str | None = None,
    guardrails: Guardrails = Guardrails(),
    max_tokens_retry_limit: int = 16384,
    **params: Any,
) -> RunResult:
    """:func:`run_agent` on an ``anthropic.AsyncAnthropic``: the same contract, with
    ``await client.messages.create`` and the tools of one turn run with ``asyncio.gather``
    (``run_tool`` may be a coroutine function; a plain function runs in a thread)."""
    run = _Run(prompt, tools, model=model, max_tokens=max_tokens, system=system, guardrails=guardrails,
               max_tokens_retry_limit=max_tokens_retry_limit, params=params)
    while True:
        response = await client.messages.create(**run.request())
        step = run.read(response)

        match step:
            case "finish":
                run.keep(response)
                return run.result(response.stop_reason)
            case "refused":
                return run.result("refusal")
            case "window_full":
                run.keep(response)
                return run.result("context_window")
            case "grow_or_stop" if not run.can_grow(response):
                if not _cut_inside_tool_use(response):
                    run.keep(response)
                return run.result("max_tokens")

        tripped = run.tripped_guardrail()
        if tripped is not None:
            if step != "grow_or_stop":
                run.keep(response)
            return run.result(tripped)

        match step:
            case "resume":
                run.keep(response)
            case "grow_or_stop":
                run.grow()
            case "run_tools":
                run.keep(response)
                results = await _arun_tools(run, run_tool, response.content)
                tripped = run.add_results(response, results)
                if tripped is not None:
                    return run.result(tripped)


def _outcome(result: RunResult) -> str:
    """What :func:`agent_loop` returns for ``result``; raises when the work is not done."""
    if result.finished:
        return result.text
    if result.stopped_because == "refusal":
        return refusal_message(result)
    raise LoopStopped(result)


def agent_loop(client: Any, prompt: str, tools: list[dict], run_tool: RunTool) -> str:
    """The seeds' signature (what ``agentlab.grade`` calls): :func:`run_agent` with its defaults.

    Returns:
        The final text when the model finished; on a refusal, a clear message (not retried).

    Raises:
        LoopStopped: for every other early stop (a guardrail, a cut reply, a full context window),
            carrying the :class:`RunResult`: a stop must be loud, not look like an answer.
    """
    return _outcome(run_agent(client, prompt, tools, run_tool))


async def aagent_loop(client: Any, prompt: str, tools: list[dict], run_tool: RunTool) -> str:
    """:func:`agent_loop` on an ``anthropic.AsyncAnthropic``."""
    return _outcome(await arun_agent(client, prompt, tools, run_tool))
