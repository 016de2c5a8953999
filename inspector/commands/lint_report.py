"""``mcp-inspect lint``'s text report: one line an issue, a summary line. Names and
messages come from the server: shown literally (:mod:`inspector.safe_text`)."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.text import Text

from inspector.commands.report_console import ReportConsole
from inspector.safe_text import one_line

STYLES = {"error": "bold red", "warning": "yellow", "info": "dim"}


def print_text(data: dict[str, Any], console: Console | None = None) -> None:
    out = console or ReportConsole()
    server = data.get("server") or {}
    head = Text("lint ", style="bold")
    head.append(one_line(str(data["source"]), 120))
    name = f"{server.get('name', '?')} {server.get('version', '')}".strip()
    listed = ", ".join(f"{n} {key}" for key, n in data["listed"].items()) or "nothing listed"
    head.append(
        f"  ({one_line(name, 60)}, protocol {data.get('protocolVersion') or '?'}; {listed})",
        style="dim",
    )
    out.print(head)
    for issue in data["issues"]:
        line = Text(f" {issue['level']:<8}", style=STYLES[issue["level"]])
        line.append(one_line(issue["item"], 60), style="bold")
        line.append(f"  {issue['rule']}", style=STYLES[issue["level"]])
        line.append(f"  {one_line(issue['message'], 200)}")
        out.print(line)
    out.print(Text(f"{in_words(data['summary'])}  (exit {data['exitCode']})", style="bold"))


def print_total(
    servers: int, failed: int, summary: dict[str, int], code: int, console: Console | None = None
) -> None:
    """The last line of a config's servers linted in turn: all of them together."""
    out = console or ReportConsole()
    reached = f", {failed} not reached" if failed else ""
    line = f"{servers} servers{reached}: {in_words(summary)}  (exit {code})"
    out.print(Text(line, style="bold"))


def in_words(summary: dict[str, int]) -> str:
    """``1 error, 2 warnings, 3 info``."""
    return ", ".join(
        f"{n} {level}{'' if n == 1 or level == 'info' else 's'}" for level, n in summary.items()
    )
