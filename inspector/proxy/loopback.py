"""The loopback rule of ``proxy --listen``: what it may bind, and which requests it serves.

The front listens on the loopback only, and every request's ``Host`` (and ``Origin``,
when a browser sends one) must name the loopback: a web page whose name an attacker
points at 127.0.0.1 (DNS rebinding) is refused before anything else happens.
"""

from __future__ import annotations

from urllib.parse import urlsplit

LOOPBACK = ("127.0.0.1", "localhost", "::1")


def parse_listen(text: str) -> tuple[str, int]:
    """``127.0.0.1:8808``, ``localhost:8808``, ``[::1]:8808`` or ``:8808`` (loopback only)."""
    host, sep, port_text = text.rpartition(":")
    if not sep or not port_text.isdigit():
        raise ValueError(f"--listen expects HOST:PORT (e.g. 127.0.0.1:8808), got {text!r}")
    host = host.strip("[]") or "127.0.0.1"
    if host.lower() not in LOOPBACK:
        raise ValueError(
            f"--listen {text}: the proxy listens on the loopback only (127.0.0.1, localhost "
            "or [::1]): an MCP endpoint on a network interface would let anyone call your "
            "server"
        )
    port = int(port_text)
    if port > 65535:
        raise ValueError(f"--listen {text}: no such port")
    return ("127.0.0.1" if host.lower() == "localhost" else host), port


def host_allowed(value: str | None, port: int) -> bool:
    """The ``Host`` header names the loopback (with our port, or none)."""
    if not value:
        return False
    host, _, rest = value.rpartition("]") if value.startswith("[") else ("", "", value)
    if host:
        name, port_text = host + "]", rest.removeprefix(":")
    else:
        name, _, port_text = rest.partition(":")
    return name.lower() in ("127.0.0.1", "localhost", "[::1]") and port_text in ("", str(port))


def origin_allowed(value: str | None) -> bool:
    """No ``Origin`` (not a browser), or a page served from the loopback."""
    if value is None:
        return True
    try:
        parts = urlsplit(value)
    except ValueError:
        return False
    return parts.scheme in ("http", "https") and (parts.hostname or "").lower() in LOOPBACK
