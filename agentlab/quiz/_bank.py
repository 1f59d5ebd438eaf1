"""Load and validate the question banks: ``quizzes/*.yaml`` -> frozen dataclasses.

::

    from agentlab.quiz import load_bank
    bank = load_bank()                 # every quizzes/*.yaml (or load_bank("path/to/dir"))
    bank.topics, bank.questions, bank.question("stop-reasons-001")

Each file is parsed with PyYAML keeping every node's line, checked against the JSON Schema of
its question types (:mod:`agentlab.quiz._schema`), then against the rules a schema cannot
express (ids unique across files, tags from :data:`agentlab.antipatterns.TAGS`, the correct
count per type, ``bug_lines`` inside ``code``, the topic equal to the file name...). Every
problem is a :class:`BankError` naming the file, the line and the question id; the loader
collects all of them, in every file, and raises ONE error listing them, so an author fixes a
bank in one go. A folder with no bank yet loads as an empty :class:`Bank`.
"""

from __future__ import annotations

import ast
import difflib
import hashlib
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

import yaml

from .. import antipatterns
from .._i18n import language
from .._jsonschema import import_jsonschema
from ._schema import BANK_SCHEMA, QUESTION_TYPES, SCHEMAS

__all__ = ["CACHE_DIR_ENV", "QUIZ_DIR_ENV", "Bank", "BankError", "Option", "Question", "Text", "Topic", "default_cache_dir",
           "default_quiz_dir", "load_bank"]

QUIZ_DIR_ENV = "AGENTLAB_QUIZ_DIR"
"""Environment variable naming the folder of the banks (default: the checkout's ``quizzes/``)."""

_SINGLE_ANSWER = ("single", "next_action", "spot_the_bug")
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml when present: 10x faster, same marks


_import_jsonschema = import_jsonschema  # the shared lazy import (agentlab._jsonschema)


# --------------------------------------------------------------------------------- errors


def _shown(path: Path | None) -> str:
    if path is None:
        return "<bank>"
    try:
        return Path(path).resolve().relative_to(Path.cwd().resolve()).as_posix()
    except ValueError:
        return str(path)


class BankError(ValueError):
    """A problem in a bank file: what is wrong and where.

    Attributes:
        path: the file (a :class:`~pathlib.Path`), or None.
        line: the 1-based line in that file, or None.
        question_id: the question's id, or None when the problem is outside a question.
        message: what is wrong, without the location.
        errors: every problem found (this error alone, or each one of a combined error).
    """

    def __init__(self, message: str, *, path: Path | None = None, line: int | None = None,
                 question_id: str | None = None, errors: tuple[BankError, ...] = ()) -> None:
        self.message, self.path, self.line, self.question_id = message, path, line, question_id
        self.errors: tuple[BankError, ...] = errors or (self,)
        super().__init__(self._text())

    @property
    def where(self) -> str:
        """``quizzes/history.yaml:123 question history-007``."""
        text = _shown(self.path) + (f":{self.line}" if self.line else "")
        return text + (f" question {self.question_id}" if self.question_id else "")

    def _text(self) -> str:
        if len(self.errors) == 1 and self.errors[0] is self:
            return f"{self.where}: {self.message}"
        return f"{self.message}\n" + "\n".join(f"  {e.where}: {e.message}" for e in self.errors)

    @classmethod
    def combine(cls, errors: list[BankError]) -> BankError:
        """One error listing ``errors`` (sorted by file and line); its location is the first's."""
        errors = sorted(errors, key=lambda e: (str(e.path), e.line or 0))
        if len(errors) == 1:
            return errors[0]
        files = len({str(e.path) for e in errors})
        head = f"{len(errors)} problems in {files} bank file{'s' if files > 1 else ''}:"
        first = errors[0]
        return cls(head, path=first.path, line=first.line, question_id=first.question_id, errors=tuple(errors))


# --------------------------------------------------------------------------------- data


@dataclass(frozen=True)
class Text:
    """A learner-facing text in English and Spanish (Markdown)."""

    en: str
    es: str

    def get(self, lang: str | None = None) -> str:
        """The text in ``lang`` (default: the learner's language, :func:`agentlab._i18n.language`)."""
        return getattr(self, language(lang))


