"""Locust for load past one machine: a Locust user built on mcp-inspect's engine.

Each virtual user is one MCP session (the same connection ``--cli`` and ``load`` open:
a stdio server process of its own, or an HTTP session; OAuth tokens from the store).
Every call is reported to Locust's statistics as request type ``MCP`` named by its method
and tool (``tools/call add``); a JSON-RPC error, an ``isError`` result, a timeout or an
HTTP failure is a Locust failure with its reason. Locust's own machinery does the rest:
``--processes``, master and workers, the web UI, CSV, ``--headless``.

The engine is asyncio and Locust is gevent: the sessions of one Locust process live on
one asyncio loop in a native thread; a user's greenlet hands its call to that loop and
waits on a gevent event the loop wakes, so no OS thread blocks per call.

The ready locustfile is :mod:`inspector.locust.locustfile` (``mcp-inspect load
--locustfile`` prints its path). Needs the ``load`` extra: ``pip install
'mcp-inspect[load]'``.
"""
