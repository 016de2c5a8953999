"""Record tests/data/demo-session.jsonl: a short session with the demo server, made stable.

    python tests/data/make_demo_session.py

The snapshot tests replay this file, so everything that differs from run to run is
rewritten: times become constant steps, the interpreter path and the pid fixed words.
Run it again only when the demo server or the format changes (then update the
snapshots with ``pytest tests/tui/test_snapshots.py --snapshot-update``).
"""

from __future__ import annotations

import contextlib
import json
import re
import sys
import tempfile
from pathlib import Path
from typing import Any

import anyio

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from inspector.engine.client import McpClient  # noqa: E402
from inspector.engine.session import Session  # noqa: E402
from inspector.record.format import Redactor, SessionHeader  # noqa: E402
from inspector.record.recorder import Recorder  # noqa: E402
from inspector.target import build_transport, demo_target, target_info  # noqa: E402
from inspector.wire.jsonrpc import RpcError  # noqa: E402

OUT = Path(__file__).with_name("demo-session.jsonl")
T0 = 1_795_000_000.0  # 2026-11-18T11:06:40Z
STEP = 0.005  # seconds between two events


async def record(path: Path) -> None:
    target = demo_target()
    recorder = Recorder(path, SessionHeader(target=target_info(target)), Redactor([]))
    try:
        async with Session(build_transport(target), recorder=recorder, timeout=30) as session:
            await session.initialize()
            client = McpClient(session)
            await client.list_tools()
            await client.list_resources()
            await client.list_resource_templates()
            await client.list_prompts()
            await client.call_tool("get_weather", {"city": "Lisbon", "units": "metric"})
            await client.call_tool("add", {"a": 2, "b": 40})
            await client.call_tool("divide", {"dividend": 1, "divisor": 0})
            with contextlib.suppress(RpcError):  # recorded: a JSON-RPC error response
                await client.call_tool("raise_error", {})
            await client.read_resource("demo://readme")
            await client.get_prompt("greeting", {"name": "Ada"})
    finally:
        recorder.close()


def stabilize(text: str, python: str) -> str:
    """Fixed times, no interpreter path, no pid: the same file on every machine."""
    lines = text.splitlines()
    header: dict[str, Any] = json.loads(lines[0])
    header["started"] = "2026-11-18T11:06:40+00:00"
    header["tool"] = "mcp-inspect"
    out = [json.dumps(header, ensure_ascii=False)]
    for n, line in enumerate(lines[1:]):
        event: dict[str, Any] = json.loads(line)
        event["t"] = round(T0 + n * STEP, 6)
        event["mono"] = round(100.0 + n * STEP, 6)
        if isinstance(event.get("meta"), dict) and "pid" in event["meta"]:
            event["meta"]["pid"] = 4242
        out.append(json.dumps(event, ensure_ascii=False))
    joined = "\n".join(out) + "\n"
    joined = joined.replace(json.dumps(python)[1:-1], "python")
    joined = re.sub(
        r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z", "2026-11-18T11:06:40.000Z", joined
    )  # the demo's lastModified stamps
    return re.sub(r"pid \d+", "pid 4242", joined)


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        raw = Path(tmp) / "raw.jsonl"
        anyio.run(record, raw)
        OUT.write_text(stabilize(raw.read_text(encoding="utf-8"), sys.executable), encoding="utf-8")
    print(f"wrote {OUT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
