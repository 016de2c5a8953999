"""A client of ``proxy --listen`` that is not the host: another local user (run with
``setpriv --reuid``), with the standard library only (the system Python, not the venv).

    front_client.py URL TOKEN_FILE   prints a JSON object: could it read the token file,
                                     and what the front answered an initialize without it
"""

from __future__ import annotations

import http.client
import json
import sys
from urllib.parse import urlsplit

INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "other-user", "version": "0"},
    },
}


def main() -> None:
    url, token_file = sys.argv[1], sys.argv[2]
    try:
        with open(token_file, encoding="ascii") as handle:
            token: str | None = handle.read().strip()
        read = "read"
    except OSError as exc:
        token, read = None, type(exc).__name__
    parts = urlsplit(url)
    answers = []
    for authorization in (None, "Bearer not-the-token", f"Bearer {token}" if token else None):
        conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if authorization:
            headers["Authorization"] = authorization
        conn.request("POST", parts.path, json.dumps(INIT), headers)
        answer = conn.getresponse()
        answers.append(answer.status)
        answer.read()
        conn.close()
    print(json.dumps({"token_file": read, "statuses": answers}))


if __name__ == "__main__":
    main()
