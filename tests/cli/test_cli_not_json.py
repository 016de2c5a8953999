"""Arguments that are JSON only to Python (NaN, Infinity, 1e400, 5,000 digits, nesting
5,000 deep) are usage errors: exit 2, one clear line, and nothing sent, even with
``--no-validate``. A form keeps such text as text (its check then reports it)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_runner import cli
from paths import PY, SERVERS

from inspector.forms.schema import build_form, coerce_text
from inspector.forms.strict_json import MAX_DEPTH, NotJson, loads
from inspector.record.reader import read_session
from inspector.wire.events import Direction

SDK_SERVER = [PY, str(SERVERS / "sdk_stdio_server.py")]
DIGITS = "9" * 5000
DEEP = "[" * 5000 + "]" * 5000


@pytest.mark.parametrize(
    ("flags", "words"),
    [
        (["--tool-args-json", '{"a": Infinity, "b": NaN}'], "Infinity is not JSON"),
        (["--tool-args-json", '{"a": 1e400, "b": 1}'], "the number 1e400 is too large"),
        (["--tool-args-json", f'{{"a": {DEEP}, "b": 1}}'], "nested more than 100 levels"),
        (["--tool-args-json", f'{{"a": {DIGITS}, "b": 1}}'], "more than 4,300 digits"),
        (["--tool-arg", f"a={DIGITS}", "--tool-arg", "b=1"], "a: a number of 5,000 digits"),
    ],
)
def test_arguments_that_are_not_json_are_usage_errors_and_nothing_is_sent(
    tmp_path: Path, flags: list[str], words: str
) -> None:
    record = tmp_path / "s.jsonl"
    done = cli(
        "--cli", "--method", "tools/call", "--no-validate", "--tool-name", "add", *flags,
        "--record", str(record), "--", *SDK_SERVER,
    )  # fmt: skip
    assert done.returncode == 2, done.stderr
    (line,) = done.stderr.strip().splitlines()  # one JSON line, no traceback
    error = json.loads(line)["error"]
    assert error["kind"] == "usage" and words in error["message"], error
    assert "nothing was sent" in error["message"]
    assert done.stdout == ""
    if record.exists():  # --tool-arg needs the listed schema: the server was started
        events = read_session(record).events
        sent = [e.message.get("method") for e in events if e.direction is Direction.OUT]
        assert "tools/call" not in sent


def test_strict_loads_keeps_what_json_allows() -> None:
    nested: object = 1
    for _ in range(MAX_DEPTH - 1):
        nested = [nested]
    assert loads(json.dumps({"a": nested})) == {"a": nested}  # exactly MAX_DEPTH deep
    assert loads('{"n": 1.5e300, "i": -12, "s": "NaN"}') == {"n": 1.5e300, "i": -12, "s": "NaN"}
    with pytest.raises(NotJson):
        loads(json.dumps({"a": [nested]}))
    with pytest.raises(json.JSONDecodeError):
        loads("{nope")  # a syntax error stays a JSONDecodeError (forms fall back to text)


def test_a_form_keeps_non_json_text_as_text() -> None:
    assert coerce_text("any", '{"a": NaN}') == '{"a": NaN}'
    assert coerce_text("integer", DIGITS) == DIGITS
    assert coerce_text("number", "1e400") == "1e400"
    form = build_form({"type": "object", "properties": {"x": {"type": "integer"}}})
    form.find(("x",)).set_text(DIGITS)  # type: ignore[union-attr]
    assert form.value() == {"x": DIGITS}  # the form's check reports it; nothing breaks
    with pytest.raises(NotJson):
        coerce_text("integer", DIGITS, strict=True)
