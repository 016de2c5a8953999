"""A big frame parsed folded (``inspector.wire.folded``): the same values as ``json.loads``
where nothing is left out, long arrays and objects cut to their first items with their
count from the wire, at most a budget of values kept, and bad JSON refused."""

from __future__ import annotations

import json
from typing import Any

import pytest

from inspector.wire.folded import (
    FOLD_ITEMS,
    FoldedDict,
    FoldedList,
    fold_loads,
    is_folded,
    total,
)


def values(value: Any) -> int:
    """How many values ``value`` holds, itself included."""
    count, todo = 0, [value]
    while todo:
        item = todo.pop()
        count += 1
        if isinstance(item, dict):
            todo.extend(item.values())
        elif isinstance(item, list):
            todo.extend(item)
    return count


DOCUMENTS = [
    {"jsonrpc": "2.0", "id": 7, "result": {"content": [{"type": "text", "text": "hi"}]}},
    [1, -2.5e-3, 1e400, True, False, None, "", [], {}, [[[]]], {"a": {"b": {}}}],
    {"k": 'esc "quoted" \\ back\nslash \u00e9 \ud83d\ude00 \u0000', "same": 1, "n": -0},
    {"dup": 1, "other": 2, "dup": 3},  # noqa: F601 - json keeps the last, in the first's place
    "just a string",
    12345678901234567890,
    {"rows": [{"id": n, "name": f"row {n}", "ok": n % 2 == 0} for n in range(FOLD_ITEMS)]},
]


@pytest.mark.parametrize("document", DOCUMENTS, ids=range(len(DOCUMENTS)))
@pytest.mark.parametrize("indent", [None, 2, "\t"])
def test_what_is_not_folded_parses_as_json_loads(document: Any, indent: Any) -> None:
    text = json.dumps(document, indent=indent, ensure_ascii=False)
    text = f" \r\n{text}\n "
    folded = fold_loads(text)
    assert folded == json.loads(text)
    assert not is_folded(folded)


def test_repeated_keys_keep_the_last_value_in_the_first_place() -> None:
    text = '{"a": 1, "b": 2, "a": 3}'
    assert list(fold_loads(text).items()) == list(json.loads(text).items())


def test_a_long_array_keeps_its_first_items_and_counts_them_all() -> None:
    rows = [{"id": n, "tags": ["x", n]} for n in range(5 * FOLD_ITEMS + 3)]
    text = json.dumps({"result": {"structuredContent": {"rows": rows}, "content": []}})
    folded = fold_loads(text)
    kept = folded["result"]["structuredContent"]["rows"]
    assert isinstance(kept, FoldedList)
    assert kept == rows[:FOLD_ITEMS]
    assert total(kept) == len(rows)
    assert folded["result"]["content"] == []  # what follows the long array is all there
    assert is_folded(folded)


def test_a_big_object_keeps_its_first_members_and_counts_them_all() -> None:
    members = {f"key {n}": [n] for n in range(FOLD_ITEMS + 10)}
    folded = fold_loads(json.dumps({"members": members, "after": True}))
    kept = folded["members"]
    assert isinstance(kept, FoldedDict)
    assert list(kept.items()) == list(members.items())[:FOLD_ITEMS]
    assert total(kept) == len(members)
    assert folded["after"] is True


def test_past_the_budget_containers_keep_no_more_values() -> None:
    """The values kept are bounded whatever the shape: arrays of arrays each under the
    item limit would otherwise be kept whole."""
    grid = [[[n, m] for m in range(300)] for n in range(300)]
    folded = fold_loads(json.dumps(grid), values=2_000)
    assert values(folded) <= 2_000 + 3  # the budget, and the containers it ran out in
    assert total(folded) == 300
    assert all(total(row) == 300 for row in folded)
    assert folded[0] == grid[0]


def test_a_nested_value_too_deep_to_walk_is_parsed_whole() -> None:
    deep: Any = [list(range(5_000))]
    for _ in range(80):
        deep = [deep]
    assert fold_loads(json.dumps(deep)) == deep


@pytest.mark.parametrize(
    "text",
    ["", " ", "[1,]", '{"a":1,}', "{1:2}", "[1 2]", '{"a" 1}', "[", '{"a":', "[1]x", "nul", '"'],
)
def test_what_json_refuses_is_refused(text: str) -> None:
    with pytest.raises(ValueError):
        json.loads(text)
    with pytest.raises(ValueError):
        fold_loads(text)


@pytest.mark.parametrize("tail", ["]", "1 2]", "1", '{"a":1,}]', "{1:2}]", "1]x", "nul]", "[}]"])
def test_what_json_refuses_past_the_items_kept_is_refused(tail: str) -> None:
    """Where the rest of an array is only skipped, not kept."""
    text = "[" + "0," * FOLD_ITEMS + tail
    with pytest.raises(ValueError):
        json.loads(text)
    with pytest.raises(ValueError):
        fold_loads(text)
