"""The headless MCP client engine. Never imports Textual."""
