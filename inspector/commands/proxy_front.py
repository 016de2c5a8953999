"""``proxy --listen``'s own options: the front's token and its caps (``mcp-inspect proxy``)."""

from __future__ import annotations

import argparse
import itertools
import os
import sys
from pathlib import Path

from inspector.commands.options import PROG, UsageError
from inspector.proxy.fronttoken import front_token, token_path
from inspector.proxy.host_http import IDLE_TIMEOUT
from inspector.proxy.httpserve import FrontLimits

MB = 1 << 20
_DEFAULTS = FrontLimits()


def add_front_options(parser: argparse.ArgumentParser) -> None:
    front = parser.add_argument_group("HTTP front (--listen)")
    front.add_argument(
        "--listen",
        metavar="HOST:PORT",
        help="serve Streamable HTTP on the loopback (127.0.0.1:PORT, [::1]:PORT; port 0 "
        "picks one) instead of stdio; hosts present the proxy's token",
    )
    front.add_argument(
        "--no-auth-front",
        action="store_true",
        help="--listen: no token (any local user may call the server as you: a trusted "
        "single-user machine only)",
    )
    front.add_argument(
        "--idle-timeout",
        type=float,
        metavar="SECONDS",
        help=f"end a host session after this long without a request, shutting its server "
        f"down (default {IDLE_TIMEOUT:g}; 0: never)",
    )
    front.add_argument(
        "--fresh-timeout",
        type=float,
        metavar="SECONDS",
        default=_DEFAULTS.fresh_timeout,
        help=f"... and sooner, after this long, a session that sent no request after its "
        f"initialize (default {_DEFAULTS.fresh_timeout:g})",
    )
    front.add_argument(
        "--max-connections",
        type=int,
        metavar="N",
        default=_DEFAULTS.max_connections,
        help=f"open host connections at once (default {_DEFAULTS.max_connections}); more get 503",
    )
    front.add_argument(
        "--max-sessions",
        type=int,
        metavar="N",
        default=_DEFAULTS.max_sessions,
        help=f"host sessions at once, each with its server (default {_DEFAULTS.max_sessions}); "
        "another initialize gets 503",
    )
    front.add_argument(
        "--max-buffer",
        type=int,
        metavar="MB",
        default=_DEFAULTS.max_buffer // MB,
        help=f"megabytes of request bodies held at once, all connections (default "
        f"{_DEFAULTS.max_buffer // MB}); a body past it gets 503",
    )
    front.add_argument(
        "--head-timeout",
        type=float,
        metavar="SECONDS",
        default=_DEFAULTS.head_timeout,
        help=f"a request's head must arrive whole within this (default "
        f"{_DEFAULTS.head_timeout:g}); a slower client is cut off",
    )


def front_setup(
    opts: argparse.Namespace, name: str, listening: bool, command: str = "proxy"
) -> tuple[str | None, FrontLimits, float | None]:
    """(the token hosts present, the caps, the idle timeout) from the options; the token
    made on the first ``--listen`` of a proxy name. Usage errors for front options without
    ``--listen`` or out of range."""
    given = [
        flag
        for flag, value, default in (
            ("--idle-timeout", opts.idle_timeout, None),
            ("--no-auth-front", opts.no_auth_front, False),
            ("--max-connections", opts.max_connections, _DEFAULTS.max_connections),
            ("--max-sessions", opts.max_sessions, _DEFAULTS.max_sessions),
            ("--max-buffer", opts.max_buffer, _DEFAULTS.max_buffer // MB),
            ("--head-timeout", opts.head_timeout, _DEFAULTS.head_timeout),
            ("--fresh-timeout", opts.fresh_timeout, _DEFAULTS.fresh_timeout),
        )
        if value != default
    ]
    if given and not listening:
        raise UsageError(f"{given[0]} goes with --listen (a stdio host has no HTTP front)")
    if opts.idle_timeout is not None and opts.idle_timeout < 0:
        raise UsageError("--idle-timeout: seconds, 0 or more")
    for flag, value in (
        ("--max-connections", opts.max_connections),
        ("--max-sessions", opts.max_sessions),
        ("--max-buffer", opts.max_buffer),
        ("--head-timeout", opts.head_timeout),
        ("--fresh-timeout", opts.fresh_timeout),
    ):
        if value <= 0:
            raise UsageError(f"{flag}: more than 0")
    limits = FrontLimits(
        max_connections=opts.max_connections,
        max_sessions=opts.max_sessions,
        max_buffer=opts.max_buffer * MB,
        head_timeout=opts.head_timeout,
        fresh_timeout=opts.fresh_timeout,
    )
    idle = IDLE_TIMEOUT if opts.idle_timeout is None else opts.idle_timeout
    if not listening:
        return None, limits, idle
    if opts.no_auth_front:
        sys.stderr.write(
            f"{PROG} {command}: warning: --no-auth-front: any local user can call the server "
            "through this port, as you; use it on a single-user machine only\n"
        )
        return None, limits, idle
    try:
        token = front_token(name)
    except OSError as exc:
        raise UsageError(
            f"cannot keep the front's token in {token_path(name)}: {exc.strerror or exc}"
        ) from exc
    return token, limits, idle


def env_headers(pairs: list[str], http: bool) -> dict[str, str]:
    """``--env-header NAME=VAR``: the headers, their values read from the environment."""
    if pairs and not http:
        raise UsageError("--env-header goes with a URL (headers are sent to an HTTP server)")
    headers: dict[str, str] = {}
    for pair in pairs:
        name, sep, var = pair.partition("=")
        if not sep or not name.strip() or not var.strip():
            raise UsageError(f"--env-header expects NAME=VAR, got {pair!r}")
        value = os.environ.get(var.strip())
        if value is None:
            raise UsageError(
                f"--env-header {pair}: the environment variable {var.strip()} is not set "
                "(the host config's env gives it)"
            )
        headers[name.strip()] = value
    return headers


def unused_path(path: Path) -> Path:
    """``--record FILE``: FILE when it is new (or not a regular file: /dev/stdout), else
    FILE-1, FILE-2... before its suffix: a host that restarts the proxy never overwrites
    the last session. The name is claimed (created empty, 0600) so two starts at once
    cannot pick the same."""
    if not path.exists() or not path.is_file():
        return path
    for number in itertools.count(1):
        candidate = path.with_name(f"{path.stem}-{number}{path.suffix}")
        try:
            os.close(os.open(candidate, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
        except FileExistsError:
            continue
        except OSError:
            return path  # the recorder says why it cannot write there
        return candidate
    raise AssertionError("unreachable")
