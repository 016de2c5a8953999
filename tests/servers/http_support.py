"""Helpers for the HTTP transport tests: a minimal transport host, official-SDK server
processes, and the npm ``@modelcontextprotocol/server-everything`` server."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import anyio
from processes import line_with

from inspector.engine.era import is_stateless
from inspector.wire.events import Channel, Direction, WireEvent
from inspector.wire.jsonrpc import notification, request
from inspector.wire.transport import ConnectionLost, Transport

HERE = Path(__file__).resolve().parent


class Host:
    """A minimal TransportHost: keeps every event and the loss."""

    def __init__(self) -> None:
        self.events: list[WireEvent] = []
        self.lost: ConnectionLost | None = None

    def emit(self, event: WireEvent) -> None:
        self.events.append(event)

    def connection_lost(self, lost: ConnectionLost) -> None:
        assert self.lost is None, f"connection_lost twice: {self.lost} then {lost}"
        self.lost = lost

    def on(self, channel: Channel, direction: Direction | None = None) -> list[WireEvent]:
        return [
            e
            for e in self.events
            if e.channel is channel and (direction is None or e.direction is direction)
        ]

    def messages_in(self) -> list[Any]:
        return [
            e.message
            for e in self.events
            if e.direction is Direction.IN
            and e.message is not None
            and e.channel in (Channel.SSE, Channel.BODY)
        ]

    def response(self, rid: Any) -> dict[str, Any] | None:
        """The response (real or synthesized) to request ``rid``."""
        for e in self.events:
            items = e.message if isinstance(e.message, list) else [e.message]
            for m in items:
                if (
                    e.direction is Direction.IN
                    and isinstance(m, dict)
                    and m.get("id") == rid
                    and "method" not in m
                    and ("result" in m or "error" in m)
                ):
                    return m
        return None

    def notes(self) -> list[str]:
        return [
            e.text()
            for e in self.events
            if e.channel is Channel.SYSTEM and e.direction is Direction.LOCAL
        ]

    def dump(self) -> str:
        return "\n".join(
            f"{e.direction.value:5} {e.channel.value:6} {e.raw[:160]!r} {e.error or ''} {e.meta}"
            for e in self.events
        )

    async def wait(self, predicate: Callable[[], Any], timeout: float = 10.0) -> Any:
        try:
            with anyio.fail_after(timeout):
                while not (value := predicate()):
                    await anyio.sleep(0.01)
                return value
        except TimeoutError:
            raise AssertionError(
                f"condition not met within {timeout} s; events:\n" + self.dump()
            ) from None

    async def wait_response(self, rid: Any, timeout: float = 10.0) -> dict[str, Any]:
        result: dict[str, Any] = await self.wait(lambda: self.response(rid), timeout)
        return result


@contextlib.asynccontextmanager
async def running(transport: Transport, host: Host | None = None) -> AsyncIterator[Host]:
    """``transport`` started on ``host`` (a new ``Host`` by default), closed on the way out."""
    host = host or Host()
    async with anyio.create_task_group() as tg:
        await transport.start(host, tg)
        try:
            yield host
        finally:
            await transport.close()
            tg.cancel_scope.cancel()


def initialize(
    rid: Any = 1, version: str = "2025-11-25", capabilities: dict[str, Any] | None = None
) -> dict[str, Any]:
    return request(
        rid,
        "initialize",
        {
            "protocolVersion": version,
            "capabilities": capabilities or {},
            "clientInfo": {"name": "test-host", "version": "0"},
        },
    )


async def handshake(
    transport: Transport,
    host: Host,
    version: str = "2025-11-25",
    capabilities: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """initialize, set the version, notifications/initialized; returns the result."""
    await transport.send(initialize(1, version, capabilities))
    reply = await host.wait_response(1, 20)
    assert "result" in reply, reply
    version = reply["result"]["protocolVersion"]
    transport.set_protocol_version(version, stateless=is_stateless(version))
    await transport.send(notification("notifications/initialized"))
    result: dict[str, Any] = reply["result"]
    return result


# ------------------------------------------------------------------ official-SDK servers


def _read_port(proc: subprocess.Popen[bytes], stderr_path: Path, timeout: float) -> int:
    assert proc.stdout is not None
    line, _ = line_with(proc.stdout, b"PORT ", timeout)
    if line is not None and line.startswith(b"PORT "):
        return int(line.split()[1])
    proc.kill()
    raise AssertionError(
        f"the test server did not start within {timeout} s: "
        + stderr_path.read_text(errors="replace")[-2000:]
    )


@contextlib.contextmanager
def sdk_server(
    mode: str, timeout: float = 30.0, script: str = "http_sdk_server.py"
) -> Iterator[str]:
    """Run ``SCRIPT MODE`` (an SDK server that prints ``PORT n``); yields its base URL
    (``http://127.0.0.1:<port>``)."""
    with tempfile.NamedTemporaryFile(prefix=f"sdk-{mode}-", suffix=".log", delete=False) as log:
        log_path = Path(log.name)
    with log_path.open("wb") as err:
        proc = subprocess.Popen(
            [sys.executable, "-W", "ignore", str(HERE / script), mode],
            stdout=subprocess.PIPE,
            stderr=err,
        )
    try:
        port = _read_port(proc, log_path, timeout)
        yield f"http://127.0.0.1:{port}"
    finally:
        proc.terminate()
        try:
            proc.wait(5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)
        if proc.stdout is not None:
            proc.stdout.close()
        log_path.unlink(missing_ok=True)


_HELD: list[socket.socket] = []  # dead ports, held until the test process ends


def dead_port() -> int:
    """A port nothing listens on, and nothing can: bound (without ``SO_REUSEADDR``, so no
    other process's server may take it) but never listening, so a connection is refused.
    A port bound and released would be free for another test process's server."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    _HELD.append(sock)
    port: int = sock.getsockname()[1]
    return port


# ------------------------------------------------------------------ server-everything (npm)


def _wait_for_port(
    proc: subprocess.Popen[bytes], port_file: Path, log_path: Path, what: str, timeout: float
) -> int:
    """The port the server wrote (``report_port.cjs``), once it accepts connections."""
    deadline = time.monotonic() + timeout
    while True:
        with contextlib.suppress(OSError, ValueError):
            port = int(port_file.read_text())
            with socket.create_connection(("127.0.0.1", port), 0.5):
                return port
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            raise AssertionError(
                f"{what} did not listen within {timeout} s: "
                + log_path.read_text(errors="replace")[-2000:]
            )
        time.sleep(0.1)


@contextlib.contextmanager
def everything_server(mode: str, timeout: float = 60.0) -> Iterator[str]:
    """Run server-everything in ``mode`` (streamableHttp | sse) on a port of its own
    (``PORT=0``; it reports the port through ``report_port.cjs``); yields its base URL."""
    from tests.everything import everything_command  # the shared, locked installer

    node, args = everything_command(mode)  # installs the pinned package when missing
    folder = Path(tempfile.mkdtemp(prefix=f"everything-{mode}-"))
    log_path, port_file = folder / "server.log", folder / "port"
    with log_path.open("wb") as out:
        proc = subprocess.Popen(
            [node, "--require", str(HERE / "report_port.cjs"), *args],
            env={**os.environ, "PORT": "0", "MCP_TEST_PORT_FILE": str(port_file)},
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    try:
        port = _wait_for_port(proc, port_file, log_path, f"server-everything {mode}", timeout)
        yield f"http://127.0.0.1:{port}"
    finally:
        proc.terminate()
        try:
            proc.wait(5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)
        shutil.rmtree(folder, ignore_errors=True)


def tool_text(result: dict[str, Any]) -> str:
    return "".join(c.get("text", "") for c in result.get("content", []))


def pretty(obj: Any) -> str:
    return json.dumps(obj, indent=1)[:2000]
