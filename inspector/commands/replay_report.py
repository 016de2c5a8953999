"""The human replay report (``mcp-inspect replay FILE --against ...`` without ``--cli``).

One line an exchange, its changes under it, a summary line. Everything the server
sent is shown literally (:mod:`inspector.safe_text`).
"""

from __future__ import annotations

import json
from typing import Any

from rich.console import Console
from rich.text import Text

from inspector.commands.report_console import ReportConsole
from inspector.safe_text import one_line

_MARKS = {
    "same": ("=", "green"),
    "changed": ("~", "yellow"),
    "missing": ("-", "red"),
    "new": ("+", "cyan"),
}
CHANGES_SHOWN = 8
_LEVELS = {"breaking": "bold red", "compatible": "yellow", "cosmetic": "dim"}


def print_report(data: dict[str, Any], console: Console | None = None) -> None:
    """The human report: one line an exchange, changes under it, a summary line.

    Everything the server sent is shown literally (no markup, controls visible).
    """
    out = console or ReportConsole()
    server = data.get("server") or {}
    head = Text(f"replay {data['file']} against ", style="bold")
    head.append(one_line(str(data["target"]), 120))
    if server:
        head.append(
            f"  ({one_line(str(server.get('name', '?')), 60)} "
            f"{one_line(str(server.get('version', '')), 30)})",
            style="dim",
        )
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
            if change.get("level"):  # a list compared by name: the change's class
                text.append(
                    f"  [{change['level']}: {change['rule']}]", style=_LEVELS[change["level"]]
                )
            out.print(text)
        if len(changes) > CHANGES_SHOWN:
            out.print(Text(f"      ... {len(changes) - CHANGES_SHOWN} more changes", style="dim"))
        if item.get("notifications"):
            _print_notifications(out, item["notifications"])
    for note in data.get("notes") or []:
        out.print(Text(f"note: {one_line(str(note), 200)}", style="dim"))
    counts = data["summary"]
    notices = data.get("notifications") or {}
    if notices.get("changed") or notices.get("volatile"):
        out.print(
            Text(
                f"notifications ({one_line(str(notices.get('mode')), 20)}): "
                f"{notices.get('changed', 0)} changed, {notices.get('volatile', 0)} "
                "with values that differ (not counted)",
                style="dim",
            )
        )
    summary = Text("\n")
    for status in ("same", "changed", "missing", "new"):
        _, style = _MARKS[status]
        summary.append(f"{counts[status]} {status}", style=style if counts[status] else "dim")
        summary.append("  ")
    summary.append(
        "DIFFERENT" if data["differs"] else "OK",
        style="bold red" if data["differs"] else "bold green",
    )
    out.print(summary)


_NOTICE_STYLES = {"same": "dim", "changed": "yellow", "volatile": "dim"}


def _print_notifications(out: Console, notices: dict[str, Any]) -> None:
    """The notifications part of one item: methods recorded vs live, value changes."""
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
            text.append(f"{_brief(change.get('old'))} -> {_brief(change.get('new'))}", style=style)
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
    return one_line(json.dumps(value, ensure_ascii=False, default=str), 100)
