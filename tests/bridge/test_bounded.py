"""Results kept to a size: what is cut says what it left out, and lists keep their shape."""

from __future__ import annotations

from inspector.bridge.bounded import bounded, bounded_list, cut_text, json_size, shrink


def test_a_small_value_is_kept_whole() -> None:
    value = {"content": [{"type": "text", "text": "hi"}]}
    assert bounded(value, 1000) == (value, json_size(value), False)


def test_a_huge_string_is_cut_saying_its_length() -> None:
    value = {"content": [{"type": "text", "text": "x" * 13_000_000}]}
    shown, size, cut = bounded(value, 2000)
    assert cut and size > 13_000_000 and json_size(shown) <= 2000
    assert shown["content"][0]["text"].endswith("[cut: 13000000 characters in all]")


def test_a_long_list_inside_a_value_says_how_many_there_were() -> None:
    shown = shrink({"items": list(range(100))})
    assert shown["items"][:20] == list(range(20)) and shown["items"][-1].endswith(
        "100 items in all]"
    )


def test_a_list_result_keeps_only_whole_items_that_fit() -> None:
    items = [{"rule": "r", "message": "m" * 50} for _ in range(100)]
    kept, cut = bounded_list(items, 1000)
    assert cut and 0 < len(kept) < 100 and all(isinstance(i, dict) for i in kept)
    assert bounded_list(items[:2], 1000) == (items[:2], False)


def test_a_text_is_paged_by_offset() -> None:
    assert cut_text("abcdef", 0, 4) == ("abcd", 4)
    assert cut_text("abcdef", 4, 4) == ("ef", None)
