"""Values valid under a JSON Schema, deterministic from a seed (one job: schema -> value).

The generic model fills tool inputs and structured outputs with these values, the forced
``tool_choice`` path of the simulated model fills its synthesised call with them, and the
catalogue's ``fill_tool_input`` uses them for fields a scenario has no value for. The idea
is pydantic-ai's ``_JsonSchemaTestData`` (STYLE.md section 2): every choice is made from the
seed (``hash(seed, path) % len(...)``), never at random and never from the clock.

Handled: ``type`` as a string or a list, ``enum``, ``const``, ``default`` and ``examples``
(preferred when they validate), objects (``properties``, ``required``, some optional
properties chosen from the seed, ``additionalProperties``, ``minProperties``,
``dependentRequired``), arrays (``items``, ``prefixItems``, the draft-4 tuple form,
``minItems``/``maxItems``, ``uniqueItems``, ``contains``), strings (``minLength``/
``maxLength``, the common ``format`` values, a ``pattern`` made of literals, classes, groups,
alternation and quantifiers), numbers (``minimum``/``maximum``, both forms of the exclusive
bounds, ``multipleOf``), ``anyOf``/``oneOf``/``allOf``, and ``$ref`` to ``$defs``/
``definitions`` or any local JSON pointer (recursive references end at a depth bound).
Checked by generate-then-validate (a bounded number of candidates, then the first one): ``not``
(each numeric/length keyword contradicted, then other variants), ``if``/``then``/``else``
(``if`` and ``then`` merged in, then ``else``), a ``oneOf`` value matched by several branches
(the other branches contradicted), look-ahead patterns (``(?=.*[A-Z])``: the look-ahead's string
written over the main pattern's), ``format`` plus ``pattern`` (the pattern's string over a
formatted value), ``propertyNames`` and ``patternProperties`` names for ``minProperties``. Left:
``not`` of an ``enum``/``pattern`` only by trying variants, negative look-aheads only checked,
``dependentSchemas``/``unevaluated*`` not read (such values may fail validation). The
constraints the ``anthropic`` SDK's ``transform_schema`` moves into a ``description`` (``"{minItems:
3, maxItems: 5}"``, ``prefixItems``, ``pattern``, bounds...) are honoured as if stated
(:func:`described_constraints`), since ``messages.parse`` validates against the original model.

Strings are meaningful where the property name or description makes it easy (a ``city`` gets
a city, a ``query`` gets words of the user's prompt, an ``email`` an address), and valid first.
What the prompt and the task's tool results name comes first when the schema accepts it
(``origin``/``destination`` from "CDG to JFK", a ``flight_id`` a search returned, ``temp`` from
"20C": :mod:`~agentlab.fake._entities`).

It never raises and never loops on garbage (a schema that is not a dict, ``"required": 5``,
an ``enum`` that is an object, ``1e400``, unknown types, contradictory bounds): a budget of
nodes, a depth bound and capped sizes keep every call short, and the result is the best value
it can find, which may then fail validation (an unsatisfiable schema has no valid value).
Values are always finite JSON: no NaN or infinity ever comes out. Large bounds are met exactly up
to a point: ``minLength`` up to :data:`MAX_MIN_LENGTH`, ``minItems`` up to :data:`MAX_MIN_ITEMS`
(:data:`MAX_UNIQUE_COMPOUND` for unique objects/arrays), required properties nested up to
:data:`MAX_NESTING` levels (without ``$ref``); past those the value is short (and invalid).
"""

from __future__ import annotations

import copy
import math
import re
import zlib
from typing import Any, Iterable

from ._entities import Entities, extract, number_for, string_for

__all__ = ["value_for", "tool_input", "is_valid", "prompt_words", "described_constraints"]

MAX_DEPTH = 12
"""Nesting depth past which only the smallest value of a type is made (recursive ``$ref``s)."""
MAX_NODES = 2_000
"""Sub-schemas visited per call; past it every value is the smallest of its type."""
MAX_ITEMS = 64
"""Most array items or object properties made for one value, whatever ``minItems`` asks."""
MAX_STRING = 4_096
"""Longest string made from text or a pattern (a longer ``minLength`` is met by padding)."""
MAX_MIN_LENGTH = 100_000
"""Largest ``minLength`` met exactly (padding); past it the string stops here (invalid)."""
MAX_MIN_ITEMS = 10_000
"""Largest ``minItems`` met exactly: past :data:`MAX_ITEMS` the items made repeat (or, under
``uniqueItems``, vary by variant while the node budget lasts); past this the array stops here."""
MAX_UNIQUE_COMPOUND = 256
"""Largest ``minItems`` met under ``uniqueItems`` when the items are objects or arrays (their
uniqueness is checked pairwise by the validator: quadratic time)."""
MAX_NESTING = 160
"""Depth to which the required properties of nested objects (no ``$ref``) are still filled in,
so a valid schema nested 100+ levels deep gets a valid value; past it, ``{}``."""

_TYPES = ("object", "array", "string", "integer", "number", "boolean", "null")
_SMALLEST: dict[str, Any] = {"object": {}, "array": [], "string": "", "integer": 0, "number": 0,
                             "boolean": False, "null": None}

_STOPWORDS = frozenset("""a an and are as at be by can could do does for from get give how i in is it
its me my of on or please should tell that the this to today was what when where which who why will
with would you your yo el la los las de del en un una que por para con es qué cómo cuál""".split())

# Meaningful strings, by a word of the property name (or its description): (keywords, values).
_HINTS: tuple[tuple[tuple[str, ...], tuple[str, ...]], ...] = (
    (("email", "mail"), ("ada@example.com", "grace@example.com", "alan@example.com")),
    (("city", "town", "location", "place", "destination", "origin"), ("Paris", "Tokyo", "Austin", "Lima")),
    (("country",), ("France", "Japan", "Peru", "Kenya")),
    (("address", "street"), ("12 Rue de Rivoli, Paris", "1-1 Chiyoda, Tokyo")),
    (("first",), ("Ada", "Grace", "Alan")),
    (("last", "surname"), ("Lovelace", "Hopper", "Turing")),
    (("name", "customer", "user", "author", "person", "recipient"), ("Ada Lovelace", "Grace Hopper", "Alan Turing")),
    (("phone", "tel", "mobile"), ("+1-555-0100", "+1-555-0101")),
    (("url", "uri", "link", "website", "href", "endpoint"), ("https://example.com/", "https://example.org/docs")),
    (("path", "file", "filename", "dir", "folder"), ("notes.txt", "data/report.csv", "src/main.py")),
    (("language", "lang", "locale"), ("en", "es", "fr")),
    (("currency",), ("EUR", "USD", "JPY")),
    (("unit", "units"), ("celsius", "fahrenheit")),
    (("color", "colour"), ("blue", "green", "red")),
    (("status", "state"), ("open", "pending", "done")),
    (("date", "day"), ("2025-01-15", "2025-02-01")),
    (("time",), ("09:30", "14:00")),
)
_PROMPT_HINTS = ("query", "q", "search", "prompt", "question", "text", "message", "content", "topic",
                 "keywords", "keyword", "term", "terms", "input", "body", "subject", "title", "summary",
                 "description", "instruction", "instructions", "task", "request", "reason", "note", "notes",
                 "comment", "answer", "response", "result", "output")
_ONE_WORD_HINTS = ("keyword", "term", "word", "tag", "topic")
"""Property names (last word) that take a single word of the prompt, not a phrase."""
_PLACE_HINTS = ("city", "town", "location", "place", "destination", "origin")
_EXPRESSION_HINTS = ("expression", "expr", "formula", "calculation", "equation")

_FORMATS: dict[str, tuple[str, ...]] = {
    "date": ("2025-01-15", "2025-02-01", "2025-03-10"),
    "date-time": ("2025-01-15T09:30:00Z", "2025-02-01T14:00:00Z", "2025-03-10T08:15:00Z"),
    "time": ("09:30:00Z", "14:00:00Z", "08:15:00Z"),
    "duration": ("P1D", "PT2H", "P3W"),
    "email": ("ada@example.com", "grace@example.com", "alan@example.com"),
    "idn-email": ("ada@example.com", "grace@example.com"),
    "hostname": ("example.com", "api.example.org"),
    "idn-hostname": ("example.com", "api.example.org"),
    "ipv4": ("192.0.2.1", "198.51.100.7", "203.0.113.9"),
    "ipv6": ("2001:db8::1", "2001:db8::2"),
    "uri": ("https://example.com/", "https://example.org/docs/1"),
    "uri-reference": ("https://example.com/", "/docs/1"),
    "iri": ("https://example.com/", "https://example.org/docs/1"),
    "iri-reference": ("https://example.com/", "/docs/1"),
    "uri-template": ("https://example.com/{id}",),
    "json-pointer": ("/items/0", "/name"),
    "relative-json-pointer": ("0/name", "1"),
    "regex": ("^[a-z]+$", "[0-9]{3}"),
    "byte": ("aGVsbG8=", "d29ybGQ="),
    "binary": ("hello",),
    "password": ("correct-horse-battery",),
}


