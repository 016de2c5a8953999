"""The footer: Textual's, with Help and Quit first on a narrow terminal.

Textual's footer lists the focused widget's keys first and the app's last, and cuts what
does not fit at the right; at 80 columns that cut ``? Help`` and ``q Quit``, the two keys a
new user needs to find everything else (and to leave). ``hidden`` actions are left out
(a replay's Send and Reconnect: their keys still work, saying why nothing happens)."""

from __future__ import annotations

from collections.abc import Iterable

from textual import events
from textual.app import ComposeResult
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Footer
from textual.widgets._footer import FooterKey  # not exported; the footer's own key widget

NARROW = 110  # columns below which the footer may not hold every key
FIRST = ("help", "quit_or_ask")  # actions shown first when it may not


class KeyFooter(Footer):
    """Help and Quit first when the terminal is narrow; ``hidden`` actions not shown."""

    def __init__(self, hidden: Iterable[str] = ()) -> None:
        super().__init__()
        self.hidden = frozenset(hidden)
        self._narrow: bool | None = None
        self._shown: tuple[object, ...] | None = None

    def shown_keys(self) -> tuple[object, ...]:
        """What the footer would show: each shown binding's key, text, action and state."""
        return tuple(
            (binding.key, binding.description, binding.action, enabled, tooltip)
            for (_, binding, enabled, tooltip) in self.screen.active_bindings.values()
            if binding.show
        )

    def bindings_changed(self, screen: Screen[object]) -> None:
        # Textual's footer rebuilds all its keys whenever the bindings are refreshed
        # (each focus change, each check_action refresh), though most leave the same
        # keys: rebuild only when what is shown changes (a third of a test's layouts).
        same_screen = self.is_attached and screen is self.screen
        if same_screen and self._bindings_ready and self.shown_keys() == self._shown:
            return
        super().bindings_changed(screen)

    def compose(self) -> ComposeResult:
        if self._bindings_ready:
            self._shown = self.shown_keys()
        items: list[Widget] = list(super().compose())
        left_out = {i.action for i in items if isinstance(i, FooterKey) and i.action in self.hidden}
        if left_out:
            items = [i for i in items if not (isinstance(i, FooterKey) and i.action in left_out)]
            # Footer made a grid column for each action it yielded
            self.styles.grid_size_columns = max(1, self.styles.grid_size_columns - len(left_out))
        if self.app.size.width < NARROW:
            first = sorted(
                (i for i in items if isinstance(i, FooterKey) and i.action in FIRST),
                key=lambda key: FIRST.index(key.action),
            )
            items = first + [i for i in items if i not in first]
        yield from items

    def on_resize(self, event: events.Resize) -> None:
        narrow = self.app.size.width < NARROW
        if self._narrow is not None and narrow != self._narrow:
            self.call_later(self.recompose)
        self._narrow = narrow
