"""A workspace's session file read per server, from the one file (no copy): the
header's servers in order (one with no frames too), a server first seen in the frames
after them, untagged frames the first server's; a quote inside a frame's text never
reads as its meta; a line longer than an indexing step is judged by its end."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from inspector.record.format import SessionFileError, SessionHeader, encode_event
from inspector.wire.events import Channel, Direction
from inspector.wire.jsonrpc import encode, make_event, request
from inspector.workspace.recording import (
    header_extra,
    server_of,
    server_sources,
    workspace_servers,
)


def frame(n: int, server: str | None, method: str = "tools/list") -> bytes:
    meta = {"server": server} if server else None
    return encode_event(make_event(Direction.OUT, Channel.STDIN, encode(request(n, method)), meta))


def test_a_workspace_file_is_read_per_server_from_the_one_file(tmp_path: Path) -> None:
    header = SessionHeader(
        target={"name": "a"},
        extra=header_extra([("a", {"command": "a"}), ("b", {"command": "b"}), ("c", {})]),
    )
    assert workspace_servers(header) == [
        ("a", {"command": "a"}),
        ("b", {"command": "b"}),
        ("c", {}),
    ]
    path = tmp_path / "ws.jsonl"
    lines = [
        frame(1, None),  # before the second server came: the first one's
        frame(1, "b", 'say "server": "a"'),  # the quote is in the frame, not the meta
        frame(2, "a"),
        frame(1, "added"),  # ctrl+n's server
    ]
    path.write_bytes(header.to_line() + b"".join(lines))
    assert [server_of(line) for line in lines] == [None, "b", "a", "added"]
    before = sorted(tmp_path.iterdir())
    sources = server_sources(path)
    try:
        assert sorted(tmp_path.iterdir()) == before  # nothing written beside it
        parts = dict(sources)
        assert list(parts) == ["a", "b", "c", "added"]
        a, b, c, added = (parts[name] for name in ("a", "b", "c", "added"))
        for part in parts.values():
            part.index_all()
            assert part.path == path  # each reads the one file
        assert len(a) == 2 and len(b) == 1 and len(c) == 0 and len(added) == 1
        assert a.header.target == {"command": "a"} and added.header.target == {"name": "added"}
        assert b.method(0) == 'say "server": "a"'
        assert [a.seq(i) for i in range(2)] == [lines_seq(lines[0]), lines_seq(lines[2])]
    finally:
        for _, part in sources:
            part.close()


def lines_seq(line: bytes) -> int:
    return int(json.loads(line)["seq"])


def test_a_line_longer_than_an_indexing_step_is_kept_by_its_server(tmp_path: Path) -> None:
    header = SessionHeader(target={"name": "a"}, extra=header_extra([("a", {}), ("b", {})]))
    path = tmp_path / "ws.jsonl"
    big = frame(1, "b", "x" * (3 << 20))  # past the first indexed megabyte, and a step
    path.write_bytes(header.to_line() + frame(1, "a") + big + frame(2, "a"))
    sources = dict(server_sources(path))
    try:
        for source in sources.values():
            source.index_all()
        assert len(sources["a"]) == 2 and len(sources["b"]) == 1
        assert sources["b"].stored_size(0) == len(big) - 1
    finally:
        for source in sources.values():
            source.close()


def test_a_single_servers_file_is_not_a_workspaces(tmp_path: Path) -> None:
    path = tmp_path / "one.jsonl"
    path.write_bytes(SessionHeader(target={"name": "a"}).to_line() + frame(1, None))
    assert workspace_servers(SessionHeader(target={})) is None
    with pytest.raises(SessionFileError, match="not a workspace"):
        server_sources(path)
