"""Items and calls: a catalog item selected opens its form (with completions); a run
asks first for a tool marked destructive, then makes the call and shows its outcome
(a task's too), with progress; an updated resource is re-read or announced.

The app keeps the ``@on`` handlers and the ``execute`` worker and hands over what this
needs: the main screen (its panes), the ``Server`` (its controller: None before
``on_mount`` and in a replay; its interactive bridge: None without one), ``execute`` (a
call again, in a new worker) and ``show_tab`` (the bottom tabs' action: the Tasks tab
for a task).
"""

from __future__ import annotations

from collections.abc import Callable
from time import monotonic
from typing import TYPE_CHECKING, Any

from inspector.engine.request_errors import (
    ConnectionClosedError,
    RequestCancelledError,
    RequestTimeoutError,
)
from inspector.engine.tasks import TaskState, must_run_as_task
from inspector.tui.calls import (
    EXPIRED,
    RENEWED,
    SUBSCRIPTION,
    Progress,
    call_name,
    call_title,
    finish,
    perform,
    subscription_title,
)
from inspector.tui.completions import attach_completions
from inspector.tui.controller import session_expired
from inspector.tui.masked import shown_mask
from inspector.tui.screens.confirm import ConfirmScreen
from inspector.tui.widgets.item_panel import ItemPanel
from inspector.tui.widgets.result_view import Outcome, ResultView
from inspector.wire.jsonrpc import URL_ELICITATION_REQUIRED, RpcError

if TYPE_CHECKING:
    from textual.app import App

    from inspector.tui.screens.main import MainScreen
    from inspector.tui.server import Server

Execute = Callable[[str, dict[str, Any], Any, str], object]


