"""The log filter language: problems with their place, completion, is:error everywhere."""

from __future__ import annotations

from pathlib import Path

import pytest

from inspector.logstore.filter_query import KEYS, LogFilter, candidates, complete, tokens
from inspector.logstore.store import EventStore, FilteredView, scan_matching
from inspector.record.format import SessionHeader, encode_event
from inspector.record.indexed import IndexedSessionFile
from inspector.wire.events import Channel, Direction, Kind, WireEvent
from inspector.wire.jsonrpc import encode, error_response, make_event, request, response


def problems(query: str) -> list[tuple[str, str]]:
    """(the part of the query, the message) of each problem."""
    return [(query[p.start : p.end], p.message) for p in LogFilter.parse(query).problems]


def test_an_unknown_value_is_a_problem_at_its_place_and_the_rest_still_applies() -> None:
    query = "dir:in kind:request,bogus"
    found = problems(query)
    assert [part for part, _ in found] == ["bogus"]
    assert "unknown kind 'bogus'" in found[0][1]
    assert "request, response, error" in found[0][1]  # what it could have been
    flt = LogFilter.parse(query)
    assert flt.kinds == {Kind.REQUEST} and flt.directions == {Direction.IN}


def test_kind_bogus_alone_is_a_problem_not_an_empty_filter_without_a_word() -> None:
    flt = LogFilter.parse("kind:bogus")
    assert flt.is_empty and str(flt.problems[0]).startswith("unknown kind")


def test_an_unknown_key_is_a_problem_that_says_how_to_search_for_the_text() -> None:
    found = problems("knd:error tools")
    assert [part for part, _ in found] == ["knd"]
    assert 'quote it: "knd:error"' in found[0][1] and "kind" in found[0][1]
    assert LogFilter.parse('"knd:error"').terms == ("knd:error",)
    assert not problems("http://localhost:8000 12:30 Error:")  # text with colons


def test_the_filters_slash_typed_again_is_said_not_searched() -> None:
    """`/foo:bar` in the box (the `/` that opens the filter, typed once more) found no
    event and said nothing; paths and URLs stay text."""
    [(part, message)] = problems("/foo:bar")
    assert part == "/foo" and "unknown key 'foo' (keys: method, kind," in message
    [(part, message)] = problems("/kind:error")
    assert part == "/kind" and "the key is 'kind', without the / before it" in message
    assert not problems("/tmp/x:3 //host:80 /api")
    assert LogFilter.parse('"/foo:bar"').terms == ("/foo:bar",)


def test_a_key_without_a_value_says_what_values_it_takes() -> None:
    [(part, message)] = problems("dir:")
    assert part == "dir:" and "needs a value: in, out, local" in message


@pytest.mark.parametrize(
    ("query", "key", "values"),
    [
        ("dir:sideways", "dir", ["sideways"]),
        ("ch:pigeon", "ch", ["pigeon"]),
        ("is:broken", "is", ["broken"]),
        ("has:cake", "has", ["cake"]),
    ],
)
def test_every_key_checks_its_values(query: str, key: str, values: list[str]) -> None:
    assert [part for part, _ in problems(query)] == values


def test_tokens_know_their_place_and_key() -> None:
    [a, b, c] = tokens('m:tools/call "two words" plain')
    assert (a.key, a.value, a.start, a.end) == ("method", "tools/call", 0, 12)
    assert b.quoted and b.text == "two words" and (b.start, b.end) == (13, 24)
    assert c.key is None and c.text == "plain"


def test_completion_of_keys_and_values() -> None:
    assert complete("ki") == "kind:"
    assert complete("dir:in K") == "dir:in Kind:"  # what was typed stays as typed
    assert complete("dire") == "direction:"
    assert complete("kind:re") == "kind:request"
    assert complete("kind:request,res") == "kind:request,response"
    assert complete("is:e") == "is:error"
    assert complete("ch:std") == "ch:stdin"
    assert complete("method:tools/c", ["tools/list", "tools/call"]) == "method:tools/call"
    assert complete("kind:request") is None  # nothing to add
    assert complete("xyz") is None and complete("") is None and complete("dir:in ") is None
    assert complete('"ki') is None  # quoted text is text
    assert candidates("dir:") == ("dir", ["in", "out", "local"])
    assert candidates("")[0] == "key" and candidates("")[1] == [k.name for k in KEYS]


def tool_error(i: int) -> WireEvent:
    return make_event(
        Direction.IN,
        Channel.STDOUT,
        encode(response(i, {"content": [{"type": "text", "text": "nope"}], "isError": True})),
    )


def frames() -> list[WireEvent]:
    out = Direction.OUT
    events = [
        make_event(out, Channel.STDIN, encode(request(1, "tools/call", {"name": "a"}))),
        tool_error(1),
        make_event(out, Channel.STDIN, encode(request(2, "tools/call", {"name": "b"}))),
        make_event(Direction.IN, Channel.STDOUT, encode(error_response(2, -32602, "bad"))),
        make_event(out, Channel.STDIN, encode(request(3, "tools/call", {"name": "c"}))),
        make_event(Direction.IN, Channel.STDOUT, encode(response(3, {"content": []}))),
        # a text that mentions isError is not a failed result
        make_event(out, Channel.STDIN, encode(request(4, "x", {"isError": True}))),
    ]
    for n, event in enumerate(events, 1):
        event.seq = n
    return events


def test_is_error_finds_json_rpc_errors_and_failed_tool_results_in_the_store() -> None:
    store = EventStore()
    store.extend(frames())
    view = FilteredView(store, LogFilter.parse("is:error"))
    view.catch_up()
    assert list(view.indices) == [1, 3]
    kind_error = FilteredView(store, LogFilter.parse("kind:error"))
    kind_error.catch_up()
    assert list(kind_error.indices) == [3]  # kind: is the wire's kind
    assert list(scan_matching(store, LogFilter.parse("is:error"), 0, len(store))) == [1, 3]
    assert store.method_names() == ["tools/call", "x"]


def test_is_error_finds_failed_tool_results_in_a_session_file(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(
        SessionHeader({"command": "x"}).to_line() + b"".join(encode_event(e) for e in frames())
    )
    with IndexedSessionFile(path) as f:
        view = FilteredView(f, LogFilter.parse("is:error"))
        view.catch_up()
        assert list(view.indices) == [1, 3]
        both = FilteredView(f, LogFilter.parse("is:error method:tools/call"))
        both.catch_up()
        assert list(both.indices) == [1, 3]
        assert set(f.method_names()) == {"tools/call", "x"}
