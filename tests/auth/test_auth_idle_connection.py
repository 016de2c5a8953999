"""An OAuth exchange after a pause goes out on a new connection: a server whose idle
timeout closes a kept-alive connection just as the next request goes out on it (seen in a
CI run: the step-up's token POST broke with a ReadError) does not break the flow, while
a burst of requests still shares one connection."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest

from inspector.auth.wire import IDLE_REUSE, AuthWire
from inspector.wire.events import WireEvent

SERVER_IDLE = IDLE_REUSE + 0.2  # the server's idle timeout, a little over the client's
BODY = b'{"ok": true}'
HEAD = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n"
ANSWER = HEAD % len(BODY) + BODY


class RacingServer:
    """Answers each request; a request on a connection idle for ``SERVER_IDLE`` or more
    finds it closed unanswered, as when the server's idle timeout fires as it arrives."""

    def __init__(self) -> None:
        self.connections = 0
        self.closed_on_request = 0

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        loop = asyncio.get_running_loop()
        last = loop.time()
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                if loop.time() - last >= SERVER_IDLE:
                    self.closed_on_request += 1
                    return
                length = next(
                    (
                        int(line.split(b":", 1)[1])
                        for line in head.split(b"\r\n")
                        if line.lower().startswith(b"content-length:")
                    ),
                    0,
                )
                await reader.readexactly(length)
                writer.write(ANSWER)
                await writer.drain()
                last = loop.time()
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()


@pytest.fixture
async def racing() -> AsyncIterator[tuple[RacingServer, str]]:
    server = RacingServer()
    listener = await asyncio.start_server(server.handle, "127.0.0.1", 0)
    port = listener.sockets[0].getsockname()[1]
    async with listener:
        yield server, f"http://127.0.0.1:{port}/token"


@pytest.mark.slow  # waits past the idle timeout
async def test_a_request_after_a_pause_takes_a_new_connection(
    racing: tuple[RacingServer, str],
) -> None:
    server, url = racing
    events: list[WireEvent] = []
    wire = AuthWire(events.append)
    try:
        first = await wire.request("discovery", "GET", url)
        burst = await wire.request("registration", "POST", url, json_body={"a": 1})
        assert (first.status, burst.status) == (200, 200)
        assert server.connections == 1  # a burst shares its connection
        await asyncio.sleep(SERVER_IDLE + 0.1)  # a person reads the consent page
        token = await wire.request("token", "POST", url, form={"code": "c"})
        assert token.status == 200 and token.json() == {"ok": True}
        assert server.connections == 2 and server.closed_on_request == 0
    finally:
        await wire.aclose()
