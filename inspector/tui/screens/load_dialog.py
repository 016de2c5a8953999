"""Ask how hard a short load run from a tool's form goes: sessions, how long, a rate.

Dismisses with :class:`LoadOptions` (checked: each bad field says what it takes) or None.
"""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, Static

from inspector.load.runner import LoadOptions
from inspector.load.units import parse_duration
from inspector.safe_text import safe_text

DEFAULT_CONCURRENCY = "2"
DEFAULT_DURATION = "5s"
MAX_CONCURRENCY = 64  # each a session (a stdio server process each): a short run's bound


class LoadDialog(ModalScreen[LoadOptions | None]):
    """Concurrency, a duration or a number of requests, and an optional open-model rate."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel")]

    DEFAULT_CSS = """
    LoadDialog { align: center middle; }
    LoadDialog > Vertical { width: 70; max-width: 96%; height: auto; max-height: 96%;
                            border: thick $primary; background: $surface; padding: 1 2; }
    LoadDialog Horizontal.row { height: auto; }
    LoadDialog Label { width: 22; padding: 1 1 0 0; }
    LoadDialog Input { width: 1fr; }
    LoadDialog #load-problem { height: auto; margin-top: 1; }
    LoadDialog #load-buttons { height: auto; margin-top: 1; }
    LoadDialog Button { margin-right: 1; }
    """

    def __init__(self, label: str, timeout: float) -> None:
        super().__init__()
        self.label = label
        self.timeout = timeout
        self.problem = ""

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(Text.assemble(("Load run: ", "bold"), safe_text(self.label)))
            yield Static(
                Text(
                    "its own sessions on this target (the live one is left alone); "
                    "the log keeps every error and 1 call in 100",
                    style="dim",
                )
            )
            with Horizontal(classes="row"):
                yield Label("sessions in parallel")
                yield Input(DEFAULT_CONCURRENCY, id="load-concurrency")
            with Horizontal(classes="row"):
                yield Label("duration")
                yield Input(DEFAULT_DURATION, id="load-duration", placeholder="5s, 1m, 500ms")
            with Horizontal(classes="row"):
                yield Label("or requests")
                yield Input("", id="load-requests", placeholder="a number: over the duration")
            with Horizontal(classes="row"):
                yield Label("rate (calls/s)")
                yield Input("", id="load-rate", placeholder="empty: each calls again at once")
            yield Static("", id="load-problem")
            with Horizontal(id="load-buttons"):
                yield Button("Start (enter)", id="load-start", variant="primary")
                yield Button("Cancel (esc)", id="load-cancel")

    def on_mount(self) -> None:
        self.query_one("#load-concurrency", Input).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_start()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "load-start":
            self.action_start()
        else:
            self.dismiss(None)

    def action_cancel(self) -> None:
        self.dismiss(None)

    def action_start(self) -> None:
        try:
            options = self.options()
        except ValueError as exc:
            self.problem = str(exc)
            self.query_one("#load-problem", Static).update(Text(self.problem, style="red"))
            return
        self.dismiss(options)

    def _value(self, field: str) -> str:
        return self.query_one(f"#load-{field}", Input).value.strip()

    def options(self) -> LoadOptions:
        """The fields as options; ``ValueError`` names the field and what it takes."""
        concurrency = _whole(self._value("concurrency"), "sessions in parallel")
        if concurrency > MAX_CONCURRENCY:
            raise ValueError(f"sessions in parallel: at most {MAX_CONCURRENCY} from the TUI")
        requests = _whole(self._value("requests"), "requests") if self._value("requests") else None
        duration = None
        if requests is None:
            if not self._value("duration"):
                raise ValueError("say how long: a duration (5s) or a number of requests")
            try:
                duration = parse_duration(self._value("duration"))
            except ValueError as exc:
                raise ValueError(f"duration: {exc}") from exc
            if duration <= 0:
                raise ValueError("duration: more than 0")
        rate = None
        if self._value("rate"):
            try:
                rate = float(self._value("rate"))
            except ValueError:
                rate = 0.0
            if not rate > 0:
                raise ValueError("rate: calls a second, a number more than 0 (or empty)")
        return LoadOptions(
            concurrency=concurrency,
            rate=rate,
            duration=duration,
            requests=requests,
            timeout=self.timeout,
        )


def _whole(text: str, name: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise ValueError(f"{name}: a whole number of at least 1, not {text!r}")
    return value
