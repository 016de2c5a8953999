"""The inspector's side of a proxy's attach socket: finding live proxies, and a transport.

``AttachTransport`` fits the ``Transport`` interface, so the TUI's session runs on a live
proxy as on any server: what it sends goes into the proxy's server connection (the proxy
rewrites the ids), and every event of the proxy's wire comes back. Events that are not
this inspector's own (the host's traffic, other inspectors') carry ``meta["observed"]``:
the session shows them and does not act on them.
"""

from __future__ import annotations

import contextlib
import errno
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import anyio
from anyio.abc import SocketStream, TaskGroup

from inspector import __version__
from inspector.proxy.channel import PROTOCOL, ChannelError, op_line, raw_fields, read_lines
from inspector.proxy.origin import INSPECTOR, Origin
from inspector.proxy.runtime import RuntimeDirError, check_own, socket_paths
from inspector.record.format import event_from_json
from inspector.wire.events import Channel, Direction, WireEvent
from inspector.wire.jsonrpc import make_event
from inspector.wire.transport import (
    ConnectionLost,
    FrameMeta,
    Transport,
    TransportError,
    TransportHost,
    with_meta,
)

OBSERVED = "observed"  # meta key: shown, not acted on (not this session's own frame)
WELCOME_TIMEOUT = 10.0
PROBE_TIMEOUT = 3.0


@dataclass
class ProxyInfo:
    """A live proxy, as its welcome describes it."""

    path: Path
    name: str
    pid: int
    target: str
    front: str
    started: str
    record: str | None
    inspectors: int

    @classmethod
    def from_welcome(cls, path: Path, data: dict[str, Any]) -> ProxyInfo:
        return cls(
            path=path,
            name=str(data.get("name", "?")),
            pid=int(data.get("pid") or 0),
            target=str(data.get("target", "")),
            front=str(data.get("front", "")),
            started=str(data.get("started", "")),
            record=data.get("record") if isinstance(data.get("record"), str) else None,
            inspectors=int(data.get("inspectors") or 0),
        )


async def _hello(path: Path, probe: bool) -> tuple[SocketStream, Any, dict[str, Any]]:
    """Connect, say hello, read the answer; raises TransportError saying why not."""
    try:
        check_own(path)
    except RuntimeDirError as exc:
        raise TransportError(str(exc)) from exc
    try:
        stream = await anyio.connect_unix(path)
    except OSError as exc:
        raise TransportError(f"cannot connect to {path}: {exc.strerror or exc}") from exc
    try:
        await stream.send(
            op_line("hello", protocol=PROTOCOL, tool=f"mcp-inspect {__version__}", probe=probe)
        )
        lines = read_lines(stream)
        with anyio.fail_after(WELCOME_TIMEOUT if not probe else PROBE_TIMEOUT):
            first = await anext(lines)
    except (TimeoutError, StopAsyncIteration, ChannelError, OSError, anyio.BrokenResourceError):
        await stream.aclose()
        raise TransportError(f"the proxy at {path} did not answer") from None
    if first.get("op") == "refused":
        await stream.aclose()
        raise TransportError(f"the proxy refused: {first.get('message')}")
    if first.get("op") != "welcome":
        await stream.aclose()
        raise TransportError(f"the proxy at {path} answered {first.get('op')!r}, not welcome")
    return stream, lines, first


async def probe(path: Path) -> ProxyInfo | None:
    """What the proxy at ``path`` says about itself; None when nobody listens there."""
    try:
        stream, _lines, welcome = await _hello(path, probe=True)
    except TransportError as exc:
        cause = exc.__cause__
        if isinstance(cause, OSError) and cause.errno in (errno.ECONNREFUSED, errno.ENOENT):
            return None
        raise
    await stream.aclose()
    return ProxyInfo.from_welcome(path, welcome)


async def live_proxies(clean: bool = True) -> list[ProxyInfo]:
    """The user's running proxies (oldest first); stale sockets are removed."""
    found: list[ProxyInfo] = []
    for path in socket_paths():
        try:
            info = await probe(path)
        except TransportError:
            continue  # alive but not answering (busy, or another user's): leave it be
        if info is None:
            if clean:
                with contextlib.suppress(OSError):
                    path.unlink()
            continue
        found.append(info)
    return found


