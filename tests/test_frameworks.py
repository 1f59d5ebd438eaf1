"""Agent frameworks on the fake: pydantic-ai with its default settings (issue 10, item 6).

The recipe of the README's "With pydantic-ai": ``AnthropicProvider(anthropic_client=
agentlab.fake_async_client())`` under an ``AnthropicModel`` under an ``Agent`` that brings its own
tools. Nothing else is configured: pydantic-ai sends what it sends to the real API (its own
``max_tokens``, its own output tool for ``output_type=``), and the fake's schema-driven default
model must answer it, call each of the agent's tools at least once and end quoting their results.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys

import jsonschema
import pydantic
import pytest
from pydantic_ai import Agent, ToolOutput
from pydantic_ai.models.anthropic import AnthropicModel
from pydantic_ai.providers.anthropic import AnthropicProvider

import agentlab

MODEL = "claude-sonnet-5"


def recipe_agent(**agent_kwargs):
    """The README recipe: a fake async client, the provider, the model, an Agent with three tools."""
    client = agentlab.fake_async_client()
    model = AnthropicModel(MODEL, provider=AnthropicProvider(anthropic_client=client))
    agent = Agent(model, instructions="You are a support agent for a tea shop.", **agent_kwargs)
    ran: list[tuple[str, dict]] = []

    @agent.tool_plain
    def lookup_order(order_id: str) -> str:
        """Look up an order by its id and return its status."""
        ran.append(("lookup_order", {"order_id": order_id}))
        return "order A-1042: 2 packs of Green Tea, shipped on 3 March"

    @agent.tool_plain
    def stock_level(product: str, warehouse: int = 1) -> int:
        """How many units of a product a warehouse holds."""
        ran.append(("stock_level", {"product": product, "warehouse": warehouse}))
        return 417

    @agent.tool_plain
    def shipping_quote(weight_kg: float, express: bool) -> str:
        """The shipping price for a parcel."""
        ran.append(("shipping_quote", {"weight_kg": weight_kg, "express": express}))
        return "EUR 7.90 by courier"

    return client, agent, ran


def tool_uses(client):
    return [b for e in agentlab.journal(client).steps if e.ok for b in e.content if b.get("type") == "tool_use"]


def test_agent_with_default_settings_calls_each_of_its_tools_and_quotes_them() -> None:
    client, agent, ran = recipe_agent()
    result = agent.run_sync("Where is order A-1042, is Green Tea in stock, and what would shipping cost?")
    assert isinstance(result.output, str)
    called = {b["name"] for b in tool_uses(client)}
    assert called == {"lookup_order", "stock_level", "shipping_quote"}
    assert {name for name, _ in ran} == called  # pydantic-ai ran every call the fake made
    journal = agentlab.journal(client)
    assert all(e.status == 200 for e in journal.steps)
    assert journal.stop_reasons[-1] == "end_turn"
    assert any(quoted in result.output for quoted in ("shipped on 3 March", "417", "EUR 7.90"))
    # each tool's input was valid under the schema pydantic-ai generated from its signature
    sent_tools = {t["name"]: t["input_schema"] for t in journal.step(0).request["tools"]}
    for block in tool_uses(client):
        jsonschema.validate(block["input"], sent_tools[block["name"]])


def test_agent_sends_what_pydantic_ai_sends_to_the_real_api() -> None:
    """The fake takes pydantic-ai's own request as it is (no setting changed to please the fake)."""
    client, agent, _ = recipe_agent()
    agent.run_sync("Is Green Tea in stock?")
    first = agentlab.journal(client).step(0).request
    assert first["model"] == MODEL
    assert first["max_tokens"] >= 64000  # pydantic-ai asks for the model's whole output cap
    assert {t["name"] for t in first["tools"]} == {"lookup_order", "stock_level", "shipping_quote"}


