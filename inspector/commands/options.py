"""What every mode of the command line shares: usage errors, option groups, targets.

``add_*_options`` put one option group on a parser, so the default mode, ``replay``
and the subcommands (``proxy``, ``attach``, ``auth``) spell a flag the same way;
``resolve_target``, ``session_options``, ``responders_from`` and ``make_recorder`` turn
the parsed options into what the engine takes (importing the engine's parts only then:
building a parser, for ``--help`` or a usage error, loads none of them).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

from inspector.errors import InspectorError
from inspector.target import TRANSPORT_CHOICES, Target, target_from_words, target_info

if TYPE_CHECKING:
    from inspector.engine.options import SessionOptions
    from inspector.engine.responders import Responders
    from inspector.export.live import LiveExport
    from inspector.record.format import Redactor
    from inspector.record.recorder import Recorder

PROG = "mcp-inspect"

Subparsers = argparse._SubParsersAction  # what add_subparsers returns; subcommands add to it


class UsageError(InspectorError):
    """A wrong flag, a missing file, a bad config: what happened and what to do."""


class ArgParser(argparse.ArgumentParser):
    """A parser whose errors are :class:`UsageError` (``--cli`` prints them as JSON).

    ``mcp-inspect replay`` says "replay: MESSAGE (see mcp-inspect replay --help)"."""

    def error(self, message: str) -> NoReturn:
        where = self.prog.removeprefix(PROG).strip()
        raise UsageError(f"{where + ': ' if where else ''}{message} (see {self.prog} --help)")


def split_dashdash(argv: Sequence[str]) -> tuple[list[str], list[str]]:
    """Everything after the first ``--`` is the server command, verbatim."""
    argv = list(argv)
    if "--" in argv:
        at = argv.index("--")
        return argv[:at], argv[at + 1 :]
    return argv, []


def add_connection_options(parser: argparse.ArgumentParser, timeout: float = 60.0) -> None:
    """How to reach a server: ``-e``, ``--cwd``, ``--transport``, ``-H``, ``--config``..."""
    conn = parser.add_argument_group("connection")
    conn.add_argument(
        "-e",
        "--env",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="environment variable for a stdio server (repeatable)",
    )
    conn.add_argument("--cwd", help="working directory for a stdio server")
    conn.add_argument(
        "--transport",
        choices=TRANSPORT_CHOICES,
        default="auto",
        help="force a transport (default: stdio for commands, Streamable HTTP "
        "with SSE fallback for URLs)",
    )
    conn.add_argument(
        "-H",
        "--header",
        action="append",
        default=[],
        metavar="'NAME: VALUE'",
        help="HTTP header on every request (repeatable)",
    )
    conn.add_argument(
        "--follow-redirects",
        action="store_true",
        help="HTTP: follow redirects to another origin too (by default only same-origin "
        "redirects are followed); credential headers are never sent to another origin",
    )
    conn.add_argument(
        "--server-url",
        metavar="URL",
        help="the server's URL, as a TARGET (the official Inspector's spelling)",
    )
    conn.add_argument("--config", help="server config file (mcpServers or servers format)")
    conn.add_argument("--server", help="server name in --config")
    conn.add_argument(
        "--timeout",
        type=float,
        default=timeout,
        help=f"per-request timeout in seconds, reset by progress (default {timeout:g})",
    )
    conn.add_argument(
        "--max-timeout",
        type=float,
        default=None,
        help="hard maximum per request in seconds, progress or not; it caps --timeout "
        "too (default 600, or --timeout when that is longer)",
    )


def add_recording_options(parser: argparse.ArgumentParser) -> None:
    """``--record FILE``, ``--no-record``, ``--no-redact``."""
    rec = parser.add_argument_group("recording")
    rec.add_argument("--record", metavar="FILE", help="write the session to FILE")
    rec.add_argument(
        "--no-record", action="store_true", help="do not record (the TUI records by default)"
    )
    rec.add_argument(
        "--no-redact",
        action="store_true",
        help="keep secrets (-e values, Authorization headers) in session files",
    )


def add_answer_options(parser: argparse.ArgumentParser, listing: bool = False) -> None:
    """How the server's own requests are answered: ``--root``, ``--on-elicit``, ``--on-sample``.

    ``listing``: a command that only lists (``lint``, ``diff``), where what they change is
    what the server offers: each declares its client capability, and some servers offer
    tools only to clients that have it."""
    resp = parser.add_argument_group(
        "answers to the server's requests"
        + (" (each declares its capability: some servers list more tools then)" if listing else "")
    )
    mode = "answer" if listing else "--cli: answer"
    resp.add_argument(
        "--root",
        action="append",
        default=[],
        metavar="PATH",
        help="a root to offer the server (repeatable)",
    )
    resp.add_argument(
        "--on-elicit",
        choices=("accept-defaults", "decline", "cancel"),
        help=f"{mode} elicitation requests this way",
    )
    resp.add_argument(
        "--on-sample", metavar="TEXT", help=f"{mode} sampling requests with this text"
    )


def parse_env(pairs: list[str]) -> dict[str, str]:
    env: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise UsageError(f"-e expects KEY=VALUE, got {pair!r}")
        env[key] = value
    return env


def parse_headers(values: list[str]) -> dict[str, str]:
    headers: dict[str, str] = {}
    for value in values:
        name, sep, content = value.partition(":")
        if not sep or not name.strip():
            raise UsageError(f"--header expects 'Name: Value', got {value!r}")
        headers[name.strip()] = content.strip()
    return headers


def names_no_server(opts: argparse.Namespace, words: list[str]) -> bool:
    """No TARGET, ``--config`` or ``--server-url``: the bundled demo server answers."""
    return not words and not opts.config and not opts.server_url


def say_demo(target: Target, who: str = PROG) -> None:
    """On stderr (``--cli``'s, a proxy host's log): the bundled demo server is the one."""
    sys.stderr.write(
        f"{who}: no server given: using the bundled demo server "
        f"({target.describe()}); name yours after -- or as a URL\n"
    )


def resolve_target(opts: argparse.Namespace, words: list[str]) -> Target:
    """The server the connection options and TARGET words (or ``--config``) name; an HTTP
    server's OAuth settings from the OAuth flags over the config entry's ``oauth``."""
    target = _resolve_target(opts, words)
    with_oauth(opts, target)
    return target


def with_oauth(opts: argparse.Namespace, target: Target) -> None:
    """An HTTP target's OAuth settings (the OAuth flags over its config entry's
    ``oauth``) and the redirect option, as the command line gives them."""
    target.follow_redirects = opts.follow_redirects
    if target.url is not None and hasattr(opts, "no_auth"):
        # Start-up: the OAuth settings module is small and loads no HTTP code.
        from inspector.auth.errors import OptionError
        from inspector.commands.oauth_options import auth_settings

        try:
            target.oauth = auth_settings(opts, target.oauth_config)
        except OptionError as exc:
            raise UsageError(str(exc)) from exc


def _resolve_target(opts: argparse.Namespace, words: list[str]) -> Target:
    env = parse_env(opts.env)
    headers = parse_headers(opts.header)
    if opts.server_url:
        if words:
            raise UsageError("give either --server-url or a TARGET, not both")
        words = [opts.server_url]
    if opts.config:
        if words:
            raise UsageError("give either --config or a TARGET, not both")
        return config_target(opts, opts.server)
    if opts.server:
        raise UsageError("--server needs --config FILE")
    try:
        return target_from_words(
            words, transport=opts.transport, env=env, cwd=opts.cwd, headers=headers
        )
    except ValueError as exc:
        raise UsageError(str(exc)) from exc


def config_target(opts: argparse.Namespace, name: str | None) -> Target:
    """Server ``name`` of ``--config`` (the only one when None), with ``-e``, ``-H``,
    ``--cwd`` and ``--transport`` over the entry's own."""
    from inspector.config import ConfigError, load_server_config
    from inspector.workspace.entries import entry_target

    try:
        config = load_server_config(opts.config, name)
    except ConfigError as exc:
        raise UsageError(str(exc)) from exc
    target = entry_target(config)
    target.env.update(parse_env(opts.env))
    target.headers.update(parse_headers(opts.header))
    if opts.cwd:
        target.cwd = opts.cwd
    if opts.transport != "auto":
        target.transport = opts.transport
    return target


