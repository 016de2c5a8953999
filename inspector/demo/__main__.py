"""``python -m inspector.demo``: run the demo MCP server on stdin/stdout."""

from __future__ import annotations

import argparse
import contextlib
import sys

from inspector.demo.server import DemoServer


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m inspector.demo", description="The mcp-inspect demo MCP server (stdio)."
    )
    parser.add_argument(
        "--variant",
        choices=("default", "changed"),
        default="default",
        help="'changed' alters a few answers, for replay-diff tests",
    )
    parser.add_argument(
        "--tick",
        type=float,
        default=2.0,
        metavar="SECONDS",
        help="how often demo://counter changes while subscribed (default 2)",
    )
    parser.add_argument(
        "--eras",
        choices=("handshake", "all"),
        default="handshake",
        help="'all': speak 2026-07-28 too (server/discover, stateless requests), so a "
        "client finds that era by itself; default: the handshake eras only",
    )
    parser.add_argument(
        "--http",
        type=int,
        metavar="PORT",
        help="serve Streamable HTTP on http://127.0.0.1:PORT/mcp (loopback only; 0: any "
        "free port) instead of stdio; both eras, as with --eras all",
    )
    args = parser.parse_args(argv)
    if args.http is not None:
        from inspector.demo.http import serve  # only the HTTP mode needs http.server

        serve(args.http, args.variant, max(0.05, args.tick))
        return 0
    out = sys.stdout.buffer
    sys.stdout = sys.stderr  # a stray print() must never corrupt the protocol stream
    server = DemoServer(out, variant=args.variant, tick=max(0.05, args.tick), eras=args.eras)
    with contextlib.suppress(KeyboardInterrupt):
        server.serve(sys.stdin.buffer)
    return 0


if __name__ == "__main__":
    sys.exit(main())
