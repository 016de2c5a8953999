"""stdio transport against real peers: an official-SDK server and misbehaving scripts."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import textwrap
import time
from pathlib import Path
from typing import Any

import anyio
import pytest
from paths import PY, ROOT, SERVERS
from processes import alive, default_sigint

from inspector.engine.client import McpClient
from inspector.engine.session import ConnectionClosedError, RequestTimeoutError, Session
from inspector.transports.stdio import StdioTransport
from inspector.wire.events import Channel, Direction, Kind, WireEvent
from inspector.wire.transport import TransportError


def misbehave(mode: str, **kw: Any) -> StdioTransport:
    return StdioTransport(PY, [str(SERVERS / "stdio_misbehave.py"), mode], **kw)


async def open_session(transport: StdioTransport, events: list[WireEvent], **kw: Any) -> Session:
    session = Session(transport, **kw)
    session.add_observer(events.append)
    return session


@pytest.mark.slow
async def test_sdk_server_over_stdio() -> None:
    events: list[WireEvent] = []
    transport = StdioTransport(PY, [str(SERVERS / "sdk_stdio_server.py")])
    with anyio.fail_after(30):
        async with await open_session(transport, events) as session:
            await session.initialize()
            client = McpClient(session)
            tools = await client.list_tools()
            assert {t["name"] for t in tools} >= {"add", "progress_steps"}
            result = await client.call_tool("add", {"a": 2, "b": 40})
            assert result["content"][0]["text"] == "42"
            steps: list[float] = []
            result = await client.call_tool(
                "progress_steps", {"steps": 3}, on_progress=lambda p, t, m: steps.append(p)
            )
            assert steps == [1, 2, 3]
            read = await client.read_resource("sdk://greeting")
            assert read["contents"][0]["text"] == "hello from the SDK"
            prompt = await client.get_prompt("review", {"code": "x=1"})
            assert "x=1" in prompt["messages"][0]["content"]["text"]
            assert await client.ping() == {}
    assert session.server_info["name"] == "sdk-test-server"
    assert transport.process is not None and transport.process.returncode is not None
    out = [e for e in events if e.channel is Channel.STDIN]
    assert out[0].message["method"] == "initialize"
    assert all(
        not e.findings
        for e in events
        if e.direction is Direction.IN and e.channel is Channel.STDOUT
    )


async def test_non_json_and_invalid_utf8_lines_are_events_not_fatal() -> None:
    events: list[WireEvent] = []
    with anyio.fail_after(15):
        async with await open_session(misbehave("garbage"), events) as session:
            await session.initialize()
            assert await session.request("tools/list") == {"ok": True}
    stdout = [e for e in events if e.channel is Channel.STDOUT]
    invalid = [e for e in stdout if e.kind is Kind.INVALID]
    assert invalid[0].raw == b"Server starting... not JSON"
    assert invalid[1].raw == b"\xff\xfe broken utf-8 \xc3"
    assert "invalid UTF-8" in (invalid[1].error or "")


async def test_huge_line() -> None:
    events: list[WireEvent] = []
    with anyio.fail_after(30):
        async with await open_session(misbehave("huge"), events) as session:
            await session.initialize()
            result = await session.request("tools/call", {"name": "x"})
    assert len(result["content"][0]["text"]) == 5_000_000


async def test_crash_mid_request_fails_at_once_with_exit_code_and_stderr() -> None:
    events: list[WireEvent] = []
    with anyio.fail_after(15):
        async with await open_session(misbehave("crash"), events, timeout=60) as session:
            await session.initialize()
            start = time.monotonic()
            with pytest.raises(ConnectionClosedError) as info:
                await session.request("tools/call", {"name": "x"})
            assert time.monotonic() - start < 5
    text = str(info.value)
    assert "exit code 3" in text and "RuntimeError: boom" in text
    assert any(e.channel is Channel.STDERR and b"boom" in e.raw for e in events)


async def test_exit_at_once_reports_exit_code_and_stderr() -> None:
    events: list[WireEvent] = []
    with anyio.fail_after(15):
        async with await open_session(misbehave("exit-now"), events) as session:
            with pytest.raises(ConnectionClosedError) as info:
                await session.initialize()
    assert "exit code 2" in str(info.value)
    assert "missing API_KEY" in str(info.value)


async def test_command_not_found_is_a_clear_error() -> None:
    with anyio.fail_after(5), pytest.raises(TransportError, match="command not found"):
        async with Session(StdioTransport("no-such-mcp-server-xyz")):
            pass


async def test_hang_times_out_and_cancels() -> None:
    events: list[WireEvent] = []
    with anyio.fail_after(15):
        # the handshake has the default time (a loaded machine starts Python slowly); the
        # request the server never answers has half a second
        async with await open_session(misbehave("hang"), events) as session:
            await session.initialize()
            with pytest.raises(RequestTimeoutError):
                await session.request("tools/list", timeout=0.5)
    cancels = [e for e in events if e.method == "notifications/cancelled"]
    assert cancels and cancels[0].message["params"]["requestId"] == 2


async def test_unknown_and_mistyped_response_ids() -> None:
    events: list[WireEvent] = []
    with anyio.fail_after(15):
        async with await open_session(misbehave("unknown-id"), events) as session:
            await session.initialize()
            assert await session.request("tools/list") == {"stringly": True}
    codes = [f.code for e in events for f in e.findings]
    assert "unknown-id" in codes and "id-type-mismatch" in codes


async def test_flood_of_notifications() -> None:
    events: list[WireEvent] = []
    with anyio.fail_after(30):
        async with await open_session(misbehave("flood"), events) as session:
            await session.initialize()
            assert await session.request("tools/list") == {"flooded": 10_000}
    assert sum(1 for e in events if e.method == "notifications/message") == 10_000


@pytest.mark.parametrize("mode", ["ignore-stdin-close", "ignore-term"])
async def test_shutdown_escalates(mode: str) -> None:
    transport = misbehave(mode, grace=0.3)
    with anyio.fail_after(15):
        async with Session(transport) as session:
            await session.initialize()
    assert transport.process is not None
    expected = -signal.SIGTERM if mode == "ignore-stdin-close" else -signal.SIGKILL
    assert transport.process.returncode == expected


async def test_no_orphan_grandchild_after_close() -> None:
    events: list[WireEvent] = []
    transport = misbehave("spawn-child", grace=0.3)
    with anyio.fail_after(15):
        async with await open_session(transport, events) as session:
            await session.initialize()
            await anyio.sleep(0.2)
    lines = [e.raw for e in events if e.channel is Channel.STDERR]
    child_pid = int(next(x for x in lines if x.startswith(b"child pid")).split()[-1])
    for _ in range(50):
        if not alive(child_pid):
            break
        time.sleep(0.05)
    assert not alive(child_pid)


SPLIT_START = """
import json, os, subprocess, sys
import anyio
from inspector.engine.session import Session
from inspector.transports.stdio import StdioTransport

