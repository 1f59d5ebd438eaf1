"""No input makes the fake raise, hang or grow without bound (issue 10, item 5): the issue's
hostile inputs one per row, the internal-error answer, linear policy patterns, threads sharing
a client, the bounded journal, the client's total request budget and live timeouts are in
test_client.py."""

from __future__ import annotations

import json
import threading

import anthropic
import httpx2
import pytest

import agentlab
from agentlab import _i18n
from agentlab.fake import FakeAPI, FakeTransport, Scenario, get_scenario, text
from agentlab.fake import _catalogue
from agentlab.fake import _api
from agentlab.fake._journal import JOURNAL_LIMIT
from agentlab.fake._scenario import SCAN_CHARS, Turn
from agentlab.fake._sse import encode_events

from .conftest import WEATHER_TOOL, seed_loop
from .hang import finishes

HEADERS = {"x-api-key": "k", "anthropic-version": "2023-06-01", "content-type": "application/json"}
USER = [{"role": "user", "content": "What should I wear in Austin today?"}]
CALL = {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_01A", "name": "get_weather",
                                          "input": {"city": "Austin"}}]}


def body(**fields) -> dict:
    return {"model": "claude-sonnet-5", "max_tokens": 1024, "messages": USER, "tools": [WEATHER_TOOL], **fields}


def with_schema(schema: dict) -> dict:
    return body(tools=[{**WEATHER_TOOL, "input_schema": schema}])


