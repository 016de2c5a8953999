"""Typing in a form field: CPU a character, and the delay until the screen shows it.

Opens the real app on the demo server, opens ``create_user`` (a form of a dozen fields)
and types into its first text box, a key every 30 ms posted as the terminal driver posts
it. Measured: the app's CPU a typed character, and each character's delay from its key
to the first screen refresh that follows its arrival in the box (what a person sees).
The peer, in the same run and the same app, is Textual's own ``Input`` behaviour, where
every change of the text asks for a layout of the whole screen (``SteadyInput`` only
repaints); the rounds alternate so machine noise hits both alike.

Usage: python bench/form_typing.py [--chars 60] [--rounds 3]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from textual import events  # noqa: E402
from textual.screen import Screen  # noqa: E402
from textual.widget import Widget  # noqa: E402
from tui_helpers import select_item, wait_connected, wait_for  # noqa: E402

from inspector.target import demo_target  # noqa: E402
from inspector.tui.app import InspectorApp  # noqa: E402
from inspector.tui.widgets.field_input import FieldInput  # noqa: E402
from inspector.tui.widgets.steady_input import SteadyInput  # noqa: E402

STEADY = SteadyInput.__dict__["virtual_size"]
TEXTUAL = Widget.__dict__["virtual_size"]  # a change asks for a layout
GAP = 0.03  # seconds between keys: a fast typist


async def typing(chars: int) -> tuple[float, list[float]]:
    """CPU ms a character, and each character's delay (ms) until a refresh showed it."""
    app = InspectorApp(demo_target())
    refreshed: list[float] = []
    original = Screen._compositor_refresh

    def spy(self: Screen[Any]) -> None:
        original(self)
        refreshed.append(time.perf_counter())

    Screen._compositor_refresh = spy  # type: ignore[method-assign]
    try:
        async with app.run_test(size=(120, 35)) as pilot:
            await wait_connected(pilot)
            await select_item(pilot, "tools", "create_user")
            while not isinstance(app.focused, FieldInput):
                await pilot.press("tab")
            box = app.focused
            await pilot.pause(0.3)
            delays: list[float] = []
            cpu = time.process_time()
            for n in range(chars):
                letter = chr(ord("a") + n % 26)
                pressed = time.perf_counter()
                seen = len(refreshed)
                app.post_message(events.Key(letter, letter))
                while len(box.value) <= n:
                    await asyncio.sleep(0.0005)
                while len(refreshed) == seen or refreshed[-1] < pressed:
                    await asyncio.sleep(0.0005)
                delays.append((refreshed[-1] - pressed) * 1000)
                await asyncio.sleep(max(0.0, GAP - (time.perf_counter() - pressed)))
            await pilot.pause(0.1)
            per_char = (time.process_time() - cpu) * 1000 / chars
            await wait_for(pilot, lambda: len(box.value) == chars)
    finally:
        Screen._compositor_refresh = original  # type: ignore[method-assign]
    return per_char, delays


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chars", type=int, default=60)
    parser.add_argument("--rounds", type=int, default=3)
    opts = parser.parse_args()
    results: dict[str, list[tuple[float, list[float]]]] = {"steady": [], "textual": []}
    for _ in range(opts.rounds):
        for label, reactive in (("steady", STEADY), ("textual", TEXTUAL)):
            SteadyInput.virtual_size = reactive
            results[label].append(await typing(opts.chars))
    SteadyInput.virtual_size = STEADY
    cpu = {label: statistics.median(r[0] for r in rounds) for label, rounds in results.items()}
    print(f"typing {opts.chars} characters into create_user's first field, x{opts.rounds}")
    for label, rounds in results.items():
        delays = sorted(d for r in rounds for d in r[1])
        p95 = delays[int(0.95 * (len(delays) - 1))]
        print(
            f"  {label:8s} CPU {cpu[label]:5.1f} ms a character; key to screen: "
            f"median {statistics.median(delays):5.1f} ms, p95 {p95:5.1f}, max {delays[-1]:5.1f}"
        )
    print(f"  CPU a character, steady / textual's Input: {cpu['steady'] / cpu['textual']:.2f}x")


if __name__ == "__main__":
    asyncio.run(main())
