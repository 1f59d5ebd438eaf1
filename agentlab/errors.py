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
        requests: how many ``/v1/messages`` requests the loop had made, this one included (with
            ``per_client``: how many the client had made in all, re-runs included).
        limit: the most the fake allows for this scenario (``needed + runaway_after``; with
            ``per_client``: the client's total budget, that limit times ``RUNS_PER_CLIENT``).
        per_client: False when one run went past its limit (the loop does not stop); True when
            the client used up its total budget over many finished runs (a cell re-run many
            times on the same client: make a new client).
    """

    def __init__(self, scenario: str, requests: int, limit: int, hint: str = "", *, per_client: bool = False) -> None:
        self.scenario = scenario
        self.requests = requests
        self.limit = limit
        self.per_client = per_client
        from ._i18n import language

        if per_client and language() == "es":
            message = (
                f"este cliente simulado ha agotado su presupuesto total de peticiones en el escenario {scenario!r}: "
                f"esta es la petición {requests} entre todas sus ejecuciones, por encima del total de {limit}. "
                "Crea un cliente nuevo con agentlab.fake_client(...) para seguir."
            )
        elif per_client:
            message = (
                f"this fake client has used up its total request budget on scenario {scenario!r}: this is request "
                f"{requests} over all its runs, past the total of {limit}. Make a new client with "
                "agentlab.fake_client(...) to go on."
            )
        elif language() == "es":
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
