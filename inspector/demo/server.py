"""The demo MCP server's core: stdio framing, dispatch, cancellation and client requests.

One JSON-RPC message per line on stdin and stdout; human logs on stderr. The
main thread reads stdin; slow requests (``tools/call``, ``tasks/result``) run on
worker threads so the server keeps reading while they wait, which is what lets
a tool send ``sampling/createMessage`` and get the answer, or be cancelled.
"""

from __future__ import annotations

import contextlib
import itertools
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import IO, Any

from inspector.demo import methods, stateless
from inspector.demo.context import LEVELS, Cancelled, DemoState, at_least
from inspector.demo.resources import COUNTER_URI
from inspector.demo.tasks import TaskStore
from inspector.wire.jsonrpc import (
    CONNECTION_CLOSED,
    INTERNAL_ERROR,
    INVALID_PARAMS,
    INVALID_REQUEST,
    METHOD_NOT_FOUND,
    PARSE_ERROR,
    REQUEST_TIMEOUT,
    RpcError,
    decode,
    encode,
    error_response,
    notification,
    request,
    response,
)

# Requests that may wait a long time run on their own thread.
THREADED = frozenset({"tools/call", "tasks/result"})


@dataclass
class Call:
    """One incoming request while it is being handled."""

    id: Any
    method: str
    params: dict[str, Any]
    cancel: threading.Event = field(default_factory=threading.Event)
    stateless: bool = False  # a 2026-07-28 request: its result gets that era's fields


@dataclass
class _Waiter:
    done: threading.Event = field(default_factory=threading.Event)
    message: dict[str, Any] | None = None


