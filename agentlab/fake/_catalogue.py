"""The built-in scenarios: named situations for the simulated model, as data plus small policies.

Each scenario carries what a lesson needs to run a loop on it: the user ``prompt``, its
``tools`` (JSON Schema definitions), a ``run_tool`` for them (pure and deterministic; it raises
``ValueError("unknown tool: <name>")`` for a name it does not know, as the seeds do), the
``model`` and ``max_tokens`` to start from, and a policy: a pure function of the request
(:class:`~agentlab.fake._scenario.Turn`) that returns the model's next
:class:`~agentlab.fake._replies.Reply`. Policies read what the learner actually sent (the tools
and their schemas, the tool results, ``is_error``), so a faulty loop shows its fault; the fake
then shapes the reply the way the API would (``max_tokens`` cuts, ``stop_sequences``,
``tool_choice``, thinking on or off, the context window).

``extra`` holds what lessons and the grader need; its keys are the same everywhere:

============================  ===============================================================
``answer_contains``           a substring of the final answer a correct loop returns
``stop_reasons``              the stop reasons a correct loop sees, in order, when it sends
                              :func:`request_params` (omitted where the model never stops)
``stop_reason``               the stop reason the scenario exists to show
``stop_sequences``            request parameter a lesson passes (see :func:`request_params`)
``thinking``                  request parameter a lesson passes (see :func:`request_params`)
``max_tokens``                the ``max_tokens`` a lesson passes (when it is not the default)
``max_tokens_enough``         a ``max_tokens`` with which the reply is no longer cut
``give_up_after``             consecutive error results after which the model gives up
``needed_requests_...``       request counts under a variant of the request (named after it)
============================  ===============================================================

The table, in order::

    weather              seed 002: get_weather for Austin, then advice that uses the result
    docs_search          seed 001 (Spanish): buscar_docs, then an answer or "no encontré nada"
    parallel_tools       three get_weather calls in one turn, then one answer with all three
    text_and_tool_use    a text block AND a tool_use in one turn: having text is not being done
    failing_tool         lookup_order raises; with an is_error result the model retries lighter
    pause_turn           server tool web_search: pause_turn, send the turn back, then the answer
    refusal              stop_reason refusal with stop_details; re-sending refuses again
    max_tokens_text      a ~2,500-token answer: cut at max_tokens 1024, fits in 4096
    max_tokens_tool_use  write_file with ~2,800 tokens of content: cut inside the tool_use at 1024
    stop_sequence        "<answer>...</answer> more text": stops at stop_sequences=["</answer>"]
    context_window       2,000-token documents in an 8,000-token window: the window fills
    thinking             claude-opus-4-7 (adaptive thinking) with thinking blocks before the tool_use and the answer
    long_task            12 files, one process_file call each: 13 requests, more than 10 steps
    stuck_model          check_status forever: only a step cap (a safety net) ends the loop
    chained_tools        the second call's input comes from the first call's result
    overloaded           HTTP 529 twice before the first reply: the SDK's own retries absorb it
    stream_error         an error event in the middle of the first streamed reply
    says_done            a tool call narrated with "DONE"/"Final answer": only stop_reason decides
    persistent_tool_errors  a tool that always fails and a model that never gives up
    generic              the generic model (``_generic``): calls the request's own tools with
                         schema-valid arguments, then quotes their results; the default scenario
"""

from __future__ import annotations

import re
from typing import Any, Iterable

from ._context import ValidationOptions
from ._replies import (
    Reply,
    fault,
    refusal,
    reply,
    server_tool_use,
    stream_error,
    text,
    thinking,
    tool_use,
    tool_uses,
)
from ._generic import generic
from ._scenario import SCAN_CHARS, Scenario, Turn
from ._schema_values import is_valid, value_for

__all__ = ["SCENARIOS", "scenarios", "get_scenario", "fill_tool_input", "request_params", "REQUEST_EXTRA_KEYS",
           "tagged_weather", "GATEWAY_STOP_SEQUENCES"]

REQUEST_EXTRA_KEYS = ("stop_sequences", "thinking")
"""Keys of ``Scenario.extra`` that are request parameters a lesson passes as they are."""


def request_params(scenario: Scenario) -> dict[str, Any]:
    """The keyword arguments for ``client.messages.create`` that a lesson on ``scenario`` sends
    (besides ``messages``): ``scenario.params()`` plus the request keys of ``extra``
    (``stop_sequences``, ``thinking``) and ``extra["max_tokens"]`` when given."""
    params = scenario.params()
    for key in REQUEST_EXTRA_KEYS:
        if key in scenario.extra:
            params[key] = scenario.extra[key]
    if "max_tokens" in scenario.extra:
        params["max_tokens"] = scenario.extra["max_tokens"]
    return params


# ----------------------------------------------------------------------------------------------
# Reading the request
# ----------------------------------------------------------------------------------------------

# Patterns policies apply to request text (the prompt, tool results). Each runs in linear time:
# no two quantifiers can share the characters they match, and a lookbehind starts a match only at
# the start of a number or word, so a digit followed by 100,000 spaces, a 100,000-digit number or a
# 100,000-character word is scanned once (``(\d+) rows`` and the e-mail pattern used to retry
# from every position of such a run: quadratic). The text is also bounded (SCAN_CHARS).
_TEMPERATURE = re.compile(r"(?<![\d.])(-?\d+(?:\.\d+)?)\s*(?:°\s*)?([FC])\b")
_ROWS_COUNT = re.compile(r"(?<!\d)(\d+) rows")
_ORDER_LINES = re.compile(r"#(\d+) \(([^()]*)\)")
_EMAIL_ADDRESS = re.compile(r"(?<![\w.+-])[\w.+-]+@[\w-]+\.[\w.]+")

_PLACEHOLDERS = {"string": "", "integer": 0, "number": 0, "boolean": False, "array": [], "object": {}, "null": None}


def fill_tool_input(tool: dict[str, Any], value: str) -> dict[str, Any]:
    """The input a model writes for ``tool`` when it has one string to give (a city, a query).

    The model is faithful to the tool definition the learner sent, not to the scenario's: ``value``
    goes into the first required string property (seed 002 names it ``city``, seed 000
    ``location``), or the first string property when none is required. Every other required
    property gets its ``default``, its first ``enum`` value, or an empty value of its type when
    that is valid under the property's schema, else a value from the schema generator
    (:func:`~agentlab.fake._schema_values.value_for`: bounds, formats, type lists, nested objects).
    Properties keep the schema's order. Never raises on a malformed schema.

    >>> fill_tool_input({"name": "get_weather", "input_schema": {"type": "object",
    ...     "properties": {"location": {"type": "string"}}, "required": ["location"]}}, "Austin")
    {'location': 'Austin'}
    """
    schema = tool.get("input_schema") if isinstance(tool.get("input_schema"), dict) else {}
    props = schema.get("properties") if isinstance(schema.get("properties"), dict) else {}
    required = [r for r in schema.get("required") or [] if isinstance(r, str)] if isinstance(schema.get("required"), list) else []

    def is_string(name: str) -> bool:
        prop = props.get(name)
        return isinstance(prop, dict) and prop.get("type") == "string" and not prop.get("enum")

    target = next((n for n in required if is_string(n)), None) or next((n for n in props if is_string(n)), None)
    values: dict[str, Any] = {}
    for name in [*props, *(r for r in required if r not in props)]:
        if name == target:
            values[name] = value
        elif name in required:
            prop = props.get(name) if isinstance(props.get(name), dict) else {}
            if "default" in prop:
                values[name] = prop["default"]
            elif isinstance(prop.get("enum"), list) and prop["enum"]:
                values[name] = prop["enum"][0]
            else:
                kind = prop.get("type")
                placeholder = _PLACEHOLDERS.get(kind, "") if isinstance(kind, str) else None
                simple = isinstance(kind, str) and set(prop) <= {"type", "description", "title"}
                values[name] = placeholder if isinstance(kind, str) and (simple or is_valid(placeholder, prop, schema)) else value_for(
                    prop, seed=name, words=value, root=schema)
    return values


