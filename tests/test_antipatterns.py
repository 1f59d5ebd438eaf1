"""The anti-pattern catalogue: its tags, texts, sources, scenarios and API rule ids.

The entries that name an ``api_error`` are also checked end to end: the faulty request is sent
through the real SDK to the fake, and the 400 it gets must be that rule's text and contain the
API text the explanation quotes.
"""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path
from typing import Any, Callable

import anthropic
import pytest

import agentlab
from agentlab import _i18n, antipatterns
from agentlab.antipatterns import ANTIPATTERNS, BY_TAG, FAMILIES, TAGS, AntiPattern, get
from agentlab.fake._catalogue import get_scenario, request_params
from agentlab.fake._rules import RULES_BY_ID

EXPECTED_TAGS = {
    "text-parsing-termination", "iteration-cap-as-stop", "has-text-means-done", "no-text-means-done",
    "missing-assistant-turn", "rebuilt-assistant-turn", "text-before-tool-result", "text-after-tool-result",
    "missing-tool-result", "split-tool-results", "results-not-appended", "ignores-pause-turn",
    "fabricated-server-tool-result", "ignores-max-tokens", "executes-truncated-tool-use",
    "resends-unchanged-request", "retries-refusal", "unhandled-stop-reason", "tool-error-crashes-loop",
    "unbounded-tool-errors", "no-safety-cap", "strips-thinking", "hardcoded-tool-sequence", "forced-tool-choice",
    # agent-sdk: consumers of the Claude Agent SDK's messages (seed 004)
    "error-result-as-success", "breaks-at-result", "ignores-none-cost",
}

SEEDS = {"000", "001", "002", "003", "004"}
SEEDS_DIR = Path(__file__).resolve().parents[2] / "shared" / "seeds"
REFERENCE = Path(__file__).resolve().parents[2] / "shared" / "reference" / "messages-api.md"
REFERENCE_SECTIONS = {"0", "1", "2", "3", "4", "5", "6", "7", "8", "3.1", "3.2", "3.3", "3.4", "3.5",
                      "6.1", "6.2", "6.3", "6.4"}

_SEED_REF = re.compile(r"seed (\d{3})(?: \(([^)]+)\))?")
_REFERENCE_REF = re.compile(r"reference (\d+(?:\.\d+)?)(?: rule (\w+))?")
_API_QUOTE = re.compile(r'"([^"]*`[^"]*)"')  # a double-quoted text with backticks: the API's words

by_entry = pytest.mark.parametrize("ap", ANTIPATTERNS, ids=lambda ap: ap.tag)


# ----------------------------------------------------------------------------------------------
# The table
# ----------------------------------------------------------------------------------------------


def test_exactly_the_course_tags() -> None:
    assert set(TAGS) == EXPECTED_TAGS
    assert len(TAGS) == len(ANTIPATTERNS) == len(BY_TAG) == 27


def test_loop_and_sdk_tags_split_the_catalogue() -> None:
    assert antipatterns.SDK_TAGS == ("error-result-as-success", "breaks-at-result", "ignores-none-cost")
    assert antipatterns.LOOP_TAGS + antipatterns.SDK_TAGS == TAGS
    assert FAMILIES[-1] == antipatterns.SDK_FAMILY
    for tag in antipatterns.SDK_TAGS:
        assert "seed 004" in get(tag).seed


def test_tags_unique_and_kebab_case() -> None:
    assert len(set(TAGS)) == len(TAGS)
    for tag in TAGS:
        assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", tag), tag


def test_lookups_agree() -> None:
    assert TAGS == tuple(ap.tag for ap in ANTIPATTERNS)
    for ap in ANTIPATTERNS:
        assert BY_TAG[ap.tag] is ap
        assert get(ap.tag) is ap


def test_entries_are_frozen_and_hashable() -> None:
    ap = ANTIPATTERNS[0]
    with pytest.raises(dataclasses.FrozenInstanceError):
        ap.tag = "other"  # type: ignore[misc]
    assert len(set(ANTIPATTERNS)) == len(ANTIPATTERNS)
    with pytest.raises(TypeError):  # keyword-only
        AntiPattern("x", {}, {}, {}, "", (), "design", None)  # type: ignore[misc]


def test_families_valid_every_family_used_and_grouped() -> None:
    assert {ap.family for ap in ANTIPATTERNS} == set(FAMILIES)
    order = [FAMILIES.index(ap.family) for ap in ANTIPATTERNS]
    assert order == sorted(order), "entries are grouped by family, in FAMILIES order"


@by_entry
def test_texts_in_both_languages(ap: AntiPattern) -> None:
    limits = {"name": 60, "explanation": 400, "fix": 320}
    for field, limit in limits.items():
        texts = getattr(ap, field)
        assert set(texts) == {"en", "es"}, field
        assert texts["en"].strip() and texts["es"].strip(), field
        assert texts["en"] != texts["es"], field
        for lang, value in texts.items():
            assert value == value.strip() and "  " not in value, (field, lang)
            assert len(value) <= limit, f"{ap.tag} {field}[{lang}] is {len(value)} chars; keep it short"
            if field != "name":
                assert value.endswith((".", '"')), (field, lang)


