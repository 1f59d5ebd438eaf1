"""The ``agentlab`` command line.

- ``agentlab scenarios [--lang es] [--json]`` lists the built-in scenarios of the fake;
- ``agentlab grade FILE[:FUNCTION] [--json] [--lang es] [--only CASE,...]`` grades a loop and
  exits 0 when every case passes, 1 otherwise, 2 when the file or function cannot be loaded.
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
        "grade_help": "grade an agent loop: agent_loop(client, prompt, tools, run_tool) -> str",
        "target_help": "a Python file, optionally with :FUNCTION (default agent_loop)",
        "only_help": "comma-separated case names to run (default: all)",
        "no_file": "no such file: {path}",
        "no_function": "{path} has no function {name!r}; functions found: {found}",
        "load_error": "could not load {path}: {error}",
    },
    "es": {
        "description": "agentlab: curso práctico del bucle agéntico de la Messages API de Anthropic.",
        "scenarios_help": "lista los escenarios incluidos en el fake",
        "lang_help": "idioma de la salida (en o es)",
        "json_help": "imprime JSON en lugar de una tabla",
        "header": "Escenarios incluidos (úsalos con agentlab.fake_client(NOMBRE)):",
        "grade_help": "evalúa un bucle de agente: agent_loop(client, prompt, tools, run_tool) -> str",
        "target_help": "un archivo Python, opcionalmente con :FUNCIÓN (por defecto agent_loop)",
        "only_help": "nombres de casos separados por comas (por defecto: todos)",
        "no_file": "no existe el archivo: {path}",
        "no_function": "{path} no tiene la función {name!r}; funciones encontradas: {found}",
        "load_error": "no se pudo cargar {path}: {error}",
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
    grade = sub.add_parser("grade", help=t["grade_help"], description=t["grade_help"])
    grade.add_argument("target", metavar="FILE[:FUNCTION]", help=t["target_help"])
    grade.add_argument("--lang", choices=sorted(TEXT), default=lang, help=t["lang_help"])
    grade.add_argument("--json", action="store_true", help=t["json_help"])
    grade.add_argument("--only", default=None, help=t["only_help"])
    return parser


def load_loop(target: str, lang: str = "en"):
    """The function named by ``FILE[:FUNCTION]`` (default ``agent_loop``), imported from the file.

    Raises:
        SystemExit: code 2, with a message naming the file, when it cannot be loaded.
    """
    import importlib.util
    import inspect
    import traceback
    from pathlib import Path

    t = TEXT[lang]
    path_text, _, name = target.partition(":") if not Path(target).exists() else (target, "", "")
    name = name or "agent_loop"
    path = Path(path_text)
    if not path.is_file():
        print(t["no_file"].format(path=path), file=sys.stderr)
        raise SystemExit(2)
    module_name = f"agentlab_graded_{path.stem}"
    spec = importlib.util.spec_from_file_location(module_name, path)
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, str(path.resolve().parent))
    try:
        spec.loader.exec_module(module)
    except Exception as exc:  # noqa: BLE001 - reported with the file and line
        frame = traceback.extract_tb(exc.__traceback__)[-1] if exc.__traceback__ else None
        where = f"{frame.filename}:{frame.lineno}" if frame else str(path)
        if isinstance(exc, SyntaxError):
            where = f"{path}:{exc.lineno}"
        print(t["load_error"].format(path=where, error=f"{type(exc).__name__}: {exc}"), file=sys.stderr)
        raise SystemExit(2) from None
    finally:
        sys.path.pop(0)
    loop = getattr(module, name, None)
    if not callable(loop):
        found = ", ".join(n for n, v in vars(module).items() if inspect.isfunction(v) and v.__module__ == module_name)
        print(t["no_function"].format(path=path, name=name, found=found or "-"), file=sys.stderr)
        raise SystemExit(2)
    return loop


def _grade(target: str, lang: str, as_json: bool, only: str | None) -> int:
    from .grader import grade

    loop = load_loop(target, lang)
    report = grade(loop, only=[n.strip() for n in only.split(",") if n.strip()] if only else None, lang=lang)
    if as_json:
        print(json.dumps(report.to_dict(), indent=2, ensure_ascii=False))
    else:
        report.print()
    return 0 if report.passed else 1


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
    if args.command == "grade":
        try:
            return _grade(args.target, args.lang, args.json, args.only)
        except KeyError as exc:  # unknown case name in --only
            print(exc.args[0], file=sys.stderr)
            return 2
    return 2  # pragma: no cover - argparse rejects unknown commands


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
