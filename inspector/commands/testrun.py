"""``mcp-inspect test FILE|DIR... [-- COMMAND]``: run collections, as CI runs tests.

Every file is read and checked first (a mistake is exit 2 with its file, line and key,
and no server is started); then each file gets one connection (made as ``--cli`` makes
it: :class:`~inspector.commands.connect.Connection`) and its steps run in order. One line
per step; ``--junit``, ``--json``, GitHub annotations; exit 0 when everything passed, 1
when an expectation failed, the ``--cli`` codes when a server could not be reached.
A DIR gives its ``*.mcp.yaml``, ``*.mcp.yml`` and ``*.mcp.json`` files (the names the
pytest plugin collects), at any depth; a FILE may have any name.
"""

from __future__ import annotations

import argparse
import copy
import os
import signal
import sys
import time
from pathlib import Path

import anyio

from inspector.collection.answers import StepAnswers
from inspector.collection.load import load_collection
from inspector.collection.model import Collection, CollectionFileError, ServerSpec
from inspector.collection.report import FileReport, json_report, junit_xml
from inspector.collection.run import ERROR, Runner
from inspector.commands.connect import Connection
from inspector.commands.failures import ExitCode, classify_failure, unwrap_failure
from inspector.commands.oauth_options import add_oauth_options
from inspector.commands.options import (
    PROG,
    ArgParser,
    Subparsers,
    UsageError,
    add_connection_options,
    make_recorder,
    resolve_target,
)
from inspector.commands.testrun_output import Printer, github_annotations, make_printer
from inspector.engine.signals import quit_on_signals, signal_exit_code
from inspector.record.redact import Redactor
from inspector.target import Target

SUFFIXES = (".mcp.yaml", ".mcp.yml", ".mcp.json")


def add_parser(subparsers: Subparsers[ArgParser]) -> ArgParser:
    parser: ArgParser = subparsers.add_parser(
        "test",
        description="Run collection files (YAML or JSON: a server, vars, steps with "
        "expectations). One connection per file, steps in order.",
        epilog="A TARGET overrides the files' server: a URL among the FILEs, --server-url, "
        "--config/--server, or a command after --. Exit codes: 0 all passed, 1 an "
        "expectation failed, 2 usage or a bad file, 3 connection, 5 timeout, 6 HTTP error, "
        "7 authorization needed.",
    )
    parser.add_argument("paths", nargs="+", metavar="FILE|DIR", help="collections to run")
    parser.add_argument(
        "--fail-fast", action="store_true", help="stop a file at its first failed step"
    )
    parser.add_argument("--junit", metavar="FILE", help="write a JUnit XML report to FILE")
    parser.add_argument(
        "--json", action="store_true", help="print a JSON report on stdout instead of lines"
    )
    parser.add_argument(
        "--record", metavar="DIR", help="keep each file's session in DIR (for replay)"
    )
    parser.add_argument(
        "--no-redact", action="store_true", help="keep secrets in the sessions --record writes"
    )
    parser.add_argument(
        "--update", action="store_true", help="write the snapshot: true steps' golden copies"
    )
    parser.add_argument(
        "--protocol-version",
        default=None,
        help="pin the protocol version (default: found with one probe, remembered)",
    )
    add_connection_options(parser)
    add_oauth_options(parser)
    parser.set_defaults(no_record=False)  # make_recorder's: --record DIR is the only switch
    return parser


def default_options() -> argparse.Namespace:
    """The test command's options with nothing given (the pytest plugin connects with them)."""
    parser = add_parser(ArgParser(prog=PROG).add_subparsers(parser_class=ArgParser))
    return parser.parse_args(["-"])


def collection_files(paths: list[str]) -> list[Path]:
    """The files named, and the collections found under the folders named."""
    found: list[Path] = []
    for word in paths:
        path = Path(word)
        if path.is_dir():
            inside = sorted(p for p in path.rglob("*") if p.name.endswith(SUFFIXES))
            if not inside:
                raise UsageError(f"test: {word}: no collection files ({', '.join(SUFFIXES)})")
            found += inside
        elif path.is_file():
            found.append(path)
        else:
            raise UsageError(f"test: {word}: no such file or folder")
    return list(dict.fromkeys(found))


def target_for(spec: ServerSpec, opts: argparse.Namespace) -> Target:
    """The target of a file's ``server`` block, resolved as the command line's options are
    (a config file's entry, OAuth settings for a URL)."""
    given = copy.copy(opts)
    given.env = [f"{k}={v}" for k, v in spec.env.items()]
    given.header = [f"{k}: {v}" for k, v in spec.headers.items()]
    given.cwd = spec.cwd
    given.transport = spec.transport
    given.server_url = None
    given.config = spec.config
    given.server = spec.name
    words = spec.command or ([spec.url] if spec.url else [])
    return resolve_target(given, words)


