"""An official-SDK (mcp 2.x) server for URL elicitation in the 2026-07-28 stateless era,
where ``notifications/elicitation/complete`` no longer exists.

Usage: python stateless_url_server.py  (stdio)
``open_vault``: the first call fails with error -32042 (one URL elicitation); every later
call succeeds, as if the user finished in the browser before the client retried.
"""

from __future__ import annotations

import mcp_types as types
from mcp.server.mcpserver import MCPServer
from mcp.shared.exceptions import UrlElicitationRequiredError

mcp = MCPServer("sdk-stateless-url")
calls = {"open_vault": 0}


@mcp.tool()
def open_vault() -> str:
    """Needs a browser sign-in before the first call works."""
    calls["open_vault"] += 1
    if calls["open_vault"] == 1:
        raise UrlElicitationRequiredError(
            [
                types.ElicitRequestURLParams(
                    mode="url",
                    message="Sign in to the vault",
                    elicitation_id="vault-1",
                    url="https://auth.example.com/vault-1",
                )
            ],
            "Sign in to the vault first.",
        )
    return f"vault open (call {calls['open_vault']})"


if __name__ == "__main__":
    mcp.run("stdio")