def _uuid(n: int) -> str:
    tail = f"{n % 16**12:012x}"
    return f"123e4567-e89b-42d3-a456-{tail}"


def _format_value(fmt: str, n: int) -> str | None:
    """The ``n``-th value of a string ``format`` (the first few from :data:`_FORMATS`, then made
    ones, so ``uniqueItems`` arrays of formatted strings can grow); None for an unknown format."""
    if fmt == "uuid":
        return _uuid(n)
    options = _FORMATS.get(fmt)
    if options is None:
        return None
    if n < len(options):
        return options[n]
    k = n - len(options) + 1
    made = {
        "date": f"2025-{1 + k // 28 % 12:02d}-{1 + k % 28:02d}",
        "date-time": f"2025-{1 + k // 28 % 12:02d}-{1 + k % 28:02d}T10:00:00Z",
        "time": f"{k // 60 % 24:02d}:{k % 60:02d}:00Z",
        "duration": f"P{k + 1}D",
        "email": f"user{k}@example.com", "idn-email": f"user{k}@example.com",
        "hostname": f"host{k}.example.com", "idn-hostname": f"host{k}.example.com",
        "ipv4": f"192.0.2.{k % 250 + 10}" if k < 240 else f"198.51.{k // 250 % 250}.{k % 250}",
        "ipv6": f"2001:db8::{k + 10:x}",
        "uri": f"https://example.com/{k}", "iri": f"https://example.com/{k}",
        "uri-reference": f"/docs/{k}", "iri-reference": f"/docs/{k}",
        "uri-template": f"https://example.com/{k}/{{id}}", "json-pointer": f"/items/{k}",
        "relative-json-pointer": f"{k}", "regex": f"^[a-z]{{{k}}}$", "password": f"correct-horse-{k}",
        "binary": f"hello {k}",
    }
    return made.get(fmt, options[n % len(options)])


def _hash(*parts: Any) -> int:
    return zlib.crc32("\x1f".join(str(p) for p in parts).encode("utf-8", "replace"))


def prompt_words(text: Any, limit: int = 12) -> list[str]:
    """The content words of ``text`` (letters and digits only, stopwords dropped), in order,
    at most ``limit`` of them. Lone surrogates and punctuation never come out."""
    if not isinstance(text, str):
        return []
    words: list[str] = []
    for match in re.finditer(r"[^\W_]+", text[:2_000]):
        word = match.group(0)
        if word.lower() not in _STOPWORDS and len(word) <= 40:
            words.append(word)
            if len(words) >= limit:
                break
    return words


