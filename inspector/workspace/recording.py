"""One session file for a workspace: every server's frames, each tagged with its server
(meta ``server``), and a header naming the servers (``workspace``: name and target of
each, in order).

    extra = header_extra([("files", target_info(t)), ...])   # the header's keys
    servers = workspace_servers(header)                       # None: one server's file
    parts = server_sources(path)  # [(name, its frames)]: one source per server

Replay opens a workspace's file as the same workspace offline: ``server_sources`` gives
each server's frames (a server added at run time included, in the order first seen;
frames without a tag are the first server's) as an index of that one file's lines,
which replays as any session file does; nothing is copied.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from inspector.record.format import SessionFileError, SessionHeader
from inspector.record.indexed import IndexedSessionFile
from inspector.record.line_index import KEEP_TAIL
from inspector.wire.events import SERVER_KEY

WORKSPACE_KEY = "workspace"
_META = b', "meta": '  # a frame's meta, after its raw text (a quote in that text is \")


def header_extra(servers: Sequence[tuple[str, dict[str, Any]]]) -> dict[str, Any]:
    """The header's keys saying the file is a workspace's: each server's name and target."""
    return {WORKSPACE_KEY: [{"name": name, "target": target} for name, target in servers]}


def workspace_servers(header: SessionHeader) -> list[tuple[str, dict[str, Any]]] | None:
    """The servers a workspace's file names (None: the file is one server's)."""
    listed = header.extra.get(WORKSPACE_KEY)
    if not isinstance(listed, list) or not listed:
        return None
    out = []
    for item in listed:
        if isinstance(item, dict) and isinstance(item.get("name"), str):
            target = item.get("target")
            out.append((item["name"], target if isinstance(target, dict) else {}))
    return out or None


def server_of(line: bytes) -> str | None:
    """The server a stored frame's line names, read from its meta only (not its frame)."""
    at = line.rfind(_META)
    if at < 0:
        return None
    try:
        meta, _ = json.JSONDecoder().raw_decode(line[at + len(_META) :].decode("utf-8"))
    except (ValueError, UnicodeDecodeError):
        return None
    server = meta.get(SERVER_KEY) if isinstance(meta, dict) else None
    return server if isinstance(server, str) else None


def server_sources(path: str | Path) -> list[tuple[str, IndexedSessionFile]]:
    """Each server's frames of the workspace file at ``path``, each an index of that one
    file's lines tagged with it (nothing copied); raises ``SessionFileError`` for a file
    that is not a workspace's. Close each source when done."""
    path = Path(path)
    with open(path, "rb") as source:
        header = SessionHeader.from_line(source.readline(1 << 20), str(path))
        servers = workspace_servers(header)
        if servers is None:
            raise SessionFileError(f"{path}: not a workspace's session file")
        names = [name for name, _ in servers]
        for line in source:  # a server added at run time: after them, as first seen
            name = server_of(line[-KEEP_TAIL:])
            if name is not None and name not in names:
                names.append(name)
    targets, first = dict(servers), names[0]
    sources = []
    for name in names:

        def mine(tail: bytes, name: str = name) -> bool:
            return (server_of(tail) or first) == name

        own = IndexedSessionFile(path, keep=mine)
        own.header = SessionHeader(
            target=targets.get(name) or {"name": name},
            started=header.started,
            tool=header.tool,
            redacted=header.redacted,
        )
        sources.append((name, own))
    return sources
