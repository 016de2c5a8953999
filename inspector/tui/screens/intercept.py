"""Intercept on an attached proxy (``I``): the filter, the held frames, forward/edit/drop.

The filter is the log's language (``method:tools/call``, ``dir:in kind:response``...);
the proxy holds the host's and the server's frames that match until a decision here
(or in another attached inspector). The held frame shows in an editor: ``ctrl+f``
forwards it as it reads there (edited or not), ``ctrl+d`` drops it, ``ctrl+a`` forwards
everything held. The keys work wherever the focus is in the dialog (the filter and the
editor would otherwise take ``ctrl+a``/``ctrl+d`` as text keys), and buttons name them.
"""

from __future__ import annotations

from typing import Any, ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import Button, Input, OptionList, Static, TextArea
from textual.widgets.option_list import Option

from inspector.engine.session import Session
from inspector.proxy.attach import AttachTransport
from inspector.safe_text import safe_text


class InterceptChanged(Message):
    """The proxy's intercept state changed (filter, held frames, an error)."""


def watch_intercept(app: Any, transport: AttachTransport) -> None:
    """Tell the app when the proxy holds something (once per transport, from the attach
    on): the open screen refreshes, and with the screen closed a notice says how to get
    to a newly held frame (the status bar counts them all along)."""
    if transport.on_intercept is not None:
        return
    counted = len(transport.held)

    def changed() -> None:
        nonlocal counted
        more, counted = len(transport.held) > counted, len(transport.held)
        screen = app.screen
        if isinstance(screen, InterceptScreen):
            screen.post_message(InterceptChanged())
        elif more:
            app.notify(
                f"{counted} frame(s) held by intercept, the host waits: press I",
                title="intercept",
                severity="warning",
            )

    transport.on_intercept = changed


def attached(session: Session | None) -> AttachTransport | None:
    """The session's proxy, when it is attached to one."""
    transport = session.transport if session is not None else None
    return transport if isinstance(transport, AttachTransport) else None


def held_count(session: Session | None) -> int:
    """The frames the attached proxy holds (0 when not attached)."""
    transport = attached(session)
    return len(transport.held) if transport is not None else 0


class InterceptScreen(ModalScreen[None]):
    DEFAULT_CSS = """
    InterceptScreen { align: center middle; }
    InterceptScreen > Vertical { width: 90%; height: 85%; border: thick $accent;
                                 background: $surface; padding: 0 1; }
    InterceptScreen #held { height: 8; }
    InterceptScreen #frame { height: 1fr; }
    InterceptScreen #state { height: auto; color: $text-muted; }
    InterceptScreen #buttons { height: auto; align-horizontal: right; }
    InterceptScreen #buttons Button { margin-left: 1; }
    """
    # priority: the filter Input and the frame TextArea bind ctrl+a (home) and ctrl+d
    # (delete right); the dialog's decisions must win wherever the focus is in it
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+f", "forward", "Forward", priority=True),
        Binding("ctrl+d", "drop", "Drop", priority=True),
        Binding("ctrl+a", "forward_all", "Forward all", priority=True),
        Binding("escape", "close", "Close"),
    ]

    def __init__(self, transport: AttachTransport) -> None:
        super().__init__()
        self.transport = transport
        self._shown: int | None = None  # the held frame in the editor

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static("Intercept: hold the host's and the server's frames that match")
            yield Input(
                self.transport.intercept_filter,
                placeholder="a filter (method:tools/call, dir:in kind:response, text); "
                "empty: hold nothing",
                id="filter",
            )
            yield Static("", id="state")
            yield OptionList(id="held")
            yield TextArea("", id="frame", language="json", soft_wrap=True)
            with Horizontal(id="buttons"):
                yield Button("Close (esc)", id="close", compact=True)
                yield Button("Forward all (ctrl+a)", id="forward_all", compact=True)
                yield Button("Drop (ctrl+d)", id="drop", variant="error", compact=True)
                yield Button("Forward (ctrl+f)", id="forward", variant="primary", compact=True)

    def on_mount(self) -> None:
        self.refresh_held()
        # reopened on frames held: on them (ctrl+f, ctrl+d act; ↑ ↓ pick), else the filter
        self.query_one("#held" if self.transport.held else "#filter").focus()

    @on(InterceptChanged)
    def refresh_held(self) -> None:
        held = self.transport.held
        options = self.query_one("#held", OptionList)
        options.clear_options()
        for number, facts in sorted(held.items()):
            where = "host → server" if facts.get("dir") == "out" else "server → host"
            label = f"#{number}  {where}  {facts.get('summary', '')}"
            options.add_option(Option(safe_text(label), id=str(number)))
        state = f"filter: {self.transport.intercept_filter or '(off)'} · {len(held)} held"
        if self.transport.intercept_error:
            state += f" · {self.transport.intercept_error}"
        self.query_one("#state", Static).update(safe_text(state))
        if self._shown not in held:
            self._show(min(held) if held else None)
        if held:
            options.highlighted = sorted(held).index(self._shown) if self._shown in held else 0

    def _show(self, number: int | None) -> None:
        self._shown = number
        raw = str(self.transport.held[number].get("raw", "")) if number is not None else ""
        self.query_one("#frame", TextArea).load_text(raw)

    @on(OptionList.OptionHighlighted, "#held")
    def _highlighted(self, event: OptionList.OptionHighlighted) -> None:
        number = int(event.option.id or 0)
        if number != self._shown and number in self.transport.held:
            self._show(number)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        actions = {
            "forward": self.action_forward,
            "drop": self.action_drop,
            "forward_all": self.action_forward_all,
            "close": self.action_close,
        }
        actions.get(event.button.id or "", self.action_close)()

    @on(Input.Submitted, "#filter")
    def _filter(self, event: Input.Submitted) -> None:
        self._send("filter", event.value)

    def action_forward(self) -> None:
        if self._shown is not None:
            self._send("forward", self.query_one("#frame", TextArea).text)

    def action_drop(self) -> None:
        if self._shown is not None:
            self._send("drop", "")

    def action_forward_all(self) -> None:
        self._send("all", "")

    def action_close(self) -> None:
        self.dismiss(None)

    @work(exclusive=False, exit_on_error=False)
    async def _send(self, what: str, text: str) -> None:
        transport = self.transport
        try:
            if what == "filter":
                await transport.set_intercept(text)
            elif what == "all":
                await transport.release_all()
            elif self._shown is not None:
                raw = text.encode("utf-8") if what == "forward" else None
                await transport.release(self._shown, what, raw)
        except Exception as exc:  # the proxy went away: say so here
            self.query_one("#state", Static).update(safe_text(f"not sent: {exc}"))


def open_intercept(app: Any, session: Session | None) -> None:
    """``I``: the intercept screen, when the app is attached to a proxy."""
    transport = attached(session)
    if transport is None:
        app.notify(
            "intercept holds a proxy's traffic: open it with `mcp-inspect attach`",
            title="intercept",
        )
        return
    watch_intercept(app, transport)
    app.push_screen(InterceptScreen(transport))
