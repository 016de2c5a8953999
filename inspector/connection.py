"""One connection as the command line and the bridge open it: the target's transport (with
its OAuth hook for an HTTP server), the session (era found by a probe, or remembered),
the opening.

``--cli``, ``load``, ``mcp-inspect test`` and ``mcp-inspect mcp`` (the bridge) connect
through here, so a server is reached the same way by each. How a person takes part in an
OAuth authorization is the caller's (``authorize``): the command line asks at the
terminal, the bridge only uses the token store.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import AsyncExitStack
from types import TracebackType
from typing import Any

from inspector.engine.responders import Responders
from inspector.engine.session import Observer, Session
from inspector.record.era_memory import FileEraMemory
from inspector.record.recorder import Recorder
from inspector.target import Target, build_transport
from inspector.wire.transport import Transport

Authorize = Callable[[Target], Any]  # the target's OAuth hook, or None
# called with the session before it opens; what it returns is called once it has closed
# (a live trace: ``--otlp-endpoint``/``--propagate``)
Join = Callable[[Session], Callable[[], object]]


def no_authorizer(target: Target) -> Any:
    return None


class Connection:
    """``async with Connection(target, ...) as session``: connected and opened; on the way
    out the session is closed (a stdio server's whole process group stopped) and the OAuth
    hook with it. ``transport`` stays readable after a failure (``session_expired``)."""

    def __init__(
        self,
        target: Target,
        *,
        authorize: Authorize = no_authorizer,
        responders: Responders | None = None,
        recorder: Recorder | None = None,
        timeout: float = 60.0,
        max_timeout: float | None = None,
        protocol_version: str | None = None,
        observers: Sequence[Observer] = (),
        joins: Sequence[Join] = (),
    ) -> None:
        """``observers`` see every event from the first (the opening's too); ``joins``
        see the session itself before it opens."""
        self.target = target
        self.authorize = authorize
        self.responders = responders or Responders()
        self.recorder = recorder
        self.timeout = timeout
        self.max_timeout = max_timeout
        self.protocol_version = protocol_version
        self.observers = list(observers)
        self.joins = list(joins)
        self.transport: Transport | None = None
        self.session: Session | None = None
        self._stack: AsyncExitStack | None = None

    @property
    def session_expired(self) -> bool:
        """The HTTP transport saw its session expire (404 to a request carrying its id)."""
        return self.transport is not None and self.transport.session_expired

    async def __aenter__(self) -> Session:
        async with AsyncExitStack() as stack:
            auth = self.authorize(self.target)
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
            for join in self.joins:
                stack.callback(join(session))  # called once the session has closed
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
