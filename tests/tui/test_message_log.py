"""The message log and detail widgets, driven by a Pilot in a tiny app."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from rich.console import Group
from rich.text import Text
from textual.app import App, ComposeResult
from textual.pilot import Pilot
from textual.widgets import Static
from tui_helpers import focus, view_text, wait_for

from inspector.live.state import LiveState
from inspector.tui.live_feed import LiveFeed
from inspector.tui.result_files import default_folder
from inspector.tui.widgets.document_view import DocumentView
from inspector.tui.widgets.log_filter import LogFilterBar
from inspector.tui.widgets.message_detail import MessageDetail, pretty_json
from inspector.tui.widgets.message_log import LogLines, MessageLog
from inspector.wire.events import Channel, Direction, Finding, WireEvent
from inspector.wire.jsonrpc import encode, error_response, make_event, notification, request
from inspector.wire.jsonrpc import response as rpc_response

T0 = 1_767_225_600.0  # 2026-01-01T00:00:00Z: fixed times keep snapshots stable
OUT, IN, LOCAL = Direction.OUT, Direction.IN, Direction.LOCAL


def ev(
    direction: Direction, channel: Channel, msg: object, t: float, seq: int, **kw: object
) -> WireEvent:
    raw = msg if isinstance(msg, bytes) else encode(msg)
    event = make_event(direction, channel, raw)
    event.time, event.mono, event.seq = T0 + t, 100.0 + t, seq
    for key, value in kw.items():
        setattr(event, key, value)
    return event


def sample() -> list[WireEvent]:
    """A short realistic conversation, hostile text included."""
    specs: list[tuple[Direction, Channel, object, float, dict[str, object]]] = [
        (LOCAL, Channel.SYSTEM, b"spawned: python -m demo (pid 4242)", 0.0, {}),
        (
            OUT,
            Channel.STDIN,
            request(
                1,
                "initialize",
                {
                    "protocolVersion": "2025-11-25",
                    "capabilities": {},
                    "clientInfo": {"name": "mcp-inspect", "version": "0.1"},
                },
            ),
            0.002,
            {},
        ),
        (IN, Channel.STDERR, b"INFO starting \x1b[2J[bold red]x[/]", 0.05, {}),
        (
            IN,
            Channel.STDOUT,
            rpc_response(
                1,
                {
                    "protocolVersion": "2025-11-25",
                    "serverInfo": {"name": "demo", "version": "1.2"},
                    "capabilities": {"tools": {}},
                },
            ),
            0.061,
            {},
        ),
        (OUT, Channel.STDIN, notification("notifications/initialized"), 0.062, {}),
        (OUT, Channel.STDIN, request(2, "tools/list"), 0.07, {}),
        (
            IN,
            Channel.STDOUT,
            rpc_response(
                2,
                {
                    "tools": [
                        {"name": f"tool_{i}", "inputSchema": {"type": "object"}} for i in range(120)
                    ]
                },
            ),
            0.083,
            {},
        ),
        (
            OUT,
            Channel.STDIN,
            request(3, "tools/call", {"name": "echo", "arguments": {"text": "hello"}}),
            1.2,
            {},
        ),
        (
            IN,
            Channel.STDOUT,
            notification("notifications/progress", {"progressToken": 3, "progress": 1, "total": 3}),
            1.3,
            {},
        ),
        (
            IN,
            Channel.STDOUT,
            rpc_response(3, {"content": [{"type": "text", "text": "hello"}]}),
            2.5,
            {"findings": [Finding("slow-response", "took 1.3 s")]},
        ),
        (OUT, Channel.STDIN, request(4, "resources/read", {"uri": "file:///x"}), 3.0, {}),
        (IN, Channel.STDOUT, error_response(4, -32002, "Resource not found"), 3.004, {}),
        (IN, Channel.STDOUT, b'{"jsonrpc": "2.0", \xff\xfe', 3.1, {}),
        (
            OUT,
            Channel.HTTP,
            b"POST /mcp HTTP/1.1 -> 202 Accepted",
            3.3,
            {"meta": {"status": 202, "mcp-session-id": "abc"}},
        ),
    ]
    return [ev(d, ch, msg, t, n, **kw) for n, (d, ch, msg, t, kw) in enumerate(specs, 1)]


def flood(start: int, count: int) -> list[WireEvent]:
    """``count`` request/response events from sequence ``start + 1``."""
    out = []
    for n in range(start, start + count):
        if n % 2 == 0:
            msg: object = request(
                n, "tools/call" if n % 10 == 0 else "ping", {"name": "echo", "arguments": {"i": n}}
            )
            direction = OUT
        else:
            msg = rpc_response(n - 1, {"content": [{"type": "text", "text": f"reply {n}"}]})
            direction = IN
        out.append(ev(direction, Channel.STDIN, msg, n * 0.001, n + 1))
    return out


class LogApp(App[None]):
    CSS = """
    MessageLog { height: 1fr; }
    MessageDetail { height: 1fr; border-top: solid $primary; }
    """

    def __init__(self, events: list[WireEvent] | None = None) -> None:
        super().__init__()
        self.initial = events or []
        self.selected: list[tuple[int, int]] = []
        self.state = LiveState()  # the log renders the state's events, as in the inspector
        self.feed = LiveFeed(self.state)

    def compose(self) -> ComposeResult:
        log = MessageLog(self.state.events, id="log")
        self.feed.subscribe(log)
        yield log
        yield MessageDetail(id="detail")

    def on_mount(self) -> None:
        self.append_events(self.initial)
        self.log_widget.lines.focus()

    def append_events(self, events: list[WireEvent]) -> None:
        """Events observed, then taken as the feed takes them, shown at once."""
        for event in events:
            self.state.observe(event)
        changes = self.state.take_changes()
        self.log_widget.events_added(changes.first, changes.events)

    @property
    def log_widget(self) -> MessageLog:
        return self.query_one(MessageLog)

    @property
    def detail(self) -> MessageDetail:
        return self.query_one(MessageDetail)

    def on_message_log_selected(self, message: MessageLog.Selected) -> None:
        self.selected.append((message.index, message.seq))
        self.detail.show(self.log_widget.source, message.index)

    def on_message_detail_jump_to(self, message: MessageDetail.JumpTo) -> None:
        self.log_widget.select_index(message.index)
        self.detail.show(self.log_widget.source, message.index)


def row_text(lines: LogLines, y: int) -> str:
    return "".join(seg.text for seg in lines.render_line(y))


def detail_text(app: LogApp) -> str:
    """What the detail pane shows, scrolled or not."""
    return view_text(app.detail.view)


def is_raw(app: LogApp) -> bool:
    text = detail_text(app)
    return "raw bytes" in text and "message (v: raw)" not in text


def rendered_rows(view: DocumentView) -> str:
    """The rows a view paints on screen now."""
    return "\n".join(view.render_line(y).text for y in range(view.scrollable_content_region.height))


def static_text(app: App[None], selector: str) -> str:
    """The plain text a Static shows (Text, str or a Group of them)."""
    content = app.query_one(selector, Static).content
    parts = content.renderables if isinstance(content, Group) else [content]
    return "\n".join(p.plain if isinstance(p, Text) else str(p) for p in parts)


@pytest.mark.slow
async def test_100k_events_in_batches_follow_the_tail() -> None:
    app = LogApp()
    async with app.run_test(size=(120, 30)) as pilot:
        log = app.log_widget
        for start in range(0, 100_000, 2_000):
            app.append_events(flood(start, 2_000))
            await pilot.pause()
        lines = log.lines
        assert len(log.source) == 100_000
        await wait_for(pilot, lambda: log.shown == 100_000)  # within GROW_EVERY
        await wait_for(pilot, lambda: lines.scroll_offset.y == lines.max_scroll_y)
        assert log.follow
        height = lines.scrollable_content_region.height
        assert "reply 99999" in row_text(lines, height - 1)
        # Only visible rows were ever rendered, not 100k.
        assert lines.rendered_rows < 60 * height
        # Scrolling up stops following: new events do not move the view.
        await pilot.press("pageup")
        assert not log.follow
        top = lines.scroll_offset.y
        app.append_events(flood(100_000, 1_000))
        # a re-size follows within GROW_EVERY (a flood's batches are folded)
        await wait_for(pilot, lambda: lines.row_count == 101_000)
        assert lines.scroll_offset.y == top
        # End resumes following.
        await pilot.press("end")
        await wait_for(pilot, lambda: lines.scroll_offset.y == lines.max_scroll_y)
        assert log.follow and log.cursor_index == 100_999
        app.append_events(flood(101_000, 10))
        await wait_for(pilot, lambda: "reply 101009" in row_text(lines, height - 1))
        assert lines.scroll_offset.y == lines.max_scroll_y


async def test_mouse_scroll_back_to_bottom_resumes_follow() -> None:
    app = LogApp(flood(0, 500))
    async with app.run_test(size=(100, 20)) as pilot:
        lines = app.log_widget.lines
        await wait_for(pilot, lambda: lines.scroll_offset.y == lines.max_scroll_y > 0)
        lines.scroll_up(animate=False, immediate=True)  # what the mouse wheel does
        await pilot.pause()
        assert not lines.follow
        lines.scroll_end(animate=False, immediate=True)
        await pilot.pause()
        assert lines.follow


async def test_cursor_keys_enter_and_detail() -> None:
    app = LogApp(sample())
    async with app.run_test(size=(120, 40)) as pilot:
        log = app.log_widget
        await pilot.press("home")
        assert log.cursor_index == 0
        await pilot.press("down", "down", "down", "down", "down", "down", "down")
        assert log.cursor_index == 7
        await pilot.press("enter")
        assert app.selected == [(7, 8)]
        header = detail_text(app)
        assert "tools/call" in header and "#8" in header and "response #10 (p)" in header
        assert '"echo"' in detail_text(app)
        await pilot.press("pagedown")
        assert log.cursor_index == len(sample()) - 1
        await pilot.press("up")
        assert log.cursor_index == len(sample()) - 2


async def test_click_selects_row() -> None:
    app = LogApp(sample())
    async with app.run_test(size=(120, 40)) as pilot:
        assert await pilot.click(LogLines, offset=(30, 3))
        assert app.selected == [(3, 4)]
        assert "initialize" in detail_text(app)
        assert "latency 59ms" in detail_text(app)


@pytest.mark.slow
async def test_detail_keys_raw_pair_copy_save(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    app = LogApp(sample())
    async with app.run_test(size=(120, 40)) as pilot:
        app.log_widget.select_index(9)
        await pilot.press("enter")
        detail = app.detail
        detail.focus()
        await pilot.pause()
        assert '"content"' in detail_text(app)
        assert "slow-response" in detail_text(app)
        await pilot.press("v")
        assert is_raw(app)
        await pilot.press("v")
        assert not is_raw(app)
        await pilot.press("c")
        assert app.clipboard == sample()[9].raw.decode()
        await pilot.press("s")
        await pilot.press("enter")
        saved = default_folder() / "event-10.json"  # a name alone: the files folder
        await wait_for(pilot, saved.exists)
        assert saved.stat().st_mode & 0o777 == 0o600
        assert saved.read_bytes() == sample()[9].raw
        assert detail.saved_path == saved
        # Saving again does not overwrite.
        saved.write_bytes(b"keep")
        await pilot.press("s", "enter")
        await pilot.pause()
        assert saved.read_bytes() == b"keep"
        await pilot.press("escape")
        # p jumps to the request, which the log's cursor follows.
        await pilot.press("p")
        await wait_for(pilot, lambda: detail.index == 7)
        assert app.log_widget.cursor_index == 7
        await pilot.press("p")
        await wait_for(pilot, lambda: detail.index == 9)


async def test_invalid_utf8_and_hostile_text_shown_safely() -> None:
    app = LogApp(sample())
    async with app.run_test(size=(140, 40)) as pilot:
        lines = app.log_widget.lines
        stderr_row = row_text(lines, 2)
        assert "␛[2J[bold red]x[/]" in stderr_row and "\x1b" not in stderr_row
        app.log_widget.select_index(12)
        await pilot.press("enter")
        body = detail_text(app)
        assert "raw bytes" in body and "\\xff\\xfe" in body
        assert "\\xff\\xfe" in rendered_rows(app.detail.view)  # the frame, on screen
        assert "invalid UTF-8" in detail_text(app)
        app.log_widget.select_index(2)
        await pilot.press("enter")
        body = detail_text(app)
        assert "␛[2J[bold red]x[/]" in body


@pytest.mark.slow
async def test_filter_bar_counts_and_follows_new_events() -> None:
    app = LogApp(flood(0, 20_000))
    async with app.run_test(size=(120, 30)) as pilot:
        log = app.log_widget
        await pilot.press("slash")
        bar = app.query_one(LogFilterBar)
        assert bar.is_open and bar.input.has_focus
        await pilot.press(*"method:tools/call")
        await pilot.press("enter")
        await wait_for(pilot, lambda: not log.scanning and log.shown == 4_000)
        assert log.lines.has_focus
        # Enter went to the rows: once scanned, the newest match is lit (Enter opens it)
        await wait_for(pilot, lambda: log.lines.cursor_row == 3_999)
        assert "4,000 / 20,000 shown" in static_text(app, "#filter-count")
        lines = log.lines
        assert all("tools/call" in row_text(lines, y) for y in range(5))
        app.append_events(flood(20_000, 100))
        await pilot.pause()
        assert log.shown == 4_020
        assert "4,020 / 20,100 shown" in static_text(app, "#filter-count")
        # Escape clears the filter and closes the bar.
        await focus(pilot, bar.input)
        await pilot.press("escape")
        await wait_for(pilot, lambda: log.shown == 20_100)
        assert not bar.is_open


@pytest.mark.slow
async def test_filter_over_100k_is_chunked_and_keeps_cursor() -> None:
    events = flood(0, 100_000)
    app = LogApp(events)
    async with app.run_test(size=(120, 30)) as pilot:
        log = app.log_widget
        log.select_index(50_000)  # a tools/call request
        log.set_filter("tools/call")
        assert log.scanning  # the first chunk is done inline, the rest in a worker
        await wait_for(pilot, lambda: not log.scanning, timeout=30)
        assert log.shown == 10_000
        assert log.cursor_index == 50_000
        log.set_filter("kind:response reply 7777")
        await wait_for(pilot, lambda: not log.scanning, timeout=30)
        assert [log.lines.index_at(r) for r in range(log.shown)][:1] == [7777]
        log.set_filter("")
        await pilot.pause()
        assert log.shown == 100_000


async def test_the_feed_flushes_observed_events_into_the_log() -> None:
    app = LogApp()
    async with app.run_test(size=(100, 20)) as pilot:
        log = app.log_widget
        app.feed.start(app)
        for event in flood(0, 300):
            app.state.observe(event)
        assert log.shown == 0
        await wait_for(pilot, lambda: log.shown == 300, timeout=5)
        assert app.state.pending_events == 0 and len(app.state.store) == 300


async def test_finding_added_later_shows_its_marker() -> None:
    app = LogApp(sample())
    async with app.run_test(size=(120, 40)) as pilot:
        log = app.log_widget
        assert "⚠" not in row_text(log.lines, 1)
        app.state.store.add_finding(1, Finding("late", "found by a later lint"))
        log.event_changed(1)
        await pilot.pause()
        assert row_text(log.lines, 1).rstrip().endswith("⚠")


def test_pretty_json_folds_big_values() -> None:
    text = pretty_json({"items": list(range(1000)), "s": "x" * 5000}).plain
    assert "… 950 more items" in text
    assert "… 4,000 more chars" in text
    assert len(text) < 10_000


def test_pretty_json_deep_nesting_is_folded() -> None:
    deep: object = "bottom"
    for _ in range(900):
        deep = {"a": [deep]}
    text = pretty_json(deep).plain
    assert "nested deeper than 48" in text and "bottom" not in text


@pytest.mark.slow
def test_snapshot_log_and_detail(snap_compare: Callable[..., bool]) -> None:
    async def run_before(pilot: Pilot[None]) -> None:
        app = pilot.app
        assert isinstance(app, LogApp)
        app.log_widget.select_index(9)
        await pilot.press("enter")
        await pilot.pause()

    assert snap_compare(LogApp(sample()), terminal_size=(120, 36), run_before=run_before)


def big_response(n: int, marker: str, rows: int = 30_000) -> WireEvent:
    """A ~2 MB tools/call response of many small objects (slow to parse)."""
    result = {
        "content": [{"type": "text", "text": marker}],
        "structuredContent": {
            "rows": [{"id": i, "name": f"row {i}", "ok": True} for i in range(rows)]
        },
    }
    return ev(IN, Channel.STDOUT, rpc_response(n, result), 4.0 + n, 100 + n)


@pytest.mark.slow
async def test_big_frame_is_formatted_off_the_ui_thread_and_the_newest_selection_wins() -> None:
    from inspector.tui.widgets.document_view import THREAD_BYTES

    events = [*sample(), big_response(50, "marker-A"), big_response(51, "marker-B")]
    assert min(len(e.raw) for e in events[-2:]) > 4 * THREAD_BYTES
    app = LogApp(events)
    async with app.run_test(size=(120, 40)) as pilot:
        detail, source = app.detail, app.log_widget.source
        a, b, small = len(events) - 2, len(events) - 1, 7
        await wait_for(pilot, lambda: len(source) == len(events))
        # a big frame: not parsed on the UI thread, "formatting…" until the worker is done
        detail.show(source, a)
        assert detail.event is None and detail.formatting
        assert "formatting…" in detail_text(app)
        assert f"{len(events[a].raw):,} bytes" in detail_text(app)
        await wait_for(pilot, lambda: not detail.formatting)
        assert "marker-A" in detail_text(app)
        assert detail.event is not None and detail.event.raw == events[a].raw
        assert "id 50" in detail_text(app)
        # stepping on while one is formatted: the newest selection wins
        detail.show(source, b)
        detail.show(source, a)
        detail.show(source, b)
        await wait_for(pilot, lambda: not detail.formatting and not detail.formatter.running)
        assert "marker-B" in detail_text(app) and detail.index == b
        # a small frame picked while a big one is still formatted: shown at once, kept
        detail.show(source, a)
        detail.show(source, small)
        assert '"echo"' in detail_text(app)  # synchronous
        await wait_for(pilot, lambda: not detail.formatter.running)  # the big one came back...
        assert '"echo"' in detail_text(app)  # ...and was dropped
        assert "marker-A" not in detail_text(app)
        # raw mode of a big frame toggles at once (the event is parsed already)
        detail.show(source, b)
        await wait_for(pilot, lambda: not detail.formatting)
        detail.action_toggle_raw()
        assert is_raw(app)


@pytest.mark.slow
async def test_a_big_frame_is_summarized_as_it_arrives_not_parsed_again_to_paint_it() -> None:
    big = big_response(60, "marker-C")
    app = LogApp()
    async with app.run_test(size=(120, 30)) as pilot:
        log = app.log_widget
        store = app.state.store
        parsed: list[int] = []
        event = store.event

        def spy(index: int) -> WireEvent:
            parsed.append(index)
            return event(index)

        store.event = spy  # type: ignore[method-assign]
        app.append_events([*sample(), big])
        index = len(store) - 1
        await wait_for(pilot, lambda: log.shown == len(store))
        await pilot.pause()
        lines = log.lines
        lines._strips.clear()  # paint every row again, as scrolling back to it would
        lines._summaries.clear()
        rows = [row_text(lines, y) for y in range(lines.scrollable_content_region.height)]
        assert any("marker-C" in row for row in rows)
        assert index not in parsed  # the 2 MB frame was not parsed on the UI thread
