"""list_changed: re-lists coalesced (one in flight per kind, exactly one more after it),
and what changed said only when something did - unit, engine over the wire, the app
against server-everything and the demo server."""

from __future__ import annotations

from typing import Any

import anyio
import pytest
from memory_peer import handshake
from tui_helpers import select_item, wait_connected, wait_for

from inspector.engine.client import McpClient
from inspector.engine.lists import ListChange, ListFollower, ListUpdate, compare
from inspector.engine.responders import Responders
from inspector.engine.session import Session
from inspector.target import Target, demo_target
from inspector.transports.memory import memory_pair
from inspector.tui.app import InspectorApp
from inspector.tui.interactive_setup import interactive_responders
from inspector.wire import jsonrpc
from inspector.wire.events import Direction, WireEvent
from tests.everything import everything_command

SIZE = (140, 40)


def tools(*names: str, **defs: Any) -> list[dict[str, Any]]:
    return [{"name": n, **defs.get(n, {})} for n in names]


class ScriptedFetch:
    """A fetch the test answers: each call waits until the test hands it a list."""

    def __init__(self) -> None:
        self.calls = 0
        self._answers: list[anyio.abc.ObjectSendStream[Any]] = []
        self.started = anyio.Event()

    async def __call__(self, kind: str) -> list[dict[str, Any]]:
        self.calls += 1
        send, receive = anyio.create_memory_object_stream[Any](1)
        self._answers.append(send)
        self.started.set()
        answer = await receive.receive()
        if isinstance(answer, Exception):
            raise answer
        return list(answer)

    async def answer(self, items: Any) -> None:
        """Answer the oldest unanswered fetch (waiting for it to start)."""
        with anyio.fail_after(5):
            while not self._answers:
                self.started = anyio.Event()
                await self.started.wait()
        await self._answers.pop(0).send(items)


async def settled(follower: ListFollower, kind: str = "tools") -> None:
    """Until no fetch of ``kind`` runs or is due (bounded)."""
    with anyio.fail_after(5):
        while follower.busy(kind):
            await anyio.sleep(0.01)


async def test_notices_during_a_fetch_ask_for_exactly_one_more() -> None:
    fetch = ScriptedFetch()
    updates: list[ListUpdate] = []
    async with anyio.create_task_group() as tg:
        follower = ListFollower(fetch, tg.start_soon, lambda text: None)
        follower.watch("tools", updates.append)
        tg.start_soon(follower.refresh, "tools")
        await fetch.started.wait()  # the first fetch is in flight
        for _ in range(5):  # server-everything's burst
            follower.changed("tools")
        await fetch.answer(tools("a", "b"))
        await fetch.answer(tools("a", "c"))  # the one more: the final state
        await settled(follower)
    assert fetch.calls == 2
    assert [[t["name"] for t in u.items] for u in updates] == [["a", "b"], ["a", "c"]]
    assert updates[0].change is None  # the first list of the session is no change
    assert updates[1].change == ListChange(added=("c",), removed=("b",))


async def test_a_notice_during_the_relist_asks_for_one_more_again() -> None:
    fetch = ScriptedFetch()
    updates: list[ListUpdate] = []
    async with anyio.create_task_group() as tg:
        follower = ListFollower(fetch, tg.start_soon, lambda text: None)
        follower.watch("tools", updates.append)
        follower.changed("tools")  # idle: a fetch starts
        await fetch.answer(tools("a"))
        await settled(follower)
        follower.changed("tools")
        follower.changed("tools")
        await fetch.answer(tools("a"))  # the second fetch ...
        follower.changed("tools")  # (a notice while it is due, not yet answered)
        await fetch.answer(tools("a", "b"))  # ... and exactly one after it
        await settled(follower)
        assert fetch.calls == 3
        follower.changed("tools")  # idle again: a new notice fetches again
        await fetch.answer(tools("a", "b"))
        await settled(follower)
    assert fetch.calls == 4
    changes = [u.change for u in updates]
    assert changes[0] is None and not changes[1] and not changes[3]
    assert changes[2] == ListChange(added=("b",))


async def test_a_failed_relist_is_said_and_the_next_notice_fetches_again() -> None:
    fetch = ScriptedFetch()
    warned: list[str] = []
    async with anyio.create_task_group() as tg:
        follower = ListFollower(fetch, tg.start_soon, warned.append)
        follower.watch("tools", lambda update: None)
        follower.changed("tools")
        await fetch.answer(jsonrpc.RpcError(-32603, "boom"))
        await settled(follower)
        follower.changed("tools")
        await fetch.answer(tools("a"))
        await settled(follower)
    assert fetch.calls == 2
    assert warned == ["re-listing tools after list_changed failed: boom (code -32603)"]


async def test_the_first_fetch_raises_to_its_caller_and_a_due_relist_still_runs() -> None:
    fetch = ScriptedFetch()
    updates: list[ListUpdate] = []
    failed: list[Exception] = []
    async with anyio.create_task_group() as tg:
        follower = ListFollower(fetch, tg.start_soon, lambda text: None)
        follower.watch("tools", updates.append)

        async def load() -> None:
            try:
                await follower.refresh("tools")
            except jsonrpc.RpcError as exc:
                failed.append(exc)

        tg.start_soon(load)
        await fetch.started.wait()
        follower.changed("tools")
        await fetch.answer(jsonrpc.RpcError(-32603, "not yet"))
        await fetch.answer(tools("a"))
        await settled(follower)
    assert [str(e) for e in failed] == ["not yet (code -32603)"]
    assert [u.items for u in updates] == [tools("a")]


