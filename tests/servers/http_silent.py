"""An HTTP server that never answers anything: ``python http_silent.py``.

It listens on 127.0.0.1 (a free port, printed on stdout as the first line), accepts
every connection, reads what comes and never writes a byte nor closes: no status, no
headers. What a hung backend behind a load balancer looks like to a client.
"""

import socket
import sys
import threading


def swallow(conn: socket.socket) -> None:
    try:
        while conn.recv(65536):
            pass
    except OSError:
        pass


listener = socket.socket()
listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
listener.bind(("127.0.0.1", 0))
listener.listen(64)
print(listener.getsockname()[1], flush=True)
held = []
while True:
    conn, _ = listener.accept()
    held.append(conn)  # never closed
    threading.Thread(target=swallow, args=(conn,), daemon=True).start()
    sys.stdout.flush()
