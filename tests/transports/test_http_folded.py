"""A big answer over HTTP is parsed folded too (issue 25 item 9): a JSON body, an SSE
event, and through the auto-detecting transport; the request is answered, not failed."""

from __future__ import annotations

from typing import Any

import anyio
import pytest
from servers.http_scripted import Conn, Request, ScriptedServer, answer_basics, ok

from inspector.engine.big_frame import BIG_FRAME, folded_results
from inspector.engine.client import McpClient
from inspector.engine.session import Session
from inspector.transports.detect import AutoHttpTransport
from inspector.transports.http import StreamableHttpTransport
from inspector.wire import jsonrpc
from inspector.wire.folded import FOLD_ITEMS, FoldedResult, total
from inspector.wire.transport import Transport

ROWS = [{"id": n, "name": f"row {n}", "ok": True} for n in range(8 * FOLD_ITEMS)]
BIG = {"content": [{"type": "text", "text": "rows"}], "structuredContent": {"rows": ROWS}}


@pytest.mark.parametrize(
    ("mode", "make"),
    [
        ("json", StreamableHttpTransport),
        ("sse", StreamableHttpTransport),
        ("json", AutoHttpTransport),
    ],
    ids=["json-body", "sse-event", "auto-detected"],
)
async def test_a_big_answer_over_http_comes_folded(
    mode: str, make: type[Transport], monkeypatch: pytest.MonkeyPatch
) -> None:
    assert len(jsonrpc.encode(BIG)) > BIG_FRAME
    parsed_whole: list[int] = []
    decode = jsonrpc._raw_decode

    def spy(text: str) -> tuple[Any, int]:
        if len(text) >= BIG_FRAME:
            parsed_whole.append(len(text))
        return decode(text)

    monkeypatch.setattr(jsonrpc, "_raw_decode", spy)

    async def handler(req: Request, conn: Conn) -> None:
        if await answer_basics(req, conn):
            return
        if mode == "json":
            await conn.respond(200, ok(req, BIG))
        else:
            await conn.start_sse()
            await conn.event(ok(req, BIG), id="e1")

    async with ScriptedServer(handler) as server:
        transport = make(server.url)  # type: ignore[call-arg]
        with anyio.fail_after(20):
            async with Session(transport) as session:
                await session.initialize()
                with folded_results():
                    got = await McpClient(session).call_tool("big", {})
    assert parsed_whole == []
    assert isinstance(got, FoldedResult)
    rows = got["structuredContent"]["rows"]
    assert rows == ROWS[:FOLD_ITEMS] and total(rows) == len(ROWS)
    assert got.whole() == BIG
