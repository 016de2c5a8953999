"""``mcp-inspect lint TARGET``: a server's catalog checked against the rule catalogue.

    lint -- python server.py                  a stdio server
    lint https://host/mcp                     an HTTP server
    lint session.jsonl                        a session file, offline
    lint --config .mcp.json                   each server of a config (lint_each)
    lint --sarif lint.sarif -- python s.py    SARIF 2.1.0 for GitHub code scanning

The rules are :mod:`inspector.lint.rules` (the README lists them). Exit codes: 0 no error
(warnings and info do not fail), 1 at least one error, 2 usage or unreadable file,
3 connection, 4 protocol, 5 timeout, 6 HTTP error, 7 authorization needed.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from inspector.commands.exits import CliError, ExitCode, report_error
from inspector.commands.options import (
    ArgParser,
    Subparsers,
    UsageError,
    add_answer_options,
    add_connection_options,
    add_recording_options,
    make_recorder,
    names_no_server,
    resolve_target,
    responders_from,
    say_demo,
)
from inspector.commands.sides import Side, looks_like_file, survey
from inspector.config import ConfigError, server_names
from inspector.engine.kinds import CATALOG_KINDS
from inspector.lint.check import Issue, lint
from inspector.lint.rules import ERROR, LEVELS
from inspector.lint.sarif import sarif
from inspector.survey.survey import Survey

NAME = "lint"


def add_parser(subparsers: Subparsers[ArgParser]) -> ArgParser:
    parser = subparsers.add_parser(
        NAME,
        description="Check a server's catalog (or a session file's) against the documented "
        "rule catalogue: names, descriptions, schemas, duplicates, protocol findings.",
        epilog="Exit codes: 0 no error, 1 errors found, 2 usage or file error, 3 connection, "
        "4 protocol, 5 timeout, 6 HTTP error, 7 authorization needed.",
    )
    parser.add_argument(
        "target",
        nargs="*",
        default=[],
        metavar="TARGET",
        help="a session file, a URL, or a server command (after -- when it has flags)",
    )
    parser.add_argument("--format", choices=("text", "json"), default="text")
    parser.add_argument("--sarif", metavar="FILE", help="also write SARIF 2.1.0 to FILE")
    add_connection_options(parser, timeout=30.0)
    add_answer_options(parser, listing=True)
    add_recording_options(parser)
    return parser


def run(opts: argparse.Namespace, command: list[str]) -> int:
    words = list(opts.target) + command
    if opts.config and not words and opts.server is None:
        try:
            names = server_names(opts.config, file_order=True)
        except ConfigError as exc:
            raise UsageError(str(exc)) from exc
        if len(names) > 1:
            from inspector.commands.lint_each import run_each  # only for several servers

            return run_each(opts, names)
    side, artifact = _side(opts, words)
    recorder = None
    if side.target is not None and opts.record:
        recorder = make_recorder(opts, side.target, opts.record)
    try:
        surveyed = survey(side, opts.timeout, opts.max_timeout, recorder, responders_from(opts))
    except CliError as exc:
        return report_error(exc, "lint", as_json=opts.format == "json")
    finally:
        if recorder is not None:
            recorder.close()
    issues = lint(surveyed)
    problem = write_sarif(opts.sarif, issues, artifact)
    if problem is not None:
        return report_error(problem, "lint", as_json=opts.format == "json")
    code = 1 if any(i.level == ERROR for i in issues) else ExitCode.OK
    data = report(surveyed, issues, code)
    if opts.format == "json":
        sys.stdout.write(json.dumps(data, indent=2, ensure_ascii=False) + "\n")
    else:
        from inspector.commands.lint_report import print_text

        print_text(data)
    return code


def _side(opts: argparse.Namespace, words: list[str]) -> tuple[Side, str]:
    """What to lint, and the file SARIF results point at (code scanning wants one)."""
    if len(words) == 1 and looks_like_file(words[0]) and not opts.config:
        if opts.record:
            raise UsageError("lint: --record records a live server, not a session file")
        return Side("target", file=Path(words[0])), words[0]
    demo = names_no_server(opts, words)
    target = resolve_target(opts, words)
    if demo:
        say_demo(target)
    return Side("target", target=target), opts.config or "mcp-server"


def report(surveyed: Survey, issues: list[Issue], code: int) -> dict[str, Any]:
    """One server's report, as ``--format json`` prints it and the text report reads it."""
    lists = surveyed.catalog.lists
    return {
        **surveyed.to_json(),
        "listed": {k.key: len(lists[k.name]) for k in CATALOG_KINDS if k.name in lists},
        "summary": summary(issues),
        "exitCode": code,
        "issues": [i.to_json() for i in issues],
    }


def summary(issues: list[Issue]) -> dict[str, int]:
    """How many issues of each level, errors first."""
    levels = Counter(i.level for i in issues)
    return {level: levels.get(level, 0) for level in reversed(LEVELS)}


def write_sarif(path: str | None, issues: list[Issue], artifact: str) -> CliError | None:
    """``--sarif FILE`` (when given) written; the failure to write it, if any."""
    if path is None:
        return None
    try:
        Path(path).write_text(json.dumps(sarif(issues, artifact), indent=2) + "\n")
    except OSError as exc:
        return CliError("usage", f"--sarif {path}: cannot write: {exc}", ExitCode.USAGE)
    return None