@by_entry
def test_spanish_uses_tu_not_usted_or_vos(ap: AntiPattern) -> None:
    words = set(re.findall(r"\w+", " ".join((ap.explanation["es"], ap.fix["es"])).lower()))
    assert not words & {"usted", "ustedes", "vos", "mandás", "ejecutás", "agregás", "devolvé", "fijate"}


# ----------------------------------------------------------------------------------------------
# Sources
# ----------------------------------------------------------------------------------------------


@by_entry
def test_seed_names_existing_sources(ap: AntiPattern) -> None:
    seeds = _SEED_REF.findall(ap.seed)
    references = _REFERENCE_REF.findall(ap.seed)
    assert seeds or references, f"{ap.tag}: seed {ap.seed!r} names no seed and no reference section"
    for number, _section in seeds:
        assert number in SEEDS, f"{ap.tag}: no seed {number}"
    for section, rule in references:
        assert section in REFERENCE_SECTIONS, f"{ap.tag}: no reference section {section}"
        if rule:
            assert section == "7", f"{ap.tag}: rules are numbered in reference section 7"
            assert rule in RULES_BY_ID, f"{ap.tag}: reference 7 rule {rule} is not in RULES_BY_ID"


@pytest.mark.skipif(not SEEDS_DIR.is_dir(), reason="the seeds are not next to the repository")
@by_entry
def test_seed_section_titles_are_in_the_seed(ap: AntiPattern) -> None:
    for number, section in _SEED_REF.findall(ap.seed):
        if not section:
            continue
        (path,) = SEEDS_DIR.glob(f"{number}_*.txt")
        assert section in path.read_text(encoding="utf-8"), f"{ap.tag}: {section!r} is not a section of seed {number}"


@pytest.mark.skipif(not REFERENCE.is_file(), reason="the reference is not next to the repository")
def test_reference_sections_exist() -> None:
    headings = set(re.findall(r"^#{2,3} (\d+(?:\.\d+)?)\.? ", REFERENCE.read_text(encoding="utf-8"), re.M))
    assert REFERENCE_SECTIONS <= headings


# ----------------------------------------------------------------------------------------------
# Scenarios and API rules
# ----------------------------------------------------------------------------------------------


@by_entry
def test_scenarios_exist(ap: AntiPattern) -> None:
    # the agent-sdk family names Agent SDK scenarios (the fake CLI's), the others the fake API's
    known = set(agentlab.agent_sdk.scenarios() if ap.family == "agent-sdk" else agentlab.scenarios())
    assert ap.scenarios and isinstance(ap.scenarios, tuple)
    for name in ap.scenarios:
        assert name in known, f"{ap.tag}: unknown scenario {name!r}"


@by_entry
def test_api_error_is_a_rule_and_is_cited(ap: AntiPattern) -> None:
    if ap.api_error is None:
        return
    assert ap.api_error in RULES_BY_ID
    assert RULES_BY_ID[ap.api_error].status == 400
    assert f"reference 7 rule {ap.api_error}" in ap.seed


def test_api_error_entries() -> None:
    with_error = {ap.tag: ap.api_error for ap in ANTIPATTERNS if ap.api_error}
    assert with_error == {
        "missing-assistant-turn": "16",
        "text-before-tool-result": "17",
        "missing-tool-result": "15",
        "split-tool-results": "15",
        "fabricated-server-tool-result": "16",
        "strips-thinking": "26",
    }


def _start(name: str) -> tuple[anthropic.Anthropic, dict[str, Any], list[dict[str, Any]], Any]:
    scenario = get_scenario(name)
    client = agentlab.fake_client(name, max_retries=0)
    params = request_params(scenario)
    messages: list[dict[str, Any]] = [{"role": "user", "content": scenario.prompt}]
    return client, params, messages, client.messages.create(messages=messages, **params)


def _results(response: Any) -> list[dict[str, Any]]:
    return [{"type": "tool_result", "tool_use_id": b.id, "content": "ok"} for b in response.content
            if b.type == "tool_use"]


def _assistant(response: Any) -> dict[str, Any]:
    return {"role": "assistant", "content": response.content}


