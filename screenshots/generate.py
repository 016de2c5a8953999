"""Regenerate screenshots/*.svg: the real app, driven by Pilot, against the demo server.

    python screenshots/generate.py            # every view
    python screenshots/generate.py main form  # some of them

Each view waits for real state (bounded) before it is saved; nothing depends on sleeps.
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))

from textual.pilot import Pilot  # noqa: E402
from textual.widgets import TextArea  # noqa: E402

from inspector.engine.responders import Responders  # noqa: E402
from inspector.record.indexed import IndexedSessionFile  # noqa: E402
from inspector.target import Target, demo_target  # noqa: E402
from inspector.tui.app import InspectorApp  # noqa: E402
from inspector.tui.interactive_setup import interactive_responders  # noqa: E402
from inspector.tui.mode import Live  # noqa: E402
from inspector.tui.screens.all_log import AllLogScreen  # noqa: E402
from inspector.tui.screens.compare import CompareScreen  # noqa: E402
from inspector.tui.screens.elicitation import ElicitationScreen  # noqa: E402
from inspector.tui.screens.load_dialog import LoadDialog  # noqa: E402
from inspector.tui.screens.sampling import SamplingScreen  # noqa: E402
from inspector.tui.screens.server_list import ServerListScreen  # noqa: E402
from inspector.tui.widgets.catalog import Catalog  # noqa: E402
from inspector.tui.widgets.item_panel import ItemPanel  # noqa: E402
from inspector.tui.widgets.load_view import LoadView  # noqa: E402
from inspector.tui.widgets.message_detail import MessageDetail  # noqa: E402
from inspector.tui.widgets.message_log import MessageLog  # noqa: E402
from inspector.tui.widgets.result_view import ResultView  # noqa: E402
from inspector.wire.events import Kind  # noqa: E402
from inspector.workspace.status import State  # noqa: E402

SIZE = (140, 40)
SIZES = {
    "workspace": (120, 35),
    "workspace-80": (80, 24),
    "workspace-log": (120, 35),
    "compare": (120, 35),
}
Scenario = Callable[[Pilot[Any], InspectorApp], Awaitable[None]]


async def wait_for(
    pilot: Pilot[Any], condition: Callable[[], Any], what: str, timeout: float = 20.0
) -> None:
    """Pause until ``condition()`` holds; fail loudly after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise TimeoutError(f"timed out waiting for {what}")
        await pilot.pause(0.05)


async def connected(pilot: Pilot[Any], app: InspectorApp) -> None:
    await wait_for(
        pilot,
        lambda: (
            app.controller is not None
            and app.controller.connected
            and app.query_one(Catalog).items["prompts"]
        ),
        "the demo server",
    )


def log_size(app: InspectorApp, layout: str) -> None:
    """Set the log's size the way ``l`` cycles it (normal, max, min), whatever has focus."""
    while app.log_layout != layout:
        app.action_cycle_log()


async def settle(pilot: Pilot[Any]) -> None:
    """Let pending refreshes and the log's batched rows land."""
    await pilot.pause(0.3)
    await pilot.wait_for_scheduled_animations()
    await pilot.pause()


async def select(pilot: Pilot[Any], app: InspectorApp, kind: str, name: str) -> None:
    """Select a catalog item through its list, like a user."""
    catalog = app.query_one(Catalog)
    index = next(
        i
        for i, item in enumerate(catalog.items[kind])
        if name in (item.get("name"), item.get("uri"), item.get("uriTemplate"))
    )
    catalog.action_tab(kind)
    options: Any = app.query_one(f"#list-{kind}")
    options.highlighted = index
    await pilot.pause()
    await pilot.press("enter")
    await wait_for(
        pilot, lambda: (app.query_one(ItemPanel).item or {}).get("name") == name, f"the {name} form"
    )
    await pilot.pause(0.1)


async def fill(pilot: Pilot[Any], app: InspectorApp, tool: str, arguments: dict[str, Any]) -> None:
    await select(pilot, app, "tools", tool)
    form = app.query_one(ItemPanel).form
    assert form is not None
    form.set_arguments(arguments)
    await pilot.pause(0.2)


