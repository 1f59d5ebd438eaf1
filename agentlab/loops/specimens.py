"""Specimens: one small agent loop per anti-pattern, each with exactly that fault.

:func:`correct_loop` is the reference: seed 001's "Ejemplo completo" with the guardrails the course
asks for. Every specimen is that loop with ONE change, marked in its source by a comment
``# FAULT (<tag>): ...`` on the faulty line(s), and is otherwise correct. Read a specimen next to
the reference (``inspect.getsource``), find the fault, then let the grader name it::

    import agentlab
    from agentlab.loops.specimens import SPECIMENS, correct_loop

    agentlab.grade(correct_loop)                             # every case passes
    agentlab.grade(SPECIMENS["missing-assistant-turn"])      # fails, diagnosed with its tag

Every loop has the grader's signature, ``agent_loop(client, prompt, tools, run_tool) -> str``.
The reference: model ``claude-sonnet-5``, ``max_tokens`` 1024; branch on ``stop_reason`` only;
append ``response.content`` verbatim; one user message with one ``tool_result`` per ``tool_use``
(a tool that raises comes back with ``is_error``); ``pause_turn``: call again; ``max_tokens`` cut
inside a ``tool_use``: never run it, retry once with 4096; cut in text: raise; ``refusal``:
return a message; ``stop_sequence``: return the text; anything else: raise. Safety nets that
raise: :data:`MAX_STEPS` requests, :data:`MAX_TOOL_ERRORS` turns in a row whose results are all
errors. ``SPECIMENS`` maps each tag to its specimen, in the catalogue's order
(``agentlab.antipatterns.TAGS``); ``tests/test_specimens.py`` holds the grader's verdict on every
specimen and case.

Especímenes: un bucle pequeño por antipatrón, con exactamente ese fallo y correcto en todo lo
demás; el comentario ``# FAULT (<tag>)`` señala la línea culpable. Compáralo con
``correct_loop`` y pásalo por ``agentlab.grade`` para ver el diagnóstico.
"""

from __future__ import annotations

from typing import Callable

__all__ = [
    "MAX_STEPS", "MAX_TOKENS", "MAX_TOOL_ERRORS", "MODEL", "RETRY_MAX_TOKENS", "SPECIMENS",
    "correct_loop", "run_one", "text_of",
    "specimen_text_parsing_termination", "specimen_iteration_cap_as_stop", "specimen_has_text_means_done",
    "specimen_no_text_means_done", "specimen_missing_assistant_turn", "specimen_rebuilt_assistant_turn",
    "specimen_results_not_appended", "specimen_text_before_tool_result", "specimen_text_after_tool_result",
    "specimen_missing_tool_result", "specimen_split_tool_results", "specimen_tool_error_crashes_loop",
    "specimen_ignores_pause_turn", "specimen_fabricated_server_tool_result", "specimen_ignores_max_tokens",
    "specimen_executes_truncated_tool_use", "specimen_resends_unchanged_request", "specimen_retries_refusal",
    "specimen_unhandled_stop_reason", "specimen_unbounded_tool_errors", "specimen_no_safety_cap",
    "specimen_strips_thinking", "specimen_hardcoded_tool_sequence", "specimen_forced_tool_choice",
]

MODEL = "claude-sonnet-5"
MAX_TOKENS = 1024
"""The usual output budget; a tool call cut by it is retried once with :data:`RETRY_MAX_TOKENS`."""
RETRY_MAX_TOKENS = 4096
"""The budget of that one retry."""
MAX_STEPS = 25
"""Safety cap on requests: it RAISES when hit, it is never the way the loop normally ends."""
MAX_TOOL_ERRORS = 3
"""Consecutive turns whose tool results are all errors before the loop gives up (seed 001)."""


def run_one(block, run_tool) -> dict:
    """One tool_use block -> its tool_result; an exception comes back as an is_error result."""
    try:
        return {"type": "tool_result", "tool_use_id": block.id, "content": run_tool(block.name, block.input)}
    except Exception as e:  # the error goes back to the model, it does not break the loop
        return {"type": "tool_result", "tool_use_id": block.id, "content": f"Error: {e}", "is_error": True}


def text_of(response) -> str:
    """The text blocks of a response, joined (the final answer on end_turn)."""
    return "".join(b.text for b in response.content if b.type == "text")


# ------------------------------------------------------------------------------------------ the reference


def correct_loop(client, prompt: str, tools: list[dict], run_tool) -> str:
    """The reference: every specimen is this loop with one change. Passes every case.
    La referencia: cada espécimen es este bucle con un cambio. Supera todos los casos."""
    messages = [{"role": "user", "content": prompt}]
    max_tokens, errors = MAX_TOKENS, 0
    for _ in range(MAX_STEPS):
        response = client.messages.create(model=MODEL, max_tokens=max_tokens, tools=tools, messages=messages)
        if response.stop_reason == "max_tokens":
            if response.content[-1].type == "tool_use" and max_tokens == MAX_TOKENS:
                max_tokens = RETRY_MAX_TOKENS  # the cut call is never run: same request, more room
                continue
            raise RuntimeError(f"Answer cut by max_tokens={max_tokens}: raise it or split the task")
        messages.append({"role": "assistant", "content": response.content})
        if response.stop_reason in ("end_turn", "stop_sequence"):
            return text_of(response)
        if response.stop_reason == "tool_use":
            results = [run_one(b, run_tool) for b in response.content if b.type == "tool_use"]
            messages.append({"role": "user", "content": results})
            errors = errors + 1 if all(r.get("is_error") for r in results) else 0
            if errors >= MAX_TOOL_ERRORS:
                raise RuntimeError(f"The tools failed {errors} turns in a row: {results[-1]['content']}")
        elif response.stop_reason == "pause_turn":
            continue  # the history already holds the paused turn: call again
        elif response.stop_reason == "refusal":
            return "The model declined this request."
        else:
            raise RuntimeError(f"Unhandled stop_reason: {response.stop_reason}")
    raise RuntimeError(f"No end_turn after {MAX_STEPS} requests")


# ------------------------------------------------------------------------------------------ termination


