"""Agent SDK specimens: one small consumer of ``query()``'s messages per ``agent-sdk`` anti-pattern.

:func:`correct_consumer` is the reference: seed 004's pattern ("Ponerlo todo junto") as a function
the grader can call. Every specimen is that consumer with ONE change, marked in its source by a
comment ``# FAULT (<tag>): ...`` on the faulty line(s), and is otherwise correct::

    import agentlab
    from agentlab.loops.sdk_specimens import SDK_SPECIMENS, correct_consumer

    agentlab.grade(correct_consumer)                         # every SDK case passes
    agentlab.grade(SDK_SPECIMENS["breaks-at-result"])        # fails, diagnosed with its tag

Every consumer has the SDK grader's signature, ``async def consume(messages) -> str``: it reads
the messages of one ``query()`` run to the end, returns ``ResultMessage.result`` when the run
succeeded (subtype ``"success"`` and ``is_error`` false) and raises otherwise; reading to the end
is what makes the SDK raise its ``ResultError`` after an error result (seed 004 "Tipos de
mensajes", reference 6.2). It logs the run's cost to :data:`LOG`, checking it for None first
(typed Optional in Python; seed 004 "Manejar el resultado").

:func:`specimen_checks_subtype_only` is a second specimen of ``error-result-as-success``: the
``is_error`` nuance (an API failure arrives as subtype ``"success"`` with ``is_error`` true,
reference 6.2). ``tests/test_sdk_grader.py`` holds the grader's verdict on every specimen and case.

Especímenes del Agent SDK: un consumidor pequeño por antipatrón, con exactamente ese fallo y
correcto en todo lo demás; el comentario ``# FAULT (<tag>)`` señala la línea culpable. Compáralo
con ``correct_consumer`` y pásalo por ``agentlab.grade`` para ver el diagnóstico.

Importing this module needs claude-agent-sdk (``pip install "agentlab[agent-sdk]"``).
"""

from __future__ import annotations

from collections import deque
from typing import Any, Awaitable, Callable

from claude_agent_sdk import ClaudeSDKError, ResultMessage

__all__ = [
    "LOG", "SDK_SPECIMENS", "AgentRunError", "cost_text", "correct_consumer", "log",
    "specimen_error_result_as_success", "specimen_breaks_at_result", "specimen_ignores_none_cost",
    "specimen_checks_subtype_only",
]

LOG: deque[str] = deque(maxlen=100)
"""What the consumers logged (the last 100 lines): one line per successful run with its cost."""


def log(line: str) -> None:
    """Append one line to :data:`LOG` (a stand-in for a real logger; it never prints)."""
    LOG.append(line)


def cost_text(result: Any) -> str:
    """``"$0.0188"``, or ``"cost not reported"`` when ``total_cost_usd`` is None (seed 004)."""
    if result.total_cost_usd is None:
        return "cost not reported"
    return f"${result.total_cost_usd:.4f}"


class AgentRunError(RuntimeError):
    """The run did not succeed: an error subtype, ``is_error`` true, or no result at all."""


# ------------------------------------------------------------------------------------------ the reference


async def correct_consumer(messages) -> str:
    """The reference: every specimen is this consumer with one change. Passes every SDK case.
    La referencia: cada espécimen es este consumidor con un cambio. Supera todos los casos del SDK."""
    result = None
    async for message in messages:  # to the end: events can follow the result, and errors raise there
        if isinstance(message, ResultMessage):
            result = message
    if result is None:
        raise AgentRunError("the stream ended without a ResultMessage")
    if result.subtype != "success" or result.is_error:
        raise AgentRunError(f"{result.subtype}: {result.errors or result.result}")
    log(f"{result.session_id}: {cost_text(result)}")
    return result.result or ""


# ------------------------------------------------------------------------------------------ agent-sdk


async def specimen_error_result_as_success(messages) -> str:
    """Fault: the result text is returned whatever the subtype and is_error say.
    Fallo: devuelve el texto del resultado digan lo que digan el subtipo e is_error."""
    result = None
    try:
        async for message in messages:
            if isinstance(message, ResultMessage):
                result = message
    except ClaudeSDKError:  # FAULT (error-result-as-success): swallows the error query() raises after an error result
        pass
    if result is None:
        raise AgentRunError("the stream ended without a ResultMessage")
    # FAULT (error-result-as-success): no check of subtype or is_error before using the result
    log(f"{result.session_id}: {cost_text(result)}")
    return result.result or ""


async def specimen_checks_subtype_only(messages) -> str:
    """Fault: checks the subtype but not is_error, and swallows the SDK's error after the result.
    Fallo: comprueba el subtipo pero no is_error, y se traga el error del SDK tras el resultado."""
    result = None
    try:
        async for message in messages:
            if isinstance(message, ResultMessage):
                result = message
    except ClaudeSDKError:  # FAULT (error-result-as-success): "the subtype check below already handles it"
        pass
    if result is None:
        raise AgentRunError("the stream ended without a ResultMessage")
    if result.subtype != "success":  # FAULT (error-result-as-success): an API error is "success" + is_error
        raise AgentRunError(f"{result.subtype}: {result.errors or result.result}")
    log(f"{result.session_id}: {cost_text(result)}")
    return result.result or ""


async def specimen_breaks_at_result(messages) -> str:
    """Fault: returns (or raises) as soon as the ResultMessage arrives, leaving the stream unread.
    Fallo: devuelve (o lanza) en cuanto llega el ResultMessage y deja el flujo sin leer."""
    async for message in messages:
        if isinstance(message, ResultMessage):
            if message.subtype != "success" or message.is_error:
                raise AgentRunError(f"{message.subtype}: {message.errors or message.result}")
            log(f"{message.session_id}: {cost_text(message)}")
            return message.result or ""  # FAULT (breaks-at-result): trailing events are never read
    raise AgentRunError("the stream ended without a ResultMessage")


async def specimen_ignores_none_cost(messages) -> str:
    """Fault: formats total_cost_usd without checking for None.
    Fallo: formatea total_cost_usd sin comprobar si es None."""
    result = None
    async for message in messages:
        if isinstance(message, ResultMessage):
            result = message
    if result is None:
        raise AgentRunError("the stream ended without a ResultMessage")
    if result.subtype != "success" or result.is_error:
        raise AgentRunError(f"{result.subtype}: {result.errors or result.result}")
    log(f"{result.session_id}: ${result.total_cost_usd:.4f}")  # FAULT (ignores-none-cost): None has no :.4f
    return result.result or ""


SDK_SPECIMENS: dict[str, Callable[[Any], Awaitable[str]]] = {
    "error-result-as-success": specimen_error_result_as_success,
    "breaks-at-result": specimen_breaks_at_result,
    "ignores-none-cost": specimen_ignores_none_cost,
}
"""Tag -> specimen, in the catalogue's order (the ``agent-sdk`` family of ``agentlab.antipatterns``)."""
