"""The status line event of an HTTP response: which headers it keeps, and how."""

from __future__ import annotations

import httpx
import pytest

from inspector.transports.httpwire import http_in_event


def test_a_status_event_keeps_the_protocols_headers_in_order_and_joins_repeats() -> None:
    response = httpx.Response(
        405,
        headers=[
            (b"Date", b"Mon, 23 Nov 2026 21:00:00 GMT"),
            (b"Allow", b"GET"),
            (b"Content-Type", b"application/json"),
            (b"X-Other", b"not shown"),
            (b"allow", b"POST"),
            (b"Mcp-Session-Id", b"s-1"),
        ],
        request=httpx.Request("POST", "http://127.0.0.1:9/mcp"),
    )
    event = http_in_event(response, request_id=4, stream=None)
    assert list(event.meta["headers"].items()) == [
        ("content-type", "application/json"),
        ("mcp-session-id", "s-1"),
        ("allow", "GET, POST"),  # as httpx's headers[name] joins them
    ]
    assert event.raw == b"HTTP 405 Method Not Allowed application/json"
    assert event.meta["request_id"] == 4 and "stream" not in event.meta


async def test_http_clients_share_one_tls_context(monkeypatch: pytest.MonkeyPatch) -> None:
    """Building a TLS context loads the CA store (tens to hundreds of ms): a load run's
    sessions and OAuth's exchanges each make a client, and must not each pay it."""
    import httpx

    from inspector.transports import httpwire
    from inspector.transports.http import StreamableHttpTransport

    class _NoHost:  # the transport only keeps its host until it emits
        pass

    made: list[object] = []
    real = httpx.create_ssl_context

    def counting(*args: object, **kwargs: object) -> object:
        made.append(kwargs)
        return real(*args, **kwargs)  # type: ignore[arg-type]

    httpwire.tls_context.cache_clear()
    monkeypatch.setattr(httpx, "create_ssl_context", counting)
    clients = []
    for _ in range(3):
        transport = StreamableHttpTransport("http://127.0.0.1:9/mcp")
        transport._start_client(_NoHost(), None, httpx.Timeout(5))  # type: ignore[arg-type]
        clients.append(transport._client)
    assert len(made) == 1
    for client in clients:
        assert client is not None
        await client.aclose()
    httpwire.tls_context.cache_clear()
