"""pytest plugin (entry point ``pytest11``): the ``fake_anthropic`` fixture.

Test any agent loop against agentlab's fake, course or not::

    def test_my_loop(fake_anthropic):
        client = fake_anthropic()                     # the generic model: calls YOUR tools
        answer = my_loop(client, "What should I wear in Austin today?")
        assert "95F" in answer                        # it quotes what your tool returned
        assert fake_anthropic.journal.stop_reasons == ["tool_use", "end_turn"]
        assert not fake_anthropic.journal.warnings    # every tool you sent was called

``fake_anthropic("weather")`` picks a built-in scenario instead, and
``fake_anthropic(agentlab.fake.generic(call_tools="all"))`` calls every tool you send.

The fixture is cheap and imports the SDK only when a test uses it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    import anthropic

    from .fake._journal import Journal
    from .fake._scenario import Scenario


class FakeAnthropic:
    """Makes fake clients for one test and remembers them.

    Call it with a scenario name or ``Scenario`` (default ``"generic"``, the generic model that
    calls the request's own tools) to get an ``anthropic.Anthropic`` (``asynchronous=True`` for
    ``AsyncAnthropic``); keyword arguments go to :func:`agentlab.fake_client`.
    """

    def __init__(self) -> None:
        self.clients: list[Any] = []

    def __call__(self, scenario: "str | Scenario" = "generic", *, asynchronous: bool = False,
                 **kwargs: Any) -> "anthropic.Anthropic":
        from ._client import fake_async_client, fake_client

        made = (fake_async_client if asynchronous else fake_client)(scenario, **kwargs)
        self.clients.append(made)
        return made

    @property
    def journal(self) -> "Journal":
        """The journal of the last client made.

        Raises:
            RuntimeError: when no client was made yet.
        """
        from ._client import journal

        if not self.clients:
            raise RuntimeError("call fake_anthropic(scenario) first to make a client")
        return journal(self.clients[-1])

    def journal_of(self, client: Any) -> "Journal":
        """The journal of a given client made by this fixture."""
        from ._client import journal

        return journal(client)


@pytest.fixture
def fake_anthropic() -> FakeAnthropic:
    """A factory of fake ``anthropic`` clients with their journals (see :class:`FakeAnthropic`)."""
    return FakeAnthropic()
