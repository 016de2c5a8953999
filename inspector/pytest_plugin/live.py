"""A connection for synchronous tests: the engine's session runs in a background event
loop (an anyio blocking portal) and each call waits for its answer there. Connected as
``--cli`` connects (:class:`~inspector.commands.connect.Connection`)."""

from __future__ import annotations

import json
from collections.abc import Callable, Coroutine
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any, TypeVar

from anyio.from_thread import BlockingPortal, start_blocking_portal

from inspector.collection.answers import StepAnswers
from inspector.collection.expect import result_text
from inspector.collection.model import Collection, CollectionFileError
from inspector.collection.run import Runner, StepResult
from inspector.commands.connect import Connection
from inspector.commands.failures import classify_failure, unwrap_failure
from inspector.commands.options import resolve_target
from inspector.commands.testrun import default_options, target_for
from inspector.engine.client import McpClient
from inspector.engine.kinds import KIND
from inspector.engine.responders import Responders
from inspector.engine.session import Session
from inspector.errors import InspectorError
from inspector.record.redact import Redactor
from inspector.target import Target
from inspector.wire.events import WireEvent

T = TypeVar("T")


class ConnectFailed(InspectorError):
    """The server could not be started, reached or opened: what happened, said once."""


class Live:
    """One connection in its own event loop thread; ``call`` runs a coroutine there."""

    def __init__(self, target: Target, responders: Responders | None = None) -> None:
        self.target = target
        self.responders = responders
        self.events: list[WireEvent] = []
        self.session: Session | None = None
        self._portal_cm: AbstractContextManager[BlockingPortal] | None = None
        self._portal: BlockingPortal | None = None
        self._connection: AbstractContextManager[Session] | None = None

    def open(self) -> Session:
        self._portal_cm = start_blocking_portal("asyncio")
        self._portal = self._portal_cm.__enter__()
        connection = Connection(
            self.target,
            responders=self.responders,
            timeout=default_options().timeout,
            observers=[self.events.append],  # the opening's events too
        )
        self._connection = self._portal.wrap_async_context_manager(connection)
        try:
            self.session = self._connection.__enter__()
        except BaseException as exc:
            self._connection = None
            self.close()
            failure = unwrap_failure(exc)
            if failure is None:
                raise
            error = classify_failure(failure, connection.session_expired)
            raise ConnectFailed(
                f"cannot connect to {self.target.describe()}: {error.message}"
            ) from None
        return self.session

    def call(self, func: Callable[..., Coroutine[Any, Any, T]], *args: Any) -> T:
        assert self._portal is not None, "not connected"
        result: T = self._portal.call(func, *args)
        return result

    def close(self) -> None:
        """Close the session (the server stopped), then the loop's thread."""
        try:
            if self._connection is not None:
                self._connection.__exit__(None, None, None)
        finally:
            self._connection = None
            if self._portal_cm is not None:
                self._portal_cm.__exit__(None, None, None)
            self._portal_cm = self._portal = None


class LiveCollection:
    """A collection file's steps on one connection, run up to the step asked for."""

    def __init__(self, collection: Collection, words: list[str], *, update: bool) -> None:
        self.collection = collection
        self.words = words
        self.update = update
        self.live: Live | None = None
        self.runner: Runner | None = None
        self.failed: InspectorError | None = None

    def open(self) -> None:
        """Nothing yet: the first step connects (so a failure is that step's, said once)."""

    def result_of(self, index: int) -> StepResult:
        if self.failed is not None:
            raise self.failed
        if self.runner is None:
            try:
                self._connect()
            except InspectorError as exc:
                self.failed = exc
                raise
        assert self.live is not None and self.runner is not None
        return self.live.call(self.runner.result_of, index)

    def _connect(self) -> None:
        opts = default_options()
        if self.words:
            target = resolve_target(opts, self.words)
        elif self.collection.server is not None:
            target = target_for(self.collection.server, opts)
        else:
            raise CollectionFileError(
                self.collection.path,
                1,
                "server",
                "no server: give server: in the file, or --mcp-target on pytest's command line",
            )
        answers = StepAnswers(self.collection)
        self.live = Live(target, answers.responders())
        session = self.live.open()
        redactor = Redactor(target.secrets())
        self.runner = Runner(
            self.collection, McpClient(session), answers, update=self.update, redactor=redactor
        )

    def close(self) -> None:
        if self.runner is not None:
            self.runner.snapshots.save()
        if self.live is not None:
            self.live.close()


@dataclass
class McpResult:
    """A result as a test reads it; ``raw`` is the result as the server sent it."""

    raw: dict[str, Any]

    @property
    def text(self) -> str:
        """The text content (a tool), the resource's text (a read), the messages' text (a
        prompt), joined by newlines."""
        return result_text(self.raw)

    @property
    def structured(self) -> Any:
        """``structuredContent`` (None when the result has none)."""
        return self.raw.get("structuredContent")

    @property
    def is_error(self) -> bool:
        """A tool error (``isError: true``), not a JSON-RPC error (those raise ``RpcError``)."""
        return self.raw.get("isError") is True


class McpTestClient:
    """The ``mcp_client`` fixture: a connected client whose calls wait for their answers.

    A JSON-RPC error raises :class:`inspector.wire.jsonrpc.RpcError` (``code``,
    ``message``, ``data``); ``events`` holds every wire event of the session so far."""

    def __init__(self, words: list[str]) -> None:
        self.target = resolve_target(default_options(), words)
        self._live = Live(self.target)
        self.client: McpClient | None = None

    def open(self) -> None:
        self.client = McpClient(self._live.open())

    def close(self) -> None:
        self._live.close()

    @property
    def events(self) -> list[WireEvent]:
        return list(self._live.events)

    @property
    def messages(self) -> list[Any]:
        """The JSON-RPC messages of ``events``, in wire order (parsed)."""
        return [e.message for e in self._live.events if e.message is not None]

    def _client(self) -> McpClient:
        assert self.client is not None, "not connected"
        return self.client

    def call(self, tool: str, arguments: dict[str, Any] | None = None, **kw: Any) -> McpResult:
        """``tools/call``: ``call("add", {"a": 1})`` or ``call("add", a=1)``."""
        args = {**(arguments or {}), **kw}
        return McpResult(self._live.call(self._client().call_tool, tool, args))

    def read(self, uri: str) -> McpResult:
        return McpResult(self._live.call(self._client().read_resource, uri))

    def prompt(self, name: str, arguments: dict[str, Any] | None = None, **kw: Any) -> McpResult:
        args = {
            k: v if isinstance(v, str) else json.dumps(v)
            for k, v in {**(arguments or {}), **kw}.items()
        }
        return McpResult(self._live.call(self._client().get_prompt, name, args))

    def request(self, method: str, params: dict[str, Any] | None = None) -> Any:
        """Any request, raw: its result."""
        return self._live.call(self._client().session.request, method, params)

    def list(self, kind: str = "tools") -> list[dict[str, Any]]:
        """Every page of ``tools``, ``resources``, ``prompts`` or ``templates``."""
        name = "resource_templates" if kind == "templates" else kind
        if name not in KIND:
            raise ValueError(f"list: {kind!r}; use tools, resources, prompts or templates")
        return self._live.call(self._client().list_all, name)
