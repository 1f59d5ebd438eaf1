"""Agent frameworks on the fake: pydantic-ai with its default settings (issue 10, item 6), and
langchain-anthropic and litellm over ``agentlab serve`` (issue 11, item 3; second half of the file).

The recipe of the README's "With pydantic-ai": ``AnthropicProvider(anthropic_client=
agentlab.fake_async_client())`` under an ``AnthropicModel`` under an ``Agent`` that brings its own
tools. Nothing else is configured: pydantic-ai sends what it sends to the real API (its own
``max_tokens``, its own output tool for ``output_type=``), and the fake's schema-driven default
model must answer it, call each of the agent's tools at least once and end quoting their results.
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import urllib.parse
import urllib.request
from pathlib import Path

import httpx2
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


# --- Frameworks over HTTP: langchain-anthropic and litellm on `agentlab serve` (issue 11, item 3) ---
# The recipes in examples/frameworks/ run against a served fake (the generic model, the default
# scenario); what they sent is read back over HTTP from /agentlab/journal, as any client could.
# Each test uses its own API key, so each gets its own FakeAPI (ids, journal, runaway budget).

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples" / "frameworks"
RECIPE_TOOLS = {"get_weather", "get_forecast"}
QUOTED = ("Weather in Austin: 95F, sunny", "forecast for Austin: hot and dry")


def load_example(name: str):
    """Import examples/frameworks/<name>.py as a module (the folder is not a package)."""
    spec = importlib.util.spec_from_file_location(f"frameworks_{name}", EXAMPLES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def server():
    from agentlab.serve import running

    with running() as served:
        yield served


@pytest.fixture(scope="module")
def langchain_loop():
    return load_example("langchain_loop")


@pytest.fixture(scope="module")
def litellm_loop():
    # Set before litellm is imported: its bundled cost map at once, instead of one try at GitHub
    # (5 s on a network that drops packets). test_litellm_script_with_default_settings runs without it.
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("LITELLM_OFFLINE_MODE", "true")
        yield load_example("litellm_loop")


def http_journal(server, key: str) -> dict:
    """``GET /agentlab/journal?key=K``: the session's ``Journal.to_dict()``."""
    url = f"{server.base_url}/agentlab/journal?key={urllib.parse.quote(key)}"
    with urllib.request.urlopen(url, timeout=30) as answer:
        return json.loads(answer.read())


def message_steps(journal: dict) -> list[dict]:
    return [e for e in journal["exchanges"] if e["endpoint"] == "messages"]


def assert_tool_loop(journal: dict, answer: str, *, stream: bool) -> None:
    """What a good tool loop leaves in the journal: every step a 200 (nothing the fake rejected),
    each tool called once with arguments valid under the schema the framework sent, each
    tool_result sent back in the next request with the tool's output, end_turn last, and the
    framework handed back the answer that quotes the results."""
    steps = message_steps(journal)
    assert [(e["status"], e["error"]) for e in steps] == [(200, None)] * 3, [e["error"] for e in steps]
    assert [e["response"]["stop_reason"] for e in steps] == ["tool_use", "tool_use", "end_turn"]
    assert all(e["stream"] is stream for e in steps)
    called = []
    for step, following in zip(steps, steps[1:]):
        schemas = {t["name"]: t["input_schema"] for t in step["request"]["tools"]}
        assert set(schemas) == RECIPE_TOOLS
        uses = [b for b in step["response"]["content"] if b["type"] == "tool_use"]
        for block in uses:
            jsonschema.validate(block["input"], schemas[block["name"]])
            called.append(block["name"])
        last_user = following["request"]["messages"][-1]
        assert last_user["role"] == "user"
        results = {b["tool_use_id"]: b for b in last_user["content"] if b.get("type") == "tool_result"}
        assert set(results) == {b["id"] for b in uses}
        for block in uses:
            sent = results[block["id"]]["content"]
            text = sent if isinstance(sent, str) else "".join(part["text"] for part in sent)
            assert re.search(r"Weather in Austin|forecast for Austin", text), text
            assert not results[block["id"]].get("is_error")
    assert sorted(called) == sorted(RECIPE_TOOLS)
    final_text = "".join(b["text"] for b in steps[-1]["response"]["content"] if b["type"] == "text")
    assert answer.strip() == final_text.strip()
    assert all(quoted in answer for quoted in QUOTED)


@pytest.mark.parametrize("stream", [False, True], ids=["invoke", "stream"])
def test_langchain_tool_loop_over_http(server, langchain_loop, stream) -> None:
    key = f"langchain-loop-{'stream' if stream else 'invoke'}"
    llm = langchain_loop.chat_model(base_url=server.base_url, api_key=key)
    answer, stop_reasons = langchain_loop.tool_loop(llm, stream=stream)
    assert stop_reasons == ["tool_use", "tool_use", "end_turn"]
    journal = http_journal(server, key)
    assert_tool_loop(journal, answer, stream=stream)
    first = message_steps(journal)[0]["request"]
    assert first["model"] == "claude-sonnet-5" and first["max_tokens"] == 128000  # langchain's default: the cap


