"""Put every ``anthropic.Anthropic()`` / ``AsyncAnthropic()`` of a script on agentlab's fake.

``run.py`` puts this folder first on ``PYTHONPATH`` of each example it runs, so Python imports
this module at start-up (``site`` imports ``sitecustomize``). It does nothing unless
``AGENTLAB_PROBE_OUT`` names a file. Then it wraps the two client classes' ``__init__``: a client
built without an ``http_client`` gets an ``httpx2`` client on a :class:`agentlab.fake.FakeTransport`
(one fresh :class:`agentlab.fake.FakeAPI` per client, scenario ``AGENTLAB_PROBE_SCENARIO``, default
``generic``) and the fake's API key when none is given; every other argument (``max_retries``,
``middleware``, ``default_headers``...) is the script's own. This is the only change the probe makes
to a script: the client construction.

At exit (also after Ctrl-C, which ``run.py`` sends on a timeout) it writes, as JSON, one entry per
fake client: each request's method, path, HTTP status, endpoint, model, whether it streamed, the
tools it defined (names), the tool_use blocks the fake answered (names and ids), the tool_result
ids the request carried, its stop reason and error. Clients built with their own ``http_client``
(e.g. ``with_options`` copies) share their parent's transport and are not listed twice.
"""

from __future__ import annotations

import atexit
import json
import os
from typing import Any

_OUT = os.environ.get("AGENTLAB_PROBE_OUT")
_CLIENTS: list[dict[str, Any]] = []


def _names(blocks: Any, kinds: tuple[str, ...]) -> list[dict[str, Any]]:
    if not isinstance(blocks, list):
        return []
    return [{"type": b.get("type"), "name": b.get("name"), "id": b.get("id")}
            for b in blocks if isinstance(b, dict) and b.get("type") in kinds]


def _result_ids(messages: Any) -> list[str]:
    ids: list[str] = []
    for message in messages if isinstance(messages, list) else []:
        content = message.get("content") if isinstance(message, dict) else None
        for block in content if isinstance(content, list) else []:
            if isinstance(block, dict) and block.get("type") == "tool_result":
                ids.append(str(block.get("tool_use_id")))
    return ids


def _exchange(record: dict[str, Any], exchange: Any) -> dict[str, Any]:
    request = exchange.request if isinstance(exchange.request, dict) else {}
    tools = request.get("tools") if isinstance(request.get("tools"), list) else []
    response = exchange.response if isinstance(exchange.response, dict) else {}
    return {
        **record,
        "endpoint": exchange.endpoint,
        "model": request.get("model"),
        "stream": exchange.stream,
        "tools_defined": [t.get("name") for t in tools if isinstance(t, dict)],
        "tool_uses": _names(response.get("content"), ("tool_use", "server_tool_use")),
        "tool_results_sent": _result_ids(request.get("messages")),
        "stop_reason": response.get("stop_reason"),
        "response_model": response.get("model"),
        "error": exchange.error,
        "rule": exchange.rule,
    }


def _dump() -> None:
    out = []
    for client in _CLIENTS:
        exchanges = list(client["api"].journal)
        records = client["records"]
        merged = [_exchange(r, e) for r, e in zip(records, exchanges)]
        # A request the fake did not journal (should not happen) is kept with what the transport saw.
        merged += records[len(exchanges):]
        out.append({"class": client["class"], "scenario": client["scenario"], "requests": merged})
    with open(_OUT, "w", encoding="utf-8") as handle:  # type: ignore[arg-type]
        json.dump({"clients": out}, handle, indent=1, default=str)


def _install() -> None:
    import anthropic
    import httpx2

    from agentlab._client import FAKE_API_KEY, resolve_scenario
    from agentlab.fake import FakeAPI, FakeTransport

    scenario = os.environ.get("AGENTLAB_PROBE_SCENARIO") or "generic"

    class ProbeTransport(FakeTransport):
        """A FakeTransport that also notes each request's method, path and status."""

        def __init__(self, api: FakeAPI, records: list[dict[str, Any]]) -> None:
            super().__init__(api)
            self.records = records

        def _note(self, request: httpx2.Request, response: httpx2.Response) -> httpx2.Response:
            self.records.append({"method": request.method, "path": request.url.path,
                                 "query": str(request.url.query, "ascii") if isinstance(request.url.query, bytes)
                                 else str(request.url.query), "status": response.status_code})
            return response

        def handle_request(self, request: httpx2.Request) -> httpx2.Response:
            return self._note(request, super().handle_request(request))

        async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
            return self._note(request, await super().handle_async_request(request))

    def wrap(cls: type, http_cls: type) -> None:
        original = cls.__init__

        def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
            if kwargs.get("http_client") is None:
                api = FakeAPI(resolve_scenario(scenario))
                records: list[dict[str, Any]] = []
                kwargs["http_client"] = http_cls(transport=ProbeTransport(api, records))
                if kwargs.get("api_key") is None and kwargs.get("auth_token") is None:
                    kwargs["api_key"] = FAKE_API_KEY
                _CLIENTS.append({"class": cls.__name__, "scenario": scenario, "api": api, "records": records})
            original(self, *args, **kwargs)

        cls.__init__ = __init__  # type: ignore[method-assign]

    wrap(anthropic.Anthropic, httpx2.Client)
    wrap(anthropic.AsyncAnthropic, httpx2.AsyncClient)
    atexit.register(_dump)


if _OUT:
    _install()
