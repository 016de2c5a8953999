"""The checks ``--cli`` and the TUI share: a call's arguments against the inputSchema,
a result against the outputSchema (inspector/forms/arguments.py, output.py)."""

from __future__ import annotations

from typing import Any

import pytest
from rich.console import Console

from inspector.forms.arguments import check_arguments, unknown_arguments
from inspector.forms.output import OutputStatus, check_output
from inspector.tui.widgets.result_view import Outcome, render_outcome

AB = {"type": "object", "properties": {"a": {"type": "number"}, "b": {}}, "required": ["a"]}


@pytest.mark.parametrize(
    ("schema", "arguments", "unknown"),
    [
        (AB, {"a": 1, "c": 2}, ["c"]),
        ({"type": "object", "properties": {}}, {"x": 1}, ["x"]),  # takes no arguments
        ({"type": "object"}, {"x": 1}, []),  # names nothing: anything goes
        ({}, {"x": 1}, []),
        ({**AB, "additionalProperties": True}, {"c": 1}, []),
        ({**AB, "additionalProperties": False}, {"c": 1}, []),  # jsonschema says it
        ({**AB, "patternProperties": {"^x-": {}}}, {"x-trace": 1, "y": 2}, ["y"]),
        (
            {"oneOf": [AB, {"type": "object", "properties": {"q": {}}}]},
            {"q": 1, "z": 2},
            ["z"],
        ),
        ({"$ref": "#/$defs/ab", "$defs": {"ab": AB}}, {"a": 1, "zz": 0}, ["zz"]),
        ({"allOf": [AB, {"properties": {"c": {}}}]}, {"a": 1, "c": 1, "d": 1}, ["d"]),
    ],
)
def test_unknown_arguments(
    schema: dict[str, Any], arguments: dict[str, Any], unknown: list[str]
) -> None:
    assert [issue.path[0] for issue in unknown_arguments(schema, arguments)] == unknown


def test_check_arguments_in_the_schemas_words() -> None:
    issues = check_arguments(AB, {"a": "one", "c": 1})
    assert [(i.path, i.message) for i in issues] == [
        (("a",), 'must be a number (got "one")'),
        (("c",), "unknown argument (the tool takes: a, b)"),
    ]
    assert [(i.path, i.message) for i in check_arguments(AB, {})] == [(("a",), "required")]
    closed = {**AB, "additionalProperties": False}
    (issue,) = check_arguments(closed, {"a": 1, "c": 1})
    # once, not twice; in JSON, not in Python's repr
    assert issue.message == 'unexpected property "c" (additionalProperties: false)'


OUT = {"type": "object", "properties": {"t": {"type": "number"}}, "required": ["t"]}


@pytest.mark.parametrize(
    ("schema", "result", "status"),
    [
        (OUT, {"structuredContent": {"t": 1}}, OutputStatus.MATCHES),
        (OUT, {"structuredContent": {"t": "x"}}, OutputStatus.MISMATCH),
        (OUT, {"content": []}, OutputStatus.MISSING),
        (OUT, {"structuredContent": {"t": "x"}, "isError": True}, OutputStatus.NOT_CHECKED),
        (None, {"structuredContent": {"t": "x"}}, OutputStatus.NOT_CHECKED),
    ],
)
def test_check_output(schema: Any, result: dict[str, Any], status: OutputStatus) -> None:
    checked = check_output(schema, result)
    assert checked.status is status
    assert checked.failed is (status in (OutputStatus.MISMATCH, OutputStatus.MISSING))


@pytest.mark.parametrize(
    ("result", "shown"),
    [
        ({"structuredContent": {"t": 1}}, "✓ matches outputSchema"),
        ({"structuredContent": {"t": "x"}}, 't: must be a number (got "x")'),
        ({"content": []}, "outputSchema declared but no structuredContent"),
    ],
)
def test_the_result_view_shows_the_same_check(result: dict[str, Any], shown: str) -> None:
    console = Console(width=120, record=True)
    console.print(render_outcome(Outcome("tools/call", result=result, output_schema=OUT)))
    assert shown in console.export_text()
