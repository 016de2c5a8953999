"""What looks like a credential: one naming rule for headers, URL query parameters and
environment names, used by redaction (``inspector.record.redact``) and by the HTTP
transports (which never send such headers to another origin); and the one list of body
fields that hold a secret, used by every masking pass (``inspector.auth.redact`` before an
event exists, ``inspector.record.redact`` before a session file stores it)."""

from __future__ import annotations

import functools
import re
from urllib.parse import unquote_plus, urlsplit

# A header, query parameter or field whose name has a word that is, or ends with, one of
# these holds a credential: api_key, apiKey, X-Api-Key, access_token, X-Amz-Signature,
# code, passcode, Authorization, Proxy-Authorization, Cookie, Set-Cookie, client_secret...
CREDENTIAL_WORDS = (
    "key",
    "token",
    "secret",
    "password",
    "passwd",
    "pwd",
    "sig",
    "signature",
    "code",
    "auth",
    "authorization",
    "credential",
    "credentials",
    "cookie",
    "jwt",
    "assertion",
)
# Fields of an OAuth request or response body (JSON or form) whose value is a secret:
# tokens, codes, verifiers, client secrets and assertions (RFC 6749, 7523, 7591, 7636,
# 8693). One list, so what the sign-in masks and what a session file hides agree.
SECRET_FIELDS = frozenset(
    {
        "access_token",
        "refresh_token",
        "id_token",
        "code",
        "code_verifier",
        "client_secret",
        "assertion",
        "client_assertion",
        "subject_token",
        "actor_token",
        "registration_access_token",
        "password",
    }
)
_CAMEL = re.compile(r"([a-z0-9])([A-Z])")
_WORD_SPLIT = re.compile(r"[^a-z0-9]+")


# Names that match the rule but hold public values: PKCE's challenge is a hash sent through
# the browser by design (RFC 7636 4.3); hiding "S256" would also register it as a secret.
PUBLIC_NAMES = frozenset({"code_challenge", "code_challenge_method"})


@functools.lru_cache(maxsize=4096)  # every recorded HTTP event asks about the same names
def credential_name(name: str) -> bool:
    """Whether a header, query parameter or env name looks like it holds a credential."""
    if name.lower() in PUBLIC_NAMES:
        return False
    words = _WORD_SPLIT.split(_CAMEL.sub(r"\1_\2", name).lower())
    return any(word.endswith(CREDENTIAL_WORDS) for word in words if word)


def url_secrets(url: str) -> list[str]:
    """Credential values in a URL: query parameters by name, the user-info password."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return []
    found = [parts.password] if parts.password else []
    for pair in parts.query.split("&"):
        name, sep, value = pair.partition("=")
        if sep and value and credential_name(unquote_plus(name)):
            found += [value, unquote_plus(value)]
    return found


# Values of ``-e NAME=VALUE`` that say how to run, never who you are: redacting them would
# blank out unrelated text everywhere in the session ("debug" in every log notification).
_PLAIN_ENV_VALUES = frozenset(
    {
        "true",
        "false",
        "yes",
        "no",
        "on",
        "off",
        "none",
        "null",
        "trace",
        "debug",
        "info",
        "notice",
        "warn",
        "warning",
        "error",
        "critical",
        "fatal",
        "development",
        "dev",
        "production",
        "prod",
        "test",
        "staging",
        "local",
    }
)
_NUMBER = re.compile(r"[+-]?\d+(\.\d+)?")


def env_secret(name: str, value: str) -> bool:
    """Whether an ``-e NAME=VALUE`` value is redacted: always when the name looks like a
    credential; otherwise unless the value is plainly a setting (a number, a boolean, a
    log level, a run mode)."""
    if credential_name(name):
        return True
    plain = value.strip().lower()
    return not (plain in _PLAIN_ENV_VALUES or _NUMBER.fullmatch(plain))
