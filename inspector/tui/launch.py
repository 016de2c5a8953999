"""Run the TUI: on a live server, or on a saved session offline.

The command line (``inspector.commands``) parses the options, checks for a terminal
and builds the responders and the recorder; this module only runs the app.
"""

from __future__ import annotations

import sys
from typing import Any

from inspector.engine.options import SessionOptions
from inspector.engine.responders import Responders
from inspector.record.indexed import IndexedSessionFile
from inspector.record.recorder import Recorder
from inspector.target import Target
from inspector.tui.app import InspectorApp
from inspector.tui.interactive_setup import interactive_responders
from inspector.tui.mode import Live, Replay


def run_inspector(
    target: Target,
    options: SessionOptions,
    *,
    responders: Responders,
    recorder: Recorder | None,
    trace: Any = None,
) -> int:
    """The inspector on ``target``; unset responders are answered interactively (the
    roots editor starts from ``options.roots``). ``trace``: a live trace
    (``SessionTrace``) its sessions join; lost spans are a notice while the app runs
    (a line on stderr after)."""
    app = InspectorApp(
        Live(target),
        options=options,
        responders=responders,
        recorder=recorder,
        handle_signals=True,  # a hangup or SIGTERM quits like q: the server stopped first
    )
    interactive_responders(app, responders, roots=list(options.roots))
    if trace is not None:
        app.server.trace = trace
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
    app = InspectorApp(Replay(source, title))
    app.run()
    return app.return_code or 0


def run_workspace(
    servers: list[tuple[str, Target, Recorder | None]],
    options: SessionOptions,
    *,
    responders: Responders,
    config: str | None,
) -> int:
    """Several servers at once (``--config`` without ``--server``, repeated ``--target``):
    each connects in parallel; W lists them, ctrl+n adds one."""
    (name, first, recorder), *others = servers
    first.name = first.name or name
    app = InspectorApp(
        Live(first),
        options=options,
        responders=responders,
        recorder=recorder,
        handle_signals=True,
        workspace=others,
        config=config,
    )
    interactive_responders(app, responders, roots=list(options.roots))
    app.run()
    return app.return_code or 0