calls = []
popen = subprocess.Popen
def spy(*args, **kw):
    calls.append({"preexec_fn": kw.get("preexec_fn") is None,
                  "new_session": bool(kw.get("start_new_session")),
                  "server": kw.get("stdout") is subprocess.PIPE})
    return popen(*args, **kw)
subprocess.Popen = spy

def parent_of(pid):
    with open(f"/proc/{pid}/stat") as f:
        return int(f.read().rsplit(")", 1)[1].split()[1])

async def main():
    first = StdioTransport(sys.argv[1], [sys.argv[2], "silent"], grace=0.3)
    second = StdioTransport(sys.argv[1], ["-m", "inspector.demo"], grace=0.3)
    async with Session(first), Session(second) as talking:
        await talking.initialize()
        dog = first.lifeline.process
        here, there = first.process.pid, second.process.pid
        seen = {
            "one_watchdog": second.lifeline.process is dog,
            "here_parent_is_us": parent_of(here) == os.getpid(),
            "here_own_group": os.getpgid(here) == here,
            "there_parent_is_watchdog": parent_of(there) == dog.pid,
            "there_own_group": os.getpgid(there) == there,
            "there_in_watchdog_session": os.getsid(there) == os.getsid(dog.pid) != os.getsid(0),
            "both_running": first.process.returncode is None and second.process.returncode is None,
        }
    seen["both_exit_known"] = (
        first.process.returncode is not None and second.process.returncode is not None
    )
    seen["calls"] = [c for c in calls if c["server"]]
    print(json.dumps(seen))

