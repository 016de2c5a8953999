"""Helpers for the proxy tests: start ``mcp-inspect proxy`` as a host would, read recordings."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import anyio
from cli_runner import inspector_argv
from paths import DEMO, ROOT
from processes import line_with

from inspector.engine.responders import Responders, fixed_sampling
from inspector.engine.session import Session
from inspector.proxy.attach import AttachTransport, live_proxies, pick_proxy
from inspector.transports.stdio import StdioTransport
from inspector.wire.events import WireEvent

# A host's first request, as the front tests send it (one home for the three files).
INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "t", "version": "0"},
    },
}


def proxy_argv(*args: str) -> list[str]:
    """The command line a host would put in its config to run a server through the proxy."""
    return inspector_argv("proxy", *args)


def proxy_env(runtime: Path | None = None) -> dict[str, str]:
    env = dict(os.environ)
    if runtime is not None:
        env["MCP_INSPECT_RUNTIME_DIR"] = str(runtime)
    return env


def start_proxy(*args: str, runtime: Path | None = None, **kw: Any) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        proxy_argv(*args),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=kw.pop("stderr", subprocess.PIPE),
        env=proxy_env(runtime),
        cwd=str(ROOT),
        **kw,
    )


def events(path: Path) -> list[dict[str, Any]]:
    """The event lines of a session file (the header left out)."""
    lines = path.read_bytes().splitlines()
    return [json.loads(line) for line in lines[1:] if line.strip()]


def raw_of(event: dict[str, Any]) -> bytes:
    if "raw_b64" in event:
        import base64

        return base64.b64decode(event["raw_b64"])
    return str(event["raw"]).encode("utf-8")


def wait_until(predicate: Any, timeout: float = 20.0, what: str = "condition") -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


def read_to_end(stream: Any, timeout: float = 30.0) -> bytes:
    """Everything a pipe gives until its end, bounded (a thread reads; stdin stays open)."""
    import threading

    chunks: list[bytes] = []
    reader = threading.Thread(target=lambda: chunks.append(stream.read()), daemon=True)
    reader.start()
    reader.join(timeout)
    if reader.is_alive():
        raise AssertionError(f"no end of stream within {timeout} s")
    return b"".join(chunks)


# -- a host on a proxy, and inspectors attached to it (in process) ----------------------


@contextlib.contextmanager
def runtime_folder() -> Iterator[Path]:
    """A short private runtime folder for attach sockets (their paths must stay short),
    set in ``MCP_INSPECT_RUNTIME_DIR`` for this process and the proxies it starts."""
    folder = Path(tempfile.mkdtemp(prefix="mi-"))
    old = os.environ.get("MCP_INSPECT_RUNTIME_DIR")
    os.environ["MCP_INSPECT_RUNTIME_DIR"] = str(folder)
    try:
        yield folder
    finally:
        if old is None:
            del os.environ["MCP_INSPECT_RUNTIME_DIR"]
        else:
            os.environ["MCP_INSPECT_RUNTIME_DIR"] = old
        shutil.rmtree(folder, ignore_errors=True)


@contextlib.asynccontextmanager
async def host_through_proxy(
    runtime: Path,
    record: Path,
    events_seen: list[WireEvent],
    name: str = "demo",
    server: list[str] | None = None,
) -> AsyncIterator[Session]:
    """The host: a session whose stdio server is the proxy in front of the demo server."""
    argv = proxy_argv("--name", name, "--record", str(record), "--", *(server or DEMO))
    transport = StdioTransport(argv[0], argv[1:], env={"MCP_INSPECT_RUNTIME_DIR": str(runtime)})
    responders = Responders(sampling=fixed_sampling("answered by the host"))
    async with Session(transport, responders=responders, timeout=30) as session:
        session.add_observer(events_seen.append)
        await session.initialize()
        yield session


async def wait_for_proxy(name: str) -> Path:
    with anyio.fail_after(20):
        while True:
            found = [p for p in await live_proxies() if p.name == name]
            if found:
                return pick_proxy(found, name).path
            await anyio.sleep(0.05)


@contextlib.asynccontextmanager
async def inspector_on(path: Path, seen: list[WireEvent]) -> AsyncIterator[Session]:
    responders = Responders(sampling=fixed_sampling("answered by the inspector"))
    async with Session(AttachTransport(path), responders=responders, timeout=30) as session:
        session.add_observer(seen.append)
        await session.initialize()
        yield session


@contextlib.contextmanager
def listening_proxy(
    *args: str, runtime: Path | None = None, token: bool = False, **kw: Any
) -> Iterator[tuple[Any, str]]:
    """``proxy --listen 127.0.0.1:0 ARGS``: yields (process, endpoint URL); stopped with
    SIGTERM at the end (its servers shut down). Without ``token``, ``--no-auth-front``
    (the hosts of most tests send no token; those of the token's tests do)."""

    quiet = () if "--record" in args else ("--no-record",)  # no files in the user's state
    auth = () if token else ("--no-auth-front",)
    proc = start_proxy("--listen", "127.0.0.1:0", *quiet, *auth, *args, runtime=runtime, **kw)
    assert proc.stderr is not None
    line, seen = line_with(proc.stderr, b"listening on ", 30)
    url = line.decode().split("listening on ", 1)[1].strip() if line else ""
    proc.said = seen  # type: ignore[attr-defined]  # stderr up to "listening on"
    if not url:
        proc.kill()
        raise AssertionError(f"the proxy did not listen: {seen.decode(errors='replace')}")
    try:
        yield proc, url
    finally:
        proc.terminate()
        try:
            proc.wait(20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)
        for stream in (proc.stdin, proc.stdout, proc.stderr):
            if stream is not None:
                stream.close()


def inspector_cli(tmp_path: Path, *args: str) -> Any:
    """The official Inspector's CLI, one call; its JSON output."""
    from tests.official_inspector import official_cli

    done = official_cli(tmp_path, *args)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout)
