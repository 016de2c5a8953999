"""Start the TUI from parsed command-line options (recording on by default)."""

from __future__ import annotations

import argparse
import os
import re
import sys
from datetime import datetime
from pathlib import Path
from typing import Any

from inspector.target import Target


def state_dir() -> Path:
    """Where sessions go by default: $XDG_STATE_HOME/mcp-inspect/sessions."""
    base = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(base) / "mcp-inspect" / "sessions"


def default_session_path(target: Target) -> Path:
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    name = target.name or (target.url or target.command or "server")
    slug = re.sub(r"[^A-Za-z0-9]+", "-", Path(name).name if not target.url else name)
    slug = slug.strip("-")[:40] or "server"
    return state_dir() / f"{stamp}-{slug}.jsonl"


def launch_tui(target: Target, opts: argparse.Namespace) -> int:
    from inspector.cli import UsageError, make_recorder, responders_from

    if not (sys.stdin.isatty() and sys.stderr.isatty()) and \
            not os.environ.get("MCP_INSPECT_FORCE_TUI"):
        raise UsageError("the TUI needs a terminal; use --cli for one-shot calls")
    path = None if opts.no_record else (opts.record or str(default_session_path(target)))
    recorder = make_recorder(opts, target, path)
    from inspector.tui.app import InspectorApp
    from inspector.tui.interactive_setup import interactive_responders

    responders: Any = responders_from(opts)
    app = InspectorApp(target, responders=responders, recorder=recorder, timeout=opts.timeout,
                       max_timeout=opts.max_timeout, protocol_version=opts.protocol_version)
    interactive_responders(app, responders, roots=opts.root)
    try:
        app.run()
        code = app.return_code
    finally:
        if recorder is not None:
            recorder.close()
            sys.stderr.write(f"mcp-inspect: session saved to {recorder.path}\n")
    return code or 0


def launch_replay(path: Path) -> int:
    """Open a saved session in the TUI, offline (``mcp-inspect replay FILE``)."""
    from inspector.cli import UsageError
    from inspector.record.format import SessionFileError
    from inspector.record.indexed import IndexedSessionFile

    if not (sys.stdin.isatty() and sys.stderr.isatty()) and \
            not os.environ.get("MCP_INSPECT_FORCE_TUI"):
        raise UsageError("the TUI needs a terminal; use `mcp-inspect --cli replay FILE "
                         "--against TARGET` for a headless re-run")
    try:
        source = IndexedSessionFile(path)
    except SessionFileError as exc:
        raise UsageError(str(exc)) from exc
    from inspector.tui.app import InspectorApp

    try:
        app = InspectorApp(None, source=source, replay_title=Path(path).name)
        app.run()
        code = app.return_code
    finally:
        source.close()
    return code or 0
