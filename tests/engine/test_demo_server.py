"""The bundled demo server, driven by real peers.

Most tests use the official ``mcp`` SDK client over stdio; tasks, cancellation
and malformed input are driven with raw JSON lines (``RawPeer``) because they
need exact control of the wire. Every wait is bounded.
"""

from __future__ import annotations

import base64
import json
import os
import queue
import struct
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import jsonschema
import pytest
from mcp import types
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.shared.exceptions import MCPError
from paths import DEMO, ROOT

pytestmark = pytest.mark.filterwarnings("ignore::mcp.shared.exceptions.MCPDeprecationWarning")
LEVELS = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"]


# ---- SDK peer -------------------------------------------------------------------------
class Peer:
    """An SDK session plus everything the server sent on its own."""

    def __init__(self, session: ClientSession) -> None:
        self.session = session
        self.inbox: list[Any] = []
        self.logs: list[types.LoggingMessageNotificationParams] = []

    async def wait_for(
        self, pred: Callable[[Any], bool], count: int = 1, timeout: float = 5.0
    ) -> list[Any]:
        with anyio.fail_after(timeout):
            while len(hits := [m for m in self.inbox if pred(m)]) < count:
                await anyio.sleep(0.01)
        return hits

    async def all_tools(self) -> tuple[list[types.Tool], int]:
        tools: list[types.Tool] = []
        cursor, pages = None, 0
        while True:
            page = await self.session.list_tools(
                params=types.PaginatedRequestParams(cursor=cursor) if cursor else None
            )
            tools += page.tools
            pages += 1
            cursor = page.next_cursor
            if not cursor:
                return tools, pages


@asynccontextmanager
async def connect(*args: str, **callbacks: Any) -> AsyncIterator[Peer]:
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "inspector.demo", *args],
        cwd=ROOT,
        env={"PYTHONPATH": str(ROOT)},
    )
    peer: Peer | None = None

    async def on_message(message: Any) -> None:
        assert peer is not None
        peer.inbox.append(message)

    async def on_log(params: types.LoggingMessageNotificationParams) -> None:
        assert peer is not None
        peer.logs.append(params)

    with tempfile.TemporaryFile("w+") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write):
            session = ClientSession(
                read, write, message_handler=on_message, logging_callback=on_log, **callbacks
            )
            peer = Peer(session)
            async with session:
                with anyio.fail_after(10):
                    await session.initialize()
                yield peer


def texts(result: types.CallToolResult) -> list[str]:
    return [b.text for b in result.content if isinstance(b, types.TextContent)]


def raw_tool(tool: types.Tool) -> dict[str, Any]:
    return tool.model_dump(by_alias=True, exclude_none=True)


