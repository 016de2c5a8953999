"""Collections: MCP calls with expectations, kept in a YAML (or JSON) file and run in CI.

A collection names a ``server``, optional ``vars`` and ``steps`` (``call``, ``read``,
``prompt``, ``request``, ``list``), each with an ``expect`` block, ``save`` and
``answers``. Headless, on the layer of the proxy: ``load`` reads and checks a file (every
mistake found before a server starts, with its line), ``run`` plays the steps on a
connected engine client, ``expect`` judges one result, ``report`` writes JUnit and JSON.
The command line (``mcp-inspect test``) and the pytest plugin sit on top.
"""