anyio.run(main)
"""


def test_the_first_server_starts_here_the_next_by_the_watchdog() -> None:
    """The first server is started here, without a ``preexec_fn`` (with one CPython
    forks the whole inspector, ~80 ms per server of a workspace). While the watchdog
    runs, the next is started by it (``server_process``): the loop waits for no fork, and
    the server shares the watchdog's session (one CPU share for all, not one each) in a
    process group of its own. Both talk, both are watched by one watchdog, and the exit
    code of each is known. In a fresh process: here, another test's watchdog may run."""
    done = subprocess.run(
        [PY, "-c", SPLIT_START, PY, str(SERVERS / "stdio_misbehave.py")],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    seen = json.loads(done.stdout)
    calls = seen.pop("calls")
    assert all(seen.values()), seen
    assert calls == [{"preexec_fn": True, "new_session": True, "server": True}]  # one here


async def test_a_server_the_watchdog_started_tells_its_exit_and_its_failures(
    tmp_path: Path,
) -> None:
    """Through the watchdog as here: the exit code and stderr of a server that exits, and
    a command that cannot run says why."""
    keep = misbehave("silent", grace=0.3)  # the first: its watchdog starts the others
    with anyio.fail_after(20):
        async with Session(keep):
            code = "import sys; print('bye', file=sys.stderr); sys.exit(3)"
            exits = StdioTransport(PY, ["-c", code])
            host = _Host()
            async with anyio.create_task_group() as tg:
                await exits.start(host, tg)
                assert exits.process is not None and exits.lifeline is not None
                assert exits.lifeline.process is keep.lifeline.process  # type: ignore[union-attr]
                assert await exits.process.wait() == 3
                while not host.lost:
                    await anyio.sleep(0.02)
                tg.cancel_scope.cancel()
            assert host.lost[0].exit_code == 3 and "bye" in host.lost[0].stderr_tail
            script = tmp_path / "server"
            script.write_text("#!/no/such/interpreter\n")
            script.chmod(0o755)  # found, and its exec fails: in the watchdog
            async with anyio.create_task_group() as tg:
                with pytest.raises(TransportError) as failed:
                    await StdioTransport(str(script), []).start(_Host(), tg)
            assert "could not start" in str(failed.value)
            assert "No such file or directory" in str(failed.value)


def next_pids(count: int) -> list[int]:
    """The pids the kernel gives next (after the last one given, wrapping at pid_max to
    300, where Linux starts again): one of them is the next process's."""
    last = int(Path("/proc/sys/kernel/ns_last_pid").read_text())
    top = int(Path("/proc/sys/kernel/pid_max").read_text())
    pids, pid = [], last
    for _ in range(count):
        pid = pid + 1 if pid + 1 < top else 300
        pids.append(pid)
    return pids


async def test_a_pid_used_again_is_not_taken_for_its_former_servers_exit() -> None:
    """Pids wrap (32768 on many machines: a CI run used them all). A server the watchdog
    starts on the pid of one it started before runs: the exit told for that pid was the
    former server's."""
    keep = misbehave("silent", grace=0.3)
    with anyio.fail_after(20):
        async with Session(keep):
            assert keep.lifeline is not None
            dog = keep.lifeline.watchdog
            former = dict.fromkeys(next_pids(5000), 7)  # as if each had been told once
            dog.exits.update(former)
            later = StdioTransport(PY, ["-m", "inspector.demo"], grace=0.3)
            async with Session(later) as session:
                await session.initialize()
                assert later.process is not None and later.lifeline is not None
                assert later.lifeline.watchdog is dog  # started by it
                assert later.process.pid in former  # else the pids went round meanwhile
                assert later.process.returncode is None  # it runs: 7 was the former's
                await session.request("ping", {})
            assert later.process.returncode is not None and later.process.returncode != 7


async def test_a_watchdog_that_dies_before_it_answers_leaves_the_start_to_us() -> None:
    """The watchdog is asked to start a server and dies first: the server is started
    here instead, and the groups it watched go to a new watchdog."""
    keep = misbehave("silent", grace=0.3)
    with anyio.fail_after(20):
        async with Session(keep):
            assert keep.lifeline is not None and keep.lifeline.process is not None
            dog = keep.lifeline.process
            os.kill(dog.pid, signal.SIGSTOP)  # it hears the start, and cannot answer

            async def kill_it() -> None:
                while not keep.lifeline.watchdog.starts:  # type: ignore[union-attr]
                    await anyio.sleep(0.01)  # asked, and unanswered
                os.kill(dog.pid, signal.SIGKILL)

            later = StdioTransport(PY, ["-m", "inspector.demo"], grace=0.3)
            async with anyio.create_task_group() as tg:
                tg.start_soon(kill_it)
                async with Session(later) as session:
                    await session.initialize()
                    assert later.process is not None and later.lifeline is not None
                    assert parent_of(later.process.pid) == os.getpid()
                    watchdog = later.lifeline.process
                    assert watchdog is not None and watchdog is not dog
                    assert keep.lifeline.watchdog.gone  # it died before telling exits


def test_no_orphan_when_the_inspector_is_killed(tmp_path: Path) -> None:
    """SIGKILL the inspector itself: the server must still go (the lifeline watchdog)."""
    script = tmp_path / "host.py"
    script.write_text(
        textwrap.dedent(f"""
        import anyio, sys
        from inspector.engine.session import Session
        from inspector.transports.stdio import StdioTransport
        async def main():
            t = StdioTransport({PY!r}, [{str(SERVERS / "stdio_misbehave.py")!r},
                               'ignore-stdin-close'])
            u = StdioTransport({PY!r}, [{str(SERVERS / "stdio_misbehave.py")!r},
                               'ignore-stdin-close'])  # started by the watchdog
            async with Session(t) as s, Session(u) as r:
                await s.initialize()
                await r.initialize()
                print(t.process.pid, u.process.pid, flush=True)
                await anyio.sleep(60)
        anyio.run(main)
    """)
    )
    host = subprocess.Popen([PY, str(script)], stdout=subprocess.PIPE, text=True, cwd=ROOT)
    assert host.stdout is not None
    servers = [int(pid) for pid in host.stdout.readline().split()]
    assert len(servers) == 2 and all(alive(pid) for pid in servers)
    host.kill()
    host.wait(5)
    for _ in range(100):
        if not any(alive(pid) for pid in servers):
            break
        time.sleep(0.05)
    assert not any(alive(pid) for pid in servers)


@pytest.mark.slow
def test_engine_never_imports_textual() -> None:
    code = (
        "import sys, inspector.engine.session, inspector.engine.client, "
        "inspector.transports.stdio, inspector.transports.memory, "
        "inspector.record.recorder, inspector.record.reader, inspector.engine.lint, "
        "inspector.engine.responders\n"
        "import importlib, pkgutil\n"
        "for pkg in ('inspector.engine', 'inspector.transports', 'inspector.record', "
        "'inspector.forms'):\n"
        "    mod = importlib.import_module(pkg)\n"
        "    for info in pkgutil.iter_modules(mod.__path__, pkg + '.'):\n"
        "        importlib.import_module(info.name)\n"
        "assert 'textual' not in sys.modules, 'textual imported'\n"
        "print('ok')"
    )
    out = subprocess.run(
        [PY, "-c", code],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"


def _children(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                found.append(int(entry.name))
    return found


@pytest.mark.slow
def test_ctrl_c_on_the_cli_leaves_no_server_behind() -> None:
    cli = subprocess.Popen(
        [
            PY,
            "-m",
            "inspector",
            "--cli",
            "--method",
            "tools/list",
            "--",
            PY,
            str(SERVERS / "stdio_misbehave.py"),
            "hang",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=ROOT,
        # ctrl+c as in a terminal: an ignored SIGINT is inherited across exec, and a
        # process started with it ignored rightly keeps ignoring it (in full parallel
        # runs the worker's was not the default: the CLI never saw it)
        preexec_fn=default_sigint,
    )
    servers: list[int] = []
    for _ in range(100):
        servers = _children(cli.pid)
        if servers:
            break
        time.sleep(0.05)
    assert servers, "the server never started"
    time.sleep(0.5)  # let the handshake happen: the CLI now waits on tools/list
    cli.send_signal(signal.SIGINT)
    assert cli.wait(15) == 130
    for _ in range(100):
        if not any(alive(pid) for pid in servers):
            break
        time.sleep(0.05)
    assert not any(alive(pid) for pid in servers)


class _Host:
    """A host that only keeps what it is told."""

    def __init__(self) -> None:
        self.events: list[WireEvent] = []
        self.lost: list[Any] = []

    def emit(self, event: WireEvent) -> None:
        self.events.append(event)

    def connection_lost(self, lost: Any) -> None:
        self.lost.append(lost)


async def test_a_write_to_a_server_that_exited_says_its_exit_code() -> None:
    """The pipe broke because the server exited: the error names its exit code, not only
    the broken pipe (which of the two the user saw depended on a race)."""
    transport = StdioTransport(PY, ["-c", "import sys; sys.exit(2)"])
    with anyio.fail_after(30):
        async with anyio.create_task_group() as tg:
            await transport.start(_Host(), tg)
            assert transport.process is not None
            await transport.process.wait()
            with pytest.raises(TransportError) as failed:
                for _ in range(50):  # the first writes may still fit the pipe's buffer
                    await transport.send({"jsonrpc": "2.0", "method": "ping", "id": 1})
                    await anyio.sleep(0.02)
            assert "exited with exit code 2" in str(failed.value)
            tg.cancel_scope.cancel()


async def test_a_send_the_exit_beat_says_the_exit_code_and_stderr(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The server exits at once, and the first request's write finds the pipe broken
    before the reader has seen end-of-file (a race, seen in CI runs). The request fails
    with the lost connection, its exit code and stderr, as when the reader comes first:
    not with a bare "could not write"."""
    read_stdout = StdioTransport.read_stdout

    async def late(self: StdioTransport, stream: Any) -> None:
        await anyio.sleep(1.0)  # the reader comes late: the write finds out first
        await read_stdout(self, stream)

    monkeypatch.setattr(StdioTransport, "read_stdout", late)
    code = "import sys; print('missing API_KEY', file=sys.stderr); sys.exit(2)"
    transport = StdioTransport(PY, ["-c", code])
    with anyio.fail_after(30):
        async with Session(transport) as session:
            assert transport.process is not None
            await transport.process.wait()
            with pytest.raises(ConnectionClosedError) as failed:
                for _ in range(50):  # the first writes may still fit the pipe's buffer
                    await session.notify("notifications/initialized")
                    await anyio.sleep(0.02)
    lost = failed.value.lost
    assert lost.exit_code == 2 and lost.stderr_tail == ["missing API_KEY"]


def parent_of(pid: int) -> int:
    """The parent pid of ``pid`` (from /proc)."""
    return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
