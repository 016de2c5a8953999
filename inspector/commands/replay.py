"""``mcp-inspect [--cli] replay FILE ...``: re-run, serve or summarise a session file.

    replay FILE --against URL                      re-run against an HTTP server
    replay FILE --against -- python server.py      re-run against a stdio server
    replay FILE --serve                            be a stdio server answering from FILE
    replay FILE --serve --listen 127.0.0.1:PORT    ... over Streamable HTTP (replay_listen)
    replay FILE                                    summary of the file (or the TUI)

Each request's server notifications are a part of its verdict (``--notifications
strict|methods|ignore``, default methods: only a different sequence of methods counts).

Exit codes: 0 nothing differs, 1 differences, 2 usage or unreadable file,
3 connection failure (like ``--cli``).
"""

from __future__ import annotations

import argparse
import atexit
import json
import shutil
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

import anyio

from inspector.commands.failures import (
    CliError,
    ExitCode,
    classify_failure,
    report_error,
    unwrap_failure,
)
from inspector.commands.options import (
    ArgParser,
    Subparsers,
    UsageError,
    add_connection_options,
    add_recording_options,
    make_recorder,
    require_terminal,
    resolve_target,
)
from inspector.commands.proxy_front import add_front_options
from inspector.commands.replay_listen import serve_over_http
from inspector.export.har_import import HarError, looks_like_har, read_har, write_session
from inspector.record.format import SessionFileError
from inspector.record.indexed import IndexedSessionFile
from inspector.record.reader import iter_events, open_header
from inspector.record.recorder import Recorder
from inspector.replay.diff import DEFAULT_IGNORES, PathError, parse_rules
from inspector.replay.notices import METHODS, MODES
from inspector.replay.plan import Plan, build_plan
from inspector.replay.report import Report
from inspector.replay.run import ReplayOptions, replay
from inspector.replay.serve import RecordedServer, serve
from inspector.target import Target, build_transport

NAME = "replay"


def add_parser(subparsers: Subparsers[ArgParser]) -> ArgParser:
    parser = subparsers.add_parser(
        NAME,
        description="Re-run a recorded session against a live server and compare the "
        "answers (--against), or answer from it as a stdio server (--serve).",
        epilog="Exit codes: 0 no differences, 1 differences, 2 usage or file error, "
        "3 connection failure. Default ignores: " + ", ".join(DEFAULT_IGNORES),
    )
    parser.add_argument("file", metavar="FILE", help="a session file (.jsonl)")
    parser.add_argument(
        "words",
        nargs="*",
        default=[],  # without a default argparse lists a "*" positional as required
        metavar="TARGET",
        help="the rest of a server command given after --against",
    )
    mode = parser.add_argument_group("mode")
    mode.add_argument(
        "--against",
        nargs="?",
        const="",
        default=None,
        metavar="TARGET",
        help="re-run against TARGET: a URL, or a command (after --)",
    )
    mode.add_argument(
        "--serve",
        action="store_true",
        help="act as a stdio MCP server answering from the recording (with --listen: "
        "over Streamable HTTP)",
    )
    mode.add_argument("--cli", action="store_true", help="JSON report on stdout")
    cmp = parser.add_argument_group("comparison")
    cmp.add_argument(
        "--ignore",
        action="append",
        default=[],
        metavar="PATH",
        help="JSONPath of a field to leave out of the verdict "
        "($.result.content[*].text, result.meta.timestamp, $..etag)",
    )
    cmp.add_argument(
        "--no-default-ignores",
        action="store_true",
        help="compare ids, timestamps, session ids and tokens too",
    )
    cmp.add_argument(
        "--notifications",
        choices=MODES,
        default=METHODS,
        help="the server's notifications per request (progress, logging, "
        "list_changed): 'methods' (default) counts a different sequence "
        "of methods, 'strict' every value too, 'ignore' leaves them out",
    )
    cmp.add_argument(
        "--full",
        action="store_true",
        help="JSON report: include recorded and live messages of same items",
    )
    add_connection_options(parser, timeout=30.0)
    add_recording_options(parser)
    add_front_options(parser)  # --serve --listen: the proxy's HTTP front, the same flags
    return parser


