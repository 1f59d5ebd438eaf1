"""Making clients: the real ``anthropic`` SDK on the fake transport, or on the real API in live mode.

Only the client construction differs from production code: ``fake_client`` returns a genuine
``anthropic.Anthropic`` whose ``http_client`` is an ``httpx2.Client`` on a
:class:`~agentlab.fake.FakeTransport` (the 2.x SDK is built on httpx2, reference 0.3).
"""

from __future__ import annotations

import os
import weakref
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import anthropic

    from .fake._api import FakeAPI
    from .fake._journal import Journal
    from .fake._scenario import Scenario

__all__ = ["fake_client", "fake_async_client", "client", "journal", "fake_api", "live_mode", "resolve_scenario"]

FAKE_API_KEY = "sk-ant-fake-agentlab"
"""The key fake clients send; the fake only checks that one is present (reference rule 2)."""

LIVE_TIMEOUT_SECONDS = 60.0
"""Default read/write/pool timeout of a live client, in seconds (the SDK's default is 600)."""

LIVE_CONNECT_TIMEOUT_SECONDS = 10.0
"""Default connect timeout of a live client, in seconds."""

_APIS: "weakref.WeakKeyDictionary[Any, FakeAPI]" = weakref.WeakKeyDictionary()


def resolve_scenario(scenario: "str | Scenario") -> "Scenario":
    """A built-in scenario by name, or the given :class:`Scenario` itself.

    Raises:
        KeyError: for an unknown name (the message lists the built-in names).
        TypeError: for anything that is neither a name nor a Scenario.
    """
    from .fake._catalogue import get_scenario
    from .fake._scenario import Scenario

    if isinstance(scenario, Scenario):
        return scenario
    if isinstance(scenario, str):
        return get_scenario(scenario)
    raise TypeError(f"scenario must be a name or a Scenario, not {type(scenario).__name__}")


def _make(scenario: "str | Scenario", *, is_async: bool, max_retries: int, runaway_after: int | None,
          kwargs: dict[str, Any]) -> Any:
    import anthropic
    import httpx2

    from .fake._api import FakeAPI
    from .fake._transport import FakeTransport

    api = FakeAPI(resolve_scenario(scenario), runaway_after=runaway_after)
    transport = FakeTransport(api)
    if is_async:
        made: Any = anthropic.AsyncAnthropic(api_key=FAKE_API_KEY, max_retries=max_retries,
                                             http_client=httpx2.AsyncClient(transport=transport), **kwargs)
    else:
        made = anthropic.Anthropic(api_key=FAKE_API_KEY, max_retries=max_retries,
                                   http_client=httpx2.Client(transport=transport), **kwargs)
    _APIS[made] = api
    return made


def fake_client(scenario: "str | Scenario" = "generic", *, max_retries: int = 2,
                runaway_after: int | None = None, **kwargs: Any) -> "anthropic.Anthropic":
    """An ``anthropic.Anthropic`` whose requests go to the fake, on one scenario run.

    Args:
        scenario: a built-in scenario name (see :func:`agentlab.scenarios`) or a ``Scenario``.
            Default ``"generic"``: the generic model, which calls the request's own tools with
            schema-valid arguments and then quotes their results (``agentlab.fake.generic(...)``
            configures it: which tools, parallel calls, steps, a final text).
        max_retries: the SDK's own retry count (default 2, as the SDK's; injected faults carry
            ``retry-after-ms: 1`` so retries wait 1 ms). Pass 0 to see every fault raised.
        runaway_after: requests one run of a conversation may make past what the scenario
            needs before :class:`agentlab.RunawayLoop` (default: the scenario's). Each new first
            user message is a new conversation with a fresh budget; see
            ``FakeAPI._check_runaway`` for the restart and client-wide caps.
        **kwargs: passed to ``anthropic.Anthropic`` (e.g. ``default_headers``).

    Returns:
        A real ``anthropic.Anthropic``. Each call starts a fresh run: new ids, empty journal.

    Raises:
        KeyError: unknown scenario name.
    """
    return _make(scenario, is_async=False, max_retries=max_retries, runaway_after=runaway_after, kwargs=kwargs)


def fake_async_client(scenario: "str | Scenario" = "generic", *, max_retries: int = 2,
                      runaway_after: int | None = None, **kwargs: Any) -> "anthropic.AsyncAnthropic":
    """Like :func:`fake_client`, for ``anthropic.AsyncAnthropic``."""
    return _make(scenario, is_async=True, max_retries=max_retries, runaway_after=runaway_after, kwargs=kwargs)


def live_mode() -> bool:
    """True when ``AGENTLAB_LIVE=1`` and ``ANTHROPIC_API_KEY`` is set (the key is never read here)."""
    return os.environ.get("AGENTLAB_LIVE") == "1" and bool(os.environ.get("ANTHROPIC_API_KEY"))


def client(scenario: "str | Scenario" = "generic", **kwargs: Any) -> "anthropic.Anthropic":
    """The fake client on ``scenario`` (default ``"generic"``, the generic model), or, in live
    mode, the real ``anthropic.Anthropic()``.

    Live mode (self-study only) needs ``AGENTLAB_LIVE=1`` and ``ANTHROPIC_API_KEY``; the SDK
    reads the key from the environment itself, and agentlab never prints or stores it. In live
    mode ``scenario`` is ignored and outputs vary: nbval verifies the notebooks on the fake.

    A live client gets ``timeout=anthropic.Timeout(LIVE_TIMEOUT_SECONDS, connect=LIVE_CONNECT_TIMEOUT_SECONDS)``
    (60 s per read, 10 s to connect) unless ``kwargs`` has a ``timeout``: the SDK's own default
    is 600 s, so a silent proxy would hold a notebook cell for ten minutes. The SDK retries a
    timed-out request (``max_retries``, 2 by default) before it raises ``APITimeoutError``.

    Args:
        scenario: the fake's scenario (ignored in live mode).
        **kwargs: passed to ``anthropic.Anthropic`` (live) or :func:`fake_client`.
    """
    if live_mode():
        import anthropic

        kwargs.setdefault("timeout", anthropic.Timeout(LIVE_TIMEOUT_SECONDS, connect=LIVE_CONNECT_TIMEOUT_SECONDS))
        return anthropic.Anthropic(**kwargs)
    return fake_client(scenario, **kwargs)


def fake_api(client: Any) -> "FakeAPI":
    """The :class:`~agentlab.fake.FakeAPI` behind a client made by :func:`fake_client`.

    Raises:
        ValueError: when ``client`` was not made by agentlab (e.g. a live client).
    """
    try:
        return _APIS[client]
    except (KeyError, TypeError):
        pass
    # A copy such as client.with_options(...) shares the fake's transport.
    from .fake._transport import FakeTransport

    transport = getattr(getattr(client, "_client", None), "_transport", None)
    if isinstance(transport, FakeTransport):
        return transport.api
    raise ValueError("this client was not made by agentlab.fake_client(); it has no journal")


def journal(client: Any) -> "Journal":
    """The journal of every request a fake client made (see :class:`~agentlab.fake.Journal`).

    Raises:
        ValueError: when ``client`` was not made by agentlab.
    """
    return fake_api(client).journal
