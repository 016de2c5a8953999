"""mcp-inspect: a terminal inspector and debugger for the Model Context Protocol."""

__version__ = "0.1.0"
