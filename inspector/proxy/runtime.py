"""Where live proxies keep their attach sockets, and finding them.

One folder per user: ``$XDG_RUNTIME_DIR/mcp-inspect`` (``/run/user/UID``: private, gone
at logout), else ``$TMPDIR/mcp-inspect-UID``; ``MCP_INSPECT_RUNTIME_DIR`` overrides both
(tests). The folder is the user's own with mode 0700, each socket ``PID.sock`` with mode
0600: another user can neither list nor connect. A folder or socket owned by someone
else is refused, never used.
"""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path

from inspector.errors import InspectorError

RUNTIME_ENV = "MCP_INSPECT_RUNTIME_DIR"
SOCKET_SUFFIX = ".sock"
MAX_SOCKET_PATH = 100  # sun_path holds 108 bytes on Linux, 104 on macOS


def own_uid() -> int:
    """This user's id (one place, so tests can play another user)."""
    return os.getuid()


class RuntimeDirError(InspectorError):
    """The runtime folder cannot be used safely; the message says why and what to do."""


def runtime_dir(create: bool = True) -> Path:
    """The user's folder for proxy sockets (made 0700 when ``create``)."""
    override = os.environ.get(RUNTIME_ENV)
    xdg = os.environ.get("XDG_RUNTIME_DIR")
    if override:
        folder = Path(override)
    elif xdg and os.path.isdir(xdg):
        folder = Path(xdg) / "mcp-inspect"
    else:
        folder = Path(tempfile.gettempdir()) / f"mcp-inspect-{own_uid()}"
    if create:
        try:
            folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        except OSError as exc:
            raise RuntimeDirError(
                f"cannot create {folder} for the attach socket: {exc.strerror or exc}; "
                f"set {RUNTIME_ENV} to a folder of your own"
            ) from exc
    if folder.exists():
        check_own(folder, is_dir=True)
    return folder


def check_own(path: Path, *, is_dir: bool = False) -> None:
    """Refuse a path that is not this user's own (or, for the folder, open to others)."""
    info = path.lstat()
    kind_ok = stat.S_ISDIR(info.st_mode) if is_dir else stat.S_ISSOCK(info.st_mode)
    if not kind_ok:
        what = "a folder" if is_dir else "a socket"
        raise RuntimeDirError(f"{path} is not {what}; refusing to use it")
    if info.st_uid != own_uid():
        raise RuntimeDirError(
            f"{path} belongs to another user (uid {info.st_uid}); an inspector attaches only "
            "to its own user's proxies"
        )
    if is_dir and info.st_mode & 0o077:
        os.chmod(path, 0o700)  # ours, but open to others: close it


def socket_path(pid: int | None = None) -> Path:
    """The attach socket of the proxy with ``pid`` (this process by default)."""
    path = runtime_dir() / f"{pid or os.getpid()}{SOCKET_SUFFIX}"
    if len(os.fsencode(path)) > MAX_SOCKET_PATH:
        raise RuntimeDirError(
            f"the socket path {path} is too long for a Unix socket; set {RUNTIME_ENV} "
            "to a shorter folder"
        )
    return path


def socket_paths() -> list[Path]:
    """The sockets in the runtime folder, oldest first (live or stale)."""
    folder = runtime_dir(create=False)
    if not folder.is_dir():
        return []
    found = [p for p in folder.iterdir() if p.name.endswith(SOCKET_SUFFIX)]
    return sorted(found, key=lambda p: _mtime(p))


def _mtime(path: Path) -> float:
    try:
        return path.lstat().st_mtime
    except OSError:
        return 0.0