def _client_tools(turn: Turn) -> list[dict[str, Any]]:
    return [t for t in turn.tools if t.get("type") in (None, "custom") and isinstance(t.get("name"), str)]


def _find_tool(turn: Turn, name: str, keywords: Iterable[str] = ()) -> dict[str, Any] | None:
    """The request's client tool called ``name``, else the first whose name or description
    mentions one of ``keywords`` (a learner may name the seed's tool differently), else None."""
    tools = _client_tools(turn)
    exact = next((t for t in tools if t["name"] == name), None)
    if exact is not None or not keywords:
        return exact
    for tool in tools:
        haystack = f"{tool['name']} {tool.get('description') or ''}".lower()
        if any(k in haystack for k in keywords):
            return tool
    return None


def _has_server_tool(turn: Turn, name: str) -> bool:
    return any(t.get("type") not in (None, "custom") and t.get("name") == name for t in turn.tools)


def _block_text(content: Any) -> str:
    """The text of a ``tool_result``'s content, its first :data:`SCAN_CHARS` characters."""
    if isinstance(content, str):
        return content[:SCAN_CHARS]
    if isinstance(content, list):
        return "".join(b["text"] for b in content if isinstance(b, dict) and b.get("type") == "text"
                       and isinstance(b.get("text"), str))[:SCAN_CHARS]
    return ""


class _Call:
    """One client tool call of the conversation and its result (None while unanswered)."""

    __slots__ = ("name", "input", "result", "is_error")

    def __init__(self, name: str, tool_input: dict[str, Any]) -> None:
        self.name = name
        self.input = tool_input
        self.result: str | None = None
        self.is_error = False

    @property
    def ok(self) -> bool:
        """Answered, and not an error."""
        return self.result is not None and not self.is_error


def _calls(turn: Turn) -> list[_Call]:
    """Every client ``tool_use`` of the conversation, in order, with its ``tool_result``."""
    calls: list[_Call] = []
    by_id: dict[str, _Call] = {}
    for message in turn.messages:
        content = message.get("content")
        if not isinstance(content, list):
            continue
        for block in content:
            if not isinstance(block, dict):
                continue
            if message.get("role") == "assistant" and block.get("type") == "tool_use":
                call = _Call(str(block.get("name")), block.get("input") if isinstance(block.get("input"), dict) else {})
                calls.append(call)
                if isinstance(block.get("id"), str):
                    by_id[block["id"]] = call
            elif message.get("role") == "user" and block.get("type") == "tool_result":
                call = by_id.get(block.get("tool_use_id"))  # type: ignore[arg-type]
                if call is not None:
                    call.result = _block_text(block.get("content"))
                    call.is_error = bool(block.get("is_error"))
    return calls


def _unknown(name: str) -> ValueError:
    return ValueError(f"unknown tool: {name}")


def _sentences(sentences: tuple[str, ...], chars: int, *, heading: str = "Part") -> str:
    """Deterministic long text: numbered paragraphs of four sentences, cycling through
    ``sentences``, until the text is at least ``chars`` characters long."""
    paragraphs: list[str] = []
    total, i = 0, 0
    while total < chars:
        body = " ".join(sentences[(i * 4 + k) % len(sentences)] for k in range(4))
        paragraph = f"{heading} {len(paragraphs) + 1}. {body}"
        paragraphs.append(paragraph)
        total += len(paragraph) + 2
        i += 1
    return "\n\n".join(paragraphs)


# ----------------------------------------------------------------------------------------------
# weather (seed 002), and the weather helpers parallel_tools, overloaded, stream_error share
# ----------------------------------------------------------------------------------------------

WEATHER_TOOL: dict[str, Any] = {
    "name": "get_weather",
    "description": "Get the current weather for a city.",
    "input_schema": {
        "type": "object",
        "properties": {"city": {"type": "string", "description": "The city to get weather for"}},
        "required": ["city"],
    },
}
_WEATHER_WORDS = ("weather", "clima", "tiempo")


def _run_weather(name: str, tool_input: dict) -> str:
    """Seed 002's ``run_tool``: every city is 95F and sunny."""
    if name == "get_weather":
        return f"Weather in {tool_input['city']}: 95F, sunny"
    raise _unknown(name)


def _city_in(prompt: str, default: str = "Austin") -> str:
    """The capitalised place after "in" in the prompt ("... wear in Austin today?"), else ``default``."""
    match = re.search(r"\bin ([A-Z][\w'-]*(?: [A-Z][\w'-]*)*)", prompt)
    return match.group(1) if match else default


def _weather_summary(result: str) -> str:
    """"Weather in Paris: 64F, light rain" -> "64F, light rain"."""
    return re.sub(r"^\s*Weather in [^:]*:\s*", "", result).strip().rstrip(".")


def _advice(result: str, city: str) -> str:
    """What to wear, from a weather tool's result text (any city, F or C)."""
    match = _TEMPERATURE.search(result)
    if match is None:
        return (f"The weather tool says: {result.strip()}. Dress for those conditions in {city}, "
                "and check again before you head out.")
    degrees, unit = float(match.group(1)), match.group(2)
    fahrenheit = degrees if unit == "F" else degrees * 9 / 5 + 32
    conditions = result[match.end():].strip(" ,.;:")
    said = f"{match.group(1)}{unit}" + (f" and {conditions}" if conditions else "")
    if fahrenheit >= 85:
        advice = "wear light, breathable clothes: shorts or a linen shirt, plus sunglasses and sunscreen"
    elif fahrenheit >= 68:
        advice = "a t-shirt and light trousers will do; bring sunglasses"
    elif fahrenheit >= 50:
        advice = "wear layers: a long-sleeved shirt and a light jacket"
    else:
        advice = "dress warmly: a coat, a scarf and gloves"
    if "rain" in conditions.lower():
        advice += ", and take an umbrella"
    return f"It's {said} in {city}, so {advice}."


def _no_tool(what: str) -> Reply:
    return text(f"I can't {what} from here: no tool for it was provided in this request.")


def _weather_policy(turn: Turn) -> Reply:
    """Call the request's weather tool for the prompt's city, then advise from its result."""
    tool = _find_tool(turn, "get_weather", _WEATHER_WORDS)
    city = _city_in(turn.user_text())
    answered = [c for c in _calls(turn) if c.result is not None]
    if answered:
        last = answered[-1]
        if last.is_error:
            return text(f"I couldn't get the weather for {city}: the weather tool failed ({last.result.strip()}). "
                        "Check a forecast before you go out and dress in layers to be safe.")
        return text(_advice(last.result or "", city))
    if tool is None:
        return _no_tool("check the weather")
    return tool_use(tool["name"], fill_tool_input(tool, city))


