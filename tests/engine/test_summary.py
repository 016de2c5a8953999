"""One-line row summaries of events."""

from __future__ import annotations

from inspector.engine.summary import summarize
from inspector.wire.events import Channel, Direction
from inspector.wire.jsonrpc import encode, make_event, response


def summary_of(result: object) -> str:
    raw = encode(response(1, result))
    return summarize(make_event(Direction.IN, Channel.STDOUT, raw)).text


def test_prompt_messages_show_role_and_text() -> None:
    text = summary_of(
        {
            "messages": [
                {"role": "user", "content": {"type": "text", "text": "Write a casual greeting"}},
                {"role": "assistant", "content": {"type": "text", "text": "Hi"}},
            ]
        }
    )
    assert text == "user: Write a casual greeting (+1)"


def test_tool_content_shows_first_text() -> None:
    assert summary_of({"content": [{"type": "text", "text": "2.5"}]}) == "2.5"


def test_stateless_envelope_is_left_out_of_request_rows() -> None:
    """2026-07-28 stamps the same `_meta` envelope on every request: rows show the rest."""
    from inspector.wire.jsonrpc import request

    envelope = {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "mcp-inspect"},
        "io.modelcontextprotocol/clientCapabilities": {"roots": {}},
        "io.modelcontextprotocol/logLevel": "info",
    }

    def row(params: dict[str, object]) -> str:
        raw = encode(request(7, "resources/list", params))
        return summarize(make_event(Direction.OUT, Channel.STDIN, raw)).text

    assert row({"_meta": envelope}) == ""
    assert row({"cursor": "p5", "_meta": envelope}) == "cursor=p5"
    assert row({"_meta": {**envelope, "progressToken": 3}}) == "_meta={progressToken=3}"
    assert row({"_meta": {"progressToken": 3}}) == "_meta={progressToken=3}"  # handshake era


def test_invalid_ids_show_as_the_json_the_server_wrote() -> None:
    from inspector.engine.summary import show_id

    assert [show_id(v) for v in (True, [1], {"a": 1}, 7, "7", "abc")] == [
        "true",
        "[1]",
        '{"a":1}',
        "7",
        "'7'",
        "abc",
    ]
