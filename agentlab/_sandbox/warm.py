"""Warms the forkserver that starts the grader's children: importing this module runs one
request and its parsed reply through a throwaway ``anthropic`` client (sync and async) on a
canned in-memory transport, so the SDK's first-use costs (building its response models, its
headers) are paid once in the forkserver and every child forked from it starts warm.

Only ``agentlab.grader._isolate`` names it (as a forkserver preload); nothing else imports it.
"""

from __future__ import annotations

import asyncio
import json

import anthropic
import httpx2

from .._client import FAKE_API_KEY

_REPLY = json.dumps({
    "id": "msg_warm", "type": "message", "role": "assistant", "model": "claude-sonnet-5",
    "content": [{"type": "thinking", "thinking": "t", "signature": "s"}, {"type": "text", "text": "warm"},
                {"type": "tool_use", "id": "toolu_warm", "name": "warm", "input": {"x": 1}}],
    "stop_reason": "tool_use", "stop_sequence": None,
    "usage": {"input_tokens": 1, "output_tokens": 1, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0},
}).encode()


class _Canned(httpx2.BaseTransport, httpx2.AsyncBaseTransport):
    def handle_request(self, request: httpx2.Request) -> httpx2.Response:
        request.read()
        return httpx2.Response(200, headers={"content-type": "application/json"}, content=_REPLY)

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        await request.aread()
        return httpx2.Response(200, headers={"content-type": "application/json"}, content=_REPLY)


def _warm() -> None:
    tools = [{"name": "warm", "description": "d", "input_schema": {"type": "object", "properties": {}}}]
    messages = [{"role": "user", "content": "hi"}]
    client = anthropic.Anthropic(api_key=FAKE_API_KEY, max_retries=2, http_client=httpx2.Client(transport=_Canned()))
    reply = client.messages.create(model="claude-sonnet-5", max_tokens=16, tools=tools, messages=messages)
    messages += [{"role": "assistant", "content": reply.content},
                 {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_warm", "content": "x"}]}]
    client.messages.create(model="claude-sonnet-5", max_tokens=16, tools=tools, messages=messages)

    async def run() -> None:
        aclient = anthropic.AsyncAnthropic(api_key=FAKE_API_KEY, max_retries=2,
                                           http_client=httpx2.AsyncClient(transport=_Canned()))
        await aclient.messages.create(model="claude-sonnet-5", max_tokens=16, tools=tools, messages=messages)

    asyncio.run(run())


try:
    _warm()
except Exception:  # noqa: BLE001 - warming is an optimisation: a child then pays the first-use costs itself
    pass
