"""A tool loop with litellm over HTTP: on ``agentlab serve`` or on the real API.

Only the environment says where the requests go::

    agentlab serve                                   # prints the ANTHROPIC_BASE_URL to export
    export ANTHROPIC_BASE_URL=http://127.0.0.1:PORT  # the line it printed
    export ANTHROPIC_API_KEY=generic                 # any key: on the fake it picks the scenario
    python examples/frameworks/litellm_loop.py

litellm speaks HTTP itself (no ``anthropic`` SDK, no client object to hand it), so the fake has
to be served for it: ``api_base=`` points it there. Everything else is litellm's default: the
OpenAI-format ``tools`` and ``role: "tool"`` messages below are translated by litellm into the
Messages API's ``tools``, ``tool_use`` and ``tool_result`` blocks, with its own ``max_tokens``.

Offline (no network, as in CI): at import litellm tries once to download its model cost map
from GitHub (5 s timeout), logs a warning, uses the copy bundled in its wheel and retries twice
in a background thread. Where the network is simply absent that costs nothing; where it silently
drops packets, ``import litellm`` waits those 5 s. ``LITELLM_OFFLINE_MODE=true`` makes it use its
bundled copies (cost map, Anthropic beta headers) without trying: the one setting worth making
offline, and not needed for this script to work.

litellm reports OpenAI finish reasons, not the API's stop reasons: ``end_turn`` and
``stop_sequence`` both become ``"stop"``; ``max_tokens``, ``pause_turn`` and
``model_context_window_exceeded`` all become ``"length"``; ``refusal`` becomes
``"content_filter"`` (litellm ``map_finish_reason``). A loop on :func:`litellm.completion` cannot
tell a ``pause_turn`` from a ``max_tokens``; :func:`messages_loop` (litellm's Anthropic-format
passthrough) keeps the real stop reason.

Each loop returns ``(answer, reasons)``.
"""

from __future__ import annotations

import asyncio
import json
import os

import litellm

MODEL = "anthropic/claude-sonnet-5"
"""litellm's ``provider/model`` name: the ``anthropic/`` prefix picks its Anthropic route."""
PROMPT = "What should I wear in Austin today? Check the weather now and the forecast."
MAX_STEPS = 10
"""Guardrail: the most model calls one run may make (the fake's generic model needs three here)."""

