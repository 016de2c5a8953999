"""One connection as the command line opens it: the target's transport (with its OAuth
hook for an HTTP server), the session (era found by a probe, or remembered), the opening.

``--cli``, ``mcp-inspect test`` and the pytest plugin's fixture connect through here, so
a server is reached the same way by each.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import AsyncExitStack
from types import TracebackType
from typing import TYPE_CHECKING, Any

from inspector.commands.failures import CliError, ExitCode
from inspector.engine.responders import Responders
from inspector.engine.session import Session
from inspector.record.era_memory import FileEraMemory
from inspector.record.format import Redactor, SessionHeader
from inspector.record.recorder import Recorder, redact_target
from inspector.target import Target, build_transport, target_info
from inspector.wire.events import WireEvent
from inspector.wire.transport import Transport

if TYPE_CHECKING:
    from inspector.engine.session import EventRecorder
    from inspector.export.live import LiveExport, SessionTrace


def authorizer(target: Target) -> Any:
    """The OAuth hook of an HTTP target (None: stdio, --no-auth, or an Authorization
    header given): a person at this terminal completes a browser authorization (the URL on
    stderr, the redirect on a loopback listener or pasted), unless the grant needs none."""
    if target.url is None or target.oauth is None:
        return None
    from inspector.auth.errors import StoreError
    from inspector.auth.options import make_authorizer
    from inspector.auth.terminal import TerminalInteraction

    try:
        return make_authorizer(
            target.url, target.headers, target.oauth, TerminalInteraction(paste=target.oauth.paste)
        )
    except StoreError as exc:
        raise CliError("usage", str(exc), ExitCode.USAGE) from exc


def trace_header(target: Target, recorder: EventRecorder | None) -> tuple[SessionHeader, Redactor]:
    """The header and redactor a live trace takes its ids and frames from: the session
    file's (so its export later gives the same spans), else a header of its own (a load
    run's user: each user its own trace)."""
    if isinstance(recorder, Recorder):
        return recorder.header, recorder.redactor
    from inspector.export.live import context_from_env

    redactor = getattr(recorder, "redactor", None)
    if not isinstance(redactor, Redactor):
        redactor = Redactor(target.secrets())
    target_json = redact_target(target_info(target), redactor)
    return SessionHeader(target=target_json, extra=context_from_env()), redactor


class Connection:
    """``async with Connection(target, ...) as session``: connected and opened; on the way
    out the session is closed (a stdio server's whole process group stopped) and the OAuth
    hook with it. ``transport`` stays readable after a failure (``session_expired``)."""

    def __init__(
        self,
        target: Target,
        *,
        responders: Responders | None = None,
        recorder: Recorder | None = None,
        timeout: float = 60.0,
        max_timeout: float | None = None,
        protocol_version: str | None = None,
        observers: Sequence[Callable[[WireEvent], None]] = (),
        trace: LiveExport | None = None,
    ) -> None:
        """``observers`` see every event from the first (the opening's too); ``trace``
        (``--otlp-endpoint``, ``--propagate``) sees them too and stamps the requests."""
        self.target = target
        self.responders = responders or Responders()
        self.recorder = recorder
        self.timeout = timeout
        self.max_timeout = max_timeout
        self.protocol_version = protocol_version
        self.observers = list(observers)
        self.trace = trace
        self._trace: SessionTrace | None = None
        self.transport: Transport | None = None
        self.session: Session | None = None
        self._stack: AsyncExitStack | None = None

    @property
    def session_expired(self) -> bool:
        """The HTTP transport saw its session expire (404 to a request carrying its id)."""
        return self.transport is not None and self.transport.session_expired

    async def __aenter__(self) -> Session:
        async with AsyncExitStack() as stack:
            auth = authorizer(self.target)
            if auth is not None:
                stack.push_async_callback(auth.aclose)
                if self.recorder is not None:
                    auth.add_secret_sink(self.recorder.redactor.add_secret)
            self.transport = build_transport(
                self.target, timeout=self.timeout, max_timeout=self.max_timeout, auth=auth
            )
            session = Session(
                self.transport,
                responders=self.responders,
                timeout=self.timeout,
                max_timeout=self.max_timeout,
                recorder=self.recorder,
                protocol_version=self.protocol_version,
                era_memory=FileEraMemory(),
            )
            for observer in self.observers:
                session.add_observer(observer)
            if self.trace is not None:
                self._trace = self.trace.session(*trace_header(self.target, self.recorder))
                self._trace.attach(session)
                stack.callback(self._trace.finish)  # once the session has closed
            await stack.enter_async_context(session)
            await session.initialize()
            self.session = session
            self._stack = stack.pop_all()
        return session

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> bool | None:
        assert self._stack is not None
        return await self._stack.__aexit__(exc_type, exc, tb)
