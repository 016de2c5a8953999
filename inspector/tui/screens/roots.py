"""The roots editor: the folders the client offers the server, as ``file://`` roots.

    editor = RootsEditor(roots_list, on_change=bridge.roots_changed)   # add_root, remove_root
    app.push_screen(RootsScreen(roots_list, on_change=bridge.roots_changed))

Adding or removing a root edits the ``RootsList`` the session's ``roots/list``
responder reads, then awaits ``on_change`` (which sends
``notifications/roots/list_changed``) and posts ``RootsEditor.Changed``.
A path is made absolute and becomes a ``file://`` URI; a ``file://`` URI is taken
as it is. A path that does not exist is allowed (a debugger may want that) but marked.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar
from urllib.parse import unquote, urlsplit

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.screen import ModalScreen
from textual.widget import Widget
from textual.widgets import Button, Input, OptionList, Static
from textual.widgets.option_list import Option

from inspector.engine.responders import RootsList, path_to_root
from inspector.safe_text import safe_text

OnChange = Callable[[list[dict[str, Any]]], Awaitable[None]]


def root_for(entry: str, name: str = "") -> dict[str, Any]:
    """A root from what the user typed: a path (made absolute) or a ``file://`` URI."""
    entry = entry.strip()
    if entry.startswith("file://"):
        path = Path(unquote(urlsplit(entry).path))
        root: dict[str, Any] = {"uri": entry, "name": path.name or str(path)}
    else:
        root = path_to_root(entry)
    if name.strip():
        root["name"] = name.strip()
    return root


def root_exists(root: dict[str, Any]) -> bool:
    uri = str(root.get("uri", ""))
    return uri.startswith("file://") and Path(unquote(urlsplit(uri).path)).exists()


class RootsEditor(Widget):
    """The list of roots with add and remove; changes go to the RootsList at once."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("delete", "remove", "Remove root"),
    ]

    DEFAULT_CSS = """
    RootsEditor { height: auto; }
    RootsEditor OptionList { height: auto; min-height: 3; max-height: 16; }
    RootsEditor #add-row { height: auto; margin-top: 1; }
    RootsEditor #path { width: 2fr; }
    RootsEditor #root-name { width: 1fr; }
    RootsEditor #add-row Button { margin: 1 0 0 1; }
    RootsEditor #roots-status { height: auto; color: $text-muted; }
    """

    @dataclass
    class Changed(Message):
        """The roots changed (after ``on_change`` ran)."""

        editor: RootsEditor
        roots: list[dict[str, Any]]

        @property
        def control(self) -> RootsEditor:
            return self.editor

    def __init__(
        self, roots: RootsList, *, on_change: OnChange | None = None, id: str | None = None
    ) -> None:
        super().__init__(id=id)
        self.roots = roots
        self.on_change = on_change

    def compose(self) -> ComposeResult:
        yield OptionList(id="roots-list")
        with Horizontal(id="add-row"):
            yield Input(placeholder="folder path or file:// URI", id="path")
            yield Input(placeholder="name (optional)", id="root-name")
            yield Button("Add", id="add", variant="primary", compact=True)
            yield Button("Remove", id="remove", compact=True)
        yield Static("", id="roots-status")

    def on_mount(self) -> None:
        self.refresh_list()

    def refresh_list(self) -> None:
        options = self.query_one("#roots-list", OptionList)
        options.clear_options()
        for index, root in enumerate(self.roots.roots):
            line = safe_text(str(root.get("name", "")), "bold")
            line.append("  ")
            line.append_text(safe_text(str(root.get("uri", ""))))
            if not root_exists(root):
                line.append("  (not found on this machine)", style="yellow")
            options.add_option(Option(line, id=f"root-{index}"))
        if not self.roots.roots:
            options.add_option(
                Option(
                    Text("no roots: the server sees an empty list", style="dim italic"),
                    disabled=True,
                )
            )

    async def add_root(self, entry: str, name: str = "") -> bool:
        """Add a root (a path or a file:// URI); False if it is empty or already there."""
        if not entry.strip():
            return False
        root = root_for(entry, name)
        if any(r.get("uri") == root["uri"] for r in self.roots.roots):
            self._status(f"already a root: {root['uri']}")
            return False
        self.roots.roots.append(root)
        await self._changed(f"added {root['uri']}")
        return True

    async def remove_root(self, index: int) -> bool:
        if not 0 <= index < len(self.roots.roots):
            return False
        root = self.roots.roots.pop(index)
        await self._changed(f"removed {root.get('uri')}")
        return True

    async def _changed(self, what: str) -> None:
        self.refresh_list()
        roots = list(self.roots.roots)
        sent = ""
        if self.on_change is not None:
            try:
                await self.on_change(roots)
                sent = "; notifications/roots/list_changed sent"
            except Exception as exc:  # not connected yet, or the connection is gone
                sent = f"; list_changed not sent: {exc}"
        self._status(what + sent)
        self.post_message(self.Changed(self, roots))

    def _status(self, text: str) -> None:
        self.query_one("#roots-status", Static).update(safe_text(text))

    async def action_remove(self) -> None:
        highlighted = self.query_one("#roots-list", OptionList).highlighted
        if highlighted is not None:
            await self.remove_root(highlighted)

    @on(Button.Pressed, "#add")
    @on(Input.Submitted, "#path")
    @on(Input.Submitted, "#root-name")
    async def _add_pressed(self, event: Message) -> None:
        event.stop()
        path = self.query_one("#path", Input)
        name = self.query_one("#root-name", Input)
        if await self.add_root(path.value, name.value):
            path.value = ""
            name.value = ""
            path.focus()

    @on(Button.Pressed, "#remove")
    async def _remove_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        await self.action_remove()


class RootsScreen(ModalScreen[None]):
    """The roots editor as a dialog (escape closes it)."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "close", "Close")]

    DEFAULT_CSS = """
    RootsScreen { align: center middle; }
    RootsScreen > #dialog {
        width: 90%; max-width: 110; height: auto; max-height: 90%;
        border: thick $accent; background: $surface; padding: 0 1;
    }
    RootsScreen #title { text-style: bold; }
    RootsScreen .hint { color: $text-muted; margin-bottom: 1; }
    /* Close stays on screen: the rest scrolls above it when the terminal is short */
    RootsScreen #body { height: auto; max-height: 100%; }
    RootsScreen #close-row { dock: bottom; height: auto; align-horizontal: right; }
    RootsScreen.-short .hint { margin-bottom: 0; }
    RootsScreen.-short RootsEditor OptionList { max-height: 6; }
    """

    def __init__(self, roots: RootsList, *, on_change: OnChange | None = None) -> None:
        super().__init__()
        self.roots = roots
        self.on_change = on_change

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            with VerticalScroll(id="body", can_focus=False):
                yield Static(
                    "Roots: the folders this client offers the server (roots/list)", id="title"
                )
                yield Static(
                    "enter adds the path; delete removes the highlighted root; every "
                    "change sends notifications/roots/list_changed",
                    classes="hint",
                )
                yield RootsEditor(self.roots, on_change=self.on_change, id="editor")
            with Horizontal(id="close-row"):
                yield Button("Close", id="close", compact=True)

    def on_mount(self) -> None:
        self.query_one("#path", Input).focus()

    @on(Button.Pressed, "#close")
    def action_close(self) -> None:
        self.dismiss(None)
