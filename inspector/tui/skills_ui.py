"""The Skills tab's wiring: added when a server declares the Skills extension, listed
then, and a skill loaded when the user asks (the view's ``Load``), never before.

    skills = SkillsUi(app, server, screen)
    skills.connected()      # on messages.Connected
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import anyio
from textual.widgets import TabbedContent, TabPane

from inspector.errors import InspectorError
from inspector.skills.client import SkillsClient
from inspector.skills.entry import SkillEntry
from inspector.tui.widgets.skills_view import SkillsView

if TYPE_CHECKING:
    from textual.app import App
    from textual.screen import Screen

    from inspector.tui.server import Server

TAB_ID = "tab-skills"


class SkillsUi:
    """One app's Skills tab and the skills client of its current session."""

    def __init__(
        self,
        app: App[Any],
        server: Server,
        screen: Screen[Any] | None = None,
    ) -> None:
        """``server``: whose session's skills are listed; ``screen``: the one whose
        bottom tabs get the Skills tab (a workspace server's; else the app's shown screen)."""
        self.app = app
        self.screen = screen
        self.server = server
        self.view: SkillsView | None = None
        self.skills: SkillsClient | None = None

    def connected(self) -> None:
        """A session opened: when its server declares skills, list them in the tab."""
        controller = self.server.controller
        client = controller.client if controller is not None else None
        if controller is None or client is None:
            return
        skills = SkillsClient(client)
        if not skills.declared:
            return
        self.skills = skills
        if self.view is None:  # a bottom tab, as Auth: the catalog's row is full at 80 columns
            self.view = SkillsView(id="skills")
            tabs = (self.screen or self.app).query_one("#bottom-tabs", TabbedContent)
            tabs.add_pane(TabPane("Skills", self.view, id=TAB_ID))
        listed = controller.catalog_listed
        self.app.run_worker(self._list(skills, listed), group=f"skills-{id(self)}", exclusive=True)

    async def _list(self, skills: SkillsClient, catalog_listed: anyio.Event) -> None:
        await catalog_listed.wait()  # after the catalog's lists: one order of requests
        try:
            entries = await skills.list()
        except (InspectorError, OSError) as exc:
            self._show([], str(exc))
            return
        self._show(entries, None)

    def _show(self, entries: list[SkillEntry], error: str | None) -> None:
        # composed all through (a workspace server's screen, not shown, composes late)
        if self.view is not None and self.view.is_mounted and self.view.query("#skills-detail"):
            self.view.show(entries, error)
        elif self.view is not None:
            self.app.call_after_refresh(self._show, entries, error)

    def load(self, entry: SkillEntry) -> None:
        """The user asked: read the skill's SKILL.md, verified, in a worker."""
        skills = self.skills
        if skills is None:
            return

        async def load() -> None:
            try:
                loaded = await skills.load(entry)
            except (InspectorError, OSError) as exc:
                if self.view is not None:
                    self.view.loaded_text(entry, None, str(exc))
                return
            if self.view is not None:
                self.view.loaded_text(entry, loaded.data.decode("utf-8", "replace"), None)

        self.app.run_worker(load(), group="skills-load")
