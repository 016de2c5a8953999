"""Several servers in the TUI at once: ``--config FILE`` without ``--server`` (every
server of the file) or repeated ``--target`` (each one TARGET: a URL, or a server
command as one quoted string; TARGET words given too are one more).

    mcp-inspect --config claude_desktop_config.json
    mcp-inspect --target "python a.py" --target https://host/mcp
    mcp-inspect --target https://host/mcp -- python b.py
"""

from __future__ import annotations

import argparse
import shlex
import sys
from functools import partial
from typing import TYPE_CHECKING

from inspector.commands.options import (
    PROG,
    UsageError,
    make_recorder,
    private_state_dir,
    require_terminal,
    responders_from,
    session_options,
    with_oauth,
)
from inspector.config import ConfigError, server_names

if TYPE_CHECKING:
    from inspector.record.recorder import Recorder
    from inspector.workspace.entries import Entry


def add_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--target",
        dest="targets",
        action="append",
        default=[],
        metavar="TARGET",
        help="one more server for a workspace (repeatable): a URL, or a server command "
        'as one quoted string ("python server.py --flag"); with --config and no --server '
        "every server of the file opens",
    )


def wanted(opts: argparse.Namespace, words: list[str]) -> bool:
    """Whether the options name several servers (a workspace, not one server)."""
    if opts.targets:
        return True
    if opts.config and not opts.server and not words:
        try:
            return len(server_names(opts.config)) > 1
        except ConfigError as exc:
            raise UsageError(str(exc)) from exc
    return False


def entries(opts: argparse.Namespace, words: list[str]) -> list[Entry]:
    """The workspace's servers, in order (a usage error names what is wrong); an HTTP
    server's OAuth as for one server (the flags over its config entry's ``oauth``)."""
    from inspector.workspace.entries import config_entries, word_entries

    try:
        if opts.config and not opts.targets:
            found = config_entries(opts.config)
        elif opts.config:
            raise UsageError("give either --config or --target, not both")
        else:
            groups = [shlex.split(text) for text in opts.targets]
            found = word_entries([*groups, words] if words else groups)
    except (ValueError, ConfigError) as exc:
        raise UsageError(str(exc)) from exc
    for entry in found:
        with_oauth(opts, entry.target)
    return found


def run(opts: argparse.Namespace, words: list[str]) -> int:
    """The TUI on every server, all recorded to one session file (each frame tagged with
    its server; ``replay`` of it opens the same workspace)."""
    if opts.cli:
        raise UsageError("--cli calls one server: name it with --server or one TARGET")
    require_terminal("the TUI needs a terminal; --cli calls one server (--server NAME)")
    servers = entries(opts, words)
    responders = responders_from(opts)
    recorder = workspace_recorder(opts, servers)
    try:
        from inspector.tui.launch import run_workspace

        return run_workspace(
            [(e.name, e.target, recorder) for e in servers],
            session_options(opts),
            responders=responders,
            config=opts.config,
            prepare=partial(with_oauth, opts),  # ctrl+n's servers: the same OAuth
        )
    finally:
        if recorder is not None:
            recorder.close()
            sys.stderr.write(f"{PROG}: session saved to {recorder.path}\n")


def workspace_recorder(opts: argparse.Namespace, servers: list[Entry]) -> Recorder | None:
    """The workspace's one session file (``--record PATH``, else a new one named
    ``workspace``), its header naming every server, its redaction every server's secrets."""
    from inspector.record.state import new_session_path
    from inspector.target import target_info
    from inspector.workspace.recording import header_extra

    if opts.no_record:
        return None
    path = opts.record
    if not path:
        private_state_dir()
        path = str(new_session_path("workspace"))
    extra = header_extra([(e.name, target_info(e.target)) for e in servers])
    recorder = make_recorder(opts, servers[0].target, path, header=extra)
    if recorder is not None:
        for entry in servers[1:]:
            for secret in entry.target.secrets():
                recorder.redactor.add_secret(secret)
    return recorder
