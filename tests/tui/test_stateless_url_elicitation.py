"""URL elicitation in the 2026-07-28 stateless era, where notifications/elicitation/complete
is gone: after error -32042 the TUI asks for consent and retries at once, never waiting for
a completion notice (Pilot, a real official-SDK server over stdio)."""

from __future__ import annotations

import sys
from typing import Any

import anyio
import pytest
from paths import SERVERS
from textual.widgets import Static
from tui_helpers import wait_for

from inspector.engine.client import McpClient
from inspector.engine.session import Session
from inspector.transports.stdio import StdioTransport
from inspector.tui.interactive import InteractiveResponders
from inspector.tui.screens.elicitation import CompletionWaitScreen, ElicitationScreen
from inspector.wire.jsonrpc import URL_ELICITATION_REQUIRED, RpcError
from tests.everything import HostApp, shown_text, wait_for_screen

SERVER = SERVERS / "stateless_url_server.py"


class NotingApp(HostApp):
    """Keeps the text of every toast, and every screen ever pushed."""

    def __init__(self) -> None:
        super().__init__()
        self.notes: list[str] = []
        self.pushed: list[Any] = []

    def notify(self, message: str, *args: Any, **kwargs: Any) -> None:  # type: ignore[override]
        self.notes.append(str(message))
        super().notify(message, *args, **kwargs)

    def push_screen(self, screen: Any, *args: Any, **kwargs: Any) -> Any:
        self.pushed.append(screen)
        return super().push_screen(screen, *args, **kwargs)


@pytest.mark.slow
@pytest.mark.parametrize("accept", [True, False])
async def test_url_elicitation_retries_after_consent_without_waiting(accept: bool) -> None:
    app = NotingApp()
    opened: list[str] = []
    async with app.run_test(size=(120, 40)) as pilot:
        bridge = InteractiveResponders(app, opener=opened.append)
        transport = StdioTransport(sys.executable, [str(SERVER)])
        async with (
            Session(
                transport, responders=bridge.responders(), protocol_version="2026-07-28", timeout=30
            ) as session,
            anyio.create_task_group() as tg,
        ):
            bridge.attach(session)
            await session.initialize()
            assert "notifications/elicitation/complete" not in session._notification_callbacks
            client = McpClient(session)
            with pytest.raises(RpcError) as needed:
                await client.call_tool("open_vault")
            assert needed.value.code == URL_ELICITATION_REQUIRED
            done: dict[str, Any] = {}

            async def handle() -> None:
                done["ok"] = await bridge.complete_url_elicitations(needed.value)

            tg.start_soon(handle)
            screen = await wait_for_screen(pilot, ElicitationScreen)
            url = shown_text(screen.query_one("#url", Static))
            assert "no completion notice" in url and "retried as soon as you accept" in url
            if accept:
                await pilot.click("#accept")
            else:
                await pilot.press("escape")
            await wait_for(pilot, lambda: "ok" in done)
            assert done["ok"] is accept
            assert not any(isinstance(s, CompletionWaitScreen) for s in app.pushed)
            if accept:
                assert opened == ["https://auth.example.com/vault-1"]
                assert any("no completion notice" in note for note in app.notes)
                result = await client.call_tool("open_vault")
                assert result["content"][0]["text"] == "vault open (call 2)"
