"""A tool loop with langchain-anthropic over HTTP: on ``agentlab serve`` or on the real API.

Only the environment says where the requests go::

    agentlab serve                                   # prints the ANTHROPIC_BASE_URL to export
    export ANTHROPIC_BASE_URL=http://127.0.0.1:PORT  # the line it printed
    export ANTHROPIC_API_KEY=generic                 # any key: on the fake it picks the scenario
    python examples/frameworks/langchain_loop.py

``ChatAnthropic`` takes no client object, only a base URL (``anthropic_api_url``, also read from
``ANTHROPIC_BASE_URL``), so the fake has to be served over HTTP for it. Everything else is
langchain-anthropic's default: its own ``max_tokens`` (the model's output cap), its own tool
schemas built from the Python functions below, its own conversion of ``ToolMessage`` into
``tool_result`` blocks. Needs ``pip install langchain-anthropic`` (and ``langchain`` for
:func:`agent_run`); none of them reaches the network unless asked (LangSmith tracing is off by
default).

Three ways to run the same two tools, each returning ``(answer, stop_reasons)``:

- :func:`tool_loop`: the loop by hand (``bind_tools``, ``invoke``, run each ``tool_call``, append a
  ``ToolMessage``), driven by the stop reason as the course teaches; ``stream=True`` streams each
  turn with ``.stream()`` and adds up the chunks.
- :func:`agent_run`: langchain's own agent loop (``langchain.agents.create_agent``).
"""

from __future__ import annotations

import os
from typing import Literal

from langchain_anthropic import ChatAnthropic
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from langchain_core.tools import tool

MODEL = "claude-sonnet-5"
PROMPT = "What should I wear in Austin today? Check the weather now and the forecast."
MAX_STEPS = 10
"""Guardrail: the most model calls one run may make (the fake's generic model needs three here)."""


@tool
def get_weather(city: str, unit: Literal["celsius", "fahrenheit"] = "fahrenheit") -> str:
    """Get the current weather for a city."""
    return f"Weather in {city}: 35C, sunny" if unit == "celsius" else f"Weather in {city}: 95F, sunny"


@tool
def get_forecast(city: str, days: int) -> str:
    """Get the weather forecast for a city for the next few days."""
    return f"{days}-day forecast for {city}: hot and dry, a storm on day 2"


TOOLS = [get_weather, get_forecast]
BY_NAME = {t.name: t for t in TOOLS}


def chat_model(base_url: str | None = None, api_key: str | None = None, **settings) -> ChatAnthropic:
    """langchain-anthropic's chat model on ``base_url`` (default ``$ANTHROPIC_BASE_URL``) with
    ``api_key`` (default ``$ANTHROPIC_API_KEY``); nothing else set unless ``settings`` (more
    ``ChatAnthropic`` fields, e.g. ``thinking={"type": "adaptive"}``) says so.

    Raises:
        KeyError: when an argument is None and its environment variable is not set.
    """
    return ChatAnthropic(model=MODEL,
                         anthropic_api_url=base_url or os.environ["ANTHROPIC_BASE_URL"],
                         api_key=api_key or os.environ["ANTHROPIC_API_KEY"], **settings)


def run_tool_call(call: dict) -> ToolMessage:
    """Run one of ``ai_message.tool_calls`` and return its ``ToolMessage`` (an ``is_error``
    ``tool_result`` on the wire when the tool raised, so the model sees the failure)."""
    chosen = BY_NAME.get(call["name"])
    try:
        if chosen is None:
            raise ValueError(f"Unknown tool: {call['name']}")
        return chosen.invoke(call)  # a ToolCall in, a ToolMessage with its tool_call_id out
    except Exception as exc:  # noqa: BLE001 - any tool failure goes back to the model as an error result
        return ToolMessage(content=f"Error: {exc}", tool_call_id=call["id"], status="error")


def _turn(bound, messages: list[BaseMessage], stream: bool) -> AIMessage:
    if not stream:
        return bound.invoke(messages)
    whole = None
    for chunk in bound.stream(messages):  # AIMessageChunks: text, tool-call pieces, then the stop reason
        whole = chunk if whole is None else whole + chunk
    return whole


def tool_loop(llm: ChatAnthropic, prompt: str = PROMPT, *, stream: bool = False) -> tuple[str, list[str]]:
    """The agentic loop by hand: call the model with the tools bound, run every ``tool_call`` of a
    ``tool_use`` turn, append the assistant turn and one ``ToolMessage`` per call, repeat until
    ``end_turn``.

    Args:
        llm: a ``ChatAnthropic`` (see :func:`chat_model`).
        prompt: the user's task.
        stream: stream each turn with ``.stream()`` (SSE) instead of ``.invoke()``.

    Returns:
        ``(answer text, stop reason of every model call)``.

    Raises:
        RuntimeError: on any other stop reason (``max_tokens``, ``refusal``, ``pause_turn``...), or
            after :data:`MAX_STEPS` calls without ``end_turn``.
    """
    bound = llm.bind_tools(TOOLS)
    messages: list[BaseMessage] = [HumanMessage(prompt)]
    stop_reasons: list[str] = []
    for _ in range(MAX_STEPS):
        reply = _turn(bound, messages, stream)
        stop_reason = reply.response_metadata.get("stop_reason")
        stop_reasons.append(stop_reason)
        messages.append(reply)  # the assistant turn as it came, tool_use blocks included
        if stop_reason == "end_turn":
            return reply.text, stop_reasons
        if stop_reason != "tool_use":
            raise RuntimeError(f"Stopped early: {stop_reason}")
        messages.extend(run_tool_call(call) for call in reply.tool_calls)
    raise RuntimeError(f"No end_turn after {MAX_STEPS} model calls: {stop_reasons}")


def agent_run(llm: ChatAnthropic, prompt: str = PROMPT) -> tuple[str, list[str]]:
    """The same task with langchain's own agent loop (``langchain.agents.create_agent``, langgraph
    underneath; ``pip install langchain``).

    Returns:
        ``(answer text, stop reason of every model call)`` read from the agent's messages.
    """
    from langchain.agents import create_agent

    agent = create_agent(llm, tools=TOOLS)
    state = agent.invoke({"messages": [{"role": "user", "content": prompt}]})
    replies = [m for m in state["messages"] if isinstance(m, AIMessage)]
    return replies[-1].text, [m.response_metadata.get("stop_reason") for m in replies]


def main() -> None:
    llm = chat_model()
    for title, run in [("tool loop", lambda: tool_loop(llm)),
                       ("streamed tool loop", lambda: tool_loop(llm, stream=True)),
                       ("create_agent", lambda: agent_run(llm))]:
        answer, stop_reasons = run()
        print(f"== {title}\n{answer}\nstop reasons: {stop_reasons}\n")


if __name__ == "__main__":
    main()
