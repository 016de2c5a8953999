"""A short load run of the open tool, from its form (ctrl+l), shown in the Load tab.

    runs = LoadRun(app, screen, server)
    runs.ask()      # ctrl+l: the dialog, then the run (ctrl+l again, or x in the tab, stops it)

The run is ``inspector.load``'s (``run_load``): its own sessions, opened by the headless
``Connection`` on the live session's target with the live session's options and OAuth
tokens (the live session is left alone). It runs in a worker on the app's loop and hands
the Load tab its numbers at each tick. Its frames reach the log and the session file
through ``load.sampling.SampledRecorder``, which keeps every failed call and one in
``KEEP_ONE_IN`` of the others, each tagged as a party (``user N``), so thousands of calls
(and the server's stderr lines: the first few, then one in as many) do not flood the log.
"""

from __future__ import annotations

import itertools
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any, cast

import anyio
from textual.widgets import TabPane

from inspector.connection import Connection
from inspector.engine.request_errors import first_failure
from inspector.engine.session import Session
from inspector.load.runner import LoadError, LoadOptions, run_load
from inspector.load.sampling import SampledRecorder
from inspector.load.stats import Stats
from inspector.load.workload import Call, tool_call
from inspector.record.redact import Redactor
from inspector.safe_text import one_line
from inspector.target import Target
from inspector.tui.screens.load_dialog import LoadDialog
from inspector.tui.widgets.catalog import display_name
from inspector.tui.widgets.load_view import LoadView
from inspector.wire.events import Channel, WireEvent

if TYPE_CHECKING:
    from textual.app import App
    from textual.worker import Worker

    from inspector.tui.screens.main import MainScreen
    from inspector.tui.server import Server

TAB_ID = "tab-load"
KEEP_ONE_IN = 100  # successful calls kept in the log: one in this many (every failure is)
STDERR_FIRST = 20  # the server's stderr lines kept before sampling them too
OPEN_TIMEOUT = 30.0  # at least this long for a session to open (a server starting)


class _SharedAuth:
    """The live session's OAuth hook lent to a load session: its tokens, not its life (a
    load session's end must not close the app's authorizer)."""

    def __init__(self, authorizer: Any) -> None:
        self._authorizer = authorizer

    def __getattr__(self, name: str) -> Any:
        return getattr(self._authorizer, name)

    async def aclose(self) -> None:
        return None


class _LogSink:
    """What ``SampledRecorder`` writes to: the app's log (numbered after the live
    session's frames) and its session file, when it has one."""

    def __init__(self, server: Server, sequence: Iterator[int], target: Target) -> None:
        self.server = server
        self.sequence = sequence
        self.stderr = 0  # stderr lines seen
        recorder = server.recorder
        self.redactor = recorder.redactor if recorder is not None else Redactor(target.secrets())

    def write(self, event: WireEvent, flush: bool = True) -> None:
        if event.channel is Channel.STDERR:
            # a server may write a line a call: the report counts them all, the log
            # keeps the first few and then a sample, as of the calls
            self.stderr += 1
            if self.stderr > STDERR_FIRST and self.stderr % KEEP_ONE_IN:
                return
        event.seq = next(self.sequence)
        recorder = self.server.recorder
        if recorder is not None:
            recorder.write(event, flush=flush)
        self.server.state.observe(event)

    def flush(self) -> None:
        if self.server.recorder is not None:
            self.server.recorder.flush()


class LoadRun:
    """At most one run at a time, for the server shown."""

    def __init__(self, app: App[Any], screen: MainScreen, server: Server) -> None:
        self.app = app
        self.screen = screen
        self.server = server
        self.worker: Worker[None] | None = None
        self.view: LoadView | None = None
        self._scope: anyio.CancelScope | None = None

    @property
    def running(self) -> bool:
        return self.worker is not None and not self.worker.is_finished

    def ask(self) -> None:
        """ctrl+l: stop the run going, or ask how hard and start one of the open tool."""
        if self.running:
            self.stop()
            return
        call = self._open_call()
        if call is None:
            return
        controller = self.server.controller
        timeout = controller.options.timeout if controller is not None else 30.0

        def chosen(options: LoadOptions | None) -> None:
            if options is not None:
                self.start(call, options)

        self.app.push_screen(LoadDialog(call.label, timeout), chosen)

    def _open_call(self) -> Call | None:
        """The open tool with its form's current arguments (None: said why)."""
        if self.server.target is None:
            self.app.notify("a replay cannot send: no load runs here", severity="warning")
            return None
        panel = self.screen.item_panel
        if panel.kind != "tools" or panel.item is None:
            self.app.notify("open a tool first: a load run calls it with its form's arguments")
            return None
        form = panel.form
        arguments: Any = {}
        if form is not None:
            arguments, _ = form.get_arguments()  # a debugger may load bad input on purpose
            if arguments is None:
                self.app.notify("the form's JSON does not parse: nothing to call", severity="error")
                return None
        return tool_call(str(panel.item.get("name", display_name(panel.item))), arguments)

    def start(self, call: Call, options: LoadOptions) -> None:
        view = self._tab()
        view.begin(one_line(f"{call.label}: {options.describe()}", 200))
        self.screen.bottom_tabs.active = TAB_ID
        view.focus()
        self.worker = self.app.run_worker(
            self._run(call, options), group=f"load-{id(self)}", exclusive=True, exit_on_error=False
        )

    def stop(self) -> None:
        if self._scope is not None:
            self._scope.cancel()

    def _tab(self) -> LoadView:
        """The Load tab, beside In flight (made at the first run: no run, no tab)."""
        if self.view is None:
            self.view = LoadView(id="load")
            self.screen.bottom_tabs.add_pane(
                TabPane("Load", self.view, id=TAB_ID), after="tab-inflight"
            )
        return self.view

    async def _run(self, call: Call, options: LoadOptions) -> None:
        target = self.server.target
        controller = self.server.controller
        view = self.view
        assert target is not None and controller is not None and view is not None
        settings = {"target": call.label, "describe": options.describe()}
        sink = _LogSink(self.server, controller.sequence, target)
        users, shared = itertools.count(1), [0, 0]
        lent = _SharedAuth(self.server.auth_ui.authorizer) if self.server.auth_ui else None
        session_options = controller.options

        @asynccontextmanager
        async def open_session() -> AsyncIterator[Session]:
            sampled = SampledRecorder(cast(Any, sink), next(users), KEEP_ONE_IN, shared)
            connection = Connection(
                target,
                authorize=lambda _target: lent,
                recorder=cast(Any, sampled),
                timeout=max(options.timeout, OPEN_TIMEOUT),
                max_timeout=session_options.max_timeout,
                protocol_version=session_options.protocol_version,
            )
            async with connection as session:
                yield session

        stats = Stats()
        how = "done"
        with anyio.CancelScope() as scope:
            self._scope = scope
            try:
                await run_load(open_session, [call], options, on_tick=view.show, stats=stats)
            except LoadError as exc:
                view.failed(str(exc))
                return
            except Exception as exc:  # a run that broke: said in the tab, never a traceback
                view.failed(str(first_failure(exc)) or type(exc).__name__)
                return
            finally:
                self._scope = None
        if scope.cancelled_caught:
            how = "stopped by you"
        view.finish(stats, settings, how)
