"""The status bar: server, transport, protocol version, state, session file, counts."""

from __future__ import annotations

from rich.text import Text
from textual.reactive import reactive
from textual.widgets import Static

from inspector.engine.era import is_stateless
from inspector.tui.safe_text import one_line

STATE_STYLES = {"connecting": "yellow", "connected": "green", "disconnected": "red",
                "failed": "red", "replay": "cyan"}


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

    def render(self) -> Text:
        text = Text(no_wrap=True, overflow="ellipsis")
        text.append(f"● {self.state}", style=STATE_STYLES.get(self.state, "white"))
        if self.server:
            text.append("  ")
            text.append(one_line(self.server, 60), style="bold")
        if self.transport:
            text.append(f"  {self.transport}", style="dim")
        if self.protocol:
            text.append(f"  protocol {self.protocol}", style="dim")
            if self.stateless or is_stateless(self.protocol):  # a replayed recording too
                text.append(" stateless (no session)", style="cyan")
        text.append(f"  {self.events:,} events", style="dim")
        if self.pending:
            text.append(f"  {self.pending} in flight", style="yellow")
        if self.session_file:
            text.append(f"  ⏺ {self.session_file}", style="dim")
        if self.extra:
            text.append(f"  {self.extra}", style="magenta")
        return text