def test_streamed_agent_run_on_another_catalogue_model() -> None:
    """``run_stream`` (SSE) with the agent's tools, on claude-opus-5-5 (a 128K-output model)."""
    client = agentlab.fake_async_client()
    agent = Agent(AnthropicModel("claude-opus-5-5", provider=AnthropicProvider(anthropic_client=client)))

    @agent.tool_plain
    def lookup_order(order_id: str) -> str:
        """Look up an order by its id."""
        return f"order {order_id}: shipped on 3 March"

    async def go() -> str:
        async with agent.run_stream("Where is order A-1042?") as run:
            return "".join([piece async for piece in run.stream_text(delta=True)])

    streamed = asyncio.run(go())
    journal = agentlab.journal(client)
    assert all(e.stream for e in journal.steps) and journal.stop_reasons == ["tool_use", "end_turn"]
    assert journal.step(0).request["max_tokens"] == 128000
    assert "shipped on 3 March" in streamed
    assert [b["name"] for b in tool_uses(client)] == ["lookup_order"]


class OrderSummary(pydantic.BaseModel):
    order_id: str
    packs: int
    shipped: bool


def test_output_type_by_default_uses_structured_outputs() -> None:
    """pydantic-ai 2.68 sends a structured ``output_type`` on claude-sonnet-5 as ``output_config.format``
    (its "native" mode: the model's profile says a forced tool choice would disable thinking)."""
    client, agent, _ = recipe_agent(output_type=OrderSummary)
    result = agent.run_sync("Summarise order A-1042 and check the stock and the shipping.")
    assert isinstance(result.output, OrderSummary)
    journal = agentlab.journal(client)
    assert all(e.request["output_config"]["format"]["type"] == "json_schema" for e in journal.steps)
    assert json.loads(journal.step(-1).content[-1]["text"]) == result.output.model_dump()
    assert {b["name"] for b in tool_uses(client)} == {"lookup_order", "stock_level", "shipping_quote"}


def test_tool_output_calls_the_output_tool_after_the_agents_own_tools() -> None:
    client, agent, _ = recipe_agent(output_type=ToolOutput(OrderSummary))
    result = agent.run_sync("Summarise order A-1042 and check the stock and the shipping.")
    assert isinstance(result.output, OrderSummary)
    assert "final_result" in {t["name"] for t in agentlab.journal(client).step(0).request["tools"]}
    called = [b["name"] for b in tool_uses(client)]
    assert set(called) == {"lookup_order", "stock_level", "shipping_quote", "final_result"}
    assert called[-1] == "final_result"  # pydantic-ai ends the run at the output tool


def test_import_agentlab_does_not_import_pydantic_ai() -> None:
    code = "import sys, agentlab; agentlab.fake_async_client(); print('pydantic_ai' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_the_readme_recipe_runs_as_written(capsys, monkeypatch) -> None:
    import re
    from pathlib import Path

    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    section = readme.split("### With pydantic-ai", 1)[1]
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    namespace: dict = {}
    monkeypatch.setenv("AGENTLAB_LANG", "en")
    exec(compile(code, "README.md (With pydantic-ai)", "exec"), namespace)
    printed = capsys.readouterr().out
    answer = printed.split("Journal of scenario")[0]  # what the agent answered, before the journal
    assert "shipped on 3 March" in answer  # it quotes the tool result
    assert [b["name"] for b in tool_uses(namespace["client"])] == ["lookup_order"]


# --- Structured output plus the agent's own tools, on every kind of model (a fresh user's findings) ---
# pydantic-ai sends tool_choice {"type": "any"} with its output tool on claude-haiku-4-5, claude-opus-4-5,
# claude-sonnet-4-6 and claude-opus-4-7, and "auto" on claude-opus-5-5/claude-sonnet-5: either way the
# generic model must call the agent's own tools, then deliver the answer through final_result.

class Ticket(pydantic.BaseModel):
    title: str


OUTPUT_MODELS = ["claude-haiku-4-5", "claude-opus-4-5", "claude-sonnet-4-6", "claude-opus-4-7",
                 "claude-opus-5-5", "claude-sonnet-5"]


