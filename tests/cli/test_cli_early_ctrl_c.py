"""ctrl+c while the command line is still loading its modules (its first 0.3 s or so):
exit 130 and no traceback, as a ctrl+c later does - both for ``python -m inspector`` and
for the ``mcp-inspect`` script (pip's script imports the entry point, then calls it)."""

from __future__ import annotations

import re
import selectors
import signal
import subprocess
import time
import tomllib

import pytest
from paths import PY, ROOT, SERVERS
from processes import default_sigint

# -X importtime prints a line to stderr as each import ends: one of the package's own
# modules (not the entry module itself) means the CLI is loading them now
LOADING = re.compile(rb"\|\s+inspector\.(?!__main__\b)\w")


def script_entry() -> list[str]:
    """What pip's ``mcp-inspect`` script runs: the entry point pyproject names."""
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    module, function = scripts["mcp-inspect"].split(":")
    return ["-c", f"import sys; from {module} import {function}; sys.exit({function}())"]


def wait_for_loading(cli: subprocess.Popen[bytes], timeout: float = 30) -> bytes:
    """Read the CLI's stderr until it is importing the package's modules (bounded)."""
    assert cli.stderr is not None
    seen = b""
    deadline = time.monotonic() + timeout
    with selectors.DefaultSelector() as selector:
        selector.register(cli.stderr, selectors.EVENT_READ)
        while not LOADING.search(seen):
            left = deadline - time.monotonic()
            assert left > 0, "the CLI never started loading its modules"
            if selector.select(left):
                chunk = cli.stderr.read1(65536)  # type: ignore[attr-defined]
                assert chunk, f"the CLI ended first: {seen.decode(errors='replace')}"
                seen += chunk
    return seen


@pytest.mark.parametrize("entry", [["-m", "inspector"], script_entry()], ids=["-m", "script"])
def test_ctrl_c_while_the_cli_loads_exits_130_quietly(entry: list[str]) -> None:
    server = [PY, str(SERVERS / "stdio_misbehave.py"), "hang"]
    cli = subprocess.Popen(
        [PY, "-X", "importtime", *entry, "--cli", "--method", "tools/list", "--", *server],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=ROOT,
        preexec_fn=default_sigint,  # ctrl+c as in a terminal
    )
    try:
        seen = wait_for_loading(cli)
        cli.send_signal(signal.SIGINT)
        _, rest = cli.communicate(timeout=30)
    finally:
        if cli.poll() is None:
            cli.kill()
            cli.wait(10)
    stderr = (seen + rest).decode(errors="replace")
    assert cli.returncode == 130, stderr[-2000:]
    assert "Traceback" not in stderr and "KeyboardInterrupt" not in stderr
