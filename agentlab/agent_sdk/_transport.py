"""A ``claude_agent_sdk.Transport`` that talks to the fake CLI instead of a subprocess.

The SDK's ``query(..., transport=...)`` and ``ClaudeSDKClient(options, transport=...)`` accept a
custom transport (reference 6.4). The real SDK code then runs unchanged above it: its control
protocol, its message parser and its classes (``SystemMessage``, ``AssistantMessage``,
``UserMessage``, ``ResultMessage``). The protocol spoken here:

1. The SDK writes ``control_request``/``initialize`` (with its hook callback ids); we answer
   with a ``control_response``.
2. The SDK writes the user turn; the fake CLI (:class:`~agentlab.agent_sdk._engine.FakeCLI`)
   runs the loop in a background task and queues CLI frames, sending ``control_request``\\ s of
   its own for hooks and ``can_use_tool`` and waiting for the SDK's ``control_response``.
3. When the SDK ends the input, the process "exits": with code 1 when the last result was an
   error, which :meth:`read_messages` raises as ``ProcessError`` and the SDK turns into
   ``ResultError`` (reference 6.2, seed 004: "A single-shot query() raises after yielding an
   error result"). A crash exits right after its result.

The options: a custom transport never receives the CLI flags (``max_turns``, ``model``,
``allowed_tools``...; reference 6.4), so by default the transport reads the
``ClaudeAgentOptions`` the SDK was called with from the SDK's own call frame when it connects
(tested against the pinned claude-agent-sdk). Pass ``options=`` to give them explicitly.
Needs an asyncio event loop (``asyncio.run``, Jupyter).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import sys
from collections.abc import AsyncIterator
from typing import Any

from .._client import fake_api
from ..errors import RunawayLoop
from ..fake._scenario import Scenario
from ._engine import FakeCLI, resolve_model, startup_error
from ._project import Project
from ._scenarios import get_agent_scenario, project_for

__all__ = ["find_sdk_options", "make_transport_class"]

_EXIT = object()


def find_sdk_options(max_depth: int = 12) -> Any:
    """The ``ClaudeAgentOptions`` of the ``query()`` or ``ClaudeSDKClient.connect()`` call that is
    connecting this transport, read from the SDK's call frames; None if none is found."""
    from claude_agent_sdk import ClaudeAgentOptions

    frame = sys._getframe(1)
    for _ in range(max_depth):
        if frame is None:
            break
        if frame.f_globals.get("__name__", "").startswith("claude_agent_sdk"):
            local = frame.f_locals
            for key in ("configured_options", "options"):
                if isinstance(local.get(key), ClaudeAgentOptions):
                    return local[key]
            owner = local.get("self")
            if isinstance(getattr(owner, "options", None), ClaudeAgentOptions):
                return owner.options
        frame = frame.f_back
    return None


