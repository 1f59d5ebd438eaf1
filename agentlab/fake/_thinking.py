"""Thinking signatures: issued by the fake, checked when thinking blocks come back.

A signature is an HMAC over ``(model, thinking text)`` with a key only the fake knows, encoded
like the real opaque base64 signatures. Any byte change to the text, or a signature that was
never issued, fails verification (reference 3.3: "Signatures do not expire; any byte change,
reordering, merging, or replay from a different model fails").

The ledger also remembers, for every issued assistant message, the ordered list of its thinking
and redacted thinking blocks, so the validator can tell a thinking block that was modified,
reordered or partly dropped in the latest assistant message (reference rule 29) from a forged
one (rule 28).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
from typing import Any

__all__ = ["ThinkingLedger", "sign"]

_KEY = b"agentlab-fake-thinking-key-v1"


def sign(model: str, thinking: str) -> str:
    """The signature the fake issues for a thinking block of ``model`` with text ``thinking``."""
    mac = hmac.new(_KEY, f"{model}\x00{thinking}".encode("utf-8", "surrogatepass"), hashlib.sha256).digest()
    return "Eq" + base64.b64encode(mac + mac[:12]).decode()


def redacted_data(model: str, seed: str) -> str:
    """Opaque ``data`` for a ``redacted_thinking`` block (also an HMAC, so it can be checked)."""
    mac = hmac.new(_KEY, f"redacted\x00{model}\x00{seed}".encode(), hashlib.sha256).digest()
    return "EmwK" + base64.b64encode(mac * 2).decode()


def _key(block: dict[str, Any]) -> tuple[str, str, str] | None:
    if block.get("type") == "thinking":
        return ("thinking", str(block.get("thinking") or ""), str(block.get("signature") or ""))
    if block.get("type") == "redacted_thinking":
        return ("redacted_thinking", "", str(block.get("data") or ""))
    return None


class ThinkingLedger:
    """What thinking the fake issued, per assistant message, for validating later requests."""

    def __init__(self) -> None:
        self._by_token: dict[str, tuple[tuple[str, str, str], ...]] = {}
        self._by_tool_use: dict[str, tuple[tuple[str, str, str], ...]] = {}
        self._redacted: set[str] = set()

    def record(self, content: list[dict[str, Any]]) -> None:
        """Remember the thinking blocks of an assistant message the fake is about to return."""
        keys = tuple(k for k in (_key(b) for b in content) if k is not None)
        for kind, _text, token in keys:
            self._by_token[token] = keys
            if kind == "redacted_thinking":
                self._redacted.add(token)
        for block in content:
            if block.get("type") in ("tool_use", "server_tool_use") and block.get("id"):
                self._by_tool_use[str(block["id"])] = keys

    def thinking_for_tool_use(self, tool_use_id: str) -> tuple[tuple[str, str, str], ...] | None:
        """The thinking keys of the issued message that holds ``tool_use_id`` (``()`` if it had
        none), or None when the fake never issued that id (the learner made it up)."""
        return self._by_tool_use.get(tool_use_id)

    def verify(self, model: str, block: dict[str, Any]) -> bool:
        """Whether a thinking or redacted_thinking block carries a valid signature (or data) for its text.

        A thinking block is valid when its signature is the HMAC of its text under ``model`` or
        under any other catalogue model the fake may have used (signatures are checked against
        the text, not against the request's model, since the replay-from-another-model case is
        caught by the HMAC including the model).
        """
        key = _key(block)
        if key is None:
            return True
        kind, text, token = key
        if kind == "redacted_thinking":
            return token in self._redacted
        # As bytes: compare_digest refuses non-ASCII str, and a request may send any signature.
        return bool(token) and hmac.compare_digest(token.encode("utf-8", "surrogatepass"), sign(model, text).encode())

    def issued(self, block: dict[str, Any]) -> bool:
        """Whether the block's signature (or redacted data) is one the fake issued, whatever its text."""
        key = _key(block)
        return key is not None and key[2] in self._by_token

    def original_sequence(self, block: dict[str, Any]) -> tuple[tuple[str, str, str], ...] | None:
        """The ordered thinking blocks of the issued message that holds this block's signature."""
        key = _key(block)
        return None if key is None else self._by_token.get(key[2])

    @staticmethod
    def key(block: dict[str, Any]) -> tuple[str, str, str] | None:
        """A comparable key for a thinking/redacted_thinking block: (type, text, signature or data)."""
        return _key(block)
