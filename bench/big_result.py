"""A big tool result in the TUI: first screen, key latency, memory, resize; `--cli` as peer.

For each case (1 MB, 13 MB and 50 MB text results; a 13 MB structuredContent checked
against an outputSchema) the real app (``InspectorApp`` headless, recording to a temp
file as the TUI does) calls a tool of ``bench/big_payload_server.py`` and measures:

- send -> the response's arrival (the engine's event) -> the result's first screen
  (formatted, laid out and its visible rows painted);
- the worst delay of a key press (the log's cursor keys, every 50 ms) while the result
  renders (from its arrival to its first screen), after that (while its size and
  outputSchema check are worked out in the background, and half a second more), and while
  it arrives (read and parsed by the engine on the event loop: the folded parse of a big
  answer, ``inspector/wire/folded.py``, or ``json.loads``, which holds the GIL for the
  whole frame);
- resident memory added by the call against the size of the response frame: once it is
  shown; at its peak on arrival (the high-water mark, reset before the call, read once the
  result is shown with its size and check); and at the peak with the resizes below too
  (Textual's caches of the screen at two sizes with a result shown: about 1.2 MB whatever
  the result's size, a third of a 1 MB result's figure);
- a terminal resize (160x50 -> 120x40 and back) with the result shown, from the resize
  event posted as the terminal driver posts it: until the last frame that changed what
  the terminal shows (the screen stops changing: what the user waits for), until the
  last frame drawn at all (Textual also draws frames that change nothing), until the
  result view's first paint at its new size, and until ``pilot.resize_terminal`` returns
  (the pilot idle: includes at least one idle 20 ms slice of its own). Frames are caught
  on ``App._display`` and played onto a grid of cells to tell which changed the screen
  (``frames.py``). The same with only a one-line hint in the view, before the call, is
  what the app's own layout costs;

and, in the same run, the wall time of ``mcp-inspect --cli`` making the same call.
Each case runs in a fresh interpreter so memory figures are its own.

    python bench/big_result.py [--cases text:1,text:13,text:50,structured:13]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import json
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from frames import Frames  # bench/, beside this file
from textual import events
from textual.geometry import Size

from inspector.record.format import Redactor, SessionHeader
from inspector.record.recorder import Recorder
from inspector.target import Target, target_info
from inspector.tui import app as app_module
from inspector.tui.app import InspectorApp
from inspector.tui.widgets.catalog import Catalog
from inspector.tui.widgets.item_panel import ItemPanel
from inspector.tui.widgets.message_log import MessageLog
from inspector.tui.widgets.result_view import ResultView
from inspector.wire.events import Direction

HERE = Path(__file__).resolve().parent
SERVER = [sys.executable, str(HERE / "big_payload_server.py")]
SIZE = (160, 50)
MB = 1_000_000
TARGETS = "first screen <= 1 s after arrival; no key waits > 100 ms; memory <= 3x; resize <= 100 ms"


def rss_bytes() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    return 0


def peak_rss_bytes() -> int:
    """The high-water mark of resident memory since ``reset_peak`` (Linux), else since
    the process began."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def reset_peak() -> None:
    """Start the high-water mark again from what is resident now (Linux; elsewhere the
    peak counts from the start, which can only make it higher)."""
    with contextlib.suppress(OSError):
        Path("/proc/self/clear_refs").write_text("5")


class BenchApp(InspectorApp):
    """The real app; notes when the big response reaches the engine's observer."""

    CSS_PATH = str(Path(app_module.__file__).parent / "inspector.tcss")  # not bench/'s

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.arrived: float | None = None
        self.frame_bytes = 0
        observe = self.state.observe  # the engine's observer of every wire event

        def spy(event: Any) -> None:
            if (
                self.arrived is None
                and event.direction is Direction.IN
                and len(event.raw) > 100_000
            ):
                self.arrived = time.perf_counter()
                self.frame_bytes = len(event.raw)
            observe(event)

        self.state.observe = spy  # type: ignore[method-assign]


async def wait_until(condition: Any, timeout: float, step: float = 0.005) -> float:
    """Poll ``condition`` on the app's loop; the time it became true (a blocked loop
    delays the poll, which is what the figure should show)."""
    deadline = time.perf_counter() + timeout
    while not condition():
        if time.perf_counter() > deadline:
            raise SystemExit(f"timed out after {timeout:.0f} s")
        await asyncio.sleep(step)
    return time.perf_counter()


async def tui_case(tool: str, size: int) -> dict[str, float]:
    target = Target(command=SERVER[0], args=SERVER[1:], name="big")
    with tempfile.TemporaryDirectory() as tmp:
        recorder = Recorder(
            Path(tmp) / "session.jsonl",
            SessionHeader(target=target_info(target)),
            Redactor(target.secrets(), enabled=True),
        )
        app = BenchApp(target, recorder=recorder, timeout=600)
        try:
            async with app.run_test(size=SIZE) as pilot:
                return await drive(app, pilot, tool, size)
        finally:
            recorder.close()