def _finite(value: Any) -> float | None:
    """``value`` as a finite float, or None (booleans, NaN, infinity and non-numbers are None)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    try:
        number = float(value)
    except OverflowError:
        return None
    return number if math.isfinite(number) else None


def _int_or_none(value: Any) -> int | None:
    number = _finite(value)
    if number is None or number < 0:
        return None
    return int(min(number, 10**9))


# ----------------------------------------------------------------------------------------------
# Validation (jsonschema, loaded on first use)
# ----------------------------------------------------------------------------------------------


_NESTED_QUANTIFIER = re.compile(r"\([^()]*(?:[*+}]|\|)[^()]*\)\s*[*+{]")
"""A quantified group that holds a quantifier or an alternation, e.g. ``(a+)+`` or ``(a|a)*``:
the shape of the patterns whose backtracking can take exponential time."""


def _risky_pattern(pattern: Any) -> bool:
    """True for a ``pattern`` that Python's ``re`` might take exponential time on (nested
    quantifiers, quantified alternation, back-references): never run against a value."""
    return isinstance(pattern, str) and (bool(_NESTED_QUANTIFIER.search(pattern[:2_000])) or "\\" in pattern
                                         and bool(re.search(r"\\[1-9]", pattern[:2_000])) or len(pattern) > 2_000)


def _has_risky_pattern(schema: Any, budget: list[int]) -> bool:
    """Whether any ``pattern``/``patternProperties`` key in ``schema`` is risky (a bounded walk)."""
    budget[0] -= 1
    if budget[0] < 0:
        return True
    if isinstance(schema, dict):
        if _risky_pattern(schema.get("pattern")):
            return True
        props = schema.get("patternProperties")
        if isinstance(props, dict) and any(_risky_pattern(k) for k in props):
            return True
        return any(_has_risky_pattern(v, budget) for v in schema.values() if isinstance(v, (dict, list)))
    if isinstance(schema, list):
        return any(_has_risky_pattern(v, budget) for v in schema if isinstance(v, (dict, list)))
    return False


def is_valid(value: Any, schema: Any, root: Any = None) -> bool:
    """True when ``value`` validates under ``schema`` (``$ref`` resolved against ``root``, default
    ``schema`` itself), formats checked. Never raises: a schema jsonschema cannot use gives False.
    Never hangs: a schema with a pattern whose matching could take exponential time (nested
    quantifiers) is not run, and counts as not valid."""
    try:
        from .._jsonschema import import_jsonschema

        validators = import_jsonschema().validators

        base = root if isinstance(root, dict) else schema
        if not isinstance(base, (dict, bool)):
            return False
        if _has_risky_pattern(base, [5_000]):
            return False
        cls = validators.validator_for(base, default=validators.Draft202012Validator)
        validator = cls(base, format_checker=cls.FORMAT_CHECKER)
        if schema is not base:
            validator = validator.evolve(schema=schema)
        return bool(validator.is_valid(value))
    except Exception:  # noqa: BLE001 - garbage schemas, unresolvable refs, recursion: not valid
        return False
    except RecursionError:  # pragma: no cover - a subclass of Exception, kept for clarity
        return False


# ----------------------------------------------------------------------------------------------
# A tiny generator for simple regular expressions
# ----------------------------------------------------------------------------------------------


class _RegexUnsupported(Exception):
    pass


_CLASS_SETS = {"d": "0123456789", "w": "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_",
               "s": " "}
_PRINTABLE = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 -_.,:;/@#"


class _Regex:
    """Parse a simple pattern into a tree and make a string it matches.

    Nodes: ``("lit", chars)``, ``("seq", [nodes])``, ``("alt", [nodes])``, ``("rep", node, lo, hi)``.
    Look-arounds and back-references raise :class:`_RegexUnsupported`."""

    def __init__(self, pattern: str) -> None:
        self.p = pattern
        self.i = 0

    def parse(self) -> Any:
        node = self._alt()
        if self.i != len(self.p):
            raise _RegexUnsupported(self.p)
        return node

    def _alt(self) -> Any:
        options = [self._seq()]
        while self.i < len(self.p) and self.p[self.i] == "|":
            self.i += 1
            options.append(self._seq())
        return options[0] if len(options) == 1 else ("alt", options)

    def _seq(self) -> Any:
        items: list[Any] = []
        while self.i < len(self.p) and self.p[self.i] not in "|)":
            atom = self._atom()
            if atom is None:
                continue
            items.append(self._quantified(atom))
        return ("seq", items)

    def _quantified(self, atom: Any) -> Any:
        if self.i >= len(self.p):
            return atom
        ch = self.p[self.i]
        lo, hi = None, None
        if ch == "*":
            lo, hi = 0, None
            self.i += 1
        elif ch == "+":
            lo, hi = 1, None
            self.i += 1
        elif ch == "?":
            lo, hi = 0, 1
            self.i += 1
        elif ch == "{":
            match = re.match(r"\{(\d+)(,(\d*))?\}", self.p[self.i:])
            if not match:
                return atom
            lo = int(match.group(1))
            hi = lo if match.group(2) is None else (int(match.group(3)) if match.group(3) else None)
            self.i += match.end()
        else:
            return atom
        if self.i < len(self.p) and self.p[self.i] in "?+":
            self.i += 1  # lazy or possessive: same strings
        if lo > 1_000:
            raise _RegexUnsupported(self.p)
        return ("rep", atom, lo, hi)

    def _atom(self) -> Any:
        ch = self.p[self.i]
        if ch in "^$":
            self.i += 1
            return None
        if ch == "(":
            self.i += 1
            if self.p.startswith("?:", self.i):
                self.i += 2
            elif self.p.startswith("?P<", self.i) or self.p.startswith("?<", self.i) and not self.p.startswith("?<=", self.i) and not self.p.startswith("?<!", self.i):
                close = self.p.find(">", self.i)
                if close < 0:
                    raise _RegexUnsupported(self.p)
                self.i = close + 1
            elif self.p.startswith("?", self.i):
                raise _RegexUnsupported(self.p)
            node = self._alt()
            if self.i >= len(self.p) or self.p[self.i] != ")":
                raise _RegexUnsupported(self.p)
            self.i += 1
            return node
        if ch == "[":
            return self._class()
        if ch == ".":
            self.i += 1
            return ("lit", "a")
        if ch == "\\":
            return self._escape(in_class=False)
        if ch in "*+?{":
            raise _RegexUnsupported(self.p)
        self.i += 1
        return ("lit", ch)

    def _escape(self, *, in_class: bool) -> Any:
        self.i += 1
        if self.i >= len(self.p):
            raise _RegexUnsupported(self.p)
        ch = self.p[self.i]
        self.i += 1
        if ch in _CLASS_SETS:
            return ("lit", _CLASS_SETS[ch])
        if ch in "DWS":
            allowed = [c for c in _PRINTABLE if c not in _CLASS_SETS[ch.lower()]]
            return ("lit", "".join(allowed))
        if ch.isdigit() or ch in "bBkpPuxc":
            if ch == "b" and not in_class or ch == "B":
                return None if not in_class else ("lit", "\b")
            raise _RegexUnsupported(self.p)
        return ("lit", {"n": "\n", "t": "\t", "r": "\r", "f": "\f", "v": "\v"}.get(ch, ch))

    def _class(self) -> Any:
        self.i += 1
        negate = self.i < len(self.p) and self.p[self.i] == "^"
        if negate:
            self.i += 1
        chars: list[str] = []
        first = True
        while self.i < len(self.p) and (self.p[self.i] != "]" or first):
            first = False
            if self.p[self.i] == "\\":
                node = self._escape(in_class=True)
                chars.extend(node[1] if node else "")
                continue
            start = self.p[self.i]
            if self.i + 2 < len(self.p) and self.p[self.i + 1] == "-" and self.p[self.i + 2] != "]":
                end = self.p[self.i + 2]
                if ord(end) < ord(start) or ord(end) - ord(start) > 5_000:
                    raise _RegexUnsupported(self.p)
                chars.extend(chr(c) for c in range(ord(start), ord(end) + 1))
                self.i += 3
            else:
                chars.append(start)
                self.i += 1
        if self.i >= len(self.p):
            raise _RegexUnsupported(self.p)
        self.i += 1
        if negate:
            chars = [c for c in _PRINTABLE if c not in set(chars)]
        if not chars:
            raise _RegexUnsupported(self.p)
        return ("lit", "".join(chars))


def _render(node: Any, pick: int, stretch: int, out: list[str], budget: list[int]) -> None:
    budget[0] -= 1
    if budget[0] < 0 or sum(map(len, out)) > MAX_STRING:
        raise _RegexUnsupported("too long")
    kind = node[0]
    if kind == "lit":
        chars = node[1]
        out.append(chars[pick % len(chars)] if chars else "")
    elif kind == "seq":
        for n, child in enumerate(node[1]):
            _render(child, pick + n, stretch, out, budget)
    elif kind == "alt":
        _render(node[1][pick % len(node[1])], pick, stretch, out, budget)
    else:
        _, child, lo, hi = node
        count = lo + stretch if hi is None else min(hi, lo + stretch)
        for n in range(count):
            _render(child, pick + n, stretch, out, budget)


def _split_lookarounds(pattern: str) -> tuple[str, list[str]] | None:
    """``pattern`` without its look-arounds (``(?=...)``, ``(?!...)``, ``(?<=...)``, ``(?<!...)``),
    and the bodies of its positive look-aheads; None when it has none or they do not parse."""
    if "(?=" not in pattern and "(?!" not in pattern and "(?<" not in pattern:
        return None
    rest: list[str] = []
    ahead: list[str] = []
    i = 0
    while i < len(pattern):
        if pattern[i] == "\\":
            rest.append(pattern[i:i + 2])
            i += 2
            continue
        opener = next((o for o in ("(?=", "(?!", "(?<=", "(?<!") if pattern.startswith(o, i)), None)
        if opener is None:
            rest.append(pattern[i])
            i += 1
            continue
        depth, j, in_class = 0, i, False
        while j < len(pattern):
            ch = pattern[j]
            if ch == "\\":
                j += 2
                continue
            if in_class:
                in_class = ch != "]"
            elif ch == "[":
                in_class = True
            elif ch == "(":
                depth += 1
            elif ch == ")":
                depth -= 1
                if depth == 0:
                    break
            j += 1
        if j >= len(pattern):
            return None
        if opener == "(?=":
            ahead.append(pattern[i + 3:j])
        i = j + 1
    return "".join(rest), ahead


def _lookahead_string(pattern: str, seed: int, min_len: int, max_len: int | None, variant: int) -> str | None:
    """A string for a pattern with look-arounds (``^(?=.*[A-Z])(?=.*\\d)[A-Za-z\\d]{8,}$``): a string
    of the pattern without them, with a string of each look-ahead (its leading ``.*`` dropped)
    written over its start or end, checked against the whole pattern; None when none fits."""
    split = _split_lookarounds(pattern)
    if split is None:
        return None
    main, ahead = split
    try:
        compiled = re.compile(pattern)
    except (re.error, RecursionError, OverflowError, ValueError):
        return None
    snippets = []
    for body in ahead[:8]:
        body = re.sub(r"^(?:\.\*\??|\[\^[^\]]*\]\*\??)", "", body)
        made = _pattern_string(f"^(?:{body})", seed, 0, None) if body else ""
        if made is None:
            return None
        snippets.append(made)
    joined = "".join(snippets)
    tried = 0
    for stretch_len in (min_len, max(min_len, len(joined)), max(min_len, len(joined) + 4), 0):
        base = _pattern_string(main, seed, stretch_len, max_len, variant)
        if base is None:
            continue
        for value in (base, joined + base[len(joined):], base[: max(0, len(base) - len(joined))] + joined,
                      joined + base, base + joined):
            tried += 1
            if len(value) >= min_len and (max_len is None or len(value) <= max_len) and compiled.search(value):
                return value
    return None


def _pattern_string(pattern: str, seed: int, min_len: int, max_len: int | None, variant: int = 0) -> str | None:
    """A string that ``re.search(pattern, ...)`` finds, within the length bounds, or None.
    Another ``variant`` tries a longer repetition first, then a tag around the string (an
    unanchored pattern still finds it), so ``uniqueItems`` arrays can differ. Look-arounds:
    :func:`_lookahead_string`."""
    if "(?" in pattern and not _risky_pattern(pattern):
        made = _lookahead_string(pattern, seed, min_len, max_len, variant)
        if made is not None:
            return made
    try:
        tree = _Regex(pattern).parse()
        compiled = re.compile(pattern)
    except (_RegexUnsupported, re.error, RecursionError, OverflowError, ValueError):
        return None
    risky = _risky_pattern(pattern)

    def fits(value: str) -> bool:
        # A risky pattern is never run: the string made from its own parse is trusted.
        return len(value) >= min_len and (max_len is None or len(value) <= max_len) and (risky or bool(compiled.search(value)))

    if variant:
        try:
            out: list[str] = []
            _render(tree, seed % 7, variant, out, [20_000])
            base = "".join(out)
        except (_RegexUnsupported, RecursionError):
            base = None
        if base is not None:
            tag = _base36(variant)
            # The tagged forms first: an unanchored pattern renders the same base for every variant.
            for value in (base + tag, tag + base, f"{base} {tag}", base):
                if fits(value):
                    return value
    for stretch in (0, 1, 2, 4, 8, 16, 32, 64, 256, 1024):
        for pick in (seed % 7, 0):
            try:
                out: list[str] = []
                _render(tree, pick, stretch, out, [20_000])
            except (_RegexUnsupported, RecursionError):
                break
            value = "".join(out)
            if fits(value):
                return value
        if max_len is not None and stretch > max_len:
            break
    return None


# ----------------------------------------------------------------------------------------------
# The generator
# ----------------------------------------------------------------------------------------------


def _types_of(schema: dict[str, Any]) -> list[str]:
    """The schema's types in order (a string or a list; unknown names dropped), or inferred from
    its keywords when it names none."""
    declared = schema.get("type")
    if isinstance(declared, str):
        declared = [declared]
    if isinstance(declared, list):
        known = [t for t in declared if isinstance(t, str) and t in _TYPES]
        if known:
            return list(dict.fromkeys(known))
    if any(k in schema for k in ("properties", "required", "additionalProperties", "minProperties", "patternProperties")):
        return ["object"]
    if any(k in schema for k in ("items", "prefixItems", "minItems", "maxItems", "contains", "uniqueItems")):
        return ["array"]
    if any(k in schema for k in ("minLength", "maxLength", "pattern", "format")):
        return ["string"]
    if any(k in schema for k in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf")):
        return ["number"]
    return ["string"]


def _merge(base: dict[str, Any], other: dict[str, Any]) -> dict[str, Any]:
    """One schema asking for both (an ``allOf`` step): properties and required united, types and
    enums intersected, the tighter bound kept. Keywords it does not know: ``other`` wins."""
    merged = dict(base)
    for key, value in other.items():
        if key not in merged:
            merged[key] = value
            continue
        mine = merged[key]
        if key == "properties" and isinstance(mine, dict) and isinstance(value, dict):
            props = dict(mine)
            for name, sub in value.items():
                props[name] = {"allOf": [props[name], sub]} if name in props else sub
            merged[key] = props
        elif key == "required" and isinstance(mine, list) and isinstance(value, list):
            merged[key] = list(dict.fromkeys(r for r in [*mine, *value] if isinstance(r, str)))
        elif key == "type":
            a = {mine} if isinstance(mine, str) else {t for t in mine if isinstance(t, str)} if isinstance(mine, list) else set(_TYPES)
            b = {value} if isinstance(value, str) else {t for t in value if isinstance(t, str)} if isinstance(value, list) else set(_TYPES)
            both = a & b
            if "number" in a and "integer" in b or "integer" in a and "number" in b:
                both.add("integer")
            order = [t for t in _TYPES if t in both]
            merged[key] = order or value
        elif key == "enum" and isinstance(mine, list) and isinstance(value, list):
            merged[key] = [v for v in mine if v in value] or value
        elif key in ("minimum", "exclusiveMinimum", "minLength", "minItems", "minProperties"):
            a, b = _finite(mine), _finite(value)
            merged[key] = value if a is None else mine if b is None else max(mine, value)
        elif key in ("maximum", "exclusiveMaximum", "maxLength", "maxItems", "maxProperties"):
            a, b = _finite(mine), _finite(value)
            merged[key] = value if a is None else mine if b is None else min(mine, value)
        elif key in ("allOf", "anyOf", "oneOf") and isinstance(mine, list) and isinstance(value, list):
            merged[key] = [*mine, *value] if key == "allOf" else mine
            if key != "allOf":
                merged.setdefault("allOf", [])
                if isinstance(merged["allOf"], list):
                    merged["allOf"] = [*merged["allOf"], {key: value}]
        else:
            merged[key] = value
    return merged


_DESCRIBED_KEYS = ("minItems", "maxItems", "uniqueItems", "prefixItems", "contains", "minContains", "maxContains",
                   "minLength", "maxLength", "pattern", "format", "minimum", "maximum", "exclusiveMinimum",
                   "exclusiveMaximum", "multipleOf", "minProperties", "maxProperties", "patternProperties",
                   "propertyNames", "dependentRequired", "not", "if", "then", "else", "items", "additionalItems")
"""Keywords the SDK's ``transform_schema`` moves into ``description`` that the generator honours."""
_DESCRIBED_SPLIT = re.compile(r", (?=(?:[A-Za-z_$][A-Za-z0-9_$]*): )")
_RAW_STRING_KEYS = ("pattern", "format")


