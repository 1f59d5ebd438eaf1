"""Exceptions agentlab raises into learner code.

::

    BaseException
     └── RunawayLoop      raised by the fake inside client.messages.create/stream when a loop
                          keeps calling far past what the scenario needs

``RunawayLoop`` derives from ``BaseException`` on purpose: an ``except Exception`` in a
learner's loop (a common way to "handle" tool errors) cannot swallow it, so a loop that never
stops is stopped, and a notebook kernel never hangs.
"""

from __future__ import annotations

__all__ = ["RunawayLoop"]


class RunawayLoop(BaseException):
    """A loop made more requests than the scenario needs plus its margin.

    Attributes:
        scenario: the scenario's name.
        requests: how many ``/v1/messages`` requests the loop had made, this one included.
        limit: the most the fake allows for this scenario (``needed + runaway_after``).
    """

    def __init__(self, scenario: str, requests: int, limit: int, hint: str = "") -> None:
        self.scenario = scenario
        self.requests = requests
        self.limit = limit
        from ._i18n import language

        if language() == "es":
            message = (
                f"bucle desbocado en el escenario {scenario!r}: esta es la petición {requests}, por encima del "
                f"límite de {limit}. El bucle sigue llamando a la API sin terminar."
            )
        else:
            message = (
                f"runaway loop on scenario {scenario!r}: this is request {requests}, past the limit of {limit}. "
                "The loop keeps calling the API without finishing."
            )
        if hint:
            message += f" {hint}"
        super().__init__(message)
