"""Shared test helpers: small scenarios and a seed-style reference loop."""

from __future__ import annotations

from typing import Any

import pytest

from agentlab.fake import Scenario, text, tool_use

WEATHER_TOOL = {
    "name": "get_weather",
    "description": "Get the current weather for a city.",
    "input_schema": {
        "type": "object",
        "properties": {"city": {"type": "string", "description": "The city to get weather for"}},
        "required": ["city"],
    },
}


def run_weather(name: str, tool_input: dict) -> str:
    if name == "get_weather":
        return f"Weather in {tool_input['city']}: 95F, sunny"
    raise ValueError(f"Unknown tool: {name}")


@pytest.fixture
def tiny() -> Scenario:
    """Two turns: a tool call with text, then an answer."""
    return Scenario(
        name="tiny",
        tools=(WEATHER_TOOL,),
        prompt="What should I wear in Austin today?",
        replies=(tool_use("get_weather", {"city": "Austin"}, text="Let me check."), text("Wear shorts.")),
        run_tool=run_weather,
    )


def seed_loop(client: Any, prompt: str, tools: list[dict], run_tool: Any, **params: Any) -> str:
    """Seed 000's loop with the client passed in (plus is_error results, as seed 001)."""
    params.setdefault("model", "claude-sonnet-5")
    params.setdefault("max_tokens", 1024)
    messages: list[dict] = [{"role": "user", "content": prompt}]
    while True:
        resp = client.messages.create(tools=tools, messages=messages, **params)
        if resp.stop_reason == "end_turn":
            return "".join(b.text for b in resp.content if b.type == "text")
        if resp.stop_reason == "pause_turn":
            messages.append({"role": "assistant", "content": resp.content})
            continue
        if resp.stop_reason == "tool_use":
            messages.append({"role": "assistant", "content": resp.content})
            results = []
            for b in resp.content:
                if b.type != "tool_use":
                    continue
                try:
                    results.append({"type": "tool_result", "tool_use_id": b.id, "content": run_tool(b.name, b.input)})
                except Exception as exc:  # noqa: BLE001 - returned to the model
                    results.append({"type": "tool_result", "tool_use_id": b.id, "content": f"Error: {exc}", "is_error": True})
            messages.append({"role": "user", "content": results})
            continue
        raise RuntimeError(f"unhandled stop_reason: {resp.stop_reason}")
