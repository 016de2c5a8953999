"""Saving from the event detail in the real app (issue 25 item 2): Esc works after a
save, a name alone goes in the files folder with mode 0600, and the working directory
is asked about first."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Input
from tui_helpers import wait_connected, wait_for

from inspector.target import demo_target
from inspector.tui.app import InspectorApp
from inspector.tui.result_files import default_folder
from inspector.tui.screens.confirm import ConfirmScreen


@pytest.mark.slow
async def test_save_from_the_detail_then_esc(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    app = InspectorApp(demo_target())
    async with app.run_test(size=(120, 35)) as pilot:
        await wait_connected(pilot)
        await pilot.press("g", "home", "enter")
        detail = app.main.detail
        await wait_for(pilot, lambda: detail.display and detail.event is not None)
        await pilot.press("s")
        box = detail.query_one("#detail-save", Input)
        await wait_for(pilot, lambda: box.has_focus)
        name = box.value
        await pilot.press("enter")
        saved = default_folder() / name
        await wait_for(pilot, saved.exists)
        assert saved.stat().st_mode & 0o777 == 0o600
        assert list(tmp_path.iterdir()) == []  # nothing in the working directory
        # the keys are the log's again: Esc goes back to the catalog
        await wait_for(pilot, lambda: app.main.message_log.lines.has_focus)
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.main.catalog.query_one("#list-tools").has_focus)
        # a stray s and a name into the working directory: asked first, No writes nothing
        await pilot.press("g", "s")
        await wait_for(pilot, lambda: box.has_focus)
        box.value = str(tmp_path / "k_")
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("n")
        await wait_for(pilot, lambda: not isinstance(app.screen, ConfirmScreen))
        assert not (tmp_path / "k_").exists()
