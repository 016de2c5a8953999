"""IndexedSessionFile: a session file as an EventSource, indexed lazily, damage tolerated."""

from __future__ import annotations

import json
import sys
import threading
from pathlib import Path

import anyio
import pytest
from paths import SERVERS

from inspector.logstore.store import EventSource, EventStore, LogFilter
from inspector.record.format import FORMAT_KEY, NewerFormatError, SessionFileError
from inspector.record.indexed import IndexedSessionFile
from inspector.record.reader import read_session
from inspector.wire.events import Channel, Direction, Kind

sys.path.insert(0, str(SERVERS))
from replay_bigfile import PER_EXCHANGE, write_session
from replay_record import record


@pytest.fixture(scope="module")
def recording(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("indexed") / "session.jsonl"
    anyio.run(record, path)
    return path


@pytest.fixture(scope="module")
def big(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, int]:
    path = tmp_path_factory.mktemp("big") / "big.jsonl"
    count = write_session(path, 25_000, text_size=1_700)  # ~50 MB, 100k events
    return path, count


def store_of(path: Path) -> EventStore:
    store = EventStore()
    store.extend(read_session(path).events)
    return store


@pytest.mark.slow
def test_is_an_event_source_that_agrees_with_the_store(recording: Path) -> None:
    store = store_of(recording)
    with IndexedSessionFile(recording) as f:
        assert isinstance(f, EventSource)
        assert f.done and len(f) == len(store) > 20
        for i in range(len(f)):
            assert f.event(i) == store.event(i)
            assert (
                f.kind(i),
                f.direction(i),
                f.channel(i),
                f.method(i),
                f.seq(i),
                f.time(i),
                f.has_findings(i),
                f.raw(i),
            ) == (
                store.kind(i),
                store.direction(i),
                store.channel(i),
                store.method(i),
                store.seq(i),
                store.time(i),
                store.has_findings(i),
                store.raw(i),
            )
            assert f.find_response(i) == store.find_response(i)
            assert f.find_request(i) == store.find_request(i)
            assert f.latency_ms(i) == pytest.approx(store.latency_ms(i))
        for query in (
            "kind:request",
            "method:tools/call",
            "dir:in kind:response",
            "ch:stderr",
            "hello",
            '"name":"add"',
            "replay://",
            "has:finding",
            "kind:error",
        ):
            flt = LogFilter.parse(query)
            assert list(f.matching(flt, 0, len(f))) == list(store.matching(flt, 0, len(store))), (
                query
            )


def test_missing_empty_foreign_and_newer_files(tmp_path: Path) -> None:
    with pytest.raises(SessionFileError, match="no such file"):
        IndexedSessionFile(tmp_path / "nope.jsonl")
    empty = tmp_path / "empty.jsonl"
    empty.write_bytes(b"")
    with pytest.raises(SessionFileError, match="empty"):
        IndexedSessionFile(empty)
    foreign = tmp_path / "notes.txt"
    foreign.write_text("dear diary\n")
    with pytest.raises(SessionFileError, match="not a session header"):
        IndexedSessionFile(foreign)
    newer = tmp_path / "newer.jsonl"
    newer.write_text(json.dumps({FORMAT_KEY: 2, "tool": "mcp-inspect 9"}) + "\n{}\n")
    with pytest.raises(NewerFormatError, match="Upgrade mcp-inspect"):
        IndexedSessionFile(newer)
    with pytest.raises(SessionFileError, match="directory"):
        IndexedSessionFile(tmp_path)


def test_torn_last_line_is_skipped_with_a_warning(recording: Path, tmp_path: Path) -> None:
    whole = recording.read_bytes()
    torn = tmp_path / "torn.jsonl"
    torn.write_bytes(whole[:-30])
    with IndexedSessionFile(recording) as good, IndexedSessionFile(torn) as f:
        assert len(f) == len(good) - 1
        assert f.torn and any("torn last line" in w for w in f.warnings)
        assert f.event(len(f) - 1) == good.event(len(good) - 1 - 1)
    # a complete last line without its newline is kept
    cut = tmp_path / "no-newline.jsonl"
    cut.write_bytes(whole[:-1])
    with IndexedSessionFile(cut) as f:
        assert len(f) == len(read_session(recording).events) and not f.warnings


def test_unreadable_lines_are_counted_and_reported(recording: Path, tmp_path: Path) -> None:
    lines = recording.read_bytes().splitlines(keepends=True)
    damaged = tmp_path / "damaged.jsonl"
    # a foreign line, a blank line, and an event line broken in its middle
    broken = lines[5][:40] + b"\n"
    damaged.write_bytes(
        b"".join([*lines[:3], b"garbage here\n", b"\n", *lines[3:5], broken, *lines[6:]])
    )
    with IndexedSessionFile(damaged) as f:
        assert len(f) == len(lines) - 1  # header out, garbage and blank skipped, broken kept
        assert f.unreadable == 1 and "not an event" in f.warnings[0]
        note = f.event(4)  # the broken line shows as a note, it does not raise
        assert note.direction is Direction.LOCAL and note.channel is Channel.SYSTEM
        assert b"unreadable line" in note.raw and f.kind(4) is Kind.SYSTEM
        assert f.unreadable == 2 and len(f.warnings) == 2
        assert f.event(5) == read_session(recording).events[5]


@pytest.mark.slow
def test_big_file_first_screen_then_background_index(big: tuple[Path, int]) -> None:
    path, count = big
    size = path.stat().st_size
    assert size > 45_000_000
    with IndexedSessionFile(path) as f:
        # the first screen is there before any background work, not the whole file
        assert 100 <= len(f) < count and not f.done and f.progress < 0.1
        first = [f.event(i) for i in range(100)]
        assert [e.seq for e in first] == list(range(1, 101))
        progress: list[float] = []
        thread = f.start_thread(progress.append, budget=4 << 20)
        # the UI keeps reading while the index grows
        while thread.is_alive():
            n = len(f)
            assert f.seq(n - 1) == n
        thread.join(10)
        assert f.done and len(f) == count and progress[-1] == 1.0
        assert progress == sorted(progress)
        last = count - 1
        assert f.kind(last) is Kind.RESPONSE and f.method(last) == "tools/call"
        assert f.find_request(last) == last - 3 and f.find_response(last - 3) == last
        assert f.event(count // 2).seq == count // 2 + 1
        # memory: the index is 13 bytes an event, far below the file
        held = (
            f._starts.itemsize * len(f._starts)
            + len(f._facts)
            + f._method_code.itemsize * len(f._method_code)
        )
        assert held < size / 40
        hits = f.matching(LogFilter.parse("working on 24999"), 0, len(f))
        assert [f.seq(i) for i in hits] == [24999 * PER_EXCHANGE - 1]


async def test_index_async_yields_progress(big: tuple[Path, int]) -> None:
    path, count = big
    with IndexedSessionFile(path, first_chunk=1 << 16) as f:
        seen = []
        with anyio.fail_after(30):
            async for fraction in f.index_async(budget=8 << 20):
                seen.append(fraction)
        assert len(seen) >= 5 and seen[-1] == 1.0 and len(f) == count


def test_lru_cache_is_bounded(big: tuple[Path, int]) -> None:
    path, _ = big
    with IndexedSessionFile(path, cache_events=50, cache_bytes=30_000) as f:
        for i in range(400):
            f.event(i)
        assert len(f._cache) <= 50 and f._cache_bytes <= 30_000


def test_close_stops_the_indexer(big: tuple[Path, int]) -> None:
    path, _ = big
    f = IndexedSessionFile(path)
    f.start_thread(budget=1 << 16)
    f.close()
    assert not any(t.name == "session-index" and t.is_alive() for t in threading.enumerate())


@pytest.mark.parametrize("where", ["mid-line", "before-newline"])
def test_refresh_picks_up_a_file_still_being_written(
    recording: Path, tmp_path: Path, where: str
) -> None:
    """Cut inside a line (torn, read again later) or just before its newline (a whole
    event already: kept, and the newline that follows is not a second event)."""
    whole = recording.read_bytes()
    live = tmp_path / "live.jsonl"
    newline = whole.index(b"\n", len(whole) // 2)
    cut = newline - 20 if where == "mid-line" else newline
    live.write_bytes(whole[:cut])
    with IndexedSessionFile(live) as f:
        before = len(f)
        assert f.done and f.torn == (where == "mid-line")
        assert not f.refresh()  # nothing new yet
        with open(live, "ab") as fh:
            fh.write(whole[cut:])
        assert f.refresh() and not f.done
        f.index_all()
        assert len(f) == len(read_session(recording).events) > before
        assert not f.torn and not f.warnings
        assert [f.event(i) for i in range(len(f))] == read_session(recording).events


def test_event_lines_with_other_key_orders_are_kept(recording: Path, tmp_path: Path) -> None:
    """Another writer (or a pretty-printer) may sort the keys: still events, just slower."""
    lines = recording.read_bytes().splitlines()
    resorted = tmp_path / "sorted.jsonl"
    body = [json.dumps(json.loads(line), sort_keys=True).encode() for line in lines[1:]]
    resorted.write_bytes(b"\n".join([lines[0], *body]) + b"\n")
    with IndexedSessionFile(resorted) as f:
        assert len(f) == len(lines) - 1 and not f.warnings
        assert [f.event(i) for i in range(len(f))] == read_session(recording).events


@pytest.mark.slow
def test_background_facts_make_column_filters_cheap(big: tuple[Path, int]) -> None:
    path, count = big
    with IndexedSessionFile(path) as f:
        f.start_thread(facts=True).join(60)
        assert len(f) == count and all(f._facts)
        flt = LogFilter.parse("kind:request dir:out")
        hits = f.matching(flt, 0, len(f))
        assert len(hits) == count // PER_EXCHANGE and not f._cache  # nothing decoded


@pytest.mark.slow
def test_filtered_view_scans_a_growing_file(big: tuple[Path, int]) -> None:
    """The log's FilteredView reads it like the live store, while the index grows."""
    from inspector.logstore.store import FilteredView

    path, count = big
    with IndexedSessionFile(path) as f:
        view = FilteredView(f, LogFilter.parse("ch:stderr"))
        view.catch_up()
        partial = len(view)
        assert 0 < partial < count // PER_EXCHANGE
        while not f.index_step():
            view.step(5_000)
        view.catch_up()
        assert len(view) == count // PER_EXCHANGE
        assert all(f.channel(i) is Channel.STDERR for i in view.indices[:50])
