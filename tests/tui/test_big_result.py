"""Results with room: a big result stays responsive and is rendered only where it shows;
structured content first; zoom, scrolling keys and form hiding; saving binaries and
screenshots where the user is told (the TUI against the bundled demo server)."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Static
from tui_helpers import (
    call_tool,
    focus,
    log_methods,
    select_item,
    view_text,
    wait_connected,
    wait_for,
)

from inspector.target import demo_target
from inspector.tui.app import InspectorApp
from inspector.tui.screens.save_files import SaveFilesScreen
from inspector.tui.widgets import result_view
from inspector.tui.widgets.item_panel import ItemPanel
from inspector.tui.widgets.message_log import MessageLog
from inspector.tui.widgets.result_view import ResultView

pytestmark = pytest.mark.slow  # end to end: see pyproject's markers

SIZE = (140, 40)
LINES = 30_000  # lorem lines: ~4 MB of text, formatted off the UI thread


def shown(view: ResultView) -> bool:
    """The outcome's own document is on screen (not a placeholder)."""
    return (
        view.outcome is not None
        and not view.formatting
        and view.document is view.shown.document
        and view.rendered_rows > 0
    )


def on_screen(view: ResultView) -> str:
    """The rows the view paints now."""
    height = view.scrollable_content_region.height
    return "\n".join(view.render_line(y).text for y in range(height))


async def call_lorem(pilot: Pilot[Any], app: InspectorApp, lines: int) -> ResultView:
    return await call_tool(pilot, "lorem", {"lines": lines})


def capture_notes(app: InspectorApp) -> list[str]:
    notes: list[str] = []
    notify = app.notify

    def spy(message: str, **kwargs: Any) -> None:
        notes.append(message)
        notify(message, **kwargs)

    app.notify = spy  # type: ignore[method-assign]
    return notes


