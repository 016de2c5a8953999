"""The elicitation screen: ``elicitation/create`` answered with accept, decline or cancel.

    answer = await app.push_screen_wait(ElicitationScreen(params, server="demo"))
    # {"action": "accept", "content": {...}} | {"action": "decline"} | {"action": "cancel"}

Form mode builds a ``SchemaForm`` from ``requestedSchema``: every default is
pre-filled, so accepting an untouched form sends the defaults. URL mode shows the
full URL and its host, asks for consent, opens the browser with ``webbrowser``
(never a shell) and answers ``accept``; if the server then reports the elicitation
complete, the open dialog says so (``mark_complete``). ``CompletionWaitScreen`` waits,
bounded and cancellable, for those reports before a -32042 request is retried.
Server text is data.
"""

from __future__ import annotations

import webbrowser
from collections.abc import Callable
from time import monotonic
from typing import Any, ClassVar
from urllib.parse import urlsplit

import anyio
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Button, Static

from inspector.safe_text import fold, one_line, safe_text
from inspector.tui.masked import shown_mask
from inspector.tui.screens.sampling import ServerRequestScreen
from inspector.tui.widgets.schema_form import SchemaForm

Opener = Callable[[str], Any]
SAFE_SCHEMES = ("https", "http")


def url_facts(url: str) -> tuple[str, str | None]:
    """(host to show, problem or None): what the user must see before consenting."""
    try:
        parts = urlsplit(url)
    except ValueError as exc:
        return "?", f"not a valid URL: {exc}"
    if parts.scheme.lower() not in SAFE_SCHEMES:
        return (
            parts.netloc or "?",
            f"the URL scheme {parts.scheme!r} is not http(s); it will not be opened",
        )
    host = parts.hostname or ""
    if not host:
        return "?", "the URL has no host; it will not be opened"
    problem = None
    if parts.username or parts.password:
        problem = "the URL carries a user name or password before the host: check the host"
    elif host.startswith("xn--") or ".xn--" in host:
        problem = "the host is an internationalised (punycode) name: check it carefully"
    return host, problem


