"""Run ``stateless_server.py`` over HTTP for the stateless-era tests."""

from __future__ import annotations

import contextlib
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

from servers.http_support import _read_port

SERVER = Path(__file__).resolve().parent / "stateless_server.py"


@contextlib.contextmanager
def stateless_server(mode: str) -> Iterator[str]:
    """Run the stateless SDK server in ``mode`` (http | http-json); yields its endpoint."""
    with tempfile.NamedTemporaryFile(prefix="stateless-", suffix=".log", delete=False) as log:
        log_path = Path(log.name)
    with log_path.open("wb") as err:
        proc = subprocess.Popen([sys.executable, "-W", "ignore", str(SERVER), mode],
                                stdout=subprocess.PIPE, stderr=err)
    try:
        yield f"http://127.0.0.1:{_read_port(proc, log_path, 30)}/mcp"
    finally:
        proc.terminate()
        try:
            proc.wait(5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)
        if proc.stdout is not None:
            proc.stdout.close()
        log_path.unlink(missing_ok=True)
