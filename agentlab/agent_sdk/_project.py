"""An in-memory project and the built-in tools that work on it: Read, Edit, Write, Bash, Grep, Glob.

The Agent SDK lessons need a file tree the agent can read, change and test, and it must never be
the learner's real disk. A :class:`Project` is a dict of paths to text under a virtual working
directory (``/project``), plus a simulated test command whose verdict depends on the files' current
contents: when the agent fixes the bug, ``npm test`` really passes (seed 004's example: run the
tests, read two files, fix one, run the tests again).

The tools imitate Claude Code's built-ins closely enough for the loop to be faithful (input
names, the read-before-edit rule, the "String to replace not found" and "Found N matches" errors,
``cat -n`` numbered reads, ``files_with_matches`` grep); their exact output formats are
approximations and are marked so. Every tool returns a :class:`ToolOutcome`; none raises for bad
input from the model: bad input becomes an ``is_error`` result, as in Claude Code.
"""

from __future__ import annotations

import difflib
import fnmatch
import posixpath
import re
import shlex
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

__all__ = ["BUILTIN_TOOLS", "EDIT_TOOLS", "READ_ONLY_TOOLS", "TOOL_DEFINITIONS", "Project", "ToolOutcome"]

CWD = "/project"
"""The virtual working directory every project lives under (never the real disk)."""

BUILTIN_TOOLS = ("Read", "Edit", "Write", "Bash", "Grep", "Glob")
"""The built-in tools the fake offers, in the order the ``system/init`` frame lists them."""

READ_ONLY_TOOLS = frozenset({"Read", "Grep", "Glob"})
"""Tools that run without a permission prompt in ``default`` mode (inside the working directory)."""

EDIT_TOOLS = frozenset({"Edit", "Write"})
"""Tools that ``permission_mode="acceptEdits"`` approves."""

TOOL_DEFINITIONS: dict[str, dict[str, Any]] = {
    "Read": {
        "name": "Read",
        "description": "Reads a file from the local filesystem. file_path must be an absolute path.",
        "input_schema": {
            "type": "object",
            "properties": {
                "file_path": {"type": "string", "description": "The absolute path to the file to read"},
                "offset": {"type": "integer", "description": "The line number to start reading from"},
                "limit": {"type": "integer", "description": "The number of lines to read"},
            },
            "required": ["file_path"],
        },
    },
    "Edit": {
        "name": "Edit",
        "description": "Performs exact string replacements in files. Read the file first.",
        "input_schema": {
            "type": "object",
            "properties": {
                "file_path": {"type": "string"},
                "old_string": {"type": "string"},
                "new_string": {"type": "string"},
                "replace_all": {"type": "boolean", "default": False},
            },
            "required": ["file_path", "old_string", "new_string"],
        },
    },
    "Write": {
        "name": "Write",
        "description": "Writes a file to the local filesystem, overwriting it if it exists.",
        "input_schema": {
            "type": "object",
            "properties": {"file_path": {"type": "string"}, "content": {"type": "string"}},
            "required": ["file_path", "content"],
        },
    },
    "Bash": {
        "name": "Bash",
        "description": "Executes a bash command in the project directory and returns its output.",
        "input_schema": {
            "type": "object",
            "properties": {
                "command": {"type": "string", "description": "The command to execute"},
                "description": {"type": "string"},
                "timeout": {"type": "integer"},
            },
            "required": ["command"],
        },
    },
    "Grep": {
        "name": "Grep",
        "description": "Searches file contents with a regular expression.",
        "input_schema": {
            "type": "object",
            "properties": {
                "pattern": {"type": "string"},
                "path": {"type": "string"},
                "glob": {"type": "string"},
                "output_mode": {"type": "string", "enum": ["content", "files_with_matches", "count"]},
            },
            "required": ["pattern"],
        },
    },
    "Glob": {
        "name": "Glob",
        "description": "Finds files by name with a glob pattern such as **/*.ts.",
        "input_schema": {
            "type": "object",
            "properties": {"pattern": {"type": "string"}, "path": {"type": "string"}},
            "required": ["pattern"],
        },
    },
}
"""Tool definitions (Messages API ``tools`` entries) the fake CLI sends for each built-in tool."""


@dataclass(frozen=True)
class ToolOutcome:
    """What one tool call gives back: ``content`` (the ``tool_result`` text), ``is_error``, and
    ``structured`` (the ``tool_use_result`` a ``UserMessage`` carries), ``duration_ms`` simulated."""

    content: str
    is_error: bool = False
    structured: dict[str, Any] | None = None
    duration_ms: int = 20


