"""A terminal resize through the real app: the first frame drawn at the new size already
has the size classes of that size (one layout, not a second one after a restyle), and a
resize that changes no class inspector.tcss reads restyles nothing."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import pytest
from rich.segment import Segment
from textual.geometry import Region, Size
from textual.pilot import Pilot
from textual.widgets import OptionList
from tui_helpers import call_tool, select_item, wait_connected, wait_for

from inspector.target import demo_target
from inspector.tui.app import InspectorApp

pytestmark = pytest.mark.slow  # end to end: see pyproject's markers

T = TypeVar("T")


def full_frames(app: InspectorApp, probe: Callable[[], T]) -> list[tuple[Size, T]]:
    """For each frame the app draws in full (the first one after a resize is), the size
    it is drawn at and ``probe()`` then."""
    frames: list[tuple[Size, T]] = []
    display = app._display

    def spy(screen: Any, renderable: Any) -> None:
        region = getattr(renderable, "region", None)  # a full frame's (a partial has none)
        if region is not None:
            frames.append((region.size, probe()))
        display(screen, renderable)

    app._display = spy  # type: ignore[method-assign]
    return frames


def first_at(frames: list[tuple[Size, T]], width: int, height: int) -> T:
    return next(probed for size, probed in frames if size == Size(width, height))


async def test_first_frame_after_a_resize_has_the_new_size_classes() -> None:
    app = InspectorApp(demo_target())
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_connected(pilot)
        await pilot.pause()
        assert app.query_one("#bottom").outer_size.height == 15  # 40% (less its border)
        frames = full_frames(app, lambda: app.query_one("#bottom").outer_size.height)
        await pilot.resize_terminal(120, 25)  # short: the log keeps 7 rows
        assert first_at(frames, 120, 25) == 7, frames  # not 9 (40%) first, then 7
        assert app.screen.has_class("-short")
        frames.clear()
        await pilot.resize_terminal(120, 40)
        assert first_at(frames, 120, 40) == 15, frames


async def test_a_resize_that_changes_no_class_the_css_reads_restyles_nothing() -> None:
    app = InspectorApp(demo_target())
    async with app.run_test(size=(160, 50)) as pilot:
        await wait_connected(pilot)
        await pilot.pause()
        restyled: list[Any] = []
        update_styles = app.update_styles

        def spy(node: Any, animate: bool = True) -> None:
            restyled.append(node)
            update_styles(node, animate=animate)

        app.update_styles = spy  # type: ignore[method-assign]
        await resize(pilot, 120, 40)  # 48 rows and 110 columns are crossed: nothing reads them
        await resize(pilot, 160, 50)
        assert app.screen not in restyled
        await resize(pilot, 200, 50)  # wide: inspector.tcss widens the catalog
        assert app.screen in restyled
        assert app.screen.has_class("-wide")


async def resize(pilot: Pilot[Any], width: int, height: int) -> None:
    await pilot.resize_terminal(width, height)
    await pilot.pause()


async def test_the_form_is_fitted_in_the_resize_s_own_layout() -> None:
    """The form's share of the work pane (its cap) is worked out while the resize is laid
    out: the first frame at the new size has the cap the pane keeps."""
    app = InspectorApp(demo_target())
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_connected(pilot)
        await select_item(pilot, "tools", "create_user")
        await pilot.pause()
        box = app.query_one("#item-form-box")
        caps = full_frames(app, lambda: box.styles.max_height)
        before = box.styles.max_height
        await resize(pilot, 160, 50)
        after = box.styles.max_height
        assert after != before  # taller: the form may take more rows
        assert first_at(caps, 160, 50) == after, caps


async def test_the_first_frame_after_a_resize_shows_the_result_wrapped_at_the_new_width() -> None:
    """A result of long lines is laid out for the new width while the resize is laid out:
    the first frame at the new size draws its rows wrapped for it (not the rows of the old
    width, corrected a frame later), its scrollbar counting the rows of the new width."""
    app = InspectorApp(demo_target())
    async with app.run_test(size=(160, 50)) as pilot:
        await wait_connected(pilot)
        view = await call_tool(pilot, "lorem", {"lines": 300})
        await wait_for(pilot, lambda: view.outcome is not None and view.content_height > 300)
        await pilot.pause()
        seen = full_frames(
            app,
            lambda: (
                view.wrap_width,
                view.content_height,
                view.vertical_scrollbar.window_virtual_size,
            ),
        )
        for width, height in ((120, 40), (160, 50)):
            old = view.wrap_width
            await resize(pilot, width, height)
            final = (view.wrap_width, view.content_height, view.content_height)
            assert view.wrap_width != old
            assert first_at(seen, width, height) == final, seen


async def test_the_first_frame_after_a_resize_draws_the_catalog_rows_at_the_new_width() -> None:
    """The tools list's rows (names, descriptions, their padding) in the first frame at
    the new size are those it keeps: not the old width's, corrected a frame later."""
    app = InspectorApp(demo_target())
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_connected(pilot)
        await pilot.pause()
        tools = app.query_one("#list-tools", OptionList)

        def rows() -> list[list[Segment]]:
            region = Region(0, 0, *tools.size)
            return [list(strip) for strip in tools.render_lines(region)]

        seen = full_frames(app, rows)
        for width, height in ((160, 50), (120, 40)):
            await resize(pilot, width, height)
            assert first_at(seen, width, height) == rows()


async def test_a_resize_does_not_ask_for_a_second_layout_of_the_whole_screen() -> None:
    """Textual sets the screen's virtual size in a resize's layout; a change of it would
    ask for one more layout of the whole screen (and a frame that changes nothing)."""
    app = InspectorApp(demo_target())
    async with app.run_test(size=(160, 50)) as pilot:
        await wait_connected(pilot)
        await pilot.pause()
        screen = app.screen
        asked: list[bool] = []
        refresh = screen.refresh

        def spy(*regions: Any, **kwargs: Any) -> Any:
            asked.append(bool(kwargs.get("layout")))
            return refresh(*regions, **kwargs)

        screen.refresh = spy  # type: ignore[method-assign]
        for width, height in ((120, 40), (160, 50)):
            await resize(pilot, width, height)
            assert screen.virtual_size == Size(width, height)
        assert not any(asked), asked
