"""The proxy's id rewriting and routing (pure bookkeeping, no I/O)."""

from __future__ import annotations

from typing import Any

from inspector.proxy.origin import HOST, INSPECTOR, Origin
from inspector.proxy.router import Router


def req(id_: Any, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
    msg: dict[str, Any] = {"jsonrpc": "2.0", "id": id_, "method": method}
    if params is not None:
        msg["params"] = params
    return msg


def ok(id_: Any, result: Any = None) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": id_, "result": result if result is not None else {}}


def note(method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "method": method, "params": params or {}}


def handshake(router: Router) -> None:
    router.host_sent(req(0, "initialize", {"protocolVersion": "2025-11-25"}))
    route = router.server_sent(ok(0, {"protocolVersion": "2025-11-25", "serverInfo": {}}))
    assert route.handshake and route.to_host


def test_inspector_request_gets_a_wire_id_and_its_answer_back() -> None:
    router = Router()
    handshake(router)
    router.host_sent(req(1, "tools/call"))
    out = router.inspector_sent(7, req(1, "tools/call", {"name": "add"}))
    assert out.message is not None
    wire_id = out.message["id"]
    assert wire_id != 1 and isinstance(wire_id, str)
    assert out.meta == {"inspector_id": 1}

    host_answer = router.server_sent(ok(1, {"for": "host"}))
    assert host_answer.to_host and host_answer.owner is None and host_answer.origin.side == HOST

    mine = router.server_sent(ok(wire_id, {"for": "inspector"}))
    assert not mine.to_host  # the host never sees an answer meant for the inspector
    assert mine.owner == 7 and mine.origin == Origin(INSPECTOR, 7)
    assert mine.restored == ok(1, {"for": "inspector"})
    # a second answer to the same wire id is dropped, not handed to the host
    again = router.server_sent(ok(wire_id))
    assert not again.to_host and again.owner is None and again.note


def test_progress_tokens_and_cancellation_are_rewritten() -> None:
    router = Router()
    handshake(router)
    out = router.inspector_sent(1, req(5, "tools/call", {"_meta": {"progressToken": "p-5"}}))
    assert out.message is not None
    wire_id = out.message["id"]
    wire_token = out.message["params"]["_meta"]["progressToken"]
    assert wire_token != "p-5"
    progress = router.server_sent(note("notifications/progress", {"progressToken": wire_token}))
    assert progress.owner == 1 and not progress.to_host
    assert progress.restored["params"]["progressToken"] == "p-5"
    host_progress = router.server_sent(note("notifications/progress", {"progressToken": "p-5"}))
    assert host_progress.to_host and host_progress.owner is None  # the host's own token

    cancel = router.inspector_sent(1, note("notifications/cancelled", {"requestId": 5}))
    assert cancel.message is not None and cancel.message["params"]["requestId"] == wire_id
    unknown = router.inspector_sent(1, note("notifications/cancelled", {"requestId": 99}))
    assert unknown.message is None and unknown.dropped


def test_initialize_is_answered_from_the_hosts_handshake() -> None:
    router = Router()
    early = router.inspector_sent(3, req("i", "initialize", {}))
    assert early.wait_handshake and early.message is None
    handshake(router)
    out = router.inspector_sent(3, req("i", "initialize", {}))
    assert out.message is None and out.reply is not None
    assert out.reply["id"] == "i" and out.reply["result"]["protocolVersion"] == "2025-11-25"
    dropped = router.inspector_sent(3, note("notifications/initialized"))
    assert dropped.message is None and dropped.dropped


def test_server_requests_go_to_whoever_caused_them() -> None:
    router = Router()
    handshake(router)
    # stdio: only the inspector has a request in flight -> the inspector's
    out = router.inspector_sent(2, req(1, "tools/call"))
    route = router.server_sent(req(50, "sampling/createMessage"))
    assert route.owner == 2 and not route.to_host
    # its answer goes out untouched; someone else's answer to it is refused
    assert router.inspector_sent(9, ok(50)).refused
    assert router.inspector_sent(2, ok(50)).message == ok(50)
    # the host has one in flight too: stdio cannot tell, the host keeps it
    router.host_sent(req(8, "tools/call"))
    route = router.server_sent(req(51, "elicitation/create"))
    assert route.to_host and route.owner is None
    # HTTP says: it came on the response stream of the inspector's request
    route = router.server_sent(req(52, "roots/list"), Origin(INSPECTOR, 2))
    assert route.owner == 2
    assert out.message is not None


def test_where_the_wire_does_not_say_the_declared_capabilities_decide() -> None:
    router = Router()
    init = {"protocolVersion": "2025-11-25", "capabilities": {"sampling": {}}}
    router.host_sent(req(0, "initialize", init))
    router.server_sent(ok(0, {"protocolVersion": "2025-11-25", "serverInfo": {}}))
    router.inspector_sent(1, req(1, "initialize", {"capabilities": {"roots": {}}}))
    router.inspector_sent(2, req(1, "initialize", {"capabilities": {"elicitation": {}}}))
    router.host_sent(req(5, "tools/call"))  # everyone has a request in flight
    router.inspector_sent(1, req(2, "tools/call"))
    router.inspector_sent(2, req(2, "tools/call"))
    # roots: only inspector 1 declared it
    assert router.server_sent(req(60, "roots/list")).owner == 1
    # elicitation: inspector 2 declared it, the host did not
    assert router.server_sent(req(61, "elicitation/create")).owner == 2
    # sampling: the host declared it, and it comes first
    route = router.server_sent(req(62, "sampling/createMessage"))
    assert route.to_host and route.owner is None
    # ping needs nothing: the host's while it has a request in flight
    assert router.server_sent(req(63, "ping")).to_host


def test_a_request_the_host_cannot_answer_goes_to_an_inspector_in_flight() -> None:
    router = Router()
    router.host_sent(req(0, "initialize", {"capabilities": {}}))
    router.server_sent(ok(0, {"protocolVersion": "2025-11-25", "serverInfo": {}}))
    router.host_sent(req(5, "tools/call"))
    router.inspector_sent(3, req(1, "tools/call"))  # its initialize was not seen
    assert router.server_sent(req(70, "roots/list")).owner == 3


def test_notifications_reach_the_host_and_every_inspector() -> None:
    router = Router()
    route = router.server_sent(note("notifications/tools/list_changed"))
    assert route.to_host and route.broadcast and route.restored is None


def test_detaching_drops_late_answers_and_returns_owed_requests() -> None:
    router = Router()
    handshake(router)
    out = router.inspector_sent(4, req(1, "tools/call"))
    assert out.message is not None
    router.server_sent(req(60, "sampling/createMessage"))  # owned by inspector 4
    assert router.detach(4) == [60]
    late = router.server_sent(ok(out.message["id"]))
    assert not late.to_host and late.owner is None and late.note
    # with the inspector gone, new server requests go to the host
    assert router.server_sent(req(61, "ping")).to_host


def test_frames_that_cannot_be_routed_are_refused() -> None:
    router = Router()
    assert router.inspector_sent(1, [req(1, "ping")]).refused  # a batch
    assert router.inspector_sent(1, None).refused  # not JSON
    assert router.inspector_sent(1, {"jsonrpc": "2.0"}).refused


def test_the_wires_history_is_bounded_by_count_and_bytes() -> None:
    from inspector.proxy.wire import ProxyWire
    from inspector.wire.events import Channel, Direction, WireEvent

    wire = ProxyWire(history=3, history_bytes=100)
    for n in range(5):
        wire.emit(WireEvent(Direction.IN, Channel.STDERR, f"line {n}".encode()))
    assert [e.raw for e in wire.history] == [b"line 2", b"line 3", b"line 4"]
    wire.emit(WireEvent(Direction.IN, Channel.STDERR, b"x" * 95))
    assert [e.raw for e in wire.history] == [b"x" * 95]  # the older ones made room


def test_an_inspector_cannot_attach_to_a_stateless_host_yet() -> None:
    router = Router()
    router.host_sent(req(1, "server/discover", {"_meta": {}}))
    out = router.inspector_sent(1, req("i", "initialize", {}))
    assert out.refused and "stateless" in out.refused and not out.wait_handshake
