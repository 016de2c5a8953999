"""The workspace in the app: several servers, each on its own screen, one shown.

    ws = WorkspaceUi(app)
    ws.add("files", target, recorder)   # its screen composed, its connection started
    ws.open_list()                      # the server list: show one, or remove one
    ws.open_all_log()                   # every server's frames in one log

Every server connects in the background in parallel (a worker group each); the list
says each one's name, transport, era and state. Removing a server shuts it down as
quitting does (a stdio server's whole process group). Once there are two servers, every
server's frames are tagged with its name and copied to one merged log (``ServerTag``).
"""

from __future__ import annotations

import contextlib
import shlex
from collections.abc import Callable
from dataclasses import replace
from itertools import count
from typing import TYPE_CHECKING, Any

from textual.css.query import NoMatches

from inspector.errors import InspectorError
from inspector.live.state import LiveState
from inspector.target import Target
from inspector.tui.live_feed import LiveFeed
from inspector.tui.mode import Live, Replay
from inspector.tui.screens.all_log import AllLogScreen
from inspector.tui.screens.compare import CompareScreen
from inspector.tui.screens.server_list import ServerListScreen
from inspector.tui.server import Server
from inspector.tui.server_screen import ServerScreen, ViewRelay
from inspector.workspace.comparison import Comparison, compare_servers
from inspector.workspace.entries import Entry, config_entries, unique_name, word_entries
from inspector.workspace.merged import ServerTag, tag

if TYPE_CHECKING:
    from inspector.logstore.store import EventSource
    from inspector.record.indexed import IndexedSessionFile
    from inspector.record.recorder import Recorder
    from inspector.tui.server_view import ServerView


