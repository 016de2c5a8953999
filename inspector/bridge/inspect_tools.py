"""The tools that read what a connection saw: log, lint, diff, replay, save."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from inspector.bridge.bounded import DEFAULT_MAX_CHARS, bounded_list, cut_text
from inspector.bridge.connections import BridgeError, Connections, Live
from inspector.bridge.exchange import failure_message
from inspector.bridge.schema import (
    CONNECTION,
    MAX_CHARS,
    Tool,
    any_object,
    integer,
    obj,
    string,
)
from inspector.bridge.targets import store_only, target_of
from inspector.engine.kinds import CATALOG_KINDS
from inspector.logstore.store import LogFilter
from inspector.survey.survey import Survey, from_source

LOG_LIMIT = 50  # events a log page holds by default
FRAME_CHARS = 1000  # characters of each frame in a log page by default
WHOLE_FRAME_CHARS = 100_000  # characters of one frame read by seq, by default


class InspectTools:
    """log ... save, over one set of connections."""

    def __init__(self, connections: Connections) -> None:
        self.connections = connections

    def tools(self) -> list[Tool]:
        return [
            Tool(
                "log",
                "Read a connection's wire log: every frame sent and received (stderr and "
                "HTTP lines too), filtered with the log filter language ('method:tools/call "
                "is:error', 'dir:in', 'kind:notification', 'has:finding', free text), "
                "paged (offset, limit), each frame cut to max_chars. With seq: that one "
                "frame whole, paged by offset.",
                obj(
                    ("connection",),
                    connection=CONNECTION,
                    filter=string("A log filter, e.g. 'method:tools/call is:error'."),
                    offset=integer("Skip this many matches (or, with seq, characters).", minimum=0),
                    limit=integer("Events per page (default 50).", minimum=1),
                    max_chars=integer(
                        "Characters of each frame (default 1000; with seq 100000).", minimum=1
                    ),
                    seq=integer("One frame's number: that frame, whole (paged by offset)."),
                ),
                obj(
                    (),
                    total=integer("Events matching the filter."),
                    offset=integer("Where this page starts."),
                    events={"type": "array", "items": any_object("One frame and its facts.")},
                    next_offset=integer("The next page's offset (absent: the end)."),
                    seq=integer("The frame read whole."),
                    size=integer("Characters of that frame."),
                    text=string("That frame's text from offset."),
                    recording=string("The connection's session file."),
                ),
                self.log,
            ),
            Tool(
                "lint",
                "Check a connection's server against mcp-inspect's lint rules (names, "
                "descriptions, schemas, duplicates, and the protocol findings of every frame "
                "seen so far). Lists every kind first.",
                obj(("connection",), connection=CONNECTION, max_chars=MAX_CHARS),
                obj(
                    ("summary", "issues"),
                    summary=any_object("Issues per level (error, warning, info)."),
                    issues={"type": "array", "items": any_object("rule, level, item, message")},
                    truncated={"type": "boolean", "description": "The issues were shrunk."},
                ),
                self.lint,
            ),
            Tool(
                "diff",
                "Compare two servers' catalogs (tools, resources, prompts, capabilities), "
                "each a connection id or a session file: every difference classified "
                "breaking, compatible or cosmetic.",
                obj(
                    ("a", "b"),
                    a=string("The old side: a connection id or a session file path."),
                    b=string("The new side: a connection id or a session file path."),
                    max_chars=MAX_CHARS,
                ),
                obj(
                    ("summary", "differences"),
                    summary=any_object("Differences per level."),
                    worst=string("The worst level found (absent: no difference)."),
                    differences={"type": "array", "items": any_object("path, kind, level...")},
                    notCompared={"type": "array", "items": string("A kind one side never listed.")},
                    truncated={"type": "boolean", "description": "The differences were shrunk."},
                ),
                self.diff,
            ),
            Tool(
                "replay",
                "Replay a session file's requests against a server (a connection's target, "
                "started again, or target) and compare each answer with the recorded one: "
                "the check after a fix.",
                obj(
                    ("recording",),
                    recording=string("The session file (e.g. recording from connect)."),
                    connection=string("Replay against this connection's server (started anew)."),
                    target=string("Or against this command line or URL."),
                    max_chars=MAX_CHARS,
                ),
                obj(
                    ("summary", "differs"),
                    summary=any_object("Requests per status (same, changed, missing...)."),
                    differs={"type": "boolean", "description": "Any answer differed."},
                    items={"type": "array", "items": any_object("One request compared.")},
                    notes={"type": "array", "items": string("A note on the run.")},
                    truncated={"type": "boolean", "description": "The items were shrunk."},
                ),
                self.replay,
            ),
            Tool(
                "save",
                "Save a connection's session (every frame so far) to a file a person opens "
                "with `mcp-inspect replay FILE` (the TUI) or replays with the replay tool.",
                obj(
                    ("connection", "path"),
                    connection=CONNECTION,
                    path=string("Where to write the session file (.jsonl)."),
                ),
                obj(
                    ("path", "events"),
                    path=string("The file written."),
                    events=integer("Frames in the connection's log."),
                    open_with=string("The command that opens it."),
                ),
                self.save,
            ),
        ]

    # -- log -------------------------------------------------------------------------------

    async def log(self, args: dict[str, Any]) -> dict[str, Any]:
        live = self.connections.get(args.get("connection"))
        store = live.store
        offset = max(0, int(args.get("offset") or 0))
        seq = args.get("seq")
        if seq is not None:
            i = store.index_of_seq(int(seq))
            if i is None:
                raise BridgeError(f"{live.id} has no frame {seq} (its log has {len(store)})")
            text = store.raw(i).decode("utf-8", "replace")
            limit = int(args.get("max_chars") or WHOLE_FRAME_CHARS)
            part, next_offset = cut_text(text, offset, limit)
            out: dict[str, Any] = {"seq": int(seq), "size": len(text), "offset": offset}
            out["text"] = part
            if next_offset is not None:
                out["next_offset"] = next_offset
            return out
        query = str(args.get("filter") or "")
        flt = LogFilter.parse(query)
        if flt.problems:
            said = "; ".join(str(p) for p in flt.problems)
            raise BridgeError(
                f"filter {query!r}: {said} (keys: method:, kind:, dir:, channel:, is:error, "
                "has:finding, and free text)"
            )
        matches = store.matching(flt, 0, len(store))
        limit = max(1, int(args.get("limit") or LOG_LIMIT))
        frame_chars = max(1, int(args.get("max_chars") or FRAME_CHARS))
        rows = matches[offset : offset + limit]
        out = {
            "total": len(matches),
            "offset": offset,
            "events": [self._row(live, i, frame_chars) for i in rows],
        }
        if offset + limit < len(matches):
            out["next_offset"] = offset + limit
        if live.recording is not None:
            out["recording"] = str(live.recording)
        return out

    @staticmethod
    def _row(live: Live, i: int, frame_chars: int) -> dict[str, Any]:
        store = live.store
        text = store.raw(i).decode("utf-8", "replace")
        row: dict[str, Any] = {
            "seq": store.seq(i),
            "time": store.time(i),
            "direction": store.direction(i).value,
            "channel": store.channel(i).value,
            "kind": store.kind(i).value,
            "size": len(text),
            "frame": text[:frame_chars],
        }
        method = store.method(i)
        if method:
            row["method"] = method
        latency = store.latency_ms(i)
        if latency is not None:
            row["latency_ms"] = round(latency, 1)
        if store.failed(i):
            row["failed"] = True
        if store.has_findings(i):
            row["findings"] = [f.to_json() for f in store.findings(i)]
        if len(text) > frame_chars:
            row["cut"] = f"log {{connection: {live.id!r}, seq: {row['seq']}}} gives it whole"
        return row

    # -- lint, diff ------------------------------------------------------------------------

    async def _survey(self, live: Live) -> Survey:
        """The connection's catalog, listed now, read from its log as lint reads a file."""
        session, client = live.ready()
        for kind in CATALOG_KINDS:
            if kind.capability in session.server_capabilities:
                try:
                    await client.list_all(kind.name)
                except Exception as exc:
                    if session.lost is not None:
                        raise failure_message(live, kind.method, exc) from exc
        return from_source(live.store, live.target.describe())

    async def lint(self, args: dict[str, Any]) -> dict[str, Any]:
        from collections import Counter

        from inspector.lint.check import lint
        from inspector.lint.rules import LEVELS

        live = self.connections.get(args.get("connection"))
        issues = lint(await self._survey(live))
        levels = Counter(i.level for i in issues)
        shown, cut = bounded_list([i.to_json() for i in issues], _max(args))
        return {
            "summary": {level: levels.get(level, 0) for level in reversed(LEVELS)},
            "issues": shown,
            "truncated": cut,
        }

    async def _side(self, word: Any, label: str) -> Survey:
        text = str(word or "")
        if text in self.connections.open_ones:
            return await self._survey(self.connections.get(text))
        path = Path(text)
        if not path.is_file():
            raise BridgeError(
                f"{label}: {text!r} is neither an open connection "
                f"({', '.join(self.connections.open_ones) or 'none'}) nor a session file"
            )
        from inspector.record.format import SessionFileError
        from inspector.survey.survey import survey_file

        try:
            return survey_file(path)
        except SessionFileError as exc:
            raise BridgeError(f"{label}: {exc}") from exc

    async def diff(self, args: dict[str, Any]) -> dict[str, Any]:
        from inspector.compare.catalog import compare_catalogs, not_compared
        from inspector.compare.changes import counts, worst

        old = await self._side(args.get("a"), "a")
        new = await self._side(args.get("b"), "b")
        differences = compare_catalogs(old.catalog, new.catalog)
        shown, cut = bounded_list([d.to_json() for d in differences], _max(args))
        out: dict[str, Any] = {
            "summary": counts(differences),
            "differences": shown,
            "notCompared": not_compared(old.catalog, new.catalog),
            "truncated": cut,
        }
        top = worst(differences)
        if top is not None:
            out["worst"] = top
        return out

    # -- replay, save ----------------------------------------------------------------------

    async def replay(self, args: dict[str, Any]) -> dict[str, Any]:
        from inspector.record.format import SessionFileError
        from inspector.record.reader import iter_events
        from inspector.replay.diff import parse_rules
        from inspector.replay.plan import build_plan
        from inspector.replay.run import ReplayOptions, replay
        from inspector.target import build_transport

        path = Path(str(args.get("recording") or ""))
        if not path.is_file():
            raise BridgeError(f"recording {str(path)!r}: no such file")
        if args.get("connection") is not None:
            target = self.connections.get(args.get("connection")).target
        elif args.get("target") is not None:
            target = target_of({"target": args.get("target")})
        else:
            raise BridgeError("replay needs connection (its server is started anew) or target")
        warnings: list[str] = []
        try:
            plan = build_plan(iter_events(path, warnings))
        except SessionFileError as exc:
            raise BridgeError(f"recording {path}: {exc}") from exc
        try:
            transport = build_transport(target, auth=store_only(target))
            options = ReplayOptions(rules=parse_rules([]))  # ids, timestamps... as replay's
            report = await replay(plan, transport, options)
        except BridgeError:
            raise
        except Exception as exc:
            from inspector.bridge.session_tools import failure_message_text

            raise BridgeError(
                f"replay against {target.describe()}: {failure_message_text(exc)}"
            ) from exc
        data = report.to_json()
        data["items"], data["truncated"] = bounded_list(data["items"], _max(args))
        data["notes"] = [*warnings, *data["notes"]]
        return data

    async def save(self, args: dict[str, Any]) -> dict[str, Any]:
        live = self.connections.get(args.get("connection"))
        path = Path(str(args.get("path") or "")).expanduser()
        if not str(args.get("path") or "").strip():
            raise BridgeError("save needs path: where to write the session file")
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            if live.recorder is not None:  # its redactor knows the OAuth tokens obtained
                live.recorder.flush()
                shutil.copyfile(live.recorder.path, path)
            else:  # --no-record: the log's frames, written as a recording would be
                _write_session(live, path)
        except OSError as exc:
            raise BridgeError(f"cannot write {path}: {exc.strerror or exc}") from exc
        return {
            "path": str(path),
            "events": len(live.store),
            "open_with": f"mcp-inspect replay {path}",
        }


def _write_session(live: Live, path: Path) -> None:
    from inspector.record.format import Redactor, SessionHeader
    from inspector.record.recorder import Recorder
    from inspector.target import target_info

    header = SessionHeader(target=target_info(live.target), extra={"bridge": True})
    recorder = Recorder(path, header, Redactor(live.target.secrets()))
    try:
        for i in range(len(live.store)):
            recorder.write(live.store.event(i), flush=False)
    finally:
        recorder.close()


def _max(args: dict[str, Any]) -> int:
    value = args.get("max_chars")
    return max(200, int(value)) if isinstance(value, int) else DEFAULT_MAX_CHARS
