"""``mcp-inspect mcp``: the inspector as an MCP server over stdio, for coding agents.

    mcp-inspect mcp              serve (an agent's MCP config starts this)
    mcp-inspect mcp --skill      print the agent skill file (when to use which tool)

The server is :mod:`inspector.bridge`; each connection it opens is recorded to the
sessions folder unless ``--no-record``.
"""

from __future__ import annotations

import argparse
import sys

from inspector.commands.options import ArgParser, Subparsers, UsageError

NAME = "mcp"


def add_parser(subparsers: Subparsers[ArgParser]) -> ArgParser:
    parser = subparsers.add_parser(
        NAME,
        description="An MCP server over stdio whose tools connect to MCP servers, list, "
        "call, read the wire log, lint, diff, replay and save sessions. Add it to an "
        "agent's MCP configuration (see README); --skill prints the agent's guide.",
    )
    parser.add_argument("--skill", action="store_true", help="print the agent skill file")
    parser.add_argument(
        "--no-record",
        action="store_true",
        help="do not record connections to the sessions folder (save then fails)",
    )
    return parser


def run(opts: argparse.Namespace, command: list[str]) -> int:
    if command:
        raise UsageError(f"mcp takes no server command, got: {' '.join(command)}")
    from inspector import bridge

    if opts.skill:
        sys.stdout.write(bridge.skill())
        return 0
    if sys.stdin.isatty():
        sys.stderr.write(
            "mcp-inspect mcp: serving MCP on stdin/stdout; it is meant to be started by an "
            "agent (see `mcp-inspect mcp --skill` and the README); Ctrl+D ends it\n"
        )
    from inspector.bridge.server import serve

    serve(record=not opts.no_record)
    return 0
