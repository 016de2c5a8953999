"""``mcp-inspect auth list|clear [URL]``: see and drop the stored OAuth tokens.

``list`` shows, per server, the authorization server, scopes, expiry and whether a refresh
token is kept, and the client registrations per authorization server: never a token or a
secret (``--json`` for a script). ``clear URL`` drops that server's tokens (and a
registration no other server uses); ``clear`` alone drops everything. The file is
``$XDG_STATE_HOME/mcp-inspect/oauth.json`` (:mod:`inspector.auth.store`).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any

from inspector.auth.errors import StoreError
from inspector.auth.store import TokenStore, default_path
from inspector.commands.options import PROG, ArgParser, Subparsers, UsageError

NAME = "auth"


def add_parser(subparsers: Subparsers[ArgParser]) -> ArgParser:
    parser = subparsers.add_parser(
        NAME,
        description="The OAuth tokens and client registrations mcp-inspect keeps "
        f"(in {default_path()}, mode 0600). No token or secret is ever shown.",
        epilog="Exit codes: 0 done, 1 nothing stored for URL, 2 usage or an unreadable file.",
    )
    parser.add_argument("action", choices=("list", "clear"), help="list, or clear")
    parser.add_argument(
        "url", nargs="?", metavar="URL", help="only this server (clear: none = all)"
    )
    parser.add_argument("--json", action="store_true", help="list: as JSON")
    return parser


def run(opts: argparse.Namespace, command: list[str]) -> int:
    if command:
        raise UsageError(f"{NAME}: takes no server command (got {' '.join(command)!r})")
    try:
        store = TokenStore(default_path())
        if opts.action == "list":
            return _list(store, opts.url, opts.json)
        counts = store.clear(opts.url)
    except StoreError as exc:
        sys.stderr.write(f"{PROG} {NAME}: {exc}\n")
        return 2
    what = opts.url or "every server"
    sys.stdout.write(
        f"cleared {what}: {counts['servers']} token set(s), {counts['clients']} registration(s)\n"
    )
    return 0 if opts.url is None or counts["servers"] else 1


def _list(store: TokenStore, url: str | None, as_json: bool) -> int:
    listing = store.listing(url)
    sys.stdout.write(json.dumps(listing, indent=2) + "\n" if as_json else format_listing(listing))
    if url and not listing["servers"]:
        sys.stderr.write(f"{PROG} {NAME}: no tokens stored for {url}\n")
        return 1
    return 0


def format_listing(listing: dict[str, Any]) -> str:
    lines = [f"token file: {listing['file']}"]
    if not listing["servers"]:
        lines.append("no tokens stored")
    for entry in listing["servers"]:
        lines.append(f"{entry['server']}")
        lines.append(f"  authorization server: {entry['issuer'] or '?'}")
        lines.append(f"  scopes: {' '.join(entry['scopes']) or '(none)'}")
        lines.append(f"  expires: {_when(entry['expiresAt'])}")
        lines.append(f"  refresh token: {'yes' if entry['refreshToken'] else 'no'}")
    for client in listing["clients"]:
        lines.append(
            f"registration at {client['issuer']}: client_id {client['clientId']}"
            + (" (with a secret)" if client["clientSecret"] else "")
        )
    return "\n".join(lines) + "\n"


def _when(expires_at: Any) -> str:
    if not isinstance(expires_at, int | float):
        return "no expiry given"
    left = expires_at - time.time()
    stamp = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(expires_at))
    if left <= 0:
        return f"{stamp} (expired)"
    return f"{stamp} (in {left / 60:.0f} min)"
