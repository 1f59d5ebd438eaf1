"""Serving :class:`FakeApp` with uvicorn: in a thread for tests and notebooks, or in the foreground
for ``agentlab serve`` (STYLE.md section 6: uvicorn's programmatic ``Config``/``Server``).

The fake is for one machine: a non-loopback address is refused unless ``allow_remote=True``
(the fake needs no real key, so anyone who can reach it can use it, and its journal shows every
prompt sent to it).
"""

from __future__ import annotations

import contextlib
import ipaddress
import socket
import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Iterator

from ._app import FakeApp

if TYPE_CHECKING:
    from ..fake._journal import Journal

__all__ = ["Server", "running", "check_host", "start", "DEFAULT_PORT", "START_TIMEOUT_SECONDS"]

DEFAULT_PORT = 8765
"""The port of ``agentlab serve`` when none is given (``--port 0`` picks a free one)."""

START_TIMEOUT_SECONDS = 10.0
"""How long :func:`running` waits for the server to listen before it gives up."""


def check_host(host: str, allow_remote: bool = False) -> None:
    """Refuse an address other clients could reach, unless ``allow_remote``.

    Loopback is ``localhost``, ``127.0.0.0/8`` and ``::1``.

    Raises:
        ValueError: naming the address and the flag that allows it.
    """
    host = host.strip("[]")
    if allow_remote or host == "localhost":
        return
    try:
        loopback = ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        loopback = False
    if not loopback:
        raise ValueError(f"refusing to serve the fake on {host!r}, which other machines may reach: use 127.0.0.1, "
                         "or pass allow_remote=True (agentlab serve --allow-remote) if you mean it")


@dataclass
class Server:
    """A running fake: where it listens and what it serves."""

    app: FakeApp
    """The ASGI app (its sessions hold the journals)."""
    host: str
    """The address it listens on."""
    port: int
    """The port it listens on (the real one when 0 was asked)."""
    _uvicorn: Any = None
    _thread: threading.Thread | None = None

    @property
    def base_url(self) -> str:
        """The URL to give clients (``ANTHROPIC_BASE_URL``), e.g. ``http://127.0.0.1:8765``."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}"

    def journal(self, key: str, scenario: str | None = None) -> "Journal":
        """The journal of the session that ``key`` (and a path scenario) uses."""
        return self.app.session(key, scenario).journal

    def stop(self, timeout: float = 10.0) -> None:
        """Ask the server to finish and wait for its thread (no error if already stopped)."""
        if self._uvicorn is not None:
            self._uvicorn.should_exit = True
        if self._thread is not None:
            self._thread.join(timeout)


def _http_impl() -> str:
    """uvicorn's HTTP parser: httptools (C) when installed, else h11 (pure Python, ~2x slower a call)."""
    try:
        import httptools  # noqa: F401
    except ImportError:
        return "h11"
    return "httptools"


def _config(app: FakeApp, host: str, port: int) -> Any:
    import uvicorn

    return uvicorn.Config(app, host=host, port=port, lifespan="off", log_level="warning", access_log=False,
                          timeout_graceful_shutdown=2, server_header=False, date_header=False, http=_http_impl())


def _bind(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    # Answers go out as a head and a body write: without TCP_NODELAY (inherited by accepted
    # sockets on Linux) Nagle's algorithm holds the body for the client's delayed ACK, ~40 ms a call.
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    sock.bind((host.strip("[]"), port))
    sock.set_inheritable(True)
    return sock


def start(app: FakeApp | None = None, *, host: str = "127.0.0.1", port: int = 0, allow_remote: bool = False) -> Server:
    """Start serving in a daemon thread and return once it listens. Call :meth:`Server.stop` after.

    Args:
        app: the app to serve (default: a new :class:`FakeApp`, generic model by default).
        host: the address (loopback unless ``allow_remote``).
        port: the port; 0 picks a free one (read it from ``Server.port``).
        allow_remote: allow a non-loopback ``host``.

    Returns:
        The running :class:`Server`.

    Raises:
        ValueError: a non-loopback host without ``allow_remote``.
        OSError: the port is taken.
        RuntimeError: the server did not start within :data:`START_TIMEOUT_SECONDS`.
    """
    import uvicorn

    host = host.strip("[]")
    check_host(host, allow_remote)
    app = app or FakeApp()
    sock = _bind(host, port)
    server = uvicorn.Server(_config(app, host, sock.getsockname()[1]))
    failed: list[BaseException] = []

    def run() -> None:
        try:
            server.run(sockets=[sock])
        except BaseException as exc:  # noqa: BLE001 - reported to the caller below
            failed.append(exc)
        finally:
            sock.close()

    thread = threading.Thread(target=run, name="agentlab-serve", daemon=True)
    thread.start()
    waited = 0.0
    while not server.started and thread.is_alive() and waited < START_TIMEOUT_SECONDS:
        thread.join(0.01)
        waited += 0.01
    if not server.started:
        server.should_exit = True
        raise RuntimeError(f"agentlab serve did not start on {host}:{port}: {failed[0] if failed else 'timed out'}")
    return Server(app=app, host=host, port=sock.getsockname()[1], _uvicorn=server, _thread=thread)


@contextlib.contextmanager
def running(app: FakeApp | None = None, *, host: str = "127.0.0.1", port: int = 0,
            allow_remote: bool = False) -> Iterator[Server]:
    """``with running() as server:`` the fake served in a thread; stopped when the block ends.

    Same arguments, returns and errors as :func:`start`. Example::

        with agentlab.serve.running() as server:
            client = anthropic.Anthropic(base_url=server.base_url, api_key="weather")
            client.messages.create(...)
            print(server.journal("weather"))
    """
    server = start(app, host=host, port=port, allow_remote=allow_remote)
    try:
        yield server
    finally:
        server.stop()


class Stopped(Exception):
    """SIGTERM reached :func:`serve_forever` after uvicorn's clean shutdown (it re-raises the
    signals it caught once it has stopped)."""


def serve_forever(app: FakeApp, *, host: str, port: int, allow_remote: bool, on_listening: Any = None) -> None:
    """Serve in the foreground until Ctrl-C or SIGTERM (uvicorn's own signal handling: a clean
    shutdown that lets answers in flight finish). ``on_listening(server)`` is called once it listens.

    Returns normally after SIGTERM; Ctrl-C ends in ``KeyboardInterrupt`` after the shutdown.

    Raises:
        ValueError: a non-loopback host without ``allow_remote``.
        OSError: the port is taken.
    """
    import asyncio
    import signal

    import uvicorn

    def stopped(signum: int, frame: Any) -> None:
        raise Stopped()

    host = host.strip("[]")
    check_host(host, allow_remote)
    sock = _bind(host, port)
    server = uvicorn.Server(_config(app, host, sock.getsockname()[1]))
    handle = Server(app=app, host=host, port=sock.getsockname()[1], _uvicorn=server)

    async def main() -> None:
        task = asyncio.create_task(server.serve(sockets=[sock]))
        while not server.started and not task.done():
            await asyncio.sleep(0.01)
        if server.started and on_listening is not None:
            on_listening(handle)
        await task

    previous = signal.signal(signal.SIGTERM, stopped)
    try:
        asyncio.run(main())
    except Stopped:
        pass
    finally:
        signal.signal(signal.SIGTERM, previous)
        sock.close()