def test_langchain_create_agent_over_http(server, langchain_loop) -> None:
    llm = langchain_loop.chat_model(base_url=server.base_url, api_key="langchain-agent")
    answer, stop_reasons = langchain_loop.agent_run(llm)
    assert stop_reasons == ["tool_use", "tool_use", "end_turn"]
    assert_tool_loop(http_journal(server, "langchain-agent"), answer, stream=False)


def assert_thinking_went_back(journal: dict) -> None:
    """Thinking was on, every assistant turn began with a signed thinking block, and each later
    request sent those turns back unchanged (else the fake answers the API's 400, rules 26/29)."""
    steps = message_steps(journal)
    assert all(e["request"]["thinking"]["type"] in ("adaptive", "enabled") for e in steps)
    assert all(e["response"]["content"][0]["type"] == "thinking" for e in steps)
    for k, step in enumerate(steps[1:], start=1):
        sent_back = [m for m in step["request"]["messages"] if m["role"] == "assistant"]
        assert len(sent_back) == k
        for earlier, message in zip(steps, sent_back):
            first = earlier["response"]["content"][0]
            assert message["content"][0]["type"] == "thinking"
            assert message["content"][0]["signature"] == first["signature"]


def test_langchain_tool_loop_with_thinking_sends_the_thinking_blocks_back(server, langchain_loop) -> None:
    llm = langchain_loop.chat_model(base_url=server.base_url, api_key="langchain-thinking",
                                    thinking={"type": "adaptive"})
    answer, stop_reasons = langchain_loop.tool_loop(llm)
    journal = http_journal(server, "langchain-thinking")
    assert_tool_loop(journal, answer, stream=False)
    assert_thinking_went_back(journal)


def test_litellm_tool_loop_with_thinking_sends_the_thinking_blocks_back(server, litellm_loop) -> None:
    """``reasoning_effort=`` turns thinking on; litellm keeps the blocks as ``thinking_blocks`` on
    the assistant message and sends them back with their signatures."""
    answer, reasons = litellm_loop.tool_loop(base_url=server.base_url, api_key="litellm-thinking",
                                             reasoning_effort="low")
    journal = http_journal(server, "litellm-thinking")
    assert_tool_loop(journal, answer, stream=False)
    assert_thinking_went_back(journal)


def test_langchain_failing_tool_goes_back_as_an_error_result(server, langchain_loop, monkeypatch) -> None:
    """A tool that raises becomes ``ToolMessage(status="error")``, which langchain-anthropic sends
    as ``is_error: true``; the generic model retries once, then answers saying it failed."""

    def broken(call):
        raise ConnectionError("weather service down")

    from types import SimpleNamespace

    for name in RECIPE_TOOLS:  # the model still gets the real tools' schemas; running them fails
        monkeypatch.setitem(langchain_loop.BY_NAME, name, SimpleNamespace(invoke=broken))
    llm = langchain_loop.chat_model(base_url=server.base_url, api_key="langchain-failing")
    answer, stop_reasons = langchain_loop.tool_loop(llm)
    assert stop_reasons[-1] == "end_turn"
    steps = message_steps(http_journal(server, "langchain-failing"))
    assert all(e["status"] == 200 for e in steps)
    sent = [b for e in steps for b in e["request"]["messages"][-1]["content"]
            if isinstance(b, dict) and b.get("type") == "tool_result"]
    assert len(sent) == 4  # each tool tried twice (one retry with other arguments), each time an error
    assert all(b["is_error"] is True and "weather service down" in str(b["content"]) for b in sent)
    assert "weather service down" in answer  # the model's answer reports the failure


@pytest.mark.parametrize("stream", [False, True], ids=["completion", "stream"])
def test_litellm_tool_loop_over_http(server, litellm_loop, stream) -> None:
    key = f"litellm-loop-{'stream' if stream else 'completion'}"
    answer, reasons = litellm_loop.tool_loop(stream=stream, base_url=server.base_url, api_key=key)
    assert reasons == ["tool_calls", "tool_calls", "stop"]  # litellm's names for tool_use, end_turn
    journal = http_journal(server, key)
    assert_tool_loop(journal, answer, stream=stream)
    first = message_steps(journal)[0]["request"]
    assert first["model"] == "claude-sonnet-5"  # the "anthropic/" prefix is litellm's route, not sent
    assert first["tools"][0]["input_schema"] == litellm_loop.PARAMETERS["get_weather"]


