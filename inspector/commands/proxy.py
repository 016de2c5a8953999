"""``mcp-inspect proxy``: sit between a real host and a server, and record every frame.

    proxy [--name NAME] -- CMD ARGS...           the host starts this instead of the server
    proxy [--name NAME] URL [-H 'K: V'] [OAuth]  stdio in front, HTTP behind (a bridge)
    proxy --listen 127.0.0.1:PORT (URL | -- CMD) an HTTP front for hosts that use URLs
    proxy --wrap CONFIG [--server NAME] [--write]  the host's config, rewritten to use it
    proxy --wrap CONFIG --all [--write]          every server of it through its own proxy
    proxy --unwrap CONFIG [--server NAME] [--write]  as it was: servers started directly

``mcp-inspect attach [NAME]`` opens the inspector on a running proxy; ``mcp-inspect
proxies`` lists them. The proxy records to a new session file unless told otherwise;
its stdout belongs to the host (nothing but relayed frames is ever written there).
"""

from __future__ import annotations

import argparse
import shlex
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, cast

import anyio

from inspector.commands.connect import trace_header
from inspector.commands.exits import ExitCode
from inspector.commands.oauth_options import add_oauth_options
from inspector.commands.options import (
    PROG,
    ArgParser,
    Subparsers,
    UsageError,
    add_connection_options,
    add_recording_options,
    add_trace_options,
    default_session_path,
    live_export,
    make_recorder,
    names_no_server,
    resolve_target,
    say_demo,
)
from inspector.commands.proxy_front import add_front_options, env_headers, front_setup, unused_path
from inspector.config import ConfigError, choose_server, server_table
from inspector.proxy.fronttoken import front_token
from inspector.proxy.host_http import ENDPOINT
from inspector.proxy.loopback import parse_listen
from inspector.proxy.run import ProxyError, ProxySetup, relayed, run_http_proxy, run_stdio_proxy
from inspector.proxy.unwrap import unwrap_config
from inspector.proxy.wrap import (
    read_config,
    render,
    wrap_config,
    wrap_every,
    wrap_for_front,
    write_config,
)
from inspector.record.recorder import Recorder
from inspector.target import Target, build_transport
from inspector.target_name import short_name
from inspector.transports.authhook import AuthHook
from inspector.wire.events import WireEvent

NAME = "proxy"


def add_parser(subparsers: Subparsers[ArgParser]) -> ArgParser:
    parser = subparsers.add_parser(
        NAME,
        description="Relay a host's traffic to a server unchanged, record every frame, "
        "and let `mcp-inspect attach` watch and call into the live session. Put "
        "`mcp-inspect proxy -- COMMAND` in the host's config in place of COMMAND (or "
        "see --wrap).",
        epilog="Exit code: the server's when it ended on its own; 0 when the host closed "
        "its side or a signal stopped the proxy; 2 usage; 3 the server could not be "
        "started or reached.",
    )
    parser.add_argument("target", nargs="*", metavar="TARGET", help="URL or server command")
    parser.add_argument("--name", help="the proxy's name for attach (default: the server's)")
    add_front_options(parser)
    parser.add_argument(
        "--env-header",
        action="append",
        default=[],
        metavar="NAME=VAR",
        help="an HTTP header to the server whose value is the environment variable VAR "
        "(a credential kept off the command line, where other users see it; --wrap writes it)",
    )
    parser.add_argument(
        "--no-attach", action="store_true", help="open no attach socket (nothing can attach)"
    )
    wrap = parser.add_argument_group("host config")
    wrap.add_argument(
        "--wrap",
        metavar="CONFIG",
        help="print CONFIG (Claude Desktop/Cursor mcpServers, VS Code servers) with "
        "--server running through the proxy",
    )
    wrap.add_argument(
        "--all",
        action="store_true",
        help="--wrap: every server of CONFIG through a proxy of its own (each attachable "
        "by its name); those that run through one already are left as they are",
    )
    wrap.add_argument(
        "--unwrap",
        metavar="CONFIG",
        help="print CONFIG with its servers (--server: that one) started directly again, "
        "as they were before --wrap",
    )
    wrap.add_argument(
        "--write", action="store_true", help="--wrap, --unwrap: change CONFIG in place"
    )
    add_connection_options(parser)
    add_oauth_options(parser)
    add_recording_options(parser)
    add_trace_options(parser, propagate=False)  # the host's requests pass unchanged
    return parser


