"""Write a big, realistic session file fast (templates, not one encode per event)."""

from __future__ import annotations

import json
from pathlib import Path

from inspector.record.format import SessionHeader, encode_event
from inspector.wire.events import Channel, Direction, WireEvent

# One exchange: a request, a progress notification, a stderr line, the response.
PER_EXCHANGE = 4


def _template(direction: Direction, channel: Channel, message: object) -> bytes:
    """The part of an event line after seq, t and mono, with @ID@ for the request id."""
    text = message if isinstance(message, str) else json.dumps(message, separators=(",", ":"))
    line = encode_event(
        WireEvent(
            direction, channel, text.replace("4242", "@ID@").encode(), seq=1, time=1.0, mono=1.0
        )
    )
    return line[line.index(b', "dir": ') :]


def write_session(path: Path, exchanges: int, text_size: int = 300) -> int:
    """``exchanges`` request/progress/stderr/response groups; returns the event count."""
    text = "x" * text_size
    parts = [
        _template(
            Direction.OUT,
            Channel.STDIN,
            {
                "jsonrpc": "2.0",
                "id": 4242,
                "method": "tools/call",
                "params": {"name": "echo", "arguments": {"text": "hi"}},
            },
        ),
        _template(
            Direction.IN,
            Channel.STDOUT,
            {
                "jsonrpc": "2.0",
                "method": "notifications/progress",
                "params": {"progressToken": "p4242", "progress": 1},
            },
        ),
        _template(Direction.IN, Channel.STDERR, "working on 4242"),
        _template(
            Direction.IN,
            Channel.STDOUT,
            {
                "jsonrpc": "2.0",
                "id": 4242,
                "result": {"content": [{"type": "text", "text": text}], "isError": False},
            },
        ),
    ]
    seq = 0
    with open(path, "wb") as fh:
        fh.write(SessionHeader(target={"command": "big"}).to_line())
        block: list[bytes] = []
        for n in range(1, exchanges + 1):
            ident = str(n).encode()
            for rest in parts:
                seq += 1
                clock = 1_700_000_000 + seq / 1000
                block.append(
                    b'{"seq": %d, "t": %.6f, "mono": %.6f' % (seq, clock, seq / 1000)
                    + rest.replace(b"@ID@", ident)
                )
            if len(block) >= 20_000:
                fh.write(b"".join(block))
                block.clear()
        fh.write(b"".join(block))
    return seq
