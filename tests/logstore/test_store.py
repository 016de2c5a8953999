"""EventStore columns, pairing, rebuild, the filter language, batching, memory; summaries."""

from __future__ import annotations

import json
import subprocess
import sys
import tracemalloc
from array import array
from pathlib import Path

import pytest

from inspector.engine.summary import summarize
from inspector.logstore.store import (
    CHUNK,
    FIRST_CHUNK,
    OWN_CHUNK,
    EventSource,
    EventStore,
    FilteredView,
    LogFilter,
)
from inspector.wire.events import Channel, Direction, Finding, Kind, WireEvent
from inspector.wire.jsonrpc import (
    encode,
    error_response,
    make_event,
    notification,
    request,
    response,
)

OUT, IN, LOCAL = Direction.OUT, Direction.IN, Direction.LOCAL


def ev(
    direction: Direction,
    msg: object,
    *,
    channel: Channel = Channel.STDIN,
    t: float = 0.0,
    seq: int = 0,
    **kw: object,
) -> WireEvent:
    raw = msg if isinstance(msg, bytes) else encode(msg)
    event = make_event(direction, channel, raw)
    event.time = 1_700_000_000.0 + t
    event.mono = 50.0 + t
    event.seq = seq
    for key, value in kw.items():
        setattr(event, key, value)
    return event


def conversation() -> list[WireEvent]:
    events = [
        ev(LOCAL, b"spawned demo", channel=Channel.SYSTEM),
        ev(OUT, request(1, "initialize", {"protocolVersion": "2025-11-25"}), t=0.01),
        ev(
            IN,
            response(
                1, {"serverInfo": {"name": "demo", "version": "1"}, "protocolVersion": "2025-11-25"}
            ),
            channel=Channel.STDOUT,
            t=0.05,
        ),
        ev(OUT, request(2, "tools/call", {"name": "echo", "arguments": {"text": "Hi"}}), t=1.0),
        ev(IN, b"progress line on stderr \x1b[31m", channel=Channel.STDERR, t=1.1),
        ev(IN, request("s1", "roots/list"), channel=Channel.STDOUT, t=1.2),
        ev(OUT, response("s1", {"roots": []}), t=1.25),
        ev(
            IN,
            error_response(2, -32602, "bad arguments"),
            channel=Channel.STDOUT,
            t=1.5,
            findings=[Finding("x-code", "something odd")],
        ),
        ev(IN, b"not json {", channel=Channel.STDOUT, t=1.6),
        ev(
            IN,
            notification("notifications/message", {"level": "info", "data": "hello"}),
            channel=Channel.STDOUT,
            t=1.7,
        ),
        ev(OUT, b"POST /mcp -> 200", channel=Channel.HTTP, t=1.8, meta={"status": 200}),
    ]
    for n, event in enumerate(events, 1):
        event.seq = n
    return events


@pytest.fixture
def store() -> EventStore:
    s = EventStore()
    s.extend(conversation())
    return s


def test_columns(store: EventStore) -> None:
    assert len(store) == 11
    assert isinstance(store, EventSource)
    assert [store.kind(i) for i in range(4)] == [
        Kind.SYSTEM,
        Kind.REQUEST,
        Kind.RESPONSE,
        Kind.REQUEST,
    ]
    assert store.direction(0) is LOCAL and store.direction(1) is OUT and store.direction(2) is IN
    assert store.channel(4) is Channel.STDERR
    assert store.method(1) == "initialize"
    assert store.method(2) == "initialize"  # a response carries its request's method
    assert store.method(7) == "tools/call"
    assert store.method(9) == "notifications/message"
    assert store.method(4) is None and store.method(8) is None
    assert store.seq(5) == 6 and store.time(3) == pytest.approx(1_700_000_001.0)
    assert store.has_findings(7) and not store.has_findings(6)
    assert store.index_of_seq(8) == 7 and store.index_of_seq(99) is None


def test_pairing_and_latency(store: EventStore) -> None:
    assert store.find_response(1) == 2 and store.find_request(2) == 1
    assert store.find_response(3) == 7 and store.find_request(7) == 3  # error response
    assert store.find_response(5) == 6 and store.find_request(6) == 5  # server -> client
    assert store.find_request(1) is None and store.find_response(2) is None
    assert store.latency_ms(2) == pytest.approx(40.0)
    assert store.latency_ms(7) == pytest.approx(500.0)
    assert store.latency_ms(4) is None