def specimen_text_parsing_termination(client, prompt: str, tools: list[dict], run_tool) -> str:
    """Fault: the loop ends when the text says "DONE"/"Final answer", not on stop_reason.
    Fallo: el bucle termina cuando el texto dice «DONE»/«Final answer», no según stop_reason."""
    messages = [{"role": "user", "content": prompt}]
    max_tokens, errors = MAX_TOKENS, 0
    for _ in range(MAX_STEPS):
        response = client.messages.create(model=MODEL, max_tokens=max_tokens, tools=tools, messages=messages)
        if response.stop_reason == "max_tokens":
            if response.content[-1].type == "tool_use" and max_tokens == MAX_TOKENS:
                max_tokens = RETRY_MAX_TOKENS
                continue
            raise RuntimeError(f"Answer cut by max_tokens={max_tokens}: raise it or split the task")
        messages.append({"role": "assistant", "content": response.content})
        text = text_of(response)
        if "DONE" in text or "Final answer" in text:  # FAULT (text-parsing-termination): the words decide the end
            return text
        if response.stop_reason == "tool_use":
            results = [run_one(b, run_tool) for b in response.content if b.type == "tool_use"]
            messages.append({"role": "user", "content": results})
            errors = errors + 1 if all(r.get("is_error") for r in results) else 0
            if errors >= MAX_TOOL_ERRORS:
                raise RuntimeError(f"The tools failed {errors} turns in a row: {results[-1]['content']}")
        elif response.stop_reason in ("end_turn", "stop_sequence", "pause_turn"):
            continue  # FAULT (text-parsing-termination): no "DONE" in the text yet, so it calls again
        elif response.stop_reason == "refusal":
            return "The model declined this request."
        else:
            raise RuntimeError(f"Unhandled stop_reason: {response.stop_reason}")
    raise RuntimeError(f"No end_turn after {MAX_STEPS} requests")


def specimen_iteration_cap_as_stop(client, prompt: str, tools: list[dict], run_tool) -> str:
    """Fault: ten turns and out: the loop returns after a fixed count as if the task were done.
    Fallo: diez vueltas y fuera: el bucle devuelve tras un número fijo de vueltas como si hubiera terminado."""
    messages = [{"role": "user", "content": prompt}]
    max_tokens, errors = MAX_TOKENS, 0
    for _ in range(10):  # FAULT (iteration-cap-as-stop): the count, not end_turn, is the main stop
        response = client.messages.create(model=MODEL, max_tokens=max_tokens, tools=tools, messages=messages)
        if response.stop_reason == "max_tokens":
            if response.content[-1].type == "tool_use" and max_tokens == MAX_TOKENS:
                max_tokens = RETRY_MAX_TOKENS
                continue
            raise RuntimeError(f"Answer cut by max_tokens={max_tokens}: raise it or split the task")
        messages.append({"role": "assistant", "content": response.content})
        if response.stop_reason in ("end_turn", "stop_sequence"):
            return text_of(response)
        if response.stop_reason == "tool_use":
            results = [run_one(b, run_tool) for b in response.content if b.type == "tool_use"]
            messages.append({"role": "user", "content": results})
            errors = errors + 1 if all(r.get("is_error") for r in results) else 0
            if errors >= MAX_TOOL_ERRORS:
                raise RuntimeError(f"The tools failed {errors} turns in a row: {results[-1]['content']}")
        elif response.stop_reason == "pause_turn":
            continue
        elif response.stop_reason == "refusal":
            return "The model declined this request."
        else:
            raise RuntimeError(f"Unhandled stop_reason: {response.stop_reason}")
    return text_of(response)  # FAULT (iteration-cap-as-stop): the text so far, handed back as if the task were done


def specimen_has_text_means_done(client, prompt: str, tools: list[dict], run_tool) -> str:
    """Fault: the loop returns as soon as the reply has text, even next to a tool_use.
    Fallo: el bucle devuelve en cuanto la respuesta trae texto, aunque venga junto a un tool_use."""
    messages = [{"role": "user", "content": prompt}]
    max_tokens, errors = MAX_TOKENS, 0
    for _ in range(MAX_STEPS):
        response = client.messages.create(model=MODEL, max_tokens=max_tokens, tools=tools, messages=messages)
        if response.stop_reason == "max_tokens":
            if response.content[-1].type == "tool_use" and max_tokens == MAX_TOKENS:
                max_tokens = RETRY_MAX_TOKENS
                continue
            raise RuntimeError(f"Answer cut by max_tokens={max_tokens}: raise it or split the task")
        messages.append({"role": "assistant", "content": response.content})
        if text_of(response):  # FAULT (has-text-means-done): "it wrote something, so it is done"
            return text_of(response)
        if response.stop_reason in ("end_turn", "stop_sequence"):
            return text_of(response)
        if response.stop_reason == "tool_use":
            results = [run_one(b, run_tool) for b in response.content if b.type == "tool_use"]
            messages.append({"role": "user", "content": results})
            errors = errors + 1 if all(r.get("is_error") for r in results) else 0
            if errors >= MAX_TOOL_ERRORS:
                raise RuntimeError(f"The tools failed {errors} turns in a row: {results[-1]['content']}")
        elif response.stop_reason == "pause_turn":
            continue
        elif response.stop_reason == "refusal":
            return "The model declined this request."
        else:
            raise RuntimeError(f"Unhandled stop_reason: {response.stop_reason}")
    raise RuntimeError(f"No end_turn after {MAX_STEPS} requests")


def specimen_no_text_means_done(client, prompt: str, tools: list[dict], run_tool) -> str:
    """Fault: the loop takes a reply without text as the end, though a tool_use often has none.
    Fallo: el bucle toma una respuesta sin texto como el final, aunque un tool_use muchas veces no trae texto."""
    messages = [{"role": "user", "content": prompt}]
    max_tokens, errors = MAX_TOKENS, 0
    for _ in range(MAX_STEPS):
        response = client.messages.create(model=MODEL, max_tokens=max_tokens, tools=tools, messages=messages)
        if response.stop_reason == "max_tokens":
            if response.content[-1].type == "tool_use" and max_tokens == MAX_TOKENS:
                max_tokens = RETRY_MAX_TOKENS
                continue
            raise RuntimeError(f"Answer cut by max_tokens={max_tokens}: raise it or split the task")
        messages.append({"role": "assistant", "content": response.content})
        if not text_of(response):  # FAULT (no-text-means-done): "nothing more to say, so it is done"
            return ""
        if response.stop_reason in ("end_turn", "stop_sequence"):
            return text_of(response)
        if response.stop_reason == "tool_use":
            results = [run_one(b, run_tool) for b in response.content if b.type == "tool_use"]
            messages.append({"role": "user", "content": results})
            errors = errors + 1 if all(r.get("is_error") for r in results) else 0
            if errors >= MAX_TOOL_ERRORS:
                raise RuntimeError(f"The tools failed {errors} turns in a row: {results[-1]['content']}")
        elif response.stop_reason == "pause_turn":
            continue
        elif response.stop_reason == "refusal":
            return "The model declined this request."
        else:
            raise RuntimeError(f"Unhandled stop_reason: {response.stop_reason}")
    raise RuntimeError(f"No end_turn after {MAX_STEPS} requests")


