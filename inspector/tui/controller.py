"""Runs the session for the app: connect, handshake, catalog, reconnect.

It feeds the app's ``LiveState`` (the one owner of what the widgets show): every
session's events, and after each handshake the session itself (requests, tasks, the
server log, resource updates) and the catalog.

The session lives inside one long-running worker (its task group must be entered
and left by the same task); calls made from the UI run in their own workers and
only await futures, so the UI never blocks on the network.
"""

from __future__ import annotations

import itertools
import traceback
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any, Protocol, cast

import anyio

from inspector.engine.client import McpClient
from inspector.engine.era_detect import note_restart, probing
from inspector.engine.kinds import KIND
from inspector.engine.lists import ListUpdate
from inspector.engine.options import SessionOptions
from inspector.engine.request_errors import ServerExitedOnProbe, first_failure
from inspector.engine.responders import Responders
from inspector.engine.session import EventRecorder, Session
from inspector.live.state import LiveState
from inspector.proxy.attach import AttachResume, AttachTransport
from inspector.proxy.passed import PassedCatalog
from inspector.record.era_memory import FileEraMemory
from inspector.target import Target, build_transport
from inspector.tui import messages
from inspector.wire.events import WireEvent
from inspector.wire.transport import ConnectionLost, TransportError

if TYPE_CHECKING:
    from textual.message import Message
    from textual.notifications import SeverityLevel

SHUTDOWN_BOUND = 10.0  # stdio: stdin closed, SIGTERM, SIGKILL, 2 s apart; HTTP: a 2 s DELETE


class Poster(Protocol):
    """Where a controller's messages go: the app, or a workspace server's relay."""

    def post_message(self, message: Message) -> bool: ...

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
    ) -> None: ...


