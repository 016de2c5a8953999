"""The HTTP client of an OAuth flow: every exchange becomes events on ``Channel.AUTH``.

One request is four events at most, like the transports' (``inspector.transports.http``):
the request line (OUT, meta ``{method, url, headers, step}``), its body (OUT), the status
line (IN, meta ``{status, reason, headers, url, step}``) and the response body (IN). Secrets
are masked before an event exists (``redact``). Redirects are not followed: each hop is an
exchange of its own. Notes of the flow are LOCAL events on the same channel; ``hold`` in a
note's meta tells the session that a person is being waited for (no request timeout runs).
An exchange holds the session's timeouts too (its request line holds, its answer or its
failure releases): it has its own timeout, so a silent authorization server is named as
such instead of the MCP request that waited for it.

OAuth goes over https only, except to a loopback host (OAuth 2.1, MCP authorization): a
plain ``http://`` URL elsewhere is refused before anything is sent (``check_secure``),
unless the user allowed it (``insecure``, ``--insecure-oauth``, for lab setups).
"""

from __future__ import annotations

import ipaddress
import json
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl

import httpx

from inspector import __version__
from inspector.auth.errors import AuthError
from inspector.auth.redact import mask_body, mask_headers, mask_url
from inspector.transports.httpwire import (
    ERROR_BODY_CAP,
    describe_network_error,
    read_capped,
    tls_context,
)
from inspector.wire.events import Channel, Direction, WireEvent

Emit = Callable[[WireEvent], None]
Pause = Callable[[str, str, str], Awaitable[None]]  # (step, method, url): step-by-step mode
USER_AGENT = f"mcp-inspect/{__version__}"
# a connection idle this long is not used again: a flow's requests come in bursts with a
# person between them, and a server's own idle timeout (gunicorn 2 s, uvicorn 5 s) may
# close it just as the next request goes out on it (a token POST then broke with a
# ReadError, and a POST is not one to send twice)
IDLE_REUSE = 1.0
SHOWN_RESPONSE_HEADERS = (
    "content-type",
    "location",
    "www-authenticate",
    "cache-control",
    "retry-after",
)


@dataclass(slots=True)
class AuthResponse:
    """What came back: status, headers, the whole (capped) body."""

    status: int
    reason: str
    headers: httpx.Headers
    body: bytes
    url: str
    truncated: bool = False  # the body was longer than the cap: only its start is here

    def json(self) -> Any:
        """The body as JSON, or None when it is not JSON."""
        try:
            return json.loads(self.body)
        except (ValueError, UnicodeDecodeError):
            return None

    @property
    def location(self) -> str | None:
        value = self.headers.get("location")
        return str(httpx.URL(self.url).join(value)) if value else None

    @property
    def is_redirect(self) -> bool:
        return self.status in (301, 302, 303, 307, 308) and self.location is not None


