"""The default mode (no subcommand): the TUI on TARGET, or one headless call with ``--cli``.

mcp-inspect                              the TUI on the bundled demo server
mcp-inspect -- python server.py          the TUI on a stdio server
mcp-inspect https://host/mcp             the TUI on an HTTP server
mcp-inspect --cli --method tools/list -- python server.py
mcp-inspect --config FILE                every server of the file (a workspace)
mcp-inspect --target "python a.py" --target https://host/mcp    a workspace of two
"""

from __future__ import annotations

import argparse
import sys
from functools import partial
from typing import TYPE_CHECKING

from inspector import __version__
from inspector.commands import cli_options, workspace
from inspector.commands.oauth_options import add_oauth_options
from inspector.commands.options import (
    PROG,
    add_answer_options,
    add_connection_options,
    add_recording_options,
    add_trace_options,
    default_session_path,
    live_export,
    make_recorder,
    names_no_server,
    private_state_dir,
    require_terminal,
    resolve_target,
    responders_from,
    session_options,
    with_oauth,
)

if TYPE_CHECKING:
    from inspector.target import Target


def add_options(parser: argparse.ArgumentParser) -> None:
    """TARGET and every option of the default mode."""
    parser.add_argument("target", nargs="*", metavar="TARGET", help="URL or server command")
    parser.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    add_connection_options(parser)
    parser.add_argument(
        "--protocol-version",
        default=None,
        help="pin the protocol version (2026-07-28: the stateless protocol; "
        "2025-11-25 and older: the initialize handshake). Default: the newest era the "
        "server speaks, found with one server/discover probe and remembered per server",
    )
    add_recording_options(parser)
    add_trace_options(parser)
    add_answer_options(parser)
    cli_options.add_options(parser)
    add_oauth_options(parser)
    workspace.add_options(parser)


def run(opts: argparse.Namespace, command: list[str]) -> int:
    """``command``: the words after ``--`` (a server command)."""
    words = list(opts.target) + command
    if workspace.wanted(opts, words):
        return workspace.run(opts, words)
    target = resolve_target(opts, words)
    if opts.cli:
        from inspector.commands import headless  # start-up: what --help never needs

        return headless.run_from_options(opts, target, demo=names_no_server(opts, words))
    return run_tui(opts, target)


def run_tui(opts: argparse.Namespace, target: Target) -> int:
    """The TUI on ``target``, recording to a new session file unless told otherwise."""
    require_terminal("the TUI needs a terminal; use --cli for one-shot calls")
    responders = responders_from(opts)
    path = None if opts.no_record else (opts.record or str(default_session_path(target)))
    if path is not None and not opts.record:
        private_state_dir()
    trace = live_export(opts)
    recorder = make_recorder(opts, target, path)
    try:
        # Start-up: Textual loads only when the TUI opens; --cli never imports it.
        from inspector.commands.connect import trace_header
        from inspector.tui.launch import run_inspector

        return run_inspector(
            target,
            session_options(opts),
            responders=responders,
            recorder=recorder,
            trace=trace.session(*trace_header(target, recorder)) if trace else None,
            prepare=partial(with_oauth, opts),  # ctrl+n's servers: the same OAuth
            config=opts.config,  # ctrl+n takes its other servers' names
        )
    finally:
        if trace is not None:
            trace.close()
        if recorder is not None:
            recorder.close()
            sys.stderr.write(f"{PROG}: session saved to {recorder.path}\n")
