"""A workspace's session file split per server: the header's servers in order (one
with no frames too), a server first seen in the frames after them, untagged frames the
first server's; a quote inside a frame's text never reads as its meta."""

from __future__ import annotations

from pathlib import Path

import pytest

from inspector.record.format import SessionFileError, SessionHeader, encode_event
from inspector.record.indexed import IndexedSessionFile
from inspector.wire.events import Channel, Direction
from inspector.wire.jsonrpc import encode, make_event, request
from inspector.workspace.recording import header_extra, server_of, split, workspace_servers


def frame(n: int, server: str | None, method: str = "tools/list") -> bytes:
    meta = {"server": server} if server else None
    return encode_event(make_event(Direction.OUT, Channel.STDIN, encode(request(n, method)), meta))


def test_a_workspace_file_splits_into_one_session_file_per_server(tmp_path: Path) -> None:
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
    parts = dict(split(path, tmp_path))
    assert list(parts) == ["a", "b", "c", "added"]
    with IndexedSessionFile(parts["a"]) as a, IndexedSessionFile(parts["b"]) as b:
        a.index_all()
        b.index_all()
        assert len(a) == 2 and len(b) == 1 and a.header.target == {"command": "a"}
        assert b.method(0) == 'say "server": "a"'
    with IndexedSessionFile(parts["c"]) as c:
        c.index_all()
        assert len(c) == 0


def test_a_single_servers_file_is_not_split(tmp_path: Path) -> None:
    path = tmp_path / "one.jsonl"
    path.write_bytes(SessionHeader(target={"name": "a"}).to_line() + frame(1, None))
    assert workspace_servers(SessionHeader(target={})) is None
    with pytest.raises(SessionFileError, match="not a workspace"):
        split(path, tmp_path)
