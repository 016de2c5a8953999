"""A server whose every string is hostile: Rich markup, ANSI/OSC escapes, bidi controls.

Used to prove that server text is data in every pane: names, titles, descriptions,
schema help, resource URIs, prompt arguments, completion values, server info,
instructions, stderr, results.
"""

import json
import sys

EVIL = "[bold red]MARKUP[/] \x1b[2J\x1b]0;pwned\x07 \u202eevil\u202c"
out = sys.stdout.buffer


def send(msg: object) -> None:
    out.write(json.dumps(msg).encode() + b"\n")
    out.flush()


sys.stderr.write(f"stderr says {EVIL}\n")
sys.stderr.flush()
for line in sys.stdin.buffer:
    msg = json.loads(line)
    method, id_ = msg.get("method"), msg.get("id")
    if id_ is None:
        continue
    if method == "initialize":
        result: object = {
            "protocolVersion": msg["params"]["protocolVersion"],
            "capabilities": {"tools": {}, "resources": {}, "prompts": {}, "completions": {}},
            "serverInfo": {"name": f"srv {EVIL}", "version": EVIL},
            "instructions": f"instructions {EVIL}",
        }
    elif method == "tools/list":
        result = {
            "tools": [
                {
                    "name": f"tool {EVIL}",
                    "description": f"desc {EVIL}",
                    "inputSchema": {
                        "type": "object",
                        "properties": {
                            "arg": {
                                "type": "string",
                                "description": f"help {EVIL}",
                                "title": f"title {EVIL}",
                            }
                        },
                    },
                }
            ]
        }
    elif method == "resources/list":
        result = {"resources": [{"uri": f"evil://{EVIL}", "name": f"res {EVIL}"}]}
    elif method == "resources/templates/list":
        result = {"resourceTemplates": []}
    elif method == "prompts/list":
        result = {
            "prompts": [
                {
                    "name": f"prompt {EVIL}",
                    "arguments": [{"name": "x", "description": f"arg {EVIL}"}],
                }
            ]
        }
    elif method == "completion/complete":
        values = [f"value {EVIL}", "value plain"]
        result = {"completion": {"values": values, "total": 2, "hasMore": False}}
    elif method == "tools/call":
        result = {"content": [{"type": "text", "text": f"result {EVIL}"}]}
    else:
        send({"jsonrpc": "2.0", "id": id_, "error": {"code": -32601, "message": f"no {EVIL}"}})
        continue
    send({"jsonrpc": "2.0", "id": id_, "result": result})