PARAMETERS = {
    "get_weather": {"type": "object",
                    "properties": {"city": {"type": "string", "description": "The city to get weather for"},
                                   "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]}},
                    "required": ["city"]},
    "get_forecast": {"type": "object",
                     "properties": {"city": {"type": "string"},
                                    "days": {"type": "integer", "minimum": 1, "maximum": 7}},
                     "required": ["city", "days"]},
}
DESCRIPTIONS = {"get_weather": "Get the current weather for a city.",
                "get_forecast": "Get the weather forecast for a city for the next few days."}
TOOLS = [{"type": "function", "function": {"name": name, "description": DESCRIPTIONS[name], "parameters": schema}}
         for name, schema in PARAMETERS.items()]
"""The tools in OpenAI's format, as litellm takes them."""
ANTHROPIC_TOOLS = [{"name": name, "description": DESCRIPTIONS[name], "input_schema": schema}
                   for name, schema in PARAMETERS.items()]
"""The same tools in the Messages API's format, for :func:`messages_loop`."""


def run_tool(name: str, args: dict) -> str:
    """Run one tool call. Raises ``ValueError`` for an unknown tool, ``KeyError`` for a missing argument."""
    if name == "get_weather":
        hot = "35C" if args.get("unit") == "celsius" else "95F"
        return f"Weather in {args['city']}: {hot}, sunny"
    if name == "get_forecast":
        return f"{args['days']}-day forecast for {args['city']}: hot and dry, a storm on day 2"
    raise ValueError(f"Unknown tool: {name}")


def _settings(base_url: str | None, api_key: str | None) -> dict:
    return {"api_base": base_url or os.environ["ANTHROPIC_BASE_URL"],
            "api_key": api_key or os.environ["ANTHROPIC_API_KEY"]}


def _completion(messages: list, stream: bool, settings: dict):
    if not stream:
        return litellm.completion(model=MODEL, tools=TOOLS, messages=messages, **settings)
    chunks = list(litellm.completion(model=MODEL, tools=TOOLS, messages=messages, stream=True, **settings))
    return litellm.stream_chunk_builder(chunks, messages=messages)  # the chunks added up into one response


def tool_loop(prompt: str = PROMPT, *, stream: bool = False, base_url: str | None = None,
              api_key: str | None = None, **options) -> tuple[str, list[str]]:
    """The agentic loop on ``litellm.completion`` (OpenAI format): run every ``tool_calls`` entry,
    append the assistant message and one ``role: "tool"`` message per call, repeat until
    ``finish_reason`` is ``"stop"``.

    Args:
        prompt: the user's task.
        stream: stream each turn (``stream=True``, SSE underneath) and add the chunks up.
        base_url, api_key: default ``$ANTHROPIC_BASE_URL`` and ``$ANTHROPIC_API_KEY``.
        **options: more ``litellm.completion`` arguments (e.g. ``reasoning_effort="low"``: thinking on).

    Returns:
        ``(answer text, litellm's finish reason of every model call)``.

    Raises:
        RuntimeError: on another finish reason (``"length"``: max_tokens, pause_turn or a full
            context window; ``"content_filter"``: a refusal), or after :data:`MAX_STEPS` calls.
        KeyError: an argument is None and its environment variable is not set.
    """
    settings = {**_settings(base_url, api_key), **options}
    messages: list = [{"role": "user", "content": prompt}]
    reasons: list[str] = []
    for _ in range(MAX_STEPS):
        choice = _completion(messages, stream, settings).choices[0]
        reasons.append(choice.finish_reason)
        messages.append(choice.message)  # the assistant turn, its tool_calls included
        if choice.finish_reason == "stop":
            return choice.message.content or "", reasons
        if choice.finish_reason != "tool_calls":
            raise RuntimeError(f"Stopped early: {choice.finish_reason}")
        for call in choice.message.tool_calls:
            try:
                content = run_tool(call.function.name, json.loads(call.function.arguments))
            except Exception as exc:  # noqa: BLE001 - a failing tool is reported to the model, not raised
                content = f"Error: {exc}"
            messages.append({"role": "tool", "tool_call_id": call.id, "content": content})
    raise RuntimeError(f"No final answer after {MAX_STEPS} model calls: {reasons}")


async def messages_loop(prompt: str = PROMPT, *, base_url: str | None = None,
                        api_key: str | None = None) -> tuple[str, list[str]]:
    """The same loop in the Messages API's own format through litellm's passthrough,
    ``litellm.anthropic.messages.acreate`` (the response is the API's JSON as a dict).

    litellm 1.110 only runs it async: the sync ``litellm.anthropic.messages.create`` raises
    ``ValueError: anthropic_messages_handler is not implemented for sync calls``, and
    ``stream=True`` needs litellm's proxy extra (it imports ``fastapi``).

    Returns:
        ``(answer text, the API's stop reason of every model call)``.

    Raises:
        RuntimeError: on a stop reason other than ``tool_use``/``end_turn``, or after :data:`MAX_STEPS`.
    """
    settings = _settings(base_url, api_key)
    messages: list = [{"role": "user", "content": prompt}]
    stop_reasons: list[str] = []
    for _ in range(MAX_STEPS):
        response = await litellm.anthropic.messages.acreate(model=MODEL, max_tokens=1024, tools=ANTHROPIC_TOOLS,
                                                            messages=messages, **settings)
        stop_reasons.append(response["stop_reason"])
        messages.append({"role": "assistant", "content": response["content"]})
        if response["stop_reason"] == "end_turn":
            return "".join(b["text"] for b in response["content"] if b["type"] == "text"), stop_reasons
        if response["stop_reason"] != "tool_use":
            raise RuntimeError(f"Stopped early: {response['stop_reason']}")
        results = []
        for block in response["content"]:
            if block["type"] == "tool_use":
                try:
                    results.append({"type": "tool_result", "tool_use_id": block["id"],
                                    "content": run_tool(block["name"], block["input"])})
                except Exception as exc:  # noqa: BLE001 - reported to the model as an error result
                    results.append({"type": "tool_result", "tool_use_id": block["id"],
                                    "content": f"Error: {exc}", "is_error": True})
        messages.append({"role": "user", "content": results})
    raise RuntimeError(f"No end_turn after {MAX_STEPS} model calls: {stop_reasons}")


def main() -> None:
    for title, run in [("litellm.completion", lambda: tool_loop()),
                       ("litellm.completion, streamed", lambda: tool_loop(stream=True)),
                       ("litellm.anthropic.messages.acreate", lambda: asyncio.run(messages_loop()))]:
        answer, reasons = run()
        print(f"== {title}\n{answer}\nreasons: {reasons}\n")


if __name__ == "__main__":
    main()
