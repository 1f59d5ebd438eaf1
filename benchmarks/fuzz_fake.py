"""Fuzz the fake's transport with many mutations of valid requests (issue 10, item 5).

Run: ``python benchmarks/fuzz_fake.py [N] [--seed S]`` (default 100,000 inputs, seed 0).

The corpus is every request a simple correct loop sends on each built-in scenario (so
conversations with tool calls, tool results, thinking blocks, server tools, threads...). Each
input takes one corpus request and applies 1-3 random mutations: replace a node with a hostile
value (lone surrogates, huge or tiny numbers, deep nesting, long runs of digits, spaces or
word characters, wrong types, JSON Schema shapes), delete or add a key, duplicate or drop a list
item, turn streaming on; sometimes the request also gets hostile headers, another path or
method, or raw bytes (truncated JSON, ``1e400``, ``NaN``, a 5,000-digit number). Each input
goes to a fresh :class:`~agentlab.fake.FakeAPI` through ``FakeTransport.handle_request``.

Prints how many inputs raised out of the transport (anything but RunawayLoop), got the fake's
500 catch-all (a bug: each distinct exception is listed with one input that caused it), gave
a response that is not JSON/SSE or not an API status, or took more than SLOW_SECONDS, the
status counts and the slowest input. Random choices come from ``random.Random(seed)``: the same
seed runs the same inputs.
"""

from __future__ import annotations

import copy
import json
import random
import sys
import time
from collections import Counter
from typing import Any

import httpx2

import agentlab
from agentlab.errors import RunawayLoop
from agentlab.fake import FakeAPI, FakeTransport, get_scenario, scenarios
from agentlab.fake._catalogue import request_params

SLOW_SECONDS = 1.0
API_STATUSES = {200, 400, 401, 403, 404, 405, 413, 429, 500, 529}
HEADERS = {"x-api-key": "k", "anthropic-version": "2023-06-01", "content-type": "application/json"}


def corpus() -> list[tuple[str, dict[str, Any]]]:
    """``(scenario, request body)`` for every request a simple loop sends on each scenario."""
    out: list[tuple[str, dict[str, Any]]] = []
    for name in scenarios():
        scenario = get_scenario(name)
        client = agentlab.fake_client(scenario, max_retries=3)
        params = request_params(scenario)
        messages: list[dict[str, Any]] = [{"role": "user", "content": scenario.prompt or "Hi"}]
        try:
            for _ in range(15):
                reply = client.messages.create(messages=messages, **params)
                if reply.stop_reason not in ("tool_use", "pause_turn"):
                    break
                messages.append({"role": "assistant", "content": [b.model_dump(exclude_none=True) for b in reply.content]})
                if reply.stop_reason == "pause_turn":
                    continue
                results = []
                for block in reply.content:
                    if block.type != "tool_use":
                        continue
                    try:
                        results.append({"type": "tool_result", "tool_use_id": block.id,
                                        "content": str(scenario.run_tool(block.name, block.input))})
                    except Exception as exc:  # noqa: BLE001 - an is_error result, as a loop sends
                        results.append({"type": "tool_result", "tool_use_id": block.id, "content": str(exc),
                                        "is_error": True})
                messages.append({"role": "user", "content": results})
        except (Exception, RunawayLoop):  # noqa: BLE001 - the corpus keeps what was sent before
            pass
        out += [(scenario.name, e.request) for e in agentlab.journal(client) if isinstance(e.request, dict)]
    return out


