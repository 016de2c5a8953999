"""Reads in heap-sized chunks: asyncio's 256 KiB reads made glibc mmap and munmap a
block for every line (a third of the proxy's CPU); the transports we open read 64 KiB."""

from __future__ import annotations

import asyncio
import asyncio.unix_events
import os

import anyio
import pytest
from paths import PY

from inspector.engine.session import Session
from inspector.proxy.pipes import open_reader
from inspector.transports.readsize import READ_SIZE
from inspector.transports.stdio import StdioTransport, iter_lines

ASYNCIO_DEFAULT = 256 * 1024
PIPE_READER = asyncio.unix_events._UnixReadPipeTransport  # type: ignore[attr-defined]


@pytest.fixture
def asyncio_default_reads(monkeypatch: pytest.MonkeyPatch) -> None:
    """asyncio as it comes (an earlier test in this process has changed it already)."""
    monkeypatch.setattr(PIPE_READER, "max_size", ASYNCIO_DEFAULT)


@pytest.mark.usefixtures("asyncio_default_reads")
async def test_a_stdio_server_is_read_in_heap_sized_chunks() -> None:
    transport = StdioTransport(PY, ["-m", "inspector.demo"])
    with anyio.fail_after(30):
        async with Session(transport) as session:
            await session.initialize()
            assert transport.process is not None
            pipes = transport.process.pipes
            for fd in (1, 2):  # stdout and stderr
                assert pipes[fd].max_size == READ_SIZE  # type: ignore[attr-defined]
            # a message far bigger than one read still arrives whole
            text = "x" * (5 * READ_SIZE)
            call = {"name": "echo", "arguments": {"message": text}}
            result = await session.request("tools/call", call)
            assert text in result["content"][0]["text"]


@pytest.mark.usefixtures("asyncio_default_reads")
async def test_the_proxys_stdin_is_read_in_heap_sized_chunks() -> None:
    read_end, write_end = os.pipe()
    try:
        reader = await open_reader(read_end)
        transport = reader._transport  # type: ignore[attr-defined]
        assert transport.max_size == READ_SIZE
        line = b"y" * (3 * READ_SIZE) + b"\n"
        os.write(write_end, line[:40000])
        writer = asyncio.get_running_loop().run_in_executor(None, os.write, write_end, line[40000:])
        lines = iter_lines(reader)
        assert await asyncio.wait_for(anext(lines), 10) == (line[:-1], True)
        await writer
        transport.close()
    finally:
        os.close(write_end)
