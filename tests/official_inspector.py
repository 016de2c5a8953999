"""The official MCP Inspector (npm ``@modelcontextprotocol/inspector``), pinned, and its CLI.

    from tests.official_inspector import official_cli
    done = official_cli(tmp_path, "node", "build/index.js", "--method", "tools/list")

One pin for every test that runs it (installed by :mod:`tests.npm_packages` on first use).
Its home (catalog, OAuth state, secrets) is the test's folder, never the user's.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from paths import ROOT

INSPECTOR = "@modelcontextprotocol/inspector"
INSPECTOR_VERSION = "2.12.0"  # pinned: the CLI whose order, output and exit codes we compare


def official_cli(home: Path, *args: str, timeout: float = 180) -> subprocess.CompletedProcess[str]:
    """``npx @modelcontextprotocol/inspector --cli ARGS...``, run with the wheel's node."""
    from tests.npm_packages import NODE, bin_entry, npm_env

    env = npm_env()
    env["HOME"] = str(home)
    env["MCP_STORAGE_DIR"] = str(home / "storage")
    env["MCP_INSPECTOR_OAUTH_STATE_PATH"] = str(home / "storage" / "oauth.json")
    env["MCP_INSPECTOR_SECRET_STORE"] = "memory"  # no keychain, no secrets file
    entry = bin_entry(INSPECTOR, INSPECTOR_VERSION, "mcp-inspector")
    return subprocess.run(
        [str(NODE), str(entry), "--cli", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
        cwd=str(ROOT),
        check=False,
    )