@dataclass(frozen=True)
class Option:
    """One answer of a choice question, with why it is right or wrong."""

    id: str
    text: Text
    correct: bool
    explanation: Text
    tag: str | None = None
    """The misconception this distractor reflects (a tag of :data:`agentlab.antipatterns.TAGS`)."""


@dataclass(frozen=True)
class Question:
    """One question of a bank, as FORMAT.md describes it."""

    id: str
    type: str
    topic: str
    difficulty: int
    source: str
    tags: tuple[str, ...]
    prompt: Text
    explanation: Text
    focus: tuple[int, ...] = ()
    code: str | None = None
    response: dict[str, Any] | None = field(default=None, hash=False)
    """``next_action`` only: the API response (``stop_reason`` and ``content`` blocks)."""
    options: tuple[Option, ...] = ()
    lines: tuple[str, ...] = ()
    """``order`` only: the code lines in the correct order."""
    bug_lines: tuple[int, ...] = ()
    bug_tag: str | None = None
    fixed_code: str | None = None
    path: Path | None = field(default=None, compare=False)
    line: int | None = field(default=None, compare=False)

    @property
    def correct_ids(self) -> tuple[str, ...]:
        """The ids of the correct options, in bank order (empty for order and fix_code)."""
        return tuple(o.id for o in self.options if o.correct)

    @property
    def where(self) -> str:
        """``quizzes/topic.yaml:LINE``: where the question starts."""
        return f"{_shown(self.path)}:{self.line}"

    def option(self, option_id: str) -> Option:
        """The option with this id.

        Raises:
            ValueError: naming the question and its option ids.
        """
        for o in self.options:
            if o.id == option_id:
                return o
        raise ValueError(f"question {self.id}: no option {option_id!r}; "
                         f"options: {', '.join(o.id for o in self.options) or '(none)'}")


@dataclass(frozen=True)
class Topic:
    """One bank file: a topic and its questions, in file order."""

    id: str
    title: Text
    questions: tuple[Question, ...]
    path: Path | None = field(default=None, compare=False)