class CallRunner:
    """Opens the selected item and makes its calls, for one app."""

    def __init__(
        self,
        app: App[Any],
        screen: MainScreen,
        server: Server,
        execute: Execute,
        show_tab: Callable[[str], None],
        *,
        confirm_destructive: bool = True,
    ) -> None:
        self.app = app
        self.screen = screen
        self.server = server
        self.execute_again = execute
        self.show_tab = show_tab
        self.confirm_destructive = confirm_destructive  # "always" in the dialog turns it off
        self.auto_reread = False  # re-read a subscribed resource when it is updated

    # -- selecting an item -------------------------------------------------------------

    async def select(self, kind: str, item: dict[str, Any]) -> None:
        session = self.server.session
        caps = session.server_capabilities if session else {}
        subscribable = bool((caps.get("resources") or {}).get("subscribe"))
        panel = self.screen.item_panel
        await panel.select(kind, item, subscribable=subscribable)
        self.attach_completions(panel)
        if kind == "resources" and not panel.read_only:
            # a resource has nothing to fill in: Enter reads it, and the focus stays in
            # the list (on the Read button, typed keys are the form's: digits, q, ? and
            # the arrows did nothing), so Down, Enter reads the next one
            panel.submit()
        else:
            self.app.call_after_refresh(panel.focus_form)

    def reopen(self, kind: str, item: dict[str, Any]) -> bool:
        """Enter on the item already open: its form, as it is, gets the focus, and the
        result stays (a fresh form cleared it, and ``s`` had nothing left to save).
        False for another item, a resource (Enter reads it again) and a replay (its
        recorded calls are shown again)."""
        panel = self.screen.item_panel
        if panel.kind != kind or panel.item != item or panel.read_only:
            return False
        if kind == "resources":
            return False
        panel.show_form()
        return True

    def attach_completions(self, panel: ItemPanel) -> None:
        if panel.kind is None or panel.item is None:
            return
        server = self.server
        attach_completions(panel.form, panel.kind, panel.item, server.session, server.client)

    # -- calling -----------------------------------------------------------------------

    def run(self, kind: str, item: dict[str, Any], arguments: Any, action: str) -> None:
        """The form's Run: first asking when the tool is marked destructive."""

        def go(answer: str | None = "once") -> None:
            if answer is None:
                return
            if answer == "always":
                self.confirm_destructive = False
            self.execute_again(kind, item, arguments, action)

        if (
            kind == "tools"
            and self.confirm_destructive
            and (item.get("annotations") or {}).get("destructiveHint")
        ):
            name = str(item.get("name"))
            self.app.push_screen(
                ConfirmScreen(f"{name} is marked destructive (destructiveHint). Call it?"), go
            )
        else:
            go()

    async def execute(
        self, kind: str, item: dict[str, Any], arguments: Any, action: str = "run"
    ) -> None:
        """Make one call and show its outcome (the body of the app's ``execute`` worker)."""
        app = self.app
        result_view = self.screen.result_view
        controller = self.server.controller
        client = controller.client if controller else None
        if client is None or not controller or not controller.connected:
            app.notify("not connected: press r to reconnect", severity="error")
            return
        if (
            kind == "tools"
            and action == "run"
            and controller.session is not None
            and must_run_as_task(controller.session.server_capabilities, item)
        ):
            # a plain call must fail (the server requires a task): send what works
            app.notify(
                f"{call_name(item)} requires a task (taskSupport): calling it as a task",
                markup=False,
            )
            action = "task"
        title = call_title(kind, item)
        uri = str(item.get("uri"))
        if kind == "resources" and action in SUBSCRIPTION:
            title = subscription_title(action, uri)
        shown = result_view.outcome
        # (un)subscribing to the resource whose read is shown: the read stays, and what
        # became of the (un)subscribe is said under its title (an error replaces it)
        keep_read = (
            kind == "resources"
            and action in SUBSCRIPTION
            and shown is not None
            and shown.uri == uri
            and shown.error is None
        )
        if keep_read:
            result_view.set_status(f"{title}: waiting for the server…", "yellow")
        else:
            result_view.show_text(f"{title}: waiting for the server…", "yellow")
        started = monotonic()
        outcome = Outcome(title=title)
        session = controller.session
        try:
            if kind == "tools" and action == "task":
                await self._run_task(call_name(item), arguments or {})
                return
            await perform(
                client, kind, item, arguments, action, outcome, _progress(result_view, title)
            )
            if kind == "resources" and action not in ("subscribe", "unsubscribe"):
                self.server.state.read(str(item.get("uri")))
        except RpcError as exc:
            bridge = self.server.bridge
            if (
                exc.code == URL_ELICITATION_REQUIRED
                and bridge is not None
                and action != "retry"
                and await bridge.complete_url_elicitations(exc)
            ):
                app.notify("calling again after the URL elicitation")
                self.execute_again(kind, item, arguments, "retry")
                return
            if isinstance(exc, RequestCancelledError) and exc.by_user:
                outcome.cancelled = True  # no answer came: not a JSON-RPC error
            elif isinstance(exc, RequestTimeoutError | ConnectionClosedError):
                outcome.no_answer = exc.message  # the code is the SDKs' convention, not wire
            else:
                outcome.error = exc.to_error()
            if isinstance(exc, ConnectionClosedError) and session_expired(session):
                # the controller renews the session; say so here, where the user looks
                renewed = controller.connected and controller.session is not session
                outcome.note = RENEWED if renewed else EXPIRED
            if (
                isinstance(exc, ConnectionClosedError)
                and not outcome.note
                and not controller.connected
            ):
                # the connection-lost text (why, and "press r to reconnect") is shown or
                # about to be: the call's own "no answer" must not replace it, whichever of
                # the two comes first (the In flight tab keeps the call)
                return
        finish(outcome, started)
        failed = outcome.error is not None or outcome.cancelled or outcome.no_answer
        if keep_read and shown is result_view.outcome and not failed and not outcome.note:
            took = f"{outcome.latency_ms:,.0f} ms" if outcome.latency_ms is not None else ""
            result_view.set_status(f"✓ {outcome.title}  {took}".rstrip(), "green")
        else:
            result_view.show(outcome)

    async def _run_task(self, name: str, arguments: dict[str, Any]) -> None:
        state = await self.server.state.run_task(name, arguments)
        self.screen.result_view.show_text(
            f"task {state.task_id} created for {name} ({state.status}); following it in "
            "the Tasks tab (t)",
            "yellow",
        )
        self.show_tab("tasks")

    def task_finished(self, state: TaskState) -> None:
        outcome = Outcome(title=f"task {state.task_id} ({state.tool}): {state.status}")
        if state.error is not None:
            outcome.error = state.error.to_error()
        else:
            outcome.result = state.result
        self.screen.result_view.show(outcome)

    # -- resources/updated -------------------------------------------------------------

    def resource_updated(self, uri: str) -> None:
        """Re-read the open resource (when re-reading automatically), else say so."""
        panel = self.screen.item_panel
        current = panel.item.get("uri") if panel.item and panel.kind == "resources" else None
        if self.auto_reread and current == uri:
            self.execute_again("resources", panel.item or {"uri": uri}, None, "run")
            return
        hint = "select it and ctrl+s to re-read; U re-reads automatically"
        self.app.notify(
            f"{uri} was updated ({hint})", title="resources/updated", timeout=4, markup=False
        )

    def toggle_auto_reread(self) -> None:
        self.auto_reread = not self.auto_reread
        self.app.notify(
            "subscribed resources are re-read when updated"
            if self.auto_reread
            else "automatic re-read off"
        )


def _progress(view: ResultView, title: str) -> Progress:
    def on_progress(progress: float, total: float | None, message: str | None) -> None:
        of = f"/{total:g}" if total else ""
        note = f" {message}" if message else ""
        said = shown_mask(view.app)(f"{title}: progress {progress:g}{of}{note}")  # secrets out
        view.show_text(said, "yellow")

    return on_progress