def described_constraints(description: Any) -> dict[str, Any]:
    """The constraints the ``anthropic`` SDK's ``transform_schema`` (``anthropic/lib/_parse/
    _transform.py``, used by ``messages.parse(output_format=Model)``) moved into a description:
    it appends ``"\\n\\n{key: value, key: value}"`` (or the whole description is that block), each
    value as Python's ``str()`` (``{maxItems: 5, minItems: 3}``, ``{prefixItems: [{'type':
    'integer'}], ...}``, ``{pattern: ^[A-Z]{3}$}``). A real model reads that text and follows it.

    Returns the keywords of :data:`_DESCRIBED_KEYS` whose values parse (``ast.literal_eval``;
    ``pattern``/``format`` as raw text); ``{}`` for any other description. Never raises."""
    if not isinstance(description, str) or not description.endswith("}") or len(description) > 20_000:
        return {}
    cut = description.rfind("\n\n{")
    block = description[cut + 2:] if cut >= 0 else description
    if not block.startswith("{"):
        return {}
    import ast

    found: dict[str, Any] = {}
    for part in _DESCRIBED_SPLIT.split(block[1:-1]):
        key, sep, raw = part.partition(": ")
        if not sep or key not in _DESCRIBED_KEYS:
            continue
        if key in _RAW_STRING_KEYS:
            found[key] = raw
            continue
        try:
            found[key] = ast.literal_eval(raw)
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            continue
    return found


def _with_described(schema: dict[str, Any]) -> dict[str, Any]:
    """``schema`` plus the constraints its description carries (:func:`described_constraints`);
    keywords the schema states itself win."""
    extra = described_constraints(schema.get("description"))
    extra = {k: v for k, v in extra.items() if k not in schema}
    return {**schema, **extra} if extra else schema


_CHECKED_TRIES = 12
"""Candidates :meth:`_Generator.checked` makes for one ``not``/``if`` schema before giving up."""


def _negations(schema: dict[str, Any]) -> list[dict[str, Any]]:
    """Schemas that each contradict one keyword of ``schema`` (``maxLength: 5`` -> ``minLength: 6``,
    ``minimum: 3`` -> ``exclusiveMaximum: 3``...), for ``not`` and ``oneOf``; keywords with no simple
    opposite (``const``, ``enum``, ``pattern``) give none (other variants are tried instead)."""
    out: list[dict[str, Any]] = []
    for key, value in schema.items():
        number = _finite(value)
        if number is None:
            continue
        if key == "maxLength":
            out.append({"minLength": int(number) + 1})
        elif key == "minLength" and number > 0:
            out.append({"maxLength": int(number) - 1})
        elif key == "maxItems":
            out.append({"minItems": int(number) + 1})
        elif key == "minItems" and number > 0:
            out.append({"maxItems": int(number) - 1})
        elif key == "maxProperties":
            out.append({"minProperties": int(number) + 1})
        elif key == "maximum":
            out.append({"exclusiveMinimum": value})
        elif key == "minimum":
            out.append({"exclusiveMaximum": value})
        elif key == "exclusiveMaximum":
            out.append({"minimum": value})
        elif key == "exclusiveMinimum":
            out.append({"maximum": value})
    return out