class SessionController:
    """Owns the current session and feeds ``state``; the app reads ``session``/``client``
    and posts calls."""

    def __init__(
        self,
        app: Poster,
        target: Target,
        options: SessionOptions,
        *,
        state: LiveState,
        observer: Callable[[WireEvent], None] | None = None,
        responders: Responders | None = None,
        recorder: EventRecorder | None = None,
        auth: Any = None,
        trace: Any = None,
    ) -> None:
        """``options``: timeouts and a pinned protocol version, for every session made;
        ``auth``: the HTTP transports' auth hook (an ``inspector.auth`` authorizer),
        kept across reconnects so its tokens are. ``observer``: sees every event too.
        ``trace``: a live trace (``inspector.export.live.SessionTrace``) every session
        of the recording joins. ``app``: where its messages go (the app, or a workspace
        server's screen)."""
        self.app = app
        self.state = state
        self.auth = auth
        self.target = target
        self.observer = observer
        self.trace = trace
        self.responders = responders or Responders()
        self.recorder = recorder
        self.options = options
        self.session: Session | None = None
        self.client: McpClient | None = None
        self.attempt = 0
        self.passed: PassedCatalog | None = None  # attached to a proxy: the lists seen pass
        self._attach_resume = AttachResume(on_new_proxy=self._new_proxy)
        self._stop = anyio.Event()
        self._renew = False  # the current session expired and a new one starts
        self._loaded = False  # the current session's catalog loaded
        # set once the current session's catalog is listed: what lists more (skills)
        # waits for it, so the requests go out in one order whatever the scheduling
        self.catalog_listed = anyio.Event()
        self._renewal = False  # the current session renews an expired one
        self._sequence = itertools.count(1)  # one numbering across reconnects
        self._runs: list[tuple[anyio.CancelScope, anyio.Event]] = []  # connections still up
        self._sessions: list[Session] = []  # every session made; shutdown closes them all
        self.stopping = False  # shutting down: no reconnect, no renewal
        self.era_memory = FileEraMemory()  # one: a restart recalls what the probe taught

    @property
    def catalog(self) -> dict[str, list[dict[str, Any]]]:
        """The catalog as listed (the state keeps it)."""
        return self.state.catalog

    @property
    def sequence(self) -> Iterator[int]:
        """The one numbering of this app's frames (a load run's sampled frames take it too)."""
        return self._sequence

    @property
    def connected(self) -> bool:
        return (
            self.session is not None
            and self.session.lost is None
            and self.session.protocol_version is not None
        )

    async def run(self) -> None:
        """One connection's life; call again (in a new worker) to reconnect.

        When an HTTP server says the session is gone (404 to a request carrying its
        session id), a fresh transport and session start at once, and again on a later
        expiry; a renewed session that expires before its catalog loaded is not renewed
        (the user sees why and presses r)."""
        if self.stopping:
            return
        run = (anyio.CancelScope(), anyio.Event())
        self._runs.append(run)
        try:
            with run[0]:
                renewal = False
                while await self._run_once(renewal) and not self.stopping:
                    renewal = True
        finally:
            run[1].set()
            self._runs.remove(run)

    async def shutdown(self) -> None:
        """End the session the one way there is (``Session.close``: the transport's close,
        which for stdio ends the server's whole process group) and wait for it, bounded.

        Quitting, a hangup, a terminate and the app's own teardown all come here, as the
        CLI's one call leaves its session; a connection being made is cancelled, its
        close still runs (it is shielded)."""
        self.stopping = True
        self._stop.set()
        runs = list(self._runs)
        for scope, _ in runs:
            scope.cancel()
        with anyio.move_on_after(SHUTDOWN_BOUND):
            for _, done in runs:
                await done.wait()
            for session in self._sessions:  # a cancelled run's close goes on: wait for it
                await session.close()
        self._sessions.clear()

    async def _run_once(self, renewal: bool, restarted: ServerExitedOnProbe | None = None) -> bool:
        """Connect, handshake, catalog, wait; True when the session expired and may renew.
        ``restarted``: the server ended on the era probe and is started once more."""
        self.attempt += 1
        self._renew = False
        self._loaded = False
        self.catalog_listed = anyio.Event()
        self._renewal = renewal
        stop = self._stop = anyio.Event()  # this connection's own: a reconnect makes another
        self.app.post_message(messages.Connecting(self.target.describe(), self.attempt, renewal))
        try:
            options = self.options
            transport = build_transport(
                self.target,
                timeout=options.timeout,
                max_timeout=options.max_timeout,
                auth=self.auth,
            )
            session = Session(
                transport,
                responders=self.responders,
                timeout=options.timeout,
                max_timeout=options.max_timeout,
                recorder=self.recorder,
                sequence=self._sequence,
                protocol_version=options.protocol_version or None,  # None: find the era
                era_memory=self.era_memory,
            )
            self._sessions = [s for s in self._sessions if not s.closed]  # closed ones go
            self._sessions.append(session)
            session.add_observer(self.state.observe)
            if self.observer is not None:
                session.add_observer(self.observer)
            if self.trace is not None:
                self.trace.attach(session)
            if isinstance(transport, AttachTransport):
                # a reconnect to the same proxy shows only what is new: the lists that
                # passed before stay known
                transport.resume = self._attach_resume
                self.passed = self.passed or PassedCatalog()
                session.add_observer(self.passed.observe)
            else:
                self.passed = None
            session.on_lost(lambda lost: self._on_lost(session, stop, lost))
            self.session = session
            self.client = McpClient(session)
            async with session:
                if restarted is not None:
                    note_restart(session, restarted)
                await session.initialize()
                self.state.attach(session, self.client)
                self.app.post_message(messages.Connected(renewal))
                await self._load_catalog()
                self._loaded = True
                self.catalog_listed.set()
                await stop.wait()
        except Exception as exc:  # every failure reaches the user as a message
            failure = first_failure(exc)
            on_probe = isinstance(failure, ServerExitedOnProbe)  # Disconnected not posted
            if on_probe and restarted is None and not self.stopping:  # a strict server
                return await self._run_once(renewal, cast(ServerExitedOnProbe, failure))
            error = _describe(exc)
            lost = self.session.lost if self.session is not None else None
            if lost is not None and not lost.expected and not on_probe:
                return self._renew  # Disconnected already says why, or we renew
            ended = _ended(self.session, failure)
            if ended is not None:
                error = ended.describe()
            self.app.post_message(messages.ConnectFailed(error, ended))
        return self._renew

    def _on_lost(self, session: Session, stop: anyio.Event, lost: ConnectionLost) -> None:
        stop.set()
        if session is not self.session or probing(session):
            # an old session's goodbye is not news; nor a strict server ending on the era
            # probe (it is started again at once)
            return
        expired = session_expired(session)
        if expired and session.protocol_version is not None and (self._loaded or not self._renewal):
            self._renew = True
            session.note(
                "the server's session expired (HTTP 404 to a request carrying its "
                "session id): starting a new session",
                severity="warning",
                renew="session-expired",
            )
            self.app.notify(
                "the server's session expired; starting a new session (requests "
                "in flight failed: run them again)",
                title="session expired",
                severity="warning",
                timeout=8,
            )
            return
        self.app.post_message(messages.Disconnected(lost))

    def stop(self) -> None:
        self._stop.set()

    def _new_proxy(self) -> None:
        """Re-attached to another proxy of the name (restarted): its lists are new."""
        if self.passed is not None:
            self.passed.clear()

    async def _load_catalog(self) -> None:
        """Each list the server has, for its watcher; attached to a proxy, the lists the
        host was given are the catalog (no request of ours), and later ones follow."""
        assert self.session is not None and self.client is not None
        caps = self.session.server_capabilities
        client, passed = self.client, self.passed
        for kind, about in KIND.items():
            if about.capability not in caps:
                self.state.catalog[kind] = []
                self.app.post_message(messages.CatalogLoaded(kind, []))
                continue
            client.watch_list(kind, self._make_watcher(kind))
            if passed is not None and kind in passed.lists:
                client.lists.seen(kind, passed.lists[kind])
                continue
            await self._relist(kind)
        if passed is not None:

            def follow(kind: str, items: list[dict[str, Any]]) -> None:
                if kind in client.lists.watched():
                    client.lists.seen(kind, items)

            passed.on_listing = follow

    async def _relist(self, kind: str) -> None:
        assert self.client is not None
        try:  # the watcher posts the list; a list_changed meanwhile is coalesced with it
            await self.client.refresh_list(kind)
        except Exception as exc:
            self.app.post_message(messages.CatalogLoaded(kind, [], error=_describe(exc)))

    async def relist(self) -> int:
        """List every kind again with requests of our own (the user asked); how many."""
        if not self.connected or self.client is None:
            return 0
        kinds = self.client.lists.watched()
        async with anyio.create_task_group() as tg:
            for kind in kinds:
                tg.start_soon(self._relist, kind)
        return len(kinds)

    def _make_watcher(self, kind: str) -> Callable[[ListUpdate], None]:
        def listed(update: ListUpdate) -> None:
            if update.change is not None and update.items == self.state.catalog.get(kind):
                return  # re-listed after list_changed, and nothing did: nothing to redraw
            self.state.catalog[kind] = update.items
            self.app.post_message(messages.CatalogLoaded(kind, update.items, change=update.change))

        return listed


def session_expired(session: Session | None) -> bool:
    """Whether the HTTP server ended ``session`` (404 to a request carrying its id)."""
    return session is not None and session.transport.session_expired


def _ended(session: Session | None, failure: BaseException) -> ConnectionLost | None:
    """A server that exited before it was written to fails the write ("could not write
    to the server"): its exit says more (its code, its last stderr lines). None when the
    failure is another, or the server still runs."""
    if session is None or not isinstance(failure, TransportError):
        return None
    return session.transport.exit_report()


def _describe(exc: BaseException) -> str:
    exc = first_failure(exc)
    text = str(exc) or type(exc).__name__
    if type(exc).__module__.startswith(("inspector", "anyio")):
        return text
    return f"{type(exc).__name__}: {text}\n" + "".join(traceback.format_exception(exc)[-3:])
