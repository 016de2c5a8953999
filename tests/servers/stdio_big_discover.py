"""A handshake-era stdio server whose ``server/discover`` answer is huge: 200,000
``supportedVersions`` (none of them one mcp-inspect speaks) and 2 MB of padding, as a
hostile server would send to swell the client's notes. ``initialize`` and ``ping`` are
answered plainly.
"""

from __future__ import annotations

import json
import sys

for line in sys.stdin:
    msg = json.loads(line)
    if "id" not in msg or "method" not in msg:
        continue
    method = msg["method"]
    result: dict[str, object] = {}
    if method == "server/discover":
        versions = [f"v{i:07d}" for i in range(200_000)]
        result = {"supportedVersions": versions, "padding": "x" * 2_000_000}
    elif method == "initialize":
        result = {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "serverInfo": {"name": "big-discover", "version": "1"},
        }
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": msg["id"], "result": result}) + "\n")
    sys.stdout.flush()
