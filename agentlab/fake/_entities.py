"""Entities in a task's text, for meaningful generated values (one job: text -> entities).

The generic model and structured outputs fill a property from what the user wrote and what the
task's tools returned: ``origin``/``destination`` from "CDG to JFK", ``date`` from "2027-01-15",
``email`` from "ann@example.com", ``passenger_name`` from "Ann Lee", ``flight_id`` from the
``AF123`` a search returned, ``temp`` from "20C". :func:`extract` finds them (deterministic,
regular expressions over the first :data:`SCAN` characters, no model); :func:`string_for` and
:func:`number_for` pick one for a property by its name (and description). The caller checks the
value against the schema and falls back to its own when it does not fit.
Unknown: the fake's heuristics; a real model understands the sentence.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Entities", "extract", "string_for", "number_for"]

SCAN = 4_000
"""Characters of the prompt, and of the tool results, that are scanned."""

_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
_DATE = re.compile(r"\b\d{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01])\b")
_TIME = re.compile(r"\b(?:[01]?\d|2[0-3]):[0-5]\d\b")
_CODE = re.compile(r"\b[A-Z]{3}\b")
_ID = re.compile(r"\b[A-Z]{1,4}-?\d{2,8}\b")
_CAP = r"[A-Z][\w'’-]*"
_RUN = rf"{_CAP}(?: (?:de |do |da |del |of )?{_CAP}){{0,3}}"
_PAIR = re.compile(rf"\b(?:from\s+)?({_RUN})\s+(?:to|->|→|-)\s+({_RUN})")
_PLACE_AFTER = re.compile(rf"\b(?:in|at|near|to|from|en|para)\s+({_RUN})")
_PERSON = re.compile(r"\b([A-Z][a-z]+(?:[-'][A-Z][a-z]+)?) ([A-Z][a-z]+(?:[-'][A-Z][a-z]+)?)\b")
_WORD = re.compile(r"\b[A-Z][a-z]+\b")
_CAP_RUN = re.compile(r"\b[A-Z][\w'’-]*(?: (?:de |do |da |del )?[A-Z][\w'’-]*){0,3}")
_NUMBER_UNIT = re.compile(
    r"(?<![\w.-])(-?\d+(?:\.\d+)?)\s*(°\s?[CF]|°|[CF]\b|km|kg|mi\b|miles|USD|EUR|%|years?\b|yrs?\b|people|guests|"
    r"nights|days|hours|minutes|passengers|adults|tickets|items|rooms)")
_BARE_NUMBER = re.compile(r"(?<![\w.:@/-])(-?\d+(?:\.\d+)?)(?![\w.:@/-]|\.\d)")
_MONEY = re.compile(r"[$€£]\s?(\d+(?:\.\d+)?)")

_OPENERS = frozenset("""The A An And But Or So Then Please Search Find Book Check Send Email Get Show List Tell Give
What When Where Which Who Why How Can Could Would Will Should Is Are Do Does I You We They It My Our Your Hi Hello
Hey Thanks Thank Make Create Look Plan Help Buy Order Call Use Write Reply Weather Flight Flights Hotel Also Next
Today Tomorrow Monday Tuesday Wednesday Thursday Friday Saturday Sunday January February March April May June July
August September October November December Dear Mr Mrs Ms Dr""".split())
KNOWN_PLACES = frozenset("""Paris Tokyo Austin Lima London Berlin Madrid Rome Oslo Lisbon Dublin Vienna Prague
Amsterdam Brussels Zurich Zürich Geneva Boston Chicago Seattle Denver Miami Dallas Houston Atlanta Toronto Montreal
Vancouver Sydney Melbourne Singapore Dubai Mumbai Delhi Beijing Shanghai Seoul Bangkok Cairo Nairobi Lagos Mexico
Bogotá Bogota Santiago Buenos Aires York Angeles Francisco Diego Las Vegas Rio Janeiro São Paulo Hong Kong""".split())


@dataclass(frozen=True)
class Entities:
    """What :func:`extract` found, each list in order of appearance (results first for ``ids``)."""

    emails: list[str] = field(default_factory=list)
    dates: list[str] = field(default_factory=list)
    times: list[str] = field(default_factory=list)
    codes: list[str] = field(default_factory=list)
    pairs: list[tuple[str, str]] = field(default_factory=list)
    places: list[str] = field(default_factory=list)
    persons: list[str] = field(default_factory=list)
    names: list[str] = field(default_factory=list)
    """Single capitalised words that may be a first name ("Ann, 34, ann@x.com"), after persons."""
    ids: list[str] = field(default_factory=list)
    measures: list[tuple[float, str]] = field(default_factory=list)
    numbers: list[float] = field(default_factory=list)

    def __bool__(self) -> bool:
        return any((self.emails, self.dates, self.times, self.codes, self.pairs, self.places, self.persons,
                    self.names, self.ids, self.measures, self.numbers))


def _unique(items: list[Any]) -> list[Any]:
    seen: list[Any] = []
    for item in items:
        if item not in seen:
            seen.append(item)
    return seen


def _num(text: str) -> float:
    value = float(text)
    return int(value) if value.is_integer() and abs(value) < 2**53 else value


def _place_like(run: str) -> bool:
    return run.split()[0] not in _OPENERS


def extract(prompt: str, results: str = "") -> Entities:
    """The entities of ``prompt`` and of the task's tool ``results`` (their texts joined).

    Args:
        prompt: the task's text (the user's message), first :data:`SCAN` characters read.
        results: the text of the task's earlier tool results; id-like tokens ("AF123",
            "A-1042", "ORD-77") are taken from here first, measures ("20C") and numbers too.

    Returns:
        An :class:`Entities` (lists may be empty). Never raises.
    """
    prompt = prompt[:SCAN] if isinstance(prompt, str) else ""
    results = results[:SCAN] if isinstance(results, str) else ""
    both = f"{prompt}\n{results}"
    emails = _unique(_EMAIL.findall(both))
    blank = _EMAIL.sub(" ", prompt)
    dates = _unique(_DATE.findall(both))
    times = _unique(_TIME.findall(prompt))
    pairs = [(a, b) for a, b in _PAIR.findall(blank) if _place_like(a) and _place_like(b)]
    codes = _unique([c for c in _CODE.findall(blank) if c not in ("USD", "EUR", "GBP", "JPY", "API")])
    places = _unique([p for p in _PLACE_AFTER.findall(blank) if _place_like(p)])
    for run in _CAP_RUN.findall(blank):  # "New York weather": a run holding a known place
        words = run.split()
        while words and words[0] in _OPENERS:
            words.pop(0)
        if any(w in KNOWN_PLACES for w in words) and not any(" ".join(words) in p for p in places):
            places.append(" ".join(words))
    persons = []
    for match in _PERSON.finditer(blank):
        start = match.start()
        before = blank[:start].rstrip()
        at_sentence_start = not before or before[-1] in ".!?\n"
        full = match.group(0)
        if at_sentence_start or match.group(1) in _OPENERS or match.group(2) in _OPENERS:
            continue
        if any(full in p or p in full for p in places) or match.group(1) in KNOWN_PLACES or match.group(2) in KNOWN_PLACES:
            continue
        persons.append(full)
    names = [w for w in _unique(_WORD.findall(blank)) if w not in _OPENERS and w not in KNOWN_PLACES
             and not any(w in p for p in places)]
    ids = _unique([i for i in _ID.findall(results) if not _DATE.fullmatch(i)] +
                  [i for i in _ID.findall(blank) if i not in codes])
    if _CHEAPEST.search(prompt):
        ranked = _by_price(results)
        ids = ranked + [i for i in ids if i not in ranked]
    measures: list[tuple[float, str]] = []
    for text in (results, prompt):
        for number, unit in _NUMBER_UNIT.findall(_EMAIL.sub(" ", text)):
            measures.append((_num(number), unit.replace(" ", "")))
        measures += [(_num(m), "$") for m in _MONEY.findall(text)]
    scrubbed = _TIME.sub(" ", _DATE.sub(" ", _ID.sub(" ", blank)))
    numbers = [_num(n) for n in _BARE_NUMBER.findall(scrubbed)]
    return Entities(emails=emails, dates=dates, times=times, codes=codes, pairs=pairs, places=places,
                    persons=_unique(persons), names=names, ids=ids, measures=measures, numbers=numbers)


_CHEAPEST = re.compile(r"\b(?:cheapest|lowest[- ]priced?|least expensive|best price)\b", re.IGNORECASE)
_OBJECT = re.compile(r"\{[^{}]{0,600}\}")
_PRICE = re.compile(r"[\"']?(?:price|cost|fare|amount|total)\w*[\"']?\s*[:=]\s*[\"']?[$€£]?\s?(\d+(?:\.\d+)?)", re.IGNORECASE)


def _by_price(results: str) -> list[str]:
    """The id-like tokens of the JSON-ish objects in ``results`` that carry a price, cheapest first
    (for "book the cheapest")."""
    priced: list[tuple[float, int, str]] = []
    for n, chunk in enumerate(_OBJECT.findall(results)):
        price, found = _PRICE.search(chunk), _ID.search(chunk)
        if price and found:
            priced.append((float(price.group(1)), n, found.group(0)))
    return _unique([i for _, _, i in sorted(priced)])


def _tokens(name: str) -> list[str]:
    spaced = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", name[:200]) if isinstance(name, str) else ""
    return [t for t in re.split(r"[^a-zA-Z0-9]+", spaced.lower()) if t]


_FROM = ("origin", "from", "source", "src", "departure", "depart", "start")
_TO = ("destination", "to", "target", "dest", "arrival", "arrive", "end")
_EMAILS = ("email", "mail", "recipient", "to", "cc", "bcc")
_PERSONS = ("name", "passenger", "person", "customer", "traveler", "traveller", "guest", "attendee", "recipient",
            "contact", "user", "who", "author", "owner", "assignee")
_PLACES = ("city", "location", "place", "town", "where", "region")
_IDS = ("id", "ids", "reference", "ref", "booking", "confirmation", "code", "number", "sku")


def string_for(name: str, entities: Entities, *, fmt: Any = None, description: str = "",
               siblings: tuple[str, ...] = ()) -> str | None:
    """A string entity for a property called ``name`` (``fmt``: its ``format``; ``siblings``: the
    other property names of its object), or None when none fits. See the module docstring."""
    if not entities:
        return None
    tokens = _tokens(name)
    described = _tokens(description)[:24]
    last = tokens[-1] if tokens else ""
    sibling_tokens = {t for s in siblings for t in _tokens(s)}
    if fmt == "email" or "email" in tokens or "mail" in tokens:
        return entities.emails[0] if entities.emails else None
    if fmt == "date" or last in ("date", "day") or "date" in tokens:
        return entities.dates[0] if entities.dates else None
    if fmt == "time" or last in ("time", "hour"):
        return entities.times[0] if entities.times else None
    if last in _IDS or tokens == ["id"]:
        return entities.ids[0] if entities.ids else None
    pair_side = None
    if any(t in _FROM for t in tokens):
        pair_side = 0
    elif any(t in _TO for t in tokens):
        pair_side = 1
    if "to" in tokens and entities.emails and (
            "mail" in described or "email" in described or not entities.pairs
            or sibling_tokens & {"subject", "body", "cc", "message"} and not sibling_tokens & set(_FROM)):
        return entities.emails[0]
    if pair_side is not None and entities.pairs:
        code_pair = next((p for p in entities.pairs if all(_CODE.fullmatch(x) for x in p)), None)
        wants_code = any(t in ("airport", "iata", "code") for t in tokens + described)
        pair = code_pair if wants_code and code_pair else entities.pairs[0]
        return pair[pair_side]
    if "recipient" in tokens and entities.emails:
        return entities.emails[0]
    if any(t in _PLACES for t in tokens):
        named = [p for p in entities.places if not _CODE.fullmatch(p)]
        return named[0] if named else (entities.places[0] if entities.places else None)
    if any(t in ("first",) for t in tokens) and entities.persons:
        return entities.persons[0].split()[0]
    if any(t in ("last", "surname") for t in tokens) and entities.persons:
        return entities.persons[0].split()[-1]
    if any(t in _PERSONS for t in tokens) and not any(t in ("file", "tool", "project", "company", "product") for t in tokens):
        if entities.persons:
            return entities.persons[0]
        return entities.names[0] if entities.names else None
    return None


_UNIT_WORDS: tuple[tuple[tuple[str, ...], tuple[str, ...]], ...] = (
    (("temp", "temperature", "celsius", "fahrenheit", "degrees"), ("°C", "°F", "°", "C", "F")),
    (("price", "amount", "cost", "total", "budget", "usd", "eur"), ("$", "USD", "EUR")),
    (("age",), ("years", "year", "yrs", "yr")),
    (("distance", "km", "miles"), ("km", "mi", "miles")),
    (("weight",), ("kg",)),
    (("percent", "percentage", "humidity", "rate"), ("%",)),
    (("guests", "people", "passengers", "adults", "count", "travelers", "travellers"), ("people", "guests", "passengers", "adults")),
    (("nights",), ("nights",)),
    (("days", "duration"), ("days",)),
)


def number_for(name: str, entities: Entities, used: frozenset[float] = frozenset()) -> list[float]:
    """Numbers for a numeric property called ``name``, best first: a measure whose unit fits the
    name ("temp" -> the "20" of "20C"), else the text's bare numbers not yet ``used`` by another
    property of the same value (``age`` in "Ann, 34, ann@x.com" -> 34). Empty when none."""
    if not entities:
        return []
    tokens = _tokens(name)
    out: list[float] = []
    for words, units in _UNIT_WORDS:
        if any(t in words for t in tokens):
            out += [v for v, unit in entities.measures if unit in units]
            if "age" in words and any(t == "age" for t in tokens):
                out += [n for n in entities.numbers if 0 < n < 130 and n not in used]
    if not out and tokens and not any(t in ("id", "page", "limit", "offset") for t in tokens):
        out += [n for n in entities.numbers if n not in used]
    return out