# ------------------------------------------------------------------------------------------ history


def specimen_missing_assistant_turn(client, prompt: str, tools: list[dict], run_tool) -> str:
    """Fault: the tool results are appended without the assistant turn that asked for them.
    Fallo: los resultados se añaden sin el turno del asistente que los pidió."""
    messages = [{"role": "user", "content": prompt}]
    max_tokens, errors = MAX_TOKENS, 0
    for _ in range(MAX_STEPS):
        response = client.messages.create(model=MODEL, max_tokens=max_tokens, tools=tools, messages=messages)
        if response.stop_reason == "max_tokens":
            if response.content[-1].type == "tool_use" and max_tokens == MAX_TOKENS:
                max_tokens = RETRY_MAX_TOKENS
                continue
            raise RuntimeError(f"Answer cut by max_tokens={max_tokens}: raise it or split the task")
        if response.stop_reason in ("end_turn", "stop_sequence"):
            return text_of(response)
        if response.stop_reason == "tool_use":
            results = [run_one(b, run_tool) for b in response.content if b.type == "tool_use"]
            # FAULT (missing-assistant-turn): no {"role": "assistant", "content": response.content} before the results
            messages.append({"role": "user", "content": results})
            errors = errors + 1 if all(r.get("is_error") for r in results) else 0
            if errors >= MAX_TOOL_ERRORS:
                raise RuntimeError(f"The tools failed {errors} turns in a row: {results[-1]['content']}")
        elif response.stop_reason == "pause_turn":
            messages.append({"role": "assistant", "content": response.content})
        elif response.stop_reason == "refusal":
            return "The model declined this request."
        else:
            raise RuntimeError(f"Unhandled stop_reason: {response.stop_reason}")
    raise RuntimeError(f"No end_turn after {MAX_STEPS} requests")


def specimen_rebuilt_assistant_turn(client, prompt: str, tools: list[dict], run_tool) -> str:
    """Fault: the assistant turn is rebuilt by hand from its tool_use blocks (text and thinking are lost).
    Fallo: el turno del asistente se reconstruye a mano con sus tool_use (se pierden text y thinking)."""
    messages = [{"role": "user", "content": prompt}]
    max_tokens, errors = MAX_TOKENS, 0
    for _ in range(MAX_STEPS):
        response = client.messages.create(model=MODEL, max_tokens=max_tokens, tools=tools, messages=messages)
        if response.stop_reason == "max_tokens":
            if response.content[-1].type == "tool_use" and max_tokens == MAX_TOKENS:
                max_tokens = RETRY_MAX_TOKENS
                continue
            raise RuntimeError(f"Answer cut by max_tokens={max_tokens}: raise it or split the task")
        if response.stop_reason in ("end_turn", "stop_sequence"):
            return text_of(response)
        if response.stop_reason == "tool_use":
            # FAULT (rebuilt-assistant-turn): a hand-made copy with only the tool calls, not response.content
            messages.append({"role": "assistant", "content": [
                {"type": "tool_use", "id": b.id, "name": b.name, "input": b.input}
                for b in response.content if b.type == "tool_use"]})
            results = [run_one(b, run_tool) for b in response.content if b.type == "tool_use"]
            messages.append({"role": "user", "content": results})
            errors = errors + 1 if all(r.get("is_error") for r in results) else 0
            if errors >= MAX_TOOL_ERRORS:
                raise RuntimeError(f"The tools failed {errors} turns in a row: {results[-1]['content']}")
        elif response.stop_reason == "pause_turn":
            messages.append({"role": "assistant", "content": response.content})
        elif response.stop_reason == "refusal":
            return "The model declined this request."
        else:
            raise RuntimeError(f"Unhandled stop_reason: {response.stop_reason}")
    raise RuntimeError(f"No end_turn after {MAX_STEPS} requests")


def specimen_results_not_appended(client, prompt: str, tools: list[dict], run_tool) -> str:
    """Fault: the tools run, but their results never reach the history.
    Fallo: las herramientas se ejecutan, pero sus resultados nunca llegan al historial."""
    messages = [{"role": "user", "content": prompt}]
    max_tokens, errors = MAX_TOKENS, 0
    for _ in range(MAX_STEPS):
        response = client.messages.create(model=MODEL, max_tokens=max_tokens, tools=tools, messages=messages)
        if response.stop_reason == "max_tokens":
            if response.content[-1].type == "tool_use" and max_tokens == MAX_TOKENS:
                max_tokens = RETRY_MAX_TOKENS
                continue
            raise RuntimeError(f"Answer cut by max_tokens={max_tokens}: raise it or split the task")
        messages.append({"role": "assistant", "content": response.content})
        if response.stop_reason in ("end_turn", "stop_sequence"):
            return text_of(response)
        if response.stop_reason == "tool_use":
            results = [run_one(b, run_tool) for b in response.content if b.type == "tool_use"]
            # FAULT (results-not-appended): the results are computed, then never appended as a user message
            errors = errors + 1 if all(r.get("is_error") for r in results) else 0
            if errors >= MAX_TOOL_ERRORS:
                raise RuntimeError(f"The tools failed {errors} turns in a row: {results[-1]['content']}")
        elif response.stop_reason == "pause_turn":
            continue
        elif response.stop_reason == "refusal":
            return "The model declined this request."
        else:
            raise RuntimeError(f"Unhandled stop_reason: {response.stop_reason}")
    raise RuntimeError(f"No end_turn after {MAX_STEPS} requests")


# ------------------------------------------------------------------------------------------ tools


