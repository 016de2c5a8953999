"""``server:NAME``: a workspace's log, filtered to one server's frames, in every source
(the in-memory store, a recording, the plain scan)."""

from __future__ import annotations

from pathlib import Path

from inspector.logstore.filter_query import LogFilter
from inspector.logstore.store import EventStore, scan_matching
from inspector.record.format import SessionHeader, encode_event
from inspector.record.indexed import IndexedSessionFile
from inspector.wire.events import Channel, Direction, WireEvent
from inspector.wire.jsonrpc import encode, make_event, request


def frames() -> list[WireEvent]:
    out = []
    for n, server in enumerate(("files", "staging-api", "prod-api", None)):
        meta = {"server": server} if server else None
        out.append(make_event(Direction.OUT, Channel.STDIN, encode(request(n, "tools/list")), meta))
    return out


def test_server_term_parses_with_alias_and_globs() -> None:
    flt = LogFilter.parse("srv:files,*-api")
    assert flt.servers == ("files", "*-api") and not flt.problems and not flt.is_empty
    assert flt.server_matches("FILES") and flt.server_matches("prod-api")
    assert not flt.server_matches("other") and not flt.server_matches(None)
    assert "needs a value" in str(LogFilter.parse("server:").problems[0])


def test_server_filter_in_the_store_the_scan_and_a_recording(tmp_path: Path) -> None:
    store = EventStore()
    store.extend(frames())
    flt = LogFilter.parse("server:*-api")
    assert list(store.matching(flt, 0, len(store))) == [1, 2]
    assert list(scan_matching(store, flt, 0, len(store))) == [1, 2]
    assert list(store.matching(LogFilter.parse("server:files tools"), 0, 4)) == [0]
    path = tmp_path / "workspace.jsonl"
    path.write_bytes(
        SessionHeader({"command": "x"}).to_line() + b"".join(encode_event(e) for e in frames())
    )
    with IndexedSessionFile(path) as recording:
        assert list(recording.matching(flt, 0, len(recording))) == [1, 2]


def test_each_servers_response_pairs_with_its_own_request_in_a_merged_log() -> None:
    """Two servers' sessions both number from 1: in one log, A's answer to its id 1 is
    not B's (requests interleaved, answers in the other order)."""
    store = EventStore()

    def frame(direction: Direction, server: str, message: dict[str, object]) -> WireEvent:
        return make_event(direction, Channel.STDIN, encode(message), {"server": server})

    store.extend(
        [
            frame(Direction.OUT, "a", request(1, "tools/list")),
            frame(Direction.OUT, "b", request(1, "prompts/list")),
            frame(Direction.IN, "b", {"jsonrpc": "2.0", "id": 1, "result": {}}),
            frame(Direction.IN, "a", {"jsonrpc": "2.0", "id": 1, "result": {}}),
        ]
    )
    assert store.find_response(0) == 3 and store.find_response(1) == 2
    assert store.method(3) == "tools/list"
