"""What quitting would lose, as the confirm dialog lists it (the dialog itself, through
the real app: test_tui_typing_keys.py)."""

from __future__ import annotations

from inspector.tui.quit_reconnect import losses


def test_nothing_unsent_and_nothing_waiting_loses_nothing() -> None:
    assert losses([], 0) == []


def test_three_forms_are_named_then_the_rest_counted() -> None:
    assert losses(["Echo", "Add", "Slow"], 0) == ["what you typed in Echo, Add, Slow, never sent"]
    assert losses(["Echo", "Add", "Slow", "Long", "Tiny"], 2) == [
        "what you typed in Echo, Add, Slow and 2 more, never sent",
        "2 calls still waiting for the server",
    ]


def test_one_call_is_singular() -> None:
    assert losses([], 1) == ["1 call still waiting for the server"]
