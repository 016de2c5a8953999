"""One connection as the command line and the bridge open it: the target's transport (with
its OAuth hook for an HTTP server), the session (era found by a probe, or remembered),
the opening.

``--cli``, ``load``, ``mcp-inspect test`` and ``mcp-inspect mcp`` (the bridge) connect
through here, so a server is reached the same way by each. How a person takes part in an
OAuth authorization is the caller's (``authorize``): the command line asks at the
terminal, the bridge only uses the token store.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator, Sequence
from contextlib import AsyncExitStack
from types import TracebackType
from typing import Any

from inspector.engine.era_detect import note_restart
from inspector.engine.request_errors import ServerExitedOnProbe, first_failure
from inspector.engine.responders import Responders
from inspector.engine.session import Observer, Session
from inspector.record.era_memory import FileEraMemory
from inspector.record.recorder import Recorder
from inspector.record.redact import Redactor
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
        redactors: Sequence[Redactor] = (),
    ) -> None:
        """``observers`` see every event from the first (the opening's too); ``joins``
        see the session itself before it opens; ``redactors`` (beside the session file's)
        are told every token the OAuth hook learns (what stderr is redacted by)."""
        self.target = target
        self.authorize = authorize
        self.responders = responders or Responders()
        self.recorder = recorder
        self.timeout = timeout
        self.max_timeout = max_timeout
        self.protocol_version = protocol_version
        self.observers = list(observers)
        self.joins = list(joins)
        self.redactors = list(redactors)
        self.transport: Transport | None = None
        self.session: Session | None = None
        self._stack: AsyncExitStack | None = None

    @property
    def session_expired(self) -> bool:
        """The HTTP transport saw its session expire (404 to a request carrying its id)."""
        return self.transport is not None and self.transport.session_expired

    async def __aenter__(self) -> Session:
        """Connect and open. A stdio server that ended on the era probe (a strict one: an
        unknown method and it quits) is started once more and opened with ``initialize``,
        the log saying so."""
        async with AsyncExitStack() as stack:
            auth = self.authorize(self.target)
            if auth is not None:
                stack.push_async_callback(auth.aclose)
                for redactor in self._redactors():  # the tokens it learns: out of the file
                    auth.add_secret_sink(redactor.add_secret)
            memory = FileEraMemory()  # one, so a second start recalls the first's verdict
            sequence = itertools.count(1)  # one numbering in the session file
            restarted: ServerExitedOnProbe | None = None
            while True:
                try:
                    async with AsyncExitStack() as attempt:
                        session = await self._open(attempt, auth, memory, sequence, restarted)
                        opened = attempt.pop_all()
                    break
                except BaseException as exc:
                    failure = first_failure(exc)
                    if restarted is not None or not isinstance(failure, ServerExitedOnProbe):
                        raise
                    restarted = failure  # the new session's first note says so
            stack.push_async_exit(opened)
            self.session = session
            self._stack = stack.pop_all()
        return session

    def _redactors(self) -> list[Redactor]:
        """Every redactor told the OAuth tokens: the session file's, then ``redactors``."""
        kept = [self.recorder.redactor] if self.recorder is not None else []
        return list({id(r): r for r in [*kept, *self.redactors]}.values())

    async def _open(
        self,
        stack: AsyncExitStack,
        auth: Any,
        memory: FileEraMemory,
        sequence: Iterator[int],
        restarted: ServerExitedOnProbe | None,
    ) -> Session:
        """One start of the server and the session's opening, closed by ``stack``."""
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
            era_memory=memory,
            sequence=sequence,
        )
        for observer in self.observers:
            session.add_observer(observer)
        for join in self.joins:
            stack.callback(join(session))  # called once the session has closed
        await stack.enter_async_context(session)
        if restarted is not None:
            note_restart(session, restarted)
        await session.initialize()
        return session

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> bool | None:
        assert self._stack is not None
        return await self._stack.__aexit__(exc_type, exc, tb)