def specimen_text_before_tool_result(client, prompt: str, tools: list[dict], run_tool) -> str:
    """Fault: the user turn puts a text block before its tool_result blocks.
    Fallo: el turno de usuario pone un bloque text antes de sus tool_result."""
    messages = [{"role": "user", "content": prompt}]
    max_tokens, errors = MAX_TOKENS, 0
    for _ in range(MAX_STEPS):
        response = client.messages.create(model=MODEL, max_tokens=max_tokens, tools=tools, messages=messages)
        if response.stop_reason == "max_tokens":
            if response.content[-1].type == "tool_use" and max_tokens == MAX_TOKENS:
                max_tokens = RETRY_MAX_TOKENS
                continue
            raise RuntimeError(f"Answer cut by max_tokens={max_tokens}: raise it or split the task")
        messages.append({"role": "assistant", "content": response.content})
        if response.stop_reason in ("end_turn", "stop_sequence"):
            return text_of(response)
        if response.stop_reason == "tool_use":
            results = [run_one(b, run_tool) for b in response.content if b.type == "tool_use"]
            # FAULT (text-before-tool-result): a text block first, the tool_result blocks after it
            messages.append({"role": "user", "content": [{"type": "text", "text": "Here are the results."}, *results]})
            errors = errors + 1 if all(r.get("is_error") for r in results) else 0
            if errors >= MAX_TOOL_ERRORS:
                raise RuntimeError(f"The tools failed {errors} turns in a row: {results[-1]['content']}")
        elif response.stop_reason == "pause_turn":
            continue
        elif response.stop_reason == "refusal":
            return "The model declined this request."
        else:
            raise RuntimeError(f"Unhandled stop_reason: {response.stop_reason}")
    raise RuntimeError(f"No end_turn after {MAX_STEPS} requests")


def specimen_text_after_tool_result(client, prompt: str, tools: list[dict], run_tool) -> str:
    """Fault: the user turn adds a "Please continue." text block after its tool_result blocks.
    Fallo: el turno de usuario añade un bloque text «Please continue.» después de sus tool_result."""
    messages = [{"role": "user", "content": prompt}]
    max_tokens, errors = MAX_TOKENS, 0
    for _ in range(MAX_STEPS):
        response = client.messages.create(model=MODEL, max_tokens=max_tokens, tools=tools, messages=messages)
        if response.stop_reason == "max_tokens":
            if response.content[-1].type == "tool_use" and max_tokens == MAX_TOKENS:
                max_tokens = RETRY_MAX_TOKENS
                continue
            raise RuntimeError(f"Answer cut by max_tokens={max_tokens}: raise it or split the task")
        messages.append({"role": "assistant", "content": response.content})
        if response.stop_reason in ("end_turn", "stop_sequence"):
            return text_of(response)
        if response.stop_reason == "tool_use":
            results = [run_one(b, run_tool) for b in response.content if b.type == "tool_use"]
            # FAULT (text-after-tool-result): a text block after the tool_result blocks
            messages.append({"role": "user", "content": [*results, {"type": "text", "text": "Please continue."}]})
            errors = errors + 1 if all(r.get("is_error") for r in results) else 0
            if errors >= MAX_TOOL_ERRORS:
                raise RuntimeError(f"The tools failed {errors} turns in a row: {results[-1]['content']}")
        elif response.stop_reason == "pause_turn":
            continue
        elif response.stop_reason == "refusal":
            return "The model declined this request."
        else:
            raise RuntimeError(f"Unhandled stop_reason: {response.stop_reason}")
    raise RuntimeError(f"No end_turn after {MAX_STEPS} requests")


def specimen_missing_tool_result(client, prompt: str, tools: list[dict], run_tool) -> str:
    """Fault: only the first tool_use of a turn gets a tool_result.
    Fallo: solo el primer tool_use de un turno recibe su tool_result."""
    messages = [{"role": "user", "content": prompt}]
    max_tokens, errors = MAX_TOKENS, 0
    for _ in range(MAX_STEPS):
        response = client.messages.create(model=MODEL, max_tokens=max_tokens, tools=tools, messages=messages)
        if response.stop_reason == "max_tokens":
            if response.content[-1].type == "tool_use" and max_tokens == MAX_TOKENS:
                max_tokens = RETRY_MAX_TOKENS
                continue
            raise RuntimeError(f"Answer cut by max_tokens={max_tokens}: raise it or split the task")
        messages.append({"role": "assistant", "content": response.content})
        if response.stop_reason in ("end_turn", "stop_sequence"):
            return text_of(response)
        if response.stop_reason == "tool_use":
            first = next(b for b in response.content if b.type == "tool_use")
            results = [run_one(first, run_tool)]  # FAULT (missing-tool-result): the other tool_use blocks get no result
            messages.append({"role": "user", "content": results})
            errors = errors + 1 if all(r.get("is_error") for r in results) else 0
            if errors >= MAX_TOOL_ERRORS:
                raise RuntimeError(f"The tools failed {errors} turns in a row: {results[-1]['content']}")
        elif response.stop_reason == "pause_turn":
            continue
        elif response.stop_reason == "refusal":
            return "The model declined this request."
        else:
            raise RuntimeError(f"Unhandled stop_reason: {response.stop_reason}")
    raise RuntimeError(f"No end_turn after {MAX_STEPS} requests")


def specimen_split_tool_results(client, prompt: str, tools: list[dict], run_tool) -> str:
    """Fault: each tool_result goes in its own user message instead of all in one.
    Fallo: cada tool_result va en su propio mensaje user en vez de todos en uno."""
    messages = [{"role": "user", "content": prompt}]
    max_tokens, errors = MAX_TOKENS, 0
    for _ in range(MAX_STEPS):
        response = client.messages.create(model=MODEL, max_tokens=max_tokens, tools=tools, messages=messages)
        if response.stop_reason == "max_tokens":
            if response.content[-1].type == "tool_use" and max_tokens == MAX_TOKENS:
                max_tokens = RETRY_MAX_TOKENS
                continue
            raise RuntimeError(f"Answer cut by max_tokens={max_tokens}: raise it or split the task")
        messages.append({"role": "assistant", "content": response.content})
        if response.stop_reason in ("end_turn", "stop_sequence"):
            return text_of(response)
        if response.stop_reason == "tool_use":
            results = [run_one(b, run_tool) for b in response.content if b.type == "tool_use"]
            for result in results:  # FAULT (split-tool-results): one user message per result
                messages.append({"role": "user", "content": [result]})
            errors = errors + 1 if all(r.get("is_error") for r in results) else 0
            if errors >= MAX_TOOL_ERRORS:
                raise RuntimeError(f"The tools failed {errors} turns in a row: {results[-1]['content']}")
        elif response.stop_reason == "pause_turn":
            continue
        elif response.stop_reason == "refusal":
            return "The model declined this request."
        else:
            raise RuntimeError(f"Unhandled stop_reason: {response.stop_reason}")
    raise RuntimeError(f"No end_turn after {MAX_STEPS} requests")


