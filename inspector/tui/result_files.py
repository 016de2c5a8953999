"""Saving a result's binary blocks (``s``): ask for a folder (the dialog:
``screens.save_files``; ``files`` in the state folder by default), write each file once
under its own name, never over an existing file, in a thread worker, and say where they
went."""

from __future__ import annotations

import mimetypes
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

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


def write_files(folder: Path, files: list[tuple[str, bytes]]) -> list[Path]:
    """Write ``files`` into ``folder`` (created when missing); the paths written."""
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for name, data in files:
        while True:
            path = free_path(folder / name)
            try:
                with path.open("xb") as out:  # "x": a file that appeared meanwhile is kept
                    out.write(data)
                break
            except FileExistsError:
                continue
        written.append(path)
    return written


def save_files_dialog(app: App[Any], files: list[tuple[str, bytes]]) -> None:
    """Ask for the folder, then write the files in a thread worker."""
    from inspector.tui.screens.save_files import SaveFilesScreen

    def chosen(folder: Path | None) -> None:
        if folder is not None:
            app.run_worker(
                lambda: _write(app, folder, files),
                thread=True,
                group="save-files",
                exit_on_error=False,
            )

    app.push_screen(SaveFilesScreen(default_folder(), [name for name, _ in files]), chosen)


def _write(app: App[Any], folder: Path, files: list[tuple[str, bytes]]) -> None:
    """Runs in a thread: everything it tells the user goes through ``call_from_thread``."""
    try:
        written = write_files(folder, files)
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