def make_transport_class() -> type:
    """Build :class:`FakeAgentTransport` as a subclass of the installed SDK's ``Transport``
    (the SDK is imported here, not when agentlab is imported)."""
    from claude_agent_sdk import ProcessError, Transport

    class FakeAgentTransport(Transport):
        """A fake CLI process behind the real Agent SDK, on one agentlab scenario.

        Args:
            scenario: an Agent SDK scenario name (see :func:`agentlab.agent_sdk.scenarios`) or a
                :class:`~agentlab.fake.Scenario` whose policy uses the built-in tools.
            project: the in-memory project the tools work on (default: a fresh copy of the
                scenario's); keep a reference to inspect ``project.files`` or ``project.diff()``.
            options: the ``ClaudeAgentOptions`` to enforce; default: the ones the SDK was called with.
            max_turns, max_budget_usd: limits that override the options' (as CLI flags would).
            prompt_suggestion, report_cost: see :func:`agentlab.agent_sdk.fake_transport`.

        Raises (from ``connect``):
            RuntimeError: when no options were given and none can be found in the SDK's call.
        """

        def __init__(self, scenario: str | Scenario = "fix_auth_bug", *, project: Project | None = None,
                     options: Any = None, max_turns: int | None = None, max_budget_usd: float | None = None,
                     prompt_suggestion: str | None = None, report_cost: bool = True) -> None:
            self.scenario = get_agent_scenario(scenario) if isinstance(scenario, str) else scenario
            self.project = project if project is not None else project_for(self.scenario)
            self.options = options
            self._limits = {"max_turns": max_turns, "max_budget_usd": max_budget_usd,
                            "prompt_suggestion": prompt_suggestion, "report_cost": report_cost}
            self.cli: FakeCLI | None = None
            self._ready = False
            self._ids = itertools.count()
            self._pending: dict[str, asyncio.Future] = {}
            self._stdin: asyncio.Queue | None = None
            self._outbox: asyncio.Queue | None = None
            self._main_task: asyncio.Task | None = None

        # -- Transport API -----------------------------------------------------------------
        async def connect(self) -> None:
            if self.cli is not None:
                raise RuntimeError("this fake transport already ran its CLI process: make a new one with "
                                   "agentlab.agent_sdk.fake_transport(...) for each query() or ClaudeSDKClient")
            if self.options is None:
                self.options = find_sdk_options()
                if self.options is None:
                    raise RuntimeError("agentlab's fake transport could not find the ClaudeAgentOptions of this "
                                       "call; pass them: fake_transport(..., options=options)")
            self.cli = FakeCLI(self.scenario, self.project, self.options, self._control, **self._limits)
            self._stdin, self._outbox = asyncio.Queue(), asyncio.Queue()
            self._main_task = asyncio.get_running_loop().create_task(self._main())
            self._ready = True

        async def write(self, data: str) -> None:
            assert self._stdin is not None and self._outbox is not None and self.cli is not None
            for line in data.splitlines():
                if not line.strip():
                    continue
                message = json.loads(line)
                kind = message.get("type")
                if kind == "control_response":
                    response = message.get("response") or {}
                    future = self._pending.pop(response.get("request_id"), None)
                    if future is not None and not future.done():
                        if response.get("subtype") == "error":
                            future.set_exception(RuntimeError(response.get("error", "control request failed")))
                        else:
                            future.set_result(response.get("response") or {})
                elif kind == "control_request" and (message.get("request") or {}).get("subtype") == "interrupt":
                    self.cli.interrupted = True
                    await self._outbox.put(_ok(message["request_id"], {}))
                else:
                    await self._stdin.put(message)

        async def read_messages(self) -> AsyncIterator[dict[str, Any]]:
            assert self._outbox is not None
            while True:
                item = await self._outbox.get()
                if item is _EXIT or (isinstance(item, tuple) and item[0] is _EXIT):
                    code = item[1] if isinstance(item, tuple) else 0
                    stderr = item[2] if isinstance(item, tuple) and len(item) > 2 else "Check stderr output for details"
                    if code:
                        raise ProcessError(f"Command failed with exit code {code}", exit_code=code, stderr=stderr)
                    return
                if isinstance(item, BaseException):
                    raise item
                yield item

        async def close(self) -> None:
            self._ready = False
            for future in self._pending.values():
                if not future.done():
                    future.cancel()
            if self._main_task is not None and not self._main_task.done():
                self._main_task.cancel()
                # Bounded, as Transport.close() must be; the task's own errors were already reported.
                with contextlib.suppress(asyncio.CancelledError, asyncio.TimeoutError, Exception):
                    await asyncio.wait_for(asyncio.shield(self._main_task), timeout=1)

        def is_ready(self) -> bool:
            return self._ready

        async def end_input(self) -> None:
            if self._stdin is not None:
                await self._stdin.put(_EXIT)

        # -- the fake process ----------------------------------------------------------------
        async def _main(self) -> None:
            assert self._stdin is not None and self._outbox is not None and self.cli is not None
            try:
                while True:
                    message = await self._stdin.get()
                    if message is _EXIT:
                        await self._outbox.put((_EXIT, 1 if self.cli.last_result_is_error else 0))
                        return
                    if message.get("type") == "control_request":
                        if await self._answer(message):
                            return
                    elif message.get("type") == "user":
                        content = (message.get("message") or {}).get("content")
                        async for frame in self.cli.run_prompt(content):
                            if frame.get("type") == "_exit":
                                await self._outbox.put((_EXIT, frame["code"]))
                                return
                            await self._outbox.put(frame)
                            await self._drained()
            except asyncio.CancelledError:
                raise
            except RunawayLoop:
                limit = fake_api(self.cli.session.client).request_limit if self.cli.session else "many"
                await self._outbox.put(ProcessError(
                    f"agentlab stopped a runaway agent session after {limit} model calls: the agent never "
                    "finished and nothing limited the run. Set max_turns or max_budget_usd in "
                    "ClaudeAgentOptions (seed 004: max_turns=30 to 'Prevent runaway sessions').", exit_code=1))
            except Exception as error:  # noqa: BLE001 - a bug or a bad scenario: surface it, never hang the learner
                await self._outbox.put(error)

        async def _drained(self) -> None:
            """Let the SDK take what was sent before going on, as a real CLI waits on the model: the
            consumer stays close behind the loop, so an ``interrupt()`` lands where it was sent."""
            assert self._outbox is not None
            while not self._outbox.empty():
                await asyncio.sleep(0)
            for _ in range(3):
                await asyncio.sleep(0)

        async def _answer(self, message: dict[str, Any]) -> bool:
            """Answer one control request from the SDK; True when the process exits."""
            assert self._outbox is not None and self.cli is not None
            request, request_id = message.get("request") or {}, message.get("request_id")
            subtype = request.get("subtype")
            if subtype == "initialize":
                invalid = startup_error(self.options, self._limits["max_budget_usd"])
                if invalid is not None:  # the CLI rejects its flags before it answers anything
                    # its stderr goes to the options' stderr callback, else to this process's stderr; the
                    # SDK's ProcessError only says "Check stderr output for details" (CLI 2.1.332)
                    callback = getattr(self.options, "stderr", None)
                    if callable(callback):
                        callback(invalid)
                    else:
                        print(invalid, file=sys.stderr)
                    await self._outbox.put((_EXIT, 1))
                    return True
                self.cli.hooks = request.get("hooks") or {}
                refused = self.cli.open_session()
                if refused is not None:
                    await self._outbox.put(refused)
                    await self._outbox.put((_EXIT, 1))
                    return True
                await self._outbox.put(_ok(request_id, {"commands": [], "output_style": "default",
                                                        "available_output_styles": ["default"],
                                                        "hook_on_failure_supported": True}))
            elif subtype == "set_permission_mode":
                self.cli.permission_mode = request.get("mode") or "default"
                await self._outbox.put(_ok(request_id, {}))
            elif subtype == "set_model":
                self.cli.model = resolve_model(request.get("model") or self.scenario.model)
                await self._outbox.put(_ok(request_id, {}))
            else:
                await self._outbox.put({"type": "control_response", "response": {
                    "subtype": "error", "request_id": request_id,
                    "error": f"agentlab's fake CLI does not support control request {subtype!r}"}})
            return False

        async def _control(self, body: dict[str, Any]) -> dict[str, Any]:
            """Send a control request to the SDK and wait for its answer."""
            assert self._outbox is not None
            request_id = f"req_{next(self._ids)}_fake"
            future: asyncio.Future = asyncio.get_running_loop().create_future()
            self._pending[request_id] = future
            await self._outbox.put({"type": "control_request", "request_id": request_id, "request": body})
            return await future

    FakeAgentTransport.__module__ = "agentlab.agent_sdk"
    FakeAgentTransport.__qualname__ = "FakeAgentTransport"
    return FakeAgentTransport


def _ok(request_id: Any, response: dict[str, Any]) -> dict[str, Any]:
    return {"type": "control_response", "response": {"subtype": "success", "request_id": request_id,
                                                     "response": response}}
