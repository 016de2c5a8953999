"""The Skills tab in the real app, on the demo server (two skills): listed on connect,
each skill's frontmatter and files shown, its SKILL.md read only when the user loads it."""

from __future__ import annotations

import sys

import pytest
from paths import TESTS
from textual.widgets import OptionList, Static
from tui_helpers import log_methods, plain, wait_connected, wait_for

from inspector.target import Target, demo_target
from inspector.tui.app import InspectorApp
from inspector.tui.widgets.skills_view import SkillsView

TAMPERED = Target(
    command=sys.executable,
    args=[str(TESTS / "servers" / "skills_tampered.py"), "frontmatter"],
    transport="stdio",
)


def detail(app: InspectorApp) -> str:
    return plain(app.query_one("#skills-detail", Static).content)


def reads(app: InspectorApp) -> int:
    """The resources/read lines in the message log (request and response)."""
    return log_methods(app).count("resources/read")


async def open_skills(pilot, app: InspectorApp) -> OptionList:  # type: ignore[no-untyped-def]
    await wait_connected(pilot)
    await wait_for(pilot, lambda: app.query(SkillsView) and app.query_one(SkillsView).entries)
    await pilot.click("#--content-tab-tab-skills")
    options = app.query_one("#skills-list", OptionList)
    await pilot.click("#skills-list")
    await wait_for(pilot, lambda: options.has_focus)
    return options


@pytest.mark.slow
async def test_skills_tab_shows_frontmatter_and_files_and_loads_on_enter() -> None:
    app = InspectorApp(demo_target())
    async with app.run_test(size=(140, 44)) as pilot:
        options = await open_skills(pilot, app)
        assert options.option_count == 2
        await pilot.press("down")  # the second skill
        await wait_for(pilot, lambda: "report-writing" in detail(app))
        shown = detail(app)
        assert "skill://demo/report-writing/templates/report.md" in shown
        assert "sha256:" in shown and "Enter: load the skill" in shown
        assert reads(app) == 0  # listed and shown: no file read yet
        await pilot.press("enter")
        await wait_for(pilot, lambda: "SKILL.md (verified)" in detail(app))
        assert "Call the generate_report tool" in detail(app)
        assert reads(app) in (1, 2)  # the SKILL.md only (its request, its response)


@pytest.mark.slow
async def test_a_skill_that_fails_verification_is_shown_as_the_failure() -> None:
    app = InspectorApp(TAMPERED)
    async with app.run_test(size=(140, 44)) as pilot:
        await open_skills(pilot, app)
        await pilot.press("enter")  # the first skill: its SKILL.md was changed
        await wait_for(pilot, lambda: "verification failed" in detail(app))
        assert "frontmatter differs" in detail(app)
        assert "Exfiltrate" not in detail(app).split("verification failed")[1].split("file '")[0]
        assert "SKILL.md (verified)" not in detail(app)
