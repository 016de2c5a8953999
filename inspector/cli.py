"""Command line: picks the TUI, the headless ``--cli`` or ``replay``.

    mcp-inspect                              the TUI on the bundled demo server
    mcp-inspect -- python server.py          the TUI on a stdio server
    mcp-inspect https://host/mcp             the TUI on an HTTP server
    mcp-inspect --cli --method tools/list -- python server.py
    mcp-inspect replay FILE [--against TARGET | --serve]

Flags follow the official Inspector's CLI (``--method``, ``--tool-name``,
``--tool-arg``, ``-e``, ``--config``/``--server``, ``--transport``, ``--header``).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NoReturn

from inspector import __version__
from inspector.target import TRANSPORT_CHOICES, Target, target_from_words


class UsageError(Exception):
    """A wrong flag, a missing file, a bad config: what happened and what to do."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{message} (see mcp-inspect --help)")


def add_connection_options(parser: argparse.ArgumentParser,
                           timeout: float = 60.0) -> None:
    """How to reach a server: shared by the main parser and ``replay``."""
    conn = parser.add_argument_group("connection")
    conn.add_argument("-e", "--env", action="append", default=[], metavar="KEY=VALUE",
                      help="environment variable for a stdio server (repeatable)")
    conn.add_argument("--cwd", help="working directory for a stdio server")
    conn.add_argument("--transport", choices=TRANSPORT_CHOICES, default="auto",
                      help="force a transport (default: stdio for commands, Streamable HTTP "
                           "with SSE fallback for URLs)")
    conn.add_argument("-H", "--header", action="append", default=[], metavar="'NAME: VALUE'",
                      help="HTTP header on every request (repeatable)")
    conn.add_argument("--config", help="server config file (mcpServers or servers format)")
    conn.add_argument("--server", help="server name in --config")
    conn.add_argument("--timeout", type=float, default=timeout,
                      help=f"per-request timeout in seconds, reset by progress "
                           f"(default {timeout:g})")
    conn.add_argument("--max-timeout", type=float, default=600.0,
                      help="hard maximum per request in seconds (default 600)")


def add_recording_options(parser: argparse.ArgumentParser) -> None:
    rec = parser.add_argument_group("recording")
    rec.add_argument("--record", metavar="FILE", help="write the session to FILE")
    rec.add_argument("--no-record", action="store_true",
                     help="do not record (the TUI records by default)")
    rec.add_argument("--no-redact", action="store_true",
                     help="keep secrets (-e values, Authorization headers) in session files")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="mcp-inspect",
        description="A terminal inspector and debugger for MCP servers. With no target it "
                    "opens on the bundled demo server.",
        epilog="TARGET is a URL (http:// or https://) or a server command; put the command "
               "after `--` when it has flags of its own. Exit codes of --cli: 0 ok, 1 tool "
               "isError, 2 usage, 3 connection, 4 protocol error, 5 timeout, 6 HTTP error, "
               "7 authorization needed.")
    parser.add_argument("target", nargs="*", metavar="TARGET", help="URL or server command")
    parser.add_argument("--version", action="version", version=f"mcp-inspect {__version__}")
    add_connection_options(parser)
    parser.add_argument("--protocol-version", default=None,
                        help="protocol version to offer (default: the newest handshake "
                        "version, 2025-11-25); 2026-07-28 opts in to the stateless protocol "
                        "(no initialize, no session)")
    add_recording_options(parser)
    resp = parser.add_argument_group("answers to the server's requests")
    resp.add_argument("--root", action="append", default=[], metavar="PATH",
                      help="a root to offer the server (repeatable)")
    resp.add_argument("--on-elicit", choices=("accept-defaults", "decline", "cancel"),
                      help="--cli: answer elicitation requests this way")
    resp.add_argument("--on-sample", metavar="TEXT",
                      help="--cli: answer sampling requests with this text")
    cli = parser.add_argument_group("headless (--cli)")
    cli.add_argument("--cli", action="store_true", help="one call, JSON on stdout, no TUI")
    cli.add_argument("--method", help="tools/list, tools/call, resources/list, resources/read, "
                                      "resources/templates/list, prompts/list, prompts/get, "
                                      "logging/setLevel, ping")
    cli.add_argument("--tool-name")
    cli.add_argument("--tool-arg", action="append", default=[], metavar="KEY=VALUE",
                     help="tool argument, coerced by the tool's input schema (repeatable)")
    cli.add_argument("--tool-args-json", metavar="JSON", help="all tool arguments as JSON")
    cli.add_argument("--uri")
    cli.add_argument("--prompt-name")
    cli.add_argument("--prompt-args", action="append", default=[], metavar="KEY=VALUE")
    cli.add_argument("--log-level")
    return parser


