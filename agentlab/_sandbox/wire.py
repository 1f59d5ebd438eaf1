"""The framing of the grader's pipe: one message is a JSON object (the header) and raw bytes.

A frame is ``len(header)`` (4 bytes, big-endian), the header as UTF-8 JSON, then the body.
Both directions use it. The parent never unpickles anything the child sends: a message from
the child is data (JSON and bytes), judged like any other input from untrusted code.
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["MAX_FRAME", "ProtocolError", "recv", "send"]

MAX_FRAME = 64 * 1024 * 1024
"""The largest frame (bytes) either side accepts: a longer one is a protocol error."""


class ProtocolError(Exception):
    """A frame that is too long, cut, or whose header is not a JSON object."""


def send(conn: Any, header: dict[str, Any], body: bytes = b"") -> None:
    """Write one frame on ``conn`` (a ``multiprocessing.connection.Connection``).

    Raises:
        ValueError: when the header is not JSON-serialisable.
        OSError, BrokenPipeError: when the other side is gone.
    """
    head = json.dumps(header, ensure_ascii=False, separators=(",", ":")).encode("utf-8", "surrogatepass")
    conn.send_bytes(len(head).to_bytes(4, "big") + head + body)


def recv(conn: Any) -> tuple[dict[str, Any], bytes]:
    """Read one frame: ``(header, body)``.

    Raises:
        EOFError: the other side closed the pipe (or died).
        ProtocolError: a frame over :data:`MAX_FRAME` bytes, or a malformed one.
    """
    try:
        data = conn.recv_bytes(MAX_FRAME)
    except OSError as exc:  # "bad message length": longer than MAX_FRAME
        raise ProtocolError(str(exc)) from exc
    if len(data) < 4:
        raise ProtocolError("frame shorter than its length prefix")
    size = int.from_bytes(data[:4], "big")
    if size > len(data) - 4:
        raise ProtocolError("header longer than the frame")
    try:
        header = json.loads(data[4:4 + size].decode("utf-8", "surrogatepass"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise ProtocolError(f"header is not JSON: {exc}") from exc
    if not isinstance(header, dict):
        raise ProtocolError("header is not a JSON object")
    return header, data[4 + size:]
