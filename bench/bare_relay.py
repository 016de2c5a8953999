"""The floor for a Python stdio relay: a peer for ``proxy_overhead.py``.

Starts a server and passes bytes both ways (stdin, stdout, and the server's stderr),
as read, nothing parsed, recorded or checked: the least any relay written in Python on
asyncio can cost. What ``mcp-inspect proxy`` adds beyond this is what its features cost;
what this one costs is the price of one more process in the path on this machine.

    python bench/bare_relay.py SERVER COMMAND...
    python bench/bare_relay.py --tcp http://127.0.0.1:PORT/mcp   (prints "listening on URL")

With ``--tcp``: a TCP relay on a loopback port to the HTTP server's, a connection each,
bytes passed both ways (no HTTP parsed): the floor for the proxy's HTTP front.

With ``--http``: the same, but each request and response is read whole as HTTP/1.1 (the
head up to its blank line, the body by Content-Length or chunks) before it is passed on,
and with ``--record FILE`` also written to FILE as one JSON line a message, flushed: the
least an HTTP relay that parses and records costs, with none of the proxy's checks,
routing, redaction or attach. It passes the bytes as read (the front's Authorization
header included): a bench peer, not a proxy to run.
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
from typing import BinaryIO
from urllib.parse import urlsplit

CHUNK = 1 << 16


async def relay(command: list[str]) -> int:
    loop = asyncio.get_running_loop()
    proc = await asyncio.create_subprocess_exec(
        *command,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    host_in = asyncio.StreamReader(limit=CHUNK)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(host_in), sys.stdin)
    host_out, _ = await loop.connect_write_pipe(asyncio.Protocol, sys.stdout)
    host_err, _ = await loop.connect_write_pipe(asyncio.Protocol, sys.stderr)

    async def up() -> None:
        assert proc.stdin is not None
        while data := await host_in.read(CHUNK):
            proc.stdin.write(data)
        proc.stdin.close()

    async def down(source: asyncio.StreamReader, sink: asyncio.BaseTransport) -> None:
        assert isinstance(sink, asyncio.WriteTransport)
        while data := await source.read(CHUNK):
            sink.write(data)

    await asyncio.gather(up(), down(proc.stdout, host_out), down(proc.stderr, host_err))
    return await proc.wait()


async def tcp_relay(url: str) -> None:
    target = urlsplit(url)
    host, port = target.hostname or "127.0.0.1", target.port or 80

    async def pipe(source: asyncio.StreamReader, sink: asyncio.StreamWriter) -> None:
        while data := await source.read(CHUNK):
            sink.write(data)
        sink.close()

    async def connection(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        up_reader, up_writer = await asyncio.open_connection(host, port)
        await asyncio.gather(pipe(reader, up_writer), pipe(up_reader, writer))

    server = await asyncio.start_server(connection, "127.0.0.1", 0)
    local = server.sockets[0].getsockname()[1]
    print(f"listening on http://127.0.0.1:{local}{target.path}", file=sys.stderr, flush=True)
    async with server:
        await server.serve_forever()


async def read_message(reader: asyncio.StreamReader) -> tuple[bytes, bytes] | None:
    """One HTTP/1.1 message, head and body as read (None: the peer closed)."""
    try:
        head = await reader.readuntil(b"\r\n\r\n")
    except asyncio.IncompleteReadError:
        return None
    length, chunked = 0, False
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        name = name.strip().lower()
        if name == b"content-length":
            length = int(value)
        elif name == b"transfer-encoding":
            chunked = b"chunked" in value.lower()
    if not chunked:
        return head, await reader.readexactly(length)
    parts = []
    while True:
        size_line = await reader.readuntil(b"\r\n")
        size = int(size_line.split(b";")[0], 16)
        chunk = await reader.readexactly(size + 2)
        parts.append(size_line + chunk)
        if size == 0:
            return head, b"".join(parts)


def record_line(out: BinaryIO, direction: str, head: bytes, body: bytes) -> None:
    line = {
        "t": time.time(),
        "dir": direction,
        "head": head.decode("latin-1"),
        "raw": body.decode(),
    }
    out.write(json.dumps(line).encode() + b"\n")
    out.flush()


async def http_relay(url: str, record: str | None) -> None:
    target = urlsplit(url)
    host, port = target.hostname or "127.0.0.1", target.port or 80
    out = open(record, "ab") if record else None  # noqa: SIM115 (open for the run)

    async def connection(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        up_reader, up_writer = await asyncio.open_connection(host, port)
        while (request := await read_message(reader)) is not None:
            if out is not None:
                record_line(out, "out", *request)
            up_writer.write(b"".join(request))
            response = await read_message(up_reader)
            if response is None:
                break
            if out is not None:
                record_line(out, "in", *response)
            writer.write(b"".join(response))
        up_writer.close()
        writer.close()

    server = await asyncio.start_server(connection, "127.0.0.1", 0)
    local = server.sockets[0].getsockname()[1]
    print(f"listening on http://127.0.0.1:{local}{target.path}", file=sys.stderr, flush=True)
    async with server:
        await server.serve_forever()


if __name__ == "__main__":
    if len(sys.argv) < 2:
        raise SystemExit(
            "usage: bare_relay.py SERVER COMMAND... | --tcp URL | --http URL [--record FILE]"
        )
    if sys.argv[1] == "--tcp":
        asyncio.run(tcp_relay(sys.argv[2]))
    if sys.argv[1] == "--http":
        asyncio.run(http_relay(sys.argv[2], sys.argv[4] if sys.argv[3:4] == ["--record"] else None))
    raise SystemExit(asyncio.run(relay(sys.argv[1:])))
