"""A session as a Markdown transcript, for a bug report or a pull request.

Frames in the order they happened (with ``--filter``, those it picks, and the answer to
each request it picks): each JSON-RPC message under a line saying who sent
what (``→ tools/call `add` · id 3``, ``← result · id 3 · 4 ms``), its JSON pretty-printed
in a fenced block, folded into ``<details>`` past a size; stderr lines and notes as
text; findings called out as quotes. Server text is data: fences are longer than any
run of backticks inside them, control characters are made visible, and nothing from
the server lands outside a code span or block.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from datetime import UTC, datetime
from typing import IO, Any

from inspector.logstore.filter_query import LogFilter
from inspector.record.format import SessionHeader
from inspector.safe_text import visible
from inspector.wire.events import Channel, Direction, Kind, WireEvent

FOLD_LINES = 30  # a pretty JSON longer than this goes into <details>
MAX_BLOCK_CHARS = 20_000  # more than this is cut, saying how much


def _fence(text: str) -> str:
    longest = max((len(m) for m in re.findall(r"`+", text)), default=0)
    return "`" * max(3, longest + 1)


def _code(text: str) -> str:
    """An inline code span that holds ``text`` whatever backticks it has."""
    text = visible(text)
    longest = max((len(m) for m in re.findall(r"`+", text)), default=0)
    ticks = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{ticks}{pad}{text}{pad}{ticks}"


def _block(text: str, lang: str = "") -> str:
    if len(text) > MAX_BLOCK_CHARS:
        text = text[:MAX_BLOCK_CHARS] + f"\n… {len(text) - MAX_BLOCK_CHARS:,} more chars"
    text = visible(text, multiline=True)
    fence = _fence(text)
    return f"{fence}{lang}\n{text}\n{fence}\n"


def _clock(epoch: float) -> str:
    return datetime.fromtimestamp(epoch, UTC).strftime("%H:%M:%S.%f")[:-3]


class MarkdownWriter:
    """Writes a transcript to ``out`` one frame at a time."""

    def __init__(self, out: IO[str], header: SessionHeader, query: str = "") -> None:
        self.out = out
        self.filter = LogFilter.parse(query) if query else None
        self._sent: dict[str, float] = {}  # request key -> when it was sent (for latency)
        self._picked: set[str] = set()  # requests the filter picked: their answers follow
        self.count = 0
        target = str(header.target.get("describe") or header.target.get("url") or "?")
        out.write(f"# MCP session: {_code(target)}\n\n")
        out.write(f"Recorded {header.started or '?'} by {header.tool or 'mcp-inspect'}")
        if query:
            out.write(f"; frames matching {_code(query)}")
        out.write(".\n\n")

    def write(self, event: WireEvent) -> None:
        if self._shown(event):
            self.count += 1
            self._render(event)
        self._remember(event)

    def _render(self, event: WireEvent) -> None:
        kind = event.kind
        when = _clock(event.time)
        if kind is Kind.STDERR:
            self.out.write(f"**stderr** · {when}\n\n{_block(event.text())}\n")
        elif kind is Kind.SYSTEM:
            self.out.write(f"*{visible(event.text())}* · {when}\n\n")
        elif kind is Kind.HTTP:
            arrow = "→" if event.direction is Direction.OUT else "←"
            self.out.write(f"{arrow} {_code(event.text())} · {when}\n\n")
        elif kind is Kind.INVALID:
            self.out.write(f"⚠ **not JSON-RPC** ({visible(event.error or 'invalid')}) · {when}\n\n")
            self.out.write(_block(event.text()) + "\n")
        else:
            self.out.write(f"{self._title(event)} · {when}\n\n")
            self.out.write(self._json(event.message) + "\n")
        for finding in event.findings:
            self.out.write(
                f"> **{finding.severity}** `{finding.code}`: {visible(finding.message)}\n\n"
            )

    def finish(self) -> None:
        self.out.write(f"---\n{self.count} frames.\n")

    def _title(self, event: WireEvent) -> str:
        arrow = "→" if event.direction is Direction.OUT else "←"
        msg = event.message
        if not isinstance(msg, dict):
            return f"{arrow} **batch** of {len(msg) if isinstance(msg, list) else 0}"
        parts = [arrow]
        if "method" in msg:
            parts.append(f"**{_code(str(msg['method']))}**")
            params = msg.get("params")
            if isinstance(params, dict):
                name = params.get("name") or params.get("uri")
                if isinstance(name, str):
                    parts.append(_code(name))
        elif "error" in msg:
            error = msg["error"] if isinstance(msg["error"], dict) else {}
            parts.append(f"**error {visible(str(error.get('code', '?')))}**")
        else:
            result = msg.get("result")
            failed = isinstance(result, dict) and result.get("isError") is True
            parts.append("**result (isError)**" if failed else "**result**")
        if "id" in msg:
            parts.append(f"· id {_code(json.dumps(msg['id']))}")
            sent = self._sent.get(self._key(event, msg["id"], asker=True))
            if sent is not None and "method" not in msg:
                parts.append(f"· {(event.time - sent) * 1000:.0f} ms")
        if event.channel is Channel.STDERR:
            parts.append("(stderr)")
        return " ".join(parts)

    def _shown(self, event: WireEvent) -> bool:
        """Whether the filter picks ``event``: a picked request brings its answer along,
        so the transcript holds whole exchanges."""
        if self.filter is None:
            return True
        if self.filter.matches(event):
            msg = event.message
            if isinstance(msg, dict) and "method" in msg and "id" in msg:
                self._picked.add(self._key(event, msg["id"], asker=False))
            return True
        msg = event.message
        if isinstance(msg, dict) and "method" not in msg and "id" in msg:
            key = self._key(event, msg["id"], asker=True)
            if key in self._picked:
                self._picked.discard(key)
                return True
        return False

    def _remember(self, event: WireEvent) -> None:
        msg = event.message
        if isinstance(msg, dict) and "method" in msg and "id" in msg:
            self._sent[self._key(event, msg["id"], asker=False)] = event.time
        elif isinstance(msg, dict) and "id" in msg:
            self._sent.pop(self._key(event, msg["id"], asker=True), None)

    @staticmethod
    def _key(event: WireEvent, rid: Any, *, asker: bool) -> str:
        direction = event.direction
        if asker:  # the answer travels the other way from its request
            direction = Direction.IN if direction is Direction.OUT else Direction.OUT
        return f"{direction.value}:{json.dumps(rid)}"

    @staticmethod
    def _json(message: Any) -> str:
        text = json.dumps(message, indent=2, ensure_ascii=False)
        block = _block(text, "json")
        lines = text.count("\n") + 1
        if lines <= FOLD_LINES:
            return block
        return f"<details><summary>{lines} lines of JSON</summary>\n\n{block}\n</details>\n"


def write_markdown(
    header: SessionHeader, events: Iterable[WireEvent], out: IO[str], query: str = ""
) -> int:
    """The transcript of ``events``; returns how many frames it shows."""
    writer = MarkdownWriter(out, header, query)
    for event in events:
        writer.write(event)
    writer.finish()
    return writer.count
