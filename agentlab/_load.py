"""Loading a learner's submission: the function to grade, from a ``.py`` file or an ``.ipynb``
notebook.

::

    from agentlab._load import LoadError, load_function
    loop = load_function("alice.ipynb")                 # agent_loop, else consume
    loop = load_function("bob.py", "my_loop")

A **notebook** is loaded by running its code cells in order in one fresh module, skipping:

- cells tagged ``check`` (:data:`agentlab.course.CHECK_TAG`): lesson 12's checks, which call
  ``agentlab.grade`` on the learner's functions and assert that they pass; and cells tagged
  ``show`` (:data:`SKIP_TAGS`), which only show the learner something;
- cells whose first line is a cell magic (``%%time``, ``%%bash``...);
- IPython lines (a line starting with ``%`` or ``!``, such as ``%pip install`` or ``!ls``), each
  replaced by ``pass`` at its indentation so the cell still compiles;
- markdown and raw cells.

``display`` (IPython's) is available to the cells as a function that prints its arguments.

Nothing here isolates the learner's code: its top level runs in the calling process (class
grading calls this in a worker process of its own, ``agentlab.grader._class``). The module
imports nothing from ``agentlab.grader`` or ``agentlab.fake``, so a sandboxed child that may
not see the cases or scenarios can use it to load a notebook too.

Cargar la entrega de un alumno: la función que se evalúa, de un ``.py`` o de un cuaderno.
"""

from __future__ import annotations

import importlib.util
import inspect
import json
import re
import sys
import traceback
import types
from pathlib import Path
from typing import Any, Callable

__all__ = ["DEFAULT_FUNCTIONS", "LoadError", "MESSAGES", "SKIP_TAGS", "SUFFIXES", "default_function", "load_function",
           "notebook_cells", "notebook_source", "sandbox_load_messages",
           "split_target"]

SUFFIXES = (".py", ".ipynb")
"""The submission files class grading looks for."""

DEFAULT_FUNCTIONS = ("agent_loop", "consume")
"""Without a name: ``agent_loop``, else (when there is none) an Agent SDK consumer ``consume``."""

MESSAGES: dict[str, dict[str, str]] = {
    "en": {
        "no_file": "no such file: {path}",
        "no_function": "{path} has no function {name!r}; functions found: {found}",
        "load_error": "could not load {path}: {error}",
        "not_json": "{path} is not a notebook: {error}",
        "unsupported": ("{path}: only .py files and .ipynb notebooks can be graded (and, one file at a time, "
                        "TypeScript/JavaScript loops: .ts, .mts, .cts, .js, .mjs, .cjs)"),
        "top_level_exit": "{path}: its top level raised {error}: a file to grade must only define functions",
    },
    "es": {
        "no_file": "no existe el archivo: {path}",
        "no_function": "{path} no tiene la función {name!r}; funciones encontradas: {found}",
        "load_error": "no se pudo cargar {path}: {error}",
        "not_json": "{path} no es un cuaderno: {error}",
        "unsupported": ("{path}: solo se pueden evaluar archivos .py y cuadernos .ipynb (y, de uno en uno, "
                        "bucles TypeScript/JavaScript: .ts, .mts, .cts, .js, .mjs, .cjs)"),
        "top_level_exit": "{path}: su nivel superior lanzó {error}: un archivo que se evalúa solo debe definir funciones",
    },
}
"""Learner-facing load errors, by language and key (the CLI prints them)."""

SKIP_TAGS = ("check", "show")
"""Cell tags whose cells are not part of a submission: ``check`` (``agentlab.course.CHECK_TAG``,
not imported, to keep this module free of nbformat: the lesson's graded checks) and ``show``
(cells that show the learner something, such as lesson 12's list of the grader's cases, and
may use what a sandboxed child may not import)."""
_MAGIC = re.compile(r"^(\s*)[%!]")


