"""The bundled demo MCP server: ``python -m inspector.demo [--variant changed]``.

A stdio server built on ``inspector.wire.jsonrpc`` and the standard library,
made to exercise every pane of the inspector. See ``inspector.demo.server``.
"""
