"""What the TUI prints of a frame gets the session file's redaction (issue 24 item 2):
``as_shown`` for the event detail, its save and copy; ``Redactor.cut_text`` for the log's
one-line summaries, which cut values short with ``…``."""

from __future__ import annotations

import json

from inspector.record.format import as_shown
from inspector.record.redact import REDACTED, Redactor
from inspector.wire.events import Channel, Direction, Finding
from inspector.wire.jsonrpc import make_event

TOKEN = "sekrit-token-123"


def test_a_secret_cut_short_in_a_summary_goes_from_its_start() -> None:
    redactor = Redactor([f"Bearer {TOKEN}", TOKEN])
    assert redactor.cut_text(f"a {TOKEN} b") == f"a {REDACTED} b"
    assert redactor.cut_text(f"x=Bearer {TOKEN[:7]}… y=1") == f"x={REDACTED}… y=1"
    assert redactor.cut_text(f"x={TOKEN[:5]}… y={TOKEN[:9]}…") == f"x={REDACTED}… y={REDACTED}…"
    assert redactor.cut_text("x=sek… y") == "x=sek… y"  # under MIN_SECRET: unrelated words stay
    nothing = Redactor()
    text = f"x={TOKEN[:7]}…"
    assert nothing.cut_text(text) is text and not nothing.masking


def test_a_frame_is_shown_masked_and_the_event_kept() -> None:
    raw = json.dumps(
        {"jsonrpc": "2.0", "id": 1, "result": {"content": [{"type": "text", "text": TOKEN}]}}
    ).encode()
    event = make_event(Direction.IN, Channel.BODY, raw, meta={"headers": {"X-Api-Key": TOKEN}})
    event.findings.append(Finding("x", f"saw {TOKEN}"))
    shown = as_shown(event, [Redactor([TOKEN])])
    assert TOKEN.encode() not in shown.raw and REDACTED.encode() in shown.raw
    assert shown.message["result"]["content"][0]["text"] == REDACTED
    assert shown.meta["headers"]["X-Api-Key"] == REDACTED
    assert shown.findings[0].message == f"saw {REDACTED}"
    assert event.raw == raw and event.message["result"]["content"][0]["text"] == TOKEN
    assert event.meta["headers"]["X-Api-Key"] == TOKEN  # the stored event: as it came
    clean = make_event(Direction.IN, Channel.BODY, b'{"jsonrpc":"2.0","id":2,"result":{}}')
    assert as_shown(clean, [Redactor([TOKEN])]) is clean  # nothing to mask: no copy
    assert as_shown(event, [Redactor([TOKEN], enabled=False)]) is event  # --no-redact


def test_secret_fields_and_error_text_are_masked_with_no_secret_known() -> None:
    body = json.dumps({"access_token": "abcd-1234-efgh", "token_type": "Bearer"}).encode()
    event = make_event(Direction.IN, Channel.BODY, body)
    shown = as_shown(event, [Redactor()])  # the field list of credentials.py
    assert b"abcd-1234-efgh" not in shown.raw
    assert shown.message == {"access_token": REDACTED, "token_type": "Bearer"}
    failed = make_event(Direction.IN, Channel.BODY, b"oops abcd-1234-efgh")
    assert failed.error is not None
    failed.error += " abcd-1234-efgh"
    shown = as_shown(failed, [Redactor(["abcd-1234-efgh"])])
    assert shown.error is not None and "abcd-1234-efgh" not in shown.error
    assert REDACTED in shown.error and b"abcd" not in shown.raw