def split_dashdash(argv: Sequence[str]) -> tuple[list[str], list[str]]:
    """Everything after the first ``--`` is the server command, verbatim."""
    argv = list(argv)
    if "--" in argv:
        at = argv.index("--")
        return argv[:at], argv[at + 1:]
    return argv, []


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


def resolve_target(opts: argparse.Namespace, words: list[str]) -> Target:
    env = parse_env(opts.env)
    headers = parse_headers(opts.header)
    if opts.config:
        if words:
            raise UsageError("give either --config or a TARGET, not both")
        from inspector.config import ConfigError, load_server_config

        try:
            config = load_server_config(opts.config, opts.server)
        except ConfigError as exc:
            raise UsageError(str(exc)) from exc
        target = Target(command=config.command, args=list(config.args), env=dict(config.env),
                        cwd=config.cwd, url=config.url, headers=dict(config.headers),
                        transport=config.transport, name=config.name)
        target.env.update(env)
        target.headers.update(headers)
        if opts.cwd:
            target.cwd = opts.cwd
        if opts.transport != "auto":
            target.transport = opts.transport
        return target
    if opts.server:
        raise UsageError("--server needs --config FILE")
    try:
        return target_from_words(words, transport=opts.transport, env=env, cwd=opts.cwd,
                                 headers=headers)
    except ValueError as exc:
        raise UsageError(str(exc)) from exc


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    cli_mode = "--cli" in split_dashdash(argv)[0]
    try:
        if "replay" in argv[:2] and argv[:2] != ["--", "replay"]:
            return _replay(argv, cli_mode)
        return _run(argv)
    except UsageError as exc:
        return _usage_failure(str(exc), cli_mode)
    except KeyboardInterrupt:
        return 130


def _usage_failure(message: str, cli_mode: bool) -> int:
    if cli_mode:
        error = {"error": {"kind": "usage", "message": message, "exitCode": 2}}
        sys.stderr.write(json.dumps(error) + "\n")
    else:
        sys.stderr.write(f"mcp-inspect: {message}\n")
    return 2


def _run(argv: list[str]) -> int:
    before, command = split_dashdash(argv)
    opts = build_parser().parse_intermixed_args(before)
    target = resolve_target(opts, list(opts.target) + command)
    if opts.cli:
        return _run_headless(opts, target)
    from inspector.tui.launch import launch_tui

    code: int = launch_tui(target, opts)
    return code


def responders_from(opts: argparse.Namespace, interactive: bool = False) -> Any:
    """Responders for --root, --on-elicit and --on-sample."""
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


def make_recorder(opts: argparse.Namespace, target: Target, path: str | None) -> Any:
    if path is None or opts.no_record:
        return None
    from inspector.record.format import Redactor, SessionHeader
    from inspector.record.recorder import Recorder
    from inspector.target import target_info

    redactor = Redactor(target.secrets(), enabled=not opts.no_redact)
    try:
        return Recorder(Path(path), SessionHeader(target=target_info(target)), redactor)
    except OSError as exc:
        raise UsageError(f"--record {path}: cannot write: {exc.strerror or exc}") from exc


def _run_headless(opts: argparse.Namespace, target: Target) -> int:
    import anyio

    from inspector import headless
    from inspector.engine.era import LATEST_VERSION

    if not opts.method:
        raise UsageError(f"--cli needs --method, one of {', '.join(headless.METHODS)}")
    request = headless.CliRequest(
        method=opts.method, tool_name=opts.tool_name, tool_args=opts.tool_arg,
        tool_args_json=opts.tool_args_json, uri=opts.uri, prompt_name=opts.prompt_name,
        prompt_args=opts.prompt_args, log_level=opts.log_level, timeout=opts.timeout,
        max_timeout=opts.max_timeout, protocol_version=opts.protocol_version or LATEST_VERSION)
    responders = responders_from(opts)
    recorder = make_recorder(opts, target, opts.record)
    try:
        code: int = anyio.run(headless.run, target, request, responders, recorder)
    finally:
        if recorder is not None:
            recorder.close()
    return code


def _replay(argv: list[str], cli_mode: bool) -> int:
    try:
        from inspector.record.replay_cli import replay_main
    except ImportError:
        raise UsageError("replay is not available in this build") from None
    rest = list(argv)
    rest.remove("replay")  # the first one, within the first two words
    code: int = replay_main(rest, cli_mode)
    return code
