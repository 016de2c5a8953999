"""One-line row summaries of events."""

from __future__ import annotations

from inspector.engine.events import Channel, Direction
from inspector.engine.jsonrpc import encode, make_event, response
from inspector.engine.summary import summarize


def summary_of(result: object) -> str:
    raw = encode(response(1, result))
    return summarize(make_event(Direction.IN, Channel.STDOUT, raw)).text


def test_prompt_messages_show_role_and_text() -> None:
    text = summary_of({"messages": [
        {"role": "user", "content": {"type": "text", "text": "Write a casual greeting"}},
        {"role": "assistant", "content": {"type": "text", "text": "Hi"}}]})
    assert text == "user: Write a casual greeting (+1)"


def test_tool_content_shows_first_text() -> None:
    assert summary_of({"content": [{"type": "text", "text": "2.5"}]}) == "2.5"