class LoadError(Exception):
    """A submission that cannot be loaded: no such file, a notebook that is not JSON, an error
    while running its top level (a ``SyntaxError`` names the file and line, a notebook's the cell
    too), or no function of that name (the message lists the functions found).

    ``str()`` is English; :meth:`message` gives either language.
    """

    def __init__(self, key: str, **params: Any) -> None:
        self.key = key
        self.params = params
        super().__init__(self.message("en"))

    def message(self, lang: str = "en") -> str:
        """The reason in ``lang`` (``"en"`` or ``"es"``)."""
        return MESSAGES[lang][self.key].format(**self.params)

    def __reduce__(self):  # picklable with its key and parameters (sent between processes)
        return (_rebuild, (self.key, self.params))


def _rebuild(key: str, params: dict[str, Any]) -> LoadError:
    return LoadError(key, **params)


def split_target(target: str) -> tuple[Path, str | None]:
    """``FILE[:FUNCTION]`` -> (path, function name or None). A path that exists as written is
    never split (a file name may hold a colon)."""
    if Path(target).exists() or ":" not in target:
        return Path(target), None
    path_text, _, name = target.rpartition(":")
    return Path(path_text), (name or None)


def _source(cell: dict[str, Any]) -> str:
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else str(source)


def notebook_cells(notebook: dict[str, Any]) -> list[tuple[int, str]]:
    """The code to run from a notebook (an nbformat 4 dict): ``(cell index, source)`` per code
    cell kept, IPython lines replaced by ``pass`` (see the module docstring for what is skipped)."""
    kept = []
    for index, cell in enumerate(notebook.get("cells", [])):
        if not isinstance(cell, dict) or cell.get("cell_type") != "code":
            continue
        if any(tag in SKIP_TAGS for tag in (cell.get("metadata", {}) or {}).get("tags", [])):
            continue
        source = _source(cell)
        if source.lstrip().startswith("%%"):
            continue
        lines = [(_MAGIC.match(line).group(1) + "pass") if _MAGIC.match(line) else line
                 for line in source.split("\n")]
        kept.append((index, "\n".join(lines)))
    return kept


def _display(*objects: Any, **_: Any) -> None:
    for obj in objects:
        print(obj)


def _found(module: types.ModuleType) -> str:
    names = [n for n, v in vars(module).items() if inspect.isfunction(v) and v.__module__ == module.__name__]
    return ", ".join(names) or "-"


def _where(exc: BaseException, fallback: str) -> str:
    if isinstance(exc, SyntaxError) and exc.lineno is not None:
        return f"{exc.filename or fallback}:{exc.lineno}"
    frame = traceback.extract_tb(exc.__traceback__)[-1] if exc.__traceback__ else None
    return f"{frame.filename}:{frame.lineno}" if frame else fallback