def test_litellm_anthropic_messages_passthrough_over_http(server, litellm_loop) -> None:
    answer, stop_reasons = asyncio.run(litellm_loop.messages_loop(base_url=server.base_url, api_key="litellm-messages"))
    assert stop_reasons == ["tool_use", "tool_use", "end_turn"]
    assert_tool_loop(http_journal(server, "litellm-messages"), answer, stream=False)


class CityWeather(pydantic.BaseModel):
    city: str
    temperature_f: int


@pytest.mark.parametrize("stream", [False, True], ids=["completion", "stream"])
def test_litellm_response_format_is_sent_as_the_beta_output_format(server, litellm_loop, stream) -> None:
    """litellm 1.110 sends ``response_format=`` as the structured-outputs beta's top-level
    ``output_format`` (not ``output_config.format``). The API still takes it (litellm issue 35808
    shows it answering ``output_format.schema: ...``), so the fake must too (rules 4j/4k check it)."""
    key = f"litellm-response-format-{stream}"
    reply = litellm_loop.litellm.completion(model=litellm_loop.MODEL, api_base=server.base_url, api_key=key,
                                            response_format=CityWeather, stream=stream,
                                            messages=[{"role": "user", "content": "Weather in Austin?"}])
    content = "".join(c.choices[0].delta.content or "" for c in reply) if stream else reply.choices[0].message.content
    parsed = CityWeather.model_validate_json(content)
    [step] = message_steps(http_journal(server, key))
    assert step["status"] == 200 and "output_config" not in step["request"]
    assert step["request"]["output_format"]["schema"]["additionalProperties"] is False
    assert json.loads(step["response"]["content"][0]["text"]) == parsed.model_dump()


def run_example(server, name: str, key: str) -> subprocess.CompletedProcess:
    """Run examples/frameworks/<name>.py as a user would: a fresh process, only the two variables
    set (any LITELLM_* setting removed: litellm's default settings)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("LITELLM_")}
    env.update(ANTHROPIC_BASE_URL=server.base_url, ANTHROPIC_API_KEY=key)
    return subprocess.run([sys.executable, str(EXAMPLES / f"{name}.py")], env=env, capture_output=True,
                          text=True, timeout=180)


def test_langchain_script_prints_answers_and_stop_reasons(server) -> None:
    done = run_example(server, "langchain_loop", "langchain-script")
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("stop reasons: ['tool_use', 'tool_use', 'end_turn']") == 3
    assert all(done.stdout.count(quoted) == 3 for quoted in QUOTED)
    steps = message_steps(http_journal(server, "langchain-script"))
    assert len(steps) == 9 and all(e["status"] == 200 for e in steps)
    assert [e["stream"] for e in steps] == [False] * 3 + [True] * 3 + [False] * 3


def test_litellm_script_with_default_settings(server) -> None:
    """No LITELLM_OFFLINE_MODE: litellm fails to fetch its cost map (no network here or in CI),
    falls back to its bundled copy, and the loops run."""
    done = run_example(server, "litellm_loop", "litellm-script")
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("reasons: ['tool_calls', 'tool_calls', 'stop']") == 2
    assert done.stdout.count("reasons: ['tool_use', 'tool_use', 'end_turn']") == 1
    assert all(done.stdout.count(quoted) == 3 for quoted in QUOTED)
    steps = message_steps(http_journal(server, "litellm-script"))
    assert len(steps) == 9 and all(e["status"] == 200 for e in steps)
    assert [e["response"]["stop_reason"] for e in steps] == ["tool_use", "tool_use", "end_turn"] * 3


def readme_section(title: str) -> str:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    return re.split(r"\n#{2,3} ", readme.split(f"### {title}\n", 1)[1], maxsplit=1)[0]


def test_readme_framework_snippets_run_as_written(server, monkeypatch, capsys, litellm_loop) -> None:
    blocks = re.findall(r"```python\n(.*?)```", readme_section("Frameworks over HTTP"), re.S)
    assert len(blocks) == 2
    for framework, code in zip(["langchain", "litellm"], blocks):
        key = f"readme-{framework}"
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.base_url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", key)
        exec(compile(code, f"README.md (Frameworks over HTTP, {framework})", "exec"), {})
        printed = capsys.readouterr().out
        assert printed.startswith({"langchain": "end_turn ", "litellm": "stop "}[framework])
        assert "Weather in Austin: 95F, sunny" in printed
        steps = message_steps(http_journal(server, key))
        assert [(e["status"], e["response"]["stop_reason"]) for e in steps] == [(200, "tool_use"), (200, "end_turn")]
        call = next(b for b in steps[0]["response"]["content"] if b["type"] == "tool_use")
        jsonschema.validate(call["input"], steps[0]["request"]["tools"][0]["input_schema"])


# --- The README's curl commands, run as written ---

def readme_curl_commands() -> list[str]:
    blocks = re.findall(r"```sh\n(.*?)```", readme_section("curl"), re.S)
    assert len(blocks) == 2 and all(b.startswith("curl ") for b in blocks)
    return blocks


def parse_curl(command: str, env: dict) -> tuple[str, dict, str]:
    """``(url, headers, body)`` of a README curl command, its ``$VARIABLES`` filled from ``env``."""
    words = shlex.split(command.replace("\\\n", " "))
    fill = lambda word: re.sub(r"\$(\w+)", lambda m: env[m.group(1)], word)  # noqa: E731
    url, headers, body, i = None, {}, None, 1
    while i < len(words):
        if words[i] in ("-H", "-d"):
            value = fill(words[i + 1])
            if words[i] == "-H":
                name, _, given = value.partition(":")
                headers[name.strip().lower()] = given.strip()
            else:
                body = value
            i += 2
        else:
            if not words[i].startswith("-"):
                url = fill(words[i])
            i += 1
    return url, headers, body


def send_like_curl(command: str, env: dict) -> str:
    """The same request sent with urllib: the route when curl is not installed, and a check that
    the README's command says all there is to say (same bytes back as curl gets)."""
    url, headers, body = parse_curl(command, env)
    request = urllib.request.Request(url, data=body.encode(), headers=headers, method="POST")
    with urllib.request.urlopen(request, timeout=30) as answer:
        return answer.read().decode()


