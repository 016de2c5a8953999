"""One list of what a secret field is (``credentials.SECRET_FIELDS``), and every masking
pass holds to all of it: the sign-in's masking before an event exists (``auth.redact``)
and the recorder's redaction before a session file stores it (``record.redact``)."""

from __future__ import annotations

import json
from collections.abc import Callable
from urllib.parse import urlencode

import pytest

from inspector.auth.redact import mask_body, mask_form, mask_json, mask_url
from inspector.credentials import SECRET_FIELDS
from inspector.record.redact import Redactor

FIELDS = sorted(SECRET_FIELDS)


def secret_of(field: str) -> str:
    """A value no other field has and no mask could produce by chance."""
    return f"s3cr3t-{field}-value"


def recorded(body: bytes, content_type: str) -> bytes:
    """What the recorder stores for an OAuth body: the default redactor, as a session has."""
    return Redactor().frame(body, content_type=content_type)


JSON_PASSES: dict[str, Callable[[bytes], bytes]] = {
    "auth.mask_json": mask_json,
    "auth.mask_body": lambda body: mask_body(body, "application/json"),
    "record.Redactor": lambda body: recorded(body, "application/json"),
}
FORM_PASSES: dict[str, Callable[[bytes], bytes]] = {
    "auth.mask_form": lambda body: mask_form(body.decode()).encode(),
    "auth.mask_body": lambda body: mask_body(body, "application/x-www-form-urlencoded"),
    "auth.mask_url": lambda body: mask_url(f"https://as.example/cb?{body.decode()}").encode(),
    "record.Redactor": lambda body: recorded(body, "application/x-www-form-urlencoded"),
}


def test_the_list_names_the_oauth_secrets() -> None:
    # the names the two passes once disagreed on are in it
    assert {"client_assertion", "subject_token", "actor_token", "registration_access_token"} <= (
        SECRET_FIELDS
    )


@pytest.mark.parametrize("name", list(JSON_PASSES))
@pytest.mark.parametrize("field", FIELDS)
def test_every_json_pass_masks_every_secret_field(name: str, field: str) -> None:
    body = json.dumps({field: secret_of(field), "token_type": "Bearer"}).encode()
    masked = JSON_PASSES[name](body)
    assert secret_of(field).encode() not in masked, f"{name} left {field} in {masked!r}"
    assert b"Bearer" in masked  # the rest of the body stays as it was


@pytest.mark.parametrize("name", list(FORM_PASSES))
@pytest.mark.parametrize("field", FIELDS)
def test_every_form_pass_masks_every_secret_field(name: str, field: str) -> None:
    body = urlencode({"grant_type": "x", field: secret_of(field)}).encode()
    masked = FORM_PASSES[name](body)
    assert secret_of(field).encode() not in masked, f"{name} left {field} in {masked!r}"
    assert b"grant_type=x" in masked


@pytest.mark.parametrize("field", FIELDS)
def test_the_recorder_hides_a_field_value_wherever_it_appears_later(field: str) -> None:
    redactor = Redactor()
    redactor.frame(json.dumps({field: secret_of(field)}).encode(), content_type="application/json")
    later = redactor.frame(f"echo {secret_of(field)}".encode())
    assert secret_of(field).encode() not in later
