"""Formats jsonschema does not check without optional packages: checked here, offline."""

from __future__ import annotations

from typing import Any

import pytest

from inspector.demo.schemas import SCHEDULE_EVENT
from inspector.forms.formats import CHECKS
from inspector.forms.schema import validate

GOOD_AND_BAD: dict[str, tuple[list[str], list[str]]] = {
    "date-time": (
        ["2026-12-01T10:00:00Z", "2026-12-01t10:00:00.5+01:00", "2016-12-31T23:59:60Z"],
        [
            "",
            "2026-12-01",
            "2026-13-01T10:00:00Z",
            "2026-02-30T10:00:00Z",
            "2026-12-01T24:00:00Z",
            "2026-12-01T10:00:00",
            "tomorrow",
        ],
    ),
    "time": (["10:00:00Z", "23:59:59.123-05:00"], ["", "10:00", "25:00:00Z"]),
    "duration": (["P1D", "PT1H30M", "P1Y2M", "P2W"], ["", "P", "PT", "1D", "P1H"]),
    "uri": (
        ["https://example.com/x?q=1", "urn:isbn:0451450523", "file:///tmp/a"],
        ["", "example.com", "/relative/path", "https://exa mple.com", "1http://x"],
    ),
    "uri-reference": (["/relative/path", "", "../x#frag"], ["has space", "tab\there"]),
    "hostname": (
        ["example.com", "localhost", "a-b.c."],
        ["", "-bad.com", "under_score.com", "a" * 64 + ".com"],
    ),
}


@pytest.mark.parametrize("fmt", sorted(GOOD_AND_BAD))
def test_format_checks(fmt: str) -> None:
    good, bad = GOOD_AND_BAD[fmt]
    check = CHECKS[fmt]
    assert [v for v in good if not check(v)] == []
    assert [v for v in bad if check(v)] == []
    assert check(42)  # formats constrain strings only


@pytest.mark.parametrize("fmt", sorted(GOOD_AND_BAD))
def test_validation_reports_a_bad_format_on_its_field(fmt: str) -> None:
    schema: dict[str, Any] = {
        "type": "object",
        "properties": {"v": {"type": "string", "format": fmt}},
    }
    good, bad = GOOD_AND_BAD[fmt]
    assert validate(schema, {"v": good[0]}) == []
    issues = validate(schema, {"v": bad[-1]})
    assert [issue.path for issue in issues] == [("v",)]
    assert fmt in issues[0].message


def test_an_empty_required_date_time_in_a_union_is_reported() -> None:
    """What the demo's schedule_event form sent before: when = "" passed validation."""
    issues = validate(SCHEDULE_EVENT, {"title": "Design review", "when": ""})
    assert issues and all(issue.path[:1] == ("when",) for issue in issues)
    assert (
        validate(SCHEDULE_EVENT, {"title": "Design review", "when": "2026-12-01T10:00:00Z"}) == []
    )