class ElicitationScreen(ServerRequestScreen[dict[str, Any]]):
    """Asks the user; dismisses with the ElicitResult to send."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+s", "accept", "Accept", priority=True),
        Binding("ctrl+d", "decline", "Decline"),
        Binding("escape", "cancel", "Cancel"),
    ]

    DEFAULT_CSS = """
    ElicitationScreen { align: center middle; }
    ElicitationScreen > #dialog {
        width: 90%; max-width: 110; height: auto; max-height: 90%;
        border: thick $accent; background: $surface; padding: 0 1;
    }
    /* the buttons stay on screen: the rest scrolls above them when the terminal is short */
    ElicitationScreen #body { height: auto; max-height: 100%; }
    ElicitationScreen #title { text-style: bold; margin-bottom: 1; }
    ElicitationScreen #message { margin-bottom: 1; height: auto; max-height: 10; }
    ElicitationScreen #form { height: auto; max-height: 60vh; }
    ElicitationScreen #url { border: round $warning; padding: 0 1; height: auto; }
    ElicitationScreen #url-problem { color: $text-warning; height: auto; }
    ElicitationScreen #status { color: $text-error; height: auto; display: none; }
    ElicitationScreen #complete { color: $text-success; height: auto; display: none; }
    ElicitationScreen #buttons {
        dock: bottom; height: auto; align-horizontal: right; margin-top: 1;
    }
    ElicitationScreen.-short #title, ElicitationScreen.-short #message { margin-bottom: 0; }
    ElicitationScreen.-short #message { max-height: 4; }
    ElicitationScreen.-short #buttons { margin-top: 0; }
    ElicitationScreen #buttons Button { margin-left: 1; }
    """

    def __init__(
        self,
        params: dict[str, Any],
        *,
        server: str = "the server",
        opener: Opener = webbrowser.open,
        completion_notice: bool = True,
    ) -> None:
        super().__init__()
        self.params = params
        self.completion_notice = completion_notice  # False in 2026-07-28: none will come
        self.server = server
        self.opener = opener
        self.mode = "url" if params.get("mode") == "url" else "form"
        self.url = str(params.get("url", ""))
        self.host, self.url_problem = url_facts(self.url) if self.mode == "url" else ("", None)
        self._refused: list[str] = []  # the problems shown at the last refused Accept
        self.completed = False  # notifications/elicitation/complete arrived for it

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            with VerticalScroll(id="body", can_focus=False):
                mask = shown_mask(self.app)  # the session's secrets out of the server's text
                title = Text(f"elicitation/create ({self.mode} mode)", style="bold")
                title.append_text(safe_text(f" from {mask(one_line(self.server, 80))}"))
                yield Static(title, id="title")
                said = fold(str(self.params.get("message", "")), 4000)
                yield Static(safe_text(mask(said), multiline=True), id="message")
                if self.mode == "url":
                    yield from self._url_part()
                else:
                    yield SchemaForm(
                        self.params.get("requestedSchema") or {"type": "object"},
                        send_button=False,
                        id="form",
                    )
                yield Static("", id="status")
                yield Static("", id="complete")
            with Horizontal(id="buttons"):
                yield Button("Cancel", id="cancel", compact=True)
                yield Button("Decline", id="decline", variant="error", compact=True)
                label = "Open in browser and accept" if self.mode == "url" else "Accept"
                yield Button(
                    label,
                    id="accept",
                    variant="primary",
                    compact=True,
                    disabled=self.mode == "url" and not self.url_openable,
                )

    def _url_part(self) -> ComposeResult:
        box = Text()
        box.append("The server asks you to open this URL:\n", style="bold")
        box.append_text(safe_text(self.url))  # in full: never folded, never shortened
        box.append("\n\nhost: ", style="bold")
        box.append_text(safe_text(self.host, "bold reverse"))
        if eid := self.params.get("elicitationId"):
            box.append("\nelicitation id: ", style="bold")
            box.append_text(safe_text(str(eid)))
        if not self.completion_notice:
            box.append(
                "\n\nProtocol 2026-07-28: the server sends no completion notice; the "
                "request is retried as soon as you accept.",
                style="dim",
            )
        yield Static(box, id="url")
        if self.url_problem:
            yield Static(safe_text(f"⚠ {self.url_problem}"), id="url-problem")

    def mark_complete(self) -> None:
        """The server sent notifications/elicitation/complete for this elicitation."""
        self.completed = True
        if self.is_mounted:
            complete = self.query_one("#complete", Static)
            complete.update("✓ the server reports this elicitation complete")
            complete.display = True  # hidden while empty: no blank row above the buttons

    @property
    def url_openable(self) -> bool:
        parts = urlsplit(self.url) if self.url else None
        return bool(parts and parts.scheme.lower() in SAFE_SCHEMES and parts.hostname)

    def on_mount(self) -> None:
        if self.completed:
            self.mark_complete()
        if self.mode == "form":
            inputs = self.query("#form Input, #form Checkbox, #form Select")
            if inputs:
                inputs.first().focus()
        else:
            self.query_one("#cancel", Button).focus()  # consent needs a deliberate choice

    # -- actions -----------------------------------------------------------------------

    async def action_accept(self) -> None:
        if self.mode == "url":
            if not self.url_openable:
                return
            try:
                await anyio.to_thread.run_sync(self.opener, self.url)
            except Exception as exc:  # no browser: still the user's consent, say so
                self.app.notify(
                    f"could not open a browser: {one_line(str(exc))}",
                    severity="warning",
                    markup=False,
                )
            self.dismiss({"action": "accept"})
            return
        form = self.query_one("#form", SchemaForm)
        content, issues = form.get_arguments()
        if form.json_mode and content is None:
            return  # the JSON does not parse: the editor says why
        if issues:
            problems = [issue.message for issue in issues]
            if problems != self._refused:  # a debugger may send invalid content: on purpose
                self._refused = problems
                status = self.query_one("#status", Static)
                status.update(
                    safe_text(
                        f"{len(issues)} problem(s): fix them, press Accept again to send anyway, "
                        "or Decline / Cancel"
                    )
                )
                status.display = True
                return
        self.dismiss({"action": "accept", "content": content if content is not None else {}})

    def action_decline(self) -> None:
        self.dismiss({"action": "decline"})

    def action_cancel(self) -> None:
        self.dismiss({"action": "cancel"})

    async def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "accept":
            event.stop()
            await self.action_accept()
        elif event.button.id == "decline":
            event.stop()
            self.action_decline()
        elif event.button.id == "cancel":
            event.stop()
            self.action_cancel()


class CompletionWaitScreen(ServerRequestScreen[str]):
    """After error -32042: wait for the server to confirm the URL elicitations complete.

    Dismisses with "complete" (every id confirmed), "retry" (the user did not wait),
    "timeout" (``timeout`` seconds passed) or "cancel" (do not retry at all).
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("r", "retry", "Retry now"),
        Binding("escape", "cancel", "Cancel"),
    ]

    DEFAULT_CSS = """
    CompletionWaitScreen { align: center middle; }
    CompletionWaitScreen > #dialog {
        width: 80%; max-width: 100; height: auto; border: thick $accent;
        background: $surface; padding: 0 1;
    }
    CompletionWaitScreen #waiting { height: auto; margin-bottom: 1; }
    CompletionWaitScreen #buttons { height: auto; align-horizontal: right; }
    CompletionWaitScreen #buttons Button { margin-left: 1; }
    """

    def __init__(
        self, pending: list[str], *, server: str = "the server", timeout: float = 120.0
    ) -> None:
        super().__init__()
        self.pending = list(pending)
        self.server = server
        self.timeout = timeout
        self.started = monotonic()
        self._outcome: str | None = None

    def finish(self, outcome: str) -> None:
        """Dismiss with ``outcome`` once; if another dialog is on top, when it closes
        (dismiss pops whatever screen is on top)."""
        if self._outcome is not None:
            return
        self._outcome = outcome
        if self.is_current:
            self.dismiss(outcome)

    def on_screen_resume(self) -> None:
        super().on_screen_resume()
        if self._outcome is not None and self.is_current and not self.withdrawn:
            self.dismiss(self._outcome)

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Static("", id="waiting")
            with Horizontal(id="buttons"):
                yield Button("Cancel (no retry)", id="cancel", compact=True)
                yield Button("Retry now", id="retry", variant="primary", compact=True)

    def on_mount(self) -> None:
        self._show()
        self.set_interval(1.0, self._tick)
        self.query_one("#retry", Button).focus()

    def _show(self) -> None:
        left = max(0, round(self.timeout - (monotonic() - self.started)))
        text = Text()
        text.append_text(
            safe_text(
                f"Waiting for {one_line(self.server, 60)} to confirm the URL elicitation(s) "
                f"complete (notifications/elicitation/complete), then the request is retried; "
                f"{left} s left.\n",
                "bold",
            )
        )
        for eid in self.pending:
            text.append_text(safe_text(f"  … {one_line(eid, 100)}\n"))
        text.append("Press r (Retry now) not to wait, esc to cancel the retry.", style="dim")
        self.query_one("#waiting", Static).update(text)

    def _tick(self) -> None:
        if monotonic() - self.started >= self.timeout:
            self.finish("timeout")
        else:
            self._show()

    def mark_complete(self, elicitation_id: str) -> None:
        """One id confirmed; the last one ends the wait."""
        if elicitation_id in self.pending:
            self.pending.remove(elicitation_id)
        if not self.pending:
            self.finish("complete")
        elif self.is_mounted:
            self._show()

    def action_retry(self) -> None:
        self.finish("retry")

    def action_cancel(self) -> None:
        self.finish("cancel")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "retry":
            self.action_retry()
        elif event.button.id == "cancel":
            self.action_cancel()
