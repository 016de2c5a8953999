"""A URI read back into a resource template's values (History: a read opened in its
template's form)."""

from __future__ import annotations

from inspector.engine.uritemplate import expand, match


def test_a_uri_gives_back_the_values_of_a_plain_template() -> None:
    assert match("demo://notes/{id}", "demo://notes/4") == {"id": "4"}
    assert match("demo://{kind}/{id}.json", "demo://notes/a%20b.json") == {
        "kind": "notes",
        "id": "a b",
    }
    values = {"kind": "x", "id": "7"}
    assert match("demo://{kind}/{id}", expand("demo://{kind}/{id}", values)) == values


def test_no_match_or_operators_give_none() -> None:
    assert match("demo://notes/{id}", "demo://users/4") is None
    assert match("demo://notes/{id}", "demo://notes/4/5") is None  # one segment a value
    assert match("file:///{+path}", "file:///a/b") is None  # operators: not read back
    assert match("demo://{id}/{id}", "demo://1/1") is None
