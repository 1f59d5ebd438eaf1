"""Deterministic ids: ``msg_``, ``toolu_``, ``srvtoolu_`` and ``req_`` from counters.

Real ids are a prefix plus 24 characters (reference 1.4). The fake derives those 24 characters
from a hash of (seed, kind, counter), so every run of a scenario gives the same ids, byte for
byte (two clients on one scenario issue the same ids), and different scenarios do not collide.
"""

from __future__ import annotations

import hashlib
from collections import Counter

__all__ = ["IdFactory"]

_ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
_TO_ALPHABET = bytes(ord(_ALPHABET[byte % 62]) for byte in range(256))
"""``bytes.translate`` table: byte ``b`` -> ``_ALPHABET[b % 62]`` (one C call per id)."""


class IdFactory:
    """Issues ids per kind from counters that start at zero for each seed."""

    def __init__(self, seed: str) -> None:
        self.seed = seed
        self._counts: Counter[str] = Counter()

    def next(self, prefix: str) -> str:
        """Return the next id for ``prefix`` (``"msg"``, ``"toolu"``, ``"srvtoolu"``, ``"req"``)."""
        n = self._counts[prefix]
        self._counts[prefix] += 1
        digest = hashlib.sha256(f"{self.seed}/{prefix}/{n}".encode()).digest()
        return f"{prefix}_01{digest[:22].translate(_TO_ALPHABET).decode('ascii')}"