def specimen_tool_error_crashes_loop(client, prompt: str, tools: list[dict], run_tool) -> str:
    """Fault: a tool that raises ends the loop instead of going back as an is_error result.
    Fallo: una herramienta que lanza una excepción termina el bucle en vez de volver como resultado is_error."""
    messages = [{"role": "user", "content": prompt}]
    max_tokens, errors = MAX_TOKENS, 0
    for _ in range(MAX_STEPS):
        response = client.messages.create(model=MODEL, max_tokens=max_tokens, tools=tools, messages=messages)
        if response.stop_reason == "max_tokens":
            if response.content[-1].type == "tool_use" and max_tokens == MAX_TOKENS:
                max_tokens = RETRY_MAX_TOKENS
                continue
            raise RuntimeError(f"Answer cut by max_tokens={max_tokens}: raise it or split the task")
        messages.append({"role": "assistant", "content": response.content})
        if response.stop_reason in ("end_turn", "stop_sequence"):
            return text_of(response)
        if response.stop_reason == "tool_use":
            # FAULT (tool-error-crashes-loop): run_tool is called bare, with no try/except around it
            results = [{"type": "tool_result", "tool_use_id": b.id, "content": run_tool(b.name, b.input)}
                       for b in response.content if b.type == "tool_use"]
            messages.append({"role": "user", "content": results})
            errors = errors + 1 if all(r.get("is_error") for r in results) else 0
            if errors >= MAX_TOOL_ERRORS:
                raise RuntimeError(f"The tools failed {errors} turns in a row: {results[-1]['content']}")
        elif response.stop_reason == "pause_turn":
            continue
        elif response.stop_reason == "refusal":
            return "The model declined this request."
        else:
            raise RuntimeError(f"Unhandled stop_reason: {response.stop_reason}")
    raise RuntimeError(f"No end_turn after {MAX_STEPS} requests")


# ------------------------------------------------------------------------------------------ stop reasons


def specimen_ignores_pause_turn(client, prompt: str, tools: list[dict], run_tool) -> str:
    """Fault: pause_turn is taken as the end, so a paused server-tool turn comes back half done.
    Fallo: pause_turn se toma como el final: un turno pausado de una herramienta del servidor vuelve a medias."""
    messages = [{"role": "user", "content": prompt}]
    max_tokens, errors = MAX_TOKENS, 0
    for _ in range(MAX_STEPS):
        response = client.messages.create(model=MODEL, max_tokens=max_tokens, tools=tools, messages=messages)
        if response.stop_reason == "max_tokens":
            if response.content[-1].type == "tool_use" and max_tokens == MAX_TOKENS:
                max_tokens = RETRY_MAX_TOKENS
                continue
            raise RuntimeError(f"Answer cut by max_tokens={max_tokens}: raise it or split the task")
        messages.append({"role": "assistant", "content": response.content})
        if response.stop_reason in ("end_turn", "stop_sequence"):
            return text_of(response)
        if response.stop_reason == "tool_use":
            results = [run_one(b, run_tool) for b in response.content if b.type == "tool_use"]
            messages.append({"role": "user", "content": results})
            errors = errors + 1 if all(r.get("is_error") for r in results) else 0
            if errors >= MAX_TOOL_ERRORS:
                raise RuntimeError(f"The tools failed {errors} turns in a row: {results[-1]['content']}")
        elif response.stop_reason == "pause_turn":
            return text_of(response)  # FAULT (ignores-pause-turn): the paused turn is returned as the answer
        elif response.stop_reason == "refusal":
            return "The model declined this request."
        else:
            raise RuntimeError(f"Unhandled stop_reason: {response.stop_reason}")
    raise RuntimeError(f"No end_turn after {MAX_STEPS} requests")


def specimen_fabricated_server_tool_result(client, prompt: str, tools: list[dict], run_tool) -> str:
    """Fault: on pause_turn the loop answers the server's own tool calls with made-up tool_result blocks.
    Fallo: ante pause_turn el bucle responde a las llamadas del servidor con tool_result inventados."""
    messages = [{"role": "user", "content": prompt}]
    max_tokens, errors = MAX_TOKENS, 0
    for _ in range(MAX_STEPS):
        response = client.messages.create(model=MODEL, max_tokens=max_tokens, tools=tools, messages=messages)
        if response.stop_reason == "max_tokens":
            if response.content[-1].type == "tool_use" and max_tokens == MAX_TOKENS:
                max_tokens = RETRY_MAX_TOKENS
                continue
            raise RuntimeError(f"Answer cut by max_tokens={max_tokens}: raise it or split the task")
        messages.append({"role": "assistant", "content": response.content})
        if response.stop_reason in ("end_turn", "stop_sequence"):
            return text_of(response)
        if response.stop_reason == "tool_use":
            results = [run_one(b, run_tool) for b in response.content if b.type == "tool_use"]
            messages.append({"role": "user", "content": results})
            errors = errors + 1 if all(r.get("is_error") for r in results) else 0
            if errors >= MAX_TOOL_ERRORS:
                raise RuntimeError(f"The tools failed {errors} turns in a row: {results[-1]['content']}")
        elif response.stop_reason == "pause_turn":
            # FAULT (fabricated-server-tool-result): a tool_result for each server_tool_use, which runs on the server
            messages.append({"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": b.id, "content": "Please go on."}
                for b in response.content if b.type == "server_tool_use"]})
        elif response.stop_reason == "refusal":
            return "The model declined this request."
        else:
            raise RuntimeError(f"Unhandled stop_reason: {response.stop_reason}")
    raise RuntimeError(f"No end_turn after {MAX_STEPS} requests")


