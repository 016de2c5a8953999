"""Proxy mode: mcp-inspect between a real host and a server, with the inspector attachable.

Headless (never imports Textual). The pieces, one job each:

- ``origin``: who a frame belongs to (host, an attached inspector, the server).
- ``router``: id rewriting and routing between the host, the inspectors and the server.
- ``wire``: the proxy's one sequence of events: numbered, linted, recorded write-ahead,
  shown to attached inspectors.
- ``relay``: one host linked to one server connection (the back transport).
- ``host_stdio``: the host over the proxy's own stdin/stdout (the front most hosts use).
- ``control``: the attach socket (a Unix domain socket in the user's runtime folder).
- ``attach``: the inspector's side of that socket, a ``Transport`` for the TUI's session.
- ``run``: ``mcp-inspect proxy`` put together.
"""