def _weather(**overrides: Any) -> Scenario:
    fields: dict[str, Any] = dict(
        name="weather",
        description="Seed 002's loop: get_weather for Austin (tool_use), then what to wear from its result (end_turn).",
            description_es="El bucle de la semilla 002: get_weather para Austin (tool_use) y luego qué ponerse según el resultado (end_turn).",
        prompt="What should I wear in Austin today?",
        tools=(WEATHER_TOOL,),
        model="claude-sonnet-5",
        max_tokens=1024,
        policy=_weather_policy,
        run_tool=_run_weather,
        needed_requests=2,
        extra={"answer_contains": "95F", "stop_reasons": ("tool_use", "end_turn"), "stop_reason": "end_turn"},
    )
    fields.update(overrides)
    return Scenario(**fields)


# ----------------------------------------------------------------------------------------------
# docs_search (seed 001, Spanish)
# ----------------------------------------------------------------------------------------------

DOCS_TOOL: dict[str, Any] = {
    "name": "buscar_docs",
    "description": "Busca en la documentación interna. Devuelve hasta 5 fragmentos con su título.",
    "input_schema": {
        "type": "object",
        "properties": {"consulta": {"type": "string", "description": "Términos de búsqueda"}},
        "required": ["consulta"],
    },
}
DOCS_SYSTEM = "Responde con la documentación interna. Si no encuentras nada, dilo."

_DOCS: tuple[tuple[str, tuple[str, ...], str], ...] = (
    ("Política de vacaciones", ("vacaciones", "días libres"),
     "Cada persona tiene 23 días laborables de vacaciones al año. Se piden en el portal de RR. HH. "
     "con al menos 15 días de antelación; hasta 5 días pasan al año siguiente."),
    ("Equipos y portátiles", ("portátil", "portatil", "ordenador", "equipo"),
     "Los portátiles se renuevan cada 3 años. Para pedir uno nuevo, abre una solicitud en la mesa "
     "de ayuda de IT con el número de serie del actual."),
    ("Gastos de viaje", ("viaje", "gastos", "dietas"),
     "Las dietas son de 55 EUR por día en España y 80 EUR fuera. Los tickets se suben a la "
     "aplicación de gastos antes del día 5 del mes siguiente."),
    ("Teletrabajo", ("teletrabajo", "remoto", "desde casa"),
     "Se puede teletrabajar hasta 3 días por semana, acordándolo con tu responsable en el "
     "calendario del equipo."),
)


def _run_docs(name: str, tool_input: dict) -> str:
    """``buscar_docs``: fragments whose keywords appear in ``consulta``, or seed 001's
    "Sin resultados para «...»"."""
    if name != "buscar_docs":
        raise _unknown(name)
    consulta = tool_input["consulta"]
    query = consulta.lower()
    hits = [f"[{title}] {body}" for title, keys, body in _DOCS if any(k in query for k in keys)][:5]
    return "\n".join(hits) if hits else f"Sin resultados para «{consulta}»"


def _docs_query(prompt: str) -> str:
    """The search terms the model writes: the question without its question marks."""
    return prompt.strip().strip("¿?¡!. ") or "documentación"


def _docs_policy(turn: Turn) -> Reply:
    """Search the docs for the question, then answer from the fragments or say nothing was found."""
    query = _docs_query(turn.user_text())
    answered = [c for c in _calls(turn) if c.result is not None]
    if answered:
        last = answered[-1]
        result = (last.result or "").strip()
        if last.is_error:
            return text(f"No he podido consultar la documentación interna: la búsqueda falló ({result}).")
        if not result or result.startswith("Sin resultados"):
            return text(f"No he encontrado nada en la documentación interna sobre «{query}».")
        fragments = [line for line in result.splitlines() if line.strip()]
        return text("Según la documentación interna: " + " ".join(fragments))
    tool = _find_tool(turn, "buscar_docs", ("buscar", "doc", "search"))
    if tool is None:
        return text("No puedo consultar la documentación interna: esta petición no incluye la herramienta de búsqueda.")
    return tool_use(tool["name"], fill_tool_input(tool, query))


# ----------------------------------------------------------------------------------------------
# parallel_tools
# ----------------------------------------------------------------------------------------------

_CITY_WEATHER = {"Paris": "64F, light rain", "Rome": "77F, sunny", "Tokyo": "70F, cloudy"}
_PARALLEL_CITIES = tuple(_CITY_WEATHER)


def _run_city_weather(name: str, tool_input: dict) -> str:
    """``get_weather`` for Paris, Rome and Tokyo; other cities raise ``LookupError``."""
    if name != "get_weather":
        raise _unknown(name)
    city = tool_input["city"]
    if city not in _CITY_WEATHER:
        raise LookupError(f"no weather station for {city!r}")
    return f"Weather in {city}: {_CITY_WEATHER[city]}"


def _give_up(turn: Turn, limit: int = 3) -> Reply | None:
    """An ``end_turn`` explanation once ``limit`` user turns in a row held only error results."""
    if turn.consecutive_errors() < limit:
        return None
    errors = turn.errors()
    last = errors[-1].strip() if errors else "no details"
    return text(f"I'm stopping here: the tool failed {turn.consecutive_errors()} times in a row "
                f"(last error: {last}). Please check the tool and try again later.")


def _parallel_policy(turn: Turn) -> Reply:
    """Ask for the weather of every city still missing (all three at once), then answer with all."""
    stop = _give_up(turn)
    if stop is not None:
        return stop
    tool = _find_tool(turn, "get_weather", _WEATHER_WORDS)
    got: dict[str, str] = {}
    for call in _calls(turn):
        if call.ok:
            for city in _PARALLEL_CITIES:
                if city in call.input.values():
                    got[city] = call.result or ""
    missing = [city for city in _PARALLEL_CITIES if city not in got]
    if not missing:
        report = "; ".join(f"{city} {_weather_summary(got[city])}" for city in _PARALLEL_CITIES)
        return text(f"Right now: {report}. Pack an umbrella for Paris and sunglasses for Rome.")
    if tool is None:
        return _no_tool("check the weather")
    return tool_uses(*((tool["name"], fill_tool_input(tool, city)) for city in missing))


# ----------------------------------------------------------------------------------------------
# text_and_tool_use
# ----------------------------------------------------------------------------------------------

TRACK_TOOL: dict[str, Any] = {
    "name": "track_package",
    "description": "Get the delivery status of a package from its tracking number.",
    "input_schema": {
        "type": "object",
        "properties": {"tracking_number": {"type": "string", "description": "The carrier's tracking number"}},
        "required": ["tracking_number"],
    },
}
_TRACKING = "1Z999AA10123456784"
_TRAP_TEXT = "I'll look that up in the carrier's system."


def _run_track(name: str, tool_input: dict) -> str:
    """``track_package``: one known package; other numbers raise ``LookupError``."""
    if name != "track_package":
        raise _unknown(name)
    number = tool_input["tracking_number"]
    if number != _TRACKING:
        raise LookupError(f"no package with tracking number {number!r}")
    return f"{number}: out for delivery in Austin, TX; expected by 8 pm today"


def _track_policy(turn: Turn) -> Reply:
    """Narrate and call track_package in the same turn, then answer from the result."""
    if _find_tool(turn, "track_package") is None:
        return _no_tool("track packages")
    answered = [c for c in _calls(turn) if c.result is not None]
    if answered:
        last = answered[-1]
        if last.is_error:
            return text(f"I couldn't track that package: {last.result.strip()}.")
        status = re.sub(r"^[^:]*:\s*", "", (last.result or "").strip())
        return text(f"Your package is on its way: {status}.")
    match = re.search(r"\b[0-9A-Z]{10,}\b", turn.user_text())
    number = match.group(0) if match else _TRACKING
    return tool_use("track_package", {"tracking_number": number}, text=_TRAP_TEXT)


