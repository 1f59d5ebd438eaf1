"""The ``agentlab`` command line.

- ``agentlab scenarios [--lang es] [--json] [--agent-sdk]`` lists the built-in scenarios of the fake
  (``--agent-sdk``: the fake CLI's, for ``agentlab.agent_sdk.fake_transport``);
- ``agentlab grade FILE[:FUNCTION] [--json] [--lang es] [--only CASE,...]`` grades a loop and
  exits 0 when every case passes, 1 otherwise, 2 when the file or function cannot be loaded;
- ``agentlab quiz [--topic T] [--lang es] [--exam] [--n N] [--seed S] [--user NAME]`` runs a quiz
  in the terminal, reading the answers from stdin (``agentlab.quiz.terminal``); with
  ``--export handout|key [--format md|html] [--output FILE]`` it writes a printable handout or
  answer key instead. Exits 0, or 2 for an unknown topic or a broken bank.
- ``agentlab course student-copy DIR [--force] [--source NOTEBOOKS]`` writes the learner copy of the
  course (the notebooks with the exercise solutions replaced by ``raise NotImplementedError``)
  and lists what it wrote; exits 2 when DIR is not empty (without ``--force``) or a notebook's
  solution markers are broken. ``agentlab course timings [--json]`` prints the suggested workshop
  timings (``agentlab.course``).
- ``agentlab serve [--port P] [--scenario NAME]`` serves the fake over HTTP until Ctrl-C, and
  ``agentlab journal [KEY] [--url URL]`` prints a session's journal from it (``agentlab.serve._cli``).
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
        "agent_sdk_help": "list the Agent SDK scenarios instead (for agentlab.agent_sdk.fake_transport)",
        "agent_sdk_header": "Agent SDK scenarios (use with agentlab.agent_sdk.fake_transport(NAME)):",
        "grade_help": ("grade an agent loop, agent_loop(client, prompt, tools, run_tool) -> str, or an Agent SDK "
                       "consumer, async def consume(messages) -> str"),
        "target_help": "a Python file, optionally with :FUNCTION (default agent_loop, else consume)",
        "only_help": "comma-separated case names to run (default: all)",
        "grade_time_limit_help": "seconds each case may run before the loop is stopped (default 10)",
        "no_file": "no such file: {path}",
        "no_function": "{path} has no function {name!r}; functions found: {found}",
        "load_error": "could not load {path}: {error}",
        "quiz_help": "quiz yourself in the terminal, or export a handout or answer key",
        "topic_help": "topic id, or several separated by commas (default: every topic)",
        "exam_help": "exam mode: questions by topic weights, a pass mark, score by topic and a final review",
        "n_help": "number of questions (default: 10 in practice, 20 in an exam)",
        "seed_help": "the same seed gives the same questions in the same order (default: random)",
        "user_help": "whose progress to record (default: your OS user name)",
        "time_limit_help": "exam time limit in minutes (default: none)",
        "pass_mark_help": "exam pass mark, a fraction between 0 and 1 (default: 0.7)",
        "review_help": "practise the questions due for review (spaced repetition of your mistakes)",
        "export_help": "write a printable handout (questions) or answer key instead of quizzing",
        "format_help": "export format: md (Markdown) or html (default: md)",
        "output_help": "export to this file instead of stdout",
        "export_only": "{flags} only make sense with --export",
        "wrote": "wrote {path}",
        "bank_error": "the question bank has problems:",
        "course_help": "the course: a learner copy without the solutions, suggested workshop timings",
        "student_copy_help": "copy the notebooks to DIR with the exercise solutions replaced by raise NotImplementedError",
        "dest_help": "the folder to write (must be empty unless --force)",
        "force_help": "write into DIR even if it is not empty (files with the same name are overwritten)",
        "source_help": "the instructor's notebooks folder (default: the course's notebooks/)",
        "timings_help": "print the suggested workshop timings (minutes per lesson)",
        "copied": "copied  {path}",
        "stripped": "wrote   {path}  ({n} solution(s) replaced by raise NotImplementedError)",
        "copy_summary": "{files} files in {dest}: {notebooks} notebooks, {solutions} solutions removed. Open them with: jupyter lab {dest}",
    },
    "es": {
        "description": "agentlab: curso práctico del bucle agéntico de la Messages API de Anthropic.",
        "scenarios_help": "lista los escenarios incluidos en el fake",
        "lang_help": "idioma de la salida (en o es)",
        "json_help": "imprime JSON en lugar de una tabla",
        "header": "Escenarios incluidos (úsalos con agentlab.fake_client(NOMBRE)):",
        "agent_sdk_help": "lista en su lugar los escenarios del Agent SDK (para agentlab.agent_sdk.fake_transport)",
        "agent_sdk_header": "Escenarios del Agent SDK (úsalos con agentlab.agent_sdk.fake_transport(NOMBRE)):",
        "grade_help": ("evalúa un bucle de agente, agent_loop(client, prompt, tools, run_tool) -> str, o un "
                       "consumidor del Agent SDK, async def consume(messages) -> str"),
        "target_help": "un archivo Python, opcionalmente con :FUNCIÓN (por defecto agent_loop, si no consume)",
        "only_help": "nombres de casos separados por comas (por defecto: todos)",
        "grade_time_limit_help": "segundos que puede durar cada caso antes de detener el bucle (por defecto 10)",
        "no_file": "no existe el archivo: {path}",
        "no_function": "{path} no tiene la función {name!r}; funciones encontradas: {found}",
        "load_error": "no se pudo cargar {path}: {error}",
        "quiz_help": "ponte a prueba en la terminal, o exporta un cuestionario o sus soluciones",
        "topic_help": "id del tema, o varios separados por comas (por defecto: todos)",
        "exam_help": "modo examen: preguntas según el peso de cada tema, nota de corte, puntuación por tema y repaso final",
        "n_help": "número de preguntas (por defecto: 10 en práctica, 20 en examen)",
        "seed_help": "la misma semilla da las mismas preguntas en el mismo orden (por defecto: al azar)",
        "user_help": "de quién es el progreso que se guarda (por defecto: tu usuario del sistema)",
        "time_limit_help": "tiempo límite del examen en minutos (por defecto: sin límite)",
        "pass_mark_help": "nota de corte del examen, una fracción entre 0 y 1 (por defecto: 0.7)",
        "review_help": "practica las preguntas pendientes de repaso (repetición espaciada de tus errores)",
        "export_help": "escribe un cuestionario imprimible (preguntas) o sus soluciones en lugar de preguntar",
        "format_help": "formato de exportación: md (Markdown) o html (por defecto: md)",
        "output_help": "exporta a este archivo en lugar de a la salida estándar",
        "export_only": "{flags} solo tiene sentido con --export",
        "wrote": "escrito {path}",
        "bank_error": "el banco de preguntas tiene problemas:",
        "course_help": "el curso: una copia para el alumno sin las soluciones, tiempos sugeridos para un taller",
        "student_copy_help": "copia los cuadernos a DIR con las soluciones de los ejercicios cambiadas por raise NotImplementedError",
        "dest_help": "la carpeta donde escribir (debe estar vacía salvo con --force)",
        "force_help": "escribe en DIR aunque no esté vacía (se sobrescriben los archivos con el mismo nombre)",
        "source_help": "la carpeta de cuadernos del instructor (por defecto: notebooks/ del curso)",
        "timings_help": "muestra los tiempos sugeridos para un taller (minutos por lección)",
        "copied": "copiado {path}",
        "stripped": "escrito {path}  ({n} solución(es) cambiadas por raise NotImplementedError)",
        "copy_summary": "{files} archivos en {dest}: {notebooks} cuadernos, {solutions} soluciones quitadas. Ábrelos con: jupyter lab {dest}",
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
    scen.add_argument("--agent-sdk", action="store_true", help=t["agent_sdk_help"])
    grade = sub.add_parser("grade", help=t["grade_help"], description=t["grade_help"])
    grade.add_argument("target", metavar="FILE[:FUNCTION]", help=t["target_help"])
    grade.add_argument("--lang", choices=sorted(TEXT), default=lang, help=t["lang_help"])
    grade.add_argument("--json", action="store_true", help=t["json_help"])
    grade.add_argument("--only", default=None, help=t["only_help"])
    grade.add_argument("--time-limit", type=float, default=None, metavar="SECONDS", help=t["grade_time_limit_help"])
    quiz = sub.add_parser("quiz", help=t["quiz_help"], description=t["quiz_help"])
    quiz.add_argument("--topic", default=None, help=t["topic_help"])
    quiz.add_argument("--lang", choices=sorted(TEXT), default=lang, help=t["lang_help"])
    quiz.add_argument("--exam", action="store_true", help=t["exam_help"])
    quiz.add_argument("--n", type=_whole, default=None, metavar="N", help=t["n_help"])
    quiz.add_argument("--seed", type=int, default=None, metavar="S", help=t["seed_help"])
    quiz.add_argument("--user", default=None, metavar="NAME", help=t["user_help"])
    quiz.add_argument("--time-limit", type=float, default=None, metavar="MIN", help=t["time_limit_help"])
    quiz.add_argument("--pass-mark", type=float, default=0.7, metavar="F", help=t["pass_mark_help"])
    quiz.add_argument("--review", action="store_true", help=t["review_help"])
    quiz.add_argument("--export", choices=("handout", "key"), default=None, help=t["export_help"])
    quiz.add_argument("--format", choices=("md", "html"), default=None, help=t["format_help"])
    quiz.add_argument("--output", default=None, metavar="FILE", help=t["output_help"])
    course = sub.add_parser("course", help=t["course_help"], description=t["course_help"])
    course.add_argument("--lang", choices=sorted(TEXT), default=lang, help=t["lang_help"])
    course_sub = course.add_subparsers(dest="course_command", required=True)
    copy = course_sub.add_parser("student-copy", help=t["student_copy_help"], description=t["student_copy_help"])
    copy.add_argument("dest", metavar="DIR", help=t["dest_help"])
    copy.add_argument("--force", action="store_true", help=t["force_help"])
    copy.add_argument("--source", default=None, metavar="NOTEBOOKS", help=t["source_help"])
    copy.add_argument("--lang", choices=sorted(TEXT), default=lang, help=t["lang_help"])
    timings = course_sub.add_parser("timings", help=t["timings_help"], description=t["timings_help"])
    timings.add_argument("--lang", choices=sorted(TEXT), default=lang, help=t["lang_help"])
    timings.add_argument("--json", action="store_true", help=t["json_help"])
    from .serve._cli import add_commands

    add_commands(sub, lang, sorted(TEXT))
    return parser


def _whole(text: str) -> int:
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"{value} < 0")
    return value


def load_loop(target: str, lang: str = "en"):
    """The function named by ``FILE[:FUNCTION]`` (default ``agent_loop``, or ``consume`` when the file
    has no ``agent_loop``), imported from the file.

    Raises:
        SystemExit: code 2, with a message naming the file, when it cannot be loaded.
    """
    import importlib.util
    import inspect
    import traceback
    from pathlib import Path

    t = TEXT[lang]
    path_text, _, name = target.partition(":") if not Path(target).exists() else (target, "", "")
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
    if not name:  # the default: agent_loop, else an Agent SDK consumer called consume
        name = "agent_loop" if callable(getattr(module, "agent_loop", None)) or \
            not callable(getattr(module, "consume", None)) else "consume"
    loop = getattr(module, name, None)
    if not callable(loop):
        found = ", ".join(n for n, v in vars(module).items() if inspect.isfunction(v) and v.__module__ == module_name)
        print(t["no_function"].format(path=path, name=name, found=found or "-"), file=sys.stderr)
        raise SystemExit(2)
    return loop


def _grade(target: str, lang: str, as_json: bool, only: str | None, time_limit: float | None = None) -> int:
    import contextlib
    from pathlib import Path

    from .grader import LoadError, grade_file

    t = TEXT[lang]
    path_text, _, name = target.partition(":") if not Path(target).exists() else (target, "", "")
    path = Path(path_text)
    if not path.is_file():
        print(t["no_file"].format(path=path), file=sys.stderr)
        return 2
    # The file's top level and the loop run in the isolated grader's child process; what they
    # print is captured there and echoed to stderr, so --json output stays valid JSON.
    try:
        with contextlib.redirect_stdout(sys.stderr):
            report = grade_file(path, name or None, [n.strip() for n in only.split(",") if n.strip()] if only else None,
                                lang=lang, time_limit=time_limit)
    except LoadError as exc:
        if exc.kind == "missing":
            print(t["no_function"].format(path=path, name=name or "agent_loop", found=", ".join(exc.found) or "-"),
                  file=sys.stderr)
        else:
            where = f"{path}:{exc.line}" if exc.line else str(path)
            print(t["load_error"].format(path=where, error=exc.texts.get(lang, str(exc))), file=sys.stderr)
        return 2
    if as_json:
        print(json.dumps(report.to_dict(), indent=2, ensure_ascii=False))
    else:
        report.print()
    return 0 if report.passed else 1


def _scenarios(lang: str, as_json: bool, *, agent_sdk: bool = False) -> int:
    if agent_sdk:  # the Agent SDK scenarios are plain data too: listing them needs no claude-agent-sdk
        from .agent_sdk._scenarios import AGENT_SCENARIOS as SCENARIOS
    else:
        from .fake._catalogue import SCENARIOS

    rows = [{"name": s.name, "description": s.describe(lang), "model": s.model} for s in SCENARIOS.values()]
    if as_json:
        print(json.dumps(rows, indent=2, ensure_ascii=False))
        return 0
    print(TEXT[lang]["agent_sdk_header" if agent_sdk else "header"])
    width = max(len(r["name"]) for r in rows)
    for r in rows:
        print(f"  {r['name']:<{width}}  {r['description']}")
    return 0


def _quiz(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    lang = args.lang
    t = TEXT[lang]
    if args.export is None:
        stray = [flag for flag, value in (("--format", args.format), ("--output", args.output)) if value is not None]
        if stray:
            parser.error(t["export_only"].format(flags=", ".join(stray)))
    from .quiz import BankError, export, load_bank

    try:
        bank = load_bank()
    except (BankError, FileNotFoundError) as exc:
        print(f"{t['bank_error']}\n{exc}", file=sys.stderr)
        return 2
    if args.export is not None:
        from .quiz._ui import parse_topics

        try:
            text = export(bank, kind=args.export, lang=lang, fmt=args.format or "md", topic=parse_topics(args.topic))
        except ValueError as exc:
            print(exc, file=sys.stderr)
            return 2
        if args.output is None:
            sys.stdout.write(text)
            return 0
        from pathlib import Path

        path = Path(args.output)
        try:
            path.write_text(text, encoding="utf-8")
        except OSError as exc:
            print(f"{path}: {exc}", file=sys.stderr)
            return 2
        print(t["wrote"].format(path=path), file=sys.stderr)
        return 0
    import random

    from .quiz.terminal import open_quiz

    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(10_000)
    try:
        quiz = open_quiz(topic=args.topic, lang=lang, exam=args.exam, n=args.n, seed=seed, user=args.user, bank=bank,
                         time_limit=None if args.time_limit is None else args.time_limit * 60,
                         pass_mark=args.pass_mark, review=args.review)
    except ValueError as exc:  # an unknown topic; n, time limit or pass mark out of range
        print(exc, file=sys.stderr)
        return 2
    try:
        quiz.run()
    finally:
        quiz.close()
    return 0


def _course(args: argparse.Namespace) -> int:
    from . import course

    lang = args.lang
    t = TEXT[lang]
    if args.course_command == "timings":
        table = course.timings(lang)
        if args.json:
            print(json.dumps({"lessons": table.rows(), "total_minutes": table.total}, indent=2, ensure_ascii=False))
        else:
            print(table.to_text())
        return 0
    try:
        written = course.student_copy(args.dest, source=args.source, force=args.force)
    except course.CourseError as exc:
        print(exc.message(lang), file=sys.stderr)
        return 2
    for item in written:
        if item.solutions:
            print(t["stripped"].format(path=item.path, n=item.solutions))
        else:
            print(t["copied"].format(path=item.path))
    print(t["copy_summary"].format(files=len(written), dest=args.dest,
                                   notebooks=sum(1 for w in written if w.path.suffix == ".ipynb"),
                                   solutions=sum(w.solutions for w in written)))
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; returns the exit status (0 ok, 2 usage error)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    pre = argparse.ArgumentParser(add_help=False)
    pre.add_argument("--lang", choices=sorted(TEXT), default=None)
    known, _rest = pre.parse_known_args(argv)
    lang = language(known.lang)
    parser = _parser(lang)
    args = parser.parse_args(argv)
    if args.command == "scenarios":
        return _scenarios(args.lang, args.json, agent_sdk=args.agent_sdk)
    if args.command == "grade":
        try:
            return _grade(args.target, args.lang, args.json, args.only, args.time_limit)
        except (KeyError, TypeError) as exc:  # unknown case name in --only; a function of the wrong shape
            print(exc.args[0], file=sys.stderr)
            return 2
    if args.command == "quiz":
        return _quiz(args, parser)
    if args.command == "course":
        return _course(args)
    if args.command in ("serve", "journal"):
        from .serve._cli import run_journal, run_serve

        return run_serve(args) if args.command == "serve" else run_journal(args)
    return 2  # pragma: no cover - argparse rejects unknown commands


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