TestRunner = Callable[["Project"], list[tuple[str, bool, str]]]
"""``runner(project) -> [(test name, passed, failure detail)]``: the project's simulated test suite."""


@dataclass
class Project:
    """An in-memory project: ``files`` maps paths relative to ``/project`` to their text.

    Args:
        name: shown in ``npm test`` output (``package.json``'s name).
        files: relative path -> text.
        tests: the simulated test suite (see :data:`TestRunner`); None: ``npm test`` reports no tests.
        test_file: the file the suite lives in (for the report header).

    Mutations happen only through the tools (or by assigning ``files`` in a lesson). ``original``
    keeps the starting contents so ``git diff`` can show what the agent changed.
    """

    name: str
    files: dict[str, str]
    tests: TestRunner | None = None
    test_file: str = ""
    original: dict[str, str] = field(default_factory=dict)
    _read: set[str] = field(default_factory=set, repr=False)

    def __post_init__(self) -> None:
        if not self.original:
            self.original = dict(self.files)

    # -- paths ---------------------------------------------------------------------------------
    @staticmethod
    def relative(path: str) -> str | None:
        """``path`` (absolute under ``/project`` or relative to it) as a relative path, or None
        when it points outside the project."""
        joined = posixpath.normpath(path if path.startswith("/") else posixpath.join(CWD, path))
        if joined == CWD:
            return ""
        if not joined.startswith(CWD + "/"):
            return None
        return joined[len(CWD) + 1:]

    def copy(self) -> Project:
        """A fresh copy with the same files, tests and original contents (nothing read yet)."""
        return Project(name=self.name, files=dict(self.files), tests=self.tests, test_file=self.test_file,
                       original=dict(self.original))

    def diff(self) -> str:
        """A unified diff of every file the agent changed, as ``git diff`` prints it."""
        out: list[str] = []
        for path in sorted(set(self.files) | set(self.original)):
            before, after = self.original.get(path, ""), self.files.get(path, "")
            if before != after:
                out += difflib.unified_diff(before.splitlines(keepends=True), after.splitlines(keepends=True),
                                            f"a/{path}", f"b/{path}")
        return "".join(out)

    # -- tools ---------------------------------------------------------------------------------
    def run_tool(self, name: str, tool_input: dict[str, Any]) -> ToolOutcome:
        """Run built-in tool ``name`` with ``tool_input``.

        Returns:
            A :class:`ToolOutcome`; an unknown tool or bad input gives ``is_error=True``.
        """
        handler = {"Read": self._read_file, "Edit": self._edit, "Write": self._write, "Bash": self._bash,
                   "Grep": self._grep, "Glob": self._glob}.get(name)
        if handler is None:
            return ToolOutcome(f"Error: No such tool available: {name}", is_error=True)
        try:
            return handler(tool_input if isinstance(tool_input, dict) else {})
        except _InputError as error:
            return ToolOutcome(f"<tool_use_error>{error}</tool_use_error>", is_error=True)

    def _path(self, tool_input: dict[str, Any], key: str = "file_path") -> str:
        value = tool_input.get(key)
        if not isinstance(value, str) or not value:
            raise _InputError(f"InputValidationError: the required parameter `{key}` is missing")
        rel = self.relative(value)
        if rel is None:
            raise _InputError(f"Path {value} is outside the working directory {CWD}")
        return rel

    def _read_file(self, tool_input: dict[str, Any]) -> ToolOutcome:
        rel = self._path(tool_input)
        if rel not in self.files:
            return ToolOutcome("File does not exist.", is_error=True)
        self._read.add(rel)
        lines = self.files[rel].splitlines()
        offset = max(int(tool_input.get("offset") or 1), 1)
        limit = int(tool_input.get("limit") or 2000)
        shown = lines[offset - 1: offset - 1 + limit]
        numbered = "\n".join(f"{n:>6}\t{line}" for n, line in enumerate(shown, start=offset))
        return ToolOutcome(numbered, structured={"type": "text", "file": {"filePath": f"{CWD}/{rel}",
                                                                          "numLines": len(shown)}}, duration_ms=5)

    def _edit(self, tool_input: dict[str, Any]) -> ToolOutcome:
        rel = self._path(tool_input)
        old, new = tool_input.get("old_string"), tool_input.get("new_string")
        if not isinstance(old, str) or not isinstance(new, str):
            raise _InputError("InputValidationError: `old_string` and `new_string` must be strings")
        if rel not in self.files:
            return ToolOutcome("File does not exist.", is_error=True)
        if rel not in self._read:
            return ToolOutcome("File has not been read yet. Read it first before writing to it.", is_error=True)
        if old == new:
            return ToolOutcome("No changes to make: old_string and new_string are exactly the same.", is_error=True)
        text = self.files[rel]
        count = text.count(old)
        if count == 0:
            return ToolOutcome(f"String to replace not found in file.\nString: {old}", is_error=True)
        if count > 1 and not tool_input.get("replace_all"):
            return ToolOutcome(
                f"Found {count} matches of the string to replace, but replace_all is false. To replace all "
                "occurrences, set replace_all to true. To replace only one occurrence, please provide more "
                f"context to uniquely identify the instance.\nString: {old}", is_error=True)
        self.files[rel] = text.replace(old, new) if tool_input.get("replace_all") else text.replace(old, new, 1)
        return ToolOutcome(f"The file {CWD}/{rel} has been updated successfully.",
                           structured={"filePath": f"{CWD}/{rel}", "oldString": old, "newString": new}, duration_ms=8)

    def _write(self, tool_input: dict[str, Any]) -> ToolOutcome:
        rel = self._path(tool_input)
        content = tool_input.get("content")
        if not isinstance(content, str):
            raise _InputError("InputValidationError: `content` must be a string")
        if rel in self.files and rel not in self._read:
            return ToolOutcome("File has not been read yet. Read it first before writing to it.", is_error=True)
        existed = rel in self.files
        self.files[rel] = content
        self._read.add(rel)
        verb = "updated" if existed else "created"
        return ToolOutcome(f"File {verb} successfully at: {CWD}/{rel}", duration_ms=8)

    def _glob(self, tool_input: dict[str, Any]) -> ToolOutcome:
        pattern = tool_input.get("pattern")
        if not isinstance(pattern, str) or not pattern:
            raise _InputError("InputValidationError: the required parameter `pattern` is missing")
        base = self.relative(tool_input.get("path") or CWD)
        if base is None:
            raise _InputError(f"Path {tool_input.get('path')} is outside the working directory {CWD}")
        found = sorted(p for p in self.files if _under(p, base) and _glob_match(_strip(p, base), pattern))
        if not found:
            return ToolOutcome("No files found", duration_ms=3)
        return ToolOutcome("\n".join(f"{CWD}/{p}" for p in found), duration_ms=3)

    def _grep(self, tool_input: dict[str, Any]) -> ToolOutcome:
        pattern = tool_input.get("pattern")
        if not isinstance(pattern, str) or not pattern:
            raise _InputError("InputValidationError: the required parameter `pattern` is missing")
        try:
            regex = re.compile(pattern)
        except re.error as error:
            raise _InputError(f"Invalid regular expression {pattern!r}: {error}") from None
        base = self.relative(tool_input.get("path") or CWD)
        if base is None:
            raise _InputError(f"Path {tool_input.get('path')} is outside the working directory {CWD}")
        file_glob = tool_input.get("glob")
        mode = tool_input.get("output_mode") or "files_with_matches"
        hits: dict[str, list[tuple[int, str]]] = {}
        for path in sorted(self.files):
            if not (_under(path, base) and (not file_glob or _glob_match(posixpath.basename(path), file_glob)
                                            or _glob_match(path, file_glob))):
                continue
            for n, line in enumerate(self.files[path].splitlines(), start=1):
                if regex.search(line):
                    hits.setdefault(path, []).append((n, line))
        if not hits:
            return ToolOutcome("No matches found" if mode == "content" else "No files found", duration_ms=4)
        if mode == "content":
            return ToolOutcome("\n".join(f"{CWD}/{p}:{n}:{line}" for p, lines in hits.items() for n, line in lines),
                               duration_ms=4)
        if mode == "count":
            return ToolOutcome("\n".join(f"{CWD}/{p}:{len(lines)}" for p, lines in hits.items()), duration_ms=4)
        files = "\n".join(f"{CWD}/{p}" for p in hits)
        return ToolOutcome(f"Found {len(hits)} file{'s' if len(hits) != 1 else ''}\n{files}", duration_ms=4)

    # -- a very small shell --------------------------------------------------------------------
    def _bash(self, tool_input: dict[str, Any]) -> ToolOutcome:
        command = tool_input.get("command")
        if not isinstance(command, str) or not command.strip():
            raise _InputError("InputValidationError: the required parameter `command` is missing")
        outputs: list[str] = []
        code, total_ms = 0, 0
        for part in command.split("&&"):
            out, code, ms = self._run_command(part.strip())
            total_ms += ms
            if out:
                outputs.append(out)
            if code != 0:
                break
        text = "\n".join(outputs)
        structured = {"stdout": text, "stderr": "", "interrupted": False, "isImage": False, "noOutputExpected": False}
        if code != 0:
            return ToolOutcome(f"Exit code {code}\n{text}".rstrip(), is_error=True, structured=structured,
                               duration_ms=total_ms)
        return ToolOutcome(text, structured=structured, duration_ms=total_ms)

    def _run_command(self, command: str) -> tuple[str, int, int]:
        """One simple command -> (output, exit code, simulated milliseconds)."""
        try:
            argv = shlex.split(command)
        except ValueError as error:
            return f"bash: syntax error: {error}", 2, 1
        if not argv:
            return "", 0, 0
        head = argv[0]
        if argv[:2] in (["npm", "test"], ["npm", "t"]) or argv[:3] == ["npm", "run", "test"] or head in ("jest",) \
                or argv[:2] == ["npx", "jest"]:
            return self._npm_test()
        if head == "pwd":
            return CWD, 0, 1
        if head == "echo":
            return " ".join(argv[1:]), 0, 1
        if head == "ls":
            target = self.relative(argv[1] if len(argv) > 1 and not argv[1].startswith("-") else CWD)
            if target is None:
                return f"ls: cannot access '{argv[1]}': No such file or directory", 2, 2
            names = sorted({_strip(p, target).split("/")[0] for p in self.files if _under(p, target)})
            if not names:
                return f"ls: cannot access '{argv[1]}': No such file or directory", 2, 2
            return "\n".join(names), 0, 2
        if head == "cat":
            out = []
            for arg in argv[1:]:
                rel = self.relative(arg)
                if rel is None or rel not in self.files:
                    return f"cat: {arg}: No such file or directory", 1, 2
                out.append(self.files[rel].rstrip("\n"))
            return "\n".join(out), 0, 2
        if argv[:2] == ["git", "diff"]:
            return self.diff().rstrip("\n"), 0, 15
        if argv[:2] == ["git", "status"]:
            changed = [p for p in sorted(self.files) if self.files[p] != self.original.get(p)]
            lines = ["On branch main"] + ([f"\tmodified:   {p}" for p in changed] or ["nothing to commit, working tree clean"])
            return "\n".join(lines), 0, 12
        return f"bash: {head}: command not found", 127, 2

    def _npm_test(self) -> tuple[str, int, int]:
        header = f"> {self.name}@1.0.0 test\n> jest\n"
        if self.tests is None:
            return header + "\nNo tests found, exiting with code 1", 1, 900
        results = self.tests(self)
        failed = [r for r in results if not r[1]]
        lines = [header, f"{'FAIL' if failed else 'PASS'} {self.test_file}"]
        lines += [f"  {'✓' if ok else '✕'} {name}" for name, ok, _ in results]
        for name, ok, detail in results:
            if not ok:
                lines += ["", f"  ● {name}", "", *[f"    {d}" for d in detail.splitlines()]]
        passed = len(results) - len(failed)
        summary = ", ".join(p for p in (f"{len(failed)} failed" if failed else "", f"{passed} passed" if passed else "") if p)
        lines += ["", f"Tests:       {summary}, {len(results)} total"]
        return "\n".join(lines), (1 if failed else 0), 1200


