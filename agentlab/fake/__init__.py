"""agentlab.fake: a deterministic fake of the Messages API under the real ``anthropic`` SDK.

::

    FakeTransport (httpx2, sync + async)       how it plugs in
      └── FakeAPI.handle(request) -> response  one scenario run: ids, journal, threads
            ├── _rules.validate_http / validate   the rule table (reference section 7)
            ├── _models / _models_api             the model catalogue; GET /v1/models[/{id}]
            ├── Scenario.reply_for(turn)          scripted replies or a policy
            ├── _model.generate                   the request shapes the reply
            └── _sse.message_events               SSE for streams
"""

from __future__ import annotations

from ._api import THREADS_BETA, FakeAPI
from ._catalogue import SCENARIOS, get_scenario, scenarios
from ._context import ApiError, RequestContext, ValidationOptions
from ._generic import GenericOptions, generic
from ._journal import Exchange, Journal
from ._models import DEFAULT_MODEL, MODELS, ModelSpec, cost_usd, get_model
from ._replies import (
    Fault,
    Reply,
    fault,
    redacted_thinking,
    refusal,
    reply,
    server_tool_use,
    stream_error,
    text,
    thinking,
    tool_use,
    tool_uses,
)
from ._scenario import Policy, RunTool, Scenario, Turn
from ._transport import FakeTransport

__all__ = [
    "ApiError",
    "DEFAULT_MODEL",
    "Exchange",
    "FakeAPI",
    "FakeTransport",
    "Fault",
    "GenericOptions",
    "Journal",
    "MODELS",
    "ModelSpec",
    "Policy",
    "Reply",
    "RequestContext",
    "RunTool",
    "SCENARIOS",
    "Scenario",
    "THREADS_BETA",
    "Turn",
    "ValidationOptions",
    "cost_usd",
    "fault",
    "generic",
    "get_model",
    "get_scenario",
    "redacted_thinking",
    "refusal",
    "reply",
    "scenarios",
    "server_tool_use",
    "stream_error",
    "text",
    "thinking",
    "tool_use",
    "tool_uses",
]
