"""An MCP server behind OAuth whose authorization server misbehaves, for the CLI tests.

Usage: python oauth_hostile.py MODE (binds 127.0.0.1, prints ``PORT <n>``). Every POST to
``/mcp`` is refused with 401 and a resource metadata URL; the authorization server at the
same origin registers anyone and approves at once (``--auth-follow``). MODE:

``plain-http``   its metadata names a token endpoint over plain http:// on a host that is
                 not loopback (``http://oauth-lab.invalid/token``)
``token-hangs``  the token endpoint reads the request and never answers
``token-huge``   the token endpoint answers a valid token response of 3 MiB
"""

from __future__ import annotations

import json
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlencode, urlsplit

MODE = sys.argv[1] if len(sys.argv) > 1 else "plain-http"
HOSTILE_TOKEN = "http://oauth-lab.invalid/token"


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args: object) -> None:
        pass

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def send_json(self, status: int, data: object, **headers: str) -> None:
        body = json.dumps(data).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        for name, value in headers.items():
            self.send_header(name.replace("_", "-"), value)
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:
        url = urlsplit(self.path)
        if url.path == "/.well-known/oauth-protected-resource/mcp":
            self.send_json(
                200, {"resource": f"{self.base}/mcp", "authorization_servers": [self.base]}
            )
        elif url.path == "/.well-known/oauth-authorization-server":
            token = HOSTILE_TOKEN if MODE == "plain-http" else f"{self.base}/token"
            self.send_json(
                200,
                {
                    "issuer": self.base,
                    "authorization_endpoint": f"{self.base}/authorize",
                    "token_endpoint": token,
                    "registration_endpoint": f"{self.base}/register",
                    "code_challenge_methods_supported": ["S256"],
                },
            )
        elif url.path == "/authorize":
            query = {k: v[0] for k, v in parse_qs(url.query).items()}
            back = urlencode({"code": "c0de", "state": query["state"], "iss": self.base})
            self.send_response(302)
            self.send_header("Location", f"{query['redirect_uri']}?{back}")
            self.send_header("Content-Length", "0")
            self.end_headers()
        else:
            self.send_json(404, {"error": "not_found"})

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        path = urlsplit(self.path).path
        if path == "/mcp":
            challenge = (
                f'Bearer resource_metadata="{self.base}/.well-known/oauth-protected-resource/mcp"'
            )
            self.send_json(401, {"error": "invalid_token"}, WWW_Authenticate=challenge)
        elif path == "/register":
            self.send_json(201, {"client_id": "hostile-client", **json.loads(body)})
        elif path == "/token" and MODE == "token-hangs":
            time.sleep(3600)
        elif path == "/token" and MODE == "token-huge":
            padding = "x" * (3 * 1024 * 1024)
            self.send_json(
                200, {"access_token": "a-token", "token_type": "Bearer", "padding": padding}
            )
        else:
            self.send_json(404, {"error": "not_found"})


if __name__ == "__main__":
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    print(f"PORT {server.server_address[1]}", flush=True)
    server.serve_forever()
