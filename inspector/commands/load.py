"""``mcp-inspect load TARGET``: many calls, many sessions, and what they cost the server.

    load --tool-name add --tool-arg a=1 --tool-arg b=2 --concurrency 8 --duration 30s -- CMD
    load https://host/mcp --tool-name search --tool-arg q=x --rate 200 --duration 10s
    load --workload calls.json --requests 10000 --json run.json --max-p99 50 -- CMD

The closed model (default): ``--concurrency`` virtual users, each its own session (a stdio
server process each, or one HTTP connection pool each; ``--share-session``: one session, N
calls in flight), each calling again as soon as its last call ended. The open model
(``--rate R``): R calls a second on a schedule whatever the latency, so a slow server
shows as queueing. A live display while it runs on a terminal; the report at the end;
ctrl+c stops it and reports what ran.

Exit codes: 0 the run held its limits, 1 ``--max-p99`` or ``--max-error-rate`` broken,
2 usage, 3 no session could be opened.
"""

from __future__ import annotations

import argparse
import signal
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio

from inspector.commands.connect import Connection
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
    add_trace_options,
    live_export,
    make_recorder,
    resolve_target,
)
from inspector.commands.tool_call import prepare_call, split_pairs
from inspector.engine.client import McpClient
from inspector.engine.session import Session
from inspector.load.report import (
    CompareError,
    compare,
    limits,
    report_csv,
    report_json,
    report_text,
)
from inspector.load.runner import LoadError, LoadOptions, run_load
from inspector.load.sampling import SampledRecorder
from inspector.load.stats import Stats
from inspector.load.units import parse_duration
from inspector.load.workload import Call, WorkloadError, read_workload, tool_call
from inspector.record.recorder import Recorder

if TYPE_CHECKING:
    from inspector.export.live import LiveExport
from inspector.target import Target

NAME = "load"
OPEN_TIMEOUT = 30.0  # at least this long for a session to open
METHODS = ("tools/call", "resources/read", "prompts/get", "tools/list", "ping")