def run(opts: argparse.Namespace, command: list[str]) -> int:
    """``command``: the words after ``--`` (the server command of ``--against``)."""
    cli_mode: bool = opts.cli
    path = Path(opts.file)
    if path.is_file() and looks_like_har(path):
        try:
            path = _import_har(path, cli_mode)
        except HarError as exc:
            return _file_failure(str(exc), cli_mode)
    try:
        header = open_header(path)
    except SessionFileError as exc:
        return _file_failure(str(exc), cli_mode)
    if opts.serve and opts.against is not None:
        raise UsageError("replay: give either --serve or --against, not both")
    if opts.listen and not opts.serve:
        raise UsageError("--listen goes with --serve: replay FILE --serve --listen HOST:PORT")
    live = bool(command or opts.config or opts.server_url)  # a server named without --against
    if not (cli_mode or opts.serve or opts.against is not None or live):
        # The TUI indexes the file in the background: never parse a big file up front.
        return _open_in_tui(path)
    warnings: list[str] = []
    try:
        plan = build_plan(iter_events(path, warnings))
    except SessionFileError as exc:
        return _file_failure(str(exc), cli_mode)
    for warning in warnings:
        sys.stderr.write(_warning_line(warning, cli_mode))
    if opts.serve and opts.listen:
        return serve_over_http(opts, path)
    if opts.serve:
        return serve(RecordedServer(plan, source=str(path)), answer_wait=opts.timeout)
    if opts.against is None and not live:
        return _summary(path, header.to_line(), plan, warnings, cli_mode)
    words = ([opts.against] if opts.against else []) + list(opts.words) + command
    target = resolve_target(opts, words)
    try:
        rules = parse_rules(opts.ignore, defaults=not opts.no_default_ignores)
    except PathError as exc:
        raise UsageError(f"--ignore: {exc}") from exc
    options = ReplayOptions(
        rules=rules,
        timeout=opts.timeout,
        max_timeout=opts.max_timeout,
        notifications=opts.notifications,
    )
    recorder = make_recorder(opts, target, opts.record)
    try:
        outcome = _run(plan, target, options, recorder, cli_mode)
    finally:
        if recorder is not None:
            recorder.close()
    if isinstance(outcome, int):
        return outcome
    outcome.notes[:0] = warnings
    recorded_target = header.target.get("describe") or header.target.get("url") or ""
    data = {
        "file": str(path),
        "target": target.describe(),
        "recording": {"started": header.started, "tool": header.tool, "target": recorded_target},
        **outcome.to_json(),
        "ignore": [r.text for r in rules],
    }
    if opts.full:
        data["items"] = [i.to_json(full=True) for i in outcome.items]
    if cli_mode:
        sys.stdout.write(json.dumps(data, indent=2, ensure_ascii=False, default=str) + "\n")
    else:
        # Start-up: Rich (~50 ms) loads only for the human report, not for --cli or --serve.
        from inspector.commands.replay_report import print_report

        print_report(data)
    return 1 if outcome.differs else 0


def _import_har(har: Path, cli_mode: bool) -> Path:
    """A HAR (browser devtools' save of a Streamable HTTP session) as a session file in a
    private temporary folder, removed when the command ends."""
    imported = read_har(har)
    folder = Path(tempfile.mkdtemp(prefix="mcp-inspect-har-"))
    atexit.register(shutil.rmtree, folder, True)
    path = write_session(imported, folder / (har.stem + ".jsonl"), har)
    skipped = f" ({imported.skipped} other entries left out)" if imported.skipped else ""
    note = f"{har.name}: {len(imported.events)} frames of MCP over HTTP{skipped}"
    sys.stderr.write(_warning_line(note, cli_mode).replace("warning: ", "", 1))
    return path


def _open_in_tui(path: Path) -> int:
    """The session file opened offline in the TUI."""
    require_terminal(
        "the TUI needs a terminal; use `mcp-inspect --cli replay FILE "
        "--against TARGET` for a headless re-run"
    )
    try:
        source = IndexedSessionFile(path)
    except SessionFileError as exc:
        raise UsageError(str(exc)) from exc
    try:
        # Start-up: Textual loads only when the TUI opens.
        from inspector.tui.launch import run_replay

        return run_replay(source, title=path.name)
    finally:
        source.close()


def _run(
    plan: Plan, target: Target, options: ReplayOptions, recorder: Recorder | None, cli_mode: bool
) -> Report | int:
    async def go() -> Report:
        transport = build_transport(
            target, timeout=options.timeout, max_timeout=options.max_timeout
        )
        return await replay(plan, transport, options, recorder)

    try:
        return anyio.run(go)
    except BaseException as exc:
        failure = unwrap_failure(exc)
        if failure is None:
            raise
        return report_error(classify_failure(failure), "replay", as_json=cli_mode)


def _file_failure(message: str, cli_mode: bool) -> int:
    return report_error(CliError("file", message, ExitCode.USAGE), "replay", as_json=cli_mode)


def _warning_line(warning: str, cli_mode: bool) -> str:
    if cli_mode:
        return json.dumps({"warning": warning}, ensure_ascii=False) + "\n"
    return f"mcp-inspect: warning: {warning}\n"


def _summary(
    path: Path, header_line: bytes, plan: Plan, warnings: list[str], cli_mode: bool
) -> int:
    """``--cli replay FILE`` with no mode: what the file holds, as JSON."""
    methods = Counter(step.method for step in plan.requests)
    data: dict[str, Any] = {
        "file": str(path),
        "header": json.loads(header_line),
        "requests": sum(methods.values()),
        "answered": sum(1 for s in plan.requests if s.response is not None),
        "methods": dict(methods.most_common()),
        "serverRequests": len(plan.server_requests),
        "warnings": warnings,
        "protocolVersion": plan.protocol_version,
        "stateless": plan.stateless,
    }
    sys.stdout.write(json.dumps(data, indent=2, ensure_ascii=False, default=str) + "\n")
    return 0