def session_options(opts: argparse.Namespace) -> SessionOptions:
    """The session's options from the flags, built once (``--timeout``, ``--max-timeout``,
    ``--protocol-version``, ``--root``; a mode without one of them takes the default)."""
    from inspector.engine.options import SessionOptions

    return SessionOptions(
        timeout=opts.timeout,
        max_timeout=opts.max_timeout,
        protocol_version=getattr(opts, "protocol_version", None),
        roots=tuple(getattr(opts, "root", ())),
    )


def responders_from(opts: argparse.Namespace) -> Responders:
    """Responders for ``--root``, ``--on-elicit`` and ``--on-sample``."""
    from inspector.engine.responders import (
        Responders,
        RootsList,
        elicitation_policy,
        fixed_sampling,
    )

    responders = Responders()
    if opts.root:
        missing = [p for p in opts.root if not os.path.exists(p)]
        if missing:
            raise UsageError(f"--root: no such path: {', '.join(missing)}")
        responders.roots = RootsList(opts.root)
    if opts.on_elicit:
        responders.elicitation = elicitation_policy(opts.on_elicit)
        responders.elicitation_modes = ("form", "url")
    if opts.on_sample is not None:
        responders.sampling = fixed_sampling(opts.on_sample)
    return responders


def printed_redactor(opts: argparse.Namespace, target: Target) -> Redactor:
    """The session file's redaction for ``target`` (off with ``--no-redact``): the
    recorder's, and what stderr and the TUI's toasts are cleaned with."""
    from inspector.record.format import Redactor

    return Redactor(target.secrets(), enabled=not opts.no_redact)


