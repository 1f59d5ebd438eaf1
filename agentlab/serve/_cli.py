"""``agentlab serve`` and ``agentlab journal``: the command-line doors of :mod:`agentlab.serve`.

- ``agentlab serve [--host H] [--port P] [--scenario NAME] [--allow-remote] [--quiet]`` serves the
  fake until Ctrl-C, printing the base URL to export and one line per exchange;
- ``agentlab journal [KEY] [--url URL] [--json]`` prints the journal of a session of a running
  server (what the client with that API key sent and got).

Exit status: 0 after a clean stop or a printed journal; 2 for a refused address, a taken port, an
unknown scenario, or a server that cannot be reached.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

__all__ = ["TEXT", "add_commands", "run_serve", "run_journal"]

TEXT = {
    "en": {
        "serve_help": "serve the fake Messages API over HTTP on this machine, for any language or framework",
        "host_help": "address to listen on (default 127.0.0.1; others need --allow-remote)",
        "port_help": "port (default {port}; 0 picks a free one)",
        "scenario_help": "scenario of API keys that name none (default generic: the model calls your own tools)",
        "allow_remote_help": "allow an address other machines can reach (the fake needs no key: anyone can use it)",
        "quiet_help": "do not print a line per request",
        "journal_help": "print the journal of a session of a running agentlab serve",
        "key_help": "the API key the client sent (default generic)",
        "url_help": "the server's base URL (default $ANTHROPIC_BASE_URL, else http://127.0.0.1:{port})",
        "journal_scenario_help": "the scenario the client chose with a /scenario/NAME base URL (read from --url too)",
        "listening": "agentlab: the fake Messages API is serving on {url}  (Ctrl-C to stop)",
        "export": "Point a client at it (any key works; a scenario name as the key picks that scenario):",
        "scenarios": "Scenarios: agentlab scenarios. Default for other keys: {default}. Separate state: weather:alice, weather:bob.",
        "journal_hint": "Journal: agentlab journal KEY --url {url}   (or curl '{url}/agentlab/journal?key=KEY&format=text')",
        "stopped": "agentlab serve stopped.",
        "unknown_scenario": "unknown scenario {name!r}; see agentlab scenarios",
        "unreachable": "cannot reach agentlab serve at {url}: {error}",
        "port_taken": "cannot listen on {host}:{port}: {error} (try --port 0 for a free port)",
        "refused_host": ("refusing to serve the fake on {host!r}, which other machines may reach: use 127.0.0.1, "
                         "or pass --allow-remote (allow_remote=True) if you mean it"),
        "no_session": "agentlab journal: no session for the key {key!r} yet: it has sent no request",
    },
    "es": {
        "serve_help": "sirve la Messages API simulada por HTTP en esta máquina, para cualquier lenguaje o framework",
        "host_help": "dirección donde escuchar (por defecto 127.0.0.1; otras necesitan --allow-remote)",
        "port_help": "puerto (por defecto {port}; 0 elige uno libre)",
        "scenario_help": "escenario de las claves que no nombran ninguno (por defecto generic: el modelo llama a tus herramientas)",
        "allow_remote_help": "permite una dirección accesible desde otras máquinas (el fake no pide clave: cualquiera podría usarlo)",
        "quiet_help": "no imprime una línea por petición",
        "journal_help": "imprime el diario de una sesión de un agentlab serve en marcha",
        "key_help": "la clave de API que envió el cliente (por defecto generic)",
        "url_help": "la URL base del servidor (por defecto $ANTHROPIC_BASE_URL, si no http://127.0.0.1:{port})",
        "journal_scenario_help": "el escenario que eligió el cliente con una URL base /scenario/NOMBRE (también se lee de --url)",
        "listening": "agentlab: la Messages API simulada está sirviendo en {url}  (Ctrl-C para parar)",
        "export": "Apunta un cliente a ella (vale cualquier clave; un nombre de escenario como clave elige ese escenario):",
        "scenarios": "Escenarios: agentlab scenarios. Para otras claves: {default}. Estado separado: weather:ana, weather:luis.",
        "journal_hint": "Diario: agentlab journal CLAVE --url {url}   (o curl '{url}/agentlab/journal?key=CLAVE&format=text')",
        "stopped": "agentlab serve se ha detenido.",
        "unknown_scenario": "escenario desconocido {name!r}; consulta agentlab scenarios",
        "unreachable": "no se puede conectar con agentlab serve en {url}: {error}",
        "port_taken": "no se puede escuchar en {host}:{port}: {error} (prueba --port 0 para un puerto libre)",
        "refused_host": ("no se sirve el fake en {host!r}, accesible desde otras máquinas: usa 127.0.0.1, o pasa "
                         "--allow-remote (allow_remote=True) si es lo que quieres"),
        "no_session": "agentlab journal: aún no hay sesión para la clave {key!r}: no ha enviado ninguna petición",
    },
}


def add_commands(sub: Any, lang: str, langs: list[str]) -> None:
    """Add the ``serve`` and ``journal`` subcommands to the CLI's subparsers."""
    from ._server import DEFAULT_PORT

    t = TEXT[lang]
    serve = sub.add_parser("serve", help=t["serve_help"], description=t["serve_help"])
    serve.add_argument("--host", default="127.0.0.1", help=t["host_help"])
    serve.add_argument("--port", type=_port, default=DEFAULT_PORT, help=t["port_help"].format(port=DEFAULT_PORT))
    serve.add_argument("--scenario", default="generic", metavar="NAME", help=t["scenario_help"])
    serve.add_argument("--allow-remote", action="store_true", help=t["allow_remote_help"])
    serve.add_argument("--quiet", action="store_true", help=t["quiet_help"])
    serve.add_argument("--lang", choices=langs, default=lang, help=argparse.SUPPRESS)
    journal = sub.add_parser("journal", help=t["journal_help"], description=t["journal_help"])
    journal.add_argument("key", nargs="?", default="generic", metavar="KEY", help=t["key_help"])
    journal.add_argument("--url", default=None, help=t["url_help"].format(port=DEFAULT_PORT))
    journal.add_argument("--scenario", default=None, metavar="NAME", help=t["journal_scenario_help"])
    journal.add_argument("--json", action="store_true")
    journal.add_argument("--lang", choices=langs, default=lang, help=argparse.SUPPRESS)