async def call(
    pilot: Pilot[Any],
    app: InspectorApp,
    tool: str,
    arguments: dict[str, Any],
    *,
    done: str | None = None,
) -> None:
    """Fill a tool's form, send it and wait for its result in the result pane."""
    view = app.query_one(ResultView)
    await fill(pilot, app, tool, arguments)
    before = view.outcome
    await pilot.press("ctrl+s")
    await wait_for(
        pilot,
        lambda: (
            view.outcome is not None
            and view.outcome is not before
            and (done is None or done in view.outcome.title)
        ),
        f"the {tool} result",
    )


def last_index(app: InspectorApp, method: str, kind: Kind) -> int:
    source = app.query_one(MessageLog).source
    return max(
        i for i in range(len(source)) if source.method(i) == method and source.kind(i) is kind
    )


# -- the views ---------------------------------------------------------------------------


async def main_view(pilot: Pilot[Any], app: InspectorApp) -> None:
    await connected(pilot, app)
    await call(pilot, app, "get_weather", {"city": "Lisbon", "units": "metric"})
    await settle(pilot)


async def form_view(pilot: Pilot[Any], app: InspectorApp) -> None:
    await connected(pilot, app)
    await fill(
        pilot,
        app,
        "schedule_event",
        {
            "title": "Design review",
            "when": {"start": "2026-12-01T10:00:00Z", "end": "2026-12-01T11:00:00Z"},
            "recurrence": "weekly",
            "location": {"kind": "in_person", "room": "4.02", "floor": 4},
            "reminders": [15, 60],
            "attendees": ["ada@example.com"],
            "priority": 2,
        },
    )
    log_size(app, "min")  # the log collapsed: the form gets the height
    await settle(pilot)


async def media_view(pilot: Pilot[Any], app: InspectorApp) -> None:
    await connected(pilot, app)
    await call(pilot, app, "show_media", {})
    log_size(app, "min")
    await settle(pilot)


async def detail_view(pilot: Pilot[Any], app: InspectorApp) -> None:
    await connected(pilot, app)
    await call(pilot, app, "add", {"a": 2, "b": 40})
    await settle(pilot)
    log = app.query_one(MessageLog)
    log.select_index(last_index(app, "tools/call", Kind.RESPONSE))
    log.lines.focus()
    await pilot.press("enter")
    detail = app.query_one(MessageDetail)
    await wait_for(pilot, lambda: detail.display, "the detail")
    log_size(app, "max")  # more rows and a taller detail
    await settle(pilot)


async def filter_view(pilot: Pilot[Any], app: InspectorApp) -> None:
    await connected(pilot, app)
    await call(pilot, app, "echo", {"message": "hello"})
    await call(pilot, app, "divide", {"dividend": 1, "divisor": 0})
    await call(pilot, app, "raise_error", {})
    await call(pilot, app, "add", {"a": 2, "b": 40})
    await pilot.press("escape", "g", "slash")
    await pilot.press(*"method:tools/call")
    log = app.query_one(MessageLog)
    source = log.source
    calls = sum(1 for i in range(len(source)) if source.method(i) == "tools/call")
    await wait_for(pilot, lambda: not log.scanning and log.shown == calls, "the filter")
    await settle(pilot)


def interactive_app() -> InspectorApp:
    responders = Responders()
    app = InspectorApp(demo_target(), responders=responders)
    interactive_responders(app, responders)
    return app


async def sampling_view(pilot: Pilot[Any], app: InspectorApp) -> None:
    await connected(pilot, app)
    await fill(pilot, app, "ask_llm", {"question": "What is the Model Context Protocol?"})
    await pilot.press("ctrl+s")
    await wait_for(pilot, lambda: isinstance(app.screen, SamplingScreen), "the sampling dialog")
    app.screen.query_one("#reply", TextArea).load_text(
        "An open protocol that connects LLM applications to tools and data."
    )
    await settle(pilot)


