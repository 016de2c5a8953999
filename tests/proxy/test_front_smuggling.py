"""Request smuggling against ``proxy --listen``: heads that two HTTP parsers could read
differently are refused, on a live front through a raw socket (and ``parse_head`` alone
for the finer cases)."""

from __future__ import annotations

import socket
from collections.abc import Iterator

import httpx
import pytest
from paths import DEMO
from proxy_support import listening_proxy

from inspector.proxy.httpserve import HttpError, parse_head

LINE = "POST /mcp HTTP/1.1\r\nHost: HOSTPORT\r\nContent-Type: application/json\r\n"
BODY = '{"jsonrpc":"2.0","id":1,"method":"ping"}'
CL = f"Content-Length: {len(BODY)}\r\n"
# each: the head after LINE (and the bytes after it), the status the front answers
CASES = {
    "Content-Length and Transfer-Encoding": (
        f"Content-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n{BODY}",
        400,
    ),
    "two Content-Lengths that differ": (f"Content-Length: 4\r\n{CL}\r\n{BODY}", 400),
    "a list of lengths that differ": (f"Content-Length: 4, 40\r\n\r\n{BODY}", 400),
    "obsolete line folding": (f"X-Folded: a\r\n b\r\n{CL}\r\n{BODY}", 400),
    "a bare LF ending a header": (f"X-A: b\nContent-Length: {len(BODY)}\r\n\r\n{BODY}", 400),
    "a space before the colon": (f"Content-Length : {len(BODY)}\r\n\r\n{BODY}", 400),
    "a signed length": (f"Content-Length: +{len(BODY)}\r\n\r\n{BODY}", 400),
    "a coding other than chunked": ("Transfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n", 501),
    "a chunk size that is not hex": (
        "Transfer-Encoding: chunked\r\n\r\n4z\r\n{}{}\r\n0\r\n\r\n",
        400,
    ),
}


@pytest.fixture(scope="module")
def front() -> Iterator[str]:
    with listening_proxy("--no-attach", "--", *DEMO) as (_proc, url):
        yield url


def exchange(url: str, data: str) -> bytes:
    target = httpx.URL(url)
    host_port = f"{target.host}:{target.port}"
    with socket.create_connection((target.host, target.port or 80), timeout=30) as raw:
        raw.sendall(data.replace("HOSTPORT", host_port).encode("latin-1"))
        got = b""
        while chunk := raw.recv(65536):
            got += chunk
    return got


@pytest.mark.parametrize("case", list(CASES))
def test_an_ambiguous_request_is_refused_and_the_connection_closed(front: str, case: str) -> None:
    rest, status = CASES[case]
    answer = exchange(front, LINE + rest)  # read to the end: the front closes after it
    assert answer.startswith(f"HTTP/1.1 {status}".encode()), answer[:120]
    assert answer.count(b"HTTP/1.1 ") == 1  # nothing smuggled behind it was answered


def test_a_well_framed_pair_is_two_requests(front: str) -> None:
    """The control: two requests pipelined, each framed well, get two answers."""
    probe = f"Content-Length: {len(BODY)}\r\nConnection: keep-alive\r\n\r\n{BODY}"
    last = f"Content-Length: {len(BODY)}\r\nConnection: close\r\n\r\n{BODY}"
    answer = exchange(front, LINE + probe + LINE + last)
    assert answer.count(b"HTTP/1.1 400") == 2  # each: no session (initialize first)


def test_parse_head_alone() -> None:
    ok = parse_head(b"GET /mcp HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\nContent-Length: 3")
    assert ok.length == 3  # the same length twice is one length
    joined = parse_head(b"GET /mcp HTTP/1.1\r\nAccept: a\r\nAccept: b")
    assert joined.headers["accept"] == "a, b"
    for bad in (
        b"GET /mcp HTTP/1.1\r\nHost: a\rX: y",  # a bare CR
        b"GET /mcp HTTP/1.1\r\nHost: a\x00",  # a NUL
        b"GET /mcp HTTP/2.0\r\nHost: a",  # not HTTP/1.x
        b"GET  /mcp HTTP/1.1\r\nHost: a",  # two spaces in the request line
        b"GET /mcp HTTP/1.1\r\n: empty name",
    ):
        with pytest.raises(HttpError) as refused:
            parse_head(bad)
        assert refused.value.status == 400, bad