def pick_proxy(proxies: list[ProxyInfo], name: str | None) -> ProxyInfo:
    """The proxy ``name`` (a name or a pid) means; ValueError says why none or which."""
    if not proxies:
        raise ValueError(
            "no proxy is running; start one with `mcp-inspect proxy -- COMMAND` (in the "
            "host's config, in place of the server's command)"
        )
    if name is None:
        matches = proxies
    else:
        matches = [p for p in proxies if p.name == name or str(p.pid) == name]
        if not matches:
            raise ValueError(f"no running proxy is named {name!r}; running: {_listing(proxies)}")
    if len(matches) > 1:
        raise ValueError(f"several proxies match; name one (or its pid): {_listing(matches)}")
    return matches[0]


def _listing(proxies: list[ProxyInfo]) -> str:
    return ", ".join(f"{p.name} (pid {p.pid})" for p in proxies)


@dataclass
class AttachResume:
    """What one inspector has seen of a proxy, kept across its re-attaches (a reconnect):
    the proxy (its pid and start) and the last of its events shown. A re-attach to the
    same proxy is sent its history again; what was shown already is dropped, so the log
    shows nothing twice. ``on_new_proxy`` runs when the proxy is another one (restarted)."""

    proxy: str = ""
    seq: int = 0
    on_new_proxy: Callable[[], None] | None = None

    def welcomed(self, welcome: dict[str, Any]) -> int:
        """The proxy said who it is: the last event seq already shown (0 for a new one)."""
        proxy = f"{welcome.get('pid')}:{welcome.get('started')}"
        if proxy == self.proxy:
            return self.seq
        if self.proxy and self.on_new_proxy is not None:
            self.on_new_proxy()
        self.proxy, self.seq = proxy, 0
        return 0