def hostile_value(rng: random.Random, depth: int = 0) -> Any:
    kind = rng.randrange(24)
    if kind == 0:
        return "\ud800" if rng.random() < 0.5 else "text \udfff"
    if kind == 1:
        return rng.choice([10**30, -(10**30), 2**63, -1, 0, 1e308, -1e-308, 0.5])
    if kind == 2:
        value: Any = rng.choice([[], {}])
        for _ in range(rng.randrange(20, 300)):  # deeper: raw bytes, below
            value = [value] if rng.random() < 0.5 else {"a": value}
        return value
    if kind == 3:
        return rng.choice(["1", "7", "-3.5", "#1 (", "x@"]) + rng.choice([" ", "1", "a", "1.", "b-"]) * rng.randrange(1000, 100_000)
    if kind == 4:
        return "w" * rng.randrange(1000, 100_000)
    if kind == 5:
        return {"type": rng.choice([["string", "null"], "object", "array", 5, None]),
                "enum": rng.choice([[{"a": 1}], {}, 5, [], [None]]), "required": rng.choice([5, "x", [1], None]),
                "properties": rng.choice([{"p": {"type": ["integer", "null"]}}, [], 3]),
                "items": rng.choice([{}, 5, [{"type": "string"}]]), "minimum": rng.choice([1e308, -5, "a"])}
    if kind == 6:
        return {"type": rng.choice(["text", "tool_use", "tool_result", "thinking", "image", "document",
                                    "server_tool_use", "web_search_tool_result", "redacted_thinking", "search_result",
                                    "container_upload", "bogus"]),
                **rng.choice([{}, {"text": 5}, {"text": None}, {"id": "toolu_01A", "name": "get_weather", "input": []},
                              {"tool_use_id": "toolu_01A", "content": [{"type": "text", "text": 5}]},
                              {"content": {"a": 1}}, {"thinking": 3, "signature": None}, {"source": 5},
                              {"citations": [5]}, {"cache_control": {"type": "ephemeral", "ttl": 5}}])}
    if kind == 7:
        return {"type": rng.choice(["create", "continue", 5]), "previous_message_id": rng.choice(["msg_x", 5, None])}
    if kind == 8:
        return rng.choice(["", " ", "\n", "\x00", "claude-opus-4-7", "claude-sonnet-5", "user", "assistant", "system",
                           "end_turn", "tool_use", "any", "auto", "none", "get_weather", "ephemeral"])
    if kind == 9 and depth < 2:
        return [hostile_value(rng, depth + 1) for _ in range(rng.randrange(4))]
    if kind == 10 and depth < 2:
        return {rng.choice(["type", "text", "name", "id", "input", "content", "role", "x"]): hostile_value(rng, depth + 1)
                for _ in range(rng.randrange(4))}
    return rng.choice([None, True, False, 0, 1, -1, 3.5, "x", [], {}, [None], {"": None}])


def nodes(value: Any, path: tuple = ()) -> list[tuple]:
    """Every path into a JSON value (as tuples of keys/indices), the root included."""
    out = [path]
    if isinstance(value, dict):
        for key, child in value.items():
            out += nodes(child, (*path, key))
    elif isinstance(value, list):
        for index, child in enumerate(value):
            out += nodes(child, (*path, index))
    return out


def _at(value: Any, path: tuple) -> Any:
    for key in path:
        value = value[key]
    return value


def mutate(body: dict[str, Any], rng: random.Random) -> Any:
    body = copy.deepcopy(body)
    for _ in range(rng.randrange(1, 4)):
        paths = [p for p in nodes(body) if p]
        if not paths:
            return body
        path = rng.choice(paths)
        parent = body
        for key in path[:-1]:
            parent = parent[key]
        last = path[-1]
        op = rng.randrange(12)
        if op >= 10:  # a string leaf gets a lone surrogate; an object gets a cache breakpoint
            strings = [p for p in paths if isinstance(_at(body, p), str)]
            dicts = [p for p in [(), *paths] if isinstance(_at(body, p), dict)]
            if op == 10 and strings:
                where = rng.choice(strings)
                _at(body, where[:-1])[where[-1]] += rng.choice(["\ud800", "\udfff", "\udbff"])
            elif dicts:
                _at(body, rng.choice(dicts))["cache_control"] = {"type": "ephemeral"}
        elif op <= 4:
            parent[last] = hostile_value(rng)
        elif op == 5:
            del parent[last]
        elif op == 6 and isinstance(parent, dict):
            parent[rng.choice(["extra", "name", "type", "cache_control", "citations", "is_error", "stream",
                               "thread", "output_config", "thinking", "tool_choice"])] = hostile_value(rng)
        elif op == 7 and isinstance(parent, list):
            parent.insert(last, copy.deepcopy(parent[last]))
        elif op == 8 and isinstance(parent[last], str):
            text = parent[last]
            cut = rng.randrange(len(text) + 1)
            parent[last] = text[:cut] + rng.choice(["\ud800", "\udc00", "\x00", "🙂", " " * 5000, "1" * 5000]) + text[cut:]
        else:
            body["stream"] = True
    return body


def make_request(rng: random.Random, scenario: str, body: dict[str, Any]) -> httpx2.Request:
    mutated = mutate(body, rng)
    try:
        content = json.dumps(mutated).encode()  # ASCII: lone surrogates as JSON escapes
    except RecursionError:  # nested deeper than the encoder goes: send it as raw bytes
        depth = rng.randrange(900, 100_000)
        content = b'{"model":"claude-sonnet-5","max_tokens":5,"messages":[{"role":"user","content":' + b"[" * depth + b"]" * depth + b"}]}"
    roll = rng.random()
    if roll < 0.03:
        content = content[: rng.randrange(len(content) + 1)]
    elif roll < 0.07:
        depth = rng.randrange(300, 100_000)  # past Python's recursion limit in places
        content = content.replace(b'"content": ', b'"content": ' + b"[" * depth + b"]" * depth + b", \"x\": ", 1)
    elif roll < 0.10:
        content = content.replace(b"1024", rng.choice([b"1e400", b"NaN", b"-Infinity", b"1" + b"0" * 5000]), 1)
    headers = dict(HEADERS)
    if rng.random() < 0.1:
        headers[rng.choice(["x-stainless-retry-count", "anthropic-beta", "anthropic-version", "x-api-key",
                            "content-type"])] = rng.choice(["abc", "-1", "1" + "0" * 40, "", "message-threads-2026-08-12"])
    path, method = "/v1/messages", "POST"
    if rng.random() < 0.1:
        path = rng.choice(["/v1/messages/count_tokens", "/v1/messages?beta=true", "/v1/models", "/v1/x", "/"])
    if rng.random() < 0.03:
        method = rng.choice(["GET", "PUT", "DELETE"])
    return httpx2.Request(method, "https://api.anthropic.com" + path, content=content, headers=headers)