@dataclass(frozen=True)
class Bank:
    """Every topic loaded (sorted by file name); iterating yields every question."""

    topics: tuple[Topic, ...] = ()
    path: Path | None = field(default=None, compare=False)
    _by_id: dict[str, Question] = field(init=False, repr=False, compare=False, hash=False)
    _by_topic: dict[str, Topic] = field(init=False, repr=False, compare=False, hash=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_by_id", {q.id: q for t in self.topics for q in t.questions})
        object.__setattr__(self, "_by_topic", {t.id: t for t in self.topics})

    @property
    def questions(self) -> tuple[Question, ...]:
        """Every question, topic by topic."""
        return tuple(q for t in self.topics for q in t.questions)

    @property
    def topic_ids(self) -> tuple[str, ...]:
        return tuple(t.id for t in self.topics)

    def __len__(self) -> int:
        return len(self._by_id)

    def __iter__(self) -> Iterator[Question]:
        return iter(self.questions)

    def __contains__(self, question_id: object) -> bool:
        return question_id in self._by_id

    def question(self, question_id: str) -> Question:
        """The question with this id.

        Raises:
            KeyError: for an unknown id (the message suggests the closest one).
        """
        try:
            return self._by_id[question_id]
        except KeyError:
            close = difflib.get_close_matches(str(question_id), list(self._by_id), n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise KeyError(f"no question {question_id!r} in the bank{hint}") from None

    def topic(self, topic_id: str) -> Topic:
        """The topic with this id.

        Raises:
            ValueError: for an unknown topic (the message lists the topics).
        """
        if topic_id not in self._by_topic:
            raise ValueError(f"unknown topic {topic_id!r}; topics: {', '.join(self.topic_ids) or '(no bank loaded)'}")
        return self._by_topic[topic_id]


# --------------------------------------------------------------------------------- parsing

class _File:
    """One file being checked: its data, the line of every node, and the errors found."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.lines: dict[tuple, int] = {}
        self.block_start: dict[tuple, int] = {}  # path of a block scalar -> line of its first content line
        self.errors: list[BankError] = []
        self.duplicates: list[tuple[tuple, str]] = []  # (path of the mapping key, message)
        self.data: Any = None

    def line(self, where: tuple) -> int | None:
        for cut in range(len(where), -1, -1):
            if where[:cut] in self.lines:
                return self.lines[where[:cut]]
        return None

    def error(self, where: tuple, message: str, question_id: str | None = None) -> None:
        self.errors.append(BankError(message, path=self.path, line=self.line(where), question_id=question_id))


_STR, _SEQ, _MAP = "tag:yaml.org,2002:str", "tag:yaml.org,2002:seq", "tag:yaml.org,2002:map"


def _build_node(node: yaml.Node, where: tuple, f: _File, loader: Any, memo: dict[int, Any]) -> Any:
    """The value of ``node`` (as PyYAML's safe constructor makes it), recording on the way the
    line of every node and key, where each scalar's text starts, and repeated keys. One pass
    instead of construct + walk: it halves the parse time of a bank."""
    f.lines.setdefault(where, node.start_mark.line + 1)
    if id(node) in memo:  # an alias: the anchored value, as PyYAML shares it
        return memo[id(node)]
    if isinstance(node, yaml.ScalarNode):
        # the file line of the scalar's first line: a block scalar (| or >) starts below its indicator
        f.block_start[where] = node.start_mark.line + (2 if node.style in ("|", ">") else 1)
        value = node.value if node.tag == _STR else loader.construct_object(node, deep=True)
    elif isinstance(node, yaml.SequenceNode) and node.tag == _SEQ:
        value = memo[id(node)] = []
        value.extend(_build_node(item, where + (i,), f, loader, memo) for i, item in enumerate(node.value))
    elif isinstance(node, yaml.MappingNode) and node.tag == _MAP and all(
            isinstance(k, yaml.ScalarNode) and k.tag != "tag:yaml.org,2002:merge" for k, _ in node.value):
        value = memo[id(node)] = {}
        first: dict[Any, int] = {}
        for key_node, value_node in node.value:
            key = key_node.value if key_node.tag == _STR else loader.construct_object(key_node, deep=True)
            line = key_node.start_mark.line + 1
            if key in first:
                f.duplicates.append((where + (key,), f"duplicate key {key!r} (first at line {first[key]}); "
                                                     "YAML would keep only the last one"))
            first.setdefault(key, line)
            f.lines[where + (key,)] = line
            value[key] = _build_node(value_node, where + (key,), f, loader, memo)
    else:  # merge keys (<<), sets, ordered maps...: PyYAML's own constructor (lines of the inside not kept)
        value = loader.construct_object(node, deep=True)
    memo[id(node)] = value
    return value


def _parse(f: _File, text: str) -> None:
    loader = _LOADER(text)
    try:
        node = loader.get_single_node()
        f.data = None if node is None else _build_node(node, (), f, loader, {})
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
        line = mark.line + 1 if mark is not None else None
        problem = getattr(exc, "problem", None) or str(exc)
        if mark is not None and getattr(exc, "problem_mark", None) is not None:
            problem += f" (column {mark.column + 1})"
        context, context_mark = getattr(exc, "context", None), getattr(exc, "context_mark", None)
        if context and context_mark is not None and context_mark is not mark:
            problem += f", {context} that starts on line {context_mark.line + 1}"
        f.errors.append(BankError(f"YAML syntax error: {problem}", path=f.path, line=line,
                                  question_id=_id_before(text, line)))
        f.data = None
        return
    except (TypeError, RecursionError) as exc:  # an unhashable key, an alias nested in itself
        f.errors.append(BankError(f"YAML structure not supported in a bank: {exc}", path=f.path))
        f.data = None
        return
    finally:
        loader.dispose()
    for where, message in f.duplicates:
        line = f.lines.get(where)
        f.errors.append(BankError(message, path=f.path, line=line, question_id=_question_id(f.data, where)))


def _question_id(data: Any, where: tuple) -> str | None:
    """The id of the question that the data path ``where`` is in, if any."""
    if len(where) >= 2 and where[0] == "questions" and isinstance(data, dict):
        questions = data.get("questions")
        if isinstance(questions, list) and isinstance(where[1], int) and where[1] < len(questions):
            q = questions[where[1]]
            if isinstance(q, dict) and isinstance(q.get("id"), str):
                return q["id"]
    return None


def _id_before(text: str, line: int | None) -> str | None:
    """The id of the question that a syntax error at ``line`` is in (the last ``- id:`` above it)."""
    if line is None:
        return None
    found = None
    for raw in text.splitlines()[:line]:
        stripped = raw.strip()
        if stripped.startswith("- id:"):
            found = stripped[5:].split("#")[0].strip().strip("'\"") or None
    return found


# --------------------------------------------------------------------------------- checks

_VALIDATORS: dict[str, Any] = {}


def _validator(name: str) -> Any:
    if name not in _VALIDATORS:
        jsonschema = _import_jsonschema()
        schema = BANK_SCHEMA if name == "bank" else SCHEMAS[name]
        _VALIDATORS[name] = jsonschema.Draft202012Validator(schema)
    return _VALIDATORS[name]


def _dotted(where: tuple) -> str:
    text = ""
    for part in where:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text


def _describe(err: Any) -> str:
    """A jsonschema error as one clear sentence."""
    where = _dotted(tuple(err.path))
    subject = f"{where}: " if where else ""
    kind, value, inst = err.validator, err.validator_value, err.instance
    if kind == "required":
        missing = [p for p in value if isinstance(inst, dict) and p not in inst]
        what = "text" if set(value) == {"en", "es"} else "field"
        return f"{subject}missing {what} {', '.join(repr(m) for m in missing)}"
    if kind == "additionalProperties":
        allowed = list(err.schema.get("properties", {}))
        extra = [k for k in inst if k not in allowed]
        close = difflib.get_close_matches(str(extra[0]), allowed, n=1) if len(extra) == 1 else []
        hint = f"did you mean {close[0]!r}? " if close else ""
        return f"{subject}unknown field {', '.join(repr(e) for e in extra)} ({hint}allowed here: {', '.join(allowed)})"
    if kind == "pattern" and value == r"\S":
        return f"{subject}must not be empty"
    if kind == "pattern":
        if err.path and err.path[-1] == "id" and len(err.path) == 1:
            return f"id {inst!r} must look like <topic-with-dashes>-NNN, e.g. stop-reasons-001"
        return f"{subject}{inst!r} does not match {value}"
    if kind == "type":
        return f"{subject}must be {value if isinstance(value, str) else ' or '.join(value)}, not {type(inst).__name__} {inst!r:.60}"
    if kind in ("enum", "const"):
        choices = value if kind == "enum" else [value]
        return f"{subject}{inst!r} is not one of {', '.join(map(str, choices))}"
    if kind in ("minItems", "maxItems"):
        bound = "at least" if kind == "minItems" else "at most"
        return f"{subject}has {len(inst)} item{'s' if len(inst) != 1 else ''}; needs {bound} {value}"
    if kind in ("minimum", "maximum"):
        bound = "at least" if kind == "minimum" else "at most"
        return f"{subject}is {inst!r}; must be {bound} {value}"
    if kind == "uniqueItems":
        return f"{subject}has repeated items {inst!r}"
    return f"{subject}{err.message}"


def _check_tag(f: _File, where: tuple, tag: str, qid: str | None) -> None:
    if tag not in antipatterns.BY_TAG:
        close = difflib.get_close_matches(tag, antipatterns.TAGS, n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        f.error(where, f"unknown misconception tag {tag!r}{hint}; tags come from agentlab.antipatterns.TAGS", qid)


def _check_code(f: _File, where: tuple, code: str, qid: str | None) -> None:
    """``code``/``fixed_code`` must compile and define ``agent_loop`` at the top level."""
    try:
        tree = ast.parse(code)
    except SyntaxError as exc:
        base = f.block_start.get(where)
        line = base + exc.lineno - 1 if base and exc.lineno else f.line(where)
        f.errors.append(BankError(f"{where[-1]}: Python syntax error on its line {exc.lineno}: {exc.msg}",
                                  path=f.path, line=line, question_id=qid))
        return
    defined = {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
    if "agent_loop" not in defined:
        f.error(where, f"{where[-1]}: defines no top-level function agent_loop(client, prompt, tools, run_tool)", qid)


def _semantic(f: _File, q: dict, where: tuple, topic: str | None) -> None:
    qid = q["id"]
    kind = q["type"]
    if topic is not None and not qid.startswith(topic.replace("_", "-") + "-"):
        f.error(where + ("id",), f"id {qid!r} must start with the topic: {topic.replace('_', '-')}-NNN", qid)
    for i, tag in enumerate(q["tags"]):
        _check_tag(f, where + ("tags", i), tag, qid)
    options = q.get("options", [])
    seen: dict[str, int] = {}
    for i, option in enumerate(options):
        if option["id"] in seen:
            f.error(where + ("options", i, "id"),
                    f"option id {option['id']!r} repeated (options[{seen[option['id']]}] has it too)", qid)
        seen.setdefault(option["id"], i)
        if "tag" in option:
            _check_tag(f, where + ("options", i, "tag"), option["tag"], qid)
    correct = [o for o in options if o["correct"]]
    if kind in _SINGLE_ANSWER and len(correct) != 1:
        ids = ", ".join(o["id"] for o in correct) or "none"
        f.error(where + ("options",), f"a {kind} question needs exactly one correct option; correct: {ids}", qid)
    if kind == "multiple" and not correct:
        f.error(where + ("options",), "a multiple question needs at least one correct option", qid)
    if kind in ("spot_the_bug", "fix_code"):
        _check_tag(f, where + ("bug_tag",), q["bug_tag"], qid)
        _check_code(f, where + ("code",), q["code"], qid)
        _check_code(f, where + ("fixed_code",), q["fixed_code"], qid)
        if q["code"].strip() == q["fixed_code"].strip():
            f.error(where + ("fixed_code",), "fixed_code is the same as code", qid)
    if kind == "spot_the_bug":
        code_lines = q["code"].splitlines()
        for i, n in enumerate(q["bug_lines"]):
            if n > len(code_lines):
                f.error(where + ("bug_lines", i), f"bug_lines: line {n} is past the end of code ({len(code_lines)} lines)", qid)
            elif not code_lines[n - 1].strip():
                f.error(where + ("bug_lines", i), f"bug_lines: line {n} of code is blank", qid)
        if len(correct) == 1 and correct[0].get("tag") != q["bug_tag"]:
            index = options.index(correct[0])
            f.error(where + ("options", index), f"the correct option {correct[0]['id']!r} must have tag: {q['bug_tag']} "
                    f"(= bug_tag), it has {correct[0].get('tag')!r}", qid)


def _text(raw: dict) -> Text:
    return Text(en=raw["en"], es=raw["es"])


def _build(q: dict, topic: str, path: Path, line: int | None) -> Question:
    return Question(
        id=q["id"], type=q["type"], topic=topic, difficulty=q["difficulty"], source=q["source"],
        tags=tuple(q["tags"]), focus=tuple(q.get("focus", ())), prompt=_text(q["prompt"]),
        explanation=_text(q["explanation"]), code=q.get("code"), response=q.get("response"),
        options=tuple(Option(id=o["id"], text=_text(o["text"]), correct=o["correct"],
                             explanation=_text(o["explanation"]), tag=o.get("tag")) for o in q.get("options", ())),
        lines=tuple(q.get("lines", ())), bug_lines=tuple(q.get("bug_lines", ())), bug_tag=q.get("bug_tag"),
        fixed_code=q.get("fixed_code"), path=path, line=line,
    )


def _check_file(path: Path, raw: bytes) -> tuple[Any, list[tuple[str | None, int | None, int | None]], list[BankError]]:
    """Every check of one file that does not need the other files.

    Returns:
        (the data, (id, line of the question, line of its id) for each question, the errors).
    """
    f = _File(path)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        return None, [], [BankError(f"the file is not UTF-8 text: {exc}", path=path)]
    _parse(f, text)
    if f.errors and f.data is None:
        return None, [], f.errors
    if f.data is None:
        f.error((), "the file is empty; a bank has topic, title and questions (see quizzes/FORMAT.md)")
        return None, [], f.errors
    if not isinstance(f.data, dict):
        f.error((), f"a bank is a mapping with topic, title and questions, not a {type(f.data).__name__}")
        return None, [], f.errors

    for err in _validator("bank").iter_errors(f.data):
        at = tuple(err.absolute_path)
        if err.validator == "additionalProperties":
            at += tuple(k for k in err.instance if k not in err.schema.get("properties", {}))[:1]
        f.error(at, _describe(err), _question_id(f.data, at))
    topic = f.data.get("topic") if isinstance(f.data.get("topic"), str) else None
    if topic is not None and topic != path.stem:
        f.error(("topic",), f"topic {topic!r} must equal the file name {path.stem!r}")
    questions = f.data.get("questions") if isinstance(f.data.get("questions"), list) else []
    places: list[tuple[str | None, int | None, int | None]] = []
    for i, q in enumerate(questions):
        where = ("questions", i)
        if not isinstance(q, dict):
            places.append((None, f.line(where), None))
            continue  # reported by the bank schema
        qid = q.get("id") if isinstance(q.get("id"), str) else None
        places.append((qid, f.line(where), f.line(where + ("id",))))
        kind = q.get("type")
        if kind not in SCHEMAS:
            message = (f"missing field 'type' (one of {', '.join(QUESTION_TYPES)})" if kind is None else
                       f"unknown question type {kind!r}; one of {', '.join(QUESTION_TYPES)}")
            f.error(where + (("type",) if kind is not None else ()), message, qid)
            continue
        errors = sorted(_validator(kind).iter_errors(q), key=lambda e: [str(p) for p in e.absolute_path])
        for err in errors:
            at = where + tuple(err.absolute_path)
            if err.validator == "additionalProperties":  # point at the first unknown key itself
                known = err.schema.get("properties", {})
                at += tuple(k for k in err.instance if k not in known)[:1]
            f.error(at, _describe(err), qid)
        if not errors:
            _semantic(f, q, where, topic if topic == path.stem else None)
    return f.data, places, f.errors


# --------------------------------------------------------------------------------- cache

CACHE_DIR_ENV = "AGENTLAB_CACHE_DIR"
"""Environment variable naming the cache folder (default: ``platformdirs.user_cache_dir("agentlab")``)."""
_CACHE_FORMAT = "1"
_fingerprint: str | None = None


def default_cache_dir() -> Path:
    """``$AGENTLAB_CACHE_DIR``, else ``platformdirs.user_cache_dir("agentlab")``."""
    env = os.environ.get(CACHE_DIR_ENV)
    if env:
        return Path(env)
    import platformdirs

    return Path(platformdirs.user_cache_dir("agentlab", appauthor=False))


def _checks_fingerprint() -> str:
    """What a file's verdict depends on besides its bytes: this loader, the schemas, the tags."""
    global _fingerprint
    if _fingerprint is None:
        digest = hashlib.sha256(_CACHE_FORMAT.encode())
        for module in (__file__, Path(__file__).with_name("_schema.py")):
            digest.update(Path(module).read_bytes())
        digest.update("\n".join(antipatterns.TAGS).encode())
        digest.update(yaml.__version__.encode())
        _fingerprint = digest.hexdigest()
    return _fingerprint


def _cache_entry(cache: Path, path: Path, raw: bytes) -> Path:
    digest = hashlib.sha256(_checks_fingerprint().encode() + path.name.encode() + b"\0" + raw).hexdigest()
    return cache / "quiz" / f"{path.stem}-{digest[:40]}.json"


def _cache_read(entry: Path) -> tuple[Any, list] | None:
    try:
        cached = json.loads(entry.read_text(encoding="utf-8"))
        return cached["data"], [tuple(p) for p in cached["places"]]
    except (OSError, ValueError, KeyError, TypeError):
        return None  # missing, half-written by a crash, or from elsewhere: validate again


def _cache_write(entry: Path, data: Any, places: list) -> None:
    """Best effort: a read-only or full disk only costs the next load a full validation."""
    try:
        text = json.dumps({"data": data, "places": places}, ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError):
        return  # data JSON cannot carry (a YAML date in a response block...): never cached
    try:
        entry.parent.mkdir(parents=True, exist_ok=True)
        for old in entry.parent.glob(f"{entry.name.rsplit('-', 1)[0]}-*.json"):
            if old != entry:
                old.unlink(missing_ok=True)  # the verdict on an older version of this bank
        tmp = entry.with_name(f"{entry.stem}.{os.getpid()}.tmp")
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, entry)
    except OSError:
        pass


def default_quiz_dir() -> Path:
    """``$AGENTLAB_QUIZ_DIR``, else the ``quizzes/`` folder of the agentlab checkout."""
    env = os.environ.get(QUIZ_DIR_ENV)
    if env:
        return Path(env)
    return Path(__file__).resolve().parents[2] / "quizzes"


def load_bank(path: str | os.PathLike[str] | None = None, *, cache: bool | str | os.PathLike[str] = True) -> Bank:
    """Load and validate every ``*.yaml`` bank of a folder.

    A file that passed every check is remembered in a cache, keyed by its bytes and by this
    loader's code, schemas and tags (like ``.pyc`` files): loading it again unchanged skips the
    YAML parse and the per-file checks. Checks across files (unique ids) always run, and a file
    with any change is checked in full.

    Args:
        path: the folder (default: :func:`default_quiz_dir`), or a single ``.yaml`` file.
        cache: True for the default cache folder (:func:`default_cache_dir`), a folder, or False
            to check every file in full without reading or writing a cache.

    Returns:
        The :class:`Bank`, topics sorted by file name (empty when the folder has no bank yet).

    Raises:
        BankError: listing every problem of every file, each with its file, line and question id.
        FileNotFoundError: when the folder does not exist.
    """
    where = Path(path) if path is not None else default_quiz_dir()
    if where.is_file():
        files, folder = [where], where.parent
    elif where.is_dir():
        files, folder = sorted(where.glob("*.yaml")), where
    else:
        raise FileNotFoundError(f"no question bank folder at {where} (set {QUIZ_DIR_ENV} or pass path=)")
    cache_dir = None if cache is False else (default_cache_dir() if cache is True else Path(cache))
    errors: list[BankError] = []
    for stray in sorted(folder.glob("*.yml")) if where.is_dir() else []:
        errors.append(BankError("bank files end in .yaml; rename it so the loader reads it", path=stray))
    seen: dict[str, tuple[Path, int | None]] = {}
    checked: list[tuple[Path, Any, list]] = []
    for file in files:
        try:
            raw = file.read_bytes()
        except OSError as exc:
            errors.append(BankError(f"cannot read the file: {exc}", path=file))
            continue
        entry = _cache_entry(cache_dir, file, raw) if cache_dir is not None else None
        hit = _cache_read(entry) if entry is not None else None
        if hit is not None:
            data, places = hit
        else:
            data, places, problems = _check_file(file, raw)
            errors.extend(problems)
            if problems:
                data = None
            elif entry is not None:
                _cache_write(entry, data, places)
        for qid, line, id_line in places:  # ids are unique across every file
            if qid is None:
                continue
            if qid in seen:
                other_path, other_line = seen[qid]
                errors.append(BankError(f"duplicate question id {qid!r}: already used at {_shown(other_path)}:{other_line}",
                                        path=file, line=id_line or line, question_id=qid))
            else:
                seen[qid] = (file, line)
        if data is not None:
            checked.append((file, data, places))
    if errors:
        raise BankError.combine(errors)
    topics = tuple(
        Topic(id=file.stem, title=_text(data["title"]), path=file,
              questions=tuple(_build(q, file.stem, file, line) for q, (_, line, _) in zip(data["questions"], places)))
        for file, data, places in checked)
    return Bank(topics=topics, path=folder)
