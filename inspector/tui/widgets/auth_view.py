"""The Auth view: an OAuth flow as steps, and what the person does in it.

    view = AuthView(server_url, id="auth")
    view.bind(interaction, authorizer)          # inspector.tui.auth_ui wires it
    view.add_event(event)                       # every WireEvent of the ``auth`` channel

The table lists each exchange of the flow (its step, the request, the status) and the
flow's decisions (discovered metadata, the client, the authorization URL, the code, the
token with its scopes and expiry), straight from the wire events. While a person is
needed the URL is shown in full with its host, to open in a browser (``o``: with consent,
``webbrowser``, never a shell), copy (``c``) for a browser on another machine, or to paste
the redirected URL back. In step-by-step mode (``s``) each request waits for ``n``.
"""

from __future__ import annotations

import time
import webbrowser
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar, Protocol

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.coordinate import Coordinate
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Button, DataTable, Input, Static, TabbedContent, TabPane

from inspector.safe_text import one_line, safe_text
from inspector.tui.screens.elicitation import url_facts
from inspector.tui.widgets.steady_input import SteadyInput
from inspector.wire.events import Direction, WireEvent

Opener = Callable[[str], Any]
NOTE_LABELS = {
    "stored": "stored token",
    "discovered": "discovered",
    "start": "authorize",
    "client": "client",
    "authorize": "authorization URL",
    "waiting": "waiting",
    "code": "code",
    "token": "token",
    "refresh": "refresh",
    "failed": "failed",
    "gave-up": "gave up",
    "id-jag": "token exchange",
    "paused": "paused",
    "held": "not started",
}


class ViewedPerson(Protocol):
    """What the view drives of its flow's person (``inspector.tui.auth_ui.TuiInteraction``,
    which builds on this view)."""

    step_mode: bool

    def paste(self, text: str) -> str | None: ...
    def cancel(self) -> None: ...
    def proceed(self) -> None: ...


