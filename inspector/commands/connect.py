"""One connection as the command line opens it: :class:`inspector.connection.Connection`
(the target's transport, the session, the opening) with the terminal's OAuth hook.

``--cli``, ``mcp-inspect test`` and the pytest plugin's fixture connect through here, so
a server is reached the same way by each.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from inspector import connection
from inspector.commands.failures import CliError, ExitCode
from inspector.engine.responders import Responders
from inspector.engine.session import Observer
from inspector.record.recorder import Recorder
from inspector.target import Target


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
    ) -> None:
        super().__init__(
            target,
            authorize=authorizer,
            responders=responders,
            recorder=recorder,
            timeout=timeout,
            max_timeout=max_timeout,
            protocol_version=protocol_version,
            observers=observers,
        )
