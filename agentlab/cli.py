"""The ``agentlab`` command line.

- ``agentlab scenarios [--lang es] [--json] [--agent-sdk]`` lists the built-in scenarios of the fake
  (``--agent-sdk``: the fake CLI's, for ``agentlab.agent_sdk.fake_transport``);
- ``agentlab grade FILE[:FUNCTION] [--json] [--lang es] [--only CASE,...]`` grades a loop (a ``.py``
  file or an ``.ipynb`` notebook) and exits 0 when every case passes, 1 otherwise, 2 when the file
  or function cannot be loaded; ``agentlab grade DIR|FILE... [--csv F] [--html F] [--feedback-dir D]
  [--gradescope F] [--function NAME] [--jobs N]`` grades a class in parallel
  (``agentlab.grader._class``) and exits 0 only when every submission loaded and passed, else 1;
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
        "grade_help": ("grade an agent loop, agent_loop(client, prompt, tools, run_tool) -> str, an Agent SDK "
                       "consumer, async def consume(messages) -> str, or a TypeScript loop, export async function "
                       "agentLoop(client, prompt, tools, runTool): Promise<string>"),
        "target_help": ("a .py file or .ipynb notebook, optionally with :FUNCTION (default agent_loop, else consume), "
                        "a .ts, .mts, .cts, .js, .mjs or .cjs file, optionally with :EXPORT (default agentLoop; needs Node.js and "
                        "npm ci), or a folder of them; several (or a folder) grade a class"),
        "function_help": "the function to grade in every file that does not name one (default agent_loop, else consume)",
        "csv_help": "write the class gradebook as CSV to FILE",
        "html_help": "write the class report (table and chart of the most common diagnoses) as HTML to FILE",
        "feedback_help": "write one Markdown feedback file per learner, in the learner's language, to DIR",
        "gradescope_help": ("write Gradescope's results.json to FILE (several submissions: one LEARNER.json each in "
                            "the folder FILE)"),
        "jobs_help": "submissions graded at a time (default: the machine's cores)",
        "no_submissions": "no .py or .ipynb files found in: {targets}",
        "only_help": "comma-separated case names to run (default: all)",
        "grade_time_limit_help": "seconds each case may run before the loop is stopped (default 10)",
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
        "grade_help": ("evalúa un bucle de agente, agent_loop(client, prompt, tools, run_tool) -> str, un "
                       "consumidor del Agent SDK, async def consume(messages) -> str, o un bucle en TypeScript, "
                       "export async function agentLoop(client, prompt, tools, runTool): Promise<string>"),
        "target_help": ("un archivo .py o un cuaderno .ipynb, opcionalmente con :FUNCIÓN (por defecto agent_loop, si no "
                        "consume), un archivo .ts, .mts, .cts, .js, .mjs o .cjs, opcionalmente con :EXPORT (por defecto agentLoop; "
                        "necesita Node.js y npm ci), o una carpeta de ellos; varios (o una carpeta) evalúan una clase"),
        "function_help": "la función que se evalúa en cada archivo que no nombre una (por defecto agent_loop, si no consume)",
        "csv_help": "escribe el libro de notas de la clase en CSV en FILE",
        "html_help": "escribe el informe de la clase (tabla y gráfico de los diagnósticos más frecuentes) en HTML en FILE",
        "feedback_help": "escribe una devolución en Markdown por alumno, en su idioma, en DIR",
        "gradescope_help": ("escribe el results.json de Gradescope en FILE (varias entregas: un LEARNER.json cada una "
                            "en la carpeta FILE)"),
        "jobs_help": "entregas evaluadas a la vez (por defecto: los núcleos de la máquina)",
        "no_submissions": "no se encontraron archivos .py ni .ipynb en: {targets}",
        "only_help": "nombres de casos separados por comas (por defecto: todos)",
        "grade_time_limit_help": "segundos que puede durar cada caso antes de detener el bucle (por defecto 10)",
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
    grade.add_argument("target", nargs="+", metavar="FILE[:FUNCTION]|DIR", help=t["target_help"])
    grade.add_argument("--function", default=None, metavar="NAME", help=t["function_help"])
    grade.add_argument("--csv", default=None, metavar="FILE", help=t["csv_help"])
    grade.add_argument("--html", default=None, metavar="FILE", help=t["html_help"])
    grade.add_argument("--feedback-dir", default=None, metavar="DIR", help=t["feedback_help"])
    grade.add_argument("--gradescope", default=None, metavar="FILE", help=t["gradescope_help"])
    grade.add_argument("--jobs", type=_whole, default=None, metavar="N", help=t["jobs_help"])
    grade.add_argument("--lang", choices=sorted(TEXT), default=lang, help=t["lang_help"])
    grade.add_argument("--json", action="store_true", help=t["json_help"])
    grade.add_argument("--only", default=None, help=t["only_help"])
    grade.add_argument("--time-limit", type=_seconds, default=None, metavar="SECONDS", help=t["grade_time_limit_help"])
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


def _seconds(text: str) -> float:
    """argparse type of ``grade --time-limit``: a positive, finite number of seconds."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not 0 < value < float("inf"):
        raise argparse.ArgumentTypeError(f"{text} is not a positive number of seconds")
    return value


def load_loop(target: str, lang: str = "en"):
    """The function named by ``FILE[:FUNCTION]`` (default ``agent_loop``, or ``consume`` when the file
    has no ``agent_loop``), from a ``.py`` file or an ``.ipynb`` notebook
    (``agentlab._load.load_function``).

    Raises:
        SystemExit: code 2, with a message naming the file (and line) on stderr, when it cannot be loaded.
    """
    from ._load import LoadError, load_function, split_target

    path, name = split_target(target)
    try:
        return load_function(path, name)
    except LoadError as exc:
        print(exc.message(lang), file=sys.stderr)
        raise SystemExit(2) from None