async def drive(app: BenchApp, pilot: Any, tool: str, size: int) -> dict[str, float]:
    catalog = app.query_one(Catalog)
    await wait_until(lambda: bool(catalog.items["tools"]), 30)
    item = next(t for t in catalog.items["tools"] if t["name"] == tool)
    panel = app.query_one(ItemPanel)
    await panel.select("tools", item)
    form = panel.form
    assert form is not None
    form.root.set_value({"bytes": size})
    await form.recompose()
    lines = app.query_one(MessageLog).lines
    lines.focus()
    await pilot.pause()
    handled: list[float] = []
    move = lines.move_cursor

    def spy(row: int | None, *, post: bool = True) -> None:
        handled.append(time.perf_counter())
        move(row, post=post)

    lines.move_cursor = spy  # type: ignore[method-assign]
    view = app.query_one(ResultView)
    baseline = await resizes(app, pilot, view)  # the app alone, a hint in the view
    gc.collect()
    base_rss = rss_bytes()
    reset_peak()  # the app's start-up and the resizes above are not the call's
    shown_at: list[float] = []

    def first_screen() -> bool:
        return (
            view.outcome is not None
            and view.outcome.result is not None
            and not view.formatting
            and view.document is view.shown.document
            and view.rendered_rows > 0
        )

    async def press_keys() -> list[tuple[float, float]]:
        delays: list[tuple[float, float]] = []  # (pressed, delay)
        n = 0
        while len(shown_at) < 2 or time.perf_counter() < shown_at[1] + 0.5:
            before = len(handled)
            pressed = time.perf_counter()
            # as the driver posts it; pilot.press would wait for an idle app
            app.post_message(events.Key("up" if n % 2 else "down", None))
            n += 1
            while len(handled) == before and time.perf_counter() < pressed + 30:
                await asyncio.sleep(0.001)
            delays.append((pressed, handled[before] - pressed if len(handled) > before else 30.0))
            await asyncio.sleep(max(0.0, 0.05 - (time.perf_counter() - pressed)))
        return delays

    sent = time.perf_counter()
    keys = asyncio.create_task(press_keys())
    panel.submit()
    shown_at.append(await wait_until(first_screen, 900))
    shown_at.append(await wait_until(lambda: view.complete, 900))  # size and check too
    delays = await keys
    arrival_peak = peak_rss_bytes()
    arrived = app.arrived or float("nan")
    # a press waits for whatever runs when it lands: while the frame is read and parsed
    # (the engine), or while the result is formatted and shown (the result view)
    arriving = [d for pressed, d in delays if pressed < arrived] or [0.0]
    rendering = [d for pressed, d in delays if arrived <= pressed < shown_at[0]] or [0.0]
    completing = [d for pressed, d in delays if pressed >= shown_at[0]] or [0.0]
    gc.collect()
    shown_rss = rss_bytes()
    resized = await resizes(app, pilot, view)
    frame = app.frame_bytes or size
    return {
        "frame_mb": frame / MB,
        "send_to_arrival_s": arrived - sent,
        "arrival_to_first_screen_s": shown_at[0] - arrived,
        "send_to_first_screen_s": shown_at[0] - sent,
        "worst_key_arriving_ms": max(arriving) * 1000,
        "worst_key_rendering_ms": max(rendering) * 1000,
        "worst_key_completing_ms": max(completing) * 1000,
        "first_screen_to_complete_s": shown_at[1] - shown_at[0],
        "keys": len(delays),
        "rss_shown_x": (shown_rss - base_rss) / frame,
        "rss_peak_x": (arrival_peak - base_rss) / frame,
        "rss_peak_resized_x": (peak_rss_bytes() - base_rss) / frame,
        **{f"resize_{key}": value for key, value in resized.items()},
        **{f"resize_baseline_{key}": value for key, value in baseline.items()},
        "rendered_rows": view.rendered_rows,
    }


QUIET = 0.5  # no frame for this long after a resize: the screen has stopped changing
ROUNDS = 3  # resize pairs per measurement; the figures are medians over rounds