def _port(text: str) -> int:
    """A TCP port, 0 to 65535 (0: a free one)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port number") from None
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"{value} is not a port (0 to 65535)")
    return value


def _exchange_line(session: Any, exchange: Any) -> str:
    """One line per answered request: session, step, status, stop reason or error."""
    where = f"step {exchange.step}" if exchange.step is not None else exchange.endpoint
    if exchange.error is not None:
        rule = f" (rule {exchange.rule})" if exchange.rule and exchange.rule not in ("runaway",) else ""
        status = exchange.status or 400
        what = f"{status} {exchange.error.get('type')}{rule}: {str(exchange.error.get('message'))[:100]}"
    elif exchange.endpoint == "messages" and exchange.response:
        what = f"200 {exchange.response.get('stop_reason')}" + ("  (stream)" if exchange.stream else "")
    else:
        what = "200"
    return f"{session.name:<20} {where:<8} {what}  {exchange.request_id}"


def run_serve(args: argparse.Namespace) -> int:
    """``agentlab serve``: serve until Ctrl-C. Returns the exit status."""
    from ..fake._catalogue import SCENARIOS
    from ._app import FakeApp
    from ._server import serve_forever

    t = TEXT[args.lang]
    if args.scenario not in SCENARIOS:
        print(t["unknown_scenario"].format(name=args.scenario), file=sys.stderr)
        return 2

    def show(session: Any, exchange: Any) -> None:
        print(_exchange_line(session, exchange), flush=True)

    app = FakeApp(args.scenario, on_exchange=None if args.quiet else show)

    def listening(server: Any) -> None:
        url = server.base_url
        print(t["listening"].format(url=url))
        print(t["export"])
        print(f"  export ANTHROPIC_BASE_URL={url}")
        print(f"  export ANTHROPIC_API_KEY={args.scenario}")
        print(t["scenarios"].format(default=args.scenario))
        print(t["journal_hint"].format(url=url), flush=True)

    try:
        serve_forever(app, host=args.host, port=args.port, allow_remote=args.allow_remote, on_listening=listening)
    except ValueError:  # check_host refused the address
        print(t["refused_host"].format(host=args.host), file=sys.stderr)
        return 2
    except OSError as exc:
        print(t["port_taken"].format(host=args.host, port=args.port, error=exc.strerror or exc), file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        pass
    print(t["stopped"], flush=True)
    return 0


def run_journal(args: argparse.Namespace) -> int:
    """``agentlab journal``: print a session's journal from a running server. Returns the exit status."""
    import os

    import httpx2

    from ._server import DEFAULT_PORT

    from ._app import PREFIX

    t = TEXT[args.lang]
    url = (args.url or os.environ.get("ANTHROPIC_BASE_URL") or f"http://127.0.0.1:{DEFAULT_PORT}").rstrip("/")
    scenario = args.scenario
    base, found, rest = url.partition(PREFIX)  # a base URL with /scenario/NAME names the session's scenario
    if found:
        url, scenario = base, scenario or rest.split("/", 1)[0]
    params = {"key": args.key, "lang": args.lang}
    if scenario:
        params["scenario"] = scenario
    if not args.json:
        params["format"] = "text"
    try:
        # The server is on this machine: an HTTP_PROXY in the environment must not be asked for it.
        response = httpx2.get(f"{url}/agentlab/journal", params=params, timeout=10.0, trust_env=False)
    except httpx2.HTTPError as exc:
        print(t["unreachable"].format(url=url, error=exc), file=sys.stderr)
        return 2
    if response.status_code != 200:
        try:
            message = response.json()["error"]["message"]
        except (ValueError, KeyError, TypeError):  # not agentlab serve answering
            print(t["unreachable"].format(url=url, error=f"HTTP {response.status_code}: {response.text[:200]}"),
                  file=sys.stderr)
        else:
            no_session = response.status_code == 404 and "no session" in str(message)
            print(t["no_session"].format(key=args.key) if no_session else f"agentlab journal: {message}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(response.json(), indent=2, ensure_ascii=False))
    else:
        print(response.text)
    return 0
