"""URL elicitation completion (notifications/elicitation/complete) and the -32042 retry
that waits for it, against a real official-SDK server (sdk_url_elicitation_server.py)."""

from __future__ import annotations

import json
import sys
from typing import Any

import anyio
import pytest
from cli_runner import cli
from paths import SERVERS
from textual.widgets import Static
from tui_helpers import wait_for

from inspector.engine.client import McpClient
from inspector.tui.interactive import InteractiveResponders
from inspector.tui.screens.elicitation import CompletionWaitScreen, ElicitationScreen
from inspector.wire.jsonrpc import RpcError
from tests.everything import HostApp, live_session, shown_text, wait_for_screen

SERVER = str(SERVERS / "sdk_url_elicitation_server.py")


class NotingApp(HostApp):
    """A host app that keeps the text of every toast (and still shows them)."""

    def __init__(self) -> None:
        super().__init__()
        self.notes: list[str] = []

    def notify(self, message: str, *args: Any, **kwargs: Any) -> None:  # type: ignore[override]
        self.notes.append(str(message))
        super().notify(message, *args, **kwargs)


def _completes(app: NotingApp, eid: str) -> int:
    return sum(f"URL elicitation {eid} complete" in note for note in app.notes)


async def _call(client: McpClient, name: str, args: dict[str, Any], out: dict[str, Any]) -> None:
    out["result"] = await client.call_tool(name, args)


def _text(result: dict[str, Any]) -> str:
    return "\n".join(b.get("text", "") for b in result.get("content", []))


def _setup(app: NotingApp) -> tuple[InteractiveResponders, list[str], Any]:
    opened: list[str] = []
    bridge = InteractiveResponders(app, opener=opened.append)
    return bridge, opened, live_session(sys.executable, [SERVER], responders=bridge.responders())


async def _needed(client: McpClient, count: int = 1) -> RpcError:
    with pytest.raises(RpcError) as needed:
        await client.call_tool("open_vault", {"count": count})
    assert needed.value.code == -32042
    return needed.value


@pytest.mark.slow
async def test_complete_while_the_dialog_is_open_is_shown_in_it() -> None:
    app = NotingApp()
    async with app.run_test(size=(120, 40)) as pilot:
        bridge, _opened, session_cm = _setup(app)
        async with session_cm as session, anyio.create_task_group() as tg:
            bridge.attach(session)
            client = McpClient(session)
            out: dict[str, Any] = {}
            tg.start_soon(_call, client, "url_flow", {}, out)
            screen = await wait_for_screen(pilot, ElicitationScreen)
            await client.call_tool("finish", {"elicitation_id": "flow-1"})
            await wait_for(
                pilot,
                lambda: (
                    "reports this elicitation complete"
                    in shown_text(screen.query_one("#complete", Static))
                ),
            )
            assert screen.query_one("#complete", Static).display
            assert _completes(app, "flow-1") == 1  # the duplicate was ignored
            assert not any("never-issued" in note for note in app.notes)  # unknown: ignored
            # the notice line moved the buttons down: the key, not a click at a stale spot
            await pilot.press("ctrl+s")
            await wait_for(pilot, lambda: "result" in out)
    assert _text(out["result"]) == "action: accept"


@pytest.mark.slow
async def test_complete_after_accept_is_announced_and_after_decline_ignored() -> None:
    app = NotingApp()
    async with app.run_test(size=(120, 40)) as pilot:
        bridge, opened, session_cm = _setup(app)
        async with session_cm as session, anyio.create_task_group() as tg:
            bridge.attach(session)
            client = McpClient(session)
            out: dict[str, Any] = {}
            tg.start_soon(_call, client, "url_flow", {}, out)
            await wait_for_screen(pilot, ElicitationScreen)
            await pilot.click("#accept")
            await wait_for(pilot, lambda: "result" in out)
            # the notifications precede the call's result on the stream: handled by now
            await client.call_tool("finish", {"elicitation_id": "flow-1"})
            assert _completes(app, "flow-1") == 1
            out.clear()
            tg.start_soon(_call, client, "url_flow", {}, out)
            await wait_for_screen(pilot, ElicitationScreen)
            await pilot.press("ctrl+d")  # declined: its id is forgotten
            await wait_for(pilot, lambda: "result" in out)
            await client.call_tool("finish", {"elicitation_id": "flow-1"})
            assert _completes(app, "flow-1") == 1
    assert opened == ["https://auth.example.com/flow"]


