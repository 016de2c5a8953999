"""Run the TUI: on a live server, or on a saved session offline.

The command line (``inspector.commands``) parses the options, checks for a terminal
and builds the responders and the recorder; this module only runs the app.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

from inspector.engine.options import SessionOptions
from inspector.engine.responders import Responders
from inspector.record.indexed import IndexedSessionFile
from inspector.record.recorder import Recorder
from inspector.target import Target
from inspector.tui.app import InspectorApp
from inspector.tui.interactive_setup import interactive_responders
from inspector.tui.mode import Live, Replay
from inspector.workspace.recording import server_sources, workspace_servers


def run_inspector(
    target: Target,
    options: SessionOptions,
    *,
    responders: Responders,
    recorder: Recorder | None,
    trace: Any = None,
    prepare: Callable[[Target], None] | None = None,
    config: str | None = None,
) -> int:
    """The inspector on ``target``; unset responders are answered interactively (the
    roots editor starts from ``options.roots``). ``trace``: a live trace
    (``SessionTrace``) its sessions join; lost spans are a notice while the app runs
    (a line on stderr after). ``prepare``: the command line's settings (OAuth...) for a
    server ctrl+n adds; ``config``: the file whose server names ctrl+n takes too."""
    app = InspectorApp(
        Live(target),
        options=options,
        responders=responders,
        recorder=recorder,
        handle_signals=True,  # a hangup or SIGTERM quits like q: the server stopped first
        prepare=prepare,
        config=config,
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
    """A saved session opened offline (``mcp-inspect replay FILE``); a workspace's, as
    the same workspace (``replay_app``)."""
    app, parts = replay_app(source, title)
    try:
        app.run()
    finally:
        for part in parts:
            part.close()
    return app.return_code or 0


def replay_app(
    source: IndexedSessionFile, title: str
) -> tuple[InspectorApp, list[IndexedSessionFile]]:
    """The app on a recording: one server's, or a workspace's as the same workspace
    offline (one replayed view per server, each reading its own frames from the one
    file; the whole file, indexed, is the merged log). Returns the app and the
    sources to close."""
    if workspace_servers(source.header) is None:
        return InspectorApp(Replay(source, title)), []
    parts = server_sources(source.path)
    (name, first), *others = parts
    app = InspectorApp(Replay(first, f"{title} · {name}"))
    app.views[0].name = app.views[0].status.name = name
    for other, part in others:
        app.workspace.add_replay(other, part, f"{title} · {other}")
    source.index_all()
    app.workspace.merged_source = source
    return app, [part for _, part in parts]


def run_workspace(
    servers: list[tuple[str, Target, Recorder | None]],
    options: SessionOptions,
    *,
    responders: Responders,
    config: str | None,
    prepare: Callable[[Target], None] | None = None,
) -> int:
    """Several servers at once (``--config`` without ``--server``, repeated ``--target``):
    each connects in parallel; W lists them, ctrl+n adds one (``prepare``: the command
    line's settings for it, OAuth... as the others got)."""
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
        prepare=prepare,
    )
    interactive_responders(app, responders, roots=list(options.roots))
    app.run()
    return app.return_code or 0
