"""The model catalogue (``agentlab.fake._models``) against the installed SDK's own data, every SDK
model id through ``client.messages.create``, and the Models API (``GET /v1/models``,
``GET /v1/models/{id}``) through ``client.models``."""

from __future__ import annotations

import re
import typing
import warnings
from datetime import date, datetime, timezone

import anthropic
import httpx2
import pytest
from anthropic._data import DEPRECATED_MODELS, MODELS_TO_WARN_WITH_THINKING_ENABLED

import agentlab
from agentlab.fake import FakeAPI, Scenario, ValidationOptions, text
from agentlab.fake._models import ALIASES, CATALOGUE_DATE, MODELS, SOURCES, cost_usd, get_model, resolve
from agentlab.fake._models_api import model_info

SDK_MODEL_IDS = tuple(value for arg in typing.get_args(anthropic.types.Model)
                      for value in typing.get_args(arg))
FACTS = ("limits", "prices", "created_at", "thinking", "sampling", "lifecycle", "prefill")
HELLO = [{"role": "user", "content": "Hello"}]


def _sdk_date(text_date: str) -> date:
    """``"June 30th, 2026"`` (the SDK's deprecated_models.py format) as a date."""
    return datetime.strptime(re.sub(r"(\d+)(st|nd|rd|th)", r"\1", text_date), "%B %d, %Y").date()


def _client(today: date = CATALOGUE_DATE) -> anthropic.Anthropic:
    scenario = Scenario(name="models", replies=(text("Hi there."),), validation=ValidationOptions(today=today))
    return agentlab.fake_client(scenario, max_retries=0)


# --------------------------------------------------------------------------- the catalogue vs the SDK


def test_the_sdk_model_literal_is_read():
    assert len(SDK_MODEL_IDS) >= 22 and "claude-opus-5-5" in SDK_MODEL_IDS and "claude-haiku-4-5" in SDK_MODEL_IDS


@pytest.mark.parametrize("model_id", SDK_MODEL_IDS)
def test_every_sdk_model_id_is_in_the_catalogue(model_id):
    """Fails when the installed SDK's ``Model`` type has an id or alias the catalogue lacks."""
    assert get_model(model_id) is not None, f"{model_id} is in anthropic.types.Model but not in the catalogue"


@pytest.mark.parametrize("model_id", sorted(DEPRECATED_MODELS))
def test_end_of_life_dates_are_the_sdks(model_id):
    assert get_model(model_id).retires_at == _sdk_date(DEPRECATED_MODELS[model_id])


@pytest.mark.parametrize("model_id", MODELS_TO_WARN_WITH_THINKING_ENABLED)
def test_models_the_sdk_only_warns_about_accept_manual_thinking(model_id):
    assert "enabled" in get_model(model_id).thinking_types


def test_aliases_share_the_spec_of_their_dated_id():
    assert ALIASES["claude-haiku-4-5"] == "claude-haiku-4-5-20251001"
    assert get_model("claude-opus-4-5") is get_model("claude-opus-4-5-20251101")
    assert resolve("claude-sonnet-4-5") == "claude-sonnet-4-5-20250929" and resolve("claude-nope-9") is None
    assert not set(ALIASES) & set(MODELS)


def test_the_course_models_are_known():
    for model_id in ("claude-opus-4-20250514", "claude-opus-4-7", "claude-sonnet-5", "claude-sonnet-5-5",
                     "claude-opus-5", "claude-fable-5", "claude-opus-4-5-20251101", "claude-sonnet-4-6"):
        assert model_id in MODELS


def test_the_caps_frameworks_send_are_accepted():
    """pydantic-ai, langchain-anthropic and litellm send the Models API's ``max_tokens`` (128,000
    for claude-sonnet-5); the old catalogue capped it at 64,000."""
    assert MODELS["claude-sonnet-5"].max_output_tokens == 128_000
    assert MODELS["claude-opus-4-5-20251101"].max_output_tokens == 64_000  # the reference's [OBS] rule-6 text


@pytest.mark.parametrize("spec", list(MODELS.values()), ids=list(MODELS))
def test_every_fact_has_a_source(spec):
    assert set(FACTS) <= set(spec.sources), f"{spec.id}: no source for {set(FACTS) - set(spec.sources)}"
    for fact, where in spec.sources.items():
        for part in where.split(";"):
            key = re.match(r"\s*([a-z0-9-]+)", part).group(1)
            assert key in SOURCES, f"{spec.id}.{fact}: unknown source {key!r}"