# ----------------------------------------------------------------------------------------------
# failing_tool
# ----------------------------------------------------------------------------------------------

ORDER_TOOL: dict[str, Any] = {
    "name": "lookup_order",
    "description": "Look up an order's shipping status.",
    "input_schema": {
        "type": "object",
        "properties": {
            "order_id": {"type": "string", "description": "The order number, digits only"},
            "include_history": {"type": "boolean", "description": "Also load the full tracking history (slow)"},
        },
        "required": ["order_id"],
    },
}
_ORDER_ID = "1042"


def _run_order(name: str, tool_input: dict) -> str:
    """``lookup_order``: asking for the full history times out (``TimeoutError``); the plain
    lookup answers. Unknown orders raise ``LookupError``."""
    if name != "lookup_order":
        raise _unknown(name)
    order_id = str(tool_input["order_id"])
    if tool_input.get("include_history"):
        raise TimeoutError("order service timed out")
    if order_id != _ORDER_ID:
        raise LookupError(f"no order {order_id!r}")
    return f"Order {order_id}: shipped on Monday from the Madrid warehouse, arriving on Thursday"


def _order_policy(turn: Turn) -> Reply:
    """Ask for everything first; on an error result retry a lighter lookup; give up after 3."""
    match = re.search(r"\d+", turn.user_text())
    order_id = match.group(0) if match else _ORDER_ID
    calls = _calls(turn)
    done = next((c for c in reversed(calls) if c.ok), None)
    if done is not None:
        failed_before = any(c.is_error for c in calls)
        prefix = ("The full tracking history wasn't available (the order service failed), but the basic "
                  "lookup worked. " if failed_before else "")
        return text(f"{prefix}Here is your order: {done.result.strip()}.")  # type: ignore[union-attr]
    stop = _give_up(turn)
    if stop is not None:
        return stop
    if not calls:
        return tool_use("lookup_order", {"order_id": order_id, "include_history": True})
    return tool_use("lookup_order", {"order_id": order_id},
                    text="That lookup failed; I'll try again without the tracking history.")


# ----------------------------------------------------------------------------------------------
# pause_turn
# ----------------------------------------------------------------------------------------------

WEB_SEARCH_TOOL: dict[str, Any] = {"type": "web_search_20250305", "name": "web_search", "max_uses": 5}
_SEARCH_QUERY = "Python 3.14 release highlights"
_SEARCH_RESULTS = [
    {"type": "web_search_result", "url": "https://docs.python.org/3.14/whatsnew/3.14.html",
     "title": "What's new in Python 3.14", "encrypted_content": "EqgfCioIARgBIiQ3YTAwMjY1Mi1mZjM5LTQ1NGUtODgxNC0xNjNjZjQ5YTMwNzQ",
     "page_age": None},
    {"type": "web_search_result", "url": "https://peps.python.org/pep-0779/",
     "title": "PEP 779: free-threaded Python is supported",
     "encrypted_content": "EqgfCioIARgBIiRiMmU1OTlhZC0xYjQ3LTRkNmItOGRlMy1mN2Q2NjE5ZTVkMTk", "page_age": None},
]
_SEARCH_ANSWER = ("Python 3.14's highlights: template strings (t-strings, PEP 750), deferred evaluation of "
                  "annotations, and officially supported free-threaded builds (PEP 779).")


def _run_no_client_tools(name: str, tool_input: dict) -> str:
    """No client tools: server tools (web_search) run on the API's side, never in ``run_tool``."""
    raise _unknown(name)


def _pause_policy(turn: Turn) -> Reply:
    """First request: a web search the server pauses (pause_turn). Continuation: the search
    result and the answer."""
    if not _has_server_tool(turn, "web_search"):
        return text("I can't search the web: this request does not include the web_search tool.")
    if turn.index == 0:
        return server_tool_use("web_search", {"query": _SEARCH_QUERY}, text="I'll search the web for that.")
    found = server_tool_use("web_search", {"query": _SEARCH_QUERY + " PEP"}, results=_SEARCH_RESULTS, paused=False)
    return reply(*found.content, {"type": "text", "text": _SEARCH_ANSWER})


# ----------------------------------------------------------------------------------------------
# refusal
# ----------------------------------------------------------------------------------------------

_REFUSAL = refusal(
    "",
    category="cyber",
    explanation="The request asks for a working attack on systems the user does not own.",
)


# ----------------------------------------------------------------------------------------------
# max_tokens_text, max_tokens_tool_use, stop_sequence
# ----------------------------------------------------------------------------------------------

_GUIDE_SENTENCES = (
    "An agent is a model using tools in a loop, and the loop is ordinary code you own.",
    "Every turn starts by sending the whole conversation, the system prompt and the tool definitions.",
    "The reply's stop_reason is the only field that says what to do next.",
    "On tool_use, append the assistant turn exactly as it came back, content blocks and all.",
    "Then run every tool_use block and send one user turn with a tool_result for each tool_use_id.",
    "Put nothing but tool_result blocks in that user turn, or the model learns to expect your text.",
    "On end_turn the model has decided it is finished, and the loop returns its text.",
    "On pause_turn a server tool needs more time: send the assistant turn back unchanged and call again.",
    "On max_tokens the answer was cut; raise the limit, or continue, but never run a half-written tool call.",
    "On refusal, stop and show the user a clear message instead of re-sending the same request.",
    "A tool that fails should come back to the model as a tool_result with is_error set, not crash the loop.",
    "A step cap, a token budget and a time limit are guardrails that catch the loop when something goes wrong.",
    "None of those guardrails is how the loop normally ends; stop_reason is.",
    "Parallel tool calls arrive in one assistant turn and their results go back together in one user turn.",
    "Thinking blocks must be sent back untouched, signatures included, while the tool loop is open.",
    "Logging each turn's stop_reason, tool names and usage makes a misbehaving agent easy to debug.",
    "Input tokens grow with the history, so long tasks cost more per step than short ones.",
)
LONG_ANSWER = "A field guide to the agent loop\n\n" + _sentences(_GUIDE_SENTENCES, 9_900, heading="Section")
"""The ``max_tokens_text`` answer: about 10,000 characters, so about 2,500 output tokens."""

WRITE_FILE_TOOL: dict[str, Any] = {
    "name": "write_file",
    "description": "Write a text file, replacing it if it exists.",
    "input_schema": {
        "type": "object",
        "properties": {
            "path": {"type": "string", "description": "Path of the file to write"},
            "content": {"type": "string", "description": "The whole content of the file"},
        },
        "required": ["path", "content"],
    },
}
GUIDE_PATH = "docs/AGENT_LOOP.md"
GUIDE_CONTENT = "# The agent loop\n\n" + _sentences(_GUIDE_SENTENCES, 11_000, heading="##")
"""The file ``max_tokens_tool_use`` writes: about 11,000 characters (about 2,800 tokens of input JSON)."""


def _run_write_file(name: str, tool_input: dict) -> str:
    """``write_file`` (simulated: nothing touches the disk). A call without ``content``, as a
    cut ``tool_use`` may leave it, raises ``ValueError``."""
    if name != "write_file":
        raise _unknown(name)
    if "content" not in tool_input:
        raise ValueError("write_file needs both 'path' and 'content'")
    return f"Wrote {len(tool_input['content'])} characters to {tool_input['path']}"


