"""The servers of a workspace: every entry of a config file, or several TARGETs.

    entries = config_entries("claude_desktop_config.json")   # every server, file order
    entries = word_entries([["python", "a.py"], ["https://host/mcp"]])

Each entry has a name unique in the workspace (the config's name; for a TARGET, its
``target_name.short_name``, with ``-2``, ``-3``... when two are alike): the server list,
the log's server column and the ``server:NAME`` filter term use it.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from inspector.config import ServerConfig, load_server_configs
from inspector.target import Target, target_from_words
from inspector.target_name import short_name


@dataclass(frozen=True)
class Entry:
    """One server of the workspace: its unique name and what to connect to."""

    name: str
    target: Target


def entry_target(config: ServerConfig) -> Target:
    """The target a config entry names (the command line layers its flags over it)."""
    return Target(
        command=config.command,
        args=list(config.args),
        env=dict(config.env),
        cwd=config.cwd,
        url=config.url,
        headers=dict(config.headers),
        transport=config.transport,
        name=config.name,
        oauth_config=dict(config.oauth),
    )


def config_entries(
    path: str | os.PathLike[str], environ: Mapping[str, str] | None = None
) -> list[Entry]:
    """Every server of the config file at ``path`` (raises ``ConfigError``)."""
    return [Entry(c.name, entry_target(c)) for c in load_server_configs(path, environ)]


def word_entries(groups: Iterable[list[str]], *, taken: Iterable[str] = ()) -> list[Entry]:
    """One entry per TARGET (its words: a URL, or a command and its arguments); raises
    ``ValueError`` for words that name no target."""
    names = set(taken)
    entries = []
    for words in groups:
        if not words:
            raise ValueError("an empty TARGET: give a URL or a server command")
        target = target_from_words(words)
        name = unique_name(short_name(target), names)
        names.add(name)
        target.name = target.name or name
        entries.append(Entry(name, target))
    return entries


def unique_name(name: str, taken: set[str]) -> str:
    """``name``, or ``name-2``, ``name-3``... when the workspace has it already."""
    if name not in taken:
        return name
    n = 2
    while f"{name}-{n}" in taken:
        n += 1
    return f"{name}-{n}"
