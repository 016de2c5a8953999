"""The status bar: server, transport, protocol version, state, session file, counts."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from rich.cells import cell_len
from rich.text import Text
from textual import on
from textual.reactive import reactive
from textual.widgets import Static

from inspector.engine.era import is_stateless
from inspector.safe_text import one_line
from inspector.tui import messages
from inspector.tui.masked import shown_mask

STATE_STYLES = {
    "connecting": "yellow",
    "connected": "green",
    "disconnected": "red",
    "failed": "red",
    "replay": "cyan",
}
FILE_MARK = "  ⏺ "
ELLIPSIS = "…"
MIN_PATH = 24  # cells the session file keeps (the server's label gives way first) ...
MAX_LABEL = 1000  # characters of the server's label ever shown (wider than any bar)
MIN_SERVER = 12  # ... down to this
MAX_FILTER = 30  # cells of the intercept filter shown
MAX_NAME = 24  # cells of a workspace server's name shown (its config name)
FACT_LEVELS = 5  # how far the facts shorten for a narrow bar (see StatusBar.facts)


def server_label(info: Any) -> str:
    """``Title 1.2.0`` from a ``serverInfo``: its title (else name) and version, whichever
    are given (an empty version leaves no gap)."""
    info = info if isinstance(info, dict) else {}
    name = str(info.get("title") or info.get("name") or "?").strip()
    version = str(info.get("version") or "").strip()
    return f"{name} {version}" if version else name


def short_path(path: str, width: int) -> str:
    """``path`` in at most ``width`` cells: the home folder as ``~``, then folders from the
    middle replaced by ``…``, and only then the file name shortened in its middle (its end,
    the server's name and the extension, stays)."""
    home = str(Path.home())
    if path == home or path.startswith(home + os.sep):
        path = "~" + path[len(home) :]
    if cell_len(path) <= width:
        return path
    folder, sep, name = path.rpartition(os.sep)
    if sep:
        folders = folder.split(os.sep)
        for kept in range(len(folders) - 1, 0, -1):  # the first folder, then the last ones
            tail = folders[-kept + 1 :] if kept > 1 else []
            shown = os.sep.join([folders[0], ELLIPSIS, *tail, name])
            if cell_len(shown) <= width:
                return shown
        shown = ELLIPSIS + os.sep + name
        if cell_len(shown) <= width:
            return shown
    return _middle(name, width)


def _middle(text: str, width: int) -> str:
    """``text`` cut in its middle to ``width`` cells, keeping twice as much of its end."""
    if width <= 1:
        return ELLIPSIS[: max(width, 0)]
    end = _fit(text[::-1], (width - 1) * 2 // 3)[::-1]
    start = _fit(text, width - 1 - cell_len(end))
    return start + ELLIPSIS + end


def _fit(text: str, width: int) -> str:
    """The longest start of ``text`` within ``width`` cells."""
    shown = ""
    for char in text:
        if cell_len(shown + char) > width:
            break
        shown += char
    return shown


class StatusBar(Static):
    """One line at the top; everything server-provided goes through ``one_line``."""

    DEFAULT_CSS = """
    StatusBar { height: 1; background: $panel; color: $text; padding: 0 1; }
    """

    state: reactive[str] = reactive("connecting")
    server: reactive[str] = reactive("")
    transport: reactive[str] = reactive("")
    protocol: reactive[str] = reactive("")
    stateless: reactive[bool] = reactive(False)  # 2026-07-28: no handshake, no session
    session_file: reactive[str] = reactive("")
    events: reactive[int] = reactive(0)
    pending: reactive[int] = reactive(0)
    extra: reactive[str] = reactive("")
    # attached to a proxy: its intercept filter ("" off) and the frames it holds
    intercept: reactive[str] = reactive("")
    held: reactive[int] = reactive(0)

    @on(messages.Indexing)
    def _indexing(self, message: messages.Indexing) -> None:
        fraction = message.fraction
        self.extra = f"indexing {fraction:.0%}" if fraction is not None else ""

    @on(messages.ReplayCatalog)
    def _replayed(self, message: messages.ReplayCatalog) -> None:
        """A replay: the server as recorded."""
        init = message.catalog.initialize or {}
        info = init.get("serverInfo") or {}
        if info:
            self.server = f"{server_label(info)} (replay of {message.title})"
        self.protocol = one_line(str(init.get("protocolVersion", "")), 40)  # as recorded

    def facts(self, level: int = 0) -> Text:
        """Transport, protocol, counts; at a higher ``level`` (a narrower bar) the least
        needed give way: the word "protocol", then the transport, then "events" shortens,
        then the protocol goes. What is in flight always stays."""
        facts = Text()
        if self.transport and level < 2:
            facts.append(f"  {self.transport}", style="dim")
        if self.protocol and level < 4:
            facts.append(f"  {'protocol ' if level < 1 else ''}{self.protocol}", style="dim")
        if self.protocol and (self.stateless or is_stateless(self.protocol)):
            # a replayed recording too; the era is worth its room at any width
            facts.append(" stateless (no session)" if level < 3 else " stateless", style="cyan")
        facts.append(f"  {self.events:,} {'events' if level < 3 else 'ev'}", style="dim")
        if self.pending:
            facts.append(f"  {self.pending} in flight", style="yellow")
        facts.append_text(self.intercept_fact(level))
        return facts

    def intercept_fact(self, level: int = 0) -> Text:
        """Intercept on (its filter) and the frames held, which block the host until
        ``I`` forwards or drops them; like the calls in flight, it stays at any width."""
        if not self.intercept and not self.held:
            return Text()
        held = f"{self.held} held" if self.held else ""
        if level >= 3:
            shown = f"  ⏸ {held} (I)" if held else "  ⏸ intercept"
        else:
            query = one_line(self.intercept[:MAX_LABEL], -1)  # typed by a user, maybe another
            if cell_len(query) > MAX_FILTER:
                query = _fit(query, MAX_FILTER - 1) + ELLIPSIS
            on = f"intercept {query}" if query else "intercept off"
            shown = f"  ⏸ {on}" + (f" · {held} (I)" if held else "")
        return Text(shown, style="bold black on yellow" if self.held else "magenta")

    def workspace_name(self) -> str:
        """In a workspace of several servers, the name of the one this bar is about (its
        config or command-line name): two copies of one server (staging, production) show
        the same ``serverInfo``; with one server, nothing."""
        views = getattr(self.app, "views", ())
        if len(views) < 2:
            return ""
        screen = self.screen
        return next((view.name for view in views if view.main is screen), "")

    def render(self) -> Text:
        text = Text(no_wrap=True, overflow="ellipsis")
        text.append(f"● {self.state}", style=STATE_STYLES.get(self.state, "white"))
        name = one_line(self.workspace_name()[:MAX_LABEL], -1)
        if name:
            if cell_len(name) > MAX_NAME:
                name = _fit(name, MAX_NAME - 1) + ELLIPSIS
            text.append(f"  {name} ›", style="bold cyan")
        # cut below for want of room only, with a plain ellipsis (not content folding);
        # the cap just bounds the work for a hostile megabyte-long name
        server = shown_mask(self.app)(one_line(self.server[:MAX_LABEL], -1))  # secrets out
        extra = Text(f"  {self.extra}", style="magenta") if self.extra else Text()
        path = one_line(self.session_file, -1)  # a path is not ours either (ESC]0;... BEL)
        width = self.content_size.width
        # the fullest facts that leave the path its least room and the server's label all
        # of it (as long as only the word "protocol" and the transport give way for it),
        # else the label's least
        least_path = cell_len(FILE_MARK) + min(MIN_PATH, cell_len(path)) if path else 0
        full, least = (
            (2 + cell_len(server), 2 + min(cell_len(server), MIN_SERVER)) if server else (0, 0)
        )
        steps = [(full, n) for n in range(3)] + [(least, n) for n in range(FACT_LEVELS)]
        for want, level in steps:
            facts = self.facts(level)
            fixed = text.cell_len + facts.cell_len + extra.cell_len
            if not width or fixed + want + least_path <= width:
                break
        if width:  # shortened rather than cut off: see fit()
            room = width - fixed - (cell_len(FILE_MARK) if path else 0) - (2 if server else 0)
            if path:
                server, path = fit(server, path, room)
            elif cell_len(server) > room:
                server = _fit(server, max(room, MIN_SERVER) - 1) + ELLIPSIS
        if server:
            text.append("  ")
            text.append(server, style="bold")
        text.append_text(facts)
        if path:
            text.append(f"{FILE_MARK}{path}", style="dim")
        text.append_text(extra)
        return text


def fit(server: str, path: str, room: int) -> tuple[str, str]:
    """The server's label and the session file's path within ``room`` cells: the path
    takes what the label leaves, but at least ``MIN_PATH`` cells (the label gives way,
    down to ``MIN_SERVER``); whatever still does not fit is cut at the bar's end."""
    if cell_len(server) + cell_len(path) <= room:
        return server, path
    path_room = max(room - cell_len(server), min(MIN_PATH, cell_len(path)))
    server_room = max(room - path_room, min(MIN_SERVER, cell_len(server)))
    if cell_len(server) > server_room:
        server = _fit(server, server_room - 1) + ELLIPSIS
    return server, short_path(path, room - cell_len(server))
