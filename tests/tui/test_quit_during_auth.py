"""`q` while an OAuth flow waits on the person (the Auth tab's URL shown, the browser's
redirect awaited) asks first, as quitting with calls in flight does (real app, real
keys, against the official SDK's server auth): No keeps the flow, Yes quits."""

from __future__ import annotations

import pytest
from test_tui_auth import app_for, server, wait_person  # noqa: F401 - the fixture
from tui_helpers import wait_for

from inspector.tui.screens.confirm import ConfirmScreen

pytestmark = pytest.mark.slow  # an OAuth server started


async def test_q_during_the_browser_wait_asks_before_quitting(server: str) -> None:  # noqa: F811
    app = app_for(server)
    async with app.run_test(size=(150, 45)) as pilot:
        await wait_person(pilot, app)  # the Auth tab in front, the redirect awaited
        auth = app.auth_ui
        assert auth is not None and auth.interaction.waiting
        await pilot.press("q")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        question = app.screen.question  # type: ignore[attr-defined]
        assert "authorization in progress" in question
        assert not app.quitting
        await pilot.press("n")  # No: the flow still waits
        await wait_for(pilot, lambda: not isinstance(app.screen, ConfirmScreen))
        assert not app.quitting and auth.interaction.waiting
        await pilot.press("q")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("y")
        await wait_for(pilot, lambda: app.quitting)
