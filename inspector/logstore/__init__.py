"""The in-memory log of wire events (a column store) and its filter language."""
