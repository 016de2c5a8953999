"""``mcp-inspect proxies``: the running proxies this user can attach to."""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict

import anyio

from inspector.commands.options import PROG, ArgParser, Subparsers, UsageError
from inspector.proxy.attach import live_proxies
from inspector.proxy.fronttoken import read_token, token_path
from inspector.proxy.runtime import RuntimeDirError

NAME = "proxies"


def add_parser(subparsers: Subparsers[ArgParser]) -> ArgParser:
    parser = subparsers.add_parser(
        NAME,
        description="The proxies of this user that are running now, oldest first.",
    )
    parser.add_argument("--json", action="store_true", help="one JSON array on stdout")
    parser.add_argument(
        "--token",
        metavar="NAME",
        help="print the token hosts present to the HTTP front of the proxy NAME "
        "(proxy --listen --name NAME); it is kept across restarts",
    )
    return parser


def run(opts: argparse.Namespace, command: list[str]) -> int:
    if command:
        raise UsageError("proxies takes no command")
    if opts.token is not None:
        return _token(opts.token)
    try:
        found = anyio.run(live_proxies)
    except RuntimeDirError as exc:
        raise UsageError(str(exc)) from exc
    if opts.json:
        rows = [{**asdict(p), "path": str(p.path)} for p in found]
        sys.stdout.write(json.dumps(rows, indent=2) + "\n")
        return 0
    if not found:
        sys.stdout.write(
            f"no proxy is running; start one with `{PROG} proxy -- COMMAND` in the host's config\n"
        )
        return 0
    head = ("NAME", "PID", "FRONT", "INSPECTORS", "STARTED", "SERVER")
    rows_text = [
        (p.name, str(p.pid), p.front, str(p.inspectors), p.started, p.target) for p in found
    ]
    widths = [max(len(r[i]) for r in [head, *rows_text]) for i in range(len(head) - 1)]
    for row in [head, *rows_text]:
        cells = [cell.ljust(width) for cell, width in zip(row, widths, strict=False)]
        sys.stdout.write("  ".join([*cells, row[-1]]) + "\n")
    return 0


def _token(name: str) -> int:
    """The front token of the proxy ``name``, as a host's config wants it."""
    token = read_token(name)
    if token is None:
        raise UsageError(
            f"no HTTP front token for a proxy named {name!r} ({token_path(name)}); it is made "
            f"by the first `{PROG} proxy --listen HOST:PORT --name {name} ...`"
        )
    sys.stdout.write(token + "\n")
    return 0