async def resizes(app: BenchApp, pilot: Any, view: ResultView) -> dict[str, float]:
    """The terminal narrower (120x40), then back (160x50), ``ROUNDS`` times; medians over
    rounds of the slower of the two:

    - ``last_change``: the resize event posted as a terminal driver posts it (no pilot in
      between) -> the end of the last frame it set off that changed what the terminal
      shows (``frames.py``): what the user waits for; ``changes``: how many did;
    - ``last_frame``: the same -> the end of the last frame it set off, changing anything
      or not (the frame after which none comes for ``QUIET`` s; an idle app draws none,
      checked before each round); ``frames``: how many it drew;
    - ``first_paint``: the same resize -> the result view's first paint at its new size;
    - ``settled``: ``pilot.resize_terminal`` returning (the pilot idle; its last 20 ms
      slice is measurement, not app): the figure this bench printed before."""
    painted: list[tuple[float, Any]] = []
    render_lines = view.render_lines

    def spy(crop: Any) -> Any:
        lines = render_lines(crop)
        painted.append((time.perf_counter(), view.size))
        return lines

    view.render_lines = spy  # type: ignore[method-assign]
    rounds: dict[str, list[float]] = {}
    driver = app._driver
    with Frames(app) as frames:
        for _ in range(ROUNDS):
            worst: dict[str, float] = {}
            for width, height in ((120, 40), SIZE):
                await frames.quiet(time.perf_counter(), QUIET)
                idle_from = time.perf_counter()
                await asyncio.sleep(QUIET)
                if any(end > idle_from for end in frames.ends):
                    raise SystemExit("the idle app draws frames: last_frame would be wrong")
                old = view.size
                size = Size(width, height)
                start = time.perf_counter()
                driver._size = size  # type: ignore[union-attr]  # the headless driver's
                app.post_message(events.Resize(size, size))
                await frames.quiet(start, QUIET)
                drawn = [end for end in frames.ends if end > start]
                changes = frames.changed(start)
                first = min(t for t, seen in painted if t > start and seen != old)
                for key, value in (
                    ("last_change", changes[-1] - start),
                    ("changes", len(changes)),
                    ("last_frame", drawn[-1] - start),
                    ("frames", len(drawn)),
                    ("first_paint", first - start),
                ):
                    worst[key] = max(worst.get(key, 0.0), value)
            # the pilot's way, as before: the same pair again
            for width, height in ((120, 40), SIZE):
                await frames.quiet(time.perf_counter(), QUIET)
                start = time.perf_counter()
                await pilot.resize_terminal(width, height)
                worst["settled"] = max(worst.get("settled", 0.0), time.perf_counter() - start)
            for key, value in worst.items():
                rounds.setdefault(key, []).append(value)
    view.render_lines = render_lines  # type: ignore[method-assign]
    return {key: statistics.median(values) for key, values in rounds.items()}


def cli_wall(tool: str, size: int) -> float:
    cmd = [
        sys.executable,
        "-m",
        "inspector",
        "--cli",
        "--timeout",
        "600",
        "--method",
        "tools/call",
        "--tool-name",
        tool,
        "--tool-args-json",
        json.dumps({"bytes": size}),
        "--",
        *SERVER,
    ]
    start = time.perf_counter()
    done = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=900)
    if done.returncode != 0:
        raise SystemExit(f"--cli failed: {done.stderr.decode()[-2000:]}")
    return time.perf_counter() - start


def run_case(case: str) -> dict[str, float]:
    done = subprocess.run(
        [sys.executable, __file__, "--case", case], capture_output=True, text=True, timeout=1800
    )
    if done.returncode != 0:
        raise SystemExit(f"case {case} failed:\n{done.stderr[-3000:]}")
    figures: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return figures


def resize_figures(figures: dict[str, float], prefix: str) -> str:
    def ms(key: str) -> str:
        return f"{figures[prefix + key] * 1000:.0f} ms"

    return (
        f"last change on screen {ms('last_change')} ({figures[prefix + 'changes']:.0f} "
        f"frames changed it), last frame {ms('last_frame')} "
        f"({figures[prefix + 'frames']:.0f} frames), "
        f"first paint at the new size {ms('first_paint')}, pilot settled {ms('settled')}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--cases", default="text:1,text:13,text:50,structured:13")
    parser.add_argument("--case", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.case:
        tool, mb = args.case.split(":")
        print(json.dumps(asyncio.run(tui_case(tool, int(float(mb) * MB)))))
        return
    print(f"targets: {TARGETS}")
    for case in args.cases.split(","):
        tool, mb = case.split(":")
        tui = run_case(case)
        cli = cli_wall(tool, int(float(mb) * MB))
        print(
            f"{tool} {tui['frame_mb']:.1f} MB: send->arrival {tui['send_to_arrival_s']:.2f} s, "
            f"arrival->first screen {tui['arrival_to_first_screen_s']:.2f} s "
            f"(send->first screen {tui['send_to_first_screen_s']:.2f} s; --cli wall "
            f"{cli:.2f} s, ratio {tui['send_to_first_screen_s'] / cli:.2f}x), "
            f"size and check {tui['first_screen_to_complete_s']:.2f} s later; "
            f"worst key {tui['worst_key_rendering_ms']:.0f} ms while it renders, "
            f"{tui['worst_key_completing_ms']:.0f} ms after ("
            f"{tui['worst_key_arriving_ms']:.0f} ms while it arrives; {tui['keys']:.0f} presses), "
            f"memory {tui['rss_shown_x']:.2f}x shown / {tui['rss_peak_x']:.2f}x peak on "
            f"arrival ({tui['rss_peak_resized_x']:.2f}x with the resizes after), "
            f"resize: {resize_figures(tui, 'resize_')} (with a one-line hint instead: "
            f"{resize_figures(tui, 'resize_baseline_')}), "
            f"{tui['rendered_rows']:.0f} rows rendered"
        )


if __name__ == "__main__":
    main()