async def test_keys_are_handled_while_a_big_result_is_formatted(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The formatting of a 4 MB result is held in its worker: the UI answers keys
    meanwhile, then shows the result having rendered only the rows on screen."""
    gate = threading.Event()
    real_format = result_view.format_outcome

    def held(outcome: Any, *, quick: bool = False) -> Any:
        assert threading.current_thread() is not threading.main_thread()
        gate.wait(30)
        return real_format(outcome, quick=quick)

    monkeypatch.setattr(result_view, "format_outcome", held)
    app = InspectorApp(demo_target())
    async with app.run_test(size=SIZE) as pilot:
        await wait_connected(pilot)
        view = await call_lorem(pilot, app, LINES)
        await wait_for(pilot, lambda: view.outcome is not None and view.formatting, 30)
        assert "formatting" in view_text(view)
        # the result is being formatted: keys still work
        await pilot.press("g")
        log = app.query_one(MessageLog)
        await wait_for(pilot, lambda: log.lines.has_focus)
        await pilot.press("home")
        await wait_for(pilot, lambda: log.cursor_index == 0)
        assert view.formatting
        gate.set()
        await wait_for(pilot, lambda: shown(view), 60)
        await pilot.pause()
        assert f"{LINES:6d}  Lorem" not in on_screen(view)
        assert "1  Lorem ipsum" in on_screen(view)
        # tens of thousands of rows, of which only the visible ones were rendered
        height = view.scrollable_content_region.height
        assert view.virtual_size.height > LINES
        assert 0 < view.rendered_rows <= 2 * height
        # then the size, worked out in a second pass
        await wait_for(pilot, lambda: view.complete, 60)
        assert "bytes" in view_text(view).splitlines()[0]


async def test_scroll_zoom_and_resize_a_big_result() -> None:
    app = InspectorApp(demo_target())
    async with app.run_test(size=SIZE) as pilot:
        await wait_connected(pilot)
        view = await call_lorem(pilot, app, LINES)
        await wait_for(pilot, lambda: shown(view), 60)
        panel = app.query_one(ItemPanel)
        # z: the whole work pane, the focus on the result
        await pilot.press("escape", "z")
        await wait_for(pilot, lambda: panel.zoom == "pane" and view.has_focus)
        await wait_for(pilot, lambda: not app.query_one("#item-form-box").display)
        await pilot.pause()
        assert view.outer_size.height == panel.content_region.height
        rows_before = view.rendered_rows
        await pilot.press("end")
        await wait_for(pilot, lambda: view.scroll_y == view.max_scroll_y > 0)
        await pilot.pause()
        assert f"{LINES:6d}  Lorem" in on_screen(view)
        await pilot.press("home")
        await wait_for(pilot, lambda: view.scroll_y == 0)
        await pilot.press("pagedown")
        await wait_for(pilot, lambda: view.scroll_y > 0)
        page = view.scroll_y
        assert page >= view.scrollable_content_region.height - 2
        await pilot.press("pageup")
        await wait_for(pilot, lambda: view.scroll_y == 0)
        height = view.scrollable_content_region.height
        assert view.rendered_rows - rows_before <= 4 * height  # only what was shown
        # z again: the whole screen; Escape or z gives the room back
        await pilot.press("z")
        await wait_for(pilot, lambda: app.screen.maximized is view)
        await pilot.pause()
        assert view.outer_size.width == SIZE[0]
        await pilot.press("z")
        await wait_for(pilot, lambda: panel.zoom == "normal")
        assert app.screen.maximized is None and app.query_one("#item-form-box").display
        # a resize re-wraps lazily: the new width's visible rows, no more
        before = view.rendered_rows
        await pilot.resize_terminal(100, 30)
        await wait_for(pilot, lambda: view.size.width < 100 and view.rendered_rows > before)
        await pilot.pause()
        assert view.rendered_rows - before <= 2 * view.scrollable_content_region.height


async def test_structured_content_comes_first_then_the_text_copy() -> None:
    app = InspectorApp(demo_target())
    async with app.run_test(size=SIZE) as pilot:
        await wait_connected(pilot)
        await select_item(pilot, "tools", "get_weather")
        await pilot.press(*"Paris", "ctrl+s")
        view = app.query_one(ResultView)
        await wait_for(pilot, lambda: shown(view) and view.complete)
        lines = view_text(view).splitlines()
        structured = lines.index("structuredContent")
        check = lines.index("✓ matches outputSchema")
        copy = lines.index("content")
        assert 0 < structured < check < copy
        assert any('"city": "Paris"' in line for line in lines[structured:check])


async def test_the_form_hides_after_sending_and_ctrl_s_still_sends_it() -> None:
    app = InspectorApp(demo_target())
    async with app.run_test(size=SIZE) as pilot:
        await wait_connected(pilot)
        await select_item(pilot, "tools", "get_weather")
        await pilot.press(*"Paris", "ctrl+s")
        view = app.query_one(ResultView)
        await wait_for(pilot, lambda: shown(view) and log_methods(app).count("tools/call") == 2)
        panel = app.query_one(ItemPanel)
        box = app.query_one("#item-form-box")
        form_height = box.outer_size.height
        result_height = view.outer_size.height
        await pilot.press("ctrl+f")  # pressed in the form field, after sending
        await wait_for(pilot, lambda: panel.form_hidden and not box.display)
        await wait_for(pilot, lambda: view.has_focus)
        await pilot.pause()
        assert view.outer_size.height >= result_height + form_height - 1
        assert "ctrl+f shows it" in str(app.query_one("#form-note", Static).content)
        await pilot.press("ctrl+s")  # the hidden form is sent as it is
        await wait_for(pilot, lambda: log_methods(app).count("tools/call") == 4)
        await pilot.press("ctrl+f")
        await wait_for(pilot, lambda: box.display and not panel.form_hidden)
        form = panel.form
        assert form is not None
        await wait_for(pilot, lambda: app.focused is not None and form in app.focused.ancestors)
        assert app.focused.value == "Paris"  # type: ignore[union-attr]


async def test_s_asks_for_a_folder_and_names_each_file_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    monkeypatch.chdir(cwd)
    app = InspectorApp(demo_target())
    async with app.run_test(size=SIZE) as pilot:
        await wait_connected(pilot)
        notes = capture_notes(app)
        await select_item(pilot, "tools", "show_media")
        await pilot.press("ctrl+s")
        view = app.query_one(ResultView)
        await wait_for(pilot, lambda: shown(view) and len(view.shown.binaries) == 3)
        await focus(pilot, view)
        await pilot.press("s")
        await wait_for(pilot, lambda: isinstance(app.screen, SaveFilesScreen))
        folder = tmp_path / "state" / "mcp-inspect" / "files"
        assert app.screen.query_one("#save-files-folder").value == str(folder)  # type: ignore[attr-defined]
        await pilot.press("enter")  # the default: the state folder
        await wait_for(pilot, lambda: any("saved 3 file(s)" in n for n in notes), 20)
        names = sorted(path.name for path in folder.iterdir())
        assert names == ["audio-2.wav", "image-1.png", "logo.png"]
        assert list(cwd.iterdir()) == []  # nothing dropped in the current directory
        assert str(folder) in notes[-1]
        # again, into a folder typed by hand: created, and nothing is overwritten
        await pilot.press("s")
        await wait_for(pilot, lambda: isinstance(app.screen, SaveFilesScreen))
        box = app.screen.query_one("#save-files-folder")
        box.value = str(folder)  # type: ignore[attr-defined]
        await pilot.press("enter")
        await wait_for(pilot, lambda: len(list(folder.iterdir())) == 6, 20)
        assert "logo-1.png" in {path.name for path in folder.iterdir()}
        # a file is not a folder: said in the dialog, which stays open
        await pilot.press("s")
        await wait_for(pilot, lambda: isinstance(app.screen, SaveFilesScreen))
        screen = app.screen
        assert isinstance(screen, SaveFilesScreen)
        screen.query_one("#save-files-folder").value = str(folder / "logo.png")  # type: ignore[attr-defined]
        await pilot.press("enter")
        await wait_for(pilot, lambda: "not a folder" in screen.problem)
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, SaveFilesScreen))


async def test_screenshot_goes_to_the_state_folder_and_says_where(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"  # no ~/Downloads here
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    app = InspectorApp(demo_target())
    async with app.run_test(size=SIZE) as pilot:
        await wait_connected(pilot)
        notes = capture_notes(app)
        await pilot.press("ctrl+p")
        await pilot.pause()
        await pilot.press(*"Screenshot")
        await pilot.pause(0.3)
        await pilot.press("enter")
        folder = tmp_path / "state" / "mcp-inspect" / "screenshots"
        await wait_for(pilot, lambda: folder.is_dir() and any(folder.iterdir()), 20)
        (saved,) = folder.iterdir()
        assert saved.suffix == ".svg" and "<svg" in saved.read_text()
        await wait_for(pilot, lambda: any(str(saved) in n for n in notes))
        assert not (home / "Downloads").exists()


async def test_a_screenshot_that_cannot_be_saved_says_why(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    state = tmp_path / "state"
    state.write_text("a file where the state folder should be")
    monkeypatch.setenv("XDG_STATE_HOME", str(state))
    app = InspectorApp(demo_target())
    async with app.run_test(size=SIZE) as pilot:
        await wait_connected(pilot)
        notes = capture_notes(app)
        app.deliver_screenshot()
        await wait_for(pilot, lambda: bool(notes))
        assert "could not save it in" in notes[0] and "Not a directory" in notes[0]


@pytest.mark.parametrize("size", [(80, 24), (100, 30), (140, 40)])
async def test_a_big_result_wraps_between_words(size: tuple[int, int]) -> None:
    """lorem's 1,000 lines (over 400: wrapped lazily) break between words at the pane's
    width, as a small result does: every word on screen is whole."""
    app = InspectorApp(demo_target())
    async with app.run_test(size=size) as pilot:
        await wait_connected(pilot)
        await select_item(pilot, "tools", "lorem")
        await pilot.press("end", "backspace", "backspace", "backspace", *"1000", "ctrl+s")
        view = app.query_one(ResultView)
        await wait_for(pilot, lambda: shown(view), 60)
        assert view.outcome is not None and len(view.document.sections) > 1
        await pilot.press("escape", "z")  # the whole pane: more rows to read
        await wait_for(pilot, lambda: view.has_focus)
        await pilot.pause()
        words = set(result_view_words()) | {str(n) for n in range(1, 1001)}
        rows = [row.rstrip() for row in on_screen(view).splitlines()]
        rows = [row for row in rows if row and not row.startswith("tool lorem")]  # the head
        assert any(len(row) > view.size.width - 14 for row in rows)  # rows are full
        broken = [row for row in rows if not set(row.split()) <= words]
        assert not broken and len(rows) > 5, (broken, rows)


def result_view_words() -> list[str]:
    from inspector.demo.tools_basic import _LOREM

    return _LOREM.split()