def run_readme_curl(command: str, env: dict) -> str:
    done = subprocess.run(["sh", "-c", command], env={**os.environ, **env}, capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_readme_curl_commands_carry_the_headers_the_api_requires() -> None:
    for command in readme_curl_commands():
        url, headers, body = parse_curl(command, {"ANTHROPIC_BASE_URL": "http://h", "ANTHROPIC_API_KEY": "k"})
        assert url == "http://h/v1/messages"
        assert headers == {"x-api-key": "k", "anthropic-version": "2023-06-01", "content-type": "application/json"}
        assert json.loads(body)["model"] == "claude-sonnet-5"


def test_readme_curl_json_gets_a_tool_use_turn(server) -> None:
    command = readme_curl_commands()[0]
    outputs = {}
    for route, key in [("python", "curl-json"), ("curl", "curl-json")]:
        httpx2.post(f"{server.base_url}/agentlab/reset", params={"key": key})  # each route on a fresh session
        env = {"ANTHROPIC_BASE_URL": server.base_url, "ANTHROPIC_API_KEY": key}
        if route == "curl" and shutil.which("curl") is None:
            continue  # .ci/run reports a missing curl; the request itself was sent by the Python route
        outputs[route] = (run_readme_curl if route == "curl" else send_like_curl)(command, env)
        message = json.loads(outputs[route])
        assert message["type"] == "message" and message["stop_reason"] == "tool_use"
        [call] = [b for b in message["content"] if b["type"] == "tool_use"]
        assert call["name"] == "get_weather" and call["input"] == {"city": "Austin"}
        [step] = message_steps(http_journal(server, key))
        assert step["status"] == 200 and step["response"] == message
    if "curl" in outputs:
        assert outputs["curl"] == outputs["python"]  # same request, same key, fresh session: same bytes


def sse_events(raw: str) -> list[tuple[str, dict]]:
    events = []
    for chunk in raw.strip().split("\n\n"):
        fields = dict(line.split(": ", 1) for line in chunk.splitlines())
        events.append((fields["event"], json.loads(fields["data"])))
    return events


def test_readme_curl_stream_gets_server_sent_events(server) -> None:
    command = readme_curl_commands()[1]
    outputs = {}
    for route, key in [("python", "curl-stream"), ("curl", "curl-stream")]:
        httpx2.post(f"{server.base_url}/agentlab/reset", params={"key": key})  # each route on a fresh session
        env = {"ANTHROPIC_BASE_URL": server.base_url, "ANTHROPIC_API_KEY": key}
        if route == "curl" and shutil.which("curl") is None:
            continue
        outputs[route] = (run_readme_curl if route == "curl" else send_like_curl)(command, env)
        events = sse_events(outputs[route])
        names = [name for name, _ in events]
        assert names[0] == "message_start" and names[-2:] == ["message_delta", "message_stop"]
        assert events[-2][1]["delta"]["stop_reason"] == "end_turn"
        streamed = "".join(data["delta"]["text"] for name, data in events if name == "content_block_delta")
        [step] = message_steps(http_journal(server, key))
        assert step["stream"] is True and step["status"] == 200
        assert streamed == step["response"]["content"][0]["text"] and "Say hello in Spanish." in streamed
    if "curl" in outputs:
        assert outputs["curl"] == outputs["python"]
