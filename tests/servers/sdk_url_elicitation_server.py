"""An official-SDK server (mcp 2.x, stdio) for URL elicitation and its completion.

- ``open_vault(count)``: error -32042 (UrlElicitationRequiredError) carrying ``count``
  URL elicitations (vault-1, vault-2, ...) until each was finished; then it succeeds.
- ``finish(elicitation_id)``: stands in for the browser flow ending: marks the id done
  and sends notifications/elicitation/complete for it, preceded by one for an unknown id
  and followed by a duplicate (a client must ignore both).
- ``url_flow()``: the request path: elicitation/create (mode url, id flow-1), returns the
  action the client answered.
"""

import mcp_types as types
from mcp.server.mcpserver import Context, MCPServer
from mcp.shared.exceptions import UrlElicitationRequiredError

mcp = MCPServer("sdk-url-elicitation")
finished: set[str] = set()
calls = {"open_vault": 0}


@mcp.tool()
def open_vault(count: int = 1) -> str:
    """Needs a browser sign-in (one URL elicitation per vault) before it works."""
    calls["open_vault"] += 1
    needed = [f"vault-{i}" for i in range(1, count + 1) if f"vault-{i}" not in finished]
    if needed:
        raise UrlElicitationRequiredError(
            [
                types.ElicitRequestURLParams(
                    mode="url",
                    message=f"Sign in to {eid}",
                    elicitation_id=eid,
                    url=f"https://auth.example.com/{eid}?state=[b]x[/b]",
                )
                for eid in needed
            ],
            "Sign in to the vault first.",
        )
    return f"vault open (call {calls['open_vault']})"


@mcp.tool()
async def finish(elicitation_id: str, ctx: Context) -> str:  # type: ignore[type-arg]
    """The out-of-band flow for ``elicitation_id`` ended: tell the client."""
    finished.add(elicitation_id)
    session = ctx.request_context.session
    await session.send_elicit_complete("never-issued")
    await session.send_elicit_complete(elicitation_id)
    await session.send_elicit_complete(elicitation_id)  # a duplicate
    return f"finished {elicitation_id}"


@mcp.tool()
async def url_flow(ctx: Context) -> str:  # type: ignore[type-arg]
    """Ask the user to open a URL (request path) and report the answer."""
    result = await ctx.elicit_url("Connect your account", "https://auth.example.com/flow", "flow-1")
    return f"action: {result.action}"


if __name__ == "__main__":
    mcp.run()
