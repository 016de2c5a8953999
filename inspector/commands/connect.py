"""One connection as the command line opens it: :class:`inspector.connection.Connection`
(the target's transport, the session, the opening) with the terminal's OAuth hook.

``--cli``, ``mcp-inspect test`` and the pytest plugin's fixture connect through here, so
a server is reached the same way by each.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from inspector import connection
from inspector.engine.responders import Responders
from inspector.engine.session import EventRecorder, Observer, Session
from inspector.record.format import Redactor, SessionHeader
from inspector.record.recorder import Recorder, redact_target
from inspector.record.state import StateFileError, say_once
from inspector.target import Target, target_info

if TYPE_CHECKING:
    from inspector.export.live import LiveExport


def authorizer(target: Target) -> Any:
    """The OAuth hook of an HTTP target (None: stdio, --no-auth, or an Authorization
    header given): a person at this terminal completes a browser authorization (the URL on
    stderr, the redirect on a loopback listener or pasted), unless the grant needs none."""
    if target.url is None or target.oauth is None:
        return None
    from dataclasses import replace

    from inspector.auth.errors import StoreError
    from inspector.auth.options import make_authorizer
    from inspector.auth.terminal import TerminalInteraction

    interaction = TerminalInteraction(paste=target.oauth.paste)
    try:
        return make_authorizer(target.url, target.headers, target.oauth, interaction)
    except StoreError as exc:  # as the TUI does: tokens in memory only, and say why
        say_once(StateFileError(str(exc)), "OAuth tokens are kept in memory only")
        settings = replace(target.oauth, store=False)
        return make_authorizer(target.url, target.headers, settings, interaction)


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


def joining(
    trace: LiveExport, target: Target, recorder: EventRecorder | None
) -> Callable[[Session], Callable[[], object]]:
    """A connection's join for ``trace``: each session its trace, ended when it closes."""

    def join(session: Session) -> Callable[[], object]:
        joined = trace.session(*trace_header(target, recorder))
        joined.attach(session)
        return joined.finish

    return join


class Connection(connection.Connection):
    """The headless :class:`inspector.connection.Connection` (moved there so the bridge can
    open sessions the same way), with the terminal's OAuth hook: a person here authorizes."""

    def __init__(
        self,
        target: Target,
        *,
        responders: Responders | None = None,
        recorder: Recorder | None = None,
        timeout: float = 60.0,
        max_timeout: float | None = None,
        protocol_version: str | None = None,
        observers: Sequence[Observer] = (),
        trace: LiveExport | None = None,
        redactor: Redactor | None = None,
    ) -> None:
        """``trace`` (``--otlp-endpoint``, ``--propagate``): each session joins it;
        ``redactor``: what stderr is redacted by, told the tokens OAuth learns."""
        super().__init__(
            target,
            authorize=authorizer,
            responders=responders,
            recorder=recorder,
            timeout=timeout,
            max_timeout=max_timeout,
            protocol_version=protocol_version,
            observers=observers,
            joins=[joining(trace, target, recorder)] if trace is not None else [],
            redactors=[redactor] if redactor is not None else [],
        )