def ticket_agent(model: str, output_type, two_tools: bool):
    from pydantic_ai import NativeOutput, PromptedOutput  # noqa: F401 - the kinds the parametrisation uses

    client = agentlab.fake_async_client()
    agent = Agent(AnthropicModel(model, provider=AnthropicProvider(anthropic_client=client)), output_type=output_type)
    ran: list[str] = []

    @agent.tool_plain
    def lookup_order(order_id: str) -> str:
        ran.append("lookup_order")
        return "shipped"

    if two_tools:
        @agent.tool_plain
        def track_parcel(tracking_number: str) -> str:
            """Track a parcel with the carrier."""
            ran.append("track_parcel")
            return "out for delivery"

    return client, agent, ran


@pytest.mark.parametrize("two_tools", [False, True], ids=["one-tool", "two-tools"])
@pytest.mark.parametrize("kind", ["plain", "ToolOutput", "NativeOutput", "PromptedOutput"])
@pytest.mark.parametrize("model", OUTPUT_MODELS)
def test_structured_output_with_own_tools_calls_them_then_answers_a_ticket(model, kind, two_tools) -> None:
    from pydantic_ai import NativeOutput, PromptedOutput

    output_type = {"plain": Ticket, "ToolOutput": ToolOutput(Ticket), "NativeOutput": NativeOutput(Ticket),
                   "PromptedOutput": PromptedOutput(Ticket)}[kind]
    client, agent, ran = ticket_agent(model, output_type, two_tools)
    prompt = "Where is order A-1042? Track the parcel too." if two_tools else "Where is order A-1042?"
    result = agent.run_sync(prompt)
    assert isinstance(result.output, Ticket)
    assert set(ran) == ({"lookup_order", "track_parcel"} if two_tools else {"lookup_order"})
    steps = agentlab.journal(client).steps
    assert len(steps) <= 4  # no loop: the own tools, then the answer
    called = [b["name"] for b in tool_uses(client)]
    if "final_result" in called:  # the output tool comes last, once
        assert called[-1] == "final_result" and called.count("final_result") == 1


def test_strict_tools_from_pydantic_ai_and_beta_tool_keep_to_the_strict_schema_limits() -> None:
    """Rule 21e (strict tools follow the structured-output limits) never rejects what the SDK's
    ``@beta_tool(strict=True)`` or a pydantic-ai ``Tool(..., strict=True)`` sends: both close every
    object (``additionalProperties: false``) and pydantic-ai moves numeric bounds into descriptions."""
    from anthropic import beta_tool
    from pydantic_ai import Tool

    import agentlab

    @beta_tool(strict=True)
    def get_weather(city: str, days: int = 1) -> str:
        """Get the weather."""
        return "95F, sunny"

    client = agentlab.fake_client(max_retries=0)
    runner = client.beta.messages.tool_runner(model="claude-sonnet-5", max_tokens=1024, tools=[get_weather],
                                              messages=[{"role": "user", "content": "Weather in Austin?"}])
    assert [m.stop_reason for m in runner] == ["tool_use", "end_turn"]
    exchanges = agentlab.journal(client).exchanges
    assert all(e.error is None for e in exchanges)
    assert exchanges[0].request["tools"][0]["strict"] is True  # the check above saw a strict tool

    def lookup(city: str, days: int = pydantic.Field(1, ge=1, le=5)) -> str:
        """Look up the forecast."""
        return "sunny"

    aclient = agentlab.fake_async_client(max_retries=0)
    agent = Agent(AnthropicModel("claude-sonnet-4-6", provider=AnthropicProvider(anthropic_client=aclient)),
                  tools=[Tool(lookup, strict=True)])
    agent.run_sync("Weather in Austin?")
    exchanges = agentlab.journal(aclient).exchanges
    assert len(exchanges) >= 2 and all(e.error is None for e in exchanges), [e.error for e in exchanges]
    assert exchanges[0].request["tools"][0]["strict"] is True