def test_lifecycle_on_the_catalogue_date():
    assert MODELS["claude-sonnet-4-5-20250929"].lifecycle() == "retired"  # retires November 30th, 2026
    assert MODELS["claude-opus-4-5-20251101"].lifecycle() == "deprecated"  # retires January 22nd, 2027
    assert MODELS["claude-opus-4-5-20251101"].lifecycle(date(2027, 1, 22)) == "retired"
    assert MODELS["claude-sonnet-5"].lifecycle() == "active"
    assert MODELS["claude-sonnet-4-5-20250929"].lifecycle(date(2026, 11, 29)) == "deprecated"


def test_cost_takes_aliases_and_rejects_unknown_models():
    usage = {"input_tokens": 1_000_000, "output_tokens": 1_000_000}
    assert cost_usd(usage, "claude-haiku-4-5") == cost_usd(usage, "claude-haiku-4-5-20251001") == 6.0
    with pytest.raises(KeyError):
        cost_usd(usage, "claude-nope-9")


def test_every_built_in_scenario_runs_on_a_live_model_with_a_thinking_type_it_accepts():
    from agentlab.fake import SCENARIOS

    for name, scenario in SCENARIOS.items():
        spec = get_model(scenario.model)
        assert spec is not None and not spec.retired(scenario.validation.today), name
        for thinking in (scenario.thinking_default, (scenario.extra or {}).get("thinking")):
            assert thinking is None or thinking["type"] in spec.thinking_types, (name, thinking)


# --------------------------------------------------------------------------- every SDK id through the SDK


@pytest.mark.parametrize("model_id", SDK_MODEL_IDS)
def test_every_sdk_model_id_gets_a_reply_or_the_retired_404(model_id):
    client = _client()
    spec = get_model(model_id)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # the SDK warns about deprecated models itself
        if spec.retired(CATALOGUE_DATE):
            with pytest.raises(anthropic.NotFoundError) as info:
                client.messages.create(model=model_id, max_tokens=256, messages=HELLO)
            assert info.value.body["error"] == {"type": "not_found_error", "message": f"model: {model_id}"}
            assert agentlab.journal(client).exchanges[-1].rule == "5b"
        else:
            message = client.messages.create(model=model_id, max_tokens=256, messages=HELLO)
            assert message.stop_reason == "end_turn" and message.content[0].text == "Hi there."
            assert message.model == spec.id  # an alias answers with its dated id


def test_retired_models_answer_again_before_their_end_of_life():
    client = _client(today=date(2026, 6, 1))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        message = client.messages.create(model="claude-sonnet-4-5", max_tokens=256, messages=HELLO)
    assert message.model == "claude-sonnet-4-5-20250929"


def test_a_framework_default_max_tokens_works_on_claude_sonnet_5():
    """What pydantic-ai does: read ``max_tokens`` from the Models API and send it (streamed, as the
    SDK requires for long requests)."""
    client = _client()
    cap = client.models.retrieve("claude-sonnet-5").max_tokens
    with client.messages.stream(model="claude-sonnet-5", max_tokens=cap, messages=HELLO) as stream:
        assert stream.get_final_message().stop_reason == "end_turn"
    with pytest.raises(anthropic.BadRequestError, match="max_tokens: 128001 > 128000"):
        client.messages.create(model="claude-sonnet-5", max_tokens=cap + 1, messages=HELLO, stream=True)


# --------------------------------------------------------------------------- the Models API


def test_list_is_newest_first_without_retired_models_by_default():
    client = _client()
    listed = list(client.models.list(limit=1000))
    assert [m.id for m in listed] == [s.id for s in sorted(MODELS.values(), key=lambda s: (s.created_at, s.id),
                                                          reverse=True) if not s.retired()]
    assert {m.lifecycle for m in listed} == {"active", "deprecated"}
    assert "claude-sonnet-4-5-20250929" not in {m.id for m in listed}
    first = listed[0]
    assert first.type == "model" and first.created_at.tzinfo is not None and first.display_name


def test_auto_pagination_walks_every_page():
    client = _client()
    pages = client.models.list(limit=3)
    assert pages.has_more is True and len(pages.data) == 3 and pages.first_id == pages.data[0].id
    assert pages.last_id == pages.data[-1].id
    assert [m.id for m in pages] == [m.id for m in client.models.list(limit=1000)]
    after = client.models.list(limit=2, after_id=pages.last_id)
    assert [m.id for m in after.data] == [m.id for m in client.models.list(limit=5).data[3:5]]


def test_before_id_pages_backwards():
    client = _client()
    ids = [m.id for m in client.models.list(limit=1000)]
    page = client.models.list(limit=2, before_id=ids[4])
    assert [m.id for m in page.data] == ids[2:4] and page.has_more is True
    assert client.models.list(limit=5, before_id=ids[2]).has_more is False


