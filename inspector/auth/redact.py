"""Masking of OAuth secrets before an event exists: tokens, codes, verifiers, client secrets
and assertions never reach a session file or the screen.

One small place on purpose: bodies are masked field by field in their own bytes (the rest
of the body stays exactly as sent or received), URLs in their query and fragment, headers
by name. ``MASK`` is the recorder's marker; the fields are ``credentials.SECRET_FIELDS``,
the list the recorder's redaction holds to as well.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from urllib.parse import quote

from inspector.credentials import SECRET_FIELDS
from inspector.record.format import REDACTED as MASK

SECRET_HEADERS = frozenset({"authorization", "proxy-authorization", "cookie", "set-cookie"})
_NAMES = "|".join(sorted(SECRET_FIELDS, key=len, reverse=True))
_JSON_FIELD = re.compile(rf'("(?:{_NAMES})"\s*:\s*)"(?:[^"\\]|\\.)*"'.encode())
_FORM_FIELD = re.compile(rf"(^|[&?#;])({_NAMES})=([^&#;]*)")
_MASK_FORM = quote(MASK)


def mask_json(body: bytes) -> bytes:
    """A JSON body with every secret field's string value replaced by ``MASK``."""
    return _JSON_FIELD.sub(lambda m: m.group(1) + f'"{MASK}"'.encode(), body)


def mask_form(text: str) -> str:
    """A form body or query string with every secret field's value masked (URL-encoded)."""
    return _FORM_FIELD.sub(lambda m: f"{m.group(1)}{m.group(2)}={_MASK_FORM}", text)


def mask_body(body: bytes, content_type: str = "") -> bytes:
    """A request or response body, masked by what it is (JSON, a form, or neither)."""
    if not body:
        return body
    stripped = body.lstrip()[:1]
    if "json" in content_type or stripped in (b"{", b"["):
        return mask_json(body)
    if "x-www-form-urlencoded" in content_type or b"=" in body[:200]:
        return mask_form(body.decode("utf-8", "replace")).encode("utf-8")
    return body


def mask_url(url: str) -> str:
    """A URL with secrets in its query or fragment masked (a redirect carries the code)."""
    return mask_form(url)


def mask_headers(headers: Mapping[str, str]) -> dict[str, str]:
    """Headers with credentials masked; the scheme of ``Authorization`` stays visible."""
    out: dict[str, str] = {}
    for name, value in headers.items():
        low = name.lower()
        if low in ("authorization", "proxy-authorization"):
            scheme = value.split(" ", 1)[0] if " " in value else ""
            out[name] = f"{scheme} {MASK}" if scheme else MASK
        elif low in SECRET_HEADERS:
            out[name] = MASK
        elif low == "location":
            out[name] = mask_url(value)
        else:
            out[name] = value
    return out