def override(opts: argparse.Namespace, urls: list[str], command: list[str]) -> Target | None:
    """The target given on the command line, which every file then uses; None: none."""
    if len(urls) > 1:
        raise UsageError("test: give one server URL")
    if not (urls or command or opts.server_url or opts.config):
        return None
    return resolve_target(opts, urls + command)


def run(opts: argparse.Namespace, command: list[str]) -> int:
    urls = [p for p in opts.paths if p.startswith(("http://", "https://"))]
    given = override(opts, urls, command)
    files = collection_files([p for p in opts.paths if p not in urls])
    collections: list[Collection] = []
    bad: list[CollectionFileError] = []
    for path in files:
        try:
            collections.append(load_collection(path))
        except CollectionFileError as exc:
            bad.append(exc)
    for collection in collections:
        if collection.server is None and given is None:
            bad.append(
                CollectionFileError(
                    collection.path,
                    1,
                    "server",
                    "no server: give server: {command: [...]} "
                    "or {url: ...}, or a TARGET on the command line",
                )
            )
    if bad:
        for problem in bad:
            sys.stderr.write(f"{PROG} test: {problem}\n")
        return ExitCode.USAGE
    targets = [given or target_for(c.server or ServerSpec(), opts) for c in collections]
    printer = make_printer(opts.json, sum(len(c.steps) for c in collections))
    stopped_by: list[int] = []
    reports = anyio.run(_run_all, collections, targets, opts, printer, stopped_by)
    printer.finish(reports)
    if opts.json:
        import json

        sys.stdout.write(json.dumps(json_report(reports), ensure_ascii=False, indent=2) + "\n")
    if opts.junit:
        try:
            Path(opts.junit).write_text(junit_xml(reports), encoding="utf-8")
        except OSError as exc:
            sys.stderr.write(f"{PROG} test: --junit {opts.junit}: cannot write: {exc}\n")
            return ExitCode.USAGE
    if os.environ.get("GITHUB_ACTIONS") == "true":
        sys.stdout.write(github_annotations(reports))
    if stopped_by:
        name = signal.Signals(stopped_by[0]).name
        sys.stderr.write(f"{PROG} test: stopped by {name}; the server was shut down\n")
        return signal_exit_code(stopped_by[0])
    return exit_code(reports)


def exit_code(reports: list[FileReport]) -> int:
    """A connection's failure code first, then 1 for a failed step, else 0."""
    for report in reports:
        if report.error is not None:
            return report.code
    if any(r.status == ERROR for report in reports for r in report.results):
        return ExitCode.CONNECTION  # the connection was lost during a file
    return ExitCode.OK if all(r.ok for r in reports) else ExitCode.TOOL_ERROR


async def _run_all(
    collections: list[Collection],
    targets: list[Target],
    opts: argparse.Namespace,
    printer: Printer,
    stopped_by: list[int],
) -> list[FileReport]:
    """Each file in turn; SIGTERM or SIGHUP (noted in ``stopped_by``) stop the run the
    way ``--cli`` stops: the file's server is shut down, the files done are reported."""
    reports: list[FileReport] = []
    with anyio.CancelScope() as scope:

        def stop(signum: int) -> None:
            stopped_by.append(signum)
            scope.cancel()

        with quit_on_signals(stop):
            for collection, target in zip(collections, targets, strict=True):
                printer.start_file(collection)
                report = await run_file(collection, target, opts, printer)
                if report.error is not None:
                    printer.file_error(report)
                reports.append(report)
    return reports


async def run_file(
    collection: Collection, target: Target, opts: argparse.Namespace, printer: Printer
) -> FileReport:
    """One file on one connection; a connection failure is the report's ``error``."""
    report = FileReport(collection.path)
    started = time.perf_counter()
    answers = StepAnswers(collection)
    recorder = None
    if opts.record:
        recorded = Path(opts.record) / f"{collection.path.name}.jsonl"
        recorder = make_recorder(opts, target, str(recorded))
        if recorder is not None:
            for secret in collection.secrets:
                recorder.redactor.add_secret(secret)
    redactor = Redactor(target.secrets())
    connection = Connection(
        target,
        responders=answers.responders(),
        recorder=recorder,
        timeout=opts.timeout,
        max_timeout=opts.max_timeout,
        protocol_version=opts.protocol_version,
    )
    try:
        async with connection as session:
            from inspector.engine.client import McpClient

            runner = Runner(
                collection, McpClient(session), answers, update=opts.update, redactor=redactor
            )
            report.results = await runner.run(fail_fast=opts.fail_fast, on_result=printer.step)
    except BaseException as exc:
        failure = unwrap_failure(exc)
        if failure is None:
            raise
        error = classify_failure(failure, connection.session_expired)
        report.error = redactor.text(error.message)
        report.code = error.code
    finally:
        if recorder is not None:
            recorder.close()
    report.seconds = time.perf_counter() - started
    return report
