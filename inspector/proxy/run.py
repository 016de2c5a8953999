"""``mcp-inspect proxy``: a relay between the host and the server, put together.

The host starts the proxy instead of the server; the proxy starts (or connects to) the
server, relays every frame through its wire (recorded write-ahead), and opens the
attach socket so inspectors can watch and call into the live session.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import os
import resource
import shlex
import signal
import sys
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import anyio
from anyio.abc import TaskGroup

from inspector.engine.request_errors import first_failure
from inspector.errors import InspectorError
from inspector.proxy.control import ControlServer
from inspector.proxy.host_http import IDLE_TIMEOUT, HttpFront
from inspector.proxy.host_stdio import StdioHost
from inspector.proxy.httpserve import FrontLimits
from inspector.proxy.intercept import Interceptor
from inspector.proxy.relay import Relay
from inspector.proxy.runtime import RuntimeDirError
from inspector.proxy.wire import ProxyWire
from inspector.record.recorder import Recorder
from inspector.transports.authhook import AuthHook
from inspector.wire.events import WireEvent
from inspector.wire.transport import Transport, TransportError

STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)
ACCEPT_ERRNOS = (errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM)
FILES_KEPT = 64  # descriptors for the proxy itself (recording, attach socket, inspectors)
FILES_PER_SESSION = 8  # a session's server: its pipes, its process
MIN_CONNECTIONS = 4


class ProxyError(InspectorError):
    """The proxy could not start: the message says what to do."""


@dataclass
class ProxySetup:
    """What ``mcp-inspect proxy`` was asked to do. ``make_back`` makes a connection to the
    server (one per host session); ``describe`` says what it is, in one line."""

    name: str
    describe: str
    make_back: Callable[[], Transport]
    recorder: Recorder | None = None  # a session file of the proxy's wire
    fds: tuple[int, int, int | None] = (0, 1, 2)  # the host's stdin, stdout, stderr
    attach: bool = True  # open the attach socket
    socket: Path | None = None  # where (default: the runtime folder, PID.sock)
    extra: dict[str, Any] = field(default_factory=dict)  # more for the welcome
    auth: AuthHook | None = None  # OAuth for an HTTP server (shared by its connections)
    idle_timeout: float | None = IDLE_TIMEOUT  # --listen: a host session idle this long ends
    front_token: str | None = None  # --listen: what a host presents (None: --no-auth-front)
    limits: FrontLimits = field(default_factory=FrontLimits)  # --listen: the caps
    # see every event and only queue it for a thread of their own (--otlp-endpoint's spans)
    watchers: list[Callable[[WireEvent, Any], None]] = field(default_factory=list)
    command: str = "proxy"  # the subcommand its stderr lines are said as (replay --listen)

    async def aclose(self) -> None:
        """Release what the setup holds (the OAuth client)."""
        if self.auth is not None:
            with anyio.CancelScope(shield=True):
                await self.auth.aclose()


def relayed(transport: Transport) -> Transport:
    """A connection to the server, made ready to relay (a stdio server's blank lines are
    frames too: the relay passes them on)."""
    transport.keep_blank_lines()
    return transport


async def run_stdio_proxy(setup: ProxySetup) -> int:
    """The host on stdio, the server behind; returns the exit code (the server's when it
    ended on its own, 0 when the host closed its side or a signal stopped the proxy)."""
    try:
        return await _run_stdio_proxy(setup)
    finally:
        await setup.aclose()


def _wire(setup: ProxySetup) -> ProxyWire:
    wire = ProxyWire(setup.recorder)
    for watcher in setup.watchers:
        wire.watch(watcher, acts_later=True)
    return wire


async def _run_stdio_proxy(setup: ProxySetup) -> int:
    wire = _wire(setup)
    back = relayed(setup.make_back())
    host = await StdioHost.open(*setup.fds, before=wire.sync)
    interceptor = Interceptor(wire)
    relay = Relay(wire, back, host, interceptor, host_coalesces=host.coalesces)
    not_started: str | None = None
    wire.note(
        f"proxy {setup.name}: host on stdio, server {setup.describe}",
        proxy=setup.name,
    )
    async with (
        anyio.create_task_group() as tg,
        _stop_on_signals(tg, relay.stop),
        _attach_socket(setup, wire, lambda: relay, "stdio", interceptor) as control,
    ):
        try:
            await relay.run()
        except BaseException as exc:
            failure = first_failure(exc)
            if not isinstance(failure, TransportError):
                raise
            wire.note(f"could not start the server: {failure}", severity="error")
            await host.close()
            not_started = str(failure)
        if control is not None:
            control.farewell = _farewell(relay)
        tg.cancel_scope.cancel()
    if not_started is not None:  # raised out here: a task group would wrap it
        raise ProxyError(not_started)
    return relay.exit_code or 0


async def run_http_proxy(setup: ProxySetup, listen: tuple[str, int]) -> int:
    """A Streamable HTTP front on the loopback, the server behind (one connection to it per
    host session); runs until a signal stops it, then shuts every session's server down."""
    try:
        return await _run_http_proxy(setup, listen)
    finally:
        await setup.aclose()