FAULTY_HISTORY: dict[str, tuple[str, Callable[[Any], list[dict[str, Any]]]]] = {
    # tag: (scenario, messages to append after the first reply)
    "missing-assistant-turn": ("weather", lambda r: [{"role": "user", "content": _results(r)}]),
    "text-before-tool-result": ("weather", lambda r: [
        _assistant(r), {"role": "user", "content": [{"type": "text", "text": "Here you go."}, *_results(r)]}]),
    "missing-tool-result": ("parallel_tools", lambda r: [_assistant(r), {"role": "user", "content": _results(r)[:1]}]),
    "split-tool-results": ("parallel_tools", lambda r: [
        _assistant(r), *({"role": "user", "content": [result]} for result in _results(r))]),
    "fabricated-server-tool-result": ("pause_turn", lambda r: [_assistant(r), {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": b.id, "content": "made up"} for b in r.content
        if b.type == "server_tool_use"]}]),
    "strips-thinking": ("thinking", lambda r: [
        {"role": "assistant", "content": [b for b in r.content if b.type not in ("thinking", "redacted_thinking")]},
        {"role": "user", "content": _results(r)}]),
}


def test_every_api_error_entry_has_a_faulty_history() -> None:
    assert set(FAULTY_HISTORY) == {ap.tag for ap in ANTIPATTERNS if ap.api_error}


def _template_regex(template: str) -> re.Pattern[str]:
    parts = re.split(r"\{\w+\}", template)
    return re.compile(".+?".join(re.escape(p) for p in parts), re.S)


@pytest.mark.parametrize("tag", sorted(FAULTY_HISTORY))
def test_api_error_is_what_the_fake_answers(tag: str) -> None:
    ap = get(tag)
    scenario, faulty = FAULTY_HISTORY[tag]
    client, params, messages, first = _start(scenario)
    with pytest.raises(anthropic.BadRequestError) as caught:
        client.messages.create(messages=[*messages, *faulty(first)], **params)
    message = caught.value.body["error"]["message"]
    assert _template_regex(RULES_BY_ID[ap.api_error].template).fullmatch(message), message
    for lang in ("en", "es"):
        quotes = _API_QUOTE.findall(ap.explanation[lang])
        assert quotes, f"{tag}: the {lang} explanation should quote the API's error text"
        chunks = [c.strip(" .:") for q in quotes for c in q.split("...")]
        # Only the first quote must be this rule's text; strips-thinking also quotes the edited-block texts.
        for chunk in chunks[: len(quotes[0].split("..."))]:
            if chunk:
                assert chunk in message, f"{tag} [{lang}]: {chunk!r} not in the fake's 400: {message}"


# ----------------------------------------------------------------------------------------------
# text() and get()
# ----------------------------------------------------------------------------------------------


@pytest.fixture
def reset_language(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.delenv("AGENTLAB_LANG", raising=False)
    monkeypatch.setattr(_i18n, "_chosen", None)
    yield
    monkeypatch.setattr(_i18n, "_chosen", None)


def test_text_honours_explicit_language(reset_language: None) -> None:
    ap = get("missing-tool-result")
    for field in ("name", "explanation", "fix"):
        assert ap.text(field, "en") == getattr(ap, field)["en"]
        assert ap.text(field, "es") == getattr(ap, field)["es"]


def test_text_defaults_to_the_learners_language(reset_language: None, monkeypatch: pytest.MonkeyPatch) -> None:
    ap = get("ignores-pause-turn")
    assert ap.text("name") == ap.name["en"]
    monkeypatch.setenv("AGENTLAB_LANG", "es")
    assert ap.text("name") == ap.name["es"]
    _i18n.set_language("en")
    assert ap.text("fix") == ap.fix["en"]
    assert ap.text("fix", "es") == ap.fix["es"]


def test_text_rejects_unknown_language_and_field(reset_language: None) -> None:
    ap = get("retries-refusal")
    with pytest.raises(ValueError, match=r"'fr'.*en, es"):
        ap.text("name", "fr")
    with pytest.raises(ValueError, match="explanation"):
        ap.text("tag", "en")


def test_get_unknown_tag_lists_the_known_tags() -> None:
    with pytest.raises(KeyError) as caught:
        get("missing-assistant-message")
    message = str(caught.value)
    assert "missing-assistant-message" in message
    assert "did you mean 'missing-assistant-turn'" in message
    for tag in TAGS:
        assert tag in message


def test_constructor_validates_data() -> None:
    good = dict(name={"en": "a", "es": "b"}, explanation={"en": "a", "es": "b"}, fix={"en": "a", "es": "b"},
                seed="seed 000", scenarios=("weather",), family="design")
    AntiPattern(tag="ok-tag", **good)
    with pytest.raises(ValueError, match="kebab"):
        AntiPattern(tag="Not_Kebab", **good)
    with pytest.raises(ValueError, match="family"):
        AntiPattern(tag="ok-tag", **{**good, "family": "misc"})
    with pytest.raises(ValueError, match="es"):
        AntiPattern(tag="ok-tag", **{**good, "fix": {"en": "a"}})
    with pytest.raises(ValueError, match="scenario"):
        AntiPattern(tag="ok-tag", **{**good, "scenarios": ()})


def test_module_is_light() -> None:
    import subprocess
    import sys

    code = "import sys, agentlab.antipatterns; print('anthropic' in sys.modules, 'agentlab.fake' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["False", "False"]
    assert antipatterns.__all__