def test_pairing_by_direction_and_reused_ids() -> None:
    s = EventStore()
    s.append(ev(OUT, request(1, "a")))
    s.append(ev(IN, request(1, "from-server")))  # same id, other direction
    s.append(ev(OUT, response(1, {})))  # answers the server's request
    s.append(ev(IN, response(1, {})))  # answers ours
    s.append(ev(OUT, request(1, "b")))  # id reused after the answer
    s.append(ev(IN, response(1, {"x": 1})))
    s.append(ev(IN, response(42, {})))  # unknown id: no pair
    assert (s.find_response(0), s.find_response(1), s.find_response(4)) == (3, 2, 5)
    assert s.method(5) == "b" and s.find_request(6) is None
    # ids 1 and "1" are different requests
    s.append(ev(OUT, request("1", "c")))
    s.append(ev(IN, response(1, {})))
    assert s.find_request(8) is None


def test_rebuild_event_roundtrip(store: EventStore) -> None:
    originals = conversation()
    for i, original in enumerate(originals):
        rebuilt = store.event(i)
        assert rebuilt.raw == original.raw
        assert rebuilt.message == original.message
        assert rebuilt.error == original.error
        assert (rebuilt.direction, rebuilt.channel, rebuilt.seq) == (
            original.direction,
            original.channel,
            original.seq,
        )
        assert rebuilt.time == original.time and rebuilt.mono == original.mono
        assert rebuilt.kind is original.kind
        assert rebuilt.meta == original.meta and rebuilt.findings == original.findings
    assert store.event(-1).meta == {"status": 200}


def test_rebuild_keeps_unparsed_and_custom_errors() -> None:
    s = EventStore()
    note = WireEvent(LOCAL, Channel.SYSTEM, b"exit code 1")  # never parsed
    odd = WireEvent(IN, Channel.STDOUT, b"x" * 10, error="line too long (cut)")
    s.extend([note, odd])
    assert s.event(0).error is None and s.event(0).message is None
    assert s.event(1).error == "line too long (cut)"
    s.add_finding(0, Finding("late", "found later"))
    assert s.has_findings(0) and s.event(0).findings[0].code == "late"


def test_filter_language_parse() -> None:
    f = LogFilter.parse('method:tools/call kind:error,res dir:in "two words" plain has:finding')
    assert f.methods == ("tools/call",)
    assert f.kinds == {Kind.ERROR, Kind.RESPONSE}
    assert f.directions == {IN}
    assert f.terms == ("two words", "plain")
    assert f.findings and not f.problems
    g = LogFilter.parse("http://localhost:8000 kind:nope dir:sideways ch:stderr")
    assert g.terms == ("http://localhost:8000",)
    assert g.channels == {Channel.STDERR}
    assert len(g.problems) == 2
    assert LogFilter.parse("  ").is_empty and not f.is_empty
    assert LogFilter.parse("method:tools/*").method_matches("tools/list")
    assert LogFilter.parse("method:notifications/").method_matches("notifications/message")
    assert not LogFilter.parse("method:tools").method_matches("tools/list")


def _view(store: EventStore, query: str) -> list[int]:
    view = FilteredView(store, LogFilter.parse(query))
    view.catch_up()
    return list(view.indices)


def test_filtering(store: EventStore) -> None:
    assert _view(store, "method:tools/call") == [3, 7]
    assert _view(store, "kind:error") == [7]
    assert _view(store, "dir:out") == [1, 3, 6, 10]
    assert _view(store, "dir:local") == [0]
    assert _view(store, "kind:req dir:in") == [5]
    assert _view(store, "ECHO") == [3]  # case-insensitive substring of raw
    assert _view(store, "echo hi") == [3]  # every term must match
    assert _view(store, "echo nope") == []
    assert _view(store, "jsonrpc dir:in kind:notif") == [9]
    assert _view(store, "has:finding") == [7]
    assert _view(store, "ch:stderr") == [4]
    assert _view(store, "kind:invalid") == [8]
    assert _view(store, "\x1b[31m") == [4]


def test_text_match_does_not_span_frames() -> None:
    s = EventStore()
    s.append(ev(IN, b"abc", channel=Channel.STDERR))
    s.append(ev(IN, b"def", channel=Channel.STDERR))
    s.append(ev(IN, b"cd", channel=Channel.STDERR))
    assert _view(s, "cd") == [2]


