"""``mcp-inspect lint --config FILE`` of a file with several servers: each one linted.

One after another, each with its own connection, and a server that cannot be reached
does not stop the others. The text report is each server's report in turn, then one
line for all; ``--format json`` is ``{"servers": [...], "failures": [...], ...}``;
``--sarif`` is one run whose results name their server (``NAME/tools/search``). Exit
code: a failure's own code (3 connection...) when a server could not be linted, else 1
when any server has an error-level issue, else 0.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from inspector.commands.exits import CliError, ExitCode, report_error
from inspector.commands.lint import report, summary, write_sarif
from inspector.commands.options import UsageError, config_target, responders_from, with_oauth
from inspector.commands.sides import Side, survey
from inspector.lint.check import Issue, lint
from inspector.lint.rules import ERROR


def run_each(opts: argparse.Namespace, names: list[str]) -> int:
    """Lint every server of ``--config`` named in ``names``; the exit code."""
    if opts.record:
        raise UsageError(
            f"--record records one server; {opts.config} has {len(names)}: "
            "give --server NAME with it"
        )
    as_json = opts.format == "json"
    console = None
    if not as_json:  # Rich loads only for the text reports (start-up)
        from inspector.commands.report_console import ReportConsole

        console = ReportConsole()  # the text reports, one after another
    answers = responders_from(opts)
    reports: list[dict[str, Any]] = []
    failures: list[CliError] = []
    every: list[Issue] = []
    for name in names:
        try:
            try:
                target = config_target(opts, name)
            except UsageError as exc:  # this entry's own mistake (a variable not set...)
                raise CliError("usage", str(exc), ExitCode.USAGE) from exc
            with_oauth(opts, target)
            side = Side("server", target=target)  # its errors say: server (NAME): ...
            surveyed = survey(side, opts.timeout, opts.max_timeout, responders=answers)
        except CliError as exc:
            failures.append(exc)
            if console is not None:  # said now, between the reports; in the JSON otherwise
                report_error(exc, "lint", as_json=False)
            continue
        issues = lint(surveyed)
        every += [Issue(i.rule, i.level, i.message, f"{name}/{i.item}") for i in issues]
        code = 1 if any(i.level == ERROR for i in issues) else ExitCode.OK
        reports.append(report(surveyed, issues, code))
        if console is not None:
            from inspector.commands.lint_report import print_text

            if len(reports) > 1:
                console.print()  # a blank line between two servers' reports
            print_text(reports[-1], console)
    problem = write_sarif(opts.sarif, every, opts.config)
    if problem is not None:
        return report_error(problem, "lint", as_json=as_json)
    code = failures[0].code if failures else max((r["exitCode"] for r in reports), default=0)
    total = summary(every)
    if as_json:
        data = {
            "config": opts.config,
            "servers": reports,
            "failures": [f.to_json()["error"] for f in failures],
            "summary": total,
            "exitCode": code,
        }
        sys.stdout.write(json.dumps(data, indent=2, ensure_ascii=False) + "\n")
    else:
        from inspector.commands.lint_report import print_total

        print_total(len(names), len(failures), total, code, console)
    return code