def _write_policy(turn: Turn) -> Reply:
    """Write the whole guide in one write_file call, then confirm from the result."""
    answered = [c for c in _calls(turn) if c.result is not None]
    if answered:
        last = answered[-1]
        if last.is_error:
            return text(f"I couldn't write {GUIDE_PATH}: {last.result.strip()}.")
        return text(f"Done. {last.result.strip()}.")
    return tool_use("write_file", {"path": GUIDE_PATH, "content": GUIDE_CONTENT})


STOP_SEQUENCE_TEXT = ("<answer>Canberra</answer>\n\nMany people guess Sydney, the largest city, but Canberra "
                      "was built as the capital as a compromise between Sydney and Melbourne.")
STOP_SEQUENCE_SYSTEM = "Put the answer inside <answer></answer> tags, then add one short note."


# ----------------------------------------------------------------------------------------------
# context_window
# ----------------------------------------------------------------------------------------------

READ_DOC_TOOL: dict[str, Any] = {
    "name": "read_document",
    "description": "Read one document of the research archive by its id.",
    "input_schema": {
        "type": "object",
        "properties": {"doc_id": {"type": "string", "description": "Document id, e.g. doc-01"}},
        "required": ["doc_id"],
    },
}
_DOC_IDS = tuple(f"doc-{n:02d}" for n in range(1, 13))
_ARCHIVE_SENTENCES = (
    "The committee reviewed the quarterly pricing data for every region.",
    "Subscription revenue grew faster than one-off sales in most markets.",
    "Discounts above fifteen percent rarely improved retention after the first year.",
    "The support team reported fewer tickets after the onboarding emails were rewritten.",
    "Enterprise customers asked for annual invoicing and a single point of contact.",
    "The free tier brought in many sign-ups but few paying teams.",
    "Price changes were announced thirty days in advance, as the contracts require.",
    "Churn was highest in the second month, when trial credits ran out.",
    "Regional pricing helped in markets with weaker currencies.",
    "The finance team recommended reviewing the plan limits every six months.",
    "Usage-based add-ons were popular with small teams and confusing for large ones.",
)
_CONTEXT_WINDOW = 8_000


def _document(doc_id: str) -> str:
    """About 8,000 characters (~2,000 tokens) of deterministic text for ``doc_id``."""
    return f"{doc_id}: pricing history archive\n\n" + _sentences(_ARCHIVE_SENTENCES, 7_900, heading=f"{doc_id} §")


def _run_read_document(name: str, tool_input: dict) -> str:
    """``read_document``: doc-01 to doc-12; other ids raise ``LookupError``."""
    if name != "read_document":
        raise _unknown(name)
    doc_id = tool_input["doc_id"]
    if doc_id not in _DOC_IDS:
        raise LookupError(f"no document {doc_id!r}")
    return _document(doc_id)


def _notes(read: list[str]) -> str:
    """The model's running notes: about 400 tokens per document read so far."""
    lines = []
    for doc_id in read:
        lines.append(f"Notes on {doc_id}: " + " ".join(_ARCHIVE_SENTENCES[(len(lines) + k) % len(_ARCHIVE_SENTENCES)]
                                                          for k in range(20)))
    return "Research notes so far.\n" + "\n".join(lines)


def _research_policy(turn: Turn) -> Reply:
    """Read the next unread document, each turn restating notes on all documents read so far."""
    read = [c.input.get("doc_id") for c in _calls(turn) if c.ok and c.name == "read_document"]
    read = list(dict.fromkeys(d for d in read if isinstance(d, str)))
    unread = [d for d in _DOC_IDS if d not in read]
    if not unread:
        return text(_notes(read) + "\n\nReport: " + " ".join(_ARCHIVE_SENTENCES[:4]))
    if not read:
        return tool_use("read_document", {"doc_id": unread[0]})
    return tool_use("read_document", {"doc_id": unread[0]}, text=_notes(read))


# ----------------------------------------------------------------------------------------------
# thinking
# ----------------------------------------------------------------------------------------------

RATE_TOOL: dict[str, Any] = {
    "name": "get_exchange_rate",
    "description": "Get today's exchange rate between two currencies.",
    "input_schema": {
        "type": "object",
        "properties": {
            "base": {"type": "string", "description": "ISO code of the currency to convert from"},
            "quote": {"type": "string", "description": "ISO code of the currency to convert to"},
        },
        "required": ["base", "quote"],
    },
}
_RATES = {("EUR", "JPY"): 162.40, ("EUR", "USD"): 1.08, ("USD", "JPY"): 150.37}


def _run_rate(name: str, tool_input: dict) -> str:
    """``get_exchange_rate`` for a few fixed pairs; others raise ``LookupError``."""
    if name != "get_exchange_rate":
        raise _unknown(name)
    pair = (str(tool_input["base"]).upper(), str(tool_input["quote"]).upper())
    if pair not in _RATES:
        raise LookupError(f"no rate for {pair[0]}/{pair[1]}")
    return f"1 {pair[0]} = {_RATES[pair]:.2f} {pair[1]}"


def _thinking_policy(turn: Turn) -> Reply:
    """Think, call get_exchange_rate; then think through the multiplication and answer."""
    answered = [c for c in _calls(turn) if c.result is not None]
    if not answered:
        return thinking(
            "The user has 250 EUR and wants to know the amount in Japanese yen. I don't know today's "
            "rate, so I'll ask get_exchange_rate for EUR to JPY and then multiply.",
            tool_use("get_exchange_rate", {"base": "EUR", "quote": "JPY"}),
        )
    last = answered[-1]
    match = re.search(r"=\s*([\d.,]+)", last.result or "")
    if last.is_error or match is None:
        return thinking(
            "The rate lookup did not give me a number, so I can't convert reliably.",
            text(f"I couldn't get today's EUR to JPY rate ({(last.result or '').strip()}), so I can't convert 250 EUR."),
        )
    rate = float(match.group(1).replace(",", ""))
    amount = 250 * rate
    return thinking(
        f"The tool says 1 EUR = {rate:.2f} JPY. 250 x {rate:.2f} = {amount:,.0f}. Yen has no minor unit, "
        "so I'll round to whole yen.",
        text(f"At today's rate (1 EUR = {rate:.2f} JPY), 250 EUR is about {amount:,.0f} JPY."),
    )


# ----------------------------------------------------------------------------------------------
# long_task
# ----------------------------------------------------------------------------------------------

PROCESS_TOOL: dict[str, Any] = {
    "name": "process_file",
    "description": "Validate and import one CSV file from the inbox; returns its row count.",
    "input_schema": {
        "type": "object",
        "properties": {"path": {"type": "string", "description": "Path of the file, e.g. inbox/batch_01.csv"}},
        "required": ["path"],
    },
}
_FILES = tuple(f"inbox/batch_{n:02d}.csv" for n in range(1, 13))
_ROWS = {path: 120 + (n * 37) % 90 for n, path in enumerate(_FILES, start=1)}
_TOTAL_ROWS = sum(_ROWS.values())


def _run_process(name: str, tool_input: dict) -> str:
    """``process_file`` for the 12 inbox files; other paths raise ``FileNotFoundError``."""
    if name != "process_file":
        raise _unknown(name)
    path = tool_input["path"]
    if path not in _ROWS:
        raise FileNotFoundError(f"no such file: {path}")
    return f"Processed {path}: {_ROWS[path]} rows imported, 0 rejected"