def test_filtered_view_is_incremental_and_follows_growth() -> None:
    s = EventStore()
    s.extend(ev(OUT, request(i, "tools/call" if i % 3 == 0 else "ping")) for i in range(1000))
    view = FilteredView(s, LogFilter.parse("method:tools/call"))
    assert not view.step(budget=100)
    assert view.scanned == 100 and len(view) == 34
    view.catch_up()
    assert len(view) == 334 and view.done
    s.extend(ev(OUT, request(1000 + i, "tools/call")) for i in range(10))
    assert not view.done
    view.step()
    assert len(view) == 344 and view.indices[-1] == 1009
    assert isinstance(view.indices, array)
    assert view.row_of(3) == 1 and view.row_of(4) is None and view.nearest_row(4) == 1


@pytest.mark.slow
def test_memory_under_twice_raw_bytes() -> None:
    """100k realistic events: the store holds less than 2x their raw bytes."""
    events = []
    for i in range(50_000):
        events.append(
            ev(OUT, request(i, "tools/call", {"name": "search", "arguments": {"q": f"query {i}"}}))
        )
        events.append(
            ev(
                IN,
                response(i, {"content": [{"type": "text", "text": f"result number {i} " * 4}]}),
                channel=Channel.STDOUT,
            )
        )
    raw_total = sum(len(e.raw) for e in events)
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        s = EventStore()
        for start in range(0, len(events), 1000):
            s.extend(events[start : start + 1000])
        held = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert s.raw_bytes == raw_total
    assert held < 2 * raw_total, (held, raw_total)
    assert s.find_response(99_998) == 99_999


