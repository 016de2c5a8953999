"""A target's short name: the workspace's server list, a proxy's attach name, the session
file's name."""

from __future__ import annotations

import pytest

from inspector.target import target_from_words
from inspector.target_name import short_name


@pytest.mark.parametrize(
    ("words", "name"),
    [
        (["https://api.example.com:8443/mcp"], "api.example.com:8443"),
        (["python", "-m", "inspector.demo"], "inspector.demo"),
        (["python3", "-u", "-m", "weather.__main__", "--port", "1"], "weather"),
        (["python", "servers/files.py", "--root", "/tmp"], "files"),
        (["uv", "run", "server.py"], "server"),
        (["npx", "-y", "@modelcontextprotocol/server-everything"], "server-everything"),
        (["npx", "-y", "@scope/server-files@1.2.3", "/data"], "server-files"),
        (["uvx", "mcp-server-fetch==2025.1"], "mcp-server-fetch"),
        (["uvx", "--from", "git+https://x/y", "my-tool"], "my-tool"),
        (["uv", "tool", "run", "mcp-server-git"], "mcp-server-git"),
        (["npx", "--package", "@a/b", "-y", "b-cli"], "b-cli"),
        (["node", "/srv/pkg/server-everything/dist/index.js", "stdio"], "server-everything"),
        (["node", "build/index.js"], "index"),
        (["node", "weather/src/main.ts"], "weather"),
        (["/opt/bin/my-server", "--verbose"], "my-server"),
        (["docker", "run", "-i", "--rm", "mcp/fetch"], "docker"),
        (["docker", "run", "-m", "512m", "mcp/fetch"], "docker"),  # -m: not python's
    ],
)
def test_a_target_is_called_by_what_names_its_server(words: list[str], name: str) -> None:
    assert short_name(target_from_words(words)) == name