def specimen_ignores_max_tokens(client, prompt: str, tools: list[dict], run_tool) -> str:
    """Fault: a reply cut by max_tokens is returned as if it were the finished answer.
    Fallo: una respuesta cortada por max_tokens se devuelve como si fuera la respuesta terminada."""
    messages = [{"role": "user", "content": prompt}]
    max_tokens, errors = MAX_TOKENS, 0
    for _ in range(MAX_STEPS):
        response = client.messages.create(model=MODEL, max_tokens=max_tokens, tools=tools, messages=messages)
        messages.append({"role": "assistant", "content": response.content})
        # FAULT (ignores-max-tokens): max_tokens (a cut) is treated like end_turn (the end)
        if response.stop_reason in ("end_turn", "stop_sequence", "max_tokens"):
            return text_of(response)
        if response.stop_reason == "tool_use":
            results = [run_one(b, run_tool) for b in response.content if b.type == "tool_use"]
            messages.append({"role": "user", "content": results})
            errors = errors + 1 if all(r.get("is_error") for r in results) else 0
            if errors >= MAX_TOOL_ERRORS:
                raise RuntimeError(f"The tools failed {errors} turns in a row: {results[-1]['content']}")
        elif response.stop_reason == "pause_turn":
            continue
        elif response.stop_reason == "refusal":
            return "The model declined this request."
        else:
            raise RuntimeError(f"Unhandled stop_reason: {response.stop_reason}")
    raise RuntimeError(f"No end_turn after {MAX_STEPS} requests")


def specimen_executes_truncated_tool_use(client, prompt: str, tools: list[dict], run_tool) -> str:
    """Fault: a tool_use cut by max_tokens is run with its incomplete input.
    Fallo: un tool_use cortado por max_tokens se ejecuta con su input incompleto."""
    messages = [{"role": "user", "content": prompt}]
    max_tokens, errors = MAX_TOKENS, 0
    for _ in range(MAX_STEPS):
        response = client.messages.create(model=MODEL, max_tokens=max_tokens, tools=tools, messages=messages)
        if response.stop_reason == "max_tokens" and response.content[-1].type != "tool_use":
            raise RuntimeError(f"Answer cut by max_tokens={max_tokens}: raise it or split the task")
        messages.append({"role": "assistant", "content": response.content})
        if response.stop_reason in ("end_turn", "stop_sequence"):
            return text_of(response)
        # FAULT (executes-truncated-tool-use): a tool call cut by max_tokens runs like a complete one
        if response.stop_reason in ("tool_use", "max_tokens"):
            results = [run_one(b, run_tool) for b in response.content if b.type == "tool_use"]
            messages.append({"role": "user", "content": results})
            errors = errors + 1 if all(r.get("is_error") for r in results) else 0
            if errors >= MAX_TOOL_ERRORS:
                raise RuntimeError(f"The tools failed {errors} turns in a row: {results[-1]['content']}")
        elif response.stop_reason == "pause_turn":
            continue
        elif response.stop_reason == "refusal":
            return "The model declined this request."
        else:
            raise RuntimeError(f"Unhandled stop_reason: {response.stop_reason}")
    raise RuntimeError(f"No end_turn after {MAX_STEPS} requests")


def specimen_resends_unchanged_request(client, prompt: str, tools: list[dict], run_tool) -> str:
    """Fault: on max_tokens the loop sends the very same request again, and gets the same cut.
    Fallo: ante max_tokens el bucle reenvía exactamente la misma petición, y recibe el mismo corte."""
    messages = [{"role": "user", "content": prompt}]
    max_tokens, errors = MAX_TOKENS, 0
    for _ in range(MAX_STEPS):
        response = client.messages.create(model=MODEL, max_tokens=max_tokens, tools=tools, messages=messages)
        if response.stop_reason == "max_tokens":
            continue  # FAULT (resends-unchanged-request): same messages, same max_tokens, so the same cut
        messages.append({"role": "assistant", "content": response.content})
        if response.stop_reason in ("end_turn", "stop_sequence"):
            return text_of(response)
        if response.stop_reason == "tool_use":
            results = [run_one(b, run_tool) for b in response.content if b.type == "tool_use"]
            messages.append({"role": "user", "content": results})
            errors = errors + 1 if all(r.get("is_error") for r in results) else 0
            if errors >= MAX_TOOL_ERRORS:
                raise RuntimeError(f"The tools failed {errors} turns in a row: {results[-1]['content']}")
        elif response.stop_reason == "pause_turn":
            continue
        elif response.stop_reason == "refusal":
            return "The model declined this request."
        else:
            raise RuntimeError(f"Unhandled stop_reason: {response.stop_reason}")
    raise RuntimeError(f"No end_turn after {MAX_STEPS} requests")


def specimen_retries_refusal(client, prompt: str, tools: list[dict], run_tool) -> str:
    """Fault: a refusal is retried, as if asking again could change the answer.
    Fallo: un rechazo se reintenta, como si volver a preguntar pudiera cambiar la respuesta."""
    messages = [{"role": "user", "content": prompt}]
    max_tokens, errors = MAX_TOKENS, 0
    for _ in range(MAX_STEPS):
        response = client.messages.create(model=MODEL, max_tokens=max_tokens, tools=tools, messages=messages)
        if response.stop_reason == "max_tokens":
            if response.content[-1].type == "tool_use" and max_tokens == MAX_TOKENS:
                max_tokens = RETRY_MAX_TOKENS
                continue
            raise RuntimeError(f"Answer cut by max_tokens={max_tokens}: raise it or split the task")
        if response.stop_reason == "refusal":
            continue  # FAULT (retries-refusal): ask again, hoping for a yes
        messages.append({"role": "assistant", "content": response.content})
        if response.stop_reason in ("end_turn", "stop_sequence"):
            return text_of(response)
        if response.stop_reason == "tool_use":
            results = [run_one(b, run_tool) for b in response.content if b.type == "tool_use"]
            messages.append({"role": "user", "content": results})
            errors = errors + 1 if all(r.get("is_error") for r in results) else 0
            if errors >= MAX_TOOL_ERRORS:
                raise RuntimeError(f"The tools failed {errors} turns in a row: {results[-1]['content']}")
        elif response.stop_reason == "pause_turn":
            continue
        else:
            raise RuntimeError(f"Unhandled stop_reason: {response.stop_reason}")
    raise RuntimeError(f"No end_turn after {MAX_STEPS} requests")


