"""A server surveyed: its catalog (every list, all pages), the protocol findings on its
frames and the tool results seen, taken live over a transport or read from a session
file. ``mcp-inspect lint`` checks one, ``mcp-inspect diff`` compares two."""