class WorkspaceUi:
    """Adds, shows and removes the app's servers."""

    def __init__(
        self,
        app: Any,
        config: str | None = None,
        prepare: Callable[[Target], None] | None = None,
    ) -> None:
        self.app = app  # the InspectorApp (not imported: it imports this module)
        self.config = config  # ctrl+n takes a name from it too
        # the command line's settings for a server it names (the OAuth flags over the
        # entry's own ``oauth``, redirects): ctrl+n's servers get them too
        self.prepare = prepare
        self._modes = count(2)
        # every server's frames, once there are two (a single server's stay its own)
        self.merged = LiveState()
        self.merged_feed = LiveFeed(self.merged)
        self.merging = False
        self._feeding = False
        self._tags: dict[int, ServerTag] = {}  # id(view) -> its session's tagging recorder
        self.all_log: AllLogScreen | None = None
        # a workspace's recording replayed: its file is the merged log (indexed whole)
        self.merged_source: EventSource | None = None

    @property
    def names(self) -> list[str]:
        return [view.name for view in self.app.views]

    def add(self, name: str, target: Target, recorder: Recorder | None = None) -> ServerView:
        """A new server: its view and screen; composed (and connected) once mounted.
        ``recorder``: the workspace's session file (told the target's secrets)."""
        if recorder is not None:
            for secret in target.secrets():
                recorder.redactor.add_secret(secret)
        mode = Live(target)
        return self._add(name, Server(LiveState(), mode, recorder=recorder), self.app.responders)

    def add_replay(self, name: str, source: IndexedSessionFile, title: str) -> ServerView:
        """A recorded server of a workspace's session file, shown offline."""
        return self._add(name, Server(LiveState(source), Replay(source, title)), None)

    def _add(self, name: str, server: Server, responders: Any) -> ServerView:
        app = self.app
        screen = ServerScreen(own_panes=True)
        view: ServerView = app.switch.make(name, server, screen, responders)
        view.mode_name = f"server-{next(self._modes)}"
        screen.view = view
        first = app.views[0].main
        if not app.is_screen_installed(first):  # installed screens stay when switched from
            app.install_screen(first, "server-1")
        app.views.append(view)
        app.install_screen(screen, view.mode_name)
        self._merge()
        self._name_status_bars()
        return view

    def _name_status_bars(self) -> None:
        """The status bars name their server once there are several (and not once one
        is left): redrawn when the workspace's servers change."""
        for view in self.app.views:
            with contextlib.suppress(NoMatches):
                view.main.status_bar.refresh()

    def started(self, view: ServerView) -> None:
        """``view``'s live session is made (not connected yet): its frames go through a
        ``ServerTag``, which tags them and copies them to the merged log once merging."""
        controller = view.server.controller
        if controller is None:
            return
        server_tag = ServerTag(view.name, controller.recorder)
        controller.recorder = server_tag
        self._tags[id(view)] = server_tag
        if self.merging:
            server_tag.merge_into(self.merged.observe)
            self._feed()

    def _own_dialogs(self, view: ServerView) -> None:
        """In a workspace each server asks in dialogs of its own, which name it (the
        first server's bridge, made by the command line, is the model; what the command
        line fixed, --on-sample or --on-elicit, stays)."""
        app = self.app
        first_view = app.views[0]
        first = first_view.server.bridge
        if first is None or not self.merging:
            return
        first.workspace_name = first_view.name
        shared = view.responders
        if view is first_view or shared is None or view.server.bridge is not None:
            return
        bridge = first.for_server(view.name)
        own = bridge.responders()
        responders = replace(shared)
        if shared.sampling == first.sampling:
            responders.sampling, responders.sampling_tools = own.sampling, own.sampling_tools
        if shared.elicitation == first.elicitation:
            responders.elicitation = own.elicitation
            responders.elicitation_modes = own.elicitation_modes
        view.server.bridge = bridge
        view.responders = responders

    def _merge(self) -> None:
        """Two servers now: from here on one log holds every server's frames (those seen
        so far copied first, each tagged with its server)."""
        if self.merging:
            return
        self.merging = True
        for view in self.app.views:
            server_tag = self._tags.get(id(view))
            if server_tag is None:
                continue  # not started: tagged from its first frame
            state = view.server.state
            if not state.offline:
                store = state.store
                for i in range(len(store)):
                    self.merged.observe(tag(store.event(i), view.name))
                for event in state.unstored():
                    self.merged.observe(tag(event, view.name))
            server_tag.merge_into(self.merged.observe)
        if self.app.is_running:
            self._feed()

    def _feed(self) -> None:
        if not self._feeding:
            self._feeding = True
            self.merged_feed.start(self.app)

    def open_all_log(self) -> None:
        """The merged log (one screen, kept: its rows and filter stay between visits)."""
        app = self.app
        if not self.merging:
            app.notify("one server so far: its own log has every frame (ctrl+n adds one)")
            return
        if self.all_log is None:
            self.all_log = AllLogScreen(self.merged_source or self.merged.events)
            self.merged_feed.subscribe(self.all_log.log_view)
            app.install_screen(self.all_log, "all-servers")
        if app.screen is not self.all_log:
            app.push_screen(self.all_log)

    async def mount_all(self) -> None:
        """Every server connects from the start, in parallel; a screen is composed when
        its server is first shown (composing one takes a while: twenty one after another
        held the keys for seconds). A server whose screen its connection needs (an
        OAuth tab, a proxy's) is composed now, and a replay's (its index is read there)."""
        app = self.app
        shown = app.view
        for view in app.views:
            if view.started or view.session_started:
                continue
            if early(view):
                self.start_session(view)
            else:
                await self.show(view)
        if app.view is not shown:
            await self.show(shown)

    def start_session(self, view: ServerView) -> None:
        """``view``'s live session: made, its frames tagged, connecting (its status row
        kept by a ``ViewRelay`` whether its screen is composed yet or not)."""
        app = self.app
        target = view.server.target
        assert target is not None
        self._own_dialogs(view)
        main = view.main
        routed = isinstance(main, ServerScreen) and main.view is view
        view.server.start_live(
            app,
            main,
            target,
            app.options,
            view.responders,
            view.redactor,
            post_to=ViewRelay(app, view) if routed else None,
        )
        self.started(view)  # its frames tagged with its name, merged once several
        auth = view.server.auth_ui
        if auth is not None and self.merging and view is not app.view:
            auth.defer()  # no browser nor Auth tab for a server not chosen yet
        view.session_started = True
        view.quit_reconnect.connect()

    async def show(self, view: ServerView) -> None:
        """Show ``view``'s server: its screen as it was left."""
        app = self.app
        app.switch.show(view)
        # the first server's screen is the stack's base; another's is pushed over it
        first, top = app.views[0].main, app.screen
        if top is view.main:
            return
        if view.main is first:
            await app.pop_screen()
        elif top is first:
            await app.push_screen(view.main)
        else:
            await app.switch_screen(view.main)

    async def _show_chosen(self, view: ServerView) -> None:
        """A server chosen in the list: shown, and its authorization started when it
        needs one (nothing was asked of the person before it was chosen)."""
        await self.show(view)
        self.authorize(view)

    def authorize(self, view: ServerView) -> bool:
        """Start ``view``'s OAuth flow when it waits to be chosen (True), and connect."""
        auth = view.server.auth_ui
        if auth is None or not auth.held:
            return False
        auth.allow()
        view.status.connecting()
        view.quit_reconnect.connect()
        return True

    def open_list(self) -> None:
        app = self.app
        rows = [view.status for view in app.views]
        app.push_screen(
            ServerListScreen(rows, app.views.index(app.view)),
            lambda choice: self._chosen(choice),
        )

    def _chosen(self, choice: tuple[str, int] | None) -> None:
        if choice is None:
            return
        what, row = choice
        if what == "all":
            self.open_all_log()
            return
        if what == "compare":
            self.compare(row)
            return
        views = self.app.views
        if not 0 <= row < len(views):
            return
        if what == "show":
            self.app.run_worker(self._show_chosen(views[row]), group="workspace")
        else:
            self.app.run_worker(self.remove(views[row]), group="workspace")

    async def remove(self, view: ServerView) -> None:
        """Shut ``view``'s server down as quitting does and drop its screen (the first
        server, on the app's own screen, stays: quitting stops it)."""
        app = self.app
        if view is app.views[0]:
            app.notify("the first server stays: q quits", severity="warning")
            return
        if app.view is view:
            await self.show(app.views[0])
        controller = view.server.controller
        if controller is not None:
            controller.stop()
            await controller.shutdown()
        view.status.stopped()
        app.views.remove(view)
        app.uninstall_screen(view.main)
        await view.main.remove()
        self._name_status_bars()
        app.notify(f"{view.name}: stopped and removed", timeout=4)

    def compare(self, row: int) -> None:
        """The Compare view: the shown server (left) against the one at ``row``."""
        app = self.app
        views = app.views
        if not 0 <= row < len(views) or views[row] is app.view:
            app.notify("choose another server than the one shown to compare it with")
            return

        def made(old: ServerView, new: ServerView) -> Comparison:
            old.server.state.store_pending()  # a server not shown yet: its frames so far
            new.server.state.store_pending()
            old_events, new_events = old.server.state.events, new.server.state.events
            return compare_servers(old.name, old_events, new.name, new_events)

        def again(shown: Comparison) -> Comparison:
            by_name = {view.name: view for view in app.views}
            old, new = by_name.get(shown.old.name), by_name.get(shown.new.name)
            return made(old, new) if old is not None and new is not None else shown

        app.push_screen(CompareScreen(made(app.view, views[row]), again))

    def entries_for(self, text: str) -> list[Entry]:
        """What ctrl+n's text names: a config entry's name, a URL, or a command line
        (raises ``ValueError`` / ``ConfigError`` with a message for the user)."""
        text = text.strip()
        if not text:
            raise ValueError("give a URL, a server command, or a name from the config")
        if self.config is not None and " " not in text and "/" not in text:
            for entry in config_entries(self.config):
                if entry.name == text:
                    name = unique_name(entry.name, set(self.names))
                    return [Entry(name, entry.target)]
        return word_entries([shlex.split(text)], taken=self.names)

    def add_text(self, text: str) -> None:
        """ctrl+n's answer: the server added, shown, connecting."""
        prepare = self.prepare
        try:
            entries = self.entries_for(text)
            for entry in entries:
                if prepare is not None:
                    prepare(entry.target)  # as the command line set up the others
        except (ValueError, InspectorError) as exc:  # a config's ConfigError too
            self.app.notify(str(exc), title="cannot add a server", severity="error")
            return
        if not self.app.views[0].server.mode.live:
            self.app.notify("a replay cannot connect: no servers added here", severity="warning")
            return
        recorder = self.app.views[0].server.recorder  # one session file for every server
        for entry in entries:
            view = self.add(entry.name, entry.target, recorder)
            self.app.run_worker(self.show(view), group="workspace")


def early(view: ServerView) -> bool:
    """Whether ``view``'s server can connect before its screen is composed: live and not
    attached to a proxy (the proxy's Auth tab is added to its screen; an OAuth server's
    own tab is mounted once its screen is composed)."""
    target = view.server.target
    return target is not None and not target.attach
