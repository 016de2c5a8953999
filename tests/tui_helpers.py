"""Helpers for Pilot tests of the whole app."""

from __future__ import annotations

import io
from typing import Any

import anyio
from rich.console import Console
from textual.pilot import Pilot
from textual.widgets._footer import FooterKey

from inspector.engine.responders import Responders
from inspector.target import demo_target
from inspector.tui.app import InspectorApp
from inspector.tui.interactive_setup import interactive_responders
from inspector.tui.widgets.catalog import Catalog
from inspector.tui.widgets.item_panel import ItemPanel
from inspector.tui.widgets.message_log import MessageLog
from inspector.tui.widgets.result_view import ResultView


def interactive_demo_app() -> InspectorApp:
    """The app on the demo server, answering its requests with the TUI's dialogs."""
    responders = Responders()
    app = InspectorApp(demo_target(), responders=responders)
    interactive_responders(app, responders)
    return app


def footer_keys(app: InspectorApp) -> list[str]:
    """The keys the footer shows, as "key description"."""
    return [f"{k.key} {k.description}" for k in app.query(FooterKey) if k.display]


async def tab_to(pilot: Pilot[Any], widget_id: str, presses: int = 6) -> None:
    """Press Tab, as a user does, until the widget ``widget_id`` has the focus."""
    app = pilot.app
    for _ in range(presses):
        if app.focused is not None and app.focused.id == widget_id:
            break
        await pilot.press("tab")
    assert app.focused is not None and app.focused.id == widget_id


# How long a wait may take before the test fails: a guard against a hang, never reached by
# a passing test, so generous: with the suite's worker processes sharing two cores an app
# can take many seconds to start and connect.
WAIT = 60.0


async def wait_for(pilot: Pilot[Any], condition: Any, timeout: float = WAIT) -> None:
    """Pause the pilot until ``condition()`` is true (bounded)."""
    with anyio.fail_after(timeout):
        while not condition():
            await pilot.pause(0.05)


async def focus(pilot: Pilot[Any], widget: Any) -> None:
    """Focus ``widget`` and wait until it has focus: Textual moves focus through the
    message queue, so a key pressed at once can still reach the old widget."""
    widget.focus()
    await wait_for(pilot, lambda: widget.has_focus)


async def wait_connected(pilot: Pilot[Any]) -> None:
    app = pilot.app
    assert isinstance(app, InspectorApp)
    await wait_for(
        pilot,
        lambda: (
            app.controller is not None
            and app.controller.connected
            and app.query_one(Catalog).items["prompts"]
        ),
    )


def plain(renderable: Any, width: int = 120) -> str:
    """What a Rich renderable shows, as plain text."""
    console = Console(width=width, record=True, color_system=None, file=io.StringIO())
    console.print(renderable)
    return console.export_text()


def log_methods(app: InspectorApp) -> list[str | None]:
    source = app.query_one(MessageLog).source
    return [source.method(i) for i in range(len(source))]


def screen_text(app: InspectorApp) -> str:
    """Every visible line of the screen as text (what a user would read)."""
    lines = app.screen._compositor.render_update(full=True)  # type: ignore[attr-defined]
    return plain(lines, width=app.size.width)


async def select_item(pilot: Pilot[Any], kind: str, name: str) -> None:
    """Select a catalog item by name through the list, like a user."""
    app = pilot.app
    catalog = app.query_one(Catalog)

    def listed() -> int | None:
        for i, item in enumerate(catalog.items[kind]):
            if name in (item.get("name"), item.get("uri"), item.get("uriTemplate")):
                return i
        return None

    # as a user waits to see it listed (a replay fills the catalog after its log)
    await wait_for(pilot, lambda: listed() is not None)
    index = listed()
    assert index is not None
    catalog.action_tab(kind)
    options = app.query_one(f"#list-{kind}")
    options.highlighted = index  # type: ignore[attr-defined]
    await wait_for(pilot, lambda: options.has_focus)
    await pilot.press("enter")
    # typing may start at once: wait until the panel shows the item and holds the focus
    # (a resource is read at once and the list keeps the focus)
    panel = app.query_one(ItemPanel)
    item = catalog.items[kind][index]
    await wait_for(
        pilot,
        lambda: (
            panel.item == item
            and app.focused is not None
            and (options if kind == "resources" else panel) in app.focused.ancestors_with_self
        ),
    )


async def call_tool(pilot: Pilot[Any], name: str, arguments: dict[str, Any]) -> ResultView:
    """Call a tool as a user does: chosen in the list, its form filled with ``arguments``,
    ctrl+s. The result view its outcome shows in."""
    app = pilot.app
    await select_item(pilot, "tools", name)
    form = app.query_one(ItemPanel).form
    assert form is not None
    form.root.set_value(arguments)
    await form.recompose()
    await pilot.press("ctrl+s")
    return app.query_one(ResultView)


def view_text(view: Any) -> str:
    """Every row a ``DocumentView`` shows (at its width), as text: what a user can scroll to."""
    document, width, console = view.document, view.wrap_width, view.app.console
    rows = document.height(width, console) if width else 0
    return "\n".join(document.row(row, width, console).text for row in range(rows))
