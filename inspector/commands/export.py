"""``mcp-inspect export FILE --format otlp|har|markdown|json [--output OUT]``.

    export s.jsonl --format markdown --filter 'is:error'   a transcript for a bug report
    export s.jsonl --format har --output s.har             every HTTP exchange, for devtools
    export s.jsonl --format json | jq ...                  the events as one JSON array
    export s.jsonl --format otlp --output spans.json       OTLP JSON (one request a line)
    export s.jsonl --format otlp --otlp-endpoint http://127.0.0.1:4318
                                                           sent with the OpenTelemetry SDK

Every format reads the file as a stream: memory stays flat whatever its size. Output goes
to stdout, or to ``--output`` (0600, as session files are: it holds what they hold).
Exit codes: 0 written, 2 usage or unreadable file, 3 the OTLP endpoint refused or is down.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import IO

from inspector.commands.exits import CliError, ExitCode, report_error
from inspector.commands.options import ArgParser, Subparsers, UsageError
from inspector.export.events_json import write_events_json
from inspector.export.har import write_har
from inspector.export.http_exchanges import group_exchanges
from inspector.export.markdown import write_markdown
from inspector.export.otlp_json import write_otlp_json
from inspector.export.otlp_sdk import ExportFailed, OtelMissing, otlp_http_exporter, send_spans
from inspector.export.spans import Span, session_spans
from inspector.logstore.filter_query import LogFilter
from inspector.record.format import SessionFileError
from inspector.record.reader import iter_events, open_header

NAME = "export"
FORMATS = ("otlp", "har", "markdown", "json")
BY_SUFFIX = {".har": "har", ".md": "markdown", ".markdown": "markdown"}


def add_parser(subparsers: Subparsers[ArgParser]) -> ArgParser:
    parser = subparsers.add_parser(
        NAME,
        description="Export a recorded session (TUI, --cli, proxy, replay, test run) to "
        "the tools people already use: OpenTelemetry traces (OTLP JSON, or sent to a "
        "collector), HAR 1.2 for browser devtools, a Markdown transcript, or the events as "
        "one JSON array for jq.",
        epilog="Exit codes: 0 written, 2 usage or unreadable file, 3 the OTLP endpoint "
        "could not be reached.",
    )
    parser.add_argument("file", metavar="FILE", help="a session file (.jsonl)")
    parser.add_argument(
        "--format",
        choices=FORMATS,
        default=None,
        help="what to write (taken from --output's suffix when it is .har or .md)",
    )
    parser.add_argument(
        "--output", "-o", metavar="OUT", default=None, help="write here (default: stdout)"
    )
    parser.add_argument(
        "--filter",
        metavar="QUERY",
        default="",
        help="markdown and json: only the frames matching QUERY (the log's filter "
        "language: 'method:tools/call is:error')",
    )
    parser.add_argument(
        "--otlp-endpoint",
        metavar="URL",
        default=None,
        help="otlp: send the spans to this OTLP/HTTP collector (http://host:4318) with the "
        "OpenTelemetry SDK (pip install 'mcp-inspect[otel]')",
    )
    return parser


def run(opts: argparse.Namespace, command: list[str]) -> int:
    if command:
        raise UsageError("export takes no command after --")
    fmt = _format(opts)
    path = Path(opts.file)
    try:
        header = open_header(path)
    except SessionFileError as exc:
        raise UsageError(str(exc)) from exc
    if opts.filter:
        if fmt not in ("markdown", "json"):
            raise UsageError("--filter picks frames for --format markdown or json only")
        problems = LogFilter.parse(opts.filter).problems
        if problems:
            raise UsageError(f"--filter {opts.filter!r}: " + "; ".join(map(str, problems)))
    if opts.otlp_endpoint is not None and fmt != "otlp":
        raise UsageError("--otlp-endpoint goes with --format otlp")
    warnings: list[str] = []
    events = iter_events(path, warnings)
    if fmt == "otlp" and opts.otlp_endpoint is not None:
        try:
            count = _send(session_spans(header, events), opts.otlp_endpoint)
        except CliError as exc:
            return report_error(exc, "export", as_json=False)
        _report(warnings, f"sent {count} spans to {opts.otlp_endpoint}")
        return 0
    with _output(opts.output) as out:
        if fmt == "json":
            count = write_events_json(events, out, opts.filter)
            what = f"{count} events"
        elif fmt == "markdown":
            count = write_markdown(header, events, out, opts.filter)
            what = f"{count} frames"
        elif fmt == "har":
            count = write_har(group_exchanges(events), out, f"exported from {path.name}")
            what = f"{count} HTTP exchanges"
        else:
            count = write_otlp_json(session_spans(header, events), out)
            what = f"{count} spans"
    _report(warnings, f"wrote {what} to {opts.output}" if opts.output else "")
    return 0


def _format(opts: argparse.Namespace) -> str:
    if opts.format:
        return str(opts.format)
    if opts.otlp_endpoint:
        return "otlp"
    suffix = Path(opts.output).suffix.lower() if opts.output else ""
    if suffix in BY_SUFFIX:
        return BY_SUFFIX[suffix]
    raise UsageError("say which format: --format " + "|".join(FORMATS))


def _send(spans: Iterator[Span], endpoint: str) -> int:
    try:
        return send_spans(spans, otlp_http_exporter(endpoint))
    except OtelMissing as exc:
        raise UsageError(str(exc)) from exc
    except ExportFailed as exc:
        raise CliError(
            "connection",
            f"the OTLP endpoint {endpoint} did not take the spans ({exc}); is a collector "
            "listening there (OTLP/HTTP, usually port 4318)?",
            ExitCode.CONNECTION,
        ) from exc


@contextlib.contextmanager
def _output(target: str | None) -> Iterator[IO[str]]:
    if target is None or target == "-":
        yield sys.stdout
        sys.stdout.flush()
        return
    try:
        fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    except OSError as exc:
        raise UsageError(f"--output {target}: cannot be written: {exc.strerror or exc}") from exc
    with open(fd, "w", encoding="utf-8") as out:
        yield out


def _report(warnings: list[str], done: str) -> None:
    for warning in warnings:
        sys.stderr.write(f"warning: {warning}\n")
    if done:
        sys.stderr.write(done + "\n")
