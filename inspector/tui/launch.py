"""Run the TUI: on a live server, or on a saved session offline.

The command line (``inspector.commands``) parses the options, checks for a terminal
and builds the responders and the recorder; this module only runs the app.
"""

from __future__ import annotations

import sys
from typing import Any

from inspector.engine.responders import Responders
from inspector.record.indexed import IndexedSessionFile
from inspector.record.recorder import Recorder
from inspector.target import Target
from inspector.tui.app import InspectorApp
from inspector.tui.interactive_setup import interactive_responders


def run_inspector(
    target: Target,
    *,
    responders: Responders,
    recorder: Recorder | None,
    timeout: float,
    max_timeout: float | None,
    protocol_version: str | None,
    roots: list[str],
    trace: Any = None,
) -> int:
    """The inspector on ``target``; unset responders are answered interactively.
    ``trace``: a live trace (``SessionTrace``) its sessions join; lost spans are a notice
    while the app runs (a line on stderr after)."""
    app = InspectorApp(
        target,
        responders=responders,
        recorder=recorder,
        timeout=timeout,
        max_timeout=max_timeout,
        protocol_version=protocol_version,
        handle_signals=True,  # a hangup or SIGTERM quits like q: the server stopped first
    )
    interactive_responders(app, responders, roots=roots)
    if trace is not None:
        app.trace = trace
        trace.export.warn = lambda text: say_lost_spans(app, text)
    app.run()
    return app.return_code or 0


def say_lost_spans(app: InspectorApp, text: str) -> None:
    """Spans lost: a notice while the app runs, a line on stderr after."""
    if app.is_running:
        app.notify(text, title="OpenTelemetry", severity="warning", timeout=10)
    else:
        sys.stderr.write(f"mcp-inspect: warning: {text}\n")


def run_replay(source: IndexedSessionFile, title: str) -> int:
    """A saved session opened offline (``mcp-inspect replay FILE``)."""
    app = InspectorApp(None, source=source, replay_title=title)
    app.run()
    return app.return_code or 0