def _grade(target: str, lang: str, as_json: bool, only: str | None, time_limit: float | None = None,
           function: str | None = None) -> int:
    import contextlib
    from pathlib import Path

    from ._load import LoadError as FileError
    from ._load import default_function, notebook_source, sandbox_load_messages, split_target
    from .grader import LoadError, TypeScriptError, grade_file, grade_source, grade_typescript, is_typescript_target

    if function and ":" not in target.replace("\\", "/").rsplit("/", 1)[-1]:
        target = f"{target}:{function}"
    cases = [n.strip() for n in only.split(",") if n.strip()] if only else None
    if is_typescript_target(target):
        try:
            with contextlib.redirect_stdout(sys.stderr):  # the loop's console.log, as below
                report = grade_typescript(target, cases, lang=lang, time_limit=time_limit)
        except TypeScriptError as exc:  # no Node.js or npm packages, a file that does not load
            print(exc.message(lang), file=sys.stderr)
            return 2
    else:
        path, name = split_target(target)
        # The file's top level and the loop run in the isolated grader's child process; what they
        # print is captured there and echoed to stderr, so --json output stays valid JSON.
        try:
            with contextlib.redirect_stdout(sys.stderr):
                if not path.is_file():
                    raise FileError("no_file", path=path)
                if path.suffix == ".ipynb":
                    code = notebook_source(path)
                    # A <name> file name: tracebacks never open the notebook (the sandbox refuses files
                    # outside its scratch folder); the "# cell N" lines in the source say where.
                    report = grade_source(code, name or default_function(code), cases, lang=lang,
                                          time_limit=time_limit, filename=f"<{path.name}>")
                elif path.suffix == ".py":
                    report = grade_file(path, name, cases, lang=lang, time_limit=time_limit)
                else:
                    raise FileError("unsupported", path=path)
        except FileError as exc:
            print(exc.message(lang), file=sys.stderr)
            return 2
        except LoadError as exc:
            print(sandbox_load_messages(exc, path, name)[lang], file=sys.stderr)
            return 2
    if as_json:
        print(json.dumps(report.to_dict(), indent=2, ensure_ascii=False))
    else:
        report.print()
    return 0 if report.passed else 1


def _grade_class(args: argparse.Namespace) -> int:
    """``agentlab grade`` on several files or a folder: grade in parallel, print the class table
    (or JSON), write the requested files. 0 when every submission loaded and passed, 1 otherwise,
    2 when nothing was found or ``--only`` names an unknown case."""
    from pathlib import Path

    from .grader import CASE_NAMES, SDK_CASE_NAMES, get_case
    from .grader._class import find_submissions, grade_class
    from .grader._class_report import ClassReport

    lang = args.lang
    t = TEXT[lang]
    only = [n.strip() for n in args.only.split(",") if n.strip()] if args.only else None
    unknown = [n for n in only or [] if n not in CASE_NAMES and n not in SDK_CASE_NAMES]
    if unknown:
        get_case(unknown[0])  # raises KeyError naming the cases, reported by main() with exit 2
    submissions = find_submissions(args.target, args.function)
    if not submissions:
        print(t["no_submissions"].format(targets=", ".join(args.target)), file=sys.stderr)
        return 2
    with _progress(len(submissions)) as advance:
        graded = grade_class(submissions, only, lang=lang, time_limit=args.time_limit, jobs=args.jobs,
                             on_done=advance)
    report = ClassReport(graded, lang)
    if args.json:
        print(json.dumps(report.to_dict(), indent=2, ensure_ascii=False))
    else:
        report.print()
    written: list[Path] = []
    try:
        for option, write in ((args.csv, lambda p: p.write_text(report.to_csv(), encoding="utf-8")),
                              (args.html, lambda p: p.write_text(report.to_html(), encoding="utf-8")),
                              (args.feedback_dir, report.write_feedback),
                              (args.gradescope, lambda p: report.write_gradescope(p, only or CASE_NAMES))):
            if option:
                path = Path(option)
                path.parent.mkdir(parents=True, exist_ok=True)
                write(path)
                written.append(path)
    except OSError as exc:
        print(f"{exc.filename}: {exc.strerror}", file=sys.stderr)
        return 2
    for path in written:
        print(t["wrote"].format(path=path), file=sys.stderr)
    return 0 if report.passed else 1


class _progress:
    """A progress bar on stderr while a class is graded; nothing when stderr is not a terminal.
    Used as ``with _progress(total) as advance: ... advance(graded, done, total)``."""

    def __init__(self, total: int) -> None:
        self.total = total
        self.bar = None

    def __enter__(self):
        if not sys.stderr.isatty():
            return lambda *_: None
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

        self.bar = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                            console=Console(stderr=True), transient=True)
        self.bar.start()
        task = self.bar.add_task("agentlab grade", total=self.total)
        return lambda graded, done, total: self.bar.update(task, completed=done, description=graded.learner)

    def __exit__(self, *exc) -> None:
        if self.bar is not None:
            self.bar.stop()


def _class_mode(args: argparse.Namespace) -> bool:
    """Several targets, a folder, or a class output asked for: grade as a class."""
    from pathlib import Path

    from ._load import split_target

    if len(args.target) > 1 or any((args.csv, args.html, args.feedback_dir, args.gradescope)):
        return True
    return split_target(args.target[0])[0].is_dir()


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
            if _class_mode(args):
                return _grade_class(args)
            return _grade(args.target[0], args.lang, args.json, args.only, args.time_limit, args.function)
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