async def _run_http_proxy(setup: ProxySetup, listen: tuple[str, int]) -> int:
    wire = _wire(setup)
    interceptor = Interceptor(wire)
    front = HttpFront(
        wire,
        listen,
        lambda: relayed(setup.make_back()),
        interceptor=interceptor,
        idle_timeout=setup.idle_timeout,
        token=setup.front_token,
        limits=setup.limits,
    )
    _fit_connections(front, raise_file_limit())
    asyncio.get_running_loop().set_exception_handler(_accept_errors(wire))
    try:
        await front.listen()
    except OSError as exc:
        raise ProxyError(
            f"cannot listen on {listen[0]}:{listen[1]}: {exc.strerror or exc}"
        ) from None
    setup.extra["url"] = front.url
    stopped = anyio.Event()

    def stop(why: str) -> None:
        wire.note(f"{why}: shutting the servers down")
        stopped.set()

    async with anyio.create_task_group() as tg, _stop_on_signals(tg, stop):
        tg.start_soon(front.serve)
        # said once connections are accepted: a script that connects on this line must
        # not find the port bound but not yet listening (connection refused)
        await front.ready.wait()
        said = f"mcp-inspect {setup.command}:"
        sys.stderr.write(f"{said} listening on {front.url}\n")
        if setup.front_token is not None:
            sys.stderr.write(
                f"{said} hosts send its token as 'Authorization: Bearer TOKEN'; "
                f"`mcp-inspect proxies --token {shlex.quote(setup.name)}` prints it\n"
            )
        sys.stderr.flush()
        async with _attach_socket(setup, wire, front.latest_relay, "http", interceptor) as control:
            await stopped.wait()
            await front.stop()
            if control is not None:
                control.farewell = "the proxy was stopped"
        tg.cancel_scope.cancel()
    return 0


def raise_file_limit() -> int:
    """The soft limit on open files raised to the hard one: each host connection and each
    session's server take descriptors, and the soft default (often 1024) is the first to
    run out under many clients. Returns the limit now."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    with contextlib.suppress(ValueError, OSError):
        if hard == resource.RLIM_INFINITY or hard > soft:
            target = hard if hard != resource.RLIM_INFINITY else max(soft, 1 << 16)
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
            soft = target
    return soft


def _fit_connections(front: HttpFront, files: int) -> None:
    """Fewer connections than ``--max-connections`` when the file limit cannot hold them
    beside the sessions' servers (descriptors then never run out for connections)."""
    limits = front.limits
    room = files - FILES_KEPT - FILES_PER_SESSION * limits.max_sessions
    if room < limits.max_connections:
        limits.max_connections = max(MIN_CONNECTIONS, room)
        front.wire.note(
            f"only {files} open files allowed (ulimit -n): at most {limits.max_connections} "
            "host connections at once",
            severity="warning",
        )


def _accept_errors(wire: ProxyWire) -> Callable[[asyncio.AbstractEventLoop, dict[str, Any]], None]:
    """The event loop's error handler: an ``accept`` that fails (out of descriptors:
    EMFILE, ENFILE) is one line on the wire and on stderr, at most once a second, not a
    traceback; asyncio itself waits a moment and accepts again. Anything else goes to the
    default handler."""
    last = [0.0]

    def handle(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        exc = context.get("exception")
        if not (isinstance(exc, OSError) and exc.errno in ACCEPT_ERRNOS):
            loop.default_exception_handler(context)
            return
        now = loop.time()
        if now - last[0] >= 1.0:
            last[0] = now
            text = f"cannot accept a connection: {exc.strerror or exc}; retrying"
            wire.note(text, severity="warning")
            sys.stderr.write(f"mcp-inspect proxy: {text}\n")
            sys.stderr.flush()

    return handle


def _farewell(relay: Relay) -> str:
    if relay.lost is not None and not relay.lost.expected:
        return f"the server's side ended: {relay.lost.describe()}"
    if relay.host_left:
        return "the host closed its side; the server was shut down"
    return "the proxy was stopped"


def proxy_info(setup: ProxySetup, front: str) -> dict[str, Any]:
    """What a proxy says about itself to inspectors (``mcp-inspect proxies``)."""
    record = setup.recorder.path if setup.recorder is not None else None
    return {
        "name": setup.name,
        "pid": os.getpid(),
        "uid": os.getuid(),
        "target": setup.describe,
        "front": front,
        "started": datetime.now(UTC).isoformat(timespec="seconds"),
        "record": str(record) if record is not None else None,
        **setup.extra,
    }


@contextlib.asynccontextmanager
async def _attach_socket(
    setup: ProxySetup,
    wire: ProxyWire,
    relay: Callable[[], Relay | None],
    front: str,
    interceptor: Interceptor,
) -> AsyncIterator[ControlServer | None]:
    """The attach socket, when asked for and possible: without it the host's server still
    runs (the proxy says why on stderr and in the recording)."""
    if not setup.attach:
        yield None
        return
    try:
        info = proxy_info(setup, front)
        control = ControlServer(wire, info, relay, setup.socket, interceptor)
        await control.listen()
    except (RuntimeDirError, OSError) as exc:
        text = f"no attach socket: {exc}; the proxy relays without it"
        wire.note(text, severity="warning")
        sys.stderr.write(f"mcp-inspect proxy: {text}\n")
        yield None
        return
    async with control:
        try:
            yield control
        finally:
            interceptor.release_all()  # nobody can decide any more: nothing stays stuck


@contextlib.asynccontextmanager
async def _stop_on_signals(tg: TaskGroup, stop: Callable[[str], None]) -> AsyncIterator[None]:
    """SIGTERM, SIGINT, SIGHUP: shut the server down cleanly, then exit."""

    async def watch() -> None:
        with anyio.open_signal_receiver(*STOP_SIGNALS) as signals:
            async for signum in signals:
                stop(f"{signal.Signals(signum).name} received")

    tg.start_soon(watch)
    yield
