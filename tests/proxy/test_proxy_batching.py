"""The relay's batched writes stay write-ahead: frames emitted in one turn of the event loop
go out in one write at its end, and the recording has them on file before that write."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import anyio

from inspector.proxy.control import Attachment
from inspector.proxy.pipes import PipeWriter
from inspector.proxy.wire import ProxyWire
from inspector.record.format import SessionHeader
from inspector.record.recorder import Recorder
from inspector.wire.events import Channel, Direction, WireEvent


def line(n: int) -> WireEvent:
    raw = b'{"jsonrpc":"2.0","id":%d,"result":{}}' % n
    return WireEvent(Direction.IN, Channel.STDOUT, raw, meta={"side": "host"})


async def test_a_burst_is_one_write_and_recorded_before_it(tmp_path: Path) -> None:
    path = tmp_path / "p.jsonl"
    recorder = Recorder(path, SessionHeader(target={}))
    wire = ProxyWire(recorder)
    read_fd, write_fd = os.pipe()
    writer = await PipeWriter.open(write_fd, before=wire.sync)
    writes: list[tuple[bytes, str]] = []
    real_write = writer._write

    def spy(data: bytes) -> None:
        writes.append((data, path.read_text()))  # what the file held as the frames left
        real_write(data)

    writer._write = spy  # type: ignore[method-assign]
    writer.write(b"\n")  # a blank line first: the write is due before the wire's own sync
    for n in (1, 2, 3):
        event = line(n)
        wire.emit(event, defer=True)
        writer.write(event.raw + b"\n")
    assert writes == []  # nothing left yet: the end of this turn writes
    await anyio.sleep(0)
    await anyio.sleep(0)
    assert len(writes) == 1
    data, on_file = writes[0]
    assert data == b"\n" + b"".join(line(n).raw + b"\n" for n in (1, 2, 3))
    for n in (1, 2, 3):
        assert f'\\"id\\":{n}' in on_file  # write-ahead: on file before the pipe got it
    assert os.read(read_fd, 1 << 16) == data
    await writer.close()
    os.close(read_fd)
    recorder.close()


async def test_a_watcher_that_acts_at_once_sees_each_event_on_file(tmp_path: Path) -> None:
    path = tmp_path / "p.jsonl"
    recorder = Recorder(path, SessionHeader(target={}))
    wire = ProxyWire(recorder)
    seen: list[str] = []
    wire.watch(lambda event, route: seen.append(path.read_text()))
    wire.emit(line(7), defer=True)
    assert '\\"id\\":7' in seen[0]  # the watcher sees what is on file
    recorder.close()


async def test_a_watcher_that_acts_later_keeps_the_batch_and_the_file_goes_first(
    tmp_path: Path,
) -> None:
    """The attach socket only queues events for its writer tasks: a burst still costs one
    flush, and what an inspector is sent is on file before it is sent."""
    path = tmp_path / "p.jsonl"
    recorder = Recorder(path, SessionHeader(target={}))
    flushes = 0
    real_flush = recorder.flush

    def counted() -> None:
        nonlocal flushes
        flushes += 1
        real_flush()

    recorder.flush = counted  # type: ignore[method-assign]
    wire = ProxyWire(recorder)
    loop = asyncio.get_running_loop()
    sent: list[str] = []
    wire.watch(
        lambda event, route: loop.call_soon(lambda: sent.append(path.read_text())),
        acts_later=True,
    )
    for n in (1, 2, 3):
        wire.emit(line(n), defer=True)
    assert '\\"id\\":1' not in path.read_text()  # buffered: the turn is not over
    await anyio.sleep(0)
    assert len(sent) == 3
    assert all(f'\\"id\\":{n}' in sent[0] for n in (1, 2, 3))
    assert flushes == 1
    recorder.close()


async def test_an_inspector_is_sent_nothing_the_file_does_not_have(tmp_path: Path) -> None:
    """The attach socket's writer may already be due when a deferred event joins its
    queue in the same turn: it syncs the wire before each write."""
    path = tmp_path / "p.jsonl"
    recorder = Recorder(path, SessionHeader(target={}))
    wire = ProxyWire(recorder)

    class Socket:
        def __init__(self) -> None:
            self.sent: list[tuple[bytes, str]] = []

        async def send(self, data: bytes) -> None:
            self.sent.append((data, path.read_text()))  # what the file held as it went

    socket = Socket()
    attachment = Attachment(1, socket, before=wire.sync)  # type: ignore[arg-type]
    wire.watch(lambda event, route: attachment.push(event.raw + b"\n"), acts_later=True)
    async with anyio.create_task_group() as tg:
        tg.start_soon(attachment.write_loop)
        await anyio.sleep(0)  # the writer waits for its first line
        wire.emit(line(1))  # flushed at once; it wakes the writer
        wire.emit(line(2), defer=True)  # buffered, queued behind it in the same turn
        with anyio.fail_after(5):
            while not socket.sent or b'"id":2' not in b"".join(d for d, _ in socket.sent):
                await anyio.sleep(0.01)
        attachment.finish()
    for data, on_file in socket.sent:
        for n in (1, 2):
            if b'"id":%d' % n in data:
                assert f'\\"id\\":{n}' in on_file  # on file before the inspector got it
    recorder.close()
