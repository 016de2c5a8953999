"""The catalog marks items that break a lint rule, as ``mcp-inspect lint`` reports them
(errors red, warnings yellow, infos dim); clean items carry no lint badge."""

from __future__ import annotations

import sys

import pytest
from paths import SERVERS
from tui_helpers import screen_text, wait_connected, wait_for

from inspector.target import Target, demo_target
from inspector.tui.app import InspectorApp
from inspector.tui.widgets.catalog import Catalog

LINT_SERVER = Target(
    command=sys.executable, args=[str(SERVERS / "lint_server.py")], transport="stdio"
)


def heads(app: InspectorApp) -> dict[str, str]:
    catalog = app.query_one(Catalog)
    return {
        str(item.get("name")): entry.head_text
        for item, entry in zip(catalog.items["tools"], catalog.entries["tools"], strict=True)
    }


@pytest.mark.slow
async def test_error_rules_are_badges_on_their_items() -> None:
    app = InspectorApp(LINT_SERVER)
    async with app.run_test(size=(160, 45)) as pilot:
        # not wait_connected: it waits for prompts, and this server's prompts list fails
        await wait_for(pilot, lambda: len(app.query_one(Catalog).items["tools"]) == 13, 30)
        shown = heads(app)
        assert "[lint: name-characters]" in shown["bad name/with spaces"]
        assert "[lint: ref-unresolved]" in shown["dangling"]
        assert "[lint: name-length]" in shown["n" * 129]
        assert "[lint:" not in shown["clean"]
        assert "[lint: description-missing]" in shown["undocumented"]  # a warning
        await wait_for(pilot, lambda: "[lint: ref-unresolved]" in screen_text(app))


async def test_the_demos_badges_are_what_lint_reports() -> None:
    """``mcp-inspect lint`` on the demo: a warning on schedule_event (oneOf, which some
    clients drop), infos on the two tools that use $ref; nothing else."""
    app = InspectorApp(demo_target())
    async with app.run_test(size=(160, 45)) as pilot:
        await wait_connected(pilot)
        await wait_for(pilot, lambda: len(app.query_one(Catalog).items["tools"]) > 20, 30)
        badged = {name: head for name, head in heads(app).items() if "[lint:" in head}
        assert sorted(badged) == ["build_tree", "legacy_search", "schedule_event"]
        assert "[lint: keyword-dropped]" in badged["schedule_event"]
        assert "[lint: ref-used]" in badged["build_tree"]
