"""The one error of an OAuth flow: which step failed and what the server said."""

from __future__ import annotations

from inspector.errors import InspectorError


class AuthError(InspectorError):
    """A flow step failed. ``step`` names it (``token``, ``discovery``...); the message says
    what happened and, when a server answered, what it said."""

    def __init__(self, step: str, message: str, *, status: int | None = None) -> None:
        super().__init__(f"{step}: {message}")
        self.step = step
        self.message = message
        self.status = status


class StoreError(InspectorError):
    """The token file cannot be read or written; the message names it."""


class OptionError(InspectorError, ValueError):
    """A bad OAuth flag or config value; the message says which and why."""


class PrivateKeyError(InspectorError, ValueError):
    """A private key that cannot sign: the message says why and what would."""


def oauth_error_text(body: object) -> str:
    """An OAuth error response (``{"error", "error_description"}``) in words, or ""."""
    if not isinstance(body, dict) or not isinstance(body.get("error"), str):
        return ""
    text = str(body["error"])
    if isinstance(body.get("error_description"), str) and body["error_description"]:
        text += f" ({body['error_description']})"
    return text
