"""The secret a host presents to a proxy's HTTP front (``proxy --listen``).

The front listens on the loopback, where every local user can connect; the token is what
only the proxy's owner (and the hosts they configure) know, as Jupyter's is. One token a
proxy name, kept across restarts so a host config written once keeps working:
``$XDG_STATE_HOME/mcp-inspect/fronts/NAME.token``, the file 0600 in 0700 folders. A host
sends it as ``Authorization: Bearer TOKEN``; ``mcp-inspect proxies --token NAME`` prints it.
"""

from __future__ import annotations

import hmac
import os
import re
import secrets
from pathlib import Path

from inspector.record.private import FILE_MODE, private_dirs
from inspector.record.state import StateFileError, read_state, state_home

SCHEME = "Bearer "
TOKEN_TEXT = re.compile(r"[A-Za-z0-9._~+/=-]{16,512}")


def token_path(name: str) -> Path:
    """The token file of the proxy named ``name`` (a name made safe as a file name)."""
    slug = re.sub(r"[^A-Za-z0-9._-]+", "-", name).strip("-.") or "proxy"
    return state_home() / "fronts" / f"{slug}.token"


MAX_TOKEN_FILE = 4096  # a token is 43 characters; more is not a file of ours


def read_token(name: str) -> str | None:
    """The proxy's token, or None when it has none yet. Read as every state file is
    (never blocking on a FIFO, a regular file only, size-capped): a planted file raises
    ``StateFileError`` naming it."""
    path = token_path(name)
    raw = read_state(path, MAX_TOKEN_FILE)
    if raw is None:
        return None
    text = raw.decode("ascii", "replace").strip()
    if text and not TOKEN_TEXT.fullmatch(text):
        raise StateFileError(f"{path}: not a token written by mcp-inspect; remove it")
    return text or None


def front_token(name: str) -> str:
    """The proxy's token, made (and written 0600) the first time it is asked for."""
    found = read_token(name)
    if found is not None:
        return found
    path = token_path(name)
    private_dirs(path.parent)
    token = secrets.token_urlsafe(32)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, FILE_MODE)
    except FileExistsError:  # another start of the same proxy made it meanwhile
        return read_token(name) or token
    with os.fdopen(fd, "w", encoding="ascii") as out:
        os.fchmod(out.fileno(), FILE_MODE)
        out.write(token + "\n")
    return token


def presented(authorization: str | None, token: str) -> bool:
    """Whether an ``Authorization`` header carries ``token`` (compared in constant time)."""
    if not authorization or authorization[: len(SCHEME)].lower() != SCHEME.lower():
        return False
    given = authorization[len(SCHEME) :].strip().encode()
    return hmac.compare_digest(given, token.encode())
