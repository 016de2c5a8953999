"""The attach socket in process: a relay over an in-memory server, inspectors on the socket."""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import anyio
import pytest

from inspector.engine.session import Session
from inspector.proxy import control, runtime
from inspector.proxy.attach import AttachTransport
from inspector.proxy.control import ControlServer
from inspector.proxy.relay import Relay
from inspector.proxy.runtime import RuntimeDirError, check_own
from inspector.proxy.wire import ProxyWire
from inspector.transports.memory import MemoryServerEnd, memory_pair
from inspector.wire.events import WireEvent
from inspector.wire.transport import TransportError


class FakeHost:
    """A host end fed by the test."""

    kind = "test"

    def __init__(self) -> None:
        self.sent: list[bytes] = []
        self.inbox, self._frames = anyio.create_memory_object_stream[bytes](100)

    async def frames(self) -> AsyncIterator[tuple[bytes, bool]]:
        async for line in self._frames:
            yield line, True

    def send(self, raw: bytes, event: WireEvent) -> None:
        self.sent.append(raw)

    def stderr(self, line: bytes) -> None:
        pass

    async def close(self) -> None:
        pass


@pytest.fixture
def folder() -> Iterator[Path]:
    path = Path(tempfile.mkdtemp(prefix="mi-"))
    yield path
    shutil.rmtree(path, ignore_errors=True)


@contextlib.asynccontextmanager
async def proxy(folder: Path) -> AsyncIterator[tuple[Relay, FakeHost, MemoryServerEnd, Path]]:
    back, server = memory_pair()
    host = FakeHost()
    wire = ProxyWire()
    relay = Relay(wire, back, host)
    path = folder / "1.sock"
    info = {"name": "mem", "pid": os.getpid(), "target": "memory", "front": "test"}
    async with anyio.create_task_group() as tg, ControlServer(wire, info, lambda: relay, path):
        tg.start_soon(relay.run)
        yield relay, host, server, path
        relay.stop("test over")


async def test_a_peer_of_another_user_is_refused(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with anyio.fail_after(20):
        async with proxy(folder) as (_relay, _host, _server, path):
            monkeypatch.setattr(control, "own_uid", lambda: os.getuid() + 1)
            with pytest.raises(TransportError, match="may not attach"):
                async with Session(AttachTransport(path)):
                    pass


def test_a_path_of_another_user_is_refused(folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(runtime, "own_uid", lambda: os.getuid() + 1)
    with pytest.raises(RuntimeDirError, match="belongs to another user"):
        check_own(folder, is_dir=True)


def test_a_folder_open_to_others_is_closed(folder: Path) -> None:
    folder.chmod(0o755)
    check_own(folder, is_dir=True)
    assert folder.stat().st_mode & 0o777 == 0o700


async def test_the_inspectors_frames_reach_the_server_rewritten(folder: Path) -> None:
    seen: list[WireEvent] = []
    with anyio.fail_after(20):
        async with proxy(folder) as (_relay, host, server, path):
            await host.inbox.send(
                b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25"}}'
            )
            assert (await server.receive())["method"] == "initialize"
            await server.send(
                {
                    "jsonrpc": "2.0",
                    "id": 1,
                    "result": {
                        "protocolVersion": "2025-11-25",
                        "capabilities": {},
                        "serverInfo": {"name": "mem", "version": "1"},
                    },
                }
            )
            async with Session(AttachTransport(path), timeout=10) as inspector:
                inspector.add_observer(seen.append)
                await inspector.initialize()
                assert inspector.server_info["name"] == "mem"

                async def answer() -> None:
                    request = await server.receive()
                    assert request["id"] == "mcp-inspect-1"
                    await server.send({"jsonrpc": "2.0", "id": request["id"], "result": {"ok": 1}})

                async with anyio.create_task_group() as tg:
                    tg.start_soon(answer)
                    assert await inspector.request("ping") == {"ok": 1}
            # the host got its own answer only
            assert len(host.sent) == 1 and b'"id":1' in host.sent[0]
