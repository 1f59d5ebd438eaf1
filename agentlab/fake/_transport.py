"""The seam: an ``httpx2`` transport, sync and async, that hands requests to a :class:`FakeAPI`.

Like httpx's ``MockTransport`` (STYLE.md section 1) it only reads the body and calls a
function; everything else lives in ``_api``. It never opens a socket.
"""

from __future__ import annotations

import httpx2

from ._api import FakeAPI

__all__ = ["FakeTransport"]


class FakeTransport(httpx2.BaseTransport, httpx2.AsyncBaseTransport):
    """Serves ``/v1/messages`` and ``/v1/messages/count_tokens`` from ``api``, for both
    ``httpx2.Client`` and ``httpx2.AsyncClient``."""

    def __init__(self, api: FakeAPI) -> None:
        self.api = api

    def handle_request(self, request: httpx2.Request) -> httpx2.Response:
        request.read()
        return self.api.handle(request)

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        await request.aread()
        return self.api.handle(request)