class AuthWire:
    """Sends a flow's requests and puts each exchange on the wire."""

    def __init__(
        self,
        emit: Emit,
        *,
        verify: bool | str = True,
        timeout: float = 30.0,
        pause: Pause | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
        insecure: bool = False,
        cap: int = ERROR_BODY_CAP,
    ) -> None:
        """``transport``: httpx's, for tests (``httpx.MockTransport``); ``insecure``:
        plain http to any host is allowed; ``cap``: the most of a body that is read."""
        self.emit = emit
        self.pause = pause
        self.insecure = insecure
        self.timeout = timeout
        self.cap = cap
        self._client = httpx.AsyncClient(
            verify=tls_context(verify, trust_env=False),
            timeout=timeout,
            follow_redirects=False,
            trust_env=False,
            transport=transport,
            limits=httpx.Limits(keepalive_expiry=IDLE_REUSE),
        )

    async def aclose(self) -> None:
        await self._client.aclose()

    def note(self, text: str, severity: str = "info", **meta: Any) -> None:
        """A LOCAL note of the flow (what it decided, what it waits for)."""
        self.emit(
            WireEvent(
                Direction.LOCAL,
                Channel.AUTH,
                text.encode("utf-8"),
                meta={"severity": severity, **meta},
            )
        )

    async def request(
        self,
        step: str,
        method: str,
        url: str,
        *,
        form: Mapping[str, str] | None = None,
        json_body: Any = None,
        headers: Mapping[str, str] | None = None,
    ) -> AuthResponse:
        """One exchange; raises ``AuthError(step)`` when it breaks below HTTP."""
        self.check_secure(url, step)
        if self.pause is not None:
            await self.pause(step, method, url)
        sent = {"User-Agent": USER_AGENT, "Accept": "application/json", **(headers or {})}
        content: bytes | None = None
        if form is not None:
            content = "&".join(f"{_quote(k)}={_quote(v)}" for k, v in form.items()).encode()
            sent["Content-Type"] = "application/x-www-form-urlencoded"
        elif json_body is not None:
            content = json.dumps(json_body).encode("utf-8")
            sent["Content-Type"] = "application/json"
        shown_url = mask_url(url)
        self.emit(
            WireEvent(
                Direction.OUT,
                Channel.AUTH,
                f"{method} {shown_url}".encode(),
                meta={
                    "method": method,
                    "url": shown_url,
                    "headers": mask_headers(sent),
                    "step": step,
                    "hold": True,  # the exchange's own timeout runs, not the MCP request's
                },
            )
        )
        if content is not None:
            self.emit(_body_event(Direction.OUT, content, sent["Content-Type"], step=step))
        try:
            async with self._client.stream(method, url, content=content, headers=sent) as r:
                body = await read_capped(r, self.cap + 1)
        except httpx.HTTPError as exc:
            text = describe_network_error(exc, url, self.timeout)
            self.note(f"{step}: {text}", "error", step=step, hold=False)
            raise AuthError(step, f"{method} {shown_url}: {text}") from exc
        except ValueError as exc:  # an unusable URL from a server's metadata
            self.note(f"{step}: {exc}", "error", step=step, hold=False)
            raise AuthError(step, f"cannot request {shown_url!r}: {exc}") from exc
        truncated = len(body) > self.cap
        response = AuthResponse(
            r.status_code, r.reason_phrase, r.headers, body[: self.cap], str(r.url), truncated
        )
        ctype = r.headers.get("content-type", "")
        line = f"HTTP {r.status_code} {r.reason_phrase}".rstrip()
        if ctype:
            line += f" {ctype.split(';')[0]}"
        shown = {k: r.headers[k] for k in SHOWN_RESPONSE_HEADERS if k in r.headers}
        self.emit(
            WireEvent(
                Direction.IN,
                Channel.AUTH,
                line.encode("utf-8", "replace"),
                meta={
                    "status": r.status_code,
                    "reason": r.reason_phrase,
                    "headers": mask_headers(shown),
                    "url": shown_url,
                    "step": step,
                    "hold": False,
                    **({"truncated": self.cap} if truncated else {}),
                },
            )
        )
        if body:
            self.emit(
                _body_event(Direction.IN, response.body, ctype, step=step, status=r.status_code)
            )
        return response

    def check_secure(self, url: str, what: str) -> None:
        """``AuthError(what)`` for a plain ``http://`` URL to a host that is not loopback
        (nothing is sent), unless insecure OAuth was allowed."""
        if self.insecure or is_secure(url):
            return
        raise AuthError(
            what,
            f"refusing {mask_url(url)}: OAuth requires https except to a loopback host, and "
            "this would send codes, tokens or client secrets in clear; pass --insecure-oauth "
            "to allow it (lab setups only)",
        )


def is_secure(url: str) -> bool:
    """https, or http to a loopback host (RFC 8252 section 8.3, OAuth 2.1 section 1.5)."""
    try:
        parsed = httpx.URL(url)
    except httpx.InvalidURL:
        return True  # not ours to judge here: the request reports an unusable URL
    if parsed.scheme != "http":
        return True
    host = parsed.host.strip("[]").lower()
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _quote(value: str) -> str:
    from urllib.parse import quote_plus

    return quote_plus(value, safe="")


def _body_event(direction: Direction, body: bytes, ctype: str, **meta: Any) -> WireEvent:
    """A body, masked; parsed as JSON (or as a form, shown as its fields) for the detail."""
    shown = mask_body(body, ctype)
    message: Any = None
    try:
        message = json.loads(shown)
    except (ValueError, UnicodeDecodeError):
        if "x-www-form-urlencoded" in ctype:
            message = dict(parse_qsl(shown.decode("utf-8", "replace"), keep_blank_values=True))
    return WireEvent(
        direction,
        Channel.AUTH,
        shown,
        message=message,
        meta={"content_type": ctype.split(";")[0], **meta},
    )