def run(opts: argparse.Namespace, command: list[str]) -> int:
    if opts.wrap and opts.unwrap:
        raise UsageError("give either --wrap or --unwrap")
    if opts.wrap:
        return _wrap(opts)
    if opts.unwrap:
        return _unwrap(opts)
    if opts.write or opts.all:
        raise UsageError(f"{'--write' if opts.write else '--all'} goes with --wrap CONFIG")
    words = list(opts.target) + command
    target = resolve_target(opts, words)
    target.headers.update(env_headers(opts.env_header, target.url is not None))
    if names_no_server(opts, words):
        say_demo(target, f"{PROG} proxy")
    name = opts.name or short_name(target)
    try:
        listen = parse_listen(opts.listen) if opts.listen else None
    except ValueError as exc:
        raise UsageError(str(exc)) from exc
    front = "http" if listen else "stdio"
    token, limits, idle_timeout = front_setup(opts, name, listen is not None)
    path = None
    if not opts.no_record:
        path = str(unused_path(Path(opts.record))) if opts.record else None
        if path is not None and path != opts.record:
            sys.stderr.write(f"{PROG} proxy: {opts.record} exists; recording to {path}\n")
        path = path or str(default_session_path(Target(name=f"proxy-{name}")))
    trace = live_export(opts)
    recorder = make_recorder(opts, target, path, {"proxy": {"name": name, "front": front}})
    watchers: list[Callable[[WireEvent, Any], None]] = []
    if trace is not None:  # the proxy's wire is one recording: one trace
        watchers.append(trace.session(*trace_header(target, recorder)).observe)
    timeout = opts.timeout
    auth = _authorizer(target, recorder)
    setup = ProxySetup(
        name=name,
        describe=target.describe(),
        make_back=lambda: relayed(build_transport(target, timeout=timeout, auth=auth)),
        recorder=recorder,
        attach=not opts.no_attach,
        auth=auth,
        idle_timeout=idle_timeout,
        front_token=token,
        limits=limits,
        watchers=watchers,
    )
    try:
        if listen is not None:
            code: int = anyio.run(run_http_proxy, setup, listen)
        else:
            code = anyio.run(run_stdio_proxy, setup)
    except ProxyError as exc:
        sys.stderr.write(f"{PROG} proxy: {exc}\n")
        return ExitCode.CONNECTION
    finally:
        if trace is not None:
            trace.close()
        if recorder is not None:
            recorder.close()
            sys.stderr.write(f"{PROG} proxy: session saved to {recorder.path}\n")
    return code


def _authorizer(target: Target, recorder: Recorder | None) -> AuthHook | None:
    """OAuth for an HTTP server behind the proxy (None: stdio, --no-auth, or an
    Authorization header given). The proxy's stdin and stdout are the host's: a browser
    authorization's URL goes to stderr (the host's log), the redirect comes back on the
    loopback listener (or ``--auth-follow``, ``--client-credentials``: nobody needed).
    Every step is an event on the proxy's wire, recorded with tokens masked."""
    if target.url is None or target.oauth is None:
        return None
    if target.oauth.step:
        raise UsageError(
            "--auth-step pauses a flow in the TUI; the proxy's flow runs headless (its "
            "steps are in the recording and in an attached inspector's log)"
        )
    if target.oauth.paste:
        raise UsageError(
            "--auth-paste: the proxy's stdin is the host's; the redirect comes "
            "back on the loopback listener"
        )
    from inspector.auth.errors import StoreError
    from inspector.auth.options import make_authorizer
    from inspector.auth.terminal import LogInteraction

    try:
        auth = make_authorizer(target.url, target.headers, target.oauth, LogInteraction())
    except StoreError as exc:
        raise UsageError(str(exc)) from exc
    if auth is not None and recorder is not None:
        auth.add_secret_sink(recorder.redactor.add_secret)
    return cast("AuthHook | None", auth)


