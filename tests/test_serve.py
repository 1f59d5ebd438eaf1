"""agentlab serve: the fake over real HTTP answers as the in-process transport does.

Each test serves a FakeApp with uvicorn on a free loopback port (``running()``), points the real
``anthropic`` SDK (or plain httpx2) at it, and compares with the in-process fake or reads the
journal back over HTTP.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading

import anthropic
import httpx2
import pytest

import agentlab
from agentlab.fake import FakeAPI, get_scenario
from agentlab.loops import agent_loop
from agentlab.serve import FakeApp, check_host, running, session_name, start
from tests.hang import finishes

WEATHER_TOOLS = [{"name": "get_weather", "description": "Get current weather for a city.",
                  "input_schema": {"type": "object", "properties": {"location": {"type": "string"}},
                                   "required": ["location"]}}]
HEADERS = {"x-api-key": "weather", "anthropic-version": "2023-06-01", "content-type": "application/json"}


def weather_request(**extra):
    return {"model": "claude-sonnet-5", "max_tokens": 512, "tools": WEATHER_TOOLS,
            "messages": [{"role": "user", "content": "What's the weather in Paris?"}], **extra}


@pytest.fixture(scope="module")
def server():
    with running() as served:
        yield served


def served_client(server, key, **kw):
    return anthropic.Anthropic(base_url=server.base_url, api_key=key, **kw)


# ------------------------------------------------------------------ the same answers as in-process

def test_a_served_loop_gets_the_same_messages_as_the_in_process_one():
    with running() as server:  # a fresh server: the session named "weather" gives the in-process ids
        _same_messages(server)


def _same_messages(server):
    local = agentlab.fake_client("weather")
    remote = served_client(server, "weather")
    scenario = get_scenario("weather")
    assert agent_loop(local, scenario.prompt, list(scenario.tools), scenario.run_tool) == \
        agent_loop(remote, scenario.prompt, list(scenario.tools), scenario.run_tool)
    here = [e.to_dict() for e in agentlab.journal(local)]
    there = httpx2.get(f"{server.base_url}/agentlab/journal", params={"key": "weather"}).json()
    assert there["session"] == "weather" and there["scenario"] == "weather"
    assert [e["response"] for e in there["exchanges"]] == [e["response"] for e in here]
    assert [e["request"] for e in there["exchanges"]] == [e["request"] for e in here]
    assert [e["response"]["stop_reason"] for e in there["exchanges"]] == ["tool_use", "end_turn"]


def test_streams_are_the_same_sse_bytes(server):
    body = json.dumps(weather_request(stream=True)).encode()
    local = FakeAPI(get_scenario("weather")).handle(httpx2.Request(
        "POST", "http://agentlab/v1/messages", headers={**HEADERS}, content=body))
    with running() as fresh:  # the session named "weather" has the in-process ids
        remote = httpx2.post(f"{fresh.base_url}/v1/messages", headers=HEADERS, content=body)
    assert remote.status_code == 200
    assert remote.headers["content-type"].startswith("text/event-stream")
    assert remote.content == local.content
    assert b"event: message_stop" in remote.content
    with served_client(server, "weather:stream").messages.stream(**weather_request()) as stream:
        message = stream.get_final_message()
    assert message.stop_reason == "tool_use" and message.content[-1].input == {"location": "Paris"}


def test_async_clients_work_too(server):
    import asyncio

    async def main():
        client = anthropic.AsyncAnthropic(base_url=server.base_url, api_key="weather:async")
        scenario = get_scenario("weather")
        return await agentlab.loops.aagent_loop(client, scenario.prompt, list(scenario.tools), scenario.run_tool)

    assert "95F" in asyncio.run(main())


def test_count_tokens_and_models(server):
    client = served_client(server, "anything")
    assert client.messages.count_tokens(model="claude-sonnet-5", messages=[{"role": "user", "content": "hi"}]).input_tokens \
        == agentlab.fake_client().messages.count_tokens(model="claude-sonnet-5",
                                                        messages=[{"role": "user", "content": "hi"}]).input_tokens
    ids = [m.id for m in client.models.list(limit=1000).data]
    assert "claude-sonnet-5" in ids or any(i.startswith("claude-") for i in ids)


# ------------------------------------------------------------------ errors as the API sends them

def test_a_400_has_the_api_body_and_a_request_id(server):
    with pytest.raises(anthropic.BadRequestError) as caught:
        served_client(server, "weather:errors", max_retries=0).messages.create(
            model="claude-sonnet-5", max_tokens=64, messages=[{"role": "assistant", "content": "hi"}])
    error = caught.value
    assert error.body["error"]["type"] == "invalid_request_error"
    assert error.body["error"]["message"] == 'messages: first message must use the "user" role'
    assert error.response.headers["request-id"].startswith("req_")
    assert error.body["request_id"] == error.response.headers["request-id"]


def test_missing_key_and_wrong_path_are_the_apis_errors(server):
    no_key = httpx2.post(f"{server.base_url}/v1/messages", headers={"anthropic-version": "2023-06-01"},
                         content=json.dumps(weather_request()))
    assert no_key.status_code == 401 and no_key.json()["error"]["type"] == "authentication_error"
    wrong = httpx2.post(f"{server.base_url}/v1/complete", headers=HEADERS, content=b"{}")
    assert wrong.status_code == 404 and wrong.json()["error"]["type"] == "not_found_error"


def test_an_injected_fault_is_retried_by_the_sdk_over_http(server):
    client = served_client(server, "overloaded")
    scenario = get_scenario("overloaded")
    assert isinstance(agent_loop(client, scenario.prompt, list(scenario.tools), scenario.run_tool), str)
    statuses = [e["status"] for e in httpx2.get(f"{server.base_url}/agentlab/journal",
                                                params={"key": "overloaded"}).json()["exchanges"]]
    assert 529 in statuses and statuses[-1] == 200


def test_a_runaway_loop_gets_a_400_it_cannot_retry(server):
    client = served_client(server, "stuck_model:runaway")
    scenario = get_scenario("stuck_model")
    request = {"model": "claude-sonnet-5", "max_tokens": 256, "tools": list(scenario.tools),
               "messages": [{"role": "user", "content": scenario.prompt}]}
    with pytest.raises(anthropic.BadRequestError) as caught:
        for _ in range(200):
            client.messages.create(**request)  # the same request again and again: never appends
    details = caught.value.body["error"]["details"]
    assert details["error_code"] == "runaway_loop" and details["scope"] == "run"
    assert "agentlab RunawayLoop" in caught.value.body["error"]["message"]
    assert caught.value.response.headers["x-should-retry"] == "false"
    # a served session is shared by many clients: the same first message alone starts a new run
    assert client.messages.create(**request).stop_reason == "tool_use"
    assert served_client(server, "stuck_model:fresh").messages.create(**request).stop_reason


def test_unknown_scenario_in_the_path_is_a_404_naming_it(server):
    answer = httpx2.post(f"{server.base_url}/scenario/no_such/v1/messages", headers=HEADERS,
                         content=json.dumps(weather_request()))
    assert answer.status_code == 404 and "no_such" in answer.json()["error"]["message"]


def test_an_oversized_body_is_a_413(server):
    huge = b'{"model": "' + b"x" * (32 * 1024 * 1024) + b'"}'
    answer = httpx2.post(f"{server.base_url}/v1/messages", headers=HEADERS, content=huge, timeout=60)
    assert answer.status_code == 413 and answer.json()["error"]["type"] == "request_too_large"


# ------------------------------------------------------------------ sessions: key, path, journal, tools

def test_the_key_or_the_path_picks_the_scenario(server):
    by_key = served_client(server, "pause_turn:key").messages.create(
        **{**weather_request(), "tools": [{"type": "web_search_20260209", "name": "web_search"}]})
    assert by_key.stop_reason == "pause_turn"
    path = anthropic.Anthropic(base_url=f"{server.base_url}/scenario/refusal", api_key="sk-ant-my-key")
    assert path.messages.create(**weather_request()).stop_reason == "refusal"
    generic = served_client(server, "sk-ant-not-a-scenario").messages.create(**weather_request())
    assert generic.stop_reason == "tool_use" and generic.content[-1].name == "get_weather"
    names = {s["name"]: s["scenario"] for s in httpx2.get(f"{server.base_url}/agentlab/sessions").json()["sessions"]}
    assert names["pause_turn:key"] == "pause_turn"
    assert not any("sk-ant" in name for name in names), "a key that names no scenario is never shown"
    assert names[session_name("sk-ant-not-a-scenario")[1].replace("*", "generic")] == "generic"


def test_journal_as_text_in_either_language(server):
    served_client(server, "weather:text").messages.create(**weather_request())
    english = httpx2.get(f"{server.base_url}/agentlab/journal", params={"key": "weather:text", "format": "text"})
    spanish = httpx2.get(f"{server.base_url}/agentlab/journal",
                         params={"key": "weather:text", "format": "text", "lang": "es"})
    assert english.headers["content-type"].startswith("text/plain")
    assert "stop_reason=tool_use" in english.text and english.text != spanish.text
    assert "get_weather" in spanish.text


def test_the_scenarios_tool_runs_over_http(server):
    ok = httpx2.post(f"{server.base_url}/agentlab/tool", headers={"x-api-key": "weather"},
                     json={"name": "get_weather", "input": {"city": "Paris"}})
    assert ok.status_code == 200 and ok.json() == {"content": get_scenario("weather").run_tool("get_weather", {"city": "Paris"})}
    failing = httpx2.post(f"{server.base_url}/agentlab/tool", headers={"x-api-key": "failing_tool"},
                          json={"name": "get_weather", "input": {"city": "Atlantis"}})
    assert failing.status_code == 200 and set(failing.json()["error"]) == {"type", "message"}
    bad = httpx2.post(f"{server.base_url}/agentlab/tool", headers={"x-api-key": "weather"}, content=b"[1]")
    assert bad.status_code == 400


def test_reset_starts_a_session_afresh(server):
    client = served_client(server, "weather:reset")
    first = client.messages.create(**weather_request()).id
    assert httpx2.post(f"{server.base_url}/agentlab/reset", params={"key": "weather:reset"}).json() == {"reset": True}
    assert client.messages.create(**weather_request()).id == first  # same ids again: a fresh run
    assert httpx2.get(f"{server.base_url}/agentlab/journal", params={"key": "weather:reset"}).json()["exchanges"][0]["index"] == 0


def test_registered_keys_serve_a_given_fake_api(server):
    api = FakeAPI(get_scenario("weather"))
    calls = []
    server.app.register("grader-case-1", api, run_tool=lambda name, tool_input: calls.append(name) or "sunny")
    try:
        served_client(server, "grader-case-1").messages.create(**weather_request())
        assert len(api.journal) == 1 and server.journal("grader-case-1") is api.journal
        assert httpx2.post(f"{server.base_url}/agentlab/tool", headers={"x-api-key": "grader-case-1"},
                           json={"name": "get_weather", "input": {}}).json() == {"content": "sunny"}
        assert calls == ["get_weather"]
    finally:
        server.app.unregister("grader-case-1")


def test_concurrent_clients_each_get_their_own_conversation_state(server):
    scenario = get_scenario("long_task")
    expected = agent_loop(agentlab.fake_client("long_task"), scenario.prompt, list(scenario.tools), scenario.run_tool)
    results: dict[int, str] = {}

    def learner(i: int) -> None:
        client = served_client(server, f"long_task:learner{i}")
        results[i] = agent_loop(client, scenario.prompt, list(scenario.tools), scenario.run_tool)

    threads = [threading.Thread(target=learner, args=(i,)) for i in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert results == {i: expected for i in range(6)}
    journals = [server.journal(f"long_task:learner{i}") for i in range(6)]
    assert len({tuple(e.response["id"] for e in j.steps) for j in journals}) == 6, "each session has its own ids"
    assert len({tuple(e.stop_reason for e in j.steps) for j in journals}) == 1, "and the same run"
    assert all(len(j.steps) == len(journals[0].steps) for j in journals)


# ------------------------------------------------------------------ lifecycle and safety

def test_stopping_closes_the_port():
    server = start()
    port = server.port
    assert httpx2.get(f"{server.base_url}/agentlab/sessions").status_code == 200
    finishes(server.stop)
    assert not server._thread.is_alive()
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", port), timeout=2).close()


@pytest.mark.parametrize("host", ["0.0.0.0", "192.168.1.10", "::", "example.org"])
def test_non_loopback_addresses_are_refused_unless_asked(host):
    with pytest.raises(ValueError, match="allow_remote"):
        check_host(host)
    check_host(host, allow_remote=True)
    with pytest.raises(ValueError, match="allow_remote"):
        start(host=host)


@pytest.mark.parametrize("host", ["127.0.0.1", "127.0.0.2", "localhost", "::1"])
def test_loopback_addresses_are_fine(host):
    check_host(host)


def test_a_taken_port_is_an_oserror():
    with running() as server:
        with pytest.raises(OSError):
            start(port=server.port)


# ------------------------------------------------------------------ the command line

def _cli(*args, env=None):
    return subprocess.Popen([sys.executable, "-m", "agentlab", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env={**os.environ, **(env or {})})


def test_agentlab_serve_prints_the_url_answers_and_stops_cleanly_on_ctrl_c():
    proc = _cli("serve", "--port", "0")
    try:
        first = finishes(proc.stdout.readline, 30)
        url = first.split(" on ")[1].split()[0]
        assert url.startswith("http://127.0.0.1:")
        banner = [finishes(proc.stdout.readline, 10) for _ in range(5)]
        assert f"  export ANTHROPIC_BASE_URL={url}\n" in banner
        client = anthropic.Anthropic(base_url=url, api_key="weather")
        assert client.messages.create(**weather_request()).stop_reason == "tool_use"
        line = finishes(proc.stdout.readline, 10)
        assert line.startswith("weather") and "step 0" in line and "200 tool_use" in line
        journal = subprocess.run([sys.executable, "-m", "agentlab", "journal", "weather", "--url", url],
                                 capture_output=True, text=True, timeout=60)
        assert journal.returncode == 0 and "stop_reason=tool_use" in journal.stdout
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
        assert proc.returncode == 0, err
        assert "agentlab serve stopped." in out
        assert "Traceback" not in err
    finally:
        proc.kill()


def test_agentlab_serve_in_spanish_and_refusing_a_public_address():
    proc = _cli("serve", "--host", "0.0.0.0", "--port", "0", "--lang", "es")
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 2 and "allow_remote" in err and not out


def test_agentlab_journal_without_a_server_says_so():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    done = subprocess.run([sys.executable, "-m", "agentlab", "journal", "--url", f"http://127.0.0.1:{port}"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "cannot reach agentlab serve" in done.stderr and "Traceback" not in done.stderr


def test_the_asgi_app_also_runs_in_process_with_httpx2s_asgi_transport():
    import asyncio

    async def main():
        transport = httpx2.ASGITransport(app=FakeApp())
        async with httpx2.AsyncClient(transport=transport, base_url="http://test") as http:
            client = anthropic.AsyncAnthropic(api_key="weather", base_url="http://test", http_client=http)
            return await client.messages.create(**weather_request())

    assert asyncio.run(main()).stop_reason == "tool_use"


def test_raw_http_oddities_get_the_apis_shape_of_answer(server):
    def exchange(data: bytes) -> bytes:
        with socket.create_connection(("127.0.0.1", server.port), timeout=10) as conn:
            conn.sendall(data)

            def whole_answer() -> bytes:  # head and body may come in separate segments
                got = b""
                while b"\r\n\r\n" not in got:
                    got += conn.recv(65536)
                head, _, body = got.partition(b"\r\n\r\n")
                length = int(next((line.split(b":")[1] for line in head.lower().split(b"\r\n")
                                   if line.startswith(b"content-length:")), b"0"))
                while len(body) < length:
                    body += conn.recv(65536)
                return got + body[len(got.partition(b"\r\n\r\n")[2]):]

            return finishes(whole_answer, 15)

    # a key that is not ASCII: the fake's own 400, never a crash of the server
    answer = exchange(b"POST /v1/messages HTTP/1.1\r\nHost: x\r\nx-api-key: \xff\xfe\r\n"
                      b"anthropic-version: 2023-06-01\r\ncontent-length: 2\r\n\r\n{}")
    assert answer.startswith(b"HTTP/1.1 400") and b'"invalid_request_error"' in answer
    # a chunked body is read whole
    answer = exchange(b"POST /v1/messages HTTP/1.1\r\nHost: x\r\nx-api-key: weather\r\nanthropic-version: 2023-06-01\r\n"
                      b"content-type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n{\"a\":\r\n2\r\n1}\r\n0\r\n\r\n")
    assert answer.startswith(b"HTTP/1.1 400") and b"max_tokens: Field required" in answer
    # agentlab's own routes send a content-length too (no chunked framing for simple clients)
    answer = exchange(b"GET /agentlab/sessions HTTP/1.1\r\nHost: x\r\n\r\n")
    assert b"content-length:" in answer.lower() and b"transfer-encoding" not in answer.lower()


def test_a_grading_app_serves_registered_keys_only_and_hides_its_sessions():
    app = FakeApp(registered_only=True)
    api = FakeAPI(get_scenario("weather"))
    app.register("case-key", api)
    with running(app) as server:
        ok = served_client(server, "case-key").messages.create(**weather_request())
        assert ok.stop_reason == "tool_use"
        with pytest.raises(anthropic.AuthenticationError) as caught:
            served_client(server, "weather", max_retries=0).messages.create(**weather_request())
        assert caught.value.body["error"]["message"] == "invalid x-api-key"
        for method, route in (("GET", "sessions"), ("GET", "journal?key=case-key"), ("POST", "reset?key=case-key")):
            answer = httpx2.request(method, f"{server.base_url}/agentlab/{route}", headers={"x-api-key": "case-key"})
            assert answer.status_code == 404, route
        assert app.session("case-key").api is api, "nothing the loop can send removes its case's session"
        tool = httpx2.post(f"{server.base_url}/agentlab/tool", headers={"x-api-key": "case-key"},
                           json={"name": "get_weather", "input": {"city": "Paris"}})
        assert tool.json() == {"content": "Weather in Paris: 95F, sunny"}
        stranger = httpx2.post(f"{server.base_url}/agentlab/tool", headers={"x-api-key": "weather"},
                               json={"name": "get_weather", "input": {"city": "Paris"}})
        assert stranger.status_code == 401


def test_sessions_that_are_not_the_scenarios_own_name_get_their_own_request_ids(server):
    ids = {key: served_client(server, key).messages.with_raw_response.create(**weather_request()).headers["request-id"]
           for key in ("weather:ids-a", "weather:ids-b", "sk-ant-ids")}
    assert len(set(ids.values())) == 3
    again = httpx2.post(f"{server.base_url}/agentlab/reset", params={"key": "weather:ids-a"})
    assert again.json() == {"reset": True}
    assert served_client(server, "weather:ids-a").messages.with_raw_response.create(
        **weather_request()).headers["request-id"] == ids["weather:ids-a"], "same key, same ids: still deterministic"


def test_many_clients_may_run_the_same_conversation_on_one_key(server):
    """A class running the guide's loop again and again on one key: no runaway (in-process, the
    tenth restart of a conversation on one client is one)."""
    scenario = get_scenario("docs_search")
    for _ in range(120):
        client = served_client(server, "docs_search:class", max_retries=0)
        assert isinstance(agent_loop(client, scenario.prompt, list(scenario.tools), scenario.run_tool), str)


def test_a_runaway_over_http_ends_that_run_only(server):
    scenario = get_scenario("stuck_model")
    client = served_client(server, "stuck_model:not-sticky", max_retries=0)
    request = {"model": "claude-sonnet-5", "max_tokens": 256, "tools": list(scenario.tools),
               "messages": [{"role": "user", "content": scenario.prompt}]}
    with pytest.raises(anthropic.BadRequestError):
        for _ in range(200):
            client.messages.create(**request)
    other = {**request, "messages": [{"role": "user", "content": "Another task"}]}
    assert client.messages.create(**other).stop_reason, "another conversation on the key goes on"


def test_reading_a_journal_never_makes_a_session(server):
    answer = httpx2.get(f"{server.base_url}/agentlab/journal", params={"key": "wheather"})
    assert answer.status_code == 404 and "no session" in answer.json()["error"]["message"]
    hidden = httpx2.get(f"{server.base_url}/agentlab/journal", params={"key": "sk-ant-secret-typo"})
    assert "sk-ant" not in hidden.text
    names = [s["name"] for s in httpx2.get(f"{server.base_url}/agentlab/sessions").json()["sessions"]]
    assert "wheather" not in names and not any("secret" in n for n in names)


def test_a_key_that_is_not_ascii_names_the_same_session_in_the_header_and_the_query(server):
    body = json.dumps(weather_request()).encode()
    sent = httpx2.post(f"{server.base_url}/v1/messages", content=body,
                       headers=[(b"x-api-key", "weather:café".encode()), (b"anthropic-version", b"2023-06-01"),
                                (b"content-type", b"application/json")])
    assert sent.status_code == 200
    journal = httpx2.get(f"{server.base_url}/agentlab/journal", params={"key": "weather:café"})
    assert journal.status_code == 200 and len(journal.json()["exchanges"]) == 1


def test_ipv6_loopback_with_or_without_brackets():
    with running(host="[::1]") as server:
        assert server.base_url.startswith("http://[::1]:") and "[[" not in server.base_url
        assert httpx2.get(f"{server.base_url}/agentlab/sessions").status_code == 200


@pytest.mark.parametrize("port", ["70000", "-1", "http"])
def test_agentlab_serve_refuses_a_port_that_is_not_one(port):
    done = subprocess.run([sys.executable, "-m", "agentlab", "serve", "--port", port], capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 2 and "Traceback" not in done.stderr and "port" in done.stderr


def test_agentlab_serve_stops_cleanly_on_sigterm_too():
    proc = _cli("serve", "--port", "0", "--quiet")
    try:
        url = finishes(proc.stdout.readline, 30).split(" on ")[1].split()[0]
        assert httpx2.get(f"{url}/agentlab/sessions").status_code == 200
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=30)
        assert proc.returncode == 0, err
        assert "agentlab serve stopped." in out and "Traceback" not in err
    finally:
        proc.kill()


def test_agentlab_journal_reads_a_path_prefix_session_from_the_base_url(server):
    client = anthropic.Anthropic(base_url=f"{server.base_url}/scenario/refusal", api_key="my-key")
    assert client.messages.create(**weather_request()).stop_reason == "refusal"
    done = subprocess.run([sys.executable, "-m", "agentlab", "journal", "my-key", "--url",
                           f"{server.base_url}/scenario/refusal"], capture_output=True, text=True, timeout=60,
                          env={**os.environ, "HTTP_PROXY": "http://127.0.0.1:9", "http_proxy": "http://127.0.0.1:9"})
    assert done.returncode == 0, done.stderr
    assert "stop_reason=refusal" in done.stdout
    missing = subprocess.run([sys.executable, "-m", "agentlab", "journal", "nobody", "--url", server.base_url],
                             capture_output=True, text=True, timeout=60)
    assert missing.returncode == 2 and "no session" in missing.stderr and "cannot reach" not in missing.stderr
