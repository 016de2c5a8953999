"""A stdio "server" for byte-exact relay tests: ``python stdio_bytes.py RECEIVED_FILE``.

Writes ``OUTPUT`` (well-formed and malformed lines, a last line without its newline) to
stdout at once, copies every byte it reads on stdin into RECEIVED_FILE, says goodbye on
stderr and exits when stdin closes.
"""

import sys

OUTPUT = (
    b'{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"hi"}}\r\n'
    b"not json at all\n"
    b"\n"
    b"\xff\xfe invalid utf-8 \xc3\n"
    b'{"jsonrpc": "2.0",   "id": 7, "result": {"spaced": "  as sent  "}}\n'
    b"   \n"
    b"the last line, without a newline"
)

if __name__ == "__main__":
    sys.stdout.buffer.write(OUTPUT)
    sys.stdout.buffer.flush()
    with open(sys.argv[1], "wb") as received:
        while chunk := sys.stdin.buffer.read1(65536):
            received.write(chunk)
            received.flush()
    sys.stderr.write("stdio_bytes: stdin closed, bye\n")
    sys.stderr.flush()
