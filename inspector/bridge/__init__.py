"""The inspector as an MCP server for coding agents (``mcp-inspect mcp``): headless.

An agent connects to the server it is writing, lists and calls, reads the true wire log
(filtered, paged), lints, diffs and replays, through MCP tools. Parts: ``server`` (the
stdio MCP server, on our JSON-RPC layer), ``connections`` (open sessions, each in its
own task, logged and recorded), ``session_tools`` and ``inspect_tools`` (the tools),
``exchange`` (one request's result, latency, findings), ``answers`` (the server's own
requests, answered by the call's policy), ``bounded`` (results kept to a size),
``targets`` (what connect names; OAuth from the token store only), ``watch`` (each
connection's attach socket: a person watches it live in the TUI), ``skill.md`` (the agent
skill ``mcp-inspect mcp --skill`` prints).
"""

from __future__ import annotations

from importlib.resources import files


def skill() -> str:
    """The agent skill file shipped in the package."""
    return files(__name__).joinpath("skill.md").read_text(encoding="utf-8")