def seconds(text: str) -> float:
    """``30s``, ``2m``, ``500ms``, ``1.5`` (seconds)."""
    try:
        return parse_duration(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from exc


def positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number of at least 1")
    return value


def add_parser(subparsers: Subparsers[ArgParser]) -> ArgParser:
    parser = subparsers.add_parser(
        NAME,
        description="Call a server many times from many sessions and report throughput, "
        "latency percentiles (an HDR histogram), errors by kind and the server's stderr.",
        epilog="Exit codes: 0 ok, 1 a --max-p99/--max-error-rate limit broken, 2 usage, "
        "3 no session could be opened. With no target the bundled demo server is used.",
    )
    parser.add_argument("words", nargs="*", default=[], metavar="TARGET", help="a URL or command")
    what = parser.add_argument_group("what to call")
    what.add_argument("--method", choices=METHODS, default=None)
    what.add_argument("--tool-name")
    what.add_argument("--tool-arg", action="append", default=[], metavar="KEY=VALUE")
    what.add_argument("--tool-args-json", metavar="JSON")
    what.add_argument("--uri")
    what.add_argument("--prompt-name")
    what.add_argument("--prompt-args", action="append", default=[], metavar="KEY=VALUE")
    what.add_argument(
        "--workload",
        metavar="FILE",
        help='a JSON list of calls: [{"tool": "add", "arguments": {...}}, '
        '{"method": "resources/read", "params": {"uri": ...}}]',
    )
    how = parser.add_argument_group("how hard")
    how.add_argument("--concurrency", "-c", type=positive_int, default=1, metavar="N")
    how.add_argument("--rate", type=float, default=None, metavar="R", help="calls/s (open model)")
    how.add_argument("--duration", type=seconds, default=None, metavar="TIME")
    how.add_argument("--requests", "-n", type=positive_int, default=None, metavar="N")
    how.add_argument("--warmup", type=seconds, default=0.0, metavar="TIME")
    how.add_argument("--share-session", action="store_true", help="one session, N in flight")
    how.add_argument(
        "--record-one-in",
        type=positive_int,
        default=100,
        metavar="N",
        help="with --record: keep 1 in N successful calls (every failed one is kept)",
    )
    how.add_argument(
        "--locustfile",
        action="store_true",
        help="print the path of the ready locustfile (for Locust, past one machine) and exit",
    )
    out = parser.add_argument_group("report")
    out.add_argument("--json", metavar="FILE", help="the numbers as JSON (for --compare)")
    out.add_argument("--csv", metavar="FILE", help="the numbers as CSV")
    out.add_argument("--compare", metavar="PREVIOUS.json", help="what moved since that run")
    out.add_argument("--max-p99", type=float, default=None, metavar="MS")
    out.add_argument("--max-error-rate", type=float, default=None, metavar="RATE")
    add_connection_options(parser, timeout=30.0)
    add_recording_options(parser)
    add_trace_options(parser)
    return parser


def run(opts: argparse.Namespace, command: list[str]) -> int:
    if opts.locustfile:
        # the path only: importing it would load Locust (and gevent's patches) here
        sys.stdout.write(str(Path(__file__).resolve().parent.parent / "locust" / "locustfile.py"))
        sys.stdout.write("\n")
        return ExitCode.OK
    if opts.duration is None and opts.requests is None:
        raise UsageError("say how long: --duration 30s or --requests N")
    if opts.rate is not None and opts.rate <= 0:
        raise UsageError("--rate is calls a second, more than 0")
    target = resolve_target(opts, list(opts.words) + command)
    workload = _workload(opts)
    options = LoadOptions(
        concurrency=opts.concurrency,
        rate=opts.rate,
        duration=opts.duration,
        requests=opts.requests,
        warmup=opts.warmup,
        timeout=opts.timeout,
        share_session=opts.share_session,
    )
    if opts.compare and not Path(opts.compare).is_file():
        raise UsageError(f"--compare {opts.compare}: no such file")
    trace = live_export(opts)
    recorder = make_recorder(opts, target, opts.record, {"load": options.describe()})
    settings = {"target": target.describe(), "describe": options.describe()}
    try:
        stats = anyio.run(_run, target, workload, options, opts, recorder, trace)
    except CliError as exc:
        return report_error(exc, "load", as_json=False)
    finally:
        if trace is not None:
            trace.close()
        if recorder is not None:
            recorder.close()
    sys.stdout.write(report_text(stats, settings))
    if opts.json:
        import json

        Path(opts.json).write_text(json.dumps(report_json(stats, settings), indent=2) + "\n")
    if opts.csv:
        Path(opts.csv).write_text(report_csv(stats))
    if opts.compare:
        try:
            sys.stdout.write(compare(stats, Path(opts.compare)))
        except CompareError as exc:
            raise UsageError(str(exc)) from exc
    broken = limits(stats, opts.max_p99, opts.max_error_rate)
    for reason in broken:
        sys.stderr.write(f"load: {reason}\n")
    return ExitCode.TOOL_ERROR if broken else ExitCode.OK


def _workload(opts: argparse.Namespace) -> list[Call] | _ToolCallSpec:
    if opts.workload:
        try:
            return read_workload(Path(opts.workload))
        except WorkloadError as exc:
            raise UsageError(str(exc)) from exc
    method = opts.method or ("tools/call" if opts.tool_name else None)
    if method is None:
        raise UsageError("say what to call: --tool-name NAME, --method ..., or --workload FILE")
    if method == "tools/call":
        if not opts.tool_name:
            raise UsageError("--method tools/call needs --tool-name")
        return _ToolCallSpec(opts.tool_name, opts.tool_arg, opts.tool_args_json)
    if method == "resources/read":
        if not opts.uri:
            raise UsageError("--method resources/read needs --uri")
        return [Call(method, {"uri": opts.uri})]
    if method == "prompts/get":
        if not opts.prompt_name:
            raise UsageError("--method prompts/get needs --prompt-name")
        try:
            arguments = split_pairs(opts.prompt_args, "--prompt-args")
        except CliError as exc:
            raise UsageError(exc.message) from exc
        return [Call(method, {"name": opts.prompt_name, "arguments": arguments})]
    return [Call(method, {})]


class _ToolCallSpec:
    """A tool call whose ``--tool-arg`` values are coerced by the tool's schema, which
    the first session lists before the run (as ``--cli`` does)."""

    def __init__(self, name: str, pairs: list[str], as_json: str | None) -> None:
        self.name, self.pairs, self.as_json = name, pairs, as_json

    async def resolve(self, session: Session) -> list[Call]:
        prepared = await prepare_call(McpClient(session), self.name, self.pairs, self.as_json, True)
        return [tool_call(prepared.name, prepared.arguments)]


async def _run(
    target: Target,
    workload: list[Call] | _ToolCallSpec,
    options: LoadOptions,
    opts: argparse.Namespace,
    recorder: Recorder | None,
    trace: LiveExport | None = None,
) -> Stats:
    users = iter(range(1, 1_000_000))
    shared = [0, 0]

    @asynccontextmanager
    async def open_session() -> AsyncIterator[Session]:
        sampled = None
        if recorder is not None:
            sampled = SampledRecorder(recorder, next(users), opts.record_one_in, shared)
        connection = Connection(
            target,
            recorder=sampled,  # type: ignore[arg-type]
            # opening a session (a server starting, a handshake) may take longer than a
            # call's bound; each call passes --timeout itself
            timeout=max(options.timeout, OPEN_TIMEOUT),
            max_timeout=opts.max_timeout,
            trace=trace,  # each virtual user its own trace
        )
        async with connection as session:
            yield session

    calls = await _calls(workload, open_session)
    stats = Stats()
    live = _Live() if sys.stdout.isatty() else None
    with anyio.CancelScope() as scope:
        with anyio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:

            async def stop_on_signal() -> None:
                async for _ in signals:
                    scope.cancel()
                    return

            async with anyio.create_task_group() as tg:
                tg.start_soon(stop_on_signal)
                try:
                    await run_load(
                        open_session,
                        calls,
                        options,
                        on_tick=live.update if live else None,
                        stats=stats,
                    )
                except LoadError as exc:
                    raise CliError("connection", str(exc), ExitCode.CONNECTION) from exc
                finally:
                    if live is not None:
                        live.stop()
                tg.cancel_scope.cancel()
    return stats


async def _calls(workload: list[Call] | _ToolCallSpec, open_session: Any) -> list[Call]:
    if isinstance(workload, list):
        return workload
    try:
        async with open_session() as session:
            return await workload.resolve(session)
    except Exception as exc:  # a task group's wrapper around what went wrong
        failure = unwrap_failure(exc)
        if failure is None:
            raise
        raise classify_failure(failure) from exc


class _Live:
    """The numbers on the terminal while the run goes (Rich, redrawn 4 times a second)."""

    def __init__(self) -> None:
        from rich.console import Console
        from rich.live import Live

        self.live = Live(console=Console(stderr=False), auto_refresh=False, transient=True)
        self.live.start()

    def update(self, stats: Stats) -> None:
        from inspector.load.report import sparkline

        errors = ", ".join(f"{k} {g.count}" for k, g in stats.errors.items()) or "none"
        text = (
            f"calls {stats.total:,}  {stats.throughput:,.1f}/s  in flight {stats.in_flight}  "
            f"p50 {stats.percentile_ms(50):.2f} ms  p90 {stats.percentile_ms(90):.2f} ms  "
            f"p99 {stats.percentile_ms(99):.2f} ms  max {stats.max_ms:.2f} ms\n"
            f"errors {errors}\n{sparkline(stats.per_second)}"
        )
        from rich.text import Text

        self.live.update(Text(text), refresh=True)

    def stop(self) -> None:
        self.live.stop()