def specimen_unhandled_stop_reason(client, prompt: str, tools: list[dict], run_tool) -> str:
    """Fault: no final else: a stop reason the chain does not name falls through and the loop calls again.
    Fallo: sin else final: un stop_reason que la cadena no nombra se cuela y el bucle vuelve a llamar."""
    messages = [{"role": "user", "content": prompt}]
    max_tokens, errors = MAX_TOKENS, 0
    for _ in range(MAX_STEPS):
        response = client.messages.create(model=MODEL, max_tokens=max_tokens, tools=tools, messages=messages)
        if response.stop_reason == "max_tokens":
            if response.content[-1].type == "tool_use" and max_tokens == MAX_TOKENS:
                max_tokens = RETRY_MAX_TOKENS
                continue
            raise RuntimeError(f"Answer cut by max_tokens={max_tokens}: raise it or split the task")
        messages.append({"role": "assistant", "content": response.content})
        if response.stop_reason in ("end_turn", "stop_sequence"):
            return text_of(response)
        if response.stop_reason == "tool_use":
            results = [run_one(b, run_tool) for b in response.content if b.type == "tool_use"]
            messages.append({"role": "user", "content": results})
            errors = errors + 1 if all(r.get("is_error") for r in results) else 0
            if errors >= MAX_TOOL_ERRORS:
                raise RuntimeError(f"The tools failed {errors} turns in a row: {results[-1]['content']}")
        elif response.stop_reason == "pause_turn":
            continue
        elif response.stop_reason == "refusal":
            return "The model declined this request."
        # FAULT (unhandled-stop-reason): no `else: raise`; e.g. model_context_window_exceeded goes round again
    raise RuntimeError(f"No end_turn after {MAX_STEPS} requests")


# ------------------------------------------------------------------------------------------ guardrails


def specimen_unbounded_tool_errors(client, prompt: str, tools: list[dict], run_tool) -> str:
    """Fault: nothing bounds consecutive tool errors: a tool that always fails is retried until the step cap.
    Fallo: nada limita los errores seguidos: una herramienta que siempre falla se reintenta hasta el tope de pasos."""
    messages = [{"role": "user", "content": prompt}]
    max_tokens = MAX_TOKENS
    for _ in range(MAX_STEPS):
        response = client.messages.create(model=MODEL, max_tokens=max_tokens, tools=tools, messages=messages)
        if response.stop_reason == "max_tokens":
            if response.content[-1].type == "tool_use" and max_tokens == MAX_TOKENS:
                max_tokens = RETRY_MAX_TOKENS
                continue
            raise RuntimeError(f"Answer cut by max_tokens={max_tokens}: raise it or split the task")
        messages.append({"role": "assistant", "content": response.content})
        if response.stop_reason in ("end_turn", "stop_sequence"):
            return text_of(response)
        if response.stop_reason == "tool_use":
            results = [run_one(b, run_tool) for b in response.content if b.type == "tool_use"]
            messages.append({"role": "user", "content": results})
            # FAULT (unbounded-tool-errors): no count of turns whose results are all errors, so no bound on them
        elif response.stop_reason == "pause_turn":
            continue
        elif response.stop_reason == "refusal":
            return "The model declined this request."
        else:
            raise RuntimeError(f"Unhandled stop_reason: {response.stop_reason}")
    raise RuntimeError(f"No end_turn after {MAX_STEPS} requests")


def specimen_no_safety_cap(client, prompt: str, tools: list[dict], run_tool) -> str:
    """Fault: no step cap: a model that never stops asking for tools keeps the loop going forever.
    Fallo: sin tope de pasos: un modelo que nunca deja de pedir herramientas mantiene el bucle para siempre."""
    messages = [{"role": "user", "content": prompt}]
    max_tokens, errors = MAX_TOKENS, 0
    while True:  # FAULT (no-safety-cap): no MAX_STEPS, nothing ends a loop that never reaches end_turn
        response = client.messages.create(model=MODEL, max_tokens=max_tokens, tools=tools, messages=messages)
        if response.stop_reason == "max_tokens":
            if response.content[-1].type == "tool_use" and max_tokens == MAX_TOKENS:
                max_tokens = RETRY_MAX_TOKENS
                continue
            raise RuntimeError(f"Answer cut by max_tokens={max_tokens}: raise it or split the task")
        messages.append({"role": "assistant", "content": response.content})
        if response.stop_reason in ("end_turn", "stop_sequence"):
            return text_of(response)
        if response.stop_reason == "tool_use":
            results = [run_one(b, run_tool) for b in response.content if b.type == "tool_use"]
            messages.append({"role": "user", "content": results})
            errors = errors + 1 if all(r.get("is_error") for r in results) else 0
            if errors >= MAX_TOOL_ERRORS:
                raise RuntimeError(f"The tools failed {errors} turns in a row: {results[-1]['content']}")
        elif response.stop_reason == "pause_turn":
            continue
        elif response.stop_reason == "refusal":
            return "The model declined this request."
        else:
            raise RuntimeError(f"Unhandled stop_reason: {response.stop_reason}")


# ------------------------------------------------------------------------------------------ thinking and design


def specimen_strips_thinking(client, prompt: str, tools: list[dict], run_tool) -> str:
    """Fault: the thinking blocks are filtered out of the assistant turn before it goes back.
    Fallo: los bloques thinking se quitan del turno del asistente antes de reenviarlo."""
    messages = [{"role": "user", "content": prompt}]
    max_tokens, errors = MAX_TOKENS, 0
    for _ in range(MAX_STEPS):
        response = client.messages.create(model=MODEL, max_tokens=max_tokens, tools=tools, messages=messages)
        if response.stop_reason == "max_tokens":
            if response.content[-1].type == "tool_use" and max_tokens == MAX_TOKENS:
                max_tokens = RETRY_MAX_TOKENS
                continue
            raise RuntimeError(f"Answer cut by max_tokens={max_tokens}: raise it or split the task")
        # FAULT (strips-thinking): "the reasoning is not part of the conversation", so it is dropped
        kept = [b for b in response.content if b.type not in ("thinking", "redacted_thinking")]
        messages.append({"role": "assistant", "content": kept})
        if response.stop_reason in ("end_turn", "stop_sequence"):
            return text_of(response)
        if response.stop_reason == "tool_use":
            results = [run_one(b, run_tool) for b in response.content if b.type == "tool_use"]
            messages.append({"role": "user", "content": results})
            errors = errors + 1 if all(r.get("is_error") for r in results) else 0
            if errors >= MAX_TOOL_ERRORS:
                raise RuntimeError(f"The tools failed {errors} turns in a row: {results[-1]['content']}")
        elif response.stop_reason == "pause_turn":
            continue
        elif response.stop_reason == "refusal":
            return "The model declined this request."
        else:
            raise RuntimeError(f"Unhandled stop_reason: {response.stop_reason}")
    raise RuntimeError(f"No end_turn after {MAX_STEPS} requests")


