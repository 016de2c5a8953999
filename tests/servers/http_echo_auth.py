"""An HTTP server that echoes the request's credentials in its error bodies:
``python http_echo_auth.py [STATUS]``.

It listens on 127.0.0.1 (a free port, printed on stdout as ``PORT n``) and answers
every request with STATUS (500 unless given) and a text body quoting the request's
``Authorization`` and ``X-Api-Key`` headers, as a careless backend's error page does.
Whatever prints that body must not print the secret.
"""

from __future__ import annotations

import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

STATUS = int(sys.argv[1]) if len(sys.argv) > 1 else 500


class Echo(BaseHTTPRequestHandler):
    def answer(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        self.rfile.read(length)
        body = (
            f"rejected: Authorization: {self.headers.get('Authorization')} "
            f"X-Api-Key: {self.headers.get('X-Api-Key')}"
        ).encode()
        self.send_response(STATUS)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_POST = do_GET = do_DELETE = answer

    def log_message(self, format: str, *args: object) -> None:
        pass  # stderr stays quiet


server = ThreadingHTTPServer(("127.0.0.1", 0), Echo)
print(f"PORT {server.server_address[1]}", flush=True)
server.serve_forever()