class _InputError(Exception):
    """Bad tool input from the model: becomes an ``is_error`` tool result."""


def _under(path: str, base: str) -> bool:
    return not base or path == base or path.startswith(base + "/")


def _strip(path: str, base: str) -> str:
    return path[len(base) + 1:] if base and path.startswith(base + "/") else path


def _glob_match(path: str, pattern: str) -> bool:
    """``**`` matches any number of directories (also none); ``*`` stays within one."""
    regex = re.escape(pattern).replace(r"\*\*/", "(?:.*/)?").replace(r"\*\*", ".*").replace(r"\*", "[^/]*")
    regex = regex.replace(r"\?", "[^/]")
    return re.fullmatch(regex, path) is not None or (("/" not in pattern) and fnmatch.fnmatch(path, pattern)
                                                     and "/" not in path)


# ---------------------------------------------------------------------------------------------
# The auth project of seed 004: three failing tests, one comparison to fix.

AUTH_TS = """\
export interface Session {
  userId: string;
  expiresAt: number; // milliseconds since the epoch
}

/** True when the session can no longer be used. */
export function isExpired(session: Session, now: number = Date.now()): boolean {
  return session.expiresAt > now;
}

/** The user id for a live session token, or null. */
export function validateToken(
  token: string,
  sessions: Map<string, Session>,
  now: number = Date.now(),
): string | null {
  const session = sessions.get(token);
  if (!session || isExpired(session, now)) {
    return null;
  }
  return session.userId;
}
"""