def _long_task_policy(turn: Turn) -> Reply:
    """Process the next file not yet processed, one call per turn; then sum the rows."""
    stop = _give_up(turn)
    if stop is not None:
        return stop
    done: dict[str, str] = {}
    for call in _calls(turn):
        if call.ok and call.name == "process_file" and isinstance(call.input.get("path"), str) and call.input["path"] in _ROWS:
            done[call.input["path"]] = call.result or ""
    todo = [path for path in _FILES if path not in done]
    if todo:
        return tool_use("process_file", {"path": todo[0]})
    rows = 0
    for result in done.values():
        match = _ROWS_COUNT.search(result)
        rows += int(match.group(1)) if match else 0
    return text(f"All {len(_FILES)} files are processed: {rows:,} rows imported in total, none rejected.")


# ----------------------------------------------------------------------------------------------
# stuck_model
# ----------------------------------------------------------------------------------------------

STATUS_TOOL: dict[str, Any] = {
    "name": "check_status",
    "description": "Check the status of a background job.",
    "input_schema": {
        "type": "object",
        "properties": {"job_id": {"type": "string", "description": "The job id, e.g. job-7"}},
        "required": ["job_id"],
    },
}


def _run_status(name: str, tool_input: dict) -> str:
    """``check_status``: every job is forever pending."""
    if name != "check_status":
        raise _unknown(name)
    return f"{tool_input['job_id']}: pending"


def _stuck_policy(turn: Turn) -> Reply:
    """Poll check_status again, whatever it said: this model never ends the turn."""
    return tool_use("check_status", {"job_id": "job-7"})


# ----------------------------------------------------------------------------------------------
# chained_tools
# ----------------------------------------------------------------------------------------------

CUSTOMER_TOOL: dict[str, Any] = {
    "name": "find_customer",
    "description": "Find a customer by email address; returns the customer id and name.",
    "input_schema": {
        "type": "object",
        "properties": {"email": {"type": "string", "description": "The customer's email address"}},
        "required": ["email"],
    },
}
ORDERS_TOOL: dict[str, Any] = {
    "name": "get_orders",
    "description": "List a customer's orders with their status.",
    "input_schema": {
        "type": "object",
        "properties": {"customer_id": {"type": "string", "description": "Customer id, e.g. C-1234"}},
        "required": ["customer_id"],
    },
}
_EMAIL = "ana@example.com"


def _run_customers(name: str, tool_input: dict) -> str:
    """``find_customer`` and ``get_orders`` for one customer; others raise ``LookupError``."""
    if name == "find_customer":
        if tool_input["email"] != _EMAIL:
            raise LookupError(f"no customer with email {tool_input['email']!r}")
        return "Customer C-2291: Ana López"
    if name == "get_orders":
        if tool_input["customer_id"] != "C-2291":
            raise LookupError(f"no customer {tool_input['customer_id']!r}")
        return "Orders of C-2291: #5501 (delivered), #5502 (shipped), #5503 (processing)"
    raise _unknown(name)


def _chained_policy(turn: Turn) -> Reply:
    """find_customer by email; get_orders with the id found; then list the open orders."""
    stop = _give_up(turn)
    if stop is not None:
        return stop
    calls = _calls(turn)
    orders = next((c for c in reversed(calls) if c.ok and c.name == "get_orders"), None)
    if orders is not None:
        found = _ORDER_LINES.findall(orders.result or "")
        open_orders = [f"#{n} ({s})" for n, s in found if s != "delivered"]
        return text(f"{len(open_orders)} orders are still open: {', '.join(open_orders) or 'none'}.")
    customer = next((c for c in reversed(calls) if c.ok and c.name == "find_customer"), None)
    if customer is not None:
        match = re.search(r"\bC-\d+\b", customer.result or "")
        if match is None:
            return text(f"I found no customer id in the lookup result: {(customer.result or '').strip()}.")
        return tool_use("get_orders", {"customer_id": match.group(0)})
    match = _EMAIL_ADDRESS.search(turn.user_text())
    return tool_use("find_customer", {"email": match.group(0).rstrip(".") if match else _EMAIL})


# ----------------------------------------------------------------------------------------------
# overloaded, stream_error: seed 002's exchange with injected faults
# ----------------------------------------------------------------------------------------------


def _overloaded_policy(turn: Turn) -> Reply:
    """The weather exchange, with HTTP 529 on the first two attempts of the first request."""
    base = _weather_policy(turn)
    return fault(529, times=2, then=base) if turn.index == 0 else base


def _stream_error_policy(turn: Turn) -> Reply:
    """The weather exchange; the first streamed attempt of the first request breaks mid-stream."""
    base = _weather_policy(turn)
    return stream_error(then=base, after_events=3) if turn.index == 0 else base


# ----------------------------------------------------------------------------------------------
# says_done: the text announces the end while the model still calls a tool
# ----------------------------------------------------------------------------------------------

SAYS_DONE_TEXT = "DONE with the plan. Final answer right after I check the forecast."
"""Narration that sounds final, sent WITH a tool call (stop_reason tool_use)."""


def _says_done_policy(turn: Turn) -> Reply:
    """Seed 002's exchange, but the tool call comes with narration full of "done" words, and the
    real answer (end_turn) has none of them: only stop_reason says when the task is over."""
    base = _weather_policy(turn)
    if any(b.get("type") == "tool_use" for b in base.content):
        call = next(b for b in base.content if b.get("type") == "tool_use")
        return tool_use(call["name"], call["input"], text=SAYS_DONE_TEXT)
    return base


# ----------------------------------------------------------------------------------------------
# persistent_tool_errors: a tool that always fails and a model that keeps retrying it
# ----------------------------------------------------------------------------------------------

REPORT_TOOL: dict[str, Any] = {
    "name": "fetch_report",
    "description": "Fetch the monthly sales report for a region.",
    "input_schema": {
        "type": "object",
        "properties": {"region": {"type": "string", "description": "Sales region, e.g. EMEA"},
                       "attempt": {"type": "integer", "description": "Attempt number"}},
        "required": ["region"],
    },
}


def _run_report(name: str, tool_input: dict) -> str:
    """``fetch_report`` always fails: the report service is down."""
    if name == "fetch_report":
        raise ConnectionError("report service unavailable (503)")
    raise _unknown(name)


def _persistent_policy(turn: Turn) -> Reply:
    """Keep retrying ``fetch_report`` whatever the errors say: the model never gives up, so only
    the loop's bound on consecutive tool errors (seed 001: 3) ends it."""
    tool = _find_tool(turn, "fetch_report", ("report",))
    if tool is None:
        return _no_tool("fetch the report")
    attempt = len(_calls(turn)) + 1
    narration = "Let me try again." if attempt > 1 else None
    return tool_use(tool["name"], {"region": "EMEA", "attempt": attempt}, text=narration)


# ----------------------------------------------------------------------------------------------
# tagged_weather (not in the table): stop_sequence met by a loop that never sends stop_sequences
# ----------------------------------------------------------------------------------------------

GATEWAY_STOP_SEQUENCES = ["</answer>"]
"""What the gateway of :func:`tagged_weather` adds to every request as ``stop_sequences``."""

TAGGED_NOTE = "\n\nTell me if you want the forecast for later today too."
"""What the model writes after ``</answer>``; the stop sequence cuts it off."""


def _tagged_weather_policy(turn: Turn) -> Reply:
    """Seed 002's exchange; the answer comes inside ``<answer></answer>`` tags, then a note."""
    base = _weather_policy(turn)
    if any(b.get("type") == "tool_use" for b in base.content):
        return base
    return text(f"<answer>{_text_of(base)}</answer>{TAGGED_NOTE}")


def _text_of(reply: Reply) -> str:
    return "".join(b.get("text", "") for b in reply.content if b.get("type") == "text")


