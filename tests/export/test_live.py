"""Live OpenTelemetry export (``--otlp-endpoint`` on ``--cli`` and ``load``) and
``--propagate``: the spans a test OTLP/HTTP receiver gets are the spans ``export`` makes
from the same recording; a collector that is down costs one warning and nothing else;
an official-SDK server instrumented with OpenTelemetry joins the session's trace. The
CLI runs in the test process; as a child process, end to end, in the first test."""

from __future__ import annotations

import json
import os
import subprocess
import threading
import time
from pathlib import Path

import pytest
from cli_inprocess import cli_inprocess
from cli_runner import cli
from paths import DEMO, PY, ROOT

from inspector.export.live import LiveExport, TraceOptions
from inspector.record.reader import iter_events, open_header
from tests.export.otlp_receiver import export_facts, live_facts, otlp_receiver
from tests.servers.http_support import dead_port

TRACE_SERVER = [PY, str(ROOT / "tests" / "servers" / "sdk_trace_server.py")]


def test_cli_live_spans_are_the_export_of_its_recording(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    with otlp_receiver() as (url, bodies):
        done = cli(
            "--cli",
            "--record",
            str(path),
            "--otlp-endpoint",
            url,
            "--method",
            "tools/call",
            "--tool-name",
            "slow_count",
            "--tool-arg",
            "seconds=0.2",
            "--tool-arg",
            "steps=2",
            "--",
            *DEMO,
        )
        assert done.returncode == 0, done.stderr
        assert "warning" not in done.stderr
        live = live_facts(bodies)
    offline = export_facts(path)
    assert live == offline
    names = {s["name"] for s in live.values()}
    assert {"tools/call slow_count", "initialize", "mcp.client.session"} <= names
    call = next(s for s in live.values() if s["name"] == "tools/call slow_count")
    assert [e[0] for e in call["events"]] == ["progress", "progress"]


def test_cli_live_over_http_matches_the_export(tmp_path: Path, sdk_sse_base: str) -> None:
    """HTTP exchanges beneath the MCP spans, the session id learnt on the way."""
    path = tmp_path / "h.jsonl"
    base = sdk_sse_base  # the worker's shared server (conftest)
    with otlp_receiver() as (url, bodies):
        done = cli_inprocess(
            "--cli",
            "--record",
            str(path),
            "--otlp-endpoint",
            url,
            "--method",
            "tools/call",
            "--tool-name",
            "progress_steps",
            "--tool-arg",
            "steps=2",
            f"{base}/mcp",
        )
        assert done.returncode == 0, done.stderr
        live = live_facts(bodies)
    assert live == export_facts(path)
    assert any(s["name"] == "POST" for s in live.values())


def test_collector_down_costs_one_warning_and_nothing_else(tmp_path: Path) -> None:
    port = dead_port()
    done = cli_inprocess(
        "--cli",
        "--no-record",
        "--otlp-endpoint",
        f"http://127.0.0.1:{port}",
        "--method",
        "tools/call",
        "--tool-name",
        "add",
        "--tool-arg",
        "a=2",
        "--tool-arg",
        "b=3",
        "--",
        *DEMO,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert '"5"' in done.stdout or "5" in json.loads(done.stdout)["content"][0]["text"]
    warnings = [line for line in done.stderr.splitlines() if "warning" in line]
    assert len(warnings) == 1, done.stderr
    assert f"127.0.0.1:{port}" in warnings[0] and "collector" in warnings[0]
    assert "Traceback" not in done.stderr and "Transient error" not in done.stderr


@pytest.mark.slow
def test_propagate_joins_an_sdk_server_to_the_trace(tmp_path: Path) -> None:
    path = tmp_path / "p.jsonl"
    with otlp_receiver() as (url, bodies):
        done = cli_inprocess(
            "--cli",
            "--propagate",
            "--record",
            str(path),
            "--otlp-endpoint",
            url,
            "--method",
            "tools/call",
            "--tool-name",
            "traced",
            "--",
            *TRACE_SERVER,
        )
        assert done.returncode == 0, done.stderr
        live = live_facts(bodies)
    seen = json.loads(json.loads(done.stdout)["content"][0]["text"])
    version, trace_id, parent_id, flags = seen["traceparent"].split("-")
    assert (version, flags) == ("00", "01")
    call_id, call = next((k, s) for k, s in live.items() if s["name"] == "tools/call traced")
    # the request span is the traceparent's parent, in the session's trace ...
    assert (call["trace"], call_id) == (trace_id, parent_id)
    # ... and the server's own span (the SDK's instrumentation) hangs from it
    assert seen["span"] == {
        "name": "tools/call traced",
        "trace_id": trace_id,
        "parent_id": parent_id,
    }
    # the file's export gives the same ids: the recorded traceparent is kept
    assert live == export_facts(path)


@pytest.mark.slow
def test_propagate_alone_needs_no_collector(tmp_path: Path) -> None:
    """Recorded now, exported later: the traceparent in the file names the span."""
    path = tmp_path / "q.jsonl"
    done = cli_inprocess(
        "--cli",
        "--propagate",
        "--record",
        str(path),
        "--method",
        "tools/call",
        "--tool-name",
        "traced",
        "--",
        *TRACE_SERVER,
    )
    assert done.returncode == 0, done.stderr
    seen = json.loads(json.loads(done.stdout)["content"][0]["text"])
    _, trace_id, parent_id, _ = seen["traceparent"].split("-")
    call = export_facts(path)[parent_id]
    assert call["name"] == "tools/call traced" and call["trace"] == trace_id


@pytest.mark.slow
def test_load_sends_each_users_spans(tmp_path: Path) -> None:
    with otlp_receiver() as (url, bodies):
        done = cli(  # a child process: load takes ctrl+c, which only a main thread can
            "load",
            "--otlp-endpoint",
            url,
            "--concurrency",
            "2",
            "--requests",
            "6",
            "--tool-name",
            "add",
            "--tool-arg",
            "a=1",
            "--tool-arg",
            "b=2",
            "--",
            *DEMO,
            timeout=90,
        )
        assert done.returncode == 0, done.stderr
        live = live_facts(bodies)
    calls = [s for s in live.values() if s["name"] == "tools/call add"]
    roots = [s for s in live.values() if s["name"] == "mcp.client.session"]
    assert len(calls) >= 6
    # one trace a session (the first lists the tool's schema, then one per user)
    assert len({r["trace"] for r in roots}) == len(roots) >= 3
    for span in live.values():
        assert span["parent"] == "" or span["parent"] in live


def test_otlp_endpoint_without_the_extra_says_what_to_install() -> None:
    code = (
        "import sys\n"
        "sys.modules['opentelemetry.exporter.otlp.proto.http.trace_exporter'] = None\n"
        "from inspector.commands import main\n"
        "sys.exit(main(sys.argv[1:]))\n"
    )
    done = subprocess.run(
        [
            PY,
            "-c",
            code,
            "--cli",
            "--otlp-endpoint",
            "http://127.0.0.1:9",
            "--method",
            "tools/list",
            "--",
            *DEMO,
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2, done.stderr
    assert "pip install 'mcp-inspect[otel]'" in done.stderr
    assert "Traceback" not in done.stderr


def test_proxy_sends_the_spans_of_its_wire(tmp_path: Path) -> None:
    from proxy_support import start_proxy

    path = tmp_path / "proxy.jsonl"
    with otlp_receiver() as (url, bodies):
        proxy = start_proxy(
            "--no-attach", "--record", str(path), "--otlp-endpoint", url, "--", *DEMO
        )
        assert proxy.stdin is not None and proxy.stdout is not None
        for line in (
            b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":'
            b'"2025-06-18","capabilities":{},"clientInfo":{"name":"h","version":"1"}}}\n',
            b'{"jsonrpc":"2.0","id":2,"method":"tools/list"}\n',
        ):
            proxy.stdin.write(line)
            proxy.stdin.flush()
            assert json.loads(proxy.stdout.readline())["id"] == json.loads(line)["id"]
        proxy.stdin.close()
        assert proxy.wait(timeout=60) == 0
        stderr = proxy.stderr.read().decode() if proxy.stderr else ""
        proxy.stdout.close()
        if proxy.stderr:
            proxy.stderr.close()
        assert "warning" not in stderr, stderr
        live = live_facts(bodies)
    assert live == export_facts(path)
    assert {"initialize", "tools/list", "mcp.client.session"} <= {s["name"] for s in live.values()}


def test_the_event_path_never_waits_on_a_slow_collector(tmp_path: Path) -> None:
    """Spans are queued for the SDK's thread: while the collector takes seconds to answer
    a batch, a whole session's events still go through the observer at once."""
    path = tmp_path / "s.jsonl"
    done = cli_inprocess("--cli", "--record", str(path), "--method", "tools/list", "--", *DEMO)
    assert done.returncode == 0, done.stderr
    header, events = open_header(path), list(iter_events(path, []))
    posting = threading.Event()
    warnings: list[str] = []
    with otlp_receiver(delay=2.0, posting=posting) as (url, bodies):
        export = LiveExport(TraceOptions(url), warnings.append)
        first = export.session(header)
        for event in events:
            first.observe(event)
        first.finish()
        assert posting.wait(10)  # the first batch is being sent, slowly
        header.started += "+1"  # another session, another trace
        second = export.session(header)
        started = time.monotonic()
        for event in events:
            second.observe(event)
        second.finish()
        assert time.monotonic() - started < 0.5
        export.close()  # waits for the slow collector: every span arrives
        received = live_facts(bodies)
    assert not warnings
    assert len(received) == 2 * len(export_facts(path))


def test_a_full_queue_drops_spans_and_says_so_once(tmp_path: Path) -> None:
    """The queue is bounded: spans past it while the collector is slow are dropped, and
    the loss is one warning at the end (the SDK's own log line silenced)."""
    from inspector.export.otlp_sdk import SpanSender, otlp_http_exporter

    path = tmp_path / "s.jsonl"
    done = cli_inprocess("--cli", "--record", str(path), "--method", "tools/list", "--", *DEMO)
    assert done.returncode == 0, done.stderr
    header, events = open_header(path), list(iter_events(path, []))
    warnings: list[str] = []
    with otlp_receiver(delay=0.5) as (url, bodies):
        sender = SpanSender(otlp_http_exporter(url), max_queue_size=2, schedule_delay_millis=10)
        export = LiveExport(TraceOptions(url), warnings.append, sender=sender)
        for n in range(5):
            header.started += str(n)
            trace = export.session(header)
            for event in events:
                trace.observe(event)
            trace.finish()
        export.close()
        received = live_facts(bodies)
    assert 0 < len(received) < sender.handed
    assert len(warnings) == 1 and "were not sent" in warnings[0]


@pytest.mark.slow
def test_a_session_started_inside_a_trace_joins_it(tmp_path: Path) -> None:
    """TRACEPARENT/TRACESTATE in the environment (OpenTelemetry's carriers, set by a
    traced CI job): the session's root hangs from that span, the requests carry its
    tracestate, and the file keeps them so its export agrees."""
    path = tmp_path / "ci.jsonl"
    outer_trace, outer_span = "0af7651916cd43dd8448eb211c80319c", "b7ad6b7169203331"
    env = {
        **os.environ,
        "TRACEPARENT": f"00-{outer_trace}-{outer_span}-01",
        "TRACESTATE": "vendor=ci",
    }
    with otlp_receiver() as (url, bodies):
        done = cli_inprocess(
            "--cli",
            "--propagate",
            "--record",
            str(path),
            "--otlp-endpoint",
            url,
            "--method",
            "tools/call",
            "--tool-name",
            "traced",
            "--",
            *TRACE_SERVER,
            env=env,
        )
        assert done.returncode == 0, done.stderr
        live = live_facts(bodies)
    seen = json.loads(json.loads(done.stdout)["content"][0]["text"])
    assert seen["traceparent"].split("-")[1] == outer_trace
    assert seen["tracestate"] == "vendor=ci"
    root = next(s for s in live.values() if s["name"] == "mcp.client.session")
    assert (root["trace"], root["parent"]) == (outer_trace, outer_span)
    assert {s["trace"] for s in live.values()} == {outer_trace}
    assert live == export_facts(path)
