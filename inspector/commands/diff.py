"""``mcp-inspect diff OLD NEW``: what changed between two servers (or two recordings).

    diff old.jsonl new.jsonl                   two session files, offline
    diff "python v1.py" "python v2.py"         two stdio commands (each one quoted string)
    diff https://staging/mcp https://prod/mcp  two HTTP servers
    diff --config mcp.json staging production  two servers of a config file

Items are paired by name (URI for resources) across every page, compared field by field
and each change classified breaking, compatible or cosmetic
(:mod:`inspector.compare`). Exit codes: 0 nothing at or above ``--fail-on`` (default
breaking), 1 differences at or above it, 2 usage or unreadable file, 3 connection,
4 protocol error, 5 timeout, 6 HTTP error, 7 authorization needed.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from inspector.commands.exits import CliError, ExitCode, report_error
from inspector.commands.options import (
    ArgParser,
    Subparsers,
    UsageError,
    add_answer_options,
    responders_from,
)
from inspector.commands.sides import side_from_word, survey
from inspector.compare.catalog import compare_catalogs, not_compared
from inspector.compare.changes import LEVELS, RANK, counts, worst
from inspector.replay.diff import IgnoreRule, PathError, parse_rules
from inspector.survey.survey import Survey
from inspector.target import TRANSPORT_CHOICES

NAME = "diff"
FORMATS = ("text", "json", "markdown")


def add_parser(subparsers: Subparsers[ArgParser]) -> ArgParser:
    parser = subparsers.add_parser(
        NAME,
        description="Compare the catalogs of two servers (or session files) by name and "
        "classify each change breaking, compatible or cosmetic.",
        epilog="OLD and NEW: a session file, an http(s) URL, a server name of --config, or "
        "a stdio command as one quoted string. Exit codes: 0 nothing at or above --fail-on, "
        "1 differences at or above it, 2 usage or file error, 3 connection, 4 protocol, "
        "5 timeout, 6 HTTP error, 7 authorization needed.",
    )
    parser.add_argument("old", metavar="OLD", help="the server (or recording) before")
    parser.add_argument("new", metavar="NEW", help="the server (or recording) after")
    parser.add_argument(
        "--format", choices=FORMATS, default="text", help="text (default), json or markdown"
    )
    parser.add_argument(
        "--fail-on",
        choices=tuple(reversed(LEVELS)),
        default="breaking",
        help="exit 1 when a difference is at this level or above (default breaking)",
    )
    parser.add_argument(
        "--ignore",
        action="append",
        default=[],
        metavar="PATH",
        help="JSONPath of differences to leave out ($.tools[*].description, "
        "$.serverInfo.version, $..title)",
    )
    conn = parser.add_argument_group("connection")
    conn.add_argument("--config", help="server config file: OLD and NEW may name its servers")
    conn.add_argument(
        "-e",
        "--env",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="environment variable for stdio sides (repeatable)",
    )
    conn.add_argument("--cwd", help="working directory for stdio sides")
    conn.add_argument(
        "-H",
        "--header",
        action="append",
        default=[],
        metavar="'NAME: VALUE'",
        help="HTTP header for URL sides (repeatable)",
    )
    conn.add_argument("--transport", choices=TRANSPORT_CHOICES, default="auto")
    conn.add_argument("--timeout", type=float, default=30.0, help="per-request timeout (s)")
    conn.add_argument("--max-timeout", type=float, default=None, help="hard maximum (s)")
    add_answer_options(parser, listing=True)
    return parser


def run(opts: argparse.Namespace, command: list[str]) -> int:
    if command:
        raise UsageError(
            "diff: give each server as one quoted word, not after -- "
            '(mcp-inspect diff "python old.py" "python new.py")'
        )
    try:
        rules = parse_rules(opts.ignore, defaults=False)
    except PathError as exc:
        raise UsageError(f"--ignore: {exc}") from exc
    sides = [side_from_word(opts, opts.old, "old"), side_from_word(opts, opts.new, "new")]
    try:
        answers = responders_from(opts)
        old, new = (
            survey(side, opts.timeout, opts.max_timeout, responders=answers) for side in sides
        )
    except CliError as exc:
        return report_error(exc, "diff", as_json=opts.format == "json")
    data = report(old, new, opts.fail_on, rules)
    if opts.format == "json":
        sys.stdout.write(json.dumps(data, indent=2, ensure_ascii=False, default=str) + "\n")
    elif opts.format == "markdown":
        from inspector.commands.diff_report import markdown

        sys.stdout.write(markdown(data))
    else:
        from inspector.commands.diff_report import print_text

        print_text(data)
    return int(data["exitCode"])


def report(old: Survey, new: Survey, fail_on: str, rules: list[IgnoreRule]) -> dict[str, Any]:
    """The comparison as every output shows it, with the exit code it makes."""
    differences = compare_catalogs(
        old.catalog, new.catalog, lambda path: any(rule.matches(path) for rule in rules)
    )
    top = worst(differences)
    failed = top is not None and RANK[top] >= RANK[fail_on]
    return {
        "old": old.to_json(),
        "new": new.to_json(),
        "failOn": fail_on,
        "exitCode": 1 if failed else ExitCode.OK,
        "summary": counts(differences),
        "worst": top,
        "differences": [d.to_json() for d in differences],
        "notCompared": not_compared(old.catalog, new.catalog),
        "ignore": [r.text for r in rules],
    }