def make_recorder(
    opts: argparse.Namespace,
    target: Target,
    path: str | None,
    header: dict[str, Any] | None = None,
) -> Recorder | None:
    """The session recorder for ``path`` (None: ``--no-record`` or nothing asked);
    ``header``: more keys for the file's header line (the proxy says it is one)."""
    if path is None or opts.no_record:
        return None
    from inspector.record.format import SessionHeader
    from inspector.record.recorder import Recorder

    redactor = printed_redactor(opts, target)
    extra = dict(header or {})
    if getattr(opts, "otlp_endpoint", None) or getattr(opts, "propagate", False):
        from inspector.export.live import context_from_env

        extra.update(context_from_env())  # started inside a trace: the session joins it
    try:
        first = SessionHeader(target=target_info(target), extra=extra)
        return Recorder(Path(path), first, redactor)
    except OSError as exc:
        raise UsageError(f"--record {path}: cannot write: {exc.strerror or exc}") from exc


def require_terminal(message: str) -> None:
    """The TUI draws on a terminal: without one, a usage error saying what to use instead.

    ``MCP_INSPECT_FORCE_TUI`` lets tests and recordings run it anyway."""
    if not (sys.stdin.isatty() and sys.stderr.isatty()) and not os.environ.get(
        "MCP_INSPECT_FORCE_TUI"
    ):
        raise UsageError(message)


def state_dir() -> Path:
    """Where sessions go by default: $XDG_STATE_HOME/mcp-inspect/sessions."""
    from inspector.record.state import sessions_home

    return sessions_home()


def private_state_dir() -> None:
    """The default sessions folder exists and is 0700, with its mcp-inspect parent (both
    are ours; one an older version made 0755 is tightened)."""
    from inspector.record.private import private_dirs, tighten

    sessions = state_dir()
    private_dirs(sessions)
    tighten(sessions.parent)
    tighten(sessions)


def default_session_path(target: Target) -> Path:
    """A new file under :func:`state_dir` named after the time and the server."""
    from inspector.record.state import new_session_path
    from inspector.target_name import short_name

    name = target.name or target.url or short_name(target)
    return new_session_path(name, is_url=bool(target.url))


def add_trace_options(parser: argparse.ArgumentParser, *, propagate: bool = True) -> None:
    """``--otlp-endpoint URL`` (spans sent as they end) and ``--propagate``."""
    otel = parser.add_argument_group("OpenTelemetry")
    otel.add_argument(
        "--otlp-endpoint",
        metavar="URL",
        default=None,
        help="send the session's spans, as they end, to this OTLP/HTTP collector "
        "(http://host:4318; pip install 'mcp-inspect[otel]')",
    )
    if propagate:
        otel.add_argument(
            "--propagate",
            action="store_true",
            help="add W3C trace context (params._meta.traceparent) to each request, so a "
            "server instrumented with OpenTelemetry joins the session's trace",
        )


def live_export(
    opts: argparse.Namespace, warn: Callable[[str], None] | None = None
) -> LiveExport | None:
    """The ``LiveExport`` for ``--otlp-endpoint``/``--propagate`` (None: neither given);
    ``warn`` (default: a line on stderr) hears once that spans were lost."""
    if opts.otlp_endpoint is None and not getattr(opts, "propagate", False):
        return None  # TraceOptions.wanted, before the export code loads (start-up)
    from inspector.export.live import LiveExport, TraceOptions
    from inspector.export.otlp_sdk import OtelMissing

    options = TraceOptions(opts.otlp_endpoint, bool(getattr(opts, "propagate", False)))
    try:
        return LiveExport(options, warn or _stderr_warning)
    except OtelMissing as exc:
        raise UsageError(
            "--otlp-endpoint needs the OpenTelemetry SDK: pip install 'mcp-inspect[otel]' "
            "(or record the session and export it later: mcp-inspect export FILE "
            "--format otlp --output spans.json)"
        ) from exc


def _stderr_warning(text: str) -> None:
    sys.stderr.write(f"{PROG}: warning: {text}\n")
    sys.stderr.flush()