# ---- raw peer -------------------------------------------------------------------------
class RawPeer:
    """The demo server as a subprocess spoken to in raw JSON lines."""

    def __init__(self, *args: str) -> None:
        self.stderr = tempfile.TemporaryFile()  # noqa: SIM115 - closed in close()
        self.proc = subprocess.Popen(
            [*DEMO, *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.stderr,
            cwd=ROOT,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
        )
        self.lines: queue.Queue[Any] = queue.Queue()
        self.other: list[dict[str, Any]] = []  # notifications and requests seen so far
        self._next = 0
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(json.loads(line))
        self.lines.put(None)

    def send_raw(self, data: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(data + b"\n")
        self.proc.stdin.flush()

    def send(self, message: dict[str, Any]) -> None:
        self.send_raw(json.dumps(message).encode())

    def recv(self, timeout: float = 5.0) -> Any:
        try:
            message = self.lines.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError(f"nothing from the server within {timeout} s") from None
        assert message is not None, "the server closed stdout"
        return message

    def start(self, method: str, params: dict[str, Any] | None = None) -> int:
        self._next += 1
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": self._next, "method": method}
        if params is not None:
            message["params"] = params
        self.send(message)
        return self._next

    def wait_response(self, req_id: Any, timeout: float = 5.0) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while True:
            message = self.recv(max(0.01, deadline - time.monotonic()))
            if "method" not in message and message.get("id") == req_id:
                return dict(message)
            self.other.append(message)

    def request(
        self, method: str, params: dict[str, Any] | None = None, timeout: float = 5.0
    ) -> dict[str, Any]:
        return self.wait_response(self.start(method, params), timeout)

    def initialize(
        self, version: str = "2025-11-25", caps: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        answer = self.request(
            "initialize",
            {
                "protocolVersion": version,
                "capabilities": caps or {},
                "clientInfo": {"name": "raw", "version": "0"},
            },
        )
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        return dict(answer["result"])

    def notifications(self, method: str) -> list[dict[str, Any]]:
        return [m for m in self.other if m.get("method") == method and "id" not in m]

    def close(self) -> int:
        assert self.proc.stdin is not None
        if not self.proc.stdin.closed:
            self.proc.stdin.close()
        try:
            code = self.proc.wait(5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            code = self.proc.wait(5)
        assert self.proc.stdout is not None
        self.proc.stdout.close()
        self.stderr.close()
        return code


@pytest.fixture
def raw() -> Iterator[Callable[..., RawPeer]]:
    peers: list[RawPeer] = []

    def make(*args: str) -> RawPeer:
        peers.append(RawPeer(*args))
        return peers[-1]

    yield make
    for peer in peers:
        peer.close()


# ---- handshake and catalogue ----------------------------------------------------------
async def test_initialize_over_sdk() -> None:
    async with connect() as peer:
        init = peer.session.initialize_result
        assert init is not None and init.protocol_version == "2025-11-25"
        assert init.server_info.name == "mcp-inspect-demo" and init.server_info.title
        assert init.instructions and "slow_count" in init.instructions
        caps = init.capabilities.model_dump(by_alias=True, exclude_none=True)
        assert caps["tools"] == {"listChanged": True}
        assert caps["resources"] == {"subscribe": True, "listChanged": True}
        assert "completions" in caps and "logging" in caps
        assert caps["tasks"]["requests"] == {"tools": {"call": {}}}


async def test_tools_listed_over_pages_with_annotations() -> None:
    async with connect() as peer:
        tools, pages = await peer.all_tools()
    assert pages >= 2
    by_name = {t.name: raw_tool(t) for t in tools}
    for name in (
        "echo",
        "add",
        "divide",
        "get_weather",
        "create_user",
        "schedule_event",
        "build_tree",
        "legacy_search",
        "show_media",
        "add_note",
        "update_note",
        "delete_note",
        "log_burst",
        "slow_count",
        "generate_report",
        "ask_llm",
        "book_table",
        "list_roots",
        "ping_client",
        "toggle_extra_tool",
    ):
        assert name in by_name, name
    assert "extra_tool" not in by_name
    assert by_name["delete_note"]["annotations"]["destructiveHint"] is True
    assert by_name["echo"]["annotations"]["readOnlyHint"] is True
    assert by_name["get_weather"]["annotations"]["openWorldHint"] is True
    assert by_name["divide"]["annotations"]["title"] and "title" not in by_name["divide"]
    assert by_name["add"]["title"] == "Add two numbers"
    assert by_name["get_weather"]["outputSchema"]["required"]
    assert by_name["echo"]["icons"][0]["src"].startswith("data:image/png;base64,")
    assert by_name["slow_count"]["execution"] == {"taskSupport": "optional"}
    assert by_name["generate_report"]["execution"] == {"taskSupport": "required"}
    assert "execution" not in by_name["echo"]


def _walk(node: Any) -> Iterator[dict[str, Any]]:
    if isinstance(node, dict):
        yield node
        for value in node.values():
            yield from _walk(value)
    elif isinstance(node, list):
        for value in node:
            yield from _walk(value)


async def test_input_schemas_cover_json_schema_features() -> None:
    async with connect() as peer:
        tools, _ = await peer.all_tools()
    schemas = {t.name: raw_tool(t)["inputSchema"] for t in tools}
    for name, schema in schemas.items():
        cls = jsonschema.validators.validator_for(schema, jsonschema.Draft202012Validator)
        cls.check_schema(schema)  # every schema is itself valid
        assert schema["type"] == "object", name
    nodes = list(_walk(schemas))
    formats = {n["format"] for n in nodes if isinstance(n.get("format"), str)}
    assert {"email", "uri", "date", "date-time"} <= formats
    assert any(n.get("type") == ["string", "null"] for n in nodes)
    assert any({"type": "null"} in n.get("anyOf", []) for n in nodes)
    assert any("oneOf" in n for n in nodes) and any("enum" in n for n in nodes)
    assert any(
        n.get("type") == "array" and n["items"].get("type") == "object"
        for n in nodes
        if isinstance(n.get("items"), dict)
    )
    assert any(isinstance(n.get("additionalProperties"), dict) for n in nodes)
    tree = schemas["build_tree"]["$defs"]["TreeNode"]
    assert tree["properties"]["children"]["items"] == {"$ref": "#/$defs/TreeNode"}
    assert schemas["legacy_search"]["$schema"] == "http://json-schema.org/draft-07/schema#"
    create_user = schemas["create_user"]
    assert create_user["required"] == ["name", "email"]
    assert create_user["properties"]["address"]["type"] == "object"
    assert create_user["properties"]["age"]["maximum"] == 150
    assert create_user["properties"]["role"]["default"] == "viewer"


# ---- tools ----------------------------------------------------------------------------
async def test_simple_tools_and_errors() -> None:
    async with connect() as peer:
        s = peer.session
        assert texts(await s.call_tool("echo", {"message": "hi", "repeat": 2})) == ["hi\nhi"]
        assert texts(await s.call_tool("add", {"a": 2, "b": 3})) == ["2 + 3 = 5"]
        zero = await s.call_tool("divide", {"dividend": 1, "divisor": 0})
        assert zero.is_error and "zero" in texts(zero)[0]
        assert texts(await s.call_tool("divide", {"dividend": 7, "divisor": 2})) == ["3.5"]
        bad = await s.call_tool("add", {"a": "two", "b": 3})
        assert bad.is_error and "'a'" in texts(bad)[0]
        missing = await s.call_tool("echo", {})
        assert missing.is_error and "message" in texts(missing)[0]
        with pytest.raises(MCPError) as unknown:
            await s.call_tool("no_such_tool", {})
        assert unknown.value.code == -32602
        with pytest.raises(MCPError) as raised:
            await s.call_tool("raise_error", {"code": -32001, "message": "on purpose"})
        assert raised.value.code == -32001 and raised.value.message == "on purpose"
        tree = await s.call_tool(
            "build_tree",
            {
                "root": {
                    "name": "a",
                    "children": [{"name": "b", "children": [{"name": "c", "color": "red"}]}],
                }
            },
        )
        assert texts(tree) == ["- a\n  - b\n    - c (red)", "3 nodes, depth 3"]


async def test_structured_output_matches_output_schema() -> None:
    async with connect() as peer:
        tools, _ = await peer.all_tools()
        schema = next(raw_tool(t) for t in tools if t.name == "get_weather")["outputSchema"]
        answer = await peer.session.call_tool("get_weather", {"city": "Paris", "units": "imperial"})
    assert answer.structured_content is not None
    jsonschema.validate(answer.structured_content, schema)
    assert answer.structured_content["units"] == "imperial"
    assert json.loads(texts(answer)[0]) == answer.structured_content


async def test_show_media_returns_every_content_kind() -> None:
    async with connect() as peer:
        answer = await peer.session.call_tool("show_media", {})
    kinds = [type(b).__name__ for b in answer.content]
    assert kinds == [
        "TextContent",
        "ImageContent",
        "AudioContent",
        "ResourceLink",
        "EmbeddedResource",
        "EmbeddedResource",
    ]
    image, audio, link, text_res, blob_res = answer.content[1:]
    assert isinstance(image, types.ImageContent) and isinstance(audio, types.AudioContent)
    png = base64.b64decode(image.data)
    assert png.startswith(b"\x89PNG\r\n\x1a\n") and struct.unpack(">II", png[16:24]) == (32, 32)
    wav = base64.b64decode(audio.data)
    assert wav[:4] == b"RIFF" and wav[8:12] == b"WAVE" and audio.mime_type == "audio/wav"
    assert isinstance(link, types.ResourceLink) and link.uri == "demo://readme"
    assert isinstance(text_res, types.EmbeddedResource)
    assert isinstance(text_res.resource, types.TextResourceContents)
    assert isinstance(blob_res, types.EmbeddedResource)
    assert isinstance(blob_res.resource, types.BlobResourceContents)


async def test_progress_notifications_from_slow_count() -> None:
    seen: list[tuple[float, float | None, str | None]] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        seen.append((progress, total, message))

    async with connect() as peer:
        answer = await peer.session.call_tool(
            "slow_count", {"seconds": 0.3, "steps": 3}, progress_callback=on_progress
        )
    assert "Counted to 3" in texts(answer)[0]
    assert [p for p, _, _ in seen] == [1, 2, 3] and seen[-1][1] == 3
    assert seen[0][2] == "step 1 of 3"


async def test_logging_respects_level() -> None:
    async with connect() as peer:
        await peer.session.set_logging_level("warning")
        answer = await peer.session.call_tool("log_burst", {"logger": "t"})
        assert "Sent 5" in texts(answer)[0]
        with anyio.fail_after(5):
            while len(peer.logs) < 5:
                await anyio.sleep(0.01)
        assert [m.level for m in peer.logs] == LEVELS[3:]
        assert peer.logs[0].logger == "t"
        await peer.session.set_logging_level("debug")
        await peer.session.call_tool("log_burst", {})
        with anyio.fail_after(5):
            while len(peer.logs) < 13:
                await anyio.sleep(0.01)
        assert [m.level for m in peer.logs[5:]] == LEVELS


# ---- requests to the client -----------------------------------------------------------
async def test_sampling_elicitation_roots_and_ping() -> None:
    asked: list[types.CreateMessageRequestParams] = []
    forms: list[dict[str, Any]] = []

    async def sampling(
        ctx: Any, params: types.CreateMessageRequestParams
    ) -> types.CreateMessageResult:
        asked.append(params)
        return types.CreateMessageResult(
            role="assistant",
            model="fake-1",
            stop_reason="endTurn",
            content=types.TextContent(type="text", text="42"),
        )

    async def elicitation(ctx: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        schema = params.model_dump(by_alias=True, exclude_none=True)["requestedSchema"]
        forms.append(schema)
        if len(forms) == 1:
            defaults = {k: v["default"] for k, v in schema["properties"].items()}
            return types.ElicitResult(action="accept", content=defaults)
        return types.ElicitResult(action="decline")

    async def roots(ctx: Any) -> types.ListRootsResult:
        root = types.Root.model_validate({"uri": "file:///tmp/project", "name": "proj"})
        return types.ListRootsResult(roots=[root])

    async with connect(
        sampling_callback=sampling, elicitation_callback=elicitation, list_roots_callback=roots
    ) as peer:
        s = peer.session
        answer = await s.call_tool("ask_llm", {"question": "meaning?", "max_tokens": 7})
        assert texts(answer)[0] == "42" and "fake-1" in texts(answer)[1]
        assert asked[0].max_tokens == 7
        booked = await s.call_tool("book_table", {"restaurant": "Chez Test"})
        assert "Chez Test for 2 under the name Ada Lovelace" in texts(booked)[0]
        props = forms[0]["properties"]
        assert {p["type"] for p in props.values()} >= {"string", "number", "integer", "boolean"}
        assert all("default" in p for p in props.values())
        assert "enum" in props["seating"]
        declined = await s.call_tool("book_table", {})
        assert "declined" in texts(declined)[0] and not declined.is_error
        listed = await s.call_tool("list_roots", {})
        assert "file:///tmp/project (proj)" in texts(listed)[0]
        pong = await s.call_tool("ping_client", {})
        assert "answered ping" in texts(pong)[0]


async def test_client_features_need_capabilities() -> None:
    async with connect() as peer:
        for name, args in (("ask_llm", {"question": "q"}), ("book_table", {}), ("list_roots", {})):
            answer = await peer.session.call_tool(name, args)
            assert answer.is_error and "capability" in texts(answer)[0], name


# ---- resources ------------------------------------------------------------------------
async def test_resources_paginate_and_read() -> None:
    async with connect() as peer:
        s = peer.session
        first = await s.list_resources()
        assert len(first.resources) == 5 and first.next_cursor
        second = await s.list_resources(
            params=types.PaginatedRequestParams(cursor=first.next_cursor)
        )
        uris = [str(r.uri) for r in first.resources + second.resources]
        assert len(uris) >= 8 and "demo://notes/1" in uris and second.next_cursor is None
        readme = (await s.read_resource("demo://readme")).contents[0]
        assert isinstance(readme, types.TextResourceContents) and "demo server" in readme.text
        logo = (await s.read_resource("demo://logo.png")).contents[0]
        assert isinstance(logo, types.BlobResourceContents)
        assert base64.b64decode(logo.blob).startswith(b"\x89PNG")
        all_bytes = (await s.read_resource("demo://binary.bin")).contents[0]
        assert isinstance(all_bytes, types.BlobResourceContents)
        assert base64.b64decode(all_bytes.blob) == bytes(range(256))
        note = (await s.read_resource("demo://notes/2")).contents[0]
        assert isinstance(note, types.TextResourceContents) and note.text.startswith("Ideas")
        user = (await s.read_resource("demo://users/alice/files/todo.txt")).contents[0]
        assert isinstance(user, types.TextResourceContents) and "alice" in user.text
        weather = (await s.read_resource("demo://weather/Oslo?units=imperial")).contents[0]
        assert isinstance(weather, types.TextResourceContents)
        assert json.loads(weather.text)["units"] == "imperial"
        with pytest.raises(MCPError) as missing:
            await s.read_resource("demo://nope")
        assert missing.value.code == -32002


async def test_templates_and_completion() -> None:
    async with connect() as peer:
        s = peer.session
        templates = (await s.list_resource_templates()).resource_templates
        assert {t.uri_template for t in templates} >= {
            "demo://notes/{id}",
            "demo://users/{user}/files/{path}",
        }
        users_ref = types.ResourceTemplateReference(
            type="ref/resource", uri="demo://users/{user}/files/{path}"
        )
        users = await s.complete(users_ref, {"name": "user", "value": "b"})
        assert users.completion.values == ["bob"]
        alice = await s.complete(users_ref, {"name": "path", "value": "notes/"}, {"user": "alice"})
        assert alice.completion.values == ["notes/ideas.md", "notes/recipes.md"]
        bob = await s.complete(users_ref, {"name": "path", "value": ""}, {"user": "bob"})
        assert len(bob.completion.values) == 100 and bob.completion.has_more
        assert bob.completion.total == 150
        note_ref = types.ResourceTemplateReference(type="ref/resource", uri="demo://notes/{id}")
        assert (await s.complete(note_ref, {"name": "id", "value": ""})).completion.values == [
            "1",
            "2",
        ]
        prompt_ref = types.PromptReference(type="ref/prompt", name="code_review")
        langs = await s.complete(prompt_ref, {"name": "language", "value": "py"})
        assert langs.completion.values == ["python"]
        styles = await s.complete(
            types.PromptReference(type="ref/prompt", name="greeting"),
            {"name": "style", "value": ""},
        )
        assert styles.completion.values == ["formal", "casual", "pirate"]


async def test_subscribe_and_updated_notifications() -> None:
    def updated(uri: str) -> Callable[[Any], bool]:
        return lambda m: (
            isinstance(m, types.ResourceUpdatedNotification) and str(m.params.uri) == uri
        )

    async with connect("--tick", "0.1") as peer:
        s = peer.session
        await s.subscribe_resource("demo://notes/1")
        await s.call_tool("update_note", {"id": "1", "body": "changed"})
        await peer.wait_for(updated("demo://notes/1"))
        note = (await s.read_resource("demo://notes/1")).contents[0]
        assert isinstance(note, types.TextResourceContents) and note.text.endswith("changed")
        await s.unsubscribe_resource("demo://notes/1")
        await s.call_tool("update_note", {"id": "1", "body": "again"})
        await s.send_ping()
        assert len([m for m in peer.inbox if updated("demo://notes/1")(m)]) == 1
        await s.subscribe_resource("demo://counter")
        await peer.wait_for(updated("demo://counter"), count=2)
        counter = (await s.read_resource("demo://counter")).contents[0]
        assert isinstance(counter, types.TextResourceContents)
        assert not counter.text.startswith("counter = 0")
        with pytest.raises(MCPError) as unknown:
            await s.subscribe_resource("demo://nope")
        assert unknown.value.code == -32002


async def test_notes_change_the_resource_list() -> None:
    async with connect() as peer:
        s = peer.session
        added = await s.call_tool("add_note", {"title": "New", "body": "fresh"})
        link = added.content[1]
        assert isinstance(link, types.ResourceLink) and str(link.uri) == "demo://notes/3"
        await peer.wait_for(lambda m: isinstance(m, types.ResourceListChangedNotification))
        page2 = await s.list_resources(params=types.PaginatedRequestParams(cursor="p5"))
        assert "demo://notes/3" in [str(r.uri) for r in page2.resources]
        deleted = await s.call_tool("delete_note", {"id": "3"})
        assert "Deleted note 3" in texts(deleted)[0]
        again = await s.call_tool("delete_note", {"id": "3"})
        assert again.is_error


async def test_list_changed_after_toggle() -> None:
    async with connect() as peer:
        s = peer.session
        await s.call_tool("toggle_extra_tool", {})
        await peer.wait_for(lambda m: isinstance(m, types.ToolListChangedNotification))
        await peer.wait_for(lambda m: isinstance(m, types.PromptListChangedNotification))
        tools, _ = await peer.all_tools()
        assert "extra_tool" in [t.name for t in tools]
        assert "extra_prompt" in [p.name for p in (await s.list_prompts()).prompts]
        assert "extra tool" in texts(await s.call_tool("extra_tool", {}))[0]
        await s.call_tool("toggle_extra_tool", {})
        tools, _ = await peer.all_tools()
        assert "extra_tool" not in [t.name for t in tools]


# ---- prompts --------------------------------------------------------------------------
async def test_prompts() -> None:
    async with connect() as peer:
        s = peer.session
        listed = {p.name: p for p in (await s.list_prompts()).prompts}
        assert set(listed) == {"simple", "greeting", "code_review", "note_summary"}
        args = {a.name: a.required for a in listed["greeting"].arguments or []}
        assert args == {"name": True, "style": False}
        greeting = await s.get_prompt("greeting", {"name": "Ada", "style": "pirate"})
        last = greeting.messages[-1].content
        assert isinstance(last, types.TextContent) and last.text == "Ahoy, Ada!"
        summary = await s.get_prompt("note_summary", {"note_id": "1"})
        embedded = summary.messages[1].content
        assert isinstance(embedded, types.EmbeddedResource)
        assert str(embedded.resource.uri) == "demo://notes/1"
        with pytest.raises(MCPError) as missing:
            await s.get_prompt("greeting", {})
        assert missing.value.code == -32602
        with pytest.raises(MCPError) as unknown:
            await s.get_prompt("nope", {})
        assert unknown.value.code == -32602


# ---- variant, tasks refused without a task -------------------------------------------
async def test_changed_variant() -> None:
    async with connect("--variant", "changed") as peer:
        s = peer.session
        init = s.initialize_result
        assert init is not None and init.server_info.version.endswith("+changed")
        assert texts(await s.call_tool("add", {"a": 2, "b": 3})) == ["sum: 5"]
        tools, _ = await peer.all_tools()
        assert "legacy_search" not in [t.name for t in tools]
        readme = (await s.read_resource("demo://readme")).contents[0]
        assert isinstance(readme, types.TextResourceContents) and "changed" in readme.text


async def test_required_task_tool_refuses_plain_call() -> None:
    async with connect() as peer:
        with pytest.raises(MCPError) as refused:
            await peer.session.call_tool("generate_report", {})
    assert refused.value.code == -32601


# ---- raw wire -------------------------------------------------------------------------
def test_malformed_lines_and_bad_requests(raw: Callable[..., RawPeer]) -> None:
    peer = raw()
    peer.initialize()
    peer.send_raw(b"this is not json")
    assert peer.recv() == {
        "jsonrpc": "2.0",
        "id": None,
        "error": {
            "code": -32700,
            "message": "Parse error: not JSON: Expecting value at line 1 column 1",
        },
    }
    peer.send_raw(b'{"jsonrpc": "2.0", "id": 9, "method": "ping", \xff}')
    assert peer.recv()["error"]["code"] == -32700
    assert peer.request("no/such/method")["error"]["code"] == -32601
    assert peer.request("resources/read", {})["error"]["code"] == -32602
    assert peer.request("logging/setLevel", {"level": "loud"})["error"]["code"] == -32602
    assert peer.request("tools/list", {"cursor": "bogus"})["error"]["code"] == -32602
    peer.send({"jsonrpc": "2.0", "id": 50, "method": "ping", "params": [1]})
    assert peer.wait_response(50)["error"]["code"] == -32602
    peer.send({"id": 51, "method": "ping"})  # no "jsonrpc"
    assert peer.wait_response(51)["error"]["code"] == -32600
    peer.send_raw(b"[]")
    assert peer.recv()["error"]["code"] == -32600
    assert peer.request("ping") == {"jsonrpc": "2.0", "id": peer._next, "result": {}}
    assert peer.close() == 0


def test_version_negotiation_and_batches(raw: Callable[..., RawPeer]) -> None:
    old = raw()
    init = old.initialize("2024-11-05")
    assert init["protocolVersion"] == "2024-11-05" and "tasks" not in init["capabilities"]
    tools = old.request("tools/list")["result"]["tools"]
    assert all("annotations" not in t and "outputSchema" not in t for t in tools)
    assert "generate_report" not in [t["name"] for t in tools]
    assert old.request("tasks/list")["error"]["code"] == -32601

    future = raw()
    assert future.initialize("2099-01-01")["protocolVersion"] == "2025-11-25"

    batching = raw()
    batching.initialize("2025-03-26")
    batching.send_raw(
        b'[{"jsonrpc":"2.0","id":"a","method":"ping"},{"jsonrpc":"2.0","id":"b","method":"nope"}]'
    )
    answers = {m["id"]: m for m in (batching.recv(), batching.recv())}
    assert answers["a"]["result"] == {} and answers["b"]["error"]["code"] == -32601


def test_cancellation_stops_the_tool_without_response(raw: Callable[..., RawPeer]) -> None:
    peer = raw()
    peer.initialize()
    call = peer.start(
        "tools/call",
        {
            "name": "slow_count",
            "arguments": {"seconds": 5, "steps": 50},
            "_meta": {"progressToken": "tok"},
        },
    )
    first = peer.recv()
    assert first["method"] == "notifications/progress"
    assert first["params"]["progressToken"] == "tok" and first["params"]["progress"] == 1
    peer.send(
        {
            "jsonrpc": "2.0",
            "method": "notifications/cancelled",
            "params": {"requestId": call, "reason": "test"},
        }
    )
    peer.request("ping")
    time.sleep(0.3)  # a cancelled tool would have sent more progress by now (every 0.1 s)
    pinged = peer._next
    assert peer.request("ping")["id"] == pinged + 1
    late = [m for m in peer.other if m.get("id") == call]
    assert late == []
    assert len(peer.notifications("notifications/progress")) <= 2


def test_cancel_while_waiting_for_the_client(raw: Callable[..., RawPeer]) -> None:
    peer = raw()
    peer.initialize(caps={"sampling": {}})
    call = peer.start("tools/call", {"name": "ask_llm", "arguments": {"question": "q"}})
    asked = peer.recv()
    assert asked["method"] == "sampling/createMessage"
    assert asked["params"]["messages"][0]["content"] == {"type": "text", "text": "q"}
    peer.send(
        {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": call}}
    )
    relayed = peer.recv()
    assert relayed["method"] == "notifications/cancelled"
    assert relayed["params"]["requestId"] == asked["id"]
    assert peer.request("ping")["result"] == {}
    assert [m for m in peer.other if m.get("id") == call] == []
    # A client error answer becomes an isError result.
    call = peer.start("tools/call", {"name": "ask_llm", "arguments": {"question": "q"}})
    asked = peer.recv()
    peer.send(
        {
            "jsonrpc": "2.0",
            "id": asked["id"],
            "error": {"code": -1, "message": "User rejected sampling request"},
        }
    )
    answer = peer.wait_response(call)["result"]
    assert answer["isError"] and "-1" in answer["content"][0]["text"]


def test_tasks_lifecycle(raw: Callable[..., RawPeer]) -> None:
    peer = raw()
    assert peer.initialize()["capabilities"]["tasks"]["list"] == {}
    created = peer.request(
        "tools/call",
        {
            "name": "slow_count",
            "task": {"ttl": 60000},
            "arguments": {"seconds": 0.4, "steps": 4},
            "_meta": {"progressToken": 7},
        },
    )["result"]
    task = created["task"]
    assert task["status"] == "working" and task["ttl"] == 60000
    assert task["pollInterval"] > 0 and task["createdAt"].endswith("Z")
    task_id = task["taskId"]
    assert peer.request("tasks/get", {"taskId": task_id})["result"]["taskId"] == task_id
    listed = peer.request("tasks/list")["result"]["tasks"]
    assert task_id in [t["taskId"] for t in listed]
    final = peer.request("tasks/result", {"taskId": task_id})["result"]
    assert final["content"][0]["text"].startswith("Counted to 4")
    assert final["_meta"]["io.modelcontextprotocol/related-task"] == {"taskId": task_id}
    assert peer.request("tasks/get", {"taskId": task_id})["result"]["status"] == "completed"
    statuses = [n["params"]["status"] for n in peer.notifications("notifications/tasks/status")]
    assert statuses[-1] == "completed"
    assert len(peer.notifications("notifications/progress")) == 4
    cancel_done = peer.request("tasks/cancel", {"taskId": task_id})
    assert cancel_done["error"]["code"] == -32602
    assert peer.request("tasks/get", {"taskId": "nope"})["error"]["code"] == -32602


def test_task_waiting_for_the_client_is_input_required(raw: Callable[..., RawPeer]) -> None:
    peer = raw()
    peer.initialize(caps={"sampling": {}})
    created = peer.request(
        "tools/call", {"name": "ask_llm", "task": {"ttl": 1000}, "arguments": {"question": "q"}}
    )["result"]
    task_id = created["task"]["taskId"]
    # The task may ask before or after its CreateTaskResult reaches us.
    asked = next((m for m in peer.other if m.get("method") == "sampling/createMessage"), None)
    while asked is None or asked.get("method") != "sampling/createMessage":
        if asked is not None:
            peer.other.append(asked)
        asked = peer.recv()
    related = {"io.modelcontextprotocol/related-task": {"taskId": task_id}}
    assert asked["params"]["_meta"] == related
    assert peer.request("tasks/get", {"taskId": task_id})["result"]["status"] == "input_required"
    peer.send(
        {
            "jsonrpc": "2.0",
            "id": asked["id"],
            "result": {
                "role": "assistant",
                "model": "m",
                "content": {"type": "text", "text": "yes"},
            },
        }
    )
    final = peer.request("tasks/result", {"taskId": task_id})["result"]
    assert final["content"][0]["text"] == "yes" and final["_meta"] == related
    statuses = [n["params"]["status"] for n in peer.notifications("notifications/tasks/status")]
    assert statuses == ["input_required", "working", "completed"]


def test_task_cancel_and_task_rules(raw: Callable[..., RawPeer]) -> None:
    peer = raw()
    peer.initialize()
    created = peer.request(
        "tools/call", {"name": "generate_report", "task": {}, "arguments": {"seconds": 30}}
    )["result"]
    task_id = created["task"]["taskId"]
    waiting = peer.start("tasks/result", {"taskId": task_id})
    cancelled = peer.request("tasks/cancel", {"taskId": task_id})["result"]
    assert cancelled["status"] == "cancelled"
    assert peer.wait_response(waiting)["error"]["code"] == -32603
    assert peer.request("tasks/get", {"taskId": task_id})["result"]["status"] == "cancelled"
    echo = peer.request("tools/call", {"name": "echo", "task": {}, "arguments": {"message": "x"}})
    assert echo["error"]["code"] == -32601
    plain = peer.request("tools/call", {"name": "generate_report", "arguments": {}})
    assert plain["error"]["code"] == -32601


def test_exits_cleanly_on_eof_with_work_in_flight(raw: Callable[..., RawPeer]) -> None:
    peer = raw()
    peer.initialize()
    peer.start("tools/call", {"name": "slow_count", "arguments": {"seconds": 30}})
    started = time.monotonic()
    assert peer.close() == 0
    assert time.monotonic() - started < 3


def test_imports_stay_light() -> None:
    code = (
        "import sys, inspector.demo.__main__; "
        "print(sorted(m for m in ('textual', 'httpx', 'jsonschema', 'pydantic', 'mcp', "
        "'asyncio', 'anyio') if m in sys.modules))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        timeout=20,
    )
    assert out.stdout.strip() == "[]", out.stderr
