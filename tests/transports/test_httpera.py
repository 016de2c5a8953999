"""The Streamable HTTP transport's parts: a message parsed once (``Outgoing``) and the two
eras' HTTP rules (``httpera``), chosen by the version, asked instead of compared."""

from __future__ import annotations

from typing import Any

from inspector.transports.httpera import SESSION_ERA, STATELESS_ERA, http_era
from inspector.transports.httpout import Outgoing
from inspector.wire.events import WireEvent
from inspector.wire.jsonrpc import encode, notification, request, response


def _nowhere(event: WireEvent) -> None:
    raise AssertionError("parsing emits nothing")


def _out(message: Any) -> Outgoing:
    return Outgoing.parse(encode(message), None, _nowhere)


def test_a_message_is_read_once_for_what_its_exchange_needs() -> None:
    call = _out(request(5, "tools/call", {"name": "echo", "arguments": {"user": {"id": 3}}}))
    assert (call.method, call.rid, call.tool, call.arguments) == (
        "tools/call",
        5,
        "echo",
        {"user": {"id": 3}},
    )
    assert call.is_request and call.what == "tools/call"
    cancel = _out(notification("notifications/cancelled", {"requestId": 5}))
    assert cancel.cancels == 5 and not cancel.is_request
    answer = _out(response(9, {}))  # the client's answer to a server request
    assert answer.rid is None and answer.method is None and answer.what == "response"
    odd = Outgoing.parse(b"[1, 2]", None, _nowhere)  # a batch or junk: nothing to read
    assert odd.message == [1, 2] and odd.method is None and odd.rid is None


def test_the_era_is_chosen_by_the_version_and_says_what_http_does() -> None:
    assert http_era(False) is SESSION_ERA and http_era(True) is STATELESS_ERA
    assert SESSION_ERA.keeps_session and SESSION_ERA.resumes_streams
    assert SESSION_ERA.opens_get_stream and SESSION_ERA.posts_cancel
    assert not any(
        (
            STATELESS_ERA.keeps_session,
            STATELESS_ERA.resumes_streams,
            STATELESS_ERA.opens_get_stream,
            STATELESS_ERA.posts_cancel,
        )
    )
    call = _out(request(5, "tools/call", {"name": "echo", "arguments": {"user": {"id": 3}}}))
    tool_headers = {"echo": {("user", "id"): "User"}}
    assert SESSION_ERA.headers(call, tool_headers) == {}
    assert STATELESS_ERA.headers(call, tool_headers) == {
        "Mcp-Method": "tools/call",
        "Mcp-Name": "echo",
        "Mcp-Param-User": "3",
    }
    listing = _out(request(6, "tools/list"))
    assert STATELESS_ERA.headers(listing, tool_headers) == {"Mcp-Method": "tools/list"}