async def elicitation_view(pilot: Pilot[Any], app: InspectorApp) -> None:
    await connected(pilot, app)
    await fill(pilot, app, "book_table", {})
    await pilot.press("ctrl+s")
    await wait_for(
        pilot, lambda: isinstance(app.screen, ElicitationScreen), "the elicitation dialog"
    )
    await settle(pilot)


async def inflight_view(pilot: Pilot[Any], app: InspectorApp) -> None:
    await connected(pilot, app)
    await fill(pilot, app, "slow_count", {"seconds": 30, "steps": 30})
    await pilot.press("ctrl+s")
    session: Any = app.controller.session if app.controller else None
    await wait_for(
        pilot,
        lambda: any(
            p.method == "tools/call" and (p.progress or 0) >= 3 for p in session.pending.values()
        ),
        "progress",
    )
    await pilot.press("escape", "f")
    await settle(pilot)


async def load_view(pilot: Pilot[Any], app: InspectorApp) -> None:
    """ctrl+l in the add form: 4 sessions, 2000 calls; the Load tab's report."""
    await connected(pilot, app)
    await fill(pilot, app, "add", {"a": 2, "b": 40})
    await pilot.press("ctrl+l")
    await wait_for(pilot, lambda: isinstance(app.screen, LoadDialog), "the load dialog")
    await pilot.press("ctrl+u", "4", "tab", "tab", *"2000", "enter")
    view = app.query_one(LoadView)
    await wait_for(
        pilot, lambda: view.text.splitlines()[1:2] == ["done"], "the load run", timeout=120
    )
    await settle(pilot)


async def tasks_view(pilot: Pilot[Any], app: InspectorApp) -> None:
    await connected(pilot, app)
    await fill(pilot, app, "slow_count", {"seconds": 1, "steps": 2})
    await pilot.click("#run-task")
    view = app.query_one(ResultView)
    await wait_for(
        pilot,
        lambda: view.outcome is not None and "completed" in view.outcome.title,
        "the first task",
        timeout=30,
    )
    await fill(pilot, app, "generate_report", {"topic": "quarterly numbers"})
    await pilot.click("#run-task")
    tasks: Any = app.tasks_manager
    await wait_for(
        pilot,
        lambda: (
            tasks is not None
            and len(tasks.tasks) >= 2
            and any(t.status == "working" for t in tasks.tasks.values())
        ),
        "the second task working",
        timeout=30,
    )
    await settle(pilot)


async def replay_view(pilot: Pilot[Any], app: InspectorApp) -> None:
    source: Any = app.replay_source
    log = app.query_one(MessageLog)
    await wait_for(
        pilot,
        lambda: app.query_one(Catalog).items["tools"] and log.shown == len(source),
        "the replay",
    )
    await pilot.press("g", "home", "down", "down", "enter")
    await wait_for(pilot, lambda: app.query_one(MessageDetail).display, "the detail")
    await settle(pilot)


def replay_app(tmp: Path, *method: str) -> InspectorApp:
    """A replay of a ``--cli`` session of the demo (``tools/list``, or ``method``)."""
    path = tmp / "demo-session.jsonl"
    path.unlink(missing_ok=True)
    subprocess.run(
        [
            sys.executable,
            "-m",
            "inspector",
            "--cli",
            "--record",
            str(path),
            "--method",
            *(method or ("tools/list",)),
        ],
        check=True,
        capture_output=True,
        timeout=60,
        cwd=ROOT,
    )
    return InspectorApp(None, source=IndexedSessionFile(path), replay_title=path.name)


async def history_view(pilot: Pilot[Any], app: InspectorApp) -> None:
    await connected(pilot, app)
    await call(pilot, app, "add", {"a": 2, "b": 40})
    await call(pilot, app, "get_weather", {"city": "Lisbon", "units": "metric"})
    await call(pilot, app, "divide", {"dividend": 1, "divisor": 0})
    await pilot.press("escape", "h", "down")
    await wait_for(
        pilot, lambda: type(app.screen).__name__ == "HistoryScreen", "the History screen"
    )
    await settle(pilot)


