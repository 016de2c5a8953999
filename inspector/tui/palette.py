"""The command palette's entries: Textual's own (theme, screenshot, maximize) less its
Quit and Keys (they would bypass "asks before losing work" and show a second, thinner
help), then every action the keys have, from the same list as the help screen, and the
two filters."""

from __future__ import annotations

import functools
from collections.abc import Iterable, Iterator
from typing import Any

from textual.actions import parse as parse_action
from textual.app import SystemCommand

from inspector.tui.keymap import palette_entries
from inspector.tui.widgets.catalog import Catalog
from inspector.tui.widgets.message_log import MessageLog


def system_commands(app: Any, textual: Iterable[SystemCommand]) -> Iterator[SystemCommand]:
    """``app``'s palette (``textual``: the commands Textual's ``App`` gives)."""
    for command in textual:
        if command.title not in ("Quit", "Keys"):
            yield command
    for title, help_text, action in palette_entries(type(app)):
        _, name, parameters = parse_action(action)
        if app.check_action(name, parameters) is False:
            continue  # the live or the replay binding of one key: the one that applies
        yield SystemCommand(title, help_text, functools.partial(app.run_action, action))
    yield SystemCommand(
        "Filter the log",
        "Filter the log by text, method:, kind:, is:error, dir: (/ in the log)",
        functools.partial(_filter_log, app),
    )
    yield SystemCommand(
        "Filter the list",
        "Filter the catalog list as you type (/ in the catalog)",
        functools.partial(_filter_list, app),
    )


def _filter_log(app: Any) -> None:
    app.action_focus_log()
    # the shown server's screen: ``app.query_one`` finds the first server's, hidden
    log: MessageLog = app.main.message_log
    log.action_open_filter()


def _filter_list(app: Any) -> None:
    catalog: Catalog = app.main.catalog
    catalog.action_tab(catalog.active_kind)
    catalog.action_filter()
