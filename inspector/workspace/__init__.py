"""Several servers at once: the workspace's entries (from a config file or several
TARGETs), their names, and each one's connection state as the server list shows it.

Headless: the TUI's server list and the command line read it; nothing here imports
Textual.
"""
