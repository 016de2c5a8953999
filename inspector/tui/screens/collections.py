"""The Collections view: run a collection file's steps on the live connection and see each
step pass or fail, with what differed.

The file's own ``server`` is not used: the steps go to the server this app is connected
to (every one is on the wire, in the log). The server's requests during a step are
answered here, by the app's own dialogs, not by the file's ``answers``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Static

from inspector.collection.answers import StepAnswers
from inspector.collection.load import load_collection
from inspector.collection.model import Collection
from inspector.collection.run import FAILED, PASSED, Runner, StepResult
from inspector.engine.client import McpClient
from inspector.errors import InspectorError
from inspector.safe_text import one_line, safe_text
from inspector.tui.session_copy import shorten

MARKS = {PASSED: ("✓ PASS", "green"), FAILED: ("✗ FAIL", "bold red")}


class CollectionsScreen(ModalScreen[None]):
    """Type a collection file, Enter runs it; each step's line comes as it ends."""

    DEFAULT_CSS = """
    CollectionsScreen { align: center middle; }
    CollectionsScreen > Vertical { width: 110; max-width: 98%; height: 90%;
                                   border: thick $primary; background: $surface; padding: 0 1; }
    CollectionsScreen Horizontal { height: auto; }
    CollectionsScreen #collection-path { width: 1fr; }
    CollectionsScreen #collection-results { height: 1fr; border: round $primary-darken-2; }
    CollectionsScreen #collection-summary { height: auto; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "close", "Close")]

    def __init__(self, default: Path, client: McpClient | None) -> None:
        super().__init__()
        self.default = default
        self.client = client
        self.running = False

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(Text("Collections: run a collection on this connection", style="bold"))
            yield Static(
                Text(
                    "the file's server is not used: its steps go to this connection (and to "
                    "the log); the server's requests are answered by this app's dialogs",
                    style="dim",
                )
            )
            with Horizontal():
                yield Input(str(shorten(self.default)), id="collection-path")
                yield Button("Run (enter)", id="run", variant="primary")
                yield Button("Close (esc)", id="close")
            yield VerticalScroll(id="collection-results")
            yield Static("", id="collection-summary")

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.start()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "run":
            self.start()
        else:
            self.dismiss(None)

    def action_close(self) -> None:
        self.dismiss(None)

    def _say(self, text: str, style: str) -> None:
        self.query_one("#collection-summary", Static).update(safe_text(text, style))

    def start(self) -> None:
        """Read the file (its mistakes shown, nothing sent), then run it in a worker."""
        if self.running:
            return
        if self.client is None:
            self._say("not connected: press r to reconnect, then run it again", "bold red")
            return
        path = Path(self.query_one(Input).value.strip()).expanduser()
        try:
            collection = load_collection(path)
        except InspectorError as exc:
            self._say(str(exc), "bold red")
            return
        results = self.query_one("#collection-results", VerticalScroll)
        results.remove_children()
        self.running = True
        self._say(f"running {len(collection.steps)} steps of {shorten(path)}…", "yellow")
        self.run_worker(self._run(collection, self.client), group="collection-run")

    async def _run(self, collection: Collection, client: McpClient) -> None:
        runner = Runner(collection, client, StepAnswers())
        try:
            done = await runner.run(on_result=self._show)
        finally:
            self.running = False
        passed = sum(1 for r in done if r.status == PASSED)
        failed = len(done) - passed
        self._say(
            f"{passed} passed, {failed} failed: {collection.path.name}",
            "green" if not failed else "bold red",
        )

    def _show(self, result: StepResult) -> None:
        mark, style = MARKS.get(result.status, (result.status.upper(), "yellow"))
        line = Text.assemble((f"{mark}  ", style), safe_text(one_line(result.step.title, 80)))
        if result.outcome is not None and result.status == PASSED:
            line.append(f"  ({result.outcome.latency_ms:.0f} ms)", style="dim")
        shown: list[Any] = [Static(line, classes="collection-step")]
        for failure in result.failures:
            shown.append(Static(safe_text(f"    {failure.message}", "red", multiline=True)))
        if result.reason:
            shown.append(Static(safe_text(f"    {result.reason}", "yellow")))
        self.query_one("#collection-results", VerticalScroll).mount_all(shown)