class AttachTransport(Transport):
    """A session's transport that is an inspector attached to a live proxy."""

    kind: ClassVar[str] = "proxy"
    handshake_only: ClassVar[bool] = True  # attach is to a host's handshake session

    def __init__(self, path: Path, resume: AttachResume | None = None) -> None:
        self.path = Path(path)
        self.resume = resume or AttachResume()
        self._shown_through = 0  # the proxy's events up to this seq were shown before
        self.welcome: dict[str, Any] = {}
        self.number: int | None = None
        self.out_channel = Channel.STDIN
        self._stream: SocketStream | None = None
        self._lines: Any = None
        self._host: TransportHost | None = None
        self._lock = anyio.Lock()
        self._lost = False
        # intercept, as the proxy says it is: the filter, the held frames (number -> facts)
        self.intercept_filter = ""
        self.held: dict[int, dict[str, Any]] = {}
        self.intercept_error: str | None = None
        self.on_intercept: Callable[[], None] | None = None  # called when any of it changes

    @property
    def target(self) -> str:
        if not self.welcome:
            return f"proxy at {self.path}"
        return f"proxy {self.welcome.get('name')} (pid {self.welcome.get('pid')})"

    def target_info(self) -> dict[str, Any]:
        return {
            "transport": self.kind,
            "target": self.target,
            "socket": str(self.path),
            "proxied": self.welcome.get("target"),
        }

    async def start(self, host: TransportHost, task_group: TaskGroup) -> None:
        self._host = host
        self._stream, self._lines, self.welcome = await _hello(self.path, probe=False)
        self._shown_through = self.resume.welcomed(self.welcome)
        number = self.welcome.get("attach")
        if not isinstance(number, int):
            await self._stream.aclose()
            raise TransportError(self._nothing_to_join())
        self.number = number
        self.intercept_filter = str(self.welcome.get("intercept") or "")
        self.held = {h["held"]: h for h in self.welcome.get("held") or [] if "held" in h}
        with contextlib.suppress(ValueError):
            self.out_channel = Channel(str(self.welcome.get("out_channel", "stdin")))
        host.emit(
            WireEvent(
                Direction.LOCAL,
                Channel.SYSTEM,
                f"attached to {self.target} as inspector {self.number}: "
                f"{self.welcome.get('target')}".encode(),
                meta={"severity": "info", "proxy": self.welcome.get("name")},
            )
        )
        task_group.start_soon(self._read)

    def _nothing_to_join(self) -> str:
        """Why a proxy answered without an attach number: it has no host session (an HTTP
        front before any host connected, or after the last one left)."""
        url = self.welcome.get("url")
        where = f" at {url}" if url else ""
        return (
            f"{self.target} has no host session to join: its HTTP front{where} waits for a "
            "host to connect. Start the host (or send it a request), then attach again."
        )

    async def _read(self) -> None:
        assert self._host is not None and self._lines is not None
        host = self._host
        why = "the proxy went away"
        try:
            async for data in self._lines:
                op = data.get("op")
                if op == "event":
                    event = event_from_json(data.get("event"))
                    # (an answer made for this inspector alone is not on the wire: seq 0)
                    if 0 < event.seq <= self._shown_through:
                        continue  # history this inspector showed before a reconnect
                    self.resume.seq = max(self.resume.seq, event.seq)
                    event.findings = []  # the session finds them again, as for any frame
                    if not data.get("route"):
                        event.meta[OBSERVED] = True
                    host.emit(event)
                elif op in ("bye", "refused"):
                    why = f"the proxy ended: {data.get('message')}"
                    break
                elif op in ("intercept", "held", "released", "intercept-error"):
                    self._intercept_changed(op, data)
        except (ChannelError, ValueError) as exc:
            why = f"the proxy sent something unreadable: {exc}"
        self._report(ConnectionLost(why))

    def _intercept_changed(self, op: str, data: dict[str, Any]) -> None:
        self.intercept_error = None
        if op == "intercept":
            self.intercept_filter = str(data.get("filter") or "")
        elif op == "held" and isinstance(data.get("held"), int):
            self.held[data["held"]] = data
        elif op == "released":
            self.held.pop(data.get("held"), None)  # type: ignore[arg-type]
        else:
            self.intercept_error = str(data.get("message"))
        if self.on_intercept is not None:
            self.on_intercept()

    async def set_intercept(self, query: str) -> None:
        """Hold the host's and the server's frames that match ``query`` ("" stops)."""
        await self._op(op_line("intercept", filter=query))

    async def release(self, number: int, action: str, raw: bytes | None = None) -> None:
        """Forward (``raw``: an edited frame) or drop the held frame ``number``."""
        fields: dict[str, Any] = {"held": number, "action": action}
        if raw is not None:
            fields.update(raw_fields(raw))
        await self._op(op_line("release", **fields))

    async def release_all(self) -> None:
        await self._op(op_line("release", all=True, action="forward"))

    async def _op(self, line: bytes) -> None:
        if self._stream is None:
            raise TransportError("not attached to the proxy")
        async with self._lock:
            try:
                await self._stream.send(line)
            except (OSError, anyio.BrokenResourceError, anyio.ClosedResourceError) as exc:
                raise TransportError(f"the proxy went away: {exc}") from exc

    def _report(self, lost: ConnectionLost) -> None:
        if not self._lost:
            self._lost = True
            # detached: nothing is held for this inspector any more (the proxy forwards
            # what it held once its last inspector is gone)
            self.intercept_filter, self.held = "", {}
            if self._host is not None:
                self._host.connection_lost(lost)

    async def send_raw(
        self, raw: bytes, message: Any = None, *, meta: FrameMeta | None = None
    ) -> None:
        if self._stream is None or self._host is None:
            raise TransportError("not attached to the proxy")
        mine = Origin(INSPECTOR, self.number).meta()
        event = make_event(Direction.OUT, self.out_channel, raw, mine, message)
        self._host.emit(with_meta(event, meta))
        await self._op(op_line("send", **raw_fields(raw)))

    async def close(self) -> None:
        """Detach (the proxy, the host and the server carry on)."""
        if self._stream is not None:
            with contextlib.suppress(Exception):
                await self._stream.aclose()
        self._report(ConnectionLost("detached", expected=True))