def check(response: httpx2.Response) -> str | None:
    """None when the response is what the API could send; else what is wrong."""
    if response.status_code not in API_STATUSES:
        return f"status {response.status_code}"
    try:
        text = response.content.decode("utf-8")
        if response.headers.get("content-type", "").startswith("text/event-stream"):
            for line in text.splitlines():
                if line.startswith("data: "):
                    json.loads(line[6:])
        else:
            json.loads(text)
    except ValueError as exc:
        return f"unreadable body ({type(exc).__name__})"
    return None


def where(scenario: str, request: httpx2.Request) -> str:
    """The innermost agentlab frame of the exception the request causes (replayed without the
    catch-all), for the report."""
    import traceback

    try:
        FakeAPI(get_scenario(scenario), runaway_after=10**6)._handle(request, [])
    except Exception as exc:  # noqa: BLE001 - located and described
        frames = [f for f in traceback.extract_tb(exc.__traceback__) if "agentlab" in f.filename]
        last = frames[-1] if frames else None
        return f"{type(exc).__name__}: {str(exc)[:100]} ({last.filename.split('agentlab/')[-1]}:{last.lineno} {last.line})" if last else repr(exc)
    return "(not reproduced)"


def main(n: int, seed: int) -> int:
    rng = random.Random(seed)
    base = corpus()
    print(f"corpus: {len(base)} valid requests from {len({s for s, _ in base})} scenarios; fuzzing {n:,} inputs (seed {seed})")
    raised: Counter[str] = Counter()
    internal: dict[str, str] = {}
    internal_count = 0
    bad: Counter[str] = Counter()
    statuses: Counter[int] = Counter()
    slow = 0
    slowest = (0.0, "")
    started = time.perf_counter()
    for i in range(n):
        scenario, body = rng.choice(base)
        request = make_request(rng, scenario, body)
        api = FakeAPI(get_scenario(scenario), runaway_after=10**6)
        begin = time.perf_counter()
        try:
            response = FakeTransport(api).handle_request(request)
            response.read()
        except RunawayLoop:
            continue
        except Exception as exc:  # noqa: BLE001 - counted and reported
            raised[f"{type(exc).__name__}: {str(exc)[:80]}"] += 1
            continue
        finally:
            elapsed = time.perf_counter() - begin
            if elapsed > SLOW_SECONDS:
                slow += 1
            if elapsed > slowest[0]:
                slowest = (elapsed, f"{scenario} {request.method} {request.url.path} {request.content[:120]!r}")
        statuses[response.status_code] += 1
        problem = check(response)
        if problem:
            bad[problem] += 1
        for exchange in api.journal:
            if exchange.rule == "internal":
                internal_count += 1
                internal.setdefault(exchange.error["message"].split("(")[1].split(")")[0], (scenario, request))
        if (i + 1) % 20_000 == 0:
            print(f"  {i + 1:,} inputs, {time.perf_counter() - started:.0f} s")
    total = time.perf_counter() - started
    print(f"done: {n:,} inputs in {total:.1f} s ({total / n * 1000:.2f} ms each)")
    print(f"raised out of the transport: {sum(raised.values())}")
    for what, count in raised.most_common():
        print(f"  {count} x {what}")
    print(f"500 internal (the catch-all: a bug): {internal_count}")
    for kind, (scenario, request) in internal.items():
        print(f"  {kind}, e.g. {scenario}: {request.content[:300]!r}")
        print(f"    at {where(scenario, request)}")
    print(f"not JSON/SSE or not an API status: {sum(bad.values())} {dict(bad)}")
    print(f"slower than {SLOW_SECONDS} s: {slow}; slowest {slowest[0] * 1000:.1f} ms: {slowest[1][:200]}")
    print(f"statuses: {dict(sorted(statuses.items()))}")
    return 1 if raised or internal_count or bad or slow else 0


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if not a.startswith("--seed")]
    seed_arg = next((a.split("=", 1)[1] for a in sys.argv[1:] if a.startswith("--seed=")), "0")
    sys.exit(main(int(args[0]) if args else 100_000, int(seed_arg)))
