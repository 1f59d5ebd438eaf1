"""The child side of an Agent SDK case: the learner's consumer reads one ``query()`` run whose
CLI, the fake one, runs in the grading parent.

``query(prompt, options, transport=PipeSdkTransport(...))`` runs here, with the real
``claude_agent_sdk``; the transport forwards what the SDK writes (control responses, the prompt)
to the parent, where ``agentlab.agent_sdk.fake_transport`` answers, and receives every frame
the fake CLI emits, pushed by the parent and read from the pipe by a reader thread. The
outcome goes back as data: how many messages the consumer pulled and how many were left unread
(the parent parses the same frames into the same messages), whether it read to the end, the
stream's own error, and the consumer's returned ``str`` or exception, as for a loop.

Limits as in the in-process grader (``agentlab.grader._sdk``): the consumer is cancelled at its
time limit, reported ``unstoppable`` when it does not stop within ``CANCEL_GRACE``, and what it
left unread is drained for up to ``DRAIN_LIMIT`` seconds. A consumer that holds the event loop
(a busy loop, ``time.sleep``) is killed by the parent at its deadline.
"""

from __future__ import annotations

import asyncio
import threading
from typing import Any

__all__ = ["run_sdk_case"]

CANCEL_GRACE = 1.0
"""Seconds a cancelled consumer gets to stop (as ``agentlab.grader._sdk.CANCEL_GRACE``)."""

DRAIN_LIMIT = 10.0
"""Seconds spent reading what the consumer left unread (as ``agentlab.grader._sdk.DRAIN_LIMIT``)."""


class _Escaped(Exception):
    def __init__(self, original: BaseException) -> None:
        super().__init__(repr(original))
        self.original = original


