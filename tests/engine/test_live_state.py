"""The headless live state (``inspector.live``): requests in flight and finished, tasks,
the server log, resource updates and events, fed by a real session over the memory
transport and a scripted fake server. No Textual app, no Pilot."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable
from typing import Any

import anyio

from inspector.engine.session import PendingRequest, Session
from inspector.engine.tasks import TaskState
from inspector.live.requests import calls, describe, listen_label
from inspector.live.server_log import LogEntry
from inspector.live.state import Changes, LiveState
from inspector.logstore.store import EventStore
from inspector.transports.memory import MemoryServerEnd, memory_pair
from inspector.tui import messages
from inspector.tui.live_feed import change_messages
from inspector.wire import jsonrpc
from inspector.wire.events import Channel, Direction
from inspector.wire.jsonrpc import RpcError

CAPABILITIES = {
    "tools": {},
    "logging": {},
    "resources": {"subscribe": True},
    "tasks": {"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}},
}


async def until(condition: Callable[[], bool], timeout: float = 5.0) -> None:
    with anyio.fail_after(timeout):
        while not condition():
            await anyio.sleep(0.005)


async def handshake(server: MemoryServerEnd) -> None:
    init = await server.receive()
    result = {
        "protocolVersion": "2025-11-25",
        "capabilities": CAPABILITIES,
        "serverInfo": {"name": "fake", "version": "1"},
    }
    await server.send(jsonrpc.response(init["id"], result))
    assert (await server.receive())["method"] == "notifications/initialized"


@contextlib.asynccontextmanager
async def connected(
    state: LiveState, *, attach: bool = True
) -> AsyncIterator[tuple[Session, MemoryServerEnd]]:
    """A session fed into ``state`` as the controller feeds it: every event, then attach."""
    transport, server = memory_pair()
    with anyio.fail_after(20):
        async with Session(transport) as session:
            session.add_observer(state.observe)
            async with anyio.create_task_group() as tg:
                tg.start_soon(handshake, server)
                await session.initialize()
            if attach:
                state.attach(session)
            yield session, server


class Calls:
    """Requests made in the background; their outcome (result or error) kept by id."""

    def __init__(self, session: Session, tg: Any) -> None:
        self.session = session
        self.tg = tg
        self.outcomes: dict[str, Any] = {}

    def start(self, key: str, method: str, params: dict[str, Any], **kw: Any) -> None:
        async def run() -> None:
            try:
                self.outcomes[key] = await self.session.request(method, params, **kw)
            except RpcError as exc:
                self.outcomes[key] = exc

        self.tg.start_soon(run)


async def test_answers_finish_requests_as_ok_or_error_with_the_servers_message() -> None:
    state = LiveState()
    async with connected(state) as (session, server), anyio.create_task_group() as tg:
        state.take_changes()
        calls_ = Calls(session, tg)
        calls_.start("echo", "tools/call", {"name": "echo", "arguments": {}})
        echo = await server.receive()
        calls_.start("read", "resources/read", {"uri": "demo://x"})
        read = await server.receive()
        # both pending, oldest first; nothing finished yet
        assert [(p.id, p.method) for p in state.requests.pending()] == [
            (echo["id"], "tools/call"),
            (read["id"], "resources/read"),
        ]
        assert not state.requests.finished and not state.take_changes().requests
        await server.send(jsonrpc.response(echo["id"], {"content": []}))
        await server.send(jsonrpc.error_response(read["id"], -32002, "no such resource"))
        await until(lambda: len(calls_.outcomes) == 2)
    finished = state.requests.finished
    assert [(f.label, f.outcome, f.detail) for f in finished.values()] == [
        ("tools/call echo", "ok", ""),
        ("resources/read demo://x", "error", "no such resource"),
    ]
    assert all(f.ended >= f.started and f.late is None for f in finished.values())
    assert state.requests.pending() == []
    assert state.take_changes().requests  # said once...
    assert not state.take_changes().requests  # ...and not again


async def test_cancelled_by_the_user_then_a_late_answer_is_marked_late() -> None:
    state = LiveState()
    async with connected(state) as (session, server), anyio.create_task_group() as tg:
        calls_ = Calls(session, tg)
        calls_.start("slow", "tools/call", {"name": "slow"})
        slow = await server.receive()
        await until(lambda: bool(state.requests.pending()))
        assert await session.cancel(slow["id"])
        cancel = await server.receive()
        assert cancel["method"] == "notifications/cancelled"
        done = state.requests.finished[slow["id"]]
        assert (done.outcome, done.detail, done.late) == ("cancelled", "by you", None)
        await server.send(jsonrpc.response(slow["id"], {"content": []}))  # too late
        await until(lambda: done.late is not None)
    assert done.outcome == "cancelled"  # the late answer does not make it "ok"
    assert isinstance(calls_.outcomes["slow"], RpcError)


async def test_a_timed_out_request_is_a_timeout_with_the_sessions_reason() -> None:
    state = LiveState()
    async with connected(state) as (session, server), anyio.create_task_group() as tg:
        calls_ = Calls(session, tg)
        calls_.start("slow", "tools/call", {"name": "slow"}, timeout=0.1)
        slow = await server.receive()
        await until(lambda: "slow" in calls_.outcomes)
    done = state.requests.finished[slow["id"]]
    assert done.outcome == "timeout" and done.detail.startswith("timed out after 0.1")


async def test_requests_sent_by_hand_get_an_outcome_and_a_hand_cancel_its_reason() -> None:
    state = LiveState()
    async with connected(state) as (session, server):
        await session.send_raw(jsonrpc.encode(jsonrpc.request(900, "tools/call", {"name": "raw"})))
        await session.send_raw(jsonrpc.encode(jsonrpc.request(901, "ping")))
        await server.receive()
        await server.receive()
        await server.send(jsonrpc.error_response(900, -32602, "bad arguments"))
        timed_out = {"requestId": 901, "reason": "timed out (sent by hand)"}
        await session.send_raw(
            jsonrpc.encode(jsonrpc.notification("notifications/cancelled", timed_out))
        )
        await until(lambda: len(state.requests.finished) == 2)
    raw, ping = state.requests.finished[900], state.requests.finished[901]
    assert (raw.label, raw.outcome, raw.detail) == ("tools/call raw", "error", "bad arguments")
    assert (ping.label, ping.outcome, ping.detail) == ("ping", "timeout", timed_out["reason"])


async def test_a_request_pending_before_attach_keeps_its_name() -> None:
    state = LiveState()
    async with (
        connected(state, attach=False) as (session, server),
        anyio.create_task_group() as tg,
    ):
        calls_ = Calls(session, tg)
        calls_.start("early", "prompts/get", {"name": "early"})
        early = await server.receive()
        state.attach(session)  # the request is already on its way
        await server.send(jsonrpc.response(early["id"], {"messages": []}))
        await until(lambda: "early" in calls_.outcomes)
    assert state.requests.finished[early["id"]].label == "prompts/get early"


async def test_only_the_last_finished_requests_are_kept() -> None:
    state = LiveState()
    state.requests.recent = 3
    async with connected(state) as (session, server):
        for n in range(5):
            await session.send_raw(jsonrpc.encode(jsonrpc.request(100 + n, "ping")))
            await server.receive()
            await server.send(jsonrpc.response(100 + n, {}))
        await until(lambda: 104 in state.requests.finished)
    assert list(state.requests.finished) == [102, 103, 104]


async def test_tasks_changes_and_each_outcome_is_announced_once() -> None:
    state = LiveState()
    async with connected(state) as (_session, server), anyio.create_task_group() as tg:
        assert state.tasks is not None and state.tasks.can_list
        state.take_changes()
        created: list[TaskState] = []

        async def create() -> None:
            assert state.tasks is not None
            created.append(await state.tasks.call_tool("report", {"topic": "x"}))

        tg.start_soon(create)
        call = await server.receive()
        assert call["params"]["task"] == {}
        task = {"taskId": "t1", "status": "working", "pollInterval": 100}
        await server.send(jsonrpc.response(call["id"], {"task": task}))
        await until(lambda: bool(created))
        changes = state.take_changes()
        assert changes.tasks and changes.finished_tasks == []
        status = {**task, "status": "completed"}
        await server.send(jsonrpc.notification("notifications/tasks/status", status))
        await until(lambda: state.tasks is not None and state.tasks.tasks["t1"].terminal)
        changes = state.take_changes()
        assert changes.tasks and changes.finished_tasks == []  # ended, outcome not fetched
        for round_ in range(2):  # fetched twice: announced once
            tg.start_soon(state.tasks.result, "t1")
            fetch = await server.receive()
            assert fetch["method"] == "tasks/result"
            result = {"content": [{"type": "text", "text": "done"}]}
            await server.send(jsonrpc.response(fetch["id"], result))
            await until(lambda: state.tasks is not None and state.tasks.tasks["t1"].fetched)
            await anyio.sleep(0.05)
            if round_ == 0:
                finished = state.take_changes().finished_tasks
                assert [s.task_id for s in finished] == ["t1"]
                assert finished[0].result == result
    later = state.take_changes()
    assert later.tasks and later.finished_tasks == []


async def test_server_log_entries_come_in_batches_and_are_counted() -> None:
    state = LiveState()
    async with connected(state) as (_session, server):
        for level in ("info", "error", "error"):
            params = {"level": level, "logger": "db", "data": f"a {level}"}
            await server.send(jsonrpc.notification("notifications/message", params))
        await until(lambda: state.server_log.count == 3)
        taken = state.take_changes().log
        assert [(e.level, e.params["data"]) for e in taken] == [
            ("info", "a info"),
            ("error", "a error"),
            ("error", "a error"),
        ]
        assert state.take_changes().log == []
        assert state.server_log.counts == {"info": 1, "error": 2}
        state.server_log.clear()
        assert not state.server_log.entries and state.server_log.count == 3


async def test_a_new_session_replaces_the_old_ones_state() -> None:
    state = LiveState()
    async with connected(state) as (old, old_server):
        await old.send_raw(jsonrpc.encode(jsonrpc.request(7, "ping")))
        await old_server.receive()
        await old_server.send(jsonrpc.response(7, {}))
        await until(lambda: 7 in state.requests.finished)
        async with connected(state) as (new, new_server):
            changes = state.take_changes()
            assert changes.attached and changes.requests
            assert state.session is new and state.requests.finished == {}
            assert not state.take_changes().attached
            # the old session's server log and updates no longer reach the state
            log = {"level": "info", "data": "old"}
            await old_server.send(jsonrpc.notification("notifications/message", log))
            updated = {"uri": "demo://old"}
            await old_server.send(jsonrpc.notification("notifications/resources/updated", updated))
            await new_server.send(
                jsonrpc.notification("notifications/message", {"level": "info", "data": "new"})
            )
            await until(lambda: state.server_log.count == 1)
            await anyio.sleep(0.05)
    assert [e.params["data"] for e in state.server_log.entries] == ["new"]
    assert state.updated == set()


async def test_resource_updates_are_kept_until_read() -> None:
    state = LiveState()
    async with connected(state) as (_session, server):
        for uri in ("demo://a", "demo://b", "demo://a"):
            params = {"uri": uri}
            await server.send(jsonrpc.notification("notifications/resources/updated", params))
        await until(lambda: len(state.updated) == 2)
        await anyio.sleep(0.05)
    assert state.take_changes().updated == ["demo://a", "demo://b", "demo://a"]
    assert state.take_changes().updated == []
    state.read("demo://a")
    assert state.updated == {"demo://b"}


async def test_events_are_stored_when_taken_and_handed_over_once() -> None:
    state = LiveState()
    async with connected(state) as (session, server):
        state.take_changes()  # the handshake's
        first = len(state.store)
        await session.send_raw(jsonrpc.encode(jsonrpc.request(1000, "ping")))
        await server.receive()
        await server.send(jsonrpc.response(1000, {}))
        await until(lambda: state.pending_events >= 2)
        assert len(state.store) == first  # observed, not stored yet
        changes = state.take_changes()
        assert changes.grew and changes.first == first
        assert len(changes.events) >= 2 and len(state.store) == first + len(changes.events)
        again = state.take_changes()
        assert not again.grew and again.events == [] and again.first == len(state.store)


def test_a_recording_grows_by_itself_and_each_growth_is_said_once() -> None:
    recording = EventStore()
    make = [
        jsonrpc.make_event(Direction.OUT, Channel.STDIN, jsonrpc.encode(jsonrpc.request(n, "ping")))
        for n in range(5)
    ]
    recording.extend(make[:2])
    state = LiveState(recording)
    changes = state.take_changes()
    assert (changes.grew, changes.first, changes.events) == (True, 0, [])
    assert not state.take_changes().grew
    recording.extend(make[2:])  # the index went on
    changes = state.take_changes()
    assert (changes.grew, changes.first) == (True, 2)


def test_helpers_name_requests_and_count_real_calls() -> None:
    assert describe("tools/call", {"name": "echo"}) == "tools/call echo"
    assert describe("tasks/get", {"taskId": "t1"}) == "tasks/get t1"
    listen = {"notifications": {"toolsListChanged": True, "resourceSubscriptions": ["a", "b"]}}
    assert listen_label(listen) == "listening: tools, 2 subscribed resources"
    assert describe("subscriptions/listen", listen) == listen_label(listen)
    waiting = PendingRequest(id=1, method="tools/call", params={})
    stream = PendingRequest(id=2, method="subscriptions/listen", params={})
    answered = PendingRequest(id=3, method="ping", params={})
    answered.done.set()
    assert calls([waiting, stream, answered]) == 1


def test_changes_become_one_message_each_and_a_fresh_copy_per_subscriber() -> None:
    done = [TaskState("t1"), TaskState("t2")]
    entry = LogEntry({"level": "info", "data": "x"})
    changes = Changes(
        attached=True,
        first=3,
        grew=True,
        requests=True,
        tasks=True,
        finished_tasks=done,
        log=[entry],
        updated=["demo://a"],
    )
    makers = change_messages(changes)
    made = [make() for make in makers]
    assert [type(m) for m in made] == [
        messages.SessionAttached,
        messages.EventsAdded,
        messages.RequestsChanged,
        messages.TasksChanged,
        messages.TaskFinished,
        messages.TaskFinished,
        messages.ServerLogAdded,
        messages.ResourceUpdated,
    ]
    assert all(not m.bubble for m in made)  # each subscriber gets its own, none bubbles
    assert [m.state for m in made if isinstance(m, messages.TaskFinished)] == done
    assert next(m for m in made if isinstance(m, messages.TasksChanged)).outcomes
    assert makers[0]() is not makers[0]()
    assert Changes().empty and change_messages(Changes()) == []
    progress_only = change_messages(Changes(tasks=True))
    assert [type(m()) for m in progress_only] == [messages.TasksChanged]
    assert not progress_only[0]().outcomes  # type: ignore[attr-defined]


def test_a_limited_take_stores_the_oldest_and_keeps_the_rest_in_order() -> None:
    state = LiveState()
    for n in range(7):
        message = jsonrpc.notification("notifications/message", {"data": n})
        event = jsonrpc.make_event(Direction.IN, Channel.STDOUT, jsonrpc.encode(message))
        event.seq = n + 1
        state.observe(event)
    taken = [state.take_changes(limit=3) for _ in range(3)]
    assert [(c.first, len(c.events)) for c in taken] == [(0, 3), (3, 3), (6, 1)]
    assert all(c.grew for c in taken) and state.pending_events == 0
    assert [state.store.event(i).message["params"]["data"] for i in range(7)] == list(range(7))
