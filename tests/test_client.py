"""Client construction, live mode, the pytest plugin, the CLI, languages and the public names."""

from __future__ import annotations

import json
import subprocess
import sys

import anthropic
import pytest

import agentlab
import agentlab.fake
from agentlab import _i18n
from agentlab.cli import main as cli_main

pytest_plugins = ["pytester"]


def test_client_is_the_fake_unless_live_mode(monkeypatch):
    monkeypatch.delenv("AGENTLAB_LIVE", raising=False)
    made = agentlab.client("weather")
    assert isinstance(made, anthropic.Anthropic)
    assert agentlab.journal(made).scenario == "weather"
    monkeypatch.setenv("AGENTLAB_LIVE", "1")
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    assert agentlab.journal(agentlab.client("weather")).scenario == "weather"  # no key: still the fake


def test_live_mode_gives_the_real_client_and_never_shows_the_key(monkeypatch, capsys):
    secret = "sk-ant-test-never-print-me"
    monkeypatch.setenv("AGENTLAB_LIVE", "1")
    monkeypatch.setenv("ANTHROPIC_API_KEY", secret)
    real = agentlab.client("weather")
    assert isinstance(real, anthropic.Anthropic)
    assert str(real.base_url).startswith("https://api.anthropic.com")
    with pytest.raises(ValueError, match="not made by agentlab"):
        agentlab.journal(real)
    assert agentlab.live_mode()
    out = capsys.readouterr()
    assert secret not in out.out + out.err


def test_live_client_has_a_bounded_timeout_unless_given_one(monkeypatch):
    monkeypatch.setenv("AGENTLAB_LIVE", "1")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-not-used")
    timeout = agentlab.client("weather").timeout
    assert isinstance(timeout, anthropic.Timeout)
    assert (timeout.read, timeout.connect) == (60.0, 10.0)  # not the SDK's 600 s
    assert agentlab.client("weather", timeout=5.0).timeout == 5.0


def test_async_client_is_async():
    assert isinstance(agentlab.fake_async_client("weather"), anthropic.AsyncAnthropic)


def test_each_fake_client_is_a_fresh_run():
    a, b = agentlab.fake_client("weather"), agentlab.fake_client("weather")
    params = {"model": "claude-sonnet-5", "max_tokens": 100, "messages": [{"role": "user", "content": "Hi"}]}
    assert a.messages.create(**params).id == b.messages.create(**params).id  # same counters, same ids
    assert len(agentlab.journal(a)) == len(agentlab.journal(b)) == 1


def test_scenario_objects_and_bad_arguments():
    with pytest.raises(TypeError, match="name or a Scenario"):
        agentlab.fake_client(42)
    with pytest.raises(ValueError, match="replies` or `policy"):
        agentlab.Scenario(name="empty")
    with pytest.raises(ValueError, match="needed_requests"):
        agentlab.Scenario(name="p", policy=lambda turn: None)


def test_pytest_plugin_fixture(pytester):
    pytester.makepyfile(test_loop="""
        def test_weather(fake_anthropic):
            client = fake_anthropic("weather")
            msg = client.messages.create(model="claude-sonnet-5", max_tokens=100,
                                         messages=[{"role": "user", "content": "Hi"}])
            assert msg.stop_reason == "end_turn"
            assert fake_anthropic.journal.stop_reasons == ["end_turn"]

        def test_no_client_yet(fake_anthropic):
            import pytest
            with pytest.raises(RuntimeError, match="fake_anthropic"):
                fake_anthropic.journal
    """)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=2)


def test_import_agentlab_does_not_import_the_sdk():
    code = "import sys, agentlab; print('anthropic' in sys.modules, 'agentlab.fake' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["False", "False"]


def test_public_names_resolve_and_are_sorted():
    for module in (agentlab, agentlab.fake):
        assert list(module.__all__) == sorted(module.__all__)
        for name in module.__all__:
            assert getattr(module, name) is not None


def test_cli_lists_scenarios_in_both_languages(capsys):
    assert cli_main(["scenarios"]) == 0
    english = capsys.readouterr().out
    assert "weather" in english and "Seed 002" in english
    assert cli_main(["scenarios", "--lang", "es"]) == 0
    spanish = capsys.readouterr().out
    assert "semilla 002" in spanish and "Escenarios incluidos" in spanish
    assert cli_main(["scenarios", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [r["name"] for r in rows] == agentlab.scenarios()


def test_cli_lists_the_agent_sdk_scenarios(capsys):
    from agentlab.agent_sdk import scenarios as agent_scenarios

    assert cli_main(["scenarios", "--agent-sdk"]) == 0
    english = capsys.readouterr().out
    assert english.startswith("Agent SDK scenarios (use with agentlab.agent_sdk.fake_transport(NAME)):")
    assert "fix_auth_bug" in english and "seed 004" in english and "weather" not in english
    assert cli_main(["scenarios", "--agent-sdk", "--lang", "es", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [r["name"] for r in rows] == agent_scenarios()
    assert all(r["description"] for r in rows) and rows[0]["description"].startswith("semilla 004")


def test_every_scenario_has_a_spanish_description():
    for name in agentlab.scenarios():
        scenario = agentlab.fake.get_scenario(name)
        assert scenario.description_es and scenario.description_es != scenario.description, name


def test_language_setting(monkeypatch):
    monkeypatch.setattr(_i18n, "_chosen", None)
    monkeypatch.setenv("AGENTLAB_LANG", "es")
    assert _i18n.language() == "es"
    assert _i18n.language("en") == "en"
    with pytest.raises(ValueError, match="speaks en, es"):
        _i18n.language("fr")
    monkeypatch.delenv("AGENTLAB_LANG")
    assert _i18n.language() == "en"


def test_runaway_message_in_spanish(monkeypatch):
    monkeypatch.setattr(_i18n, "_chosen", "es")
    client = agentlab.fake_client("weather", runaway_after=0)
    params = {"model": "claude-sonnet-5", "max_tokens": 100, "messages": [{"role": "user", "content": "Hi"}],
              "tools": list(agentlab.fake.get_scenario("weather").tools)}  # tool_use every time: never finished
    with pytest.raises(agentlab.RunawayLoop, match="bucle desbocado"):
        for _ in range(5):
            client.messages.create(**params)
    assert "paso 2" in agentlab.journal(client).to_text()