def answered(content) -> dict:
    """The weather conversation with one tool result whose content is ``content``."""
    result = {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_01A", "content": content}]}
    return body(messages=[*USER, CALL, result])


def raw(value) -> bytes:
    return json.dumps(value).encode()  # ASCII: a lone surrogate goes as its escape "\ud800"


def send(content: bytes, *, scenario: str = "weather", path: str = "/v1/messages", method: str = "POST",
         headers: dict | None = None) -> httpx2.Response:
    """One request straight through the transport, under the hang detector."""
    transport = FakeTransport(FakeAPI(get_scenario(scenario), runaway_after=10**6))
    request = httpx2.Request(method, f"https://api.anthropic.com{path}", content=content,
                             headers={**HEADERS, **(headers or {})})
    response = finishes(lambda: transport.handle_request(request))
    response.read()
    return response


# The issue's list, one row each: (what, request bytes, extra headers, scenario, expected status).
LONG_WORD = "x" * 100_000
HOSTILE = [
    ("lone surrogate in the prompt", raw(body(messages=[{"role": "user", "content": "Weather in Austin?\ud800"}])),
     {}, "weather", 200),
    ("lone surrogate echoed in an error text", raw(body(model="claude-\ud800")), {}, "weather", 404),
    ("lone surrogate in a tool result the reply quotes", raw(answered("Weather in Austin: 95F, sunny \udfff")),
     {}, "weather", 200),
    ("x-stainless-retry-count: abc", raw(body()), {"x-stainless-retry-count": "abc"}, "weather", 200),
    ("x-stainless-retry-count: 10**40", raw(body()), {"x-stainless-retry-count": "1" + "0" * 40}, "weather", 200),
    ('"type": ["string", "null"]', raw(with_schema({"type": "object", "properties": {"city": {"type": ["string", "null"]}},
                                                    "required": ["city", "units"]})), {}, "weather", 200),
    ("an object enum", raw(with_schema({"type": "object", "properties": {"city": {"type": "string"},
                                                                         "units": {"enum": {"c": 1}}},
                                        "required": ["city", "units"]})), {}, "weather", 400),  # rule 21d: not draft 2020-12
    ('"required": 5', raw(with_schema({"type": "object", "properties": {"city": {"type": "string"}}, "required": 5})),
     {}, "weather", 400),  # rule 21d (the filler still meets both shapes under output_config: test_structured_outputs)
    ("1e400 in a schema", raw(body()).replace(b'"type": "string"', b'"type": "string", "maxLength": 1e400', 1),
     {}, "weather", 400),
    ("a non-string text inside tool_result.content", raw(answered([{"type": "text", "text": 5}])), {}, "weather", 400),  # rule 4d: nested blocks are shape-checked
    ("deep nesting", b'{"model": "claude-sonnet-5", "max_tokens": 5, "messages": ' + b"[" * 50_000 + b"]" * 50_000 + b"}",
     {}, "weather", 400),
    ("a 5,000-digit integer", raw(body()).replace(b'"max_tokens": 1024', b'"max_tokens": 1' + b"0" * 5000, 1),
     {}, "weather", 400),
    ("a digit followed by 100,000 spaces in a tool result", raw(answered("1" + " " * 100_000)), {}, "weather", 200),
    ("a 100,000-character word in chained_tools",
     raw({**body(messages=[{"role": "user", "content": LONG_WORD}]), "tools": list(get_scenario("chained_tools").tools)}),
     {}, "chained_tools", 200),
]


@pytest.mark.parametrize(("what", "content", "headers", "scenario", "status"), HOSTILE, ids=[row[0] for row in HOSTILE])
def test_hostile_inputs_get_the_apis_answer(what, content, headers, scenario, status):
    response = send(content, scenario=scenario, headers=headers)
    assert response.status_code == status, response.text[:300]
    payload = json.loads(response.content.decode("utf-8"))  # UTF-8 the SDK can read, valid JSON
    assert payload["type"] == ("message" if status == 200 else "error")


def test_a_lone_surrogate_round_trips_through_an_error_text():
    response = send(raw(body(model="claude-\ud800")))
    assert b"\\ud800" in response.content and response.json()["error"]["message"] == "model: claude-\ud800"


def test_a_streamed_event_with_a_lone_surrogate_is_readable():
    encoded = encode_events([{"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "a\ud800"}}])
    data = encoded.decode("utf-8").split("data: ", 1)[1]
    assert json.loads(data)["delta"]["text"] == "a\ud800"


# --- the catch-all --------------------------------------------------------------------------

def _broken(turn):
    raise ZeroDivisionError("a bug in a policy")


BROKEN = Scenario(name="broken", tools=(WEATHER_TOOL,), policy=_broken, needed_requests=1)


@pytest.mark.parametrize("lang", ["en", "es"])
def test_an_exception_inside_the_fake_is_a_500_api_error_that_asks_to_report_it(monkeypatch, lang):
    monkeypatch.setattr(_i18n, "_chosen", lang)
    client = agentlab.fake_client(BROKEN)
    with pytest.raises(anthropic.InternalServerError) as info:
        client.messages.create(model="claude-sonnet-5", max_tokens=100, messages=USER)
    error = info.value.body["error"]
    assert error["type"] == "api_error" and "agentlab" in error["message"] and "ZeroDivisionError" in error["message"]
    assert ("please report" if lang == "en" else "por favor, infórmalo") in error["message"]
    assert "Traceback" not in error["message"] and "a bug in a policy" not in error["message"]
    journal = agentlab.journal(client)
    assert len(journal) == 1  # x-should-retry: false, the SDK does not retry a deterministic bug
    assert (journal[0].status, journal[0].rule, journal[0].step) == (500, "internal", 0)


def test_runaway_and_keyboard_interrupt_still_propagate():
    def interrupted(turn):
        raise KeyboardInterrupt

    client = agentlab.fake_client(Scenario(name="interrupted", tools=(WEATHER_TOOL,), policy=interrupted,
                                                  needed_requests=1), max_retries=0)
    with pytest.raises(KeyboardInterrupt):
        client.messages.create(model="claude-sonnet-5", max_tokens=100, messages=USER)
    client = agentlab.fake_client("weather", runaway_after=0)
    with pytest.raises(agentlab.RunawayLoop):
        for _ in range(5):
            client.messages.create(model="claude-sonnet-5", max_tokens=100, messages=USER, tools=[WEATHER_TOOL])


# --- linear policy patterns --------------------------------------------------------------------

PATTERN_INPUTS = [
    (_catalogue._TEMPERATURE, "1" + " " * 100_000),
    (_catalogue._TEMPERATURE, "1" * 100_000),
    (_catalogue._TEMPERATURE, "1." * 50_000),
    (_catalogue._ROWS_COUNT, "7" * 100_000),
    (_catalogue._ORDER_LINES, "#1 (" * 25_000),
    (_catalogue._EMAIL_ADDRESS, "a" * 100_000),
    (_catalogue._EMAIL_ADDRESS, "a@" + "b" * 100_000),
]


@pytest.mark.parametrize(("pattern", "subject"), PATTERN_INPUTS, ids=lambda v: getattr(v, "pattern", "")[:20] or None)
def test_policy_patterns_scan_100000_characters_without_backtracking(pattern, subject):
    # Unbounded text (the policies see at most SCAN_CHARS): the pattern itself must be linear.
    assert finishes(lambda: pattern.search(subject), seconds=5.0) is None


def test_policy_patterns_still_read_what_the_tools_say():
    assert _catalogue._TEMPERATURE.search("Weather in Paris: 18 °C, rain").groups() == ("18", "C")
    assert _catalogue._TEMPERATURE.search("It is -3.5F outside").groups() == ("-3.5", "F")
    assert _catalogue._ROWS_COUNT.search("imported 1200 rows").group(1) == "1200"
    assert _catalogue._EMAIL_ADDRESS.search("Orders of ana.p+x@example.co.uk?").group(0) == "ana.p+x@example.co.uk?"[:-1]
    assert _catalogue._ORDER_LINES.findall("#5501 (delivered), #5502 (shipped)") == [("5501", "delivered"), ("5502", "shipped")]


def test_policies_read_a_bounded_text():
    turn = Turn(messages=({"role": "user", "content": "x" * (SCAN_CHARS * 3)},), index=0, model="m", system=None,
                tools=(), tool_choice=None, max_tokens=None)
    assert len(turn.user_text()) == SCAN_CHARS
    assert len(_catalogue._block_text([{"type": "text", "text": "y" * (SCAN_CHARS + 5)}])) == SCAN_CHARS


def test_the_issues_slow_requests_answer_through_the_sdk():
    scenario = get_scenario("chained_tools")
    client = agentlab.fake_client(scenario)
    message = finishes(lambda: client.messages.create(
        model="claude-sonnet-5", max_tokens=1024, tools=list(scenario.tools),
        messages=[{"role": "user", "content": f"Which orders of {LONG_WORD} are open?"}]))
    assert message.stop_reason == "tool_use"
    client = agentlab.fake_client("weather")
    first = client.messages.create(model="claude-sonnet-5", max_tokens=1024, tools=[WEATHER_TOOL], messages=USER)
    call = next(b for b in first.content if b.type == "tool_use")
    result = {"role": "user", "content": [{"type": "tool_result", "tool_use_id": call.id, "content": "1" + " " * 100_000}]}
    message = finishes(lambda: client.messages.create(
        model="claude-sonnet-5", max_tokens=1024, tools=[WEATHER_TOOL],
        messages=[*USER, {"role": "assistant", "content": first.content}, result]))
    assert message.stop_reason == "end_turn"


# --- threads ---------------------------------------------------------------------------------

def test_a_client_shared_by_8_threads_keeps_a_consistent_journal():
    client = agentlab.fake_client("weather", runaway_after=1000)
    ids: list[str] = []
    errors: list[BaseException] = []
    start = threading.Barrier(8)

    def worker() -> None:
        try:
            start.wait()
            for _ in range(20):
                ids.append(client.messages.create(model="claude-sonnet-5", max_tokens=100, messages=USER,
                                                  tools=[WEATHER_TOOL]).id)
                client.messages.count_tokens(model="claude-sonnet-5", messages=USER)
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=worker) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert not errors and not any(t.is_alive() for t in threads)
    journal = agentlab.journal(client)
    assert [e.index for e in journal] == list(range(320))
    assert [e.step for e in journal.steps] == list(range(160))
    assert len({e.request_id for e in journal}) == 320
    assert len(set(ids)) == 160 and sorted(ids) == sorted(e.response["id"] for e in journal.steps)
    assert all(e.ok for e in journal)


# --- the bounded journal -----------------------------------------------------------------------

def _count_tokens_requests(api: FakeAPI, n: int, path: str = "/v1/messages/count_tokens") -> None:
    for _ in range(n):
        request = httpx2.Request("POST", f"https://api.anthropic.com{path}", headers=HEADERS,
                                 content=raw({"model": "claude-sonnet-5", "messages": USER}))
        request.read()
        api.handle(request)


@pytest.mark.parametrize("lang", ["en", "es"])
def test_the_journal_keeps_the_last_exchanges_and_says_how_many_were_dropped(lang):
    api = FakeAPI(get_scenario("weather"))
    _count_tokens_requests(api, JOURNAL_LIMIT)
    _count_tokens_requests(api, 30, path="/v1/unknown")
    journal = api.journal
    assert len(journal) == JOURNAL_LIMIT and journal.dropped == 30
    assert journal[0].index == 30 and journal[-1].index == JOURNAL_LIMIT + 29  # absolute indices
    words = {"en": "30 earlier exchange(s) dropped", "es": "30 intercambio(s) anteriores descartados"}[lang]
    assert words in journal.to_text(lang=lang).splitlines()[1]
    _i18n.set_language(lang)
    try:
        assert words in journal._repr_html_()
    finally:
        _i18n._chosen = None
    assert journal.to_dict()["dropped"] == 30


def test_steps_keep_their_absolute_numbers_when_earlier_ones_are_dropped(tiny):
    client = agentlab.fake_client(tiny)
    journal = agentlab.journal(client)
    journal.limit = 3
    for _ in range(3):
        seed_loop(client, tiny.prompt, [WEATHER_TOOL], tiny.run_tool)
    assert journal.dropped == 3 and [e.step for e in journal.steps] == [3, 4, 5]
    assert journal.step(4).step == 4 and journal.step(-1).step == 5
    with pytest.raises(IndexError, match="keeps the last 3"):
        journal.step(1)


# --- the client's total budget -----------------------------------------------------------------

@pytest.mark.parametrize(("lang", "words"), [("en", "total request budget"), ("es", "presupuesto total")])
def test_past_the_client_wide_cap_the_message_says_to_make_a_new_client(monkeypatch, tiny, lang, words):
    """Independent requests never add up to a run's budget; only the client-wide cap (far above
    honest use: lowered here) stops a loop whose every request is a new conversation."""
    monkeypatch.setattr(_i18n, "_chosen", lang)
    monkeypatch.setattr(_api, "CLIENT_REQUEST_CAP", 30)
    client = agentlab.fake_client(tiny, runaway_after=0)
    assert FakeAPI(tiny, runaway_after=0).client_limit == 30
    for i in range(30):
        client.messages.create(model="claude-sonnet-5", max_tokens=64, messages=[{"role": "user", "content": f"Task {i}"}])
    with pytest.raises(agentlab.RunawayLoop) as info:
        client.messages.create(model="claude-sonnet-5", max_tokens=64, messages=[{"role": "user", "content": "Task 30"}])
    error = info.value
    assert error.per_client and error.scope == "client" and (error.requests, error.limit) == (31, 30)
    assert words in str(error) and "agentlab.fake_client(" in str(error)
    assert "runaway loop" not in str(error) and "bucle desbocado" not in str(error)


def test_a_loop_that_never_finishes_still_gets_the_runaway_message(tiny):
    client = agentlab.fake_client(Scenario(name="loops", tools=(WEATHER_TOOL,), replies=(text("Hi"),), runaway_after=2,
                                           needed_requests=1))
    with pytest.raises(agentlab.RunawayLoop) as info:
        for _ in range(10):  # one conversation that grows: never a re-run
            client.messages.create(model="claude-sonnet-5", max_tokens=100,
                                   messages=[*USER, {"role": "assistant", "content": "Hi"}, *USER])
    assert not info.value.per_client and "runaway loop" in str(info.value)