def test_lifecycle_filter_lists_retired_models():
    client = _client()
    retired = client.models.list(lifecycle=["retired"])
    assert {m.id for m in retired.data} == {"claude-sonnet-4-5-20250929", "claude-opus-4-20250514",
                                            "claude-mythos-preview"}
    sonnet = next(m for m in retired.data if m.id == "claude-sonnet-4-5-20250929")
    assert sonnet.lifecycle == "retired" and sonnet.retires_at == datetime(2026, 11, 30, tzinfo=timezone.utc)
    every = list(client.models.list(lifecycle=["active", "deprecated", "retired"], limit=1000))
    assert len(every) == len(MODELS)


def test_retrieve_resolves_aliases_and_reports_limits_and_capabilities():
    client = _client()
    haiku = client.models.retrieve("claude-haiku-4-5")
    assert haiku.id == "claude-haiku-4-5-20251001" and haiku.max_input_tokens == 200_000
    assert haiku.capabilities.thinking.types.enabled.supported is True
    opus = client.models.retrieve("claude-opus-4-7")
    assert opus.max_tokens == 128_000 and opus.line == "opus" and opus.lifecycle == "active"
    assert opus.capabilities.thinking.types.enabled.supported is False
    assert opus.capabilities.thinking.types.adaptive.supported is True
    deprecated = client.models.retrieve("claude-opus-4-5")
    assert deprecated.lifecycle == "deprecated" and deprecated.retires_at.date() == date(2027, 1, 22)
    assert client.models.retrieve("claude-sonnet-4-5").lifecycle == "retired"  # kept as the historical record


def test_unknown_model_is_a_404():
    client = _client()
    with pytest.raises(anthropic.NotFoundError) as info:
        client.models.retrieve("claude-nope-9")
    assert info.value.body["error"] == {"type": "not_found_error", "message": "model: claude-nope-9"}


@pytest.mark.parametrize("query, message", [
    ({"limit": 0}, "limit: Input should be greater than or equal to 1"),
    ({"limit": 1001}, "limit: Input should be less than or equal to 1000"),
    ({"after_id": "claude-nope-9"}, "after_id: no model with id 'claude-nope-9' in this list"),
])
def test_bad_list_parameters_are_400(query, message):
    client = _client()
    with pytest.raises(anthropic.BadRequestError) as info:
        client.models.list(**query)
    assert info.value.body["error"]["message"] == message


def test_models_requests_are_journaled_and_deterministic():
    client = _client()
    client.models.list(limit=2)
    with pytest.raises(anthropic.NotFoundError):
        client.models.retrieve("claude-nope-9")
    journal = agentlab.journal(client)
    assert [e.endpoint for e in journal.exchanges] == ["models", "models"]
    assert journal.exchanges[0].request == {"path": "/v1/models", "query": "limit=2"}
    assert journal.exchanges[1].status == 404 and journal.steps == []
    assert "GET /v1/models?limit=2" in str(journal)

    def raw() -> bytes:
        api = FakeAPI(Scenario(name="models", replies=(text("x"),)))
        request = httpx2.Request("GET", "https://api.anthropic.com/v1/models?limit=5",
                                 headers={"authorization": "Bearer k"})
        return api.handle(request).content

    assert raw() == raw()


def test_models_need_a_key_and_reject_other_methods():
    api = FakeAPI(Scenario(name="models", replies=(text("x"),)))
    unauthenticated = api.handle(httpx2.Request("GET", "https://api.anthropic.com/v1/models"))
    assert unauthenticated.status_code == 401
    post = api.handle(httpx2.Request("POST", "https://api.anthropic.com/v1/models", json={},
                                     headers={"authorization": "Bearer k"}))
    assert post.status_code == 404
    nested = api.handle(httpx2.Request("GET", "https://api.anthropic.com/v1/models/a/b",
                                       headers={"authorization": "Bearer k"}))
    assert nested.status_code == 404


def test_model_info_fields_match_the_sdk_type():
    info = model_info(MODELS["claude-opus-5-5"], CATALOGUE_DATE)
    parsed = anthropic.types.ModelInfo.model_validate(info)  # strict pydantic validation, not construct
    assert parsed.max_tokens == 128_000 and parsed.created_at.date() == MODELS["claude-opus-5-5"].created_at
    assert set(info) == set(anthropic.types.ModelInfo.model_fields)  # every field the SDK type has, no other


async def _async_list() -> list[str]:
    client = agentlab.fake_async_client(Scenario(name="models", replies=(text("x"),)))
    return [m.id async for m in client.models.list(limit=4)]


def test_async_auto_pagination():
    import asyncio

    assert asyncio.run(_async_list()) == [m.id for m in _client().models.list(limit=1000)]
