"""``mcp-inspect export``: real recordings (the demo over stdio, an official-SDK server
over Streamable HTTP with SSE) out as OTLP spans, HAR, Markdown and JSON, and a HAR back in.

The spans are checked against the MCP semantic conventions' names and links through the
OpenTelemetry SDK's in-memory exporter and through an OTLP/HTTP receiver started here.
The command runs in the test process; ``test_export_is_deterministic...`` runs it as a
child process, end to end."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from cli_inprocess import cli_inprocess
from cli_runner import cli
from paths import DATA, DEMO

from inspector.export.http_exchanges import group_exchanges
from inspector.export.otlp_sdk import send_spans
from inspector.export.spans import SpanKind, session_spans
from inspector.record.reader import iter_events, open_header, read_session
from tests.export.otlp_receiver import otlp_receiver, received_spans
from tests.servers.http_support import dead_port


def record(tmp: Path, name: str, *args: str, code: int = 0) -> Path:
    path = tmp / f"{name}.jsonl"
    done = cli_inprocess("--cli", "--record", str(path), *args)
    assert done.returncode == code, done.stderr
    return path


@pytest.fixture(scope="module")
def recordings(tmp_path_factory: pytest.TempPathFactory, sdk_sse_base: str) -> dict[str, Path]:
    """One recording of each shape, made once for the module."""
    tmp = tmp_path_factory.mktemp("recordings")
    paths = {
        # progress notifications about a call
        "progress": record(
            tmp,
            "progress",
            "--method",
            "tools/call",
            "--tool-name",
            "slow_count",
            "--tool-arg",
            "seconds=0.2",
            "--tool-arg",
            "steps=3",
            "--",
            *DEMO,
        ),
        # a JSON-RPC error: the server refuses an unknown prompt (exit 4)
        "error": record(
            tmp,
            "error",
            "--method",
            "prompts/get",
            "--prompt-name",
            "no_such_prompt",
            "--",
            *DEMO,
            code=4,
        ),
    }
    base = sdk_sse_base  # the worker's shared server (conftest)
    paths["http"] = record(
        tmp,
        "http",
        "--method",
        "tools/call",
        "--tool-name",
        "progress_steps",
        "--tool-arg",
        "steps=2",
        f"{base}/mcp",
    )
    return paths


def spans_of(path: Path) -> list[Any]:
    return list(session_spans(open_header(path), iter_events(path)))


@pytest.mark.slow
def test_progress_call_is_a_client_span_with_progress_events(recordings: dict[str, Path]) -> None:
    spans = spans_of(recordings["progress"])
    root = spans[-1]
    assert root.name == "mcp.client.session" and root.parent_id is None
    assert {s.trace_id for s in spans} == {root.trace_id}
    call = next(s for s in spans if s.name == "tools/call slow_count")
    assert call.kind is SpanKind.CLIENT
    assert call.parent_id == root.span_id
    attrs = call.attributes
    assert attrs["mcp.method.name"] == "tools/call"
    assert attrs["gen_ai.tool.name"] == "slow_count"
    assert attrs["gen_ai.operation.name"] == "execute_tool"
    assert attrs["network.transport"] == "pipe"
    assert attrs["mcp.protocol.version"]
    assert isinstance(attrs["jsonrpc.request.id"], str)
    assert [e.name for e in call.events] == ["progress"] * 3
    assert call.events[-1].attributes["mcp.progress"] == 3
    assert call.start_ns <= call.events[0].time_ns <= call.end_ns
    assert call.end_ns - call.start_ns >= 150_000_000  # it took the 0.2 s it was asked to
    # the handshake and the notification after it: one span each
    names = [s.name for s in spans]
    assert "initialize" in names or "server/discover" in names
    initialized = [s for s in spans if s.name == "notifications/initialized"]
    assert all(s.kind is SpanKind.CLIENT for s in initialized)


def test_jsonrpc_error_sets_error_type_and_status(recordings: dict[str, Path]) -> None:
    spans = spans_of(recordings["error"])
    get = next(s for s in spans if s.attributes.get("mcp.method.name") == "prompts/get")
    assert get.name == "prompts/get no_such_prompt"
    assert get.attributes["gen_ai.prompt.name"] == "no_such_prompt"
    code = get.attributes["error.type"]
    assert code == get.attributes["rpc.response.status_code"]
    assert int(str(code)) < 0
    assert get.status == 2 and get.status_message


def test_http_exchanges_hang_beneath_their_mcp_span(recordings: dict[str, Path]) -> None:
    spans = spans_of(recordings["http"])
    by_id = {s.span_id: s for s in spans}
    call = next(s for s in spans if s.name == "tools/call progress_steps")
    assert call.attributes["network.transport"] == "tcp"
    assert call.attributes["server.address"] == "127.0.0.1"
    assert [e.name for e in call.events] == ["progress", "progress"]
    posts = [s for s in spans if s.parent_id == call.span_id]
    assert len(posts) == 1
    post = posts[0]
    assert post.name == "POST" and post.kind is SpanKind.CLIENT
    assert post.attributes["http.request.method"] == "POST"
    assert str(post.attributes["url.full"]).endswith("/mcp")
    assert post.attributes["http.response.status_code"] == 200
    assert [e.name for e in post.events] == ["sse", "sse", "sse"]  # 2 progress + the answer
    assert call.start_ns <= post.start_ns  # the child starts within its parent
    # every parent exists in the same trace
    for span in spans:
        assert span.parent_id is None or span.parent_id in by_id


def test_spans_through_the_sdk_keep_ids_times_and_parents(recordings: dict[str, Path]) -> None:
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    ours = spans_of(recordings["http"])
    memory = InMemorySpanExporter()
    assert send_spans(iter(ours), memory) == len(ours)
    got = {format(s.context.span_id, "016x"): s for s in memory.get_finished_spans()}
    assert set(got) == {s.span_id for s in ours}
    for span in ours:
        sdk = got[span.span_id]
        assert sdk.name == span.name
        assert format(sdk.context.trace_id, "032x") == span.trace_id
        assert (format(sdk.parent.span_id, "016x") if sdk.parent else None) == span.parent_id
        assert (sdk.start_time, sdk.end_time) == (span.start_ns, span.end_ns)
        assert dict(sdk.attributes or {}) == span.attributes
        assert sdk.resource.attributes["service.name"] == "mcp-inspect"


def test_export_is_deterministic_and_otlp_json_is_well_formed(
    recordings: dict[str, Path], tmp_path: Path
) -> None:
    out = tmp_path / "spans.json"
    done = cli("export", str(recordings["http"]), "--format", "otlp", "--output", str(out))
    assert done.returncode == 0, done.stderr
    again = cli("export", str(recordings["http"]), "--format", "otlp")
    assert again.stdout == out.read_text()
    assert (out.stat().st_mode & 0o777) == 0o600
    lines = out.read_text().splitlines()
    spans = [
        s for line in lines for s in json.loads(line)["resourceSpans"][0]["scopeSpans"][0]["spans"]
    ]
    assert f"wrote {len(spans)} spans" in done.stderr
    for span in spans:
        assert len(span["traceId"]) == 32 and len(span["spanId"]) == 16
        assert int(span["startTimeUnixNano"]) <= int(span["endTimeUnixNano"])
        # the recording's microseconds, exactly (a float product leaves ...128 in the tail)
        assert int(span["startTimeUnixNano"]) % 1000 == 0
        assert span["kind"] in (1, 2, 3)


@pytest.fixture
def receiver() -> Iterator[tuple[str, list[bytes]]]:
    with otlp_receiver() as got:
        yield got


def test_otlp_endpoint_receives_the_trace(
    recordings: dict[str, Path], receiver: tuple[str, list[bytes]]
) -> None:
    url, bodies = receiver
    done = cli_inprocess("export", str(recordings["progress"]), "--otlp-endpoint", url)
    assert done.returncode == 0, done.stderr
    names = [span.name for span in received_spans(bodies)]
    assert "tools/call slow_count" in names and "mcp.client.session" in names
    assert f"sent {len(names)} spans" in done.stderr


def test_otlp_endpoint_down_is_a_clear_exit_3(recordings: dict[str, Path]) -> None:
    port = dead_port()
    done = cli_inprocess(
        "export",
        str(recordings["error"]),
        "--otlp-endpoint",
        f"http://127.0.0.1:{port}",
        timeout=90,
    )
    assert done.returncode == 3, done.stderr
    assert "collector" in done.stderr and "Traceback" not in done.stderr


HAR_ENTRY_KEYS = {"startedDateTime", "time", "request", "response", "cache", "timings"}
HAR_REQUEST_KEYS = {
    "method",
    "url",
    "httpVersion",
    "cookies",
    "headers",
    "queryString",
    "headersSize",
    "bodySize",
}
HAR_RESPONSE_KEYS = {
    "status",
    "statusText",
    "httpVersion",
    "cookies",
    "headers",
    "content",
    "redirectURL",
    "headersSize",
    "bodySize",
}


def test_har_has_every_exchange_and_the_har_structure(
    recordings: dict[str, Path], tmp_path: Path
) -> None:
    out = tmp_path / "s.har"
    done = cli_inprocess(
        "export", str(recordings["http"]), "--output", str(out)
    )  # format from suffix
    assert done.returncode == 0, done.stderr
    har = json.loads(out.read_text())["log"]
    assert har["version"] == "1.2" and har["creator"]["name"] == "mcp-inspect"
    entries = har["entries"]
    expected = list(group_exchanges(iter_events(recordings["http"])))
    assert len(entries) == len(expected) >= 3
    for entry in entries:
        assert entry.keys() >= HAR_ENTRY_KEYS
        assert entry["request"].keys() >= HAR_REQUEST_KEYS
        assert entry["response"].keys() >= HAR_RESPONSE_KEYS
        assert {"send", "wait", "receive"} <= entry["timings"].keys()
        assert entry["time"] >= 0
        json.loads(entry["request"]["postData"]["text"])  # the posted JSON-RPC message
    stream = next(e for e in entries if e["response"]["content"]["mimeType"] == "text/event-stream")
    text = stream["response"]["content"]["text"]
    assert text.count("data: ") == 3 and '"method":"notifications/progress"' in text
    assert '"result"' in text.split("data: ")[-1]


def test_har_reimported_replays_the_same_calls(recordings: dict[str, Path], tmp_path: Path) -> None:
    out = tmp_path / "s.har"
    assert cli_inprocess("export", str(recordings["http"]), "-o", str(out)).returncode == 0
    done = cli_inprocess("--cli", "replay", str(out))
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    assert summary["methods"] == {"tools/list": 1, "tools/call": 1}
    assert summary["answered"] == summary["requests"] == 2
    original = json.loads(cli_inprocess("--cli", "replay", str(recordings["http"])).stdout)
    assert summary["methods"] == original["methods"]


def test_har_import_masks_credentials_and_refuses_non_har(tmp_path: Path) -> None:
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
    answer = {"jsonrpc": "2.0", "id": 1, "result": {"tools": []}}
    har = {
        "log": {
            "version": "1.2",
            "creator": {"name": "devtools"},
            "entries": [
                {
                    "startedDateTime": "2026-11-28T10:00:00.000Z",
                    "time": 12,
                    "request": {
                        "method": "POST",
                        "url": "https://example.test/mcp",
                        "headers": [
                            {"name": "Authorization", "value": "Bearer sekrit-token-123"},
                            {"name": "Content-Type", "value": "application/json"},
                        ],
                        "postData": {"mimeType": "application/json", "text": json.dumps(body)},
                    },
                    "response": {
                        "status": 200,
                        "statusText": "OK",
                        "headers": [{"name": "Content-Type", "value": "text/event-stream"}],
                        "content": {
                            "mimeType": "text/event-stream",
                            "text": "id: 7\nevent: message\ndata: " + json.dumps(answer) + "\n\n",
                        },
                    },
                    "timings": {"send": 1, "wait": 10, "receive": 1},
                },
                {
                    "startedDateTime": "2026-11-28T10:00:00.000Z",
                    "time": 3,
                    "request": {
                        "method": "GET",
                        "url": "https://example.test/app.js",
                        "headers": [],
                    },
                    "response": {
                        "status": 200,
                        "content": {"mimeType": "text/javascript", "text": "x"},
                    },
                },
            ],
        }
    }
    path = tmp_path / "devtools.har"
    path.write_text(json.dumps(har))
    out = tmp_path / "back.json"
    done = cli_inprocess("--cli", "replay", str(path))
    assert done.returncode == 0, done.stderr
    assert "1 other entries left out" in done.stderr
    assert json.loads(done.stdout)["methods"] == {"tools/list": 1}
    # what replay reads is the session the export of it shows: the token masked, the SSE id kept
    from inspector.export.har_import import read_har, write_session

    session = write_session(read_har(path), tmp_path / "s.jsonl", path)
    text = session.read_text()
    assert "sekrit-token-123" not in text
    events = read_session(session).events
    sse = [e for e in events if e.channel.value == "sse"]
    assert sse[0].meta["event_id"] == "7" and sse[0].message == answer
    assert cli_inprocess("export", str(session), "--format", "json", "-o", str(out)).returncode == 0
    assert len(json.loads(out.read_text())) == len(events)
    bad = tmp_path / "bad.har"
    bad.write_text('{"log": {}}')
    refused = cli_inprocess("replay", str(bad))
    assert refused.returncode == 2 and "no log.entries" in refused.stderr


def test_markdown_transcript_is_pinned() -> None:
    session = DATA / "demo-session.jsonl"
    done = cli_inprocess(
        "export", str(session), "--format", "markdown", "--filter", "method:tools/call"
    )
    assert done.returncode == 0, done.stderr
    expected = (Path(__file__).parent / "demo-session.tools-call.md").read_text()
    assert done.stdout == expected


def test_markdown_keeps_server_text_inside_its_fence(tmp_path: Path) -> None:
    from inspector.export.markdown import write_markdown
    from inspector.record.format import SessionHeader
    from inspector.wire.events import Channel, Direction
    from inspector.wire.jsonrpc import make_event

    hostile = "```\n# injected heading\n\x1b]0;pwned\x07"
    events = [
        make_event(
            Direction.IN,
            Channel.STDOUT,
            json.dumps(
                {
                    "jsonrpc": "2.0",
                    "id": 1,
                    "result": {"content": [{"type": "text", "text": hostile}]},
                }
            ).encode(),
        ),
        make_event(Direction.IN, Channel.STDERR, hostile.encode()),
    ]
    import io

    out = io.StringIO()
    write_markdown(SessionHeader(target={"describe": "x"}), events, out)
    text = out.getvalue()
    assert "\x1b" not in text and "\x07" not in text
    # read as a Markdown renderer reads it: the server's text stays inside code blocks
    from markdown_it import MarkdownIt

    tokens = MarkdownIt().parse(text)
    headings = [t for t in tokens if t.type == "heading_open"]
    assert len(headings) == 1  # the transcript's own title, nothing injected
    fences = [t.content for t in tokens if t.type == "fence"]
    assert any("# injected heading" in f and "```" in f for f in fences)
    assert sum("# injected heading" in f for f in fences) == 2  # the result and the stderr


def test_json_array_with_filter_and_bad_input(recordings: dict[str, Path], tmp_path: Path) -> None:
    done = cli_inprocess(
        "export", str(recordings["error"]), "--format", "json", "--filter", "is:error"
    )
    assert done.returncode == 0, done.stderr
    rows = json.loads(done.stdout)
    assert rows and all("error" in r["message"] for r in rows)
    assert (
        cli_inprocess("export", str(tmp_path / "missing.jsonl"), "--format", "json").returncode == 2
    )
    vague = cli_inprocess("export", str(recordings["error"]))
    assert vague.returncode == 2 and "--format" in vague.stderr
    typo = cli_inprocess(
        "export", str(recordings["error"]), "--format", "json", "--filter", "knd:error"
    )
    assert typo.returncode == 2 and "knd" in typo.stderr