def _wrap(opts: argparse.Namespace) -> int:
    path = Path(opts.wrap)
    private = False
    before: list[str] = []
    if opts.all and (opts.server or opts.listen):
        raise UsageError(
            "--all wraps every server; "
            + ("leave out --server" if opts.server else "--listen fronts one server (a port each)")
        )
    try:
        data = read_config(path)
        if opts.listen:
            wrapped, server = _wrap_front(opts, data, path)
            servers = [server]
            private = True  # the front's token is in it now
        elif opts.all:
            wrapped, servers, before = wrap_every(data, str(path))
        else:
            wrapped, server = wrap_config(data, str(path), opts.server)
            servers = [server]
    except ConfigError as exc:
        raise UsageError(str(exc)) from exc
    if before:
        many = len(before) > 1
        sys.stderr.write(
            f"{PROG}: {path}: {_names(before)} {'already run' if many else 'already runs'} "
            f"through the proxy, {'left as they were' if many else 'left as it was'}\n"
        )
    if not servers:
        return 0  # nothing left to wrap: the file is not rewritten
    if len(servers) > 1:
        how = "now run through a proxy each"
        then = f"`{PROG} attach NAME` (`{PROG} proxies` lists the running ones)"
    else:
        how = "connects to the proxy's HTTP front" if opts.listen else "now runs through the proxy"
        then = f"`{PROG} attach {servers[0]}`"
    return _write_back(opts, path, wrapped, servers, how, f"restart the host, then {then}", private)


def _unwrap(opts: argparse.Namespace) -> int:
    if opts.all:
        raise UsageError("--all goes with --wrap; --unwrap alone undoes every wrapped server")
    if opts.listen:
        raise UsageError(
            "--unwrap takes no --listen: an entry wrapped for the HTTP front names the "
            "proxy's URL, not the server; its .bak copy has the entry as it was"
        )
    path = Path(opts.unwrap)
    try:
        restored, servers, _others = unwrap_config(read_config(path), str(path), opts.server)
    except ConfigError as exc:
        raise UsageError(str(exc)) from exc
    if not servers:
        sys.stderr.write(f"{PROG}: {path}: no server runs through the proxy; nothing to undo\n")
        return 0
    return _write_back(opts, path, restored, servers, "started directly again", "restart the host")


def _write_back(
    opts: argparse.Namespace,
    path: Path,
    config: dict[str, Any],
    servers: list[str],
    done: str,
    then: str,
    private: bool = False,
) -> int:
    """The rewritten config printed, or with ``--write`` written in place (the old file
    kept beside it) and said: the ``servers``, what is ``done``, what to do ``then``."""
    if not opts.write:
        sys.stdout.write(render(config))
        return 0
    try:
        backup = write_config(path, config, private=private)
    except OSError as exc:
        raise UsageError(f"--write {path}: {exc.strerror or exc}") from exc
    sys.stderr.write(
        f"{PROG}: {path}: {'servers' if len(servers) > 1 else 'server'} {_names(servers)} "
        f"{done} (the old file is {backup}); {then}\n"
    )
    return 0


def _names(servers: list[str]) -> str:
    return ", ".join(repr(name) for name in servers)


def _wrap_front(opts: argparse.Namespace, data: object, path: Path) -> tuple[dict[str, Any], str]:
    """``--wrap CONFIG --listen HOST:PORT``: the entry becomes the front's URL with its
    token; the command that starts the proxy goes to stderr (the user runs it)."""
    try:
        host, port = parse_listen(opts.listen)
    except ValueError as exc:
        raise UsageError(str(exc)) from exc
    if port == 0:
        raise UsageError("--wrap with --listen needs a port of its own (the host's URL names it)")
    shown = f"[{host}]" if ":" in host else host
    url = f"http://{shown}:{port}{ENDPOINT}"
    _key, servers = server_table(data, str(path))
    name = choose_server(servers, opts.server, str(path), "name one with --server")
    token = front_token(name)
    wrapped, server, argv, env = wrap_for_front(data, str(path), name, opts.listen, url, token)
    needs = f" with {', '.join(env)} set in its environment" if env else ""
    sys.stderr.write(
        f"{PROG}: start the proxy{needs} (the host connects to {url}):\n  {shlex.join(argv)}\n"
    )
    return wrapped, server