def replay_calls_app(tmp: Path) -> InspectorApp:
    return replay_app(
        tmp, "tools/call", "--tool-name", "add", "--tool-arg", "a=2", "--tool-arg", "b=40"
    )


async def replay_calls_view(pilot: Pilot[Any], app: InspectorApp) -> None:
    source: Any = app.replay_source
    log = app.query_one(MessageLog)
    await wait_for(
        pilot,
        lambda: app.query_one(Catalog).items["tools"] and log.shown == len(source),
        "the replay",
    )
    await select(pilot, app, "tools", "add")
    await wait_for(pilot, lambda: app.query("#recorded-calls"), "the recorded calls")
    await pilot.press("g")
    await wait_for(pilot, lambda: app.query_one(MessageDetail).display, "the detail")
    await settle(pilot)


def live_app() -> InspectorApp:
    return InspectorApp(demo_target(), confirm_destructive=False)


HOSTS: list[subprocess.Popen[bytes]] = []  # stopped when the views are done


def attached_app(tmp: Path) -> InspectorApp:
    """The inspector attached to a proxy that a host (attach_host.py) runs the demo through."""
    import os

    from inspector.target import Target

    runtime = tmp / "rt"
    os.environ["MCP_INSPECT_RUNTIME_DIR"] = str(runtime)
    host = subprocess.Popen(
        [sys.executable, str(HERE / "attach_host.py")],
        cwd=ROOT,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
    )
    HOSTS.append(host)
    assert host.stdout is not None
    if host.stdout.readline().strip() != b"ready":
        raise RuntimeError("the host did not get through the proxy")
    (socket,) = runtime.glob("*.sock")  # the host's proxy, up before the host was ready
    return InspectorApp(
        Target(attach=str(socket), name="demo", transport="proxy"), confirm_destructive=False
    )


async def attach_view(pilot: Pilot[Any], app: InspectorApp) -> None:
    await connected(pilot, app)
    await call(pilot, app, "add", {"a": 2, "b": 3})
    host = HOSTS[-1]
    assert host.stdin is not None and host.stdout is not None
    host.stdin.write(b"go\n")  # the host calls while the inspector watches
    host.stdin.flush()
    await asyncio.to_thread(host.stdout.readline)
    log = app.query_one(MessageLog)
    await wait_for(
        pilot,
        lambda: any("40 + 2" in log.lines.summary(i).text for i in range(len(log.source))),
        "the host's call",
    )
    await settle(pilot)


def workspace_app() -> InspectorApp:
    """The demo, an official-SDK stdio server and one that cannot start."""
    sdk = str(ROOT / "tests/servers/sdk_stdio_server.py")
    broken = ["-c", "import sys; sys.exit('no such database: orders.db')"]
    return InspectorApp(
        Live(demo_target()),
        workspace=[
            ("sdk-stdio", Target(command=sys.executable, args=[sdk]), None),
            ("orders", Target(command=sys.executable, args=broken), None),
        ],
    )


async def workspace_ready(pilot: Pilot[Any], app: InspectorApp) -> None:
    def ready() -> bool:
        states = [view.status.state for view in app.views]
        return states[:2] == [State.CONNECTED] * 2 and states[2] is State.FAILED

    await wait_for(pilot, ready, "every server connected or failed", timeout=90)
    await wait_for(pilot, lambda: bool(app.main.catalog.items.get("tools")), "the tools")


async def workspace_view(pilot: Pilot[Any], app: InspectorApp) -> None:
    await workspace_ready(pilot, app)
    await pilot.press("escape", "W")
    await wait_for(pilot, lambda: isinstance(app.screen, ServerListScreen), "the server list")
    await settle(pilot)


async def workspace_log_view(pilot: Pilot[Any], app: InspectorApp) -> None:
    await workspace_ready(pilot, app)
    await pilot.press("escape", "W")
    await wait_for(pilot, lambda: isinstance(app.screen, ServerListScreen), "the server list")
    await pilot.press("a")
    await wait_for(pilot, lambda: isinstance(app.screen, AllLogScreen), "the merged log")
    log = app.screen.query_one(MessageLog)
    await wait_for(pilot, lambda: log.shown == len(log.source) > 0, "the merged rows")
    await settle(pilot)


