"""Session files hold the whole wire: only their owner may read them.

Folders mcp-inspect creates for them are 0700 and the files 0600, as ssh and gpg keep
theirs, whatever the umask (``mkdir``/``open`` modes are masked by it, so the mode is set
again explicitly). Folders that existed already are left as they are, except the default
sessions folder, which is mcp-inspect's own.
"""

from __future__ import annotations

import contextlib
import os
import stat
from pathlib import Path
from typing import BinaryIO

DIR_MODE = 0o700
FILE_MODE = 0o600


def private_dirs(path: Path) -> None:
    """Create ``path`` and its missing parents, each new one 0700."""
    missing: list[Path] = []
    current = path
    while not current.exists() and current != current.parent:
        missing.append(current)
        current = current.parent
    for folder in reversed(missing):
        with contextlib.suppress(FileExistsError):  # made meanwhile by another process
            folder.mkdir(mode=DIR_MODE)
            os.chmod(folder, DIR_MODE)


def tighten(folder: Path) -> None:
    """Make an existing folder of ours 0700 (one an older version created 0755)."""
    with contextlib.suppress(OSError):
        info = folder.stat()
        if info.st_uid == os.getuid() and stat.S_IMODE(info.st_mode) != DIR_MODE:
            os.chmod(folder, DIR_MODE)


def open_private(path: Path) -> BinaryIO:
    """Open ``path`` for writing (truncated), a regular file ending up 0600; devices and
    pipes (``--record /dev/stdout``) keep their modes."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, FILE_MODE)
    try:
        if stat.S_ISREG(os.fstat(fd).st_mode):
            os.fchmod(fd, FILE_MODE)
        return os.fdopen(fd, "wb")
    except BaseException:
        os.close(fd)
        raise
