"""The workspace's server list: each server's name, transport, era and state; Enter
shows the chosen one, ``x`` removes it (its process stopped as quitting does)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import DataTable, Input, Static

from inspector.workspace.status import ServerStatus

COLUMNS = ("Server", "Transport", "Era", "State")


class ServerListScreen(ModalScreen[tuple[str, int] | None]):
    """Dismissed with ("show", row), ("remove", row) or None (escape)."""

    DEFAULT_CSS = """
    ServerListScreen { align: center middle; }
    ServerListScreen > Vertical {
        width: 90%; max-width: 140; height: auto; max-height: 90%;
        border: round $accent; background: $panel; padding: 0 1;
    }
    ServerListScreen DataTable { height: auto; max-height: 30; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Close"),
        Binding("x", "remove", "Remove server"),
        Binding("a", "all", "All servers' log"),
        Binding("c", "compare", "Compare with the shown"),
    ]

    def __init__(self, rows: Sequence[ServerStatus], shown: int) -> None:
        super().__init__()
        self.rows = list(rows)
        self.shown = shown

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(
                "Servers: Enter shows one · x removes it · a: all servers' log"
                " · c compares one with the shown · Esc closes"
            )
            yield DataTable(id="server-list", cursor_type="row", zebra_stripes=True)
            yield Static(id="server-state")  # the highlighted one's whole state (80 columns cut it)

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        table.add_columns(*COLUMNS)
        for status in self.rows:
            table.add_row(*status.row())
        table.move_cursor(row=self.shown)
        table.focus()

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        if 0 <= event.cursor_row < len(self.rows):
            status = self.rows[event.cursor_row]
            name, transport, era, state = status.row()
            self.query_one("#server-state", Static).update(
                Text(f"{name} ({transport}, {era}): {state}")
            )

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        self.dismiss(("show", event.cursor_row))

    def action_remove(self) -> None:
        self.dismiss(("remove", self.query_one(DataTable).cursor_row))

    def action_all(self) -> None:
        self.dismiss(("all", -1))

    def action_compare(self) -> None:
        self.dismiss(("compare", self.query_one(DataTable).cursor_row))

    def action_close(self) -> None:
        self.dismiss(None)


class AddServerPrompt(ModalScreen[str | None]):
    """ctrl+n: one line (a URL, a command, or a config name); Enter adds, Esc cancels."""

    DEFAULT_CSS = """
    AddServerPrompt { align: center middle; }
    AddServerPrompt > Vertical {
        width: 90; max-width: 96%; height: auto;
        border: thick $primary; background: $surface; padding: 0 1;
    }
    """
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel")]

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static("Add a server: a URL, a command, or a name from the config")
            yield Input(placeholder="https://host/mcp  ·  python server.py  ·  name", id="add")

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.dismiss(event.value.strip() or None)

    def action_cancel(self) -> None:
        self.dismiss(None)
