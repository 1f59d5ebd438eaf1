"""Exceptions agentlab raises into learner code.

::

    BaseException
     └── RunawayLoop      raised by the fake inside client.messages.create/stream when a loop
                          keeps calling far past what the scenario needs (one conversation
                          that never finishes, or restarts without end)

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
        requests: how many ``/v1/messages`` requests were counted against ``limit``, this one
            included.
        limit: the most the fake allows in that ``scope``.
        scope: what went past its limit:

            - ``"run"``: one conversation (one first user message) kept going past
              ``needed + runaway_after`` requests without finishing: a loop that never stops,
              never appends (the same request again and again) or retries a 400 forever.
            - ``"conversation"``: the same conversation was started again and again, finished
              each time, past ``RUNS_PER_CONVERSATION`` run budgets in all (a loop that restarts
              after every answer; or a cell re-run very many times on one client).
            - ``"client"``: the client answered ``FakeAPI.client_limit`` requests in all, far
              above any honest use (the last resort of a kernel that must not hang).
        per_client: ``scope != "run"``: the message says to make a new client.
    """

    def __init__(self, scenario: str, requests: int, limit: int, hint: str = "", *, scope: str = "run") -> None:
        self.scenario = scenario
        self.requests = requests
        self.limit = limit
        self.scope = scope
        self.per_client = scope != "run"
        from ._i18n import language

        spanish = language() == "es"
        if scope == "conversation" and spanish:
            message = (
                f"este cliente simulado ha empezado la misma conversación (el mismo primer mensaje) una y otra vez "
                f"en el escenario {scenario!r}: esta es la petición {requests} de esa conversación entre todas sus "
                f"ejecuciones, por encima del total de {limit}. Un bucle que vuelve a empezar tras cada respuesta "
                "nunca termina. ¿Vuelves a ejecutar la celda a mano? Crea un cliente nuevo con "
                "agentlab.fake_client(...) para seguir."
            )
        elif scope == "conversation":
            message = (
                f"this fake client has started the same conversation (the same first message) again and again on "
                f"scenario {scenario!r}: this is request {requests} of that conversation over all its runs, past "
                f"the total of {limit}. A loop that starts over after every answer never ends. Re-running a cell "
                "by hand? Make a new client with agentlab.fake_client(...) to go on."
            )
        elif scope == "client" and spanish:
            message = (
                f"este cliente simulado ha agotado su presupuesto total de peticiones en el escenario {scenario!r}: "
                f"esta es la petición {requests} entre todas sus ejecuciones, por encima del total de {limit}. "
                "Crea un cliente nuevo con agentlab.fake_client(...) para seguir."
            )
        elif scope == "client":
            message = (
                f"this fake client has used up its total request budget on scenario {scenario!r}: this is request "
                f"{requests} over all its runs, past the total of {limit}. Make a new client with "
                "agentlab.fake_client(...) to go on."
            )
        elif spanish:
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