def specimen_hardcoded_tool_sequence(client, prompt: str, tools: list[dict], run_tool) -> str:
    """Fault: the code picks the tool to run (always the first one listed), not the model's tool_use blocks.
    Fallo: el código elige qué herramienta ejecutar (siempre la primera de la lista), no los tool_use del modelo."""
    messages = [{"role": "user", "content": prompt}]
    max_tokens, errors = MAX_TOKENS, 0
    for _ in range(MAX_STEPS):
        response = client.messages.create(model=MODEL, max_tokens=max_tokens, tools=tools, messages=messages)
        if response.stop_reason == "max_tokens":
            if response.content[-1].type == "tool_use" and max_tokens == MAX_TOKENS:
                max_tokens = RETRY_MAX_TOKENS
                continue
            raise RuntimeError(f"Answer cut by max_tokens={max_tokens}: raise it or split the task")
        messages.append({"role": "assistant", "content": response.content})
        if response.stop_reason in ("end_turn", "stop_sequence"):
            return text_of(response)
        if response.stop_reason == "tool_use":
            results = []
            for b in [b for b in response.content if b.type == "tool_use"]:
                try:  # FAULT (hardcoded-tool-sequence): runs the code's own pick, tools[0], not b.name
                    output = run_tool(tools[0]["name"], b.input)
                    results.append({"type": "tool_result", "tool_use_id": b.id, "content": output})
                except Exception as e:
                    results.append({"type": "tool_result", "tool_use_id": b.id,
                                    "content": f"Error: {e}", "is_error": True})
            messages.append({"role": "user", "content": results})
            errors = errors + 1 if all(r.get("is_error") for r in results) else 0
            if errors >= MAX_TOOL_ERRORS:
                raise RuntimeError(f"The tools failed {errors} turns in a row: {results[-1]['content']}")
        elif response.stop_reason == "pause_turn":
            continue
        elif response.stop_reason == "refusal":
            return "The model declined this request."
        else:
            raise RuntimeError(f"Unhandled stop_reason: {response.stop_reason}")
    raise RuntimeError(f"No end_turn after {MAX_STEPS} requests")


def specimen_forced_tool_choice(client, prompt: str, tools: list[dict], run_tool) -> str:
    """Fault: tool_choice {"type": "any"} forces a tool call on every turn, so the model can never finish.
    Fallo: tool_choice {"type": "any"} obliga a pedir una herramienta en cada turno: el modelo nunca puede terminar."""
    messages = [{"role": "user", "content": prompt}]
    max_tokens, errors = MAX_TOKENS, 0
    for _ in range(MAX_STEPS):
        response = client.messages.create(model=MODEL, max_tokens=max_tokens, tools=tools, messages=messages,
                                          tool_choice={"type": "any"})  # FAULT (forced-tool-choice): always a tool
        if response.stop_reason == "max_tokens":
            if response.content[-1].type == "tool_use" and max_tokens == MAX_TOKENS:
                max_tokens = RETRY_MAX_TOKENS
                continue
            raise RuntimeError(f"Answer cut by max_tokens={max_tokens}: raise it or split the task")
        messages.append({"role": "assistant", "content": response.content})
        if response.stop_reason in ("end_turn", "stop_sequence"):
            return text_of(response)
        if response.stop_reason == "tool_use":
            results = [run_one(b, run_tool) for b in response.content if b.type == "tool_use"]
            messages.append({"role": "user", "content": results})
            errors = errors + 1 if all(r.get("is_error") for r in results) else 0
            if errors >= MAX_TOOL_ERRORS:
                raise RuntimeError(f"The tools failed {errors} turns in a row: {results[-1]['content']}")
        elif response.stop_reason == "pause_turn":
            continue
        elif response.stop_reason == "refusal":
            return "The model declined this request."
        else:
            raise RuntimeError(f"Unhandled stop_reason: {response.stop_reason}")
    raise RuntimeError(f"No end_turn after {MAX_STEPS} requests")


SPECIMENS: dict[str, Callable[..., str]] = {
    "text-parsing-termination": specimen_text_parsing_termination,
    "iteration-cap-as-stop": specimen_iteration_cap_as_stop,
    "has-text-means-done": specimen_has_text_means_done,
    "no-text-means-done": specimen_no_text_means_done,
    "missing-assistant-turn": specimen_missing_assistant_turn,
    "rebuilt-assistant-turn": specimen_rebuilt_assistant_turn,
    "results-not-appended": specimen_results_not_appended,
    "text-before-tool-result": specimen_text_before_tool_result,
    "text-after-tool-result": specimen_text_after_tool_result,
    "missing-tool-result": specimen_missing_tool_result,
    "split-tool-results": specimen_split_tool_results,
    "tool-error-crashes-loop": specimen_tool_error_crashes_loop,
    "ignores-pause-turn": specimen_ignores_pause_turn,
    "fabricated-server-tool-result": specimen_fabricated_server_tool_result,
    "ignores-max-tokens": specimen_ignores_max_tokens,
    "executes-truncated-tool-use": specimen_executes_truncated_tool_use,
    "resends-unchanged-request": specimen_resends_unchanged_request,
    "retries-refusal": specimen_retries_refusal,
    "unhandled-stop-reason": specimen_unhandled_stop_reason,
    "unbounded-tool-errors": specimen_unbounded_tool_errors,
    "no-safety-cap": specimen_no_safety_cap,
    "strips-thinking": specimen_strips_thinking,
    "hardcoded-tool-sequence": specimen_hardcoded_tool_sequence,
    "forced-tool-choice": specimen_forced_tool_choice,
}
"""Tag -> specimen, in the catalogue's order (``agentlab.antipatterns.TAGS``)."""
