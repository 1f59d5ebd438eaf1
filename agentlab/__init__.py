"""agentlab: exam-prep course material for the agentic loop on Anthropic's Messages API.

Learners run real ``anthropic`` SDK code against a deterministic fake of the API::

    import agentlab
    client = agentlab.fake_client("weather")      # a real anthropic.Anthropic on the fake
    agentlab.journal(client)                      # every request and reply, as a transcript
    agentlab.quiz(topic="stop_reasons")           # a quiz in Jupyter (ipywidgets, loaded on first use)
    agentlab.course.timings()                     # the lessons with suggested workshop minutes

Heavy modules (the SDK, the fake) load on first use, so ``import agentlab`` stays light.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

from .errors import RunawayLoop

__version__ = "0.1.0"

__all__ = [
    "RunawayLoop",
    "Scenario",
    "client",
    "cost_usd",
    "course",
    "fake_async_client",
    "fake_client",
    "grade",
    "journal",
    "live_mode",
    "quiz",
    "scenarios",
]

_LAZY = {
    "fake_client": "agentlab._client",
    "fake_async_client": "agentlab._client",
    "client": "agentlab._client",
    "journal": "agentlab._client",
    "live_mode": "agentlab._client",
    "scenarios": "agentlab.fake._catalogue",
    "Scenario": "agentlab.fake._scenario",
    "cost_usd": "agentlab.fake._models",
    "grade": "agentlab.grader",
}


_SUBMODULES = ("agent_sdk", "antipatterns", "course", "fake", "grader", "loops", "quiz")
"""Subpackages reachable as attributes without importing them first (loaded on first use)."""


def __getattr__(name: str) -> Any:
    if name in _SUBMODULES:  # agentlab.quiz is callable: agentlab.quiz(...) opens the Jupyter front end
        return import_module(f"agentlab.{name}")
    if name in _LAZY:
        value = getattr(import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'agentlab' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
