"""``mcp-inspect [--cli] replay FILE ...``: re-run, serve or summarise a session file.

    replay FILE --against URL                      re-run against an HTTP server
    replay FILE --against -- python server.py      re-run against a stdio server
    replay FILE --serve                            be a stdio server answering from FILE
    replay FILE                                    summary of the file (or the TUI)

Each request's server notifications are a part of its verdict (``--notifications
strict|methods|ignore``, default methods: only a different sequence of methods counts).

Exit codes: 0 nothing differs, 1 differences, 2 usage or unreadable file,
3 connection failure (like ``--cli``).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any, NoReturn

from inspector.cli import (
    UsageError,
    add_connection_options,
    add_recording_options,
    make_recorder,
    resolve_target,
    split_dashdash,
)
from inspector.record.diff import DEFAULT_IGNORES, PathError, parse_rules
from inspector.record.format import SessionFileError
from inspector.record.notices import METHODS, MODES
from inspector.record.reader import iter_events, open_header
from inspector.record.replay import ReplayOptions, Report
from inspector.record.replay_plan import Plan, build_plan


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise UsageError(f"replay: {message} (see mcp-inspect replay --help)")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="mcp-inspect replay",
        description="Re-run a recorded session against a live server and compare the "
                    "answers (--against), or answer from it as a stdio server (--serve).",
        epilog="Exit codes: 0 no differences, 1 differences, 2 usage or file error, "
               "3 connection failure. Default ignores: " + ", ".join(DEFAULT_IGNORES))
    parser.add_argument("file", metavar="FILE", help="a session file (.jsonl)")
    parser.add_argument("words", nargs="*", metavar="TARGET",
                        help="the rest of a server command given after --against")
    mode = parser.add_argument_group("mode")
    mode.add_argument("--against", nargs="?", const="", default=None, metavar="TARGET",
                      help="re-run against TARGET: a URL, or a command (after --)")
    mode.add_argument("--serve", action="store_true",
                      help="act as a stdio MCP server answering from the recording")
    mode.add_argument("--cli", action="store_true", help="JSON report on stdout")
    cmp = parser.add_argument_group("comparison")
    cmp.add_argument("--ignore", action="append", default=[], metavar="PATH",
                     help="JSONPath of a field to leave out of the verdict "
                          "($.result.content[*].text, result.meta.timestamp, $..etag)")
    cmp.add_argument("--no-default-ignores", action="store_true",
                     help="compare ids, timestamps, session ids and tokens too")
    cmp.add_argument("--notifications", choices=MODES, default=METHODS,
                     help="the server's notifications per request (progress, logging, "
                          "list_changed): 'methods' (default) counts a different sequence "
                          "of methods, 'strict' every value too, 'ignore' leaves them out")
    cmp.add_argument("--full", action="store_true",
                     help="JSON report: include recorded and live messages of same items")
    add_connection_options(parser, timeout=30.0)
    add_recording_options(parser)
    return parser


def replay_main(argv: list[str], cli_mode: bool) -> int:
    """Entry point from ``inspector.cli`` (the word "replay" already removed)."""
    before, command = split_dashdash(argv)
    try:
        opts = build_parser().parse_intermixed_args(before)
    except SystemExit as exc:  # --help
        return int(exc.code or 0)
    cli_mode = cli_mode or opts.cli
    path = Path(opts.file)
    try:
        header = open_header(path)
    except SessionFileError as exc:
        return _file_failure(str(exc), cli_mode)
    if opts.serve and opts.against is not None:
        raise UsageError("replay: give either --serve or --against, not both")
    if not (cli_mode or opts.serve or opts.against is not None or command or opts.config):
        # The TUI indexes the file in the background: never parse a big file up front.
        from inspector.tui.launch import launch_replay

        code: int = launch_replay(path)
        return code
    warnings: list[str] = []
    try:
        plan = build_plan(iter_events(path, warnings))
    except SessionFileError as exc:
        return _file_failure(str(exc), cli_mode)
    for warning in warnings:
        sys.stderr.write(_warning_line(warning, cli_mode))
    if opts.serve:
        from inspector.record.serve import RecordedServer, serve

        return serve(RecordedServer(plan, source=str(path)), answer_wait=opts.timeout)
    if opts.against is None and not (command or opts.config):
        return _summary(path, header.to_line(), plan, warnings, cli_mode)
    words = ([opts.against] if opts.against else []) + list(opts.words) + command
    target = resolve_target(opts, words)
    try:
        rules = parse_rules(opts.ignore, defaults=not opts.no_default_ignores)
    except PathError as exc:
        raise UsageError(f"--ignore: {exc}") from exc
    options = ReplayOptions(rules=rules, timeout=opts.timeout, max_timeout=opts.max_timeout,
                            notifications=opts.notifications)
    recorder = make_recorder(opts, target, opts.record)
    try:
        outcome = _run(plan, target, options, recorder)
    finally:
        if recorder is not None:
            recorder.close()
    if isinstance(outcome, int):
        return outcome
    outcome.notes[:0] = warnings
    recorded_target = header.target.get("describe") or header.target.get("url") or ""
    data = {"file": str(path), "target": target.describe(),
            "recording": {"started": header.started, "tool": header.tool,
                          "target": recorded_target},
            **outcome.to_json(), "ignore": [r.text for r in rules]}
    if opts.full:
        data["items"] = [i.to_json(full=True) for i in outcome.items]
    if cli_mode:
        sys.stdout.write(json.dumps(data, indent=2, ensure_ascii=False, default=str) + "\n")
    else:
        print_report(data)
    return 1 if outcome.differs else 0


def _run(plan: Plan, target: Any, options: ReplayOptions, recorder: Any) -> Report | int:
    import anyio

    from inspector.headless import _unwrap, classify_failure
    from inspector.record.replay import replay
    from inspector.target import build_transport

    async def go() -> Report:
        transport = build_transport(target, timeout=options.timeout)
        return await replay(plan, transport, options, recorder)

    try:
        return anyio.run(go)
    except BaseException as exc:
        failure = _unwrap(exc)
        if failure is None:
            raise
        error = classify_failure(failure)
        sys.stderr.write(json.dumps(error.to_json(), ensure_ascii=False) + "\n")
        return error.code


def _file_failure(message: str, cli_mode: bool) -> int:
    if cli_mode:
        error = {"error": {"kind": "file", "message": message, "exitCode": 2}}
        sys.stderr.write(json.dumps(error, ensure_ascii=False) + "\n")
    else:
        sys.stderr.write(f"mcp-inspect: {message}\n")
    return 2


def _warning_line(warning: str, cli_mode: bool) -> str:
    if cli_mode:
        return json.dumps({"warning": warning}, ensure_ascii=False) + "\n"
    return f"mcp-inspect: warning: {warning}\n"


def _summary(path: Path, header_line: bytes, plan: Plan, warnings: list[str],
             cli_mode: bool) -> int:
    """``--cli replay FILE`` with no mode: what the file holds, as JSON."""
    methods = Counter(step.method for step in plan.requests)
    data = {"file": str(path), "header": json.loads(header_line),
            "requests": sum(methods.values()),
            "answered": sum(1 for s in plan.requests if s.response is not None),
            "methods": dict(methods.most_common()),
            "serverRequests": len(plan.server_requests), "warnings": warnings,
            "protocolVersion": plan.protocol_version, "stateless": plan.stateless}
    sys.stdout.write(json.dumps(data, indent=2, ensure_ascii=False, default=str) + "\n")
    return 0


_MARKS = {"same": ("=", "green"), "changed": ("~", "yellow"), "missing": ("-", "red"),
          "new": ("+", "cyan")}
CHANGES_SHOWN = 8


def print_report(data: dict[str, Any], console: Any = None) -> None:
    """The human report: one line an exchange, changes under it, a summary line.

    Everything the server sent is shown literally (no markup, controls visible).
    """
    from rich.console import Console
    from rich.text import Text

    from inspector.tui.safe_text import one_line

    out = console or Console(highlight=False, soft_wrap=True)
    server = data.get("server") or {}
    head = Text(f"replay {data['file']} against ", style="bold")
    head.append(one_line(str(data["target"]), 120))
    if server:
        head.append(f"  ({one_line(str(server.get('name', '?')), 60)} "
                    f"{one_line(str(server.get('version', '')), 30)})", style="dim")
    out.print(head)
    for item in data["items"]:
        mark, style = _MARKS[item["status"]]
        line = Text(f" {mark} ", style=f"bold {style}")
        line.append(f"{item['status']:<8}", style=style)
        where = f"#{item['seq']} " if item.get("seq") else ""
        line.append(f"{where}{one_line(item['method'], 60)}")
        if item.get("detail"):
            line.append(f" {one_line(item['detail'], 60)}", style="bold")
        if item["kind"] == "server-request":
            line.append("  (server request)", style="dim")
        if item.get("reason"):
            line.append(f"  {one_line(item['reason'], 160)}", style="dim")
        out.print(line)
        changes = item.get("changes") or []
        for change in changes[:CHANGES_SHOWN]:
            text = Text(f"      {one_line(change['path'], 80)}: ", style="bold")
            if change["kind"] == "added":
                text.append("(added) ", style="dim")
                text.append(_brief(change.get("new")), style="green")
            elif change["kind"] == "removed":
                text.append(_brief(change.get("old")), style="red")
                text.append(" (removed)", style="dim")
            else:
                text.append(_brief(change.get("old")), style="red")
                text.append(" -> ")
                text.append(_brief(change.get("new")), style="green")
            out.print(text)
        if len(changes) > CHANGES_SHOWN:
            out.print(Text(f"      ... {len(changes) - CHANGES_SHOWN} more changes",
                           style="dim"))
        if item.get("notifications"):
            _print_notifications(out, item["notifications"])
    for note in data.get("notes") or []:
        out.print(Text(f"note: {one_line(str(note), 200)}", style="dim"))
    counts = data["summary"]
    notices = data.get("notifications") or {}
    if notices.get("changed") or notices.get("volatile"):
        out.print(Text(f"notifications ({one_line(str(notices.get('mode')), 20)}): "
                       f"{notices.get('changed', 0)} changed, {notices.get('volatile', 0)} "
                       "with values that differ (not counted)", style="dim"))
    summary = Text("\n")
    for status in ("same", "changed", "missing", "new"):
        _, style = _MARKS[status]
        summary.append(f"{counts[status]} {status}", style=style if counts[status] else "dim")
        summary.append("  ")
    summary.append("DIFFERENT" if data["differs"] else "OK",
                   style="bold red" if data["differs"] else "bold green")
    out.print(summary)


_NOTICE_STYLES = {"same": "dim", "changed": "yellow", "volatile": "dim"}


def _print_notifications(out: Any, notices: dict[str, Any]) -> None:
    """The notifications part of one item: methods recorded vs live, value changes."""
    from rich.text import Text

    from inspector.tui.safe_text import one_line

    status = str(notices.get("status"))
    line = Text("      notifications: ", style="bold")
    label = {"volatile": "values differ (not counted)"}.get(status, status)
    line.append(label, style=_NOTICE_STYLES.get(status, ""))
    recorded, live = notices.get("recorded") or [], notices.get("live") or []
    if notices.get("sequenceDiffers"):
        line.append(f"  recorded {one_line(_methods(recorded), 120)}", style="red")
        line.append(f"  live {one_line(_methods(live), 120)}", style="green")
    else:
        line.append(f"  {one_line(_methods(live or recorded), 120)}", style="dim")
    out.print(line)
    changes = notices.get("changes") or []
    style = "" if status == "changed" else "dim"
    for change in changes[:CHANGES_SHOWN]:
        where = f"{one_line(str(change.get('method')), 60)}#{change.get('index')}"
        text = Text(f"        {where} {one_line(str(change.get('path')), 80)}: ", style=style)
        if change.get("kind") == "added":
            text.append(f"(added) {_brief(change.get('new'))}", style=style)
        elif change.get("kind") == "removed":
            text.append(f"{_brief(change.get('old'))} (removed)", style=style)
        else:
            text.append(f"{_brief(change.get('old'))} -> {_brief(change.get('new'))}",
                        style=style)
        out.print(text)
    if len(changes) > CHANGES_SHOWN:
        out.print(Text(f"        ... {len(changes) - CHANGES_SHOWN} more", style="dim"))


def _methods(methods: list[str]) -> str:
    """``notifications/progress x3, notifications/message``: runs counted, prefix dropped."""
    parts: list[str] = []
    last, count = "", 0
    for method in [*methods, ""]:
        if method == last:
            count += 1
            continue
        if last:
            parts.append(last.removeprefix("notifications/") + (f" x{count}" if count > 1 else ""))
        last, count = method, 1
    return ", ".join(parts) or "none"


def _brief(value: Any) -> str:
    from inspector.tui.safe_text import one_line

    return one_line(json.dumps(value, ensure_ascii=False, default=str), 100)
