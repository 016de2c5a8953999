"""How a flow reaches its person: the authorization URL to open, the redirect to wait for
(the loopback listener, or a pasted URL). The terminal (``auth.terminal``) and the TUI's
Auth view implement ``Interaction``."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Protocol

from inspector.auth.errors import AuthError


@dataclass(slots=True)
class AuthorizationRequest:
    """What a person must complete: open ``url``; the redirect comes back to
    ``redirect_uri`` (``listener`` waits for it) or is pasted (``state`` checks it)."""

    url: str
    redirect_uri: str
    state: str
    listener: Callable[[], Awaitable[dict[str, str]]]
    timeout: float


class Interaction(Protocol):
    """How a person is reached: the terminal (``--cli``) or the TUI's Auth view. In
    ``step_mode`` every request of a flow waits in ``pause`` for the person first."""

    step_mode: bool

    @property
    def can_prompt(self) -> bool:
        """True when a person can complete a browser authorization here."""

    async def obtain_redirect(self, request: AuthorizationRequest) -> dict[str, str]:
        """Bring the person to the URL; the redirect's query parameters."""

    async def pause(self, step: str, method: str, url: str) -> None:
        """Step mode: return when the person lets the next request (``method url``) go."""


class NoSteps:
    """An interaction without step mode: every request goes at once."""

    step_mode = False

    async def pause(self, step: str, method: str, url: str) -> None:
        return None


class NoPerson(NoSteps):
    """No one to ask (tests, scripts): a browser authorization cannot complete."""

    can_prompt = False

    async def obtain_redirect(self, request: AuthorizationRequest) -> dict[str, str]:
        raise AuthError("authorization", "no one can open the authorization URL here")


def parse_redirect(text: str, state: str) -> dict[str, str]:
    """A pasted redirect (the whole URL, or its query): its parameters, state checked."""
    from urllib.parse import parse_qsl, urlsplit

    text = text.strip()
    query = urlsplit(text).query if "://" in text else text.lstrip("?")
    params = dict(parse_qsl(query, keep_blank_values=True))
    if "code" not in params and "error" not in params:
        raise AuthError("redirect", "the pasted text has no code (paste the whole URL)")
    if params.get("state") != state:
        raise AuthError("redirect", "the pasted URL's state is not the one this flow sent")
    return params
