"""``replay FILE --serve --listen HOST:PORT``: the recording served over Streamable HTTP.

The proxy's HTTP front (``proxy --listen``) with ``replay FILE --serve`` as the server
behind it: each host session (and the stateless requests of 2026-07-28 hosts) gets its
own ``--serve`` process answering from the recording, so HTTP clients and hosts are
tested without the real server. No second HTTP server: the same loopback rule,
Host/Origin checks, token (``proxies --token replay-STEM`` prints it; ``--no-auth-front``
for none), caps and era handling as the proxy's front.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import anyio

from inspector.commands.exits import ExitCode
from inspector.commands.options import PROG, UsageError, make_recorder
from inspector.commands.proxy_front import front_setup
from inspector.proxy.loopback import parse_listen
from inspector.proxy.run import ProxyError, ProxySetup, run_http_proxy
from inspector.target import Target
from inspector.transports.stdio import StdioTransport


def front_name(path: Path) -> str:
    """The name the front's token is kept under (``proxies --token NAME``)."""
    return f"replay-{path.stem}"


def serve_over_http(opts: argparse.Namespace, path: Path) -> int:
    """Serve ``path`` on ``opts.listen`` until a signal stops it."""
    try:
        listen = parse_listen(opts.listen)
    except ValueError as exc:
        raise UsageError(str(exc)) from exc
    name = front_name(path)
    token, limits, idle_timeout = front_setup(opts, name, True, "replay")
    # each connection to "the server" is a stdio replay of the same file
    serve = ["-m", "inspector", "replay", str(path.resolve()), "--serve"]
    serve += ["--timeout", str(opts.timeout)]
    target = Target(command=sys.executable, args=serve, name=name)
    recorder = None
    if opts.record and not opts.no_record:
        about = {"proxy": {"name": name, "front": "http"}}
        recorder = make_recorder(opts, target, opts.record, about)
    setup = ProxySetup(
        name=name,
        describe=f"the recording {path}",
        make_back=lambda: StdioTransport(sys.executable, serve),  # run relays it
        recorder=recorder,
        attach=False,
        idle_timeout=idle_timeout,
        front_token=token,
        limits=limits,
        command="replay",
    )
    try:
        code: int = anyio.run(run_http_proxy, setup, listen)
    except ProxyError as exc:
        sys.stderr.write(f"{PROG} replay: {exc}\n")
        return ExitCode.CONNECTION
    finally:
        if recorder is not None:
            recorder.close()
            sys.stderr.write(f"{PROG} replay: session saved to {recorder.path}\n")
    return code
