"""A 2026-07-28 server that refuses the first request with -32022 (unsupported protocol
version) listing the versions it serves: the client asks again at a listed stateless
version (SEP-2575) instead of falling back to the handshake, once and never in a loop.
A scripted server: no real server refuses a version it then lists."""

from __future__ import annotations

from typing import Any

import anyio
import pytest
from servers.http_scripted import Conn, Request, ScriptedServer

from inspector.engine.era import VersionError
from inspector.engine.session import Session
from inspector.transports.detect import connect_http
from inspector.wire.events import WireEvent

STATELESS = "2026-07-28"


def refusal(rid: Any) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": rid,
        "error": {
            "code": -32022,
            "message": "Unsupported protocol version",
            "data": {"supported": [STATELESS], "requested": STATELESS},
        },
    }


def discovered(rid: Any) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": rid,
        "result": {
            "resultType": "complete",
            "supportedVersions": [STATELESS],
            "capabilities": {"tools": {}},
            "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "picky", "version": "1"}},
        },
    }


def picky(refusals: int) -> Any:
    """Refuses the first ``refusals`` requests with -32022, then serves discover."""
    seen = {"n": 0}

    async def handle(req: Request, conn: Conn) -> None:
        message = req.json()
        seen["n"] += 1
        if seen["n"] <= refusals:
            await conn.respond(400, refusal(message.get("id")))
        elif message.get("method") == "server/discover":
            await conn.respond(200, discovered(message["id"]))
        else:
            await conn.respond(400, {"jsonrpc": "2.0", "id": message.get("id"), "error": {}})

    return handle


@pytest.mark.parametrize("pinned", [None, STATELESS], ids=["probe", "pinned"])
async def test_a_listed_version_is_asked_again_not_the_handshake(pinned: str | None) -> None:
    events: list[WireEvent] = []
    async with ScriptedServer(picky(1)) as server:
        with anyio.fail_after(20):
            async with Session(connect_http(server.url), protocol_version=pinned) as session:
                session.add_observer(events.append)
                await session.initialize()
    methods = [r.rpc_method for r in server.posts()]
    assert methods == ["server/discover", "server/discover"]  # no initialize
    retried = server.posts()[1]
    assert retried.headers["mcp-protocol-version"] == STATELESS
    meta = retried.json()["params"]["_meta"]
    assert meta["io.modelcontextprotocol/protocolVersion"] == STATELESS
    assert retried.json()["id"] != server.posts()[0].json()["id"]
    assert session.protocol_version == STATELESS and session.server_info["name"] == "picky"
    assert any(e.meta.get("era", {}).get("step") == "retry" for e in events)


async def test_a_second_refusal_ends_it_clearly() -> None:
    async with ScriptedServer(picky(5)) as server:
        with anyio.fail_after(20):
            async with Session(connect_http(server.url), protocol_version=STATELESS) as session:
                with pytest.raises(VersionError, match="supports 2026-07-28"):
                    await session.initialize()
    assert [r.rpc_method for r in server.posts()] == ["server/discover"] * 2