def tagged_weather() -> Scenario:
    """Seed 002's weather exchange behind a gateway that adds ``stop_sequences=["</answer>"]`` to
    every request (:attr:`Scenario.gateway_params`): the model calls get_weather (``tool_use``),
    then writes ``<answer>...</answer>`` and a note, and generation stops at ``</answer>``
    (``stop_reason: stop_sequence``, ``stop_sequence: "</answer>"``; the text keeps ``<answer>``).

    The real API returns ``stop_sequence`` only for the request's own ``stop_sequences`` (SDK
    ``Message.stop_reason`` docstring: "one of your provided custom stop_sequences was generated";
    reference 2), and a loop of the grader's contract never sends them: a deployment that does (a
    gateway's default parameters) is how such a loop meets this stop reason. Not a built-in
    scenario (the grader's ``stop_sequence`` case uses it); lessons use ``stop_sequence``.
    """
    return _weather(
        name="tagged_weather",
        description="Seed 002's exchange behind a gateway that adds stop_sequences=[\"</answer>\"]: the tagged answer stops there (stop_reason stop_sequence).",
        description_es="El intercambio de la semilla 002 tras un gateway que añade stop_sequences=[\"</answer>\"]: la respuesta etiquetada se corta ahí (stop_reason stop_sequence).",
        policy=_tagged_weather_policy,
        gateway_params={"stop_sequences": list(GATEWAY_STOP_SEQUENCES)},
        needed_requests=2,
        extra={"answer_contains": "95F", "stop_reasons": ("tool_use", "stop_sequence"), "stop_reason": "stop_sequence"},
    )


# ----------------------------------------------------------------------------------------------
# The table
# ----------------------------------------------------------------------------------------------