def load_function(path: str | Path, name: str | None = None) -> Callable[..., Any]:
    """The function ``name`` of a submission file, after running the file's top level (a notebook:
    its code cells, see :func:`notebook_cells`) in a fresh module ``agentlab_graded_<stem>``, with
    the file's folder first on ``sys.path`` meanwhile. The module is in ``sys.modules`` only while
    its top level runs (dataclasses look it up there): afterwards a function of it is pickled by
    value, not by a module name no other process could import.

    Args:
        path: a ``.py`` file or an ``.ipynb`` notebook.
        name: the function to return (default: ``agent_loop``, else ``consume`` when the file
            has a ``consume`` and no ``agent_loop``).

    Returns:
        The function (any callable the file binds to ``name``).

    Raises:
        LoadError: no such file; another suffix than ``.py``/``.ipynb`` (``unsupported``); a
            notebook that is not JSON; any ``Exception`` raised by the top level, ``SyntaxError`` included (the message names ``FILE:LINE``; for a notebook
            ``FILE [cell N]:LINE``, N counting every cell from 0); ``SystemExit`` raised by the
            top level (``sys.exit()``); no function ``name``. Other ``BaseException``
            (``KeyboardInterrupt``) propagate.
    """
    path = Path(path)
    if not path.is_file():
        raise LoadError("no_file", path=path)
    if path.suffix.lower() not in SUFFIXES:  # .cjs, .txt...: run as Python they gave an AttributeError
        raise LoadError("unsupported", path=path)
    module_name = f"agentlab_graded_{re.sub(r'[^0-9A-Za-z_]', '_', path.stem)}"
    module = types.ModuleType(module_name)
    module.__file__ = str(path)
    sys.modules[module_name] = module  # while its top level runs: dataclasses look their module up
    sys.path.insert(0, str(path.resolve().parent))
    try:
        if path.suffix == ".ipynb":
            try:
                notebook = json.loads(path.read_text(encoding="utf-8"))
                if not isinstance(notebook, dict) or not isinstance(notebook.get("cells", []), list):
                    raise ValueError("no list of cells")
            except (ValueError, UnicodeDecodeError) as exc:
                raise LoadError("not_json", path=path, error=exc) from None
            module.display = _display
            for index, source in notebook_cells(notebook):
                code = compile(source, f"{path} [cell {index}]", "exec")
                exec(code, module.__dict__)  # noqa: S102 - running the learner's notebook is the point
        else:
            spec = importlib.util.spec_from_file_location(module_name, path)
            if spec is None or spec.loader is None:
                code = compile(path.read_text(encoding="utf-8"), str(path), "exec")
                exec(code, module.__dict__)  # noqa: S102
            else:
                module.__spec__ = spec
                spec.loader.exec_module(module)
    except LoadError:
        raise
    except SystemExit as exc:  # sys.exit() at the top level: a load failure, not the end of the grader
        raise LoadError("top_level_exit", path=path, error=f"SystemExit({exc.code!r})") from None
    except Exception as exc:  # noqa: BLE001 - reported with the file and line
        raise LoadError("load_error", path=_where(exc, str(path)), error=f"{type(exc).__name__}: {exc}") from None
    finally:
        if sys.modules.get(module_name) is module:
            del sys.modules[module_name]
        try:
            sys.path.remove(str(path.resolve().parent))
        except ValueError:  # the learner's code took it off already
            pass
    if name is None:
        has_loop = callable(getattr(module, "agent_loop", None))
        name = "agent_loop" if has_loop or not callable(getattr(module, "consume", None)) else "consume"
    function = getattr(module, name, None)
    if not callable(function):
        raise LoadError("no_function", path=path, name=name, found=_found(module))
    return function


def notebook_source(path: str | Path) -> str:
    """A notebook's code cells (as :func:`notebook_cells` keeps them) as one Python source, each
    cell after a ``# cell N`` line: what the isolated grader runs for a notebook submission.

    Raises:
        LoadError: ``not_json`` when the file is not a JSON notebook, ``no_file`` when it is missing.
    """
    path = Path(path)
    if not path.is_file():
        raise LoadError("no_file", path=path)
    try:
        notebook = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise LoadError("not_json", path=path, error=exc) from None
    cells = notebook_cells(notebook if isinstance(notebook, dict) else {})
    return "\n\n".join(f"# cell {index}\n{source}" for index, source in cells) + "\n"


def default_function(code: str) -> str:
    """``agent_loop``, else ``consume`` when the source defines that and no ``agent_loop``."""
    def defines(name: str) -> bool:
        return re.search(rf"^(async\s+)?def\s+{name}\s*\(", code, re.M) is not None

    return "consume" if defines("consume") and not defines("agent_loop") else "agent_loop"


def sandbox_load_messages(exc: Any, shown: Any, name: str | None) -> dict[str, str]:
    """The learner-facing reason, by language, for a load error of the isolated grader
    (``agentlab.grader.LoadError``: ``kind``, ``found``, ``line``, ``texts``), naming the file as
    ``shown``."""
    out = {}
    for lang, words in MESSAGES.items():
        if getattr(exc, "kind", None) == "missing":
            found = ", ".join(getattr(exc, "found", None) or []) or "-"
            out[lang] = words["no_function"].format(path=shown, name=name or DEFAULT_FUNCTIONS[0], found=found)
        else:
            line = getattr(exc, "line", None)
            where = f"{shown}:{line}" if line else str(shown)
            out[lang] = words["load_error"].format(path=where, error=(getattr(exc, "texts", None) or {}).get(lang, str(exc)))
    return out