def test_compare_says_added_removed_and_redefined_by_identity() -> None:
    old = tools("a", "b", "c", a={"description": "one"})
    new = tools("c", "a", "d", a={"description": "two"})
    change = compare("tools", old, new)
    assert change == ListChange(added=("d",), removed=("b",), redefined=("a",))
    assert change.describe() == "added d; removed b; changed a"
    assert not compare("tools", old, list(reversed(old)))  # the order alone is no change
    resources = [{"uri": "demo://1", "name": "same"}, {"uri": "demo://2", "name": "same"}]
    assert compare("resources", resources, resources[:1]) == ListChange(removed=("demo://2",))
    many = compare("prompts", [], tools(*"abcde"))
    assert many.describe() == "added a, b, c and 2 more"


async def test_a_burst_of_list_changed_over_the_wire_is_two_tools_list_requests() -> None:
    transport, server = memory_pair()
    seen: list[str] = []
    events: list[WireEvent] = []
    updates: list[ListUpdate] = []
    with anyio.fail_after(10):
        async with Session(transport) as session, anyio.create_task_group() as tg:
            session.add_observer(events.append)
            client = McpClient(session)

            async def serve() -> None:
                await handshake(server)
                first = await server.receive()
                seen.append(first["method"])
                for _ in range(5):
                    await server.send(jsonrpc.notification("notifications/tools/list_changed"))
                await server.send(jsonrpc.response(first["id"], {"tools": tools("a")}))
                second = await server.receive()
                seen.append(second["method"])
                await server.send(jsonrpc.response(second["id"], {"tools": tools("a", "b")}))
                marker = await server.receive()  # the next thing the client sends
                seen.append(marker["method"])
                await server.send(jsonrpc.response(marker["id"], {}))

            tg.start_soon(serve)
            await session.initialize()
            client.watch_list("tools", updates.append)
            await client.refresh_list("tools")
            await settled(client.lists)
            await session.request("ping")
    assert seen == ["tools/list", "tools/list", "ping"]
    assert [u.change for u in updates] == [None, ListChange(added=("b",))]
    sent = [e for e in events if e.direction is Direction.OUT and e.method == "tools/list"]
    answered = [e for e in events if e.direction is Direction.IN and e.kind.name == "RESPONSE"]
    assert sent[1].seq > answered[0].seq  # the second was sent after the first's answer


# -- the app ----------------------------------------------------------------------------


def _tools_list_traffic(app: InspectorApp) -> list[tuple[str, Any]]:
    """("out"/"in"/"changed", id) for every tools/list request, its response, and every
    tools/list_changed, in wire order."""
    source = app.query_one("#log").source  # type: ignore[attr-defined]
    traffic: list[tuple[str, Any]] = []
    requests: set[Any] = set()
    for i in range(len(source)):
        event = source.event(i)
        message = event.message if isinstance(event.message, dict) else {}
        method = message.get("method")
        if method == "notifications/tools/list_changed":
            traffic.append(("changed", None))
        elif method == "tools/list" and event.direction is Direction.OUT:
            requests.add(message.get("id"))
            traffic.append(("out", message.get("id")))
        elif (
            event.direction is Direction.IN
            and "method" not in message
            and message.get("id") in requests
        ):
            traffic.append(("in", message.get("id")))  # (requests from the server: other ids)
    return traffic


@pytest.mark.slow
async def test_server_everything_burst_is_one_relist_and_no_toast() -> None:
    command, args = everything_command()
    responders = Responders()  # as mcp-inspect offers them: server-everything then adds
    app = InspectorApp(Target(command=command, args=args, transport="stdio"), responders=responders)
    interactive_responders(app, responders)  # a tool per capability, each with a notice
    async with app.run_test(size=SIZE) as pilot:
        await wait_connected(pilot)

        def answered() -> bool:  # fetched after the last notice, and every list answered
            traffic = _tools_list_traffic(app)
            kinds = [t[0] for t in traffic]
            return (
                "changed" in kinds
                and kinds[-1] == "in"
                and kinds.count("out") == kinds.count("in")
                and max(i for i, k in enumerate(kinds) if k == "out")
                > max(i for i, k in enumerate(kinds) if k == "changed")
            )

        await wait_for(pilot, answered, timeout=30)
        traffic = _tools_list_traffic(app)
        await pilot.pause()
        toasts = [str(n.message) for n in app._notifications]
    assert traffic.count(("changed", None)) >= 2, traffic  # the server's burst happened
    requests = [t for t in traffic if t[0] == "out"]
    assert len(requests) <= 3, traffic  # was one per notice (6)
    in_flight = 0
    for direction, _id in traffic:  # never two tools/list at once
        in_flight += {"out": 1, "in": -1}.get(direction, 0)
        assert in_flight <= 1, traffic
    last_notice = max(i for i, t in enumerate(traffic) if t[0] == "changed")
    last_request = max(i for i, t in enumerate(traffic) if t[0] == "out")
    assert last_request > last_notice, traffic  # the final state was fetched
    assert not [t for t in toasts if "Tools" in t], toasts  # the list did not change


@pytest.mark.slow
async def test_a_changed_tools_list_says_what_was_added_and_removed() -> None:
    app = InspectorApp(demo_target())
    app.confirm_destructive = False
    async with app.run_test(size=SIZE) as pilot:
        await wait_connected(pilot)
        await select_item(pilot, "tools", "toggle_extra_tool")
        await pilot.press("ctrl+s")
        await wait_for(
            pilot, lambda: any("added extra_tool" in str(n.message) for n in app._notifications)
        )
        await pilot.press("ctrl+s")
        await wait_for(
            pilot, lambda: any("removed extra_tool" in str(n.message) for n in app._notifications)
        )
        said = [str(n.message) for n in app._notifications if "extra_tool" in str(n.message)]
    assert said[0].startswith("Tools: added extra_tool (now ")
