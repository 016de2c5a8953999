"""Two catalogs compared by name: what was added, removed or changed, each change
classified breaking, compatible or cosmetic (``mcp-inspect diff``, ``replay --against``)."""
