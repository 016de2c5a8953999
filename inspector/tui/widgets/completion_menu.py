"""The server's completions for one field, as a list under its box.

    menu = CompletionMenu(box, ask=lambda typed: completer.complete("path", typed))
    field.mount(menu, after=box)
    box.choices = menu
    menu.offer(found)          # an answer for what the box holds (the suggester calls it)

The list floats over what follows the field (``overlay: screen``), opens above the box
when there is no room below, and never takes the focus: the box keeps it, and its keys
(`FieldInput`) move the highlight, pick and close. The last line says how many values
the server has: ``showing 100 of 150, more on the server: type to narrow``. Values are
server text, shown literally.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from inspector.engine.completion import Completion
from inspector.safe_text import one_line, visible
from inspector.tui.widgets.field_input import FieldInput

Ask = Callable[[str], Awaitable[Completion | None]]


def count_text(found: Completion) -> str:
    """What the list's last line says about how many values there are."""
    shown = len(found.values)
    total = found.total if found.total is not None and found.total >= shown else None
    if found.error:
        return f"completion failed: {one_line(found.error, 120)}"
    if not shown:
        return "no completions"
    more = found.has_more or (total is not None and total > shown)
    if total is not None and total > shown:
        head = f"showing {shown} of {total}"
    else:
        head = f"{shown} value{'s' * (shown != 1)}"
    if more:
        return f"{head}, more on the server: type to narrow"
    return head


class MenuList(OptionList, can_focus=False):
    """The values: never focused, the field's box keeps the keys.

    Textual's system class keeps a click here from moving the focus to the form around
    it (as on a scroll bar): the box keeps it, and the click picks the value."""

    DEFAULT_CLASSES = "-textual-system"


class CompletionMenu(Vertical):
    """A list of the server's values for one field, opened under its box."""

    DEFAULT_CSS = """
    CompletionMenu {
        overlay: screen;
        constrain: none inflect;
        display: none;
        width: 1fr;
        max-width: 80;
        height: auto;
        background: $surface;
        border: round $accent;
        padding: 0;
    }
    CompletionMenu.-open { display: block; }
    CompletionMenu > MenuList { height: auto; max-height: 8; border: none; padding: 0;
        background: $surface; }
    CompletionMenu { border-subtitle-color: $text-muted; border-subtitle-align: right; }
    CompletionMenu > .menu-count { height: auto; color: $text-muted; padding: 0 1; }
    CompletionMenu > .menu-count.-error { color: $text-error; }
    """

    def __init__(self, box: FieldInput, ask: Ask) -> None:
        super().__init__()
        self.box = box
        self.ask = ask
        self.found: Completion | None = None
        self._picked: str | None = None  # the value just picked: its answer opens nothing
        self.border_subtitle = "↑↓ Enter picks · Esc closes"

    def compose(self) -> ComposeResult:
        yield MenuList()
        yield Static("", classes="menu-count")

    @property
    def options(self) -> MenuList:
        return self.query_one(MenuList)

    @property
    def shown(self) -> bool:
        return self.has_class("-open")

    @property
    def values(self) -> list[str]:
        return list(self.found.values) if self.found is not None else []

    @property
    def highlighted(self) -> str | None:
        index = self.options.highlighted
        values = self.values
        return values[index] if index is not None and 0 <= index < len(values) else None

    @property
    def count_line(self) -> str:
        return str(self.query_one(".menu-count", Static).render())

    # -- what the server said ------------------------------------------------------------
    def offer(self, found: Completion, *, force: bool = False) -> None:
        """An answer for what the box holds: show it while the user types there."""
        typed = self.box.value
        if not force and (not self.box.has_focus or typed == visible(self._picked or "")):
            return
        self._picked = None
        if not force and [visible(v) for v in found.values] == [typed]:
            self.close()  # the one value is what is typed already: nothing to choose
            return
        self.found = found
        options = self.options
        options.set_options(Option(Text(one_line(v, 200))) for v in found.values)
        if found.values:
            options.highlighted = 0
        count = self.query_one(".menu-count", Static)
        count.update(Text(count_text(found)))
        count.set_class(bool(found.error), "-error")
        if found.values or found.error or force:
            self.add_class("-open")
        else:
            self.close()

    # -- the box's keys (the `Choices` of `FieldInput`) -----------------------------------
    def open(self) -> None:
        self.run_worker(self._ask_now(), group="completion-menu", exclusive=True)

    async def _ask_now(self) -> None:
        found = await self.ask(self.box.value)
        if found is not None and self.box.has_focus:
            self.offer(found, force=True)

    def move(self, step: int) -> None:
        options = self.options
        count = options.option_count
        if not count:
            return
        current = options.highlighted if options.highlighted is not None else -1
        options.highlighted = max(0, min(count - 1, current + step))

    def pick(self) -> bool:
        value = self.highlighted
        if value is None:
            return False
        self._take(value)
        return True

    def close(self) -> None:
        self.remove_class("-open")

    def _take(self, value: str) -> None:
        self._picked = value
        self.close()
        self.box.take(value)

    # -- the mouse, and leaving the field ---------------------------------------------------
    @on(OptionList.OptionSelected)
    def _clicked(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        values = self.values
        if 0 <= event.option_index < len(values):
            self._take(values[event.option_index])

    def typed(self, value: str) -> None:
        if not value:
            self.close()  # nothing typed: ↓ lists every value

    def blurred(self) -> None:
        self.close()  # Tab, a click elsewhere: the list is for the box it is under

    def on_unmount(self, _event: Any) -> None:
        if self.box.choices is self:
            self.box.choices = None