class AuthView(Widget, can_focus=True):
    """Steps of the flow, the authorization URL when a person is needed, step mode."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("o", "open_browser", "Open in browser"),
        Binding("c", "copy_url", "Copy URL"),
        Binding("n", "next_request", "Send next request"),
        Binding("s", "toggle_step", "Step by step"),
        Binding("x", "cancel_flow", "Cancel authorization"),
    ]

    DEFAULT_CSS = """
    AuthView { height: 1fr; }
    AuthView > #auth-state { height: auto; padding: 0 1; text-style: bold; }
    AuthView > DataTable { height: 1fr; min-height: 4; }
    AuthView > #auth-person {
        height: auto; border: round $warning; padding: 0 1; display: none;
    }
    AuthView #auth-url { height: auto; }
    AuthView #auth-problem { height: auto; color: $text-warning; }
    AuthView #auth-paste { margin-top: 0; }
    AuthView #auth-paste-error { height: auto; color: $text-error; }
    AuthView > #auth-pause { height: auto; border: round $accent; padding: 0 1; display: none; }
    AuthView Horizontal { height: auto; }
    AuthView Button { margin-right: 1; }
    """

    @dataclass
    class Waiting(Message):
        url: str
        redirect_uri: str

    @dataclass
    class Paused(Message):
        step: str
        method: str
        url: str

    class Ended(Message):
        """The person is no longer needed (redirect received, cancelled, timed out)."""

    class Resumed(Message):
        """The paused request went."""

    def __init__(
        self,
        server_url: str,
        *,
        opener: Opener = webbrowser.open,
        observing: bool = False,
        **kwargs: Any,
    ):
        """``observing``: the flow is another process's (an attached proxy's): the view
        follows it from its events, and the URL can be opened here (the redirect goes to
        that process's loopback listener); nothing can be pasted, paused or cancelled."""
        super().__init__(**kwargs)
        self.server_url = server_url
        self.opener = opener
        self.observing = observing
        self.url: str | None = None  # the authorization URL while a person is needed
        self.paused: tuple[str, str, str] | None = None
        self.interaction: ViewedPerson | None = None
        self.authorizer: Any = None
        self.state = "no authorization yet: a server that answers 401 starts one"
        self._early: list[WireEvent] | None = []  # events before the view was mounted

    def bind(self, interaction: ViewedPerson, authorizer: Any) -> None:
        self.interaction = interaction
        self.authorizer = authorizer

    def compose(self) -> ComposeResult:
        yield Static(self._state_text(), id="auth-state")
        table: DataTable[Text] = DataTable(cursor_type="row", zebra_stripes=True)
        table.add_columns("step", "exchange or decision", "result")
        yield table
        with Vertical(id="auth-person"):
            yield Static("", id="auth-url")
            yield Static("", id="auth-problem")
            with Horizontal():
                yield Button("Open in browser (o)", id="auth-open", variant="primary", compact=True)
                yield Button("Copy URL (c)", id="auth-copy", compact=True)
                yield Button("Cancel (x)", id="auth-cancel", variant="error", compact=True)
            yield SteadyInput(
                placeholder="or paste the URL the browser was sent to (address bar), then Enter",
                id="auth-paste",
                compact=True,
            )
            yield Static("", id="auth-paste-error")
        with Vertical(id="auth-pause"):
            yield Static("", id="auth-next")
            with Horizontal():
                yield Button("Send it (n)", id="auth-send", variant="primary", compact=True)
                yield Button("Step by step: on (s)", id="auth-step", compact=True)

    # -- the wire ------------------------------------------------------------------------

    def on_mount(self) -> None:
        if self.observing:
            for part in ("#auth-cancel", "#auth-paste", "#auth-paste-error"):
                self.query_one(part).display = False
        self.call_after_refresh(self._catch_up)

    def _catch_up(self) -> None:
        early, self._early = self._early or [], None
        for event in early:
            self._add(event)

    def add_event(self, event: WireEvent) -> None:
        """One ``auth`` channel event: a request row, its status, or a decision (kept until
        the view is mounted: a flow can start before)."""
        if self._early is not None:
            self._early.append(event)
            return
        self._add(event)

    def _add(self, event: WireEvent) -> None:
        table = self.query_one(DataTable)
        meta = event.meta
        if event.direction is Direction.OUT and "method" in meta:
            table.add_row(
                Text(str(meta.get("step", ""))),
                safe_text(one_line(event.text(), 200)),
                Text("…", style="dim"),
                key=f"e{event.seq}",
            )
        elif event.direction is Direction.IN and "reason" in meta and table.row_count:
            status = meta.get("status")
            style = "green" if isinstance(status, int) and status < 400 else "red"
            row = table.get_row_at(table.row_count - 1)
            if str(row[2]) == "…":
                table.update_cell_at(
                    Coordinate(table.row_count - 1, 2), Text(str(status), style=style)
                )
        elif event.direction is Direction.LOCAL and meta.get("auth") in NOTE_LABELS:
            kind = str(meta["auth"])
            severity = str(meta.get("severity", "info"))
            style = {"error": "red", "warning": "yellow"}.get(severity, "cyan")
            table.add_row(
                Text(NOTE_LABELS[kind], style=style),
                safe_text(one_line(event.text(), 300)),
                Text(""),
                key=f"e{event.seq}",
            )
            self._follow_state(kind, event)
        table.move_cursor(row=table.row_count - 1)

    def _follow_state(self, kind: str, event: WireEvent) -> None:
        meta = event.meta
        if kind == "token":
            scopes = " ".join(meta.get("scopes") or []) or "no scope"
            expires = meta.get("expires_at")
            left = f", expires in {expires - time.time():.0f} s" if expires else ""
            refresh = ", refreshable" if meta.get("refresh") else ""
            self.state = f"authorized: {scopes}{left}{refresh}"
        elif kind == "stored":
            self.state = "using a stored token"
        elif kind == "start":
            self.state = "authorizing…"
        elif kind in ("failed", "gave-up"):
            self.state = f"not authorized: {event.text()}"
        elif kind == "held":
            self.state = "needs authorization (A starts it)"
        self.query_one("#auth-state", Static).update(self._state_text())
        if self.observing:
            self._follow_person(kind, event)

    def _follow_person(self, kind: str, event: WireEvent) -> None:
        """An observed flow says when it waits for a person and when it stopped waiting."""
        url = event.meta.get("url")
        if kind == "waiting" and event.meta.get("hold") and isinstance(url, str):
            self.post_message(self.Waiting(url, str(event.meta.get("redirect_uri", ""))))
        elif kind in ("code", "token", "failed", "gave-up") and self.url is not None:
            self.post_message(self.Ended())

    def _state_text(self) -> Text:
        text = Text("OAuth ", style="bold")
        text.append_text(safe_text(one_line(self.server_url, 80)))
        text.append(" — ")
        text.append_text(safe_text(one_line(self.state, 300)))
        if self.interaction is not None and self.interaction.step_mode:
            text.append("  [step by step]", style="bold yellow")
        return text

    # -- a person is needed ----------------------------------------------------------------

    @on(Waiting)
    def _waiting(self, message: Waiting) -> None:
        self.url = message.url
        host, problem = url_facts(message.url)
        box = Text()
        if self.observing:
            box.append(
                "The proxy waits for a person: open this URL in a browser on this machine "
                "(the redirect goes to the proxy's listener, ",
                "bold",
            )
        else:
            box.append("Authorize in a browser: open this URL (the redirect comes back to ", "bold")
        box.append(message.redirect_uri or "the loopback listener", "bold")
        box.append(")\n")
        box.append_text(safe_text(message.url))
        box.append("\nhost: ", style="bold")
        box.append_text(safe_text(host))
        self.query_one("#auth-url", Static).update(box)
        warning = self.query_one("#auth-problem", Static)
        warning.update(problem or "")
        warning.display = problem is not None
        self.query_one("#auth-open", Button).disabled = _unopenable(problem)
        self.query_one("#auth-paste-error", Static).update("")
        self.query_one("#auth-person").display = True
        self._bring_forward("a person is needed to authorize: see the Auth tab")
        self._focus_after_refresh("#auth-open")

    def _focus_after_refresh(self, selector: str) -> None:
        """Focus a button once the tab switch and the display change have been laid out:
        focused at once, it could still be hidden, and Textual then drops the focus."""
        button = self.query_one(selector, Button)
        self.call_after_refresh(button.focus)

    def _bring_forward(self, reason: str) -> None:
        """Show this view's tab (wherever it is) and say why."""
        pane: str | None = None
        for ancestor in self.ancestors:
            if isinstance(ancestor, TabPane):
                pane = ancestor.id
            elif isinstance(ancestor, TabbedContent) and pane is not None:
                ancestor.active = pane
                break
        self.notify(reason, title="authorization", timeout=8)

    @on(Ended)
    def _ended(self, _: Ended) -> None:
        self.url = None
        self.query_one("#auth-person").display = False
        self.query_one("#auth-paste", Input).value = ""

    @on(Paused)
    def _paused(self, message: Paused) -> None:
        self.paused = (message.step, message.method, message.url)
        text = Text("Step by step — next request: ", style="bold")
        text.append_text(safe_text(f"{message.method} {message.url}"))
        text.append(f"  ({message.step})", style="dim")
        self.query_one("#auth-next", Static).update(text)
        self.query_one("#auth-pause").display = True
        self._bring_forward("the next OAuth request waits for you (step by step): Auth tab")
        self._focus_after_refresh("#auth-send")

    @on(Resumed)
    def _resumed(self, _: Resumed) -> None:
        self.paused = None
        self.query_one("#auth-pause").display = False

    # -- actions ---------------------------------------------------------------------------

    @on(Button.Pressed, "#auth-open")
    def action_open_browser(self) -> None:
        """Pressing it is the consent: the browser opens this URL, never through a shell."""
        if self.url is None:
            return
        _, problem = url_facts(self.url)
        if _unopenable(problem):
            self.notify(str(problem), severity="error")
            return
        try:
            self.opener(self.url)
        except Exception as exc:  # no browser here: the URL stays on screen to copy
            self.notify(f"could not open a browser: {exc}; copy the URL (c)", severity="warning")
            return
        self.notify("opened in the browser; finish there", timeout=5)

    @on(Button.Pressed, "#auth-copy")
    def action_copy_url(self) -> None:
        if self.url is not None:
            self.app.copy_to_clipboard(self.url)
            self.notify("authorization URL copied", timeout=3)

    @on(Button.Pressed, "#auth-cancel")
    def action_cancel_flow(self) -> None:
        if self.interaction is not None and self.url is not None:
            self.interaction.cancel()

    @on(Input.Submitted, "#auth-paste")
    def _pasted(self, message: Input.Submitted) -> None:
        if self.interaction is None or not message.value.strip():
            return
        problem = self.interaction.paste(message.value)
        self.query_one("#auth-paste-error", Static).update(problem or "")

    @on(Button.Pressed, "#auth-send")
    def action_next_request(self) -> None:
        if self.interaction is not None and self.paused is not None:
            self.interaction.proceed()

    @on(Button.Pressed, "#auth-step")
    def action_toggle_step(self) -> None:
        if self.interaction is None:
            return
        self.interaction.step_mode = not self.interaction.step_mode
        on_off = "on" if self.interaction.step_mode else "off"
        self.query_one("#auth-step", Button).label = f"Step by step: {on_off} (s)"
        if not self.interaction.step_mode and self.paused is not None:
            self.interaction.proceed()
        self.query_one("#auth-state", Static).update(self._state_text())
        what = "wait for n" if self.interaction.step_mode else "go at once"
        self.notify(f"step by step {on_off}: OAuth requests {what}", timeout=3)


def _unopenable(problem: str | None) -> bool:
    """``url_facts`` problems that forbid opening (a bad scheme, no host, not a URL); the
    others (credentials before the host, a punycode host) are warnings to read first."""
    return problem is not None and (
        "will not be opened" in problem or problem.startswith("not a valid URL")
    )
