"""The loopback redirect listener (RFC 8252 section 7.3): 127.0.0.1, a random port (or the
configured one), open only while a flow waits for its redirect, closed after.

It answers one thing: ``GET /callback?code=...&state=...`` (or ``?error=...``). A redirect
whose ``state`` is not the flow's is refused (HTTP 400) and the listener keeps waiting;
anything else is a 404. Requests are read with a size and time limit.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from types import TracebackType
from urllib.parse import parse_qsl, urlsplit

import anyio
from anyio.abc import SocketAttribute, SocketStream, TaskGroup
from anyio.streams.stapled import MultiListener

HOST = "127.0.0.1"
PATH = "/callback"
MAX_REQUEST = 16 * 1024
READ_TIMEOUT = 10.0
DONE_PAGE = (
    "<!doctype html><title>mcp-inspect</title><p>Authorization received. "
    "You can close this tab and return to mcp-inspect.</p>"
)


class LoopbackListener:
    """``async with LoopbackListener(state) as listener``: ``listener.redirect_uri``,
    ``await listener.result()`` gives the redirect's query parameters."""

    def __init__(
        self,
        state: str,
        port: int = 0,
        on_refused: Callable[[str], None] | None = None,
    ) -> None:
        self.state = state
        self.port = port
        self.on_refused = on_refused
        self._params: dict[str, str] | None = None
        self._got: anyio.Event | None = None
        self._tg: TaskGroup | None = None
        self._listener: MultiListener[SocketStream] | None = None

    @property
    def redirect_uri(self) -> str:
        return f"http://{HOST}:{self.port}{PATH}"

    async def __aenter__(self) -> LoopbackListener:
        self._got = anyio.Event()
        try:
            listener = await anyio.create_tcp_listener(local_host=HOST, local_port=self.port)
        except OSError as exc:
            raise OSError(
                f"cannot listen on {HOST}:{self.port} for the authorization redirect: "
                f"{exc.strerror or exc}"
            ) from exc
        self._listener = listener
        self.port = int(listener.extra(SocketAttribute.local_port))
        self._tg = anyio.create_task_group()
        await self._tg.__aenter__()
        self._tg.start_soon(listener.serve, self._handle)
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        assert self._tg is not None and self._listener is not None
        self._tg.cancel_scope.cancel()
        await self._tg.__aexit__(None, None, None)
        await self._listener.aclose()

    @property
    def received(self) -> dict[str, str] | None:
        """The accepted redirect's parameters, if one came."""
        return self._params

    async def result(self) -> dict[str, str]:
        """The accepted redirect's query parameters (waits for it)."""
        assert self._got is not None
        await self._got.wait()
        assert self._params is not None
        return self._params

    async def _handle(self, stream: SocketStream) -> None:
        async with stream:
            try:
                with anyio.fail_after(READ_TIMEOUT):
                    head = await _read_head(stream)
            except (TimeoutError, anyio.EndOfStream, anyio.BrokenResourceError, OSError):
                return
            status, page = self._answer(head)
            body = page.encode("utf-8")
            reply = (
                f"HTTP/1.1 {status}\r\nContent-Type: text/html; charset=utf-8\r\n"
                f"Content-Length: {len(body)}\r\nConnection: close\r\n"
                "Cache-Control: no-store\r\n\r\n"
            ).encode("ascii") + body
            with contextlib.suppress(anyio.BrokenResourceError, OSError):
                await stream.send(reply)

    def _answer(self, head: bytes) -> tuple[str, str]:
        line = head.split(b"\r\n", 1)[0].decode("latin-1")
        parts = line.split(" ")
        if len(parts) < 2 or parts[0] != "GET":
            return "405 Method Not Allowed", "only GET"
        target = urlsplit(parts[1])
        if target.path != PATH:
            return "404 Not Found", "not here"
        params = dict(parse_qsl(target.query, keep_blank_values=True))
        if "code" not in params and "error" not in params:
            return "400 Bad Request", "no code or error in this redirect"
        if params.get("state") != self.state:
            if self.on_refused is not None:
                self.on_refused("a redirect with a state that is not this flow's was refused")
            return "400 Bad Request", "this redirect's state is not the one mcp-inspect sent"
        if self._params is None:
            self._params = params
            assert self._got is not None
            self._got.set()
        return "200 OK", DONE_PAGE


async def _read_head(stream: SocketStream) -> bytes:
    data = b""
    while b"\r\n\r\n" not in data and b"\n\n" not in data:
        chunk = await stream.receive(4096)
        data += chunk
        if len(data) > MAX_REQUEST:
            break
    return data
