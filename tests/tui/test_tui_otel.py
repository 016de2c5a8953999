"""``--otlp-endpoint`` and ``--propagate`` in the TUI: the real app on the demo server,
its sessions joined to a live trace as ``launch`` joins them; the spans received are the
export of the app's recording, and a collector that is down is one notice."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from tui_helpers import wait_connected, wait_for

from inspector.export.live import LiveExport, TraceOptions
from inspector.record.format import SessionHeader
from inspector.record.recorder import Recorder
from inspector.target import demo_target, target_info
from inspector.tui.app import InspectorApp
from inspector.tui.launch import say_lost_spans
from tests.export.otlp_receiver import export_facts, live_facts, otlp_receiver
from tests.servers.http_support import dead_port

SIZE = (150, 45)


def traced_app(path: Path, endpoint: str, warnings: list[str]) -> tuple[InspectorApp, Any]:
    target = demo_target()
    recorder = Recorder(path, SessionHeader(target=target_info(target)))
    export = LiveExport(TraceOptions(endpoint, propagate=True), warnings.append)
    app = InspectorApp(target, recorder=recorder)
    app.server.trace = export.session(recorder.header, recorder.redactor)  # as launch does
    return app, export


@pytest.mark.slow
async def test_the_tuis_spans_are_the_export_of_its_recording(tmp_path: Path) -> None:
    path = tmp_path / "tui.jsonl"
    warnings: list[str] = []
    with otlp_receiver() as (url, bodies):
        app, export = traced_app(path, url, warnings)
        async with app.run_test(size=SIZE) as pilot:
            await wait_connected(pilot)
        export.close()
        assert app.recorder is not None
        app.recorder.close()
        live = live_facts(bodies)
    assert not warnings
    assert live == export_facts(path)
    names = {s["name"] for s in live.values()}
    assert {"initialize", "tools/list", "mcp.client.session"} <= names
    # --propagate: every request of ours named its span in the file
    assert all(len(s["trace"]) == 32 for s in live.values())


@pytest.mark.slow
async def test_a_collector_down_is_one_notice_in_the_tui(tmp_path: Path) -> None:
    path = tmp_path / "down.jsonl"
    said: list[str] = []
    app, export = traced_app(path, f"http://127.0.0.1:{dead_port()}", said)

    def warn(text: str) -> None:  # as launch says it, counted
        said.append(text)
        say_lost_spans(app, text)

    export.warn = warn
    async with app.run_test(size=SIZE) as pilot:
        await wait_connected(pilot)
        await wait_for(pilot, lambda: said, timeout=30)
        notices = [n.message for n in app._notifications]
        assert sum("collector" in m for m in notices) == 1
        assert app.controller is not None and app.controller.connected  # nothing else
    export.close()
    assert app.recorder is not None
    app.recorder.close()
    assert len(said) == 1
