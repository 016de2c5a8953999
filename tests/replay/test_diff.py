"""The structural diff and its ignore paths."""

from __future__ import annotations

import pytest

from inspector.replay.diff import (
    DEFAULT_IGNORES,
    IgnoreRule,
    PathError,
    diff,
    format_path,
    parse_rules,
)


def paths(old: object, new: object, *ignore: str, defaults: bool = False) -> list[str]:
    return [c.path for c in diff(old, new, parse_rules(ignore, defaults=defaults)).changes]


def test_equal_values_have_no_changes() -> None:
    value = {"a": [1, {"b": None}], "c": "x", "d": 1.5, "e": True}
    assert diff(value, dict(value)).same


def test_changed_added_removed_and_type() -> None:
    result = diff({"a": 1, "b": 2, "c": "1"}, {"a": 1, "c": 1, "d": [1]})
    got = {c.path: (c.kind, c.old, c.new) for c in result.changes}
    assert got == {
        "$.b": ("removed", 2, None),
        "$.c": ("type", "1", 1),
        "$.d": ("added", None, [1]),
    }


def test_bool_is_not_a_number_but_int_equals_float() -> None:
    assert paths({"x": True}, {"x": 1}) == ["$.x"]
    assert paths({"x": 1}, {"x": 1.0}) == []


def test_lists_by_index_and_length() -> None:
    result = diff([1, 2, 3], [1, 5])
    assert [(c.path, c.kind) for c in result.changes] == [("$[1]", "changed"), ("$[2]", "removed")]


def test_named_items_pair_by_name() -> None:
    old = {"tools": [{"name": "a", "v": 1}, {"name": "b", "v": 2}, {"name": "c", "v": 3}]}
    new = {"tools": [{"name": "a", "v": 1}, {"name": "c", "v": 4}, {"name": "d", "v": 5}]}
    got = [(c.path, c.kind) for c in diff(old, new).changes]
    assert got == [("$.tools[1]", "removed"), ("$.tools[2].v", "changed"), ("$.tools[2]", "added")]


def test_duplicate_names_fall_back_to_indexes() -> None:
    old = [{"name": "a"}, {"name": "a", "x": 1}]
    assert paths(old, [{"name": "a"}, {"name": "a", "x": 2}]) == ["$[1].x"]


@pytest.mark.parametrize(
    ("rule", "path", "hit"),
    [
        ("$.result.content[*].text", ("result", "content", 3, "text"), True),
        ("$.result.content[*].text", ("result", "content", 3, "type"), False),
        ("result.meta.timestamp", ("result", "meta", "timestamp"), True),
        ("result.meta", ("result", "meta", "timestamp"), True),  # a subtree
        ("$..timestamp", ("result", "a", 0, "timestamp"), True),
        ("$..timestamp", ("timestamp",), True),
        ("$..timestamp", ("result", "timestamps"), False),
        ("$.result.*.x", ("result", "k", "x"), True),
        ("$.result[0]", ("result", 0), True),
        ("$.result[0]", ("result", "0"), False),
        ('$["odd key"].v', ("odd key", "v"), True),
        ("$['odd.key']", ("odd.key",), True),
        ("$..content[*].text", ("result", "content", 0, "text"), True),
        ("$.id", ("result", "id"), False),
    ],
)
def test_rule_matching(rule: str, path: tuple[object, ...], hit: bool) -> None:
    assert IgnoreRule.parse(rule).matches(path) is hit  # type: ignore[arg-type]


@pytest.mark.parametrize("bad", ["", "$.a[", "$..", "$.a[x]", "a..", "$.a]"])
def test_bad_paths_are_usage_errors(bad: str) -> None:
    with pytest.raises(PathError):
        IgnoreRule.parse(bad)


def test_ignored_changes_are_kept_apart() -> None:
    old = {"id": 1, "result": {"taskId": "t-1", "text": "a"}}
    new = {"id": 7, "result": {"taskId": "t-9", "text": "b"}}
    result = diff(old, new, parse_rules([]))
    assert [c.path for c in result.changes] == ["$.result.text"]
    assert {c.path for c in result.ignored} == {"$.id", "$.result.taskId"}


def test_defaults_cover_volatile_fields() -> None:
    assert "$.id" in DEFAULT_IGNORES and "$..progressToken" in DEFAULT_IGNORES
    old = {"id": 1, "params": {"_meta": {"progressToken": "p1"}, "timestamp": "t0"}}
    new = {"id": 2, "params": {"_meta": {"progressToken": "p2"}, "timestamp": "t1"}}
    assert paths(old, new, defaults=True) == []
    assert len(paths(old, new, defaults=False)) == 3


def test_format_path_quotes_odd_keys() -> None:
    assert format_path(("result", "a b", 0, "x-y")) == '$.result["a b"][0].x-y'