def _near(value: Any) -> list[Any]:
    """``value`` and, for a number, one half more (a ``number`` that must not be an ``integer``)."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return [value, value + 0.5]
    return [value]


class _Generator:
    """One generation: the root (for ``$ref``), the seed, the words to use, the node budget."""

    def __init__(self, root: Any, seed: int, words: list[str], optional: str, text: str = "",
                 entities: Entities | None = None) -> None:
        self.root = root
        self.seed = seed
        self.words = words
        self.text = text
        self.optional = optional
        self.nodes = 0
        self.entities = entities if entities is not None else Entities()
        self.siblings: tuple[str, ...] = ()
        self.used_numbers: set[float] = set()

    # -- helpers ------------------------------------------------------------------------------
    def pick(self, path: str, n: int) -> int:
        return _hash(self.seed, path) % n if n > 0 else 0

    def resolve(self, ref: Any) -> Any:
        """The sub-schema a local ``$ref`` (``#``, ``#/$defs/X``, any JSON pointer) points at, or None."""
        if not isinstance(ref, str) or not ref.startswith("#"):
            return None
        node = self.root
        pointer = ref[1:]
        if not pointer:
            return node
        if not pointer.startswith("/"):
            return None
        for part in pointer[1:].split("/"):
            part = part.replace("~1", "/").replace("~0", "~")
            if isinstance(node, dict) and part in node:
                node = node[part]
            elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
                node = node[int(part)]
            else:
                return None
        return node

    def flatten(self, schema: dict[str, Any], refs: tuple[str, ...]) -> tuple[dict[str, Any], tuple[str, ...], bool]:
        """``schema`` with its ``$ref`` and ``allOf`` folded in. Returns (schema, refs followed,
        whether a recursive reference was cut)."""
        cut = False
        for _ in range(32):
            ref = schema.get("$ref")
            if isinstance(ref, str):
                rest = {k: v for k, v in schema.items() if k != "$ref"}
                target = self.resolve(ref)
                if not isinstance(target, dict):
                    schema = rest
                    continue
                cut = cut or refs.count(ref) >= 2  # recursive: keep to the smallest value from here
                refs = (*refs, ref)
                schema = _merge(target, rest) if rest else dict(target)
                continue
            all_of = schema.get("allOf")
            if isinstance(all_of, list) and all_of:
                merged = {k: v for k, v in schema.items() if k != "allOf"}
                for sub in all_of[:MAX_ITEMS]:
                    if isinstance(sub, dict):
                        merged = _merge(merged, sub)
                schema = merged
                continue
            if "allOf" in schema:
                schema = {k: v for k, v in schema.items() if k != "allOf"}
                continue
            break
        return schema, refs, cut

    # -- the walk -----------------------------------------------------------------------------
    def gen(self, schema: Any, path: str, name: str, depth: int, refs: tuple[str, ...] = (), variant: int = 0) -> Any:
        self.nodes += 1
        if schema is True or schema is None or not isinstance(schema, dict):
            return self.text_for(name, "", path, variant, {}) if schema is True else None
        schema, refs, cut = self.flatten(schema, refs)
        schema = _with_described(schema)
        tight = cut or depth > MAX_DEPTH or self.nodes > MAX_NODES
        if not tight and ("not" in schema or "if" in schema):
            return self.checked(schema, path, name, depth, refs, variant)

        if "const" in schema:
            return copy.deepcopy(schema["const"])
        for key in ("default",):
            if key in schema and is_valid(schema[key], schema, self.root):
                return copy.deepcopy(schema[key])
        examples = schema.get("examples")
        if isinstance(examples, list):
            for example in examples[:8]:
                if is_valid(example, schema, self.root):
                    return copy.deepcopy(example)
        types = _types_of(schema)
        enum = schema.get("enum")
        if isinstance(enum, list) and enum:
            fitting = [v for v in enum if _json_type_ok(v, types)] or enum
            choice = fitting[(self.pick(path, len(fitting)) + variant) % len(fitting)] if not tight else fitting[0]
            return copy.deepcopy(choice)

        for key in ("anyOf", "oneOf"):
            options = schema.get(key)
            if isinstance(options, list) and options:
                base = {k: v for k, v in schema.items() if k not in ("anyOf", "oneOf")}
                value = self.one_of(base, options, key, path, name, depth, refs, variant)
                return value

        if tight:
            if "null" in types:
                return None
            return self.smallest(schema, types, path, name, depth, refs)
        kind = next((t for t in types if t != "null"), types[0])
        return self.of_type(kind, schema, path, name, depth, refs, variant)

    def checked(self, schema: dict[str, Any], path: str, name: str, depth: int, refs: tuple[str, ...],
                variant: int) -> Any:
        """A value for a schema with ``not`` or ``if``/``then``/``else``: candidates made without
        them (``if`` and ``then`` merged in first, then ``else``; then each keyword of ``not``
        contradicted, see :func:`_negations`; then other variants), the first that validates under
        the whole schema. At most :data:`_CHECKED_TRIES` candidates; else the first one."""
        base = {k: v for k, v in schema.items() if k not in ("not", "if", "then", "else")}
        shapes: list[dict[str, Any]] = []
        cond, then, other = schema.get("if"), schema.get("then"), schema.get("else")
        if isinstance(cond, dict):
            with_if = _merge(base, cond)
            shapes.append(_merge(with_if, then) if isinstance(then, dict) else with_if)
            shapes.append(_merge(base, other) if isinstance(other, dict) else base)
        else:
            shapes.append(base)
        negated = schema.get("not")
        if isinstance(negated, dict):
            shapes += [_merge(shapes[0], n) for n in _negations(negated)]
        first = None
        tries = 0
        for k in range(_CHECKED_TRIES):
            for n, shape in enumerate(shapes):
                if tries >= _CHECKED_TRIES:
                    break
                tries += 1
                value = self.gen(shape, path if k == 0 else f"{path}~{k}", name, depth, refs, variant + k)
                first = value if first is None else first
                for candidate in _near(value):
                    if is_valid(candidate, schema, self.root):
                        return candidate
        return first

    def one_of(self, base: dict[str, Any], options: list[Any], key: str, path: str, name: str, depth: int,
               refs: tuple[str, ...], variant: int) -> Any:
        whole = {**base, key: options}
        dicts = [o for o in options[:MAX_ITEMS] if isinstance(o, dict) or o is True]
        if not dicts:
            return self.gen(base, path, name, depth + 1, refs, variant)
        # Prefer a branch that is not just null, so values are meaningful.
        order = sorted(range(len(dicts)), key=lambda i: (isinstance(dicts[i], dict) and dicts[i].get("type") == "null", i))
        turn = variant % len(order)  # items of a uniqueItems array walk through the branches
        order = order[turn:] + order[:turn]
        last = None
        for attempt, i in enumerate(order[:8]):
            option = dicts[i] if isinstance(dicts[i], dict) else {}
            candidate = self.gen(_merge(base, option) if base else option, f"{path}|{i}", name, depth + 1, refs, variant)
            last = candidate if last is None or attempt == 0 else last
            if is_valid(candidate, whole, self.root):
                return candidate
        if key == "oneOf":
            # The value matched several branches: a branch with one keyword of each other branch contradicted.
            for i in order[:8]:
                option = dicts[i] if isinstance(dicts[i], dict) else {}
                shape = _merge(base, option) if base else option
                for j, other in enumerate(dicts[:8]):
                    if j != i and isinstance(other, dict):
                        shape = _merge(shape, (_negations(other) or [{}])[0])
                candidate = self.gen(shape, f"{path}|{i}!", name, depth + 1, refs, variant)
                for value in _near(candidate):
                    if is_valid(value, whole, self.root):
                        return value
        return last

    def smallest(self, schema: dict[str, Any], types: list[str], path: str, name: str, depth: int,
                 refs: tuple[str, ...]) -> Any:
        kind = types[0]
        if kind == "object":
            required = schema.get("required") if isinstance(schema.get("required"), list) else []
            props = schema.get("properties") if isinstance(schema.get("properties"), dict) else {}
            if self.nodes > MAX_NODES * 2 or depth > (MAX_DEPTH * 2 if refs else MAX_NESTING):
                return {}
            return {r: self.gen(props.get(r, {}), f"{path}/{r}", r, depth + 1, refs)
                    for r in required[:MAX_ITEMS] if isinstance(r, str)}
        if kind == "array":
            if self.nodes > MAX_NODES * 2 or depth > MAX_DEPTH * 2:
                return []
            count = min(_int_or_none(schema.get("minItems")) or 0, MAX_ITEMS)
            items = schema.get("items") if isinstance(schema.get("items"), dict) else {}
            return [self.gen(items, f"{path}/{n}", name, depth + 1, refs, n) for n in range(count)]
        if kind == "string":
            return self.string(schema, path, name, 0)
        if kind in ("integer", "number"):
            return self.number(schema, kind, path, name, 0)
        return _SMALLEST[kind]

    def of_type(self, kind: str, schema: dict[str, Any], path: str, name: str, depth: int,
                refs: tuple[str, ...], variant: int) -> Any:
        if kind == "object":
            return self.obj(schema, path, depth, refs, variant)
        if kind == "array":
            return self.array(schema, path, name, depth, refs, variant)
        if kind == "string":
            return self.string(schema, path, name, variant)
        if kind in ("integer", "number"):
            return self.number(schema, kind, path, name, variant)
        if kind == "boolean":
            return (self.pick(path, 2) + variant) % 2 == 0
        return None

    # -- objects ------------------------------------------------------------------------------
    def obj(self, schema: dict[str, Any], path: str, depth: int, refs: tuple[str, ...], variant: int) -> dict[str, Any]:
        props = schema.get("properties") if isinstance(schema.get("properties"), dict) else {}
        required = [r for r in schema.get("required", []) if isinstance(r, str)] if isinstance(schema.get("required"), list) else []
        dependent = schema.get("dependentRequired") if isinstance(schema.get("dependentRequired"), dict) else {}
        max_props = _int_or_none(schema.get("maxProperties"))
        min_props = min(_int_or_none(schema.get("minProperties")) or 0, MAX_ITEMS)
        names: list[str] = []
        for prop in props:
            if prop in required or self.include_optional(path, prop):
                names.append(prop)
        names += [r for r in required if r not in names]
        # Optional properties first to go when maxProperties is tight.
        if max_props is not None and len(names) > max_props:
            optional = [n for n in names if n not in required]
            while optional and len(names) > max_props:
                names.remove(optional.pop())
        for n in list(names):
            extra = dependent.get(n)
            if isinstance(extra, list):
                names += [e for e in extra if isinstance(e, str) and e not in names]
        names = names[:MAX_ITEMS]
        value: dict[str, Any] = {}
        extra_schema = schema.get("additionalProperties", True)
        outer_siblings = self.siblings
        for prop in names:
            sub = props.get(prop)
            if sub is None:
                sub = self.pattern_schema(schema, prop) or (extra_schema if isinstance(extra_schema, dict) else {})
            self.siblings = tuple(n for n in props if n != prop)
            value[prop] = self.gen(sub, f"{path}/{prop}", prop, depth + 1, refs, variant)
        self.siblings = outer_siblings
        # An object with nothing declared to vary (an item of a uniqueItems array): one more property.
        if variant and not props and extra_schema is not False and (max_props is None or len(value) < max_props):
            key = f"item_{variant}"
            value[key] = self.gen(extra_schema, f"{path}/{key}", key, depth + 1, refs, variant) \
                if isinstance(extra_schema, dict) else variant
        # More properties when minProperties asks: first unused declared ones, then new names.
        spare = [p for p in props if p not in value]
        patterns = [(k, v) for k, v in schema.get("patternProperties", {}).items()
                    if isinstance(k, str) and isinstance(v, (dict, bool)) and v is not False] \
            if isinstance(schema.get("patternProperties"), dict) else []
        n = 0
        while len(value) < min_props and n < MAX_ITEMS * 2:
            made = None if spare else self.new_name(schema, patterns, path, n, extra_schema)
            n += 1
            if spare:
                prop = spare.pop(0)
                sub: Any = props[prop]
            elif made is None:
                break
            else:
                prop, sub = made
            if prop not in value:
                value[prop] = self.gen(sub, f"{path}/{prop}", prop, depth + 1, refs, variant)
        return value

    def new_name(self, schema: dict[str, Any], patterns: list[tuple[str, Any]], path: str, n: int,
                 extra_schema: Any) -> tuple[str, Any] | None:
        """The ``n``-th undeclared property to add (``minProperties``) and its schema: a name made
        for a ``patternProperties`` pattern, else ``extra_<n>`` under ``additionalProperties``; the
        name valid under ``propertyNames`` (made from it when ``extra_<n>`` is not). None: no way."""
        names = schema.get("propertyNames")
        names = names if isinstance(names, dict) else None
        options: list[tuple[str, Any]] = []
        for pattern, sub in patterns[:8]:
            made = _pattern_string(pattern, self.seed + n, 1, None, n)
            if made is not None:
                options.append((made, sub if isinstance(sub, dict) else {}))
        if extra_schema is not False:
            sub = extra_schema if isinstance(extra_schema, dict) else {}
            options.append((f"extra_{n + 1}", sub))
            if names is not None:
                made = self.gen({**names, "type": "string"}, f"{path}/propertyNames/{n}", "key", MAX_DEPTH, (), n)
                if isinstance(made, str):
                    options.append((made, sub))
        for prop, sub in options:
            if names is None or is_valid(prop, names, self.root):
                if extra_schema is False and self.pattern_schema(schema, prop) is None:
                    continue
                return prop, (self.pattern_schema(schema, prop) or sub)
        return None

    def include_optional(self, path: str, prop: str) -> bool:
        if self.optional == "all":
            return True
        if self.optional == "none":
            return False
        return _hash(self.seed, path, prop, "optional") % 2 == 0

    def pattern_schema(self, schema: dict[str, Any], prop: str) -> dict[str, Any] | None:
        patterns = schema.get("patternProperties")
        if not isinstance(patterns, dict):
            return None
        for pattern, sub in patterns.items():
            try:
                if isinstance(sub, dict) and re.search(pattern, prop):
                    return sub
            except (re.error, TypeError):
                continue
        return None

    # -- arrays -------------------------------------------------------------------------------
    def array(self, schema: dict[str, Any], path: str, name: str, depth: int, refs: tuple[str, ...], variant: int) -> list[Any]:
        prefix = schema.get("prefixItems")
        items = schema.get("items")
        if isinstance(items, list):  # draft 4-7 tuple form
            prefix, items = items, schema.get("additionalItems", True)
        prefix = [p for p in prefix if isinstance(p, (dict, bool))] if isinstance(prefix, list) else []
        lo = min(_int_or_none(schema.get("minItems")) or 0, MAX_ITEMS)
        hi = _int_or_none(schema.get("maxItems"))
        want = max(lo, 1 if hi != 0 else 0, min(len(prefix), MAX_ITEMS))
        if hi is not None:
            want = min(want, hi) if lo <= hi else lo
        if items is False:
            want = min(want, len(prefix)) if len(prefix) >= lo else want
        want = min(want, MAX_ITEMS)
        unique = schema.get("uniqueItems") is True
        out: list[Any] = []
        contains = schema.get("contains")
        if isinstance(contains, dict) and want > 0 and not prefix:
            out.append(self.gen(contains, f"{path}/contains", name, depth + 1, refs, variant))
        n = len(out)
        tries = 0
        while len(out) < want and tries < want * 4 + 8 and self.nodes <= MAX_NODES:
            index = len(out)
            sub = prefix[index] if index < len(prefix) else (items if isinstance(items, (dict, bool)) else {})
            if sub is False:
                break
            item = self.gen(sub, f"{path}/{index}", _singular(name), depth + 1, refs, variant + n)
            n += 1
            tries += 1
            if unique and any(_same(item, seen) for seen in out):
                if isinstance(item, dict):  # an open object can tell itself apart with one more property
                    marked = {**item, f"item_{index + 1}": index + 1}
                    if not any(_same(marked, seen) for seen in out) and is_valid(marked, sub, self.root):
                        out.append(marked)
                continue
            out.append(item)
        need = min(_int_or_none(schema.get("minItems")) or 0, MAX_MIN_ITEMS)
        if need > len(out) > 0 and len(out) >= MAX_ITEMS and (hi is None or need <= hi):
            out = self.more_items(out, need, prefix, items, unique, path, name, depth, refs, variant + n)
        return out

    def more_items(self, out: list[Any], need: int, prefix: list[Any], items: Any, unique: bool, path: str,
                   name: str, depth: int, refs: tuple[str, ...], variant: int) -> list[Any]:
        """``out`` grown to ``need`` items (``minItems`` past :data:`MAX_ITEMS`): the items made so far
        repeated, or under ``uniqueItems`` new variants of the item schema (each seen once, by its
        JSON), each made on a fresh node budget; gives up after ``3 * need`` tries."""
        import json

        sub = items if isinstance(items, (dict, bool)) else {}
        if not unique:
            tail = out[len(prefix):] or out
            return out + [copy.deepcopy(tail[k % len(tail)]) for k in range(need - len(out))]
        if sub is False:
            return out
        if any(isinstance(v, (dict, list)) for v in out):
            # Unique objects/arrays: jsonschema checks uniqueItems on them pairwise (quadratic), so
            # past MAX_UNIQUE_COMPOUND the array stays short of minItems (invalid, but fast).
            need = min(need, MAX_UNIQUE_COMPOUND)
        seen = {json.dumps(v, sort_keys=True, default=str) for v in out}
        nodes = self.nodes
        for k in range(3 * need):
            if len(out) >= need:
                break
            self.nodes = min(nodes, MAX_NODES)
            item = self.gen(sub, f"{path}/{len(out)}", _singular(name), depth + 1, refs, variant + k)
            key = json.dumps(item, sort_keys=True, default=str)
            if key not in seen:
                seen.add(key)
                out.append(item)
        self.nodes = nodes
        return out

    # -- strings ------------------------------------------------------------------------------
    def string(self, schema: dict[str, Any], path: str, name: str, variant: int) -> str:
        lo = min(_int_or_none(schema.get("minLength")) or 0, MAX_MIN_LENGTH)
        hi = _int_or_none(schema.get("maxLength"))
        pattern = schema.get("pattern")
        fmt = schema.get("format")
        candidates: list[str] = []
        if isinstance(fmt, str):
            options = _FORMATS.get(fmt, ())
            formatted = _format_value(fmt, (self.pick(path, len(options)) if options else self.pick(path, 10_000)) + variant)
            if formatted is not None:
                candidates.append(formatted)
        description = schema.get("description") if isinstance(schema.get("description"), str) else ""
        if variant == 0 and self.entities:
            # What the prompt and the task's tool results name ("CDG to JFK", "ann@example.com",
            # the "AF123" a search returned): first, when the schema accepts it (_entities).
            found = string_for(name, self.entities, fmt=fmt, description=description, siblings=self.siblings)
            if found is not None and is_valid(found, schema, self.root):
                return found
        candidates.append(self.text_for(name, description, path, variant, schema))
        for value in candidates:
            fitted = _fit_length(value, lo, hi)
            if fitted is None:
                continue
            if variant and hi is not None and len(value) > hi:
                # Cut to maxLength: keep variants apart (uniqueItems) with a tag at the end.
                tag = _base36(variant)
                if len(tag) <= len(fitted):
                    fitted = fitted[: len(fitted) - len(tag)] + tag
            if isinstance(pattern, str):
                try:
                    if _risky_pattern(pattern) or not re.search(pattern, fitted):
                        continue
                except (re.error, RecursionError, OverflowError):
                    pass
            return fitted
        if isinstance(pattern, str):
            made = _pattern_string(pattern, self.seed + variant, lo, hi, variant)
            if made is not None and isinstance(fmt, str) and fmt in _FORMATS and not _risky_pattern(pattern):
                # Both a format and a pattern ("date" and "^2030-"): the pattern's string written over
                # the start (or the end) of a formatted value, checked against both.
                target = {"type": "string", "format": fmt, "pattern": pattern}
                for k in range(4):
                    formatted = _format_value(fmt, k + variant) or ""
                    for value in (made, made + formatted[len(made):], formatted[: max(0, len(formatted) - len(made))] + made):
                        if _fit_length(value, lo, hi) == value and is_valid(value, target):
                            return value
            if made is not None:
                return made
        # Honest fallback: the right length; it may not match an unsupported pattern.
        return _fit_length(candidates[0], lo, hi) or ("x" * lo if hi is None or lo <= hi else "x" * lo)

    def text_for(self, name: str, description: str, path: str, variant: int, schema: dict[str, Any]) -> str:
        """A meaningful string for a property called ``name`` (its description as a second hint)."""
        tokens = _name_tokens(name)
        if any(t in _EXPRESSION_HINTS for t in tokens):
            expression = _expression(self.text)
            if expression:
                return expression
            return "2 + 2"
        if tokens and tokens[-1] in ("id", "ids", "key", "ref", "number", "code"):
            stem = "-".join(tokens[:-1]) or tokens[-1]
            return f"{stem}-{1001 + variant + self.pick(path, 50)}"
        if variant == 0 and any(t in _PLACE_HINTS for t in tokens):
            place = _place_in(self.text)
            if place:
                return place
        for keywords, values in _HINTS:
            if any(t in keywords for t in tokens):
                n = self.pick(path, len(values)) + variant
                return values[n % len(values)] + (f" {n // len(values) + 1}" if variant >= len(values) else "")
        if tokens and tokens[-1] in _ONE_WORD_HINTS and self.words:
            # A singular keyword/term/tag is one word: the prompt's first content word (a tool search
            # that matches it as a substring finds what the user asked about).
            return self.words[variant % len(self.words)] + (f" {variant // len(self.words) + 1}" if variant >= len(self.words) else "")
        if any(t in _PROMPT_HINTS for t in tokens) and self.words:
            return " ".join(self.words[:6]) + (f" {variant + 1}" if variant else "")
        desc_tokens = _name_tokens(description)[:12]
        for keywords, values in _HINTS:
            if any(t in keywords for t in desc_tokens):
                n = self.pick(path, len(values)) + variant
                return values[n % len(values)] + (f" {n // len(values) + 1}" if variant >= len(values) else "")
        if self.words and not tokens:
            return " ".join(self.words[:6]) + (f" {variant + 1}" if variant else "")
        label = " ".join(tokens) if tokens else "value"
        return f"example {label}" + (f" {variant + 1}" if variant else "")

    # -- numbers ------------------------------------------------------------------------------
    def number(self, schema: dict[str, Any], kind: str, path: str, name: str, variant: int) -> int | float:
        lo, lo_open = _finite(schema.get("minimum")), False
        hi, hi_open = _finite(schema.get("maximum")), False
        ex_lo, ex_hi = schema.get("exclusiveMinimum"), schema.get("exclusiveMaximum")
        if ex_lo is True and lo is not None:
            lo_open = True
        elif _finite(ex_lo) is not None and (lo is None or _finite(ex_lo) >= lo):
            lo, lo_open = _finite(ex_lo), True
        if ex_hi is True and hi is not None:
            hi_open = True
        elif _finite(ex_hi) is not None and (hi is None or _finite(ex_hi) <= hi):
            hi, hi_open = _finite(ex_hi), True
        step = _finite(schema.get("multipleOf"))
        if step is not None and step <= 0:
            step = None
        integer = kind == "integer"
        base = _number_hint(name)

        def inside(x: float) -> bool:
            if lo is not None and (x < lo or lo_open and x <= lo):
                return False
            if hi is not None and (x > hi or hi_open and x >= hi):
                return False
            return True

        def ok(x: float) -> bool:
            if not inside(x) or not math.isfinite(x):
                return False
            if integer and x != int(x):
                return False
            if step is not None:
                quotient = x / step
                if not math.isfinite(quotient) or int(quotient) != quotient:
                    return False
            return True

        candidates: list[float] = [base]
        found = [float(n) for n in number_for(name, self.entities, frozenset(self.used_numbers))] \
            if variant == 0 and self.entities else []
        for x in found:
            if ok(x):  # a number the prompt or a tool result gives ("20C" for ``temp``): _entities
                self.used_numbers.add(_tidy(x))
                return int(x) if integer else _tidy(x)
        if lo is not None:
            candidates += [lo, lo + 1, math.floor(lo) + 1, lo + (hi - lo) / 2 if hi is not None else lo + 1]
        if hi is not None:
            candidates += [hi, hi - 1, math.ceil(hi) - 1]
        if step is not None:
            anchor = lo if lo is not None else (hi if hi is not None else base)
            try:
                k0 = math.ceil(anchor / step)
            except (OverflowError, ValueError):
                k0 = 0
            if abs(k0) < 10**15:
                candidates += [k * step for k in range(k0 - 1, k0 + 64)]
                if integer:
                    candidates += [float(round(k * step)) for k in range(k0, k0 + 64)]
        candidates.append(0.0)
        for x in candidates:
            if isinstance(x, float) and not math.isfinite(x):
                continue
            x = float(round(x)) if integer and abs(x) < 2**53 else x
            if ok(x):
                # Another variant (an item of a uniqueItems array): step away from the first value found.
                # Variant v moves 0, +1, -1, +2, -2... units away; an offset outside the bounds
                # gives the first value again (a uniqueItems array then tries the next variant).
                if variant:
                    unit = step or 1.0
                    if not integer and step is None and lo is not None and hi is not None and hi - lo < 64:
                        unit = (hi - lo) / 64
                    offset = (variant + 1) // 2 * (1 if variant % 2 else -1)
                    moved = x + offset * unit
                    if integer and abs(moved) < 2**53:
                        moved = float(round(moved))
                    if ok(moved):
                        return int(moved) if integer else _tidy(moved)
                return int(x) if integer else _tidy(x)
        # Contradictory or unsatisfiable bounds: the best value near the lower bound.
        best = lo if lo is not None else hi if hi is not None else 0.0
        best = best if math.isfinite(best) else 0.0
        if integer:
            return int(math.ceil(best)) if abs(best) < 1e300 else 0
        return _tidy(best)


def _base36(n: int) -> str:
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"
    out = ""
    while True:
        n, r = divmod(n, 36)
        out = digits[r] + out
        if n == 0:
            return out


def _tidy(x: float) -> int | float:
    """Whole floats as ints (``3.0`` -> ``3``, valid for ``number``); others unchanged."""
    return int(x) if x == int(x) and abs(x) < 2**53 else x


def _number_hint(name: str) -> int:
    tokens = _name_tokens(name)
    if any(t in ("year",) for t in tokens):
        return 2025
    if any(t in ("age",) for t in tokens):
        return 30
    if any(t in ("limit", "count", "max", "top", "size", "n", "num", "number", "quantity", "qty") for t in tokens):
        return 3
    if any(t in ("page", "attempt", "step", "index") for t in tokens):
        return 1
    if any(t in ("amount", "price", "total", "cost") for t in tokens):
        return 42
    return 1


def _name_tokens(name: str) -> list[str]:
    """``"customerEmail"`` / ``"customer_email"`` -> ``["customer", "email"]`` (lower case)."""
    if not isinstance(name, str):
        return []
    spaced = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", name[:200])
    return [t for t in re.split(r"[^a-zA-Z0-9]+", spaced.lower()) if t]


def _singular(name: str) -> str:
    if isinstance(name, str) and len(name) > 3 and name.endswith("ies"):
        return name[:-3] + "y"
    if isinstance(name, str) and len(name) > 2 and name.endswith("s") and not name.endswith("ss"):
        return name[:-1]
    return name


_PLACE_PREPOSITIONS = frozenset("in to from at for near around en a de para desde hacia".split())
_PLACE_CONNECTORS = frozenset("de do da del dos das of upon on am".split())
_NOT_PLACES = _STOPWORDS | frozenset("""weather forecast temperature temperatures rain check find show get give list
search look please hi hello hey can could would will should is are do does what when where which who why how
tell need want send email book plan help hola dime busca quiero clima tiempo""".split())
_WORD = re.compile(r"[^\W\d_](?:[^\W_]|['’.-](?=[^\W\d_]))*")


def _place_in(text: str) -> str | None:
    """The place named in ``text``, Unicode-aware: the run of capitalised words (at most four, with
    ``de``/``do``/``of``... between them: "Rio de Janeiro") after "in"/"to"/"from"/"at"/"for"/"near"
    (or Spanish "en"/"a"/"de"/"para"), e.g. "... in Zürich today?" -> "Zürich", "in São Paulo" ->
    "São Paulo"; else such a run at the very start ("New York weather" -> "New York") unless its
    first word is a common opener ("What", "Weather", "Please"...); else None.
    Unknown: the fake's heuristic; a real model understands the sentence."""
    words = [(m.group(0), m.start(), m.end()) for m in _WORD.finditer(text[:2_000])]

    def run(i: int) -> str | None:
        parts: list[tuple[str, int, int]] = []
        while i < len(words) and len(parts) < 6:
            word, start, _ = words[i]
            if parts and text[parts[-1][2]:start] != " ":
                break
            if word[0].isupper():
                parts.append(words[i])
            elif parts and word in _PLACE_CONNECTORS and i + 1 < len(words) and words[i + 1][0][0].isupper():
                parts.append(words[i])
            else:
                break
            i += 1
        while parts and not parts[-1][0][0].isupper():
            parts.pop()
        if not parts or sum(1 for p in parts if p[0][0].isupper()) > 4:
            return None
        return text[parts[0][1]:parts[-1][2]]

    for i, (word, _, _) in enumerate(words[:-1]):
        if word in _PLACE_PREPOSITIONS:
            found = run(i + 1)
            if found:
                return found
    if words and words[0][1] == len(text) - len(text.lstrip()) and words[0][0].lower() not in _NOT_PLACES:
        found = run(0)
        if found and len(found) > 1:
            return found
    return None


def _expression(text: str) -> str | None:
    """An arithmetic expression in ``text`` ("12 * 7"), or None."""
    match = re.search(r"\d+(?:\.\d+)?(?:\s*[-+*/x×^]\s*\d+(?:\.\d+)?){1,6}", text[:2_000])
    return match.group(0).replace("×", "*") if match else None


def _fit_length(value: str, lo: int, hi: int | None) -> str | None:
    """``value`` padded (repeated) or cut to the bounds; None when the bounds contradict."""
    if hi is not None and lo > hi:
        return None
    if len(value) < lo:
        seed = value or "x"
        value = (seed + " ") * (lo // (len(seed) + 1) + 1)
        value = value[:lo]
        if value.endswith(" "):
            value = value[:-1] + "x"
    if hi is not None and len(value) > hi:
        value = value[:hi]
    return value


def _json_type_ok(value: Any, types: Iterable[str]) -> bool:
    types = set(types)
    checks = {
        "null": value is None,
        "boolean": isinstance(value, bool),
        "integer": isinstance(value, int) and not isinstance(value, bool) or isinstance(value, float) and value.is_integer(),
        "number": isinstance(value, (int, float)) and not isinstance(value, bool),
        "string": isinstance(value, str),
        "array": isinstance(value, list),
        "object": isinstance(value, dict),
    }
    return any(checks.get(t, False) for t in types)


def _same(a: Any, b: Any) -> bool:
    """JSON equality (``1 == 1.0``, but ``True != 1``), as ``uniqueItems`` counts it."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    return a == b


def _json_safe(value: Any, depth: int = 0) -> Any:
    """``value`` with NaN and infinities (a ``const``/``enum``/``default`` of ``1e400`` parses as
    ``inf``) replaced by 0, so the reply is always valid JSON."""
    if isinstance(value, float) and not math.isfinite(value):
        return 0
    if depth > 64:
        return value
    if isinstance(value, list):
        return [_json_safe(v, depth + 1) for v in value]
    if isinstance(value, dict):
        return {k: _json_safe(v, depth + 1) for k, v in value.items()}
    return value


def _seed_int(seed: Any) -> int:
    return seed if isinstance(seed, int) and not isinstance(seed, bool) else _hash(seed)


def value_for(schema: Any, *, seed: Any = 0, words: Iterable[str] | str = (), optional: str = "some",
              root: Any = None, results: str = "") -> Any:
    """A JSON value valid under ``schema``, the same for the same arguments.

    Args:
        schema: a JSON Schema (any draft's usual keywords); anything else gives ``None``
            (or a string for ``True``).
        seed: an int, or any value hashed to one (a scenario name plus the prompt); it picks
            among enum values, example cities, optional properties and ``anyOf`` branches.
        words: words to use for free-text fields (``query``, ``text``...): a string (its content
            words are taken, see :func:`prompt_words`) or a list of words.
        optional: which optional object properties to include: ``"some"`` (about half, chosen
            by the seed), ``"all"`` or ``"none"``.
        root: the document ``$ref`` pointers resolve against (default: ``schema``).
        results: the text of the task's earlier tool results. With ``words`` as a string, the
            entities of both (emails, dates, "X to Y" pairs, person names, ids such as ``AF123``,
            measures such as "20C": :mod:`~agentlab.fake._entities`) fill the properties whose
            names ask for them, when the schema accepts them.

    Returns:
        A JSON-ready value (dicts, lists, str, int, finite float, bool, None). Never raises;
        when the schema is unsatisfiable (contradictory bounds...) the best value found,
        which then fails validation. A few other seeds are tried before giving up.
    """
    word_list = prompt_words(words) if isinstance(words, str) else [w for w in words if isinstance(w, str)][:24]
    raw = words[:2_000] if isinstance(words, str) else " ".join(word_list)
    base_root = root if root is not None else schema
    first = None
    try:
        entities = extract(raw if isinstance(words, str) else "", results if isinstance(results, str) else "")
        for attempt in range(3):
            generator = _Generator(base_root, _seed_int(seed) + attempt * 7919, word_list, optional, raw,
                                   entities if attempt == 0 else None)
            value = generator.gen(schema, "#", "", 0)
            if first is None:
                first = value
            if not isinstance(schema, dict) or is_valid(value, schema, base_root):
                return _json_safe(value)
    except Exception:  # noqa: BLE001 - never raise out of the fake; the bounds should make this unreachable
        return _json_safe(first)
    return _json_safe(first)


def tool_input(schema: Any, *, seed: Any = 0, words: Iterable[str] | str = (), optional: str = "some",
               results: str = "") -> dict[str, Any]:
    """The ``input`` object of a ``tool_use`` block for a tool's ``input_schema``: a dict valid
    under it (tool inputs are always objects, reference 3.4), ``{}`` for a schema that is not
    a dict or whose value would not be an object. Arguments as :func:`value_for`."""
    if not isinstance(schema, dict):
        return {}
    value = value_for(schema, seed=seed, words=words, optional=optional, results=results)
    return value if isinstance(value, dict) else {}