@pytest.mark.slow
async def test_required_error_waits_for_every_completion_then_retry_succeeds() -> None:
    app = NotingApp()
    async with app.run_test(size=(120, 40)) as pilot:
        bridge, opened, session_cm = _setup(app)
        async with session_cm as session, anyio.create_task_group() as tg:
            bridge.attach(session)
            client = McpClient(session)
            error = await _needed(client, 2)
            done: dict[str, Any] = {}

            async def handle() -> None:
                done["ok"] = await bridge.complete_url_elicitations(error)

            tg.start_soon(handle)
            for _ in range(2):
                screen = await wait_for_screen(pilot, ElicitationScreen)
                await pilot.click("#accept")
                await wait_for(pilot, lambda s=screen: app.screen is not s)
            wait = await wait_for_screen(pilot, CompletionWaitScreen)
            shown = shown_text(wait.query_one("#waiting", Static))
            assert "vault-1" in shown and "vault-2" in shown and "s left" in shown
            await client.call_tool("finish", {"elicitation_id": "vault-1"})
            await wait_for(
                pilot, lambda: "vault-1" not in shown_text(wait.query_one("#waiting", Static))
            )
            assert "ok" not in done and app.screen is wait  # still waiting for vault-2
            await client.call_tool("finish", {"elicitation_id": "vault-2"})
            await wait_for(pilot, lambda: "ok" in done)
            assert done["ok"] is True and not isinstance(app.screen, CompletionWaitScreen)
            assert _text(await client.call_tool("open_vault", {"count": 2})).startswith(
                "vault open"
            )
    assert opened == [
        "https://auth.example.com/vault-1?state=[b]x[/b]",
        "https://auth.example.com/vault-2?state=[b]x[/b]",
    ]
    assert _completes(app, "vault-1") == 1 and _completes(app, "vault-2") == 1


@pytest.mark.slow
async def test_wait_retry_now_cancel_timeout_and_early_completion() -> None:
    app = NotingApp()
    async with app.run_test(size=(120, 40)) as pilot:
        bridge, _opened, session_cm = _setup(app)
        async with session_cm as session, anyio.create_task_group() as tg:
            bridge.attach(session)
            client = McpClient(session)
            error = await _needed(client)
            done: list[bool] = []

            async def handle() -> None:
                done.append(await bridge.complete_url_elicitations(error))

            async def accept_then(key: str) -> None:
                tg.start_soon(handle)
                await wait_for_screen(pilot, ElicitationScreen)
                await pilot.click("#accept")
                await wait_for_screen(pilot, CompletionWaitScreen)
                if key:
                    await pilot.press(key)

            count = len(done)
            await accept_then("r")  # retry now: no waiting
            await wait_for(pilot, lambda: len(done) == count + 1)
            assert done[-1] is True
            await accept_then("escape")  # cancel: no retry
            await wait_for(pilot, lambda: len(done) == count + 2)
            assert done[-1] is False
            bridge.completion_timeout = 1.0
            await accept_then("")  # nobody confirms: bounded, then retry anyway
            await wait_for(pilot, lambda: len(done) == count + 3)
            assert done[-1] is True and any("retrying anyway" in n for n in app.notes)
            # the completion arrives while the dialog is still open: no wait at all
            tg.start_soon(handle)
            await wait_for_screen(pilot, ElicitationScreen)
            await client.call_tool("finish", {"elicitation_id": "vault-1"})
            await pilot.press("ctrl+s")  # the notice line may be moving the buttons
            await wait_for(pilot, lambda: len(done) == count + 4)
            assert done[-1] is True and not isinstance(app.screen, CompletionWaitScreen)


@pytest.mark.slow
def test_cli_reports_the_urls_of_a_url_elicitation_required_error() -> None:
    done = cli(
        "--cli",
        "--method",
        "tools/call",
        "--tool-name",
        "open_vault",
        "--tool-arg",
        "count=2",
        "--",
        sys.executable,
        SERVER,
    )
    assert done.returncode == 4, done.stderr
    error = json.loads(done.stderr.strip())["error"]
    assert error["kind"] == "url-elicitation-required" and error["rpcCode"] == -32042
    assert error["urls"] == [
        "https://auth.example.com/vault-1?state=[b]x[/b]",
        "https://auth.example.com/vault-2?state=[b]x[/b]",
    ]
    assert "https://auth.example.com/vault-2" in error["message"]


def test_completions_ignore_unknown_and_repeated_ids_and_stay_bounded() -> None:
    from inspector.tui.interactive import UrlCompletions

    done = UrlCompletions()
    assert not done.complete("never-shown")
    done.expect("a")
    assert done.complete("a") and not done.complete("a")
    done.expect("b")
    done.forget("b")  # declined or withdrawn
    assert not done.complete("b")
    for i in range(UrlCompletions.LIMIT + 10):
        done.expect(f"id-{i}")
        done.complete(f"id-{i}")
    assert len(done.known) == len(done.done) == UrlCompletions.LIMIT
