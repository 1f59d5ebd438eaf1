"""agentlab.serve: the fake Messages API over real HTTP, for any language, SDK or framework.

::

    any HTTP client (TypeScript SDK, curl, litellm, langchain-anthropic, another SDK)
       |  ANTHROPIC_BASE_URL=http://127.0.0.1:8765   ANTHROPIC_API_KEY=<scenario or anything>
       v
    uvicorn  ->  FakeApp (ASGI)  ->  session per API key  ->  FakeAPI.handle  (the same fake as
                                                             the in-process transport: rules,
                                                             scenarios, SSE, journal)

``agentlab serve`` runs it from the command line; :func:`running` serves it in a thread for tests
and notebooks::

    from agentlab.serve import running
    with running() as server:             # a free port on 127.0.0.1
        server.base_url                   # give it to the client as its base URL
        server.journal("weather")         # what the client with key "weather" sent
"""

from __future__ import annotations

from ._app import SESSION_LIMIT, FakeApp, Session, session_name
from ._server import DEFAULT_PORT, Server, check_host, running, serve_forever, start

__all__ = ["DEFAULT_PORT", "FakeApp", "SESSION_LIMIT", "Server", "Session", "check_host", "running",
           "serve_forever", "session_name", "start"]
