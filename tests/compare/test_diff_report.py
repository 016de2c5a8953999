"""diff's outputs from server text a hostile server chose: colored on a terminal, control
characters made visible, Markdown's table kept whole."""

from __future__ import annotations

import io

from rich.console import Console

from inspector.commands.diff import report
from inspector.commands.diff_report import markdown, print_text
from inspector.compare.catalog import Catalog
from inspector.survey.survey import Survey

HOSTILE = "evil|`name`\x1b[2J\n| injected | row |"


def surveys() -> tuple[Survey, Survey]:
    tool = {"name": HOSTILE, "inputSchema": {"type": "object"}}
    kept = {"name": "kept", "description": "calm", "inputSchema": {"type": "object"}}
    changed = {**kept, "description": "loud\x1b[2J | cell"}
    old = Survey("old", Catalog(server_info={"name": "s"}, lists={"tools": [tool, kept]}))
    new = Survey("new", Catalog(server_info={"name": "s"}, lists={"tools": [changed]}))
    return old, new


def test_text_is_colored_on_a_terminal_and_server_text_is_literal() -> None:
    data = report(*surveys(), "breaking", [])
    out = io.StringIO()
    print_text(data, Console(file=out, force_terminal=True, color_system="standard", width=200))
    text = out.getvalue()
    assert "\x1b[1;31m" in text  # breaking in bold red
    assert "\x1b[2J" not in text and "␛[2J" in text  # the server's escape shown, not run
    plain = io.StringIO()
    print_text(data, Console(file=plain, force_terminal=False, width=200))
    assert "\x1b" not in plain.getvalue()
    assert data["exitCode"] == 1


def test_markdown_keeps_one_row_a_difference() -> None:
    data = report(*surveys(), "breaking", [])
    rows = [line for line in markdown(data).splitlines() if line.startswith("| **breaking**")]
    assert len(rows) == 1
    assert rows[0].count(" | ") == 4  # five cells: the server's pipes are escaped
    assert "\\|" in rows[0] and "\\`" in rows[0] and "\x1b" not in rows[0]
    [cosmetic] = [line for line in markdown(data).splitlines() if line.startswith("| cosmetic")]
    assert cosmetic.count(" | ") == 4 and r"loud␛\[2J \| cell" in cosmetic


def test_lower_thresholds() -> None:
    old, new = surveys()
    new.catalog.server_info["version"] = "2"
    assert report(old, old, "cosmetic", [])["exitCode"] == 0
    assert report(new, new, "breaking", [])["exitCode"] == 0
    only_cosmetic = report(
        Survey("a", Catalog()), Survey("b", Catalog(server_info={"title": "T"})), "compatible", []
    )
    assert only_cosmetic["summary"] == {"breaking": 0, "compatible": 0, "cosmetic": 1}
    assert only_cosmetic["exitCode"] == 0
    assert (
        report(
            Survey("a", Catalog()), Survey("b", Catalog(server_info={"title": "T"})), "cosmetic", []
        )["exitCode"]
        == 1
    )
