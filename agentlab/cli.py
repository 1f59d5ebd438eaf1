"""The ``agentlab`` command line.

``agentlab scenarios [--lang es] [--json]`` lists the built-in scenarios of the fake. Commands for
the grader and the quizzes arrive with their parts.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Sequence

from ._i18n import language

TEXT = {
    "en": {
        "description": "agentlab: hands-on course on the agentic loop of Anthropic's Messages API.",
        "scenarios_help": "list the fake's built-in scenarios",
        "lang_help": "language of the output (en or es)",
        "json_help": "print JSON instead of a table",
        "header": "Built-in scenarios (use with agentlab.fake_client(NAME)):",
    },
    "es": {
        "description": "agentlab: curso práctico del bucle agéntico de la Messages API de Anthropic.",
        "scenarios_help": "lista los escenarios incluidos en el fake",
        "lang_help": "idioma de la salida (en o es)",
        "json_help": "imprime JSON en lugar de una tabla",
        "header": "Escenarios incluidos (úsalos con agentlab.fake_client(NOMBRE)):",
    },
}


def _parser(lang: str) -> argparse.ArgumentParser:
    t = TEXT[lang]
    parser = argparse.ArgumentParser(prog="agentlab", description=t["description"])
    sub = parser.add_subparsers(dest="command", required=True)
    scen = sub.add_parser("scenarios", help=t["scenarios_help"], description=t["scenarios_help"])
    scen.add_argument("--lang", choices=sorted(TEXT), default=lang, help=t["lang_help"])
    parser.add_argument("--lang", choices=sorted(TEXT), default=lang, help=t["lang_help"])
    scen.add_argument("--json", action="store_true", help=t["json_help"])
    return parser


def _scenarios(lang: str, as_json: bool) -> int:
    from .fake._catalogue import SCENARIOS

    rows = [{"name": s.name, "description": s.describe(lang), "model": s.model} for s in SCENARIOS.values()]
    if as_json:
        print(json.dumps(rows, indent=2, ensure_ascii=False))
        return 0
    print(TEXT[lang]["header"])
    width = max(len(r["name"]) for r in rows)
    for r in rows:
        print(f"  {r['name']:<{width}}  {r['description']}")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; returns the exit status (0 ok, 2 usage error)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    pre = argparse.ArgumentParser(add_help=False)
    pre.add_argument("--lang", choices=sorted(TEXT), default=None)
    known, _rest = pre.parse_known_args(argv)
    lang = language(known.lang)
    args = _parser(lang).parse_args(argv)
    if args.command == "scenarios":
        return _scenarios(args.lang, args.json)
    return 2  # pragma: no cover - argparse rejects unknown commands


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
