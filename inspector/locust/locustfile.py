"""The ready locustfile: ``locust -f $(mcp-inspect load --locustfile) --mcp-target ...``.

    locust -f LOCUSTFILE --headless -u 50 -r 10 -t 1m --mcp-target "python server.py" \\
        --mcp-tool add --mcp-args '{"a": 1, "b": 2}'
    locust -f LOCUSTFILE --mcp-target https://host/mcp      # each user lists tools in a loop
"""

from __future__ import annotations

from typing import Any

from locust import between, events

from inspector.locust.user import McpUser, configure


class MCP(McpUser):
    wait_time = between(0, 0)


def _configure(environment: Any, **_: Any) -> None:
    options = environment.parsed_options
    if options is None:
        return
    if not options.mcp_target:
        raise SystemExit("mcp-inspect's locustfile needs --mcp-target (a URL or a command line)")
    configure(MCP, options)


_init: Any = events.init  # Locust's hooks are untyped
_init.add_listener(_configure)
