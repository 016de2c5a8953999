"""``mcp-inspect lint``'s rules: a documented catalogue checked over a survey of a server
(its tools, prompts, resources, templates and the protocol findings on its frames)."""