class DemoServer:
    """A stdio MCP server; ``serve()`` returns when stdin reaches EOF."""

    def __init__(
        self,
        out: IO[bytes],
        *,
        variant: str = "default",
        tick: float = 2.0,
        err: IO[str] | None = None,
        eras: str = "handshake",
    ) -> None:
        self.state = DemoState(variant=variant, tick=tick)
        self.eras = eras  # "all": 2026-07-28 (server/discover, stateless requests) too
        self.tasks = TaskStore(lambda task: self.notify("notifications/tasks/status", task))
        self._out = out
        self._err = err if err is not None else sys.stderr
        self._write_lock = threading.Lock()
        self._calls: dict[Any, Call] = {}
        self._calls_lock = threading.Lock()
        self._waiters: dict[str, _Waiter] = {}
        self._ids = itertools.count(1)
        self._closed = threading.Event()
        self._ticking = False
        self._handlers: dict[str, Callable[[DemoServer, Call], Any]] = methods.HANDLERS

    # ---- framing -------------------------------------------------------------------
    def serve(self, inp: IO[bytes]) -> None:
        self.stderr(f"ready (variant {self.state.variant})")
        try:
            for raw in iter(inp.readline, b""):
                self.handle_line(raw)
                if self._closed.is_set():
                    break
        finally:
            self.close()

    def close(self) -> None:
        self._closed.set()
        with self._calls_lock:
            for call in self._calls.values():
                call.cancel.set()
        self.stderr("stdin closed, exiting")

    def stderr(self, text: str) -> None:
        with contextlib.suppress(OSError, ValueError):
            print(f"[demo] {text}", file=self._err, flush=True)

    def send(self, message: Any) -> None:
        try:
            data = encode(message) + b"\n"
        except (TypeError, ValueError, RecursionError) as exc:  # e.g. an absurdly deep result
            self.stderr(f"cannot encode an outgoing message: {exc!r}")
            if not (isinstance(message, dict) and "id" in message and "method" not in message):
                return
            data = (
                encode(
                    error_response(
                        message["id"],
                        INTERNAL_ERROR,
                        f"Internal error: result not encodable ({exc})",
                    )
                )
                + b"\n"
            )
        with self._write_lock:
            try:
                self._out.write(data)
                self._out.flush()
            except (OSError, ValueError):
                self._closed.set()  # the client went away

    def notify(self, method: str, params: dict[str, Any] | None = None) -> None:
        self.send(notification(method, params))

    def handle_line(self, raw: bytes) -> None:
        """Handle one stdin line; never raises."""
        if not raw.strip():
            return
        message, problem = decode(raw)
        if problem is not None:
            self.stderr(f"unparsable line: {problem}")
            self.send(error_response(None, PARSE_ERROR, f"Parse error: {problem}"))
            return
        if isinstance(message, list):
            if not message or at_least(self.state.protocol_version, "2025-06-18"):
                self.send(
                    error_response(
                        None, INVALID_REQUEST, "Invalid Request: batches are not supported here"
                    )
                )
                return
            for item in message:  # 2025-03-26 batches: answer each element on its own
                self._dispatch(item)
            return
        self._dispatch(message)

    def _dispatch(self, msg: Any) -> None:
        try:
            if not isinstance(msg, dict) or msg.get("jsonrpc") != "2.0":
                raise RpcError(INVALID_REQUEST, "Invalid Request: not a JSON-RPC 2.0 object")
            if "method" in msg:
                if "id" in msg:
                    self._on_request(msg)
                else:
                    self._on_notification(msg)
            elif "result" in msg or "error" in msg:
                self._on_response(msg)
            else:
                raise RpcError(INVALID_REQUEST, "Invalid Request: no method, result or error")
        except RpcError as exc:
            req_id = msg.get("id") if isinstance(msg, dict) else None
            valid = isinstance(req_id, str | int) and not isinstance(req_id, bool)
            self.send(error_response(req_id if valid else None, exc.code, exc.message, exc.data))
        except Exception:  # never crash on one bad message
            self.stderr("internal error while dispatching:\n" + _traceback())

    # ---- requests from the client --------------------------------------------------
    def _on_request(self, msg: dict[str, Any]) -> None:
        req_id, method, params = msg["id"], msg["method"], msg.get("params")
        if not isinstance(req_id, str | int) or isinstance(req_id, bool):
            raise RpcError(INVALID_REQUEST, "Invalid Request: id must be a string or an integer")
        if not isinstance(method, str):
            raise RpcError(INVALID_REQUEST, "Invalid Request: method must be a string")
        if params is not None and not isinstance(params, dict):
            raise RpcError(INVALID_PARAMS, "Invalid params: params must be an object")
        self.stderr(f"<- {method} (id {req_id!r})")
        modern = self.eras == "all" and (
            method == "server/discover" or stateless.requested_version(params or {}) is not None
        )
        if modern:
            refused = stateless.refusal(method, params or {})
            if refused is not None:  # -32022 for a version not served, -32602, -32601
                raise refused
            stateless.adopt(self, params or {})
        handler: Callable[[DemoServer, Call], Any] | None = self._handlers.get(method)
        if modern and method == "server/discover":
            handler = stateless.discover
        if handler is None:
            raise RpcError(METHOD_NOT_FOUND, f"Method not found: {method}")
        call = Call(req_id, method, params or {}, stateless=modern)
        with self._calls_lock:
            self._calls[req_id] = call
        if method in THREADED:
            threading.Thread(
                target=self._run, args=(handler, call), daemon=True, name=f"demo-{method}-{req_id}"
            ).start()
        else:
            self._run(handler, call)

    def _run(self, handler: Callable[[DemoServer, Call], Any], call: Call) -> None:
        try:
            result = handler(self, call)
            reply = response(
                call.id, stateless.finish(call.method, result) if call.stateless else result
            )
        except Cancelled:
            reply = None
        except RpcError as exc:
            reply = error_response(call.id, exc.code, exc.message, exc.data)
        except Exception as exc:
            self.stderr(f"{call.method} failed:\n" + _traceback())
            reply = error_response(call.id, INTERNAL_ERROR, f"Internal error: {exc}")
        with self._calls_lock:
            if self._calls.get(call.id) is call:
                del self._calls[call.id]
            # After notifications/cancelled the request gets no response at all.
            if call.cancel.is_set():
                reply = None
        if reply is None:
            self.stderr(f"no response to cancelled request {call.id!r}")
        else:
            self.send(reply)

    def _on_notification(self, msg: dict[str, Any]) -> None:
        method, params = msg.get("method"), msg.get("params")
        params = params if isinstance(params, dict) else {}
        self.stderr(f"<- notification {method}")
        if method == "notifications/cancelled":
            with self._calls_lock:
                call = self._calls.get(params.get("requestId"))
            if call is not None and call.method != "initialize":
                call.cancel.set()
        elif method == "notifications/roots/list_changed":
            self.log("info", {"event": "the client's roots changed"}, "demo.roots")

    def _on_response(self, msg: dict[str, Any]) -> None:
        waiter = self._waiters.pop(str(msg.get("id")), None)
        if waiter is None:
            self.stderr(f"response to an unknown request id {msg.get('id')!r}")
            return
        waiter.message = msg
        waiter.done.set()

    # ---- requests and notifications to the client ----------------------------------
    def request_client(
        self, method: str, params: dict[str, Any] | None, cancel: threading.Event, timeout: float
    ) -> Any:
        """Send a request to the client and block this worker thread until it answers."""
        req_id = f"demo-{next(self._ids)}"
        waiter = _Waiter()
        self._waiters[req_id] = waiter
        self.send(request(req_id, method, params))
        waited = 0.0
        try:
            while not waiter.done.wait(0.05):
                waited += 0.05
                if cancel.is_set() or waited >= timeout:
                    reason = "the tool call was cancelled" if cancel.is_set() else "timed out"
                    self.notify("notifications/cancelled", {"requestId": req_id, "reason": reason})
                    if cancel.is_set():
                        raise Cancelled
                    raise RpcError(REQUEST_TIMEOUT, f"{method} timed out after {timeout:.0f} s")
                if self._closed.is_set():
                    raise RpcError(CONNECTION_CLOSED, "the client went away")
        finally:
            self._waiters.pop(req_id, None)
        answer = waiter.message or {}
        if "error" in answer:
            raise RpcError.from_error(answer["error"])
        return answer.get("result")

    def log(self, level: str, data: Any, logger: str | None = None) -> None:
        """Send notifications/message when ``level`` passes logging/setLevel."""
        if LEVELS.index(level) < LEVELS.index(self.state.log_level):
            return
        params: dict[str, Any] = {"level": level, "data": data}
        if logger:
            params["logger"] = logger
        self.notify("notifications/message", params)

    def resource_updated(self, uri: str) -> None:
        with self.state.lock:
            subscribed = uri in self.state.subscriptions
        if subscribed:
            self.notify("notifications/resources/updated", {"uri": uri})

    def start_ticker(self) -> None:
        """While demo://counter is subscribed, bump it and notify every ``tick`` seconds."""
        with self.state.lock:
            if self._ticking:
                return
            self._ticking = True
        threading.Thread(target=self._tick, daemon=True, name="demo-counter").start()

    def _tick(self) -> None:
        while not self._closed.wait(self.state.tick):
            with self.state.lock:
                if COUNTER_URI not in self.state.subscriptions:
                    self._ticking = False
                    return
                self.state.counter += 1
            self.resource_updated(COUNTER_URI)


def _traceback() -> str:
    """The exception being handled, formatted (``traceback`` loads only then: start-up)."""
    import traceback

    return traceback.format_exc()
