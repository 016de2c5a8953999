"""Proxy mode: mcp-inspect between a real host and a server, with the inspector attachable.

Headless (never imports Textual). The pieces, one job each:

- ``run``: ``mcp-inspect proxy`` put together.
- ``wrap``: ``proxy --wrap CONFIG``, a host's config rewritten to run a server through it.

The wire and the routing:

- ``origin``: who a frame belongs to (host, an attached inspector, the server).
- ``router``: id rewriting and routing between the host, the inspectors and the server.
- ``wire``: the proxy's one sequence of events: numbered, linted, recorded write-ahead,
  shown to attached inspectors.
- ``relay``: one host linked to one server connection (the back transport).
- ``intercept``: frames held by a filter until an inspector forwards, edits or drops them.
- ``passed``: the catalog as the host's lists were answered through the proxy.

The fronts (where the host connects):

- ``host_stdio``: the host over the proxy's own stdin/stdout (the front most hosts use).
- ``pipes``: asynchronous reading and writing of those standard streams.
- ``host_http``: ``--listen``, a Streamable HTTP front for hosts that connect by URL.
- ``front_session``: one host session on that front and its response streams.
- ``front_stateless``: its 2026-07-28 requests (no session): checks, the connection they
  share, the server's era.
- ``httpserve``: the small HTTP/1.1 server side the front runs on.
- ``loopback``: what ``--listen`` may bind and which requests it serves.
- ``fronttoken``: the secret a host presents to that front (kept per proxy name).

Attaching (the inspector's way in):

- ``control``: the attach socket (a Unix domain socket in the user's runtime folder).
- ``channel``: that socket's line protocol.
- ``runtime``: where live proxies keep their sockets, and finding them.
- ``attach``: the inspector's side of that socket, a ``Transport`` for the TUI's session.
"""
