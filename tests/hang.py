"""A hang detector for tests: run a call in a thread and fail if it does not finish in time.

A catastrophic regex holds the GIL, so ``join(timeout)`` can return late rather than on time:
the thread also measures its own run time, and a run longer than the bound fails too. The bound
is generous (10 s for calls that take milliseconds): it detects hangs, not slowness.
"""

from __future__ import annotations

import threading
import time
from typing import Any, Callable

HANG_SECONDS = 10.0


def finishes(call: Callable[[], Any], seconds: float = HANG_SECONDS) -> Any:
    """``call()``'s value, or its exception re-raised; AssertionError when it runs ``seconds`` or more."""
    out: dict[str, Any] = {}

    def run() -> None:
        start = time.perf_counter()
        try:
            out["value"] = call()
        except BaseException as exc:  # noqa: BLE001 - handed back to the test's thread
            out["error"] = exc
        out["elapsed"] = time.perf_counter() - start

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive() and out["elapsed"] < seconds, f"no answer within {seconds} s: it hangs"
    if "error" in out:
        raise out["error"]
    return out["value"]
