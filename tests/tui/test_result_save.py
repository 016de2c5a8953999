"""Keeping a text result (issue 25 item 3) in the real app: ``s`` on a result asks what
to keep (its JSON, its text) and writes it into the files folder, 0600, the working
directory asked about first; ``c`` copies the result as JSON (OSC 52)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Input, OptionList
from tui_helpers import footer_keys, select_item, wait_connected, wait_for

from inspector.target import demo_target
from inspector.tui.app import InspectorApp
from inspector.tui.result_keep import save_choices
from inspector.tui.screens.confirm import ConfirmScreen
from inspector.tui.screens.save_files import SaveFilesScreen
from inspector.tui.widgets.result_view import Outcome, ResultView

SIZE = (150, 45)


async def echo_and_focus_result(pilot: Any, app: InspectorApp, words: str) -> ResultView:
    """Call echo with ``words``, then Tab to the result as a user does."""
    await select_item(pilot, "tools", "echo")
    await pilot.press(*words, "ctrl+s")
    view = app.query_one(ResultView)
    await wait_for(pilot, lambda: view.outcome is not None and view.complete)
    for _ in range(8):
        if app.focused is view:
            break
        await pilot.press("tab")
    assert app.focused is view
    return view


async def save_choice(pilot: Any, app: InspectorApp, downs: int) -> SaveFilesScreen:
    await pilot.press("s")
    await wait_for(pilot, lambda: isinstance(app.screen, SaveFilesScreen))
    screen = app.screen
    assert isinstance(screen, SaveFilesScreen)
    await wait_for(pilot, lambda: screen.query_one(OptionList).has_focus)
    await pilot.press(*["down"] * downs)
    return screen


@pytest.mark.slow
async def test_s_saves_a_text_result_as_json_or_text(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    monkeypatch.chdir(cwd)
    app = InspectorApp(demo_target())
    async with app.run_test(size=SIZE) as pilot:
        await wait_connected(pilot)
        view = await echo_and_focus_result(pilot, app, "hello there")
        result = view.outcome.result  # type: ignore[union-attr]
        shown = footer_keys(app)
        assert "s Save" in shown and "c Copy" in shown and "o Open link" not in shown
        folder = tmp_path / "state" / "mcp-inspect" / "files"
        # the first choice: the result as JSON, into the files folder
        screen = await save_choice(pilot, app, 0)
        labels = [str(o.prompt) for o in screen.query_one(OptionList).options]
        assert labels == [
            "the result as JSON (result-echo.json)",
            "its text (result-echo.txt)",
        ]
        await pilot.press("enter")
        saved = folder / "result-echo.json"
        await wait_for(pilot, saved.exists)
        await wait_for(pilot, lambda: json.loads(saved.read_text()) == result)
        assert saved.stat().st_mode & 0o777 == 0o600
        # the second: its text, as the server sent it
        await wait_for(pilot, lambda: app.focused is view)
        await save_choice(pilot, app, 1)
        await pilot.press("enter")
        text = folder / "result-echo.txt"
        await wait_for(pilot, lambda: text.exists() and text.read_text() == "hello there")
        assert text.stat().st_mode & 0o777 == 0o600
        assert list(cwd.iterdir()) == []  # nothing dropped in the working directory
        # into the working directory: asked first; No writes nothing, Yes writes it
        for answer in ("n", "y"):
            await wait_for(pilot, lambda: app.focused is view)
            screen = await save_choice(pilot, app, 0)
            screen.query_one(Input).value = "."
            await pilot.press("enter")
            await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen))
            await pilot.press(answer)
            await wait_for(pilot, lambda: not isinstance(app.screen, ConfirmScreen))
        here = cwd / "result-echo.json"
        await wait_for(pilot, here.exists)
        assert [p.name for p in cwd.iterdir()] == ["result-echo.json"]
        assert here.stat().st_mode & 0o777 == 0o600


@pytest.mark.slow
async def test_c_copies_the_result_as_json() -> None:
    app = InspectorApp(demo_target())
    async with app.run_test(size=SIZE) as pilot:
        await wait_connected(pilot)
        view = await echo_and_focus_result(pilot, app, "copy me")
        await pilot.press("c")
        await wait_for(pilot, lambda: bool(app.clipboard))
        assert json.loads(app.clipboard) == view.outcome.result  # type: ignore[union-attr]
        assert "copy me" in app.clipboard


def test_what_s_offers_for_each_kind_of_outcome() -> None:
    error = {"code": -32602, "message": "bad"}
    failed = Outcome(title="t", error=error, step=("call", "echo", {}))
    [only] = save_choices(failed, [])
    assert only.label == "the error as JSON (result-echo.json)"
    assert json.loads(only.files()[0][1]) == error
    assert save_choices(Outcome(title="t", cancelled=True), []) == []
    media = [("a.png", b"png"), ("b.wav", b"wav")]
    result = {"content": [{"type": "text", "text": "hi"}, {"type": "image"}]}
    shown = Outcome(title="t", result=result)
    labels = [c.label for c in save_choices(shown, media)]
    assert labels == [
        "the binary blocks (a.png, b.wav)",
        "a.png only",
        "b.wav only",
        "the result as JSON (result.json)",
        "its text (result.txt)",
    ]
    assert save_choices(shown, media)[2].files() == [("b.wav", b"wav")]
    # a result kept as its bytes: its text told and made without parsing it here
    parked = Outcome(title="t")
    parked.park(json.dumps(result, separators=(",", ":")).encode())
    assert save_choices(parked, [])[-1].files() == [("result.txt", b"hi")]