def run_sdk_case(channel: Any, consume: Any, header: dict[str, Any], describe_exception: Any) -> dict[str, Any]:
    """Run ``consume(messages)`` on one ``query()`` whose CLI is the parent's fake; the outcome as data.

    Args:
        channel: the child's ``_Channel`` to the parent.
        consume: the learner's ``async def consume(messages) -> str``.
        header: the ``sdk-case`` command: ``prompt``, ``allowed_tools``, ``max_turns``,
            ``max_budget_usd``, ``session_id``, ``env``, ``time_limit`` (seconds).
        describe_exception: ``child._describe_exception``.
    """
    import inspect

    from claude_agent_sdk import ClaudeAgentOptions, ProcessError, Transport, query

    state: dict[str, Any] = {"read": [], "unread": [], "ended": False, "stream_error": None, "timed_out": False,
                             "unstoppable": False, "returned": None, "exception": None, "returned_set": False}
    limit = float(header["time_limit"])

    class PipeSdkTransport(Transport):
        """The SDK's transport to the parent's fake CLI."""

        def __init__(self) -> None:
            self._ready = False
            self._inbox: asyncio.Queue = asyncio.Queue()
            self._reader: threading.Thread | None = None

        async def connect(self) -> None:
            loop = asyncio.get_running_loop()
            channel.tell({"op": "sdk-connect"})

            def read() -> None:
                while True:
                    try:
                        frame, _ = channel.next_frame()
                    except Exception:  # noqa: BLE001 - the parent is gone
                        loop.call_soon_threadsafe(self._inbox.put_nowait, ("end", None))
                        return
                    op = frame.get("op")
                    if op == "sdk-message":
                        loop.call_soon_threadsafe(self._inbox.put_nowait, ("message", frame.get("data")))
                    elif op in ("sdk-end", "sdk-error"):
                        loop.call_soon_threadsafe(self._inbox.put_nowait, (op, frame))
                        return

            self._reader = threading.Thread(target=read, name="agentlab-sdk-reader", daemon=True)
            self._reader.start()
            self._ready = True

        async def write(self, data: str) -> None:
            channel.tell({"op": "sdk-write", "data": data})

        async def read_messages(self) -> Any:
            while True:
                kind, payload = await self._inbox.get()
                if kind == "message":
                    yield payload
                elif kind == "sdk-error":
                    if payload.get("type") == "ProcessError":
                        raise ProcessError(str(payload.get("message", "")).split(" (exit code")[0],
                                           exit_code=payload.get("exit_code"), stderr=payload.get("stderr"))
                    raise RuntimeError(str(payload.get("message", "")))
                else:
                    return

        async def close(self) -> None:
            self._ready = False
            channel.tell({"op": "sdk-close"})

        def is_ready(self) -> bool:
            return self._ready

        async def end_input(self) -> None:
            channel.tell({"op": "sdk-end-input"})

    class Messages:
        """The stream as the consumer sees it: counts how far it is read."""

        def __init__(self, inner: Any) -> None:
            self._inner = inner

        def __aiter__(self) -> Messages:
            return self

        async def __anext__(self) -> Any:
            if state["ended"]:
                raise StopAsyncIteration
            try:
                message = await self._inner.__anext__()
            except StopAsyncIteration:
                state["ended"] = True
                raise
            except Exception as exc:
                state["ended"] = True
                state["stream_error"] = exc
                raise
            state["read"].append(_kind(message))
            return message

        async def aclose(self) -> None:
            """Accepted and ignored: the grader closes the stream itself after the case."""

        def __repr__(self) -> str:
            return "<messages of query() for agentlab grade>"

    async def main() -> None:
        options = ClaudeAgentOptions(allowed_tools=list(header["allowed_tools"]), max_turns=header["max_turns"],
                                     max_budget_usd=header["max_budget_usd"], session_id=header["session_id"],
                                     env=dict(header["env"]))
        inner = query(prompt=header["prompt"], options=options, transport=PipeSdkTransport())

        async def call() -> Any:
            try:
                value = consume(Messages(inner))
                return await value if inspect.isawaitable(value) else value
            except asyncio.CancelledError:
                raise
            except BaseException as exc:  # noqa: BLE001 - kept inside the task
                raise _Escaped(exc) from exc

        task = asyncio.ensure_future(call())
        try:
            done, _ = await asyncio.wait({task}, timeout=limit)
            if not done:
                state["timed_out"] = True
                task.cancel()
                done, _ = await asyncio.wait({task}, timeout=CANCEL_GRACE)
                if not done:  # it swallows cancellation: report now, then leave (asyncio.run would wait on it)
                    state["unstoppable"] = True
                    channel.tell(_outcome(state, describe_exception))
                    import os

                    os._exit(0)
            if task.cancelled():
                state["exception"] = None
            elif task.exception() is not None:
                exc = task.exception()
                state["exception"] = exc.original if isinstance(exc, _Escaped) else exc
            else:
                state["returned"], state["returned_set"] = task.result(), True
            if not (state["timed_out"] or state["ended"]):
                async def more() -> None:
                    while True:
                        try:
                            message = await inner.__anext__()
                        except StopAsyncIteration:
                            return
                        except Exception as exc:  # noqa: BLE001 - the SDK's error at the end of the stream
                            state["stream_error"] = exc
                            return
                        state["unread"].append(_kind(message))

                channel.tell({"op": "sdk-draining"})  # the parent's deadline grows by the drain's
                try:
                    await asyncio.wait_for(more(), DRAIN_LIMIT)
                except (asyncio.TimeoutError, Exception):  # noqa: BLE001 - what was read is enough to judge
                    pass
        finally:
            if not state["unstoppable"]:
                try:
                    await asyncio.wait_for(inner.aclose(), 5)
                except BaseException:  # noqa: BLE001 - best effort
                    pass

    try:
        asyncio.run(main())
    except BaseException as exc:  # noqa: BLE001 - everything the consumer does is reported
        if state["exception"] is None and not state["returned_set"]:
            state["exception"] = exc
    return _outcome(state, describe_exception)


def _kind(message: Any) -> list[Any]:
    """What the parent needs to find a message among the frames it sent: class name and subtype."""
    return [type(message).__name__, getattr(message, "subtype", None)]


def _outcome(state: dict[str, Any], describe_exception: Any) -> dict[str, Any]:
    outcome: dict[str, Any] = {"op": "done", "sdk": {
        "read": state["read"], "unread": state["unread"], "ended": state["ended"],
        "timed_out": state["timed_out"], "unstoppable": state["unstoppable"],
        "stream_error": None if state["stream_error"] is None else describe_exception(state["stream_error"], []),
        "exception_is_stream_error": state["exception"] is not None and state["exception"] is state["stream_error"]}}
    if state["unstoppable"] or (state["timed_out"] and state["exception"] is None and not state["returned_set"]):
        return outcome
    if state["exception"] is not None:
        outcome["exception"] = describe_exception(state["exception"], [])
    elif type(state["returned"]) is str:  # noqa: E721 - a str subclass is never trusted
        outcome["returned"] = {"str": state["returned"][:4 * 1024 * 1024]}
    else:
        try:
            text = repr(state["returned"])[:300]
        except BaseException:  # noqa: BLE001
            text = f"<{type(state['returned']).__name__}>"
        outcome["returned"] = {"type": type(state["returned"]).__name__, "repr": text}
    return outcome
