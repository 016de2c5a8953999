"""Saving what a result or a frame holds: the files folder in the state folder by
default, each file 0600 (its new folders 0700, as session files), never over an existing
file, and the working directory (a user's checkout) asked about first.

A result's ``s``: ask for what to keep and a folder (the dialog: ``screens.save_files``),
write the files in a thread worker, and say where they went."""

from __future__ import annotations

import mimetypes
import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from inspector.record.private import FILE_MODE, private_dirs
from inspector.record.state import state_home
from inspector.safe_text import escape_markup
from inspector.tui.session_copy import shorten

if TYPE_CHECKING:
    from textual.app import App

MIME_EXT = {
    "image/png": ".png",
    "image/jpeg": ".jpg",
    "image/gif": ".gif",
    "image/webp": ".webp",
    "audio/wav": ".wav",
    "audio/x-wav": ".wav",
    "audio/mpeg": ".mp3",
    "audio/ogg": ".ogg",
    "application/pdf": ".pdf",
}
_UNSAFE = re.compile(r"[\x00-\x1f\x7f-\x9f/\\]")


def default_folder() -> Path:
    return state_home() / "files"


def file_name(base: str, mime: str) -> str:
    """A file name for a block: ``base`` made safe, with the extension of ``mime`` only
    when it has none (``logo.png`` stays ``logo.png``)."""
    name = _UNSAFE.sub("_", base).strip() or "blob"
    if name in (".", ".."):
        name = "blob"
    if Path(name).suffix:
        return name
    return name + (MIME_EXT.get(mime) or mimetypes.guess_extension(mime) or ".bin")


def free_path(path: Path) -> Path:
    """``path``, or ``name-1.ext``, ``name-2.ext``... when it is taken."""
    candidate, n = path, 1
    while candidate.exists():
        candidate = path.with_name(f"{path.stem}-{n}{path.suffix}")
        n += 1
    return candidate


def write_private(path: Path, data: bytes) -> None:
    """``data`` into a new file only the user can read (as session files are), its
    missing folders made 0700; ``FileExistsError`` when the file is there."""
    private_dirs(path.parent)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, FILE_MODE)
    try:
        os.fchmod(fd, FILE_MODE)  # the umask masked the mode given to open
    except BaseException:
        os.close(fd)
        raise
    with os.fdopen(fd, "wb") as out:
        out.write(data)


def write_files(folder: Path, files: list[tuple[str, bytes]]) -> list[Path]:
    """Write ``files`` into ``folder`` (created when missing); the paths written."""
    written = []
    for name, data in files:
        while True:
            path = free_path(folder / name)
            try:
                write_private(path, data)  # O_EXCL: a file that appeared meanwhile is kept
                break
            except FileExistsError:
                continue
        written.append(path)
    return written


def in_working_directory(folder: Path) -> bool:
    return folder.resolve() == Path.cwd().resolve()


def ask_working_directory(app: App[Any], folder: Path, proceed: Callable[[], object]) -> None:
    """``proceed`` at once, or - ``folder`` being the working directory, a user's
    checkout - once the user says yes."""
    if not in_working_directory(folder):
        proceed()
        return
    from inspector.tui.screens.confirm import ConfirmScreen

    def answered(answer: str | None) -> None:
        if answer == "once":
            proceed()

    question = f"Save into the working directory ({folder})?"
    app.push_screen(ConfirmScreen(escape_markup(question), always=False), answered)


@dataclass(frozen=True)
class SaveChoice:
    """One thing ``s`` can keep of a result: its label in the dialog, and its files (made
    in the worker thread: the JSON of a big result takes a while)."""

    label: str
    files: Callable[[], list[tuple[str, bytes]]]


def save_files_dialog(app: App[Any], choices: list[SaveChoice]) -> None:
    """Ask what to keep and the folder, then write the files in a thread worker."""
    from inspector.tui.screens.save_files import SaveFilesScreen

    screen = SaveFilesScreen(default_folder(), [choice.label for choice in choices])

    def chosen(folder: Path | None) -> None:
        if folder is None:
            return
        choice = choices[screen.choice]
        ask_working_directory(
            app,
            folder,
            lambda: app.run_worker(
                lambda: _write(app, folder, choice.files),
                thread=True,
                group="save-files",
                exit_on_error=False,
            ),
        )

    app.push_screen(screen, chosen)


def _write(app: App[Any], folder: Path, make: Callable[[], list[tuple[str, bytes]]]) -> None:
    """Runs in a thread: everything it tells the user goes through ``call_from_thread``."""
    try:
        written = write_files(folder, make())
    except OSError as exc:
        app.call_from_thread(
            app.notify,
            escape_markup(f"could not save in {shorten(folder)}: {exc.strerror or exc}"),
            title="save",
            severity="error",
            timeout=10,
        )
        return
    names = ", ".join(path.name for path in written)
    app.call_from_thread(
        app.notify,
        escape_markup(f"saved {len(written)} file(s) in {shorten(folder)}: {names}"),
        title="save",
        timeout=10,
    )