def compare_app() -> InspectorApp:
    """Two versions of one server (tests/servers/diff_server.py): staging and production."""
    script = str(ROOT / "tests/servers/diff_server.py")
    app = InspectorApp(
        Live(Target(command=sys.executable, args=[script, "old"])),
        workspace=[("staging", Target(command=sys.executable, args=[script, "new"]), None)],
    )
    app.views[0].name = app.views[0].status.name = "production"
    return app


async def compare_view(pilot: Pilot[Any], app: InspectorApp) -> None:
    def ready() -> bool:
        return all(view.status.state is State.CONNECTED for view in app.views)

    await wait_for(pilot, ready, "both servers connected", timeout=60)
    await wait_for(pilot, lambda: bool(app.main.catalog.items.get("prompts")), "the lists")
    await pilot.press("escape", "W")
    await wait_for(pilot, lambda: isinstance(app.screen, ServerListScreen), "the server list")
    await pilot.press("down", "c")
    await wait_for(pilot, lambda: isinstance(app.screen, CompareScreen), "the Compare view")
    screen = app.screen
    assert isinstance(screen, CompareScreen)
    deadline = time.monotonic() + 20
    while screen.comparison.counts.get("breaking", 0) < 10 and time.monotonic() < deadline:
        await pilot.pause(0.2)  # the other server's last pages
        await pilot.press("r")
    await settle(pilot)


VIEWS: dict[str, tuple[Callable[[Path], InspectorApp], Scenario]] = {
    "main": (lambda _: live_app(), main_view),
    "form": (lambda _: live_app(), form_view),
    "result-media": (lambda _: live_app(), media_view),
    "detail": (lambda _: live_app(), detail_view),
    "filter": (lambda _: live_app(), filter_view),
    "sampling": (lambda _: interactive_app(), sampling_view),
    "elicitation": (lambda _: interactive_app(), elicitation_view),
    "inflight": (lambda _: interactive_app(), inflight_view),
    "tasks": (lambda _: interactive_app(), tasks_view),
    "load": (lambda _: live_app(), load_view),
    "replay": (replay_app, replay_view),
    "history": (lambda _: live_app(), history_view),
    "replay-calls": (replay_calls_app, replay_calls_view),
    "attach": (attached_app, attach_view),
    "workspace": (lambda _: workspace_app(), workspace_view),
    "workspace-80": (lambda _: workspace_app(), workspace_view),
    "workspace-log": (lambda _: workspace_app(), workspace_log_view),
    "compare": (lambda _: compare_app(), compare_view),
}


async def shoot(name: str, tmp: Path) -> Path:
    make, scenario = VIEWS[name]
    app = make(tmp)
    out = HERE / f"{name}.svg"
    async with app.run_test(size=SIZES.get(name, SIZE)) as pilot:
        try:
            await scenario(pilot, app)
        except Exception:
            failed = Path(tempfile.gettempdir()) / f"{name}-failed.svg"
            failed.write_text(app.export_screenshot(), encoding="utf-8")
            print(f"{name}: failed; the screen is in {failed}", file=sys.stderr)
            raise
        out.write_text(app.export_screenshot(title=f"mcp-inspect: {name}"), encoding="utf-8")
    source = app.replay_source
    if source is not None and hasattr(source, "close"):
        source.close()
    return out


async def main(names: list[str]) -> int:
    unknown = [n for n in names if n not in VIEWS]
    if unknown:
        print(f"unknown views: {', '.join(unknown)}; known: {', '.join(VIEWS)}", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        try:
            for name in names or list(VIEWS):
                path = await shoot(name, Path(tmp))
                print(f"wrote {path.relative_to(ROOT)}")
        finally:
            for host in HOSTS:  # its stdin closes: it and its proxy and server end
                host.communicate(timeout=30)
    return 0


if __name__ == "__main__":
    # Focus styles and the cursor blink must not depend on the terminal that runs this.
    sys.exit(asyncio.run(main(sys.argv[1:])))
