"""mcp-inspect's state folder: sessions, saved result files and screenshots go under it;
and its state files (``eras.json``, ``oauth.json``), read and written one safe way."""

from __future__ import annotations

import contextlib
import os
import stat
import sys
from collections.abc import Callable
from pathlib import Path

from inspector.errors import InspectorError
from inspector.record.private import private_dirs


def state_home() -> Path:
    """$XDG_STATE_HOME/mcp-inspect (~/.local/state/mcp-inspect by default)."""
    base = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(base) / "mcp-inspect"


def sessions_home() -> Path:
    """Where sessions are recorded by default: the state folder's ``sessions``."""
    return state_home() / "sessions"


# -- state files (eras.json, oauth.json): read without blocking, capped, said once -------

MAX_STATE_BYTES = 4 << 20  # a state file is a few KB; past this it is not ours


class StateFileError(InspectorError):
    """A state file cannot be read or written; the message names it and says why."""


def read_state(path: Path, limit: int = MAX_STATE_BYTES) -> bytes | None:
    """The bytes of state file ``path``; None when there is none.

    Opened without blocking (a FIFO planted there would hang ``open()`` beyond the reach
    of SIGTERM and SIGINT), a regular file only (a link to ``/dev/zero``, a device, a
    pipe is refused) and at most ``limit`` bytes read (a link to an endless or growing
    file). Anything else raises :class:`StateFileError` saying why."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise StateFileError(f"{path}: cannot be read ({exc.strerror or exc})") from exc
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise StateFileError(f"{path}: not a regular file ({_kind(info.st_mode)})")
        chunks: list[bytes] = []
        size = 0
        while size <= limit:
            chunk = os.read(fd, min(1 << 20, limit + 1 - size))
            if not chunk:
                return b"".join(chunks)
            chunks.append(chunk)
            size += len(chunk)
        raise StateFileError(f"{path}: larger than {limit:,} bytes: not a state file of ours")
    except OSError as exc:
        raise StateFileError(f"{path}: cannot be read ({exc.strerror or exc})") from exc
    finally:
        os.close(fd)


def write_state(path: Path, data: bytes) -> None:
    """Replace state file ``path`` with ``data`` atomically (a new 0600 file renamed over
    it: a crash leaves the old file or the new one), its folders made 0700. The new file
    is created exclusively, so nothing planted under its name is opened."""
    import tempfile  # start-up: shutil, random... only when a state file is written

    try:
        private_dirs(path.parent)
        fd, partial = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)  # 0600
        try:
            with os.fdopen(fd, "wb") as out:
                out.write(data)
            os.replace(partial, path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(partial)
            raise
    except OSError as exc:
        raise StateFileError(f"{path}: cannot be written ({exc.strerror or exc})") from exc


_SAID: set[tuple[str, str]] = set()
_LISTENERS: list[Callable[[str], None]] = []


def say_once(error: StateFileError, what: str) -> None:
    """Tell the user on stderr, once a process for each file and message, that a state
    file is being ignored (``what``: what that costs), never failing the caller; and every
    listener (the TUI, where stderr is not on screen: ``listen``)."""
    key = (str(error), what)
    if key in _SAID:
        return
    _SAID.add(key)
    with contextlib.suppress(Exception):  # a closed stderr must not stop a connection
        sys.stderr.write(f"mcp-inspect: {error}; {what}\n")
        sys.stderr.flush()
    for listener in list(_LISTENERS):
        with contextlib.suppress(Exception):  # nor a listener that is closing
            listener(f"{error}; {what}")


def listen(listener: Callable[[str], None]) -> Callable[[], None]:
    """Have ``listener`` told each state-file problem ``say_once`` says from now on (it
    may be called from any thread); returns what stops that."""
    _LISTENERS.append(listener)

    def stop() -> None:
        with contextlib.suppress(ValueError):
            _LISTENERS.remove(listener)

    return stop


def _kind(mode: int) -> str:
    for test, name in (
        (stat.S_ISFIFO, "a FIFO"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISDIR, "a folder"),
    ):
        if test(mode):
            return name
    return "not a regular file"


def new_session_path(name: str, is_url: bool = False) -> Path:
    """A new file under :func:`sessions_home` named after the time and the server (a
    command's or config entry's name, or a URL)."""
    import re
    from datetime import datetime

    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    slug = re.sub(r"[^A-Za-z0-9]+", "-", name if is_url else Path(name).name)
    slug = slug.strip("-")[:40] or "server"
    return sessions_home() / f"{stamp}-{slug}.jsonl"