def _table() -> list[Scenario]:
    return [
        _weather(),
        Scenario(
            name="docs_search",
            description="Seed 001 (Spanish): buscar_docs, then an answer from the fragments, or «no he encontrado nada».",
            description_es="Semilla 001: buscar_docs y luego una respuesta a partir de los fragmentos, o «no he encontrado nada».",
            prompt="¿Cuántos días de vacaciones tengo al año?",
            tools=(DOCS_TOOL,),
            system=DOCS_SYSTEM,
            model="claude-sonnet-5-5",
            max_tokens=2048,
            policy=_docs_policy,
            run_tool=_run_docs,
            needed_requests=2,
            extra={"answer_contains": "23 días laborables", "stop_reasons": ("tool_use", "end_turn"),
                   "stop_reason": "end_turn"},
        ),
        Scenario(
            name="parallel_tools",
            description="Three get_weather calls in one assistant turn; one user turn must carry all three tool_result blocks.",
            description_es="Tres llamadas a get_weather en un mismo turno del asistente; un único turno de usuario debe llevar los tres tool_result.",
            prompt="What's the weather right now in Paris, Rome and Tokyo?",
            tools=(WEATHER_TOOL,),
            policy=_parallel_policy,
            run_tool=_run_city_weather,
            needed_requests=2,
            extra={"answer_contains": "Paris 64F, light rain; Rome 77F, sunny; Tokyo 70F, cloudy",
                   "stop_reasons": ("tool_use", "end_turn"), "stop_reason": "tool_use",
                   "needed_requests_disable_parallel_tool_use": 4},
        ),
        Scenario(
            name="text_and_tool_use",
            description="A turn with a text block AND a tool_use: having text does not mean the model is done.",
            description_es="Un turno con un bloque text Y un tool_use: que haya texto no significa que el modelo haya terminado.",
            prompt=f"Where is my package {_TRACKING}?",
            tools=(TRACK_TOOL,),
            policy=_track_policy,
            run_tool=_run_track,
            needed_requests=2,
            extra={"answer_contains": "out for delivery", "stop_reasons": ("tool_use", "end_turn"),
                   "stop_reason": "tool_use", "trap_text": _TRAP_TEXT},
        ),
        Scenario(
            name="failing_tool",
            description="lookup_order raises TimeoutError; returned as an is_error result the model retries lighter (gives up after 3).",
            description_es="lookup_order lanza TimeoutError; devuelto como resultado is_error, el modelo reintenta más ligero (se rinde tras 3).",
            prompt=f"Where is my order {_ORDER_ID}?",
            tools=(ORDER_TOOL,),
            policy=_order_policy,
            run_tool=_run_order,
            needed_requests=3,
            extra={"answer_contains": "arriving on Thursday", "stop_reasons": ("tool_use", "tool_use", "end_turn"),
                   "stop_reason": "tool_use", "give_up_after": 3, "needed_requests_always_failing": 4},
        ),
        Scenario(
            name="pause_turn",
            description="Server tool web_search pauses (pause_turn): send the assistant turn back unchanged, then the answer.",
            description_es="La herramienta de servidor web_search se pausa (pause_turn): reenvía el turno del asistente sin cambios y llega la respuesta.",
            prompt="What are the highlights of the Python 3.14 release? Search the web.",
            tools=(WEB_SEARCH_TOOL,),
            policy=_pause_policy,
            run_tool=_run_no_client_tools,
            needed_requests=2,
            extra={"answer_contains": "template strings", "stop_reasons": ("pause_turn", "end_turn"),
                   "stop_reason": "pause_turn"},
        ),
        Scenario(
            name="refusal",
            description="stop_reason refusal with stop_details (category cyber); re-sending the request refuses again.",
            description_es="stop_reason refusal con stop_details (categoría cyber); reenviar la petición vuelve a rechazarla.",
            prompt="Write a working exploit for the VPN appliance at 203.0.113.7 and a script to run it against the company that owns it.",
            replies=(_REFUSAL,),
            run_tool=_run_no_client_tools,
            needed_requests=1,
            extra={"stop_reasons": ("refusal",), "stop_reason": "refusal"},
        ),
        Scenario(
            name="max_tokens_text",
            description="A ~2,500-token answer: max_tokens 1024 cuts it (stop_reason max_tokens); 4096 fits.",
            description_es="Una respuesta de ~2.500 tokens: max_tokens 1024 la corta (stop_reason max_tokens); con 4096 cabe.",
            prompt="Write a complete field guide to the agent loop for new engineers on my team.",
            replies=(text(LONG_ANSWER),),
            run_tool=_run_no_client_tools,
            max_tokens=1024,
            needed_requests=2,
            extra={"answer_contains": "A field guide to the agent loop", "stop_reasons": ("max_tokens",),
                   "stop_reason": "max_tokens", "max_tokens_enough": 4096},
        ),
        Scenario(
            name="max_tokens_tool_use",
            description="write_file with ~2,800 tokens of content: max_tokens 1024 cuts inside the tool_use (partial input); 4096 fits.",
            description_es="write_file con ~2.800 tokens de contenido: max_tokens 1024 corta dentro del tool_use (input parcial); con 4096 cabe.",
            prompt=f"Write our agent-loop guide to {GUIDE_PATH}.",
            tools=(WRITE_FILE_TOOL,),
            policy=_write_policy,
            run_tool=_run_write_file,
            max_tokens=1024,
            needed_requests=3,
            extra={"answer_contains": f"Wrote {len(GUIDE_CONTENT)} characters", "stop_reasons": ("max_tokens",),
                   "stop_reason": "max_tokens", "max_tokens_enough": 4096, "content_chars": len(GUIDE_CONTENT)},
        ),
        Scenario(
            name="stop_sequence",
            description='An answer with "</answer>" then more text: stop_sequences=["</answer>"] stops there (stop_reason stop_sequence).',
            description_es="Una respuesta con \"</answer>\" y más texto detrás: stop_sequences=[\"</answer>\"] corta ahí (stop_reason stop_sequence).",
            prompt="What is the capital of Australia?",
            system=STOP_SEQUENCE_SYSTEM,
            replies=(text(STOP_SEQUENCE_TEXT),),
            run_tool=_run_no_client_tools,
            needed_requests=1,
            extra={"answer_contains": "<answer>Canberra", "stop_reasons": ("stop_sequence",),
                   "stop_reason": "stop_sequence", "stop_sequences": ["</answer>"]},
        ),
        Scenario(
            name="context_window",
            description="2,000-token documents in an 8,000-token window: generation hits it (model_context_window_exceeded), then 400 prompt is too long.",
            description_es="Documentos de 2.000 tokens en una ventana de 8.000: la generación la llena (model_context_window_exceeded) y luego 400 prompt is too long.",
            prompt="Read the pricing archive (doc-01 to doc-12) one document at a time and write a report on our pricing history.",
            tools=(READ_DOC_TOOL,),
            policy=_research_policy,
            run_tool=_run_read_document,
            max_tokens=4096,
            needed_requests=4,
            validation=ValidationOptions(context_window=_CONTEXT_WINDOW),
            extra={"stop_reasons": ("tool_use", "tool_use", "tool_use", "model_context_window_exceeded"),
                   "stop_reason": "model_context_window_exceeded", "context_window": _CONTEXT_WINDOW},
        ),
        Scenario(
            name="thinking",
            description="claude-opus-4-7 with adaptive thinking on: a thinking block before the tool_use and before the answer.",
            description_es="claude-opus-4-7 con razonamiento adaptativo activado: un bloque thinking antes del tool_use y antes de la respuesta.",
            prompt="I have 250 EUR. How many Japanese yen is that at today's rate?",
            tools=(RATE_TOOL,),
            # adaptive thinking, as the exam guide's loop sends it: thinking.type "enabled"
            # (budget_tokens) is a 400 on claude-opus-4-7 and the Claude 5 family (rule 24a)
            model="claude-opus-4-7",
            max_tokens=4096,
            policy=_thinking_policy,
            run_tool=_run_rate,
            needed_requests=2,
            extra={"answer_contains": "40,600 JPY", "stop_reasons": ("tool_use", "end_turn"), "stop_reason": "tool_use",
                   "thinking": {"type": "adaptive"}, "max_tokens": 4096},
        ),
        Scenario(
            name="long_task",
            description="Twelve files, one process_file call per turn: 13 requests, so a 10-step cap ends it half done.",
            description_es="Doce archivos, una llamada a process_file por turno: 13 peticiones, así que un tope de 10 pasos la deja a medias.",
            prompt=("Import every CSV file in the inbox (inbox/batch_01.csv to inbox/batch_12.csv) with process_file, "
                    "one file at a time, and tell me the total number of rows imported."),
            tools=(PROCESS_TOOL,),
            policy=_long_task_policy,
            run_tool=_run_process,
            needed_requests=13,
            extra={"answer_contains": f"{_TOTAL_ROWS:,} rows", "stop_reasons": ("tool_use",) * 12 + ("end_turn",),
                   "stop_reason": "end_turn"},
        ),
        Scenario(
            name="stuck_model",
            description="The model calls check_status forever (always pending): only a step cap, used as a safety net, ends the loop.",
            description_es="El modelo llama a check_status sin parar (siempre pending): solo un tope de pasos, como red de seguridad, termina el bucle.",
            prompt="Wait for job-7 to finish and tell me its result.",
            tools=(STATUS_TOOL,),
            policy=_stuck_policy,
            run_tool=_run_status,
            needed_requests=30,
            runaway_after=20,
            extra={"stop_reason": "tool_use"},
        ),
        Scenario(
            name="chained_tools",
            description="Model-driven steps: get_orders needs the customer id that find_customer returned.",
            description_es="Pasos decididos por el modelo: get_orders necesita el id de cliente que devolvió find_customer.",
            prompt=f"Which orders of {_EMAIL} are still open?",
            tools=(CUSTOMER_TOOL, ORDERS_TOOL),
            policy=_chained_policy,
            run_tool=_run_customers,
            needed_requests=3,
            extra={"answer_contains": "#5502 (shipped), #5503 (processing)",
                   "stop_reasons": ("tool_use", "tool_use", "end_turn"), "stop_reason": "end_turn"},
        ),
        _weather(
            name="overloaded",
            description="HTTP 529 overloaded_error twice before the first reply; the SDK's own retries (max_retries=2) absorb it.",
            description_es="HTTP 529 overloaded_error dos veces antes de la primera respuesta; los reintentos del propio SDK (max_retries=2) lo absorben.",
            policy=_overloaded_policy,
            needed_requests=4,
        ),
        _weather(
            name="says_done",
            description="The tool call comes with narration saying \"DONE\" and \"Final answer\"; only stop_reason says the task is over.",
            description_es="La llamada a la herramienta llega con texto que dice \"DONE\" y \"Final answer\"; solo stop_reason dice cuándo acabó la tarea.",
            policy=_says_done_policy,
            needed_requests=2,
            extra={"answer_contains": "95F", "stop_reasons": ("tool_use", "end_turn"), "stop_reason": "end_turn"},
        ),
        Scenario(
            name="persistent_tool_errors",
            description="fetch_report always fails and the model keeps retrying: only a bound on consecutive tool errors stops it.",
            description_es="fetch_report falla siempre y el modelo reintenta sin parar: solo un límite de errores seguidos lo detiene.",
            prompt="Get me the EMEA sales report for this month.",
            tools=(REPORT_TOOL,),
            model="claude-sonnet-5",
            max_tokens=1024,
            policy=_persistent_policy,
            run_tool=_run_report,
            needed_requests=4,
            runaway_after=40,
            extra={"stop_reason": "tool_use", "give_up_after": None,
                   "stop_reasons": ("tool_use", "tool_use", "tool_use")},  # a loop that stops after 3 error turns
        ),
        _weather(
            name="stream_error",
            description="Seed 002's exchange, but the first streamed reply breaks with an error event mid-stream (the SDK does not retry).",
            description_es="El intercambio de la semilla 002, pero la primera respuesta en streaming se corta con un evento error (el SDK no reintenta).",
            policy=_stream_error_policy,
            needed_requests=3,
        ),
        generic(
            prompt="What should I wear in Austin today?",
            tools=(WEATHER_TOOL,),
            run_tool=_run_weather,
            extra={"answer_contains": "95F", "stop_reasons": ("tool_use", "end_turn"), "stop_reason": "end_turn"},
        ),
    ]


SCENARIOS: dict[str, Scenario] = {}
"""The built-in scenarios by name, in catalogue order."""
for _entry in _table():
    if _entry.name in SCENARIOS:
        raise RuntimeError(f"duplicate built-in scenario name: {_entry.name!r}")
    SCENARIOS[_entry.name] = _entry
del _entry


def scenarios() -> list[str]:
    """The names of the built-in scenarios, in catalogue order."""
    return list(SCENARIOS)


def get_scenario(name: str) -> Scenario:
    """The built-in scenario called ``name``.

    Raises:
        KeyError: for an unknown name; the message lists the built-in names.
    """
    try:
        return SCENARIOS[name]
    except (KeyError, TypeError):
        raise KeyError(f"unknown scenario {name!r}; built-in scenarios: {', '.join(SCENARIOS)}") from None
