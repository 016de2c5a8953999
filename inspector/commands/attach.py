"""``mcp-inspect attach [NAME]``: the inspector on a running proxy's live session.

The log fills with the host's, the inspectors' and the server's traffic as it happens
(the past first); calls from the forms go into the same server connection under ids of
their own; the server's requests they cause come to the TUI's dialogs. Quitting
detaches: the proxy, the host and the server carry on.
"""

from __future__ import annotations

import argparse
import sys

import anyio

from inspector.commands.options import (
    PROG,
    ArgParser,
    Subparsers,
    UsageError,
    add_recording_options,
    default_session_path,
    make_recorder,
    require_terminal,
    session_options,
)
from inspector.engine.responders import Responders
from inspector.proxy.attach import live_proxies, pick_proxy
from inspector.proxy.runtime import RuntimeDirError
from inspector.target import Target

NAME = "attach"


def add_parser(subparsers: Subparsers[ArgParser]) -> ArgParser:
    parser = subparsers.add_parser(
        NAME,
        description="Watch a running proxy's traffic live and call into its server "
        "connection. NAME is the proxy's name or pid (see mcp-inspect proxies); "
        "without it, the only running proxy.",
    )
    parser.add_argument("name", nargs="?", metavar="NAME", help="the proxy's name or pid")
    parser.add_argument(
        "--timeout",
        type=float,
        default=60.0,
        help="per-request timeout in seconds, reset by progress (default 60)",
    )
    parser.add_argument(
        "--max-timeout", type=float, default=600.0, help="hard maximum per request (default 600)"
    )
    add_recording_options(parser)
    return parser


def run(opts: argparse.Namespace, command: list[str]) -> int:
    if command:
        raise UsageError(f"attach takes a proxy's name, not a command: {' '.join(command)}")
    try:
        info = pick_proxy(anyio.run(live_proxies), opts.name)
    except (ValueError, RuntimeDirError) as exc:
        raise UsageError(str(exc)) from exc
    require_terminal(f"the TUI needs a terminal; `{PROG} proxies` lists the running proxies")
    target = Target(attach=str(info.path), name=info.name, transport="proxy")
    path = None
    if not opts.no_record:
        path = opts.record or str(default_session_path(Target(name=f"attach-{info.name}")))
    recorder = make_recorder(opts, target, path, {"attached": {"proxy": info.name}})
    try:
        from inspector.tui.launch import run_inspector  # Textual loads only here

        return run_inspector(
            target, session_options(opts), responders=Responders(), recorder=recorder
        )
    finally:
        if recorder is not None:
            recorder.close()
            sys.stderr.write(f"{PROG}: session saved to {recorder.path}\n")
