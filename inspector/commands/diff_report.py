"""``mcp-inspect diff``'s three outputs: text (colored on a terminal), JSON, Markdown.

Everything the servers sent is shown literally: no Rich markup read, control characters
made visible (:mod:`inspector.safe_text`), Markdown's own characters escaped.
"""

from __future__ import annotations

import json
from typing import Any

from rich.console import Console
from rich.text import Text

from inspector.commands.report_console import ReportConsole
from inspector.compare.changes import BREAKING, COMPATIBLE, COSMETIC
from inspector.safe_text import one_line

STYLES = {BREAKING: "bold red", COMPATIBLE: "yellow", COSMETIC: "dim"}
MARKS = {"added": "+", "removed": "-", "changed": "~"}
VALUE_CHARS = 80


def brief(value: Any, limit: int = VALUE_CHARS) -> str:
    """A value on one line, at most ``limit`` characters, controls visible."""
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return one_line(text, limit)


def _values(difference: dict[str, Any]) -> str:
    kind = difference["kind"]
    if kind == "added":
        return brief(difference.get("new"))
    if kind == "removed":
        return brief(difference.get("old"))
    return f"{brief(difference.get('old'), 40)} -> {brief(difference.get('new'), 40)}"


def headline(data: dict[str, Any]) -> str:
    counts = data["summary"]
    if not any(counts.values()):
        return "no differences"
    return ", ".join(f"{n} {level}" for level, n in counts.items() if n)


def print_text(data: dict[str, Any], console: Console | None = None) -> None:
    """One line a difference, grouped by level, breaking first; a summary line."""
    out = console or ReportConsole()
    head = Text("diff ", style="bold")
    head.append(one_line(str(data["old"]["source"]), 100))
    head.append(" -> ")
    head.append(one_line(str(data["new"]["source"]), 100))
    out.print(head)
    for level in (BREAKING, COMPATIBLE, COSMETIC):
        for difference in (d for d in data["differences"] if d["level"] == level):
            line = Text(f" {MARKS[difference['kind']]} ", style=STYLES[level])
            line.append(f"{level:<11}", style=STYLES[level])
            line.append(one_line(difference["path"], 100), style="bold")
            line.append(f"  {_values(difference)}")
            line.append(f"  [{difference['rule']}]", style="dim")
            out.print(line)
    for key in data["notCompared"]:
        out.print(Text(f"note: {key} not compared (a recording never listed them)", style="dim"))
    summary = Text(headline(data), style="bold")
    summary.append(f"  (fails on {data['failOn']} and above: exit {data['exitCode']})", style="dim")
    out.print(summary)


def _md(text: str) -> str:
    """Text inside a Markdown table cell: one line, its markup characters escaped."""
    out = one_line(text, 300)
    for ch in "\\`*_[]<>|#!~":
        out = out.replace(ch, "\\" + ch)
    return out


def markdown(data: dict[str, Any]) -> str:
    """A pull-request comment: a heading with the counts, one table row a difference."""
    old, new = data["old"], data["new"]
    lines = [
        f"### MCP server diff: {headline(data)}",
        "",
        f"**Old:** {_md(str(old['source']))} ({_md(_server(old))})  ",
        f"**New:** {_md(str(new['source']))} ({_md(_server(new))})",
        "",
    ]
    if data["differences"]:
        lines += ["| Level | Change | Path | Rule | Values |", "|---|---|---|---|---|"]
        for level in (BREAKING, COMPATIBLE, COSMETIC):
            for d in (d for d in data["differences"] if d["level"] == level):
                lines.append(
                    f"| {'**breaking**' if level == BREAKING else level} | {d['kind']} "
                    f"| {_md(d['path'])} | {d['rule']} | {_md(_values(d))} |"
                )
        lines.append("")
    for key in data["notCompared"]:
        lines.append(f"{key} not compared (a recording never listed them).  ")
    lines.append(f"Fails on **{data['failOn']}** and above: exit {data['exitCode']}.")
    return "\n".join(lines) + "\n"


def _server(side: dict[str, Any]) -> str:
    server = side.get("server") or {}
    name = f"{server.get('name', '?')} {server.get('version', '')}".strip()
    return f"{name}, protocol {side.get('protocolVersion') or '?'}"
