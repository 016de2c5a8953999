"""Run ``stateless_server.py`` over HTTP for the stateless-era tests."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from servers.http_support import sdk_server


@contextlib.contextmanager
def stateless_server(mode: str) -> Iterator[str]:
    """Run the stateless SDK server in ``mode`` (http | http-json); yields its endpoint."""
    with sdk_server(mode, script="stateless_server.py") as base:
        yield f"{base}/mcp"