AUTH_TEST_TS = """\
import { isExpired, validateToken, Session } from "./auth";

const NOW = 1_700_000_000_000;
const live: Session = { userId: "user-42", expiresAt: NOW + 60_000 };
const old: Session = { userId: "user-7", expiresAt: NOW - 60_000 };
const sessions = new Map([["live-token", live], ["old-token", old]]);

describe("auth", () => {
  test("validateToken accepts a live session", () => {
    expect(validateToken("live-token", sessions, NOW)).toBe("user-42");
  });

  test("validateToken rejects an expired session", () => {
    expect(validateToken("old-token", sessions, NOW)).toBeNull();
  });

  test("isExpired is true at the moment of expiry", () => {
    expect(isExpired({ userId: "u", expiresAt: NOW }, NOW)).toBe(true);
  });
});
"""

_COMPARISON = re.compile(r"return\s+session\.expiresAt\s*(<=|>=|===|==|<|>)\s*now\s*;")
_OPS: dict[str, Callable[[int, int], bool]] = {
    "<=": lambda a, b: a <= b, ">=": lambda a, b: a >= b, "<": lambda a, b: a < b, ">": lambda a, b: a > b,
    "===": lambda a, b: a == b, "==": lambda a, b: a == b,
}


def auth_tests(project: Project) -> list[tuple[str, bool, str]]:
    """The three tests of ``src/auth.test.ts``, evaluated on the current ``src/auth.ts``: the
    comparison in ``isExpired`` decides them, so a real fix makes them pass."""
    source = project.files.get("src/auth.ts", "")
    match = _COMPARISON.search(source)
    names = ("auth › validateToken accepts a live session", "auth › validateToken rejects an expired session",
             "auth › isExpired is true at the moment of expiry")
    if match is None:
        detail = "TypeError: isExpired could not be evaluated (src/auth.ts does not compile)"
        return [(name, False, detail) for name in names]
    expired = _OPS[match.group(1)]
    now = 1_700_000_000_000
    live, old = now + 60_000, now - 60_000
    got_live = None if expired(live, now) else "user-42"
    got_old = None if expired(old, now) else "user-7"
    at_expiry = expired(now, now)
    return [
        (names[0], got_live == "user-42",
         f'expect(received).toBe(expected)\n\nExpected: "user-42"\nReceived: {_js(got_live)}'),
        (names[1], got_old is None, f"expect(received).toBeNull()\n\nReceived: {_js(got_old)}"),
        (names[2], at_expiry is True, f"expect(received).toBe(expected)\n\nExpected: true\nReceived: {_js(at_expiry)}"),
    ]


def _js(value: Any) -> str:
    return "null" if value is None else "true" if value is True else "false" if value is False else f'"{value}"'


def auth_project() -> Project:
    """Seed 004's project: ``src/auth.ts`` with an inverted expiry check and its three failing tests."""
    return Project(
        name="auth-service",
        files={
            "package.json": '{\n  "name": "auth-service",\n  "version": "1.0.0",\n  "scripts": {"test": "jest"}\n}\n',
            "README.md": "# auth-service\n\nSession tokens for the web app: `validateToken` maps a token to a user id\n"
                         "while its session is live. Run the tests with `npm test`.\n",
            "CLAUDE.md": "# Project notes\n\n- Run `npm test` after every change.\n- Keep fixes minimal.\n",
            "src/auth.ts": AUTH_TS,
            "src/auth.test.ts": AUTH_TEST_TS,
        },
        tests=auth_tests,
        test_file="src/auth.test.ts",
    )