def test_a_big_frame_is_stored_without_a_copy_of_it_on_the_way() -> None:
    """A 1 MB frame goes into the open chunk at the cost of the chunk alone: a bytearray's
    slice assigned from bytes copied them into a new bytearray first (held once more)."""
    s = EventStore()
    pad = {"text": "x" * (CHUNK // 2)}
    s.append(ev(OUT, request(1, "ping", pad)))  # the open chunk has grown to its full size
    big = ev(IN, response(1, {"content": [{"type": "text", "text": "x" * 1_000_000}]}))
    tracemalloc.start()
    try:
        s.append(big)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert s.raw(1) == big.raw
    assert peak < 100_000, peak


def test_a_big_frame_is_kept_as_it_is_not_copied() -> None:
    """issue 25 item 9: a frame of ``OWN_CHUNK`` bytes or more is a chunk of its own, the
    frame's bytes themselves: the result view keeps a big answer's frame too, and a copy
    in the log (growing its open chunk to 2 MiB for a 1 MB frame) was a third of a 1 MB
    text result's peak on arrival. Small frames around it are kept in order."""
    s = EventStore()
    s.append(ev(OUT, request(1, "tools/call", {"name": "big"})))
    big = ev(IN, response(1, {"content": [{"type": "text", "text": "x" * 1_000_000}]}))
    assert len(big.raw) >= OWN_CHUNK
    tracemalloc.start()
    try:
        s.append(big)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    s.append(ev(OUT, request(2, "ping")))
    assert s.raw(1) is big.raw
    assert peak < 100_000, peak
    assert [json.loads(s.raw(i))["id"] for i in range(3)] == [1, 1, 2]
    assert s.find_response(0) == 1


def test_a_new_store_starts_small() -> None:
    """A workspace makes a store per server: each zeroed a 4 MiB chunk at its start
    (twenty servers: 80 MiB) for the few KiB most servers send. The first chunk starts
    small and grows as frames come, through each of its sizes, every frame kept."""
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        s = EventStore()
        held = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert held < 2 * FIRST_CHUNK, held
    frames = [b"frame %d " % n + b"y" * (n * 997 % 50_000) for n in range(400)]
    frames[7] = b"z" * (3 * FIRST_CHUNK)  # bigger than the chunk so far: it grows to fit
    s.extend(ev(IN, frame, channel=Channel.STDERR) for frame in frames)
    assert sum(map(len, frames)) > 2 * CHUNK  # past the first chunk's largest size too
    assert [s.raw(i) for i in range(len(s))] == frames
    assert _view(s, "frame 399") == [399]


def test_store_is_headless() -> None:
    code = (
        "import sys, inspector.logstore.store, inspector.engine.summary; "
        "assert 'textual' not in sys.modules and 'rich' not in sys.modules"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)


# -- summaries ---------------------------------------------------------------------


def test_summaries(store: EventStore) -> None:
    rows = [summarize(store.event(i)) for i in range(len(store))]
    assert rows[0].kind is Kind.SYSTEM and rows[0].text == "spawned demo"
    assert rows[1].method == "initialize" and rows[1].id == "1"
    assert "protocolVersion=2025-11-25" in rows[1].text
    assert rows[2].text == "demo 1 protocol 2025-11-25"
    assert rows[3].text == "echo text=Hi"
    assert rows[4].text.startswith("progress line on stderr")
    assert rows[5].id == "s1" and rows[5].method == "roots/list"
    assert rows[6].text == "roots[0]"
    assert rows[7].kind is Kind.ERROR and rows[7].text == "-32602 bad arguments"
    assert rows[8].text.startswith("not JSON") and "not json {" in rows[8].text
    assert rows[9].text == "info hello"
    assert rows[10].text == "POST /mcp -> 200"


def test_summary_of_content_and_lists() -> None:
    tool_result = ev(
        IN,
        response(
            3,
            {
                "content": [
                    {"type": "text", "text": "line one\nline two"},
                    {"type": "image", "data": "..."},
                ]
            },
        ),
    )
    assert summarize(tool_result).text == "line one line two (+1)"
    tools = ev(
        IN, response(4, {"tools": [{"name": f"t{i}"} for i in range(10)], "nextCursor": "c"})
    )
    assert summarize(tools).text == "tools[10] t0, t1, t2, t3, … nextCursor"
    err = ev(IN, response(5, {"content": [{"type": "text", "text": "boom"}], "isError": True}))
    assert summarize(err).text == "isError boom"
    progress = ev(
        IN, notification("notifications/progress", {"progressToken": 1, "progress": 2, "total": 5})
    )
    assert summarize(progress).text == "2/5"
    batch = ev(OUT, [request(1, "ping"), notification("notifications/initialized")])
    assert summarize(batch).text.startswith("batch of 2: ping")


def test_summary_work_is_bounded() -> None:
    huge = ev(
        IN,
        response(
            1, {"content": [{"type": "text", "text": "x" * 5_000_000}], "big": list(range(100_000))}
        ),
    )
    row = summarize(huge)
    assert len(row.text) <= 160
    params = {f"k{i}": "v" * 1000 for i in range(1000)}
    row = summarize(ev(OUT, request(2, "custom/method", params)))
    assert len(row.text) <= 160 and row.text.startswith("k0=")
    deep: dict[str, object] = {"x": 1}
    for _ in range(900):
        deep = {"arguments": deep}
    assert len(summarize(ev(OUT, request(3, "tools/call", {"name": "n", **deep}))).text) <= 160
    bad = ev(IN, b"\xff" * 100_000)
    assert len(summarize(bad).text) <= 160


def test_raw_bytes_across_small_chunks(monkeypatch: pytest.MonkeyPatch) -> None:
    """Chunk boundaries (and frames bigger than a chunk) are invisible to readers."""
    import inspector.logstore.store as store_module

    monkeypatch.setattr(store_module, "CHUNK", 64)
    s = EventStore()
    frames = [b"needle-%d " % n + b"x" * (n * 7 % 50) for n in range(40)]
    frames[10] = b"big " + b"needle " * 30  # larger than a chunk
    frames[11] = b""
    events = [ev(IN, f, channel=Channel.STDERR) for f in frames]
    s.extend(events)
    assert [s.raw(i) for i in range(len(s))] == frames
    assert s.raw_bytes == sum(map(len, frames))
    assert _view(s, "needle") == [i for i, f in enumerate(frames) if b"needle" in f]
    assert _view(s, "NEEDLE-3") == [3, *range(30, 40)]
    assert _view(s, "big needle") == [10]
    view = FilteredView(s, LogFilter.parse("xxxxx"))
    while not view.step(budget=3):
        pass
    assert list(view.indices) == [i for i, f in enumerate(frames) if b"xxxxx" in f]


def test_unanswered_requests_are_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    import inspector.logstore.store as store_module

    monkeypatch.setattr(store_module, "MAX_PENDING", 10)
    s = EventStore()
    s.extend(ev(OUT, request(n, "ping")) for n in range(30))
    s.append(ev(IN, response(29, {})))
    s.append(ev(IN, response(0, {})))  # too old: let go, so it stays unpaired
    assert s.find_request(30) == 29 and s.find_request(31) is None


def test_generic_scan_agrees_with_the_fast_path(store: EventStore) -> None:
    from inspector.logstore.store import scan_matching

    for query in [
        "method:tools/call",
        "kind:error",
        "dir:out",
        "ECHO",
        "echo hi",
        "jsonrpc dir:in kind:notif",
        "has:finding",
        "ch:stderr",
        "kind:invalid",
        "method:notifications/ info",
        "",
    ]:
        flt = LogFilter.parse(query)
        assert list(scan_matching(store, flt, 0, len(store))) == list(
            store.matching(flt, 0, len(store))
        ), query


def test_text_filter_folds_unicode_case_and_sees_through_json_escapes() -> None:
    s = EventStore()
    s.append(ev(IN, b'{"jsonrpc":"2.0","id":1,"result":{"text":"caf\\u00e9 STRASSE"}}'))
    s.append(ev(IN, '{"jsonrpc":"2.0","id":2,"result":{"text":"CAFÉ straße"}}'.encode()))
    s.append(ev(IN, b'{"jsonrpc":"2.0","id":3,"result":{"text":"cafe strase"}}'))
    s.append(ev(IN, "ÉCHEC ΣΊΣΥΦΟΣ".encode(), channel=Channel.STDERR))
    assert _view(s, "café") == [0, 1]  # escaped on the wire, or upper case
    assert _view(s, "CAFÉ") == [0, 1]
    assert _view(s, "straße") == [0, 1]  # casefold: ß is ss
    assert _view(s, "cafe") == [2]  # é is not e
    assert _view(s, "échec") == [3] and _view(s, "σίσυφος") == [3]
    assert _view(s, '"text":"caf\\u00e9') == [0]  # typed as on the wire: the raw bytes
    assert _view(s, "café kind:res") == [0, 1]


def test_plain_scan_matching_agrees_with_the_store() -> None:
    from inspector.logstore.store import scan_matching

    s = EventStore()
    s.extend(conversation())
    s.append(ev(IN, b'{"jsonrpc":"2.0","method":"x","params":{"t":"\\u00c9t\\u00e9"}}'))
    for query in ("ÉTÉ", "été", "ECHO", "echo hi", "dir:out", "nope", "\x1b[31m"):
        flt = LogFilter.parse(query)
        assert list(scan_matching(s, flt, 0, len(s))) == list(s.matching(flt, 0, len(s)))
    assert list(scan_matching(s, LogFilter.parse("été"), 0, len(s))) == [len(s) - 1]


def test_a_session_file_finds_what_the_live_store_finds(tmp_path: Path) -> None:
    """The frame sits JSON-escaped in a session line (\\u00e9 becomes \\\\u00e9): the
    file's search over its lines must still find escaped characters."""
    from inspector.record.format import SessionHeader, encode_event
    from inspector.record.indexed import IndexedSessionFile

    frames = [
        b'{"jsonrpc":"2.0","id":1,"result":{"t":"caf\\u00e9 http:\\/\\/x"}}',
        '{"jsonrpc":"2.0","id":2,"result":{"t":"CAFÉ straße http://x"}}'.encode(),
        b'{"jsonrpc":"2.0","id":3,"result":{"t":"cafe \\ud83d\\ude00"}}',
    ]
    path = tmp_path / "s.jsonl"
    with path.open("wb") as out:
        out.write(SessionHeader({"kind": "test"}).to_line())
        for n, raw in enumerate(frames, 1):
            out.write(encode_event(ev(IN, raw, channel=Channel.STDOUT, seq=n)) + b"\n")
    store = EventStore()
    store.extend(ev(IN, raw, channel=Channel.STDOUT, seq=n) for n, raw in enumerate(frames, 1))
    with IndexedSessionFile(path) as source:
        source.index_all()
        for query, expected in (
            ("café", [0, 1]),
            ("http://x", [0, 1]),
            ("😀", [2]),
            ("STRASSE", [1]),
            ("cafe", [2]),
        ):
            flt = LogFilter.parse(query)
            assert list(source.matching(flt, 0, len(source))) == expected, query
            assert list(store.matching(flt, 0, len(store))) == expected, query
