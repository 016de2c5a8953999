"""The redactor's quick ways: what no rule can touch is kept as it is (the same object,
not walked or copied), and everything a rule touches is still cleaned."""

from __future__ import annotations

from inspector.record.redact import REDACTED, Redactor

SECRET = "tok-0123456789abcdef"
HEADERS = {"content-type": "application/json", "mcp-session-id": "abc123"}


def test_a_meta_with_clean_headers_is_kept_as_it_is() -> None:
    for redactor in (Redactor(), Redactor([SECRET])):
        meta = {"method": "POST", "url": "http://h/mcp", "headers": dict(HEADERS), "link": 1}
        assert redactor.meta(meta) is meta
        assert redactor.meta(meta) is meta  # the header set remembered as clean


def test_headers_a_rule_touches_are_still_cleaned() -> None:
    redactor = Redactor([SECRET])
    cases = [
        ({"Authorization": "Bearer xyz-secret"}, {"Authorization": REDACTED}),
        ({"x-trace": f"t {SECRET}"}, {"x-trace": f"t {REDACTED}"}),
        ({"referer": "http://h/?api_key=k-123456"}, {"referer": f"http://h/?api_key={REDACTED}"}),
        ({"x-url": "http://u:pw-1234@h/"}, {"x-url": f"http://u:{REDACTED}@h/"}),
    ]
    for headers, cleaned in cases:
        meta = {"url": "http://h/mcp", "headers": headers}
        assert redactor.meta(meta) == {"url": "http://h/mcp", "headers": cleaned}
    # a secret in a plain string of the meta, the same set of headers seen clean before
    meta = {"note": f"with {SECRET}", "headers": dict(HEADERS)}
    assert redactor.meta(meta) == {"note": f"with {REDACTED}", "headers": HEADERS}


def test_a_frame_no_rule_touches_is_kept_and_the_others_cleaned() -> None:
    redactor = Redactor([SECRET])
    line = b"POST http://127.0.0.1:8000/mcp"
    assert redactor.frame(line, urls=True) is line
    status = b"HTTP 200 OK application/json"
    assert redactor.frame(status, urls=True) is status
    assert redactor.frame(f"GET http://h/{SECRET}".encode(), urls=True) == (
        f"GET http://h/{REDACTED}".encode()
    )
    assert redactor.frame(b"GET http://h/?token=t-98765", urls=True) == (
        f"GET http://h/?token={REDACTED}".encode()
    )
    # a form learnt from (its fields registered), then redacted elsewhere
    form = b"grant_type=x&access_token=at-424242"
    assert redactor.frame(form) == f"grant_type=x&access_token={REDACTED}".encode()
    assert redactor.frame(b"note at-424242", urls=True) == f"note {REDACTED}".encode()
    # not UTF-8 and nothing to clean: as it was
    odd = b"\xff\xfe plain"
    assert redactor.frame(odd) is odd
