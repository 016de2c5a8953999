""" "Save session as" (w): ask for a path (the dialog: ``screens.save_as``), then copy the
session file in a thread worker (a session file can be a gigabyte; the UI goes on
meanwhile)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from inspector.record.indexed import IndexedSessionFile
from inspector.record.recorder import Recorder
from inspector.tui.screens.save_as import SaveAsScreen
from inspector.tui.session_copy import copy_snapshot, shorten

if TYPE_CHECKING:
    from textual.app import App

SNAPSHOT_NOTE = "the session is still being recorded: the copy holds what is written so far"


def session_file(
    recorder: Recorder | None, replay_source: IndexedSessionFile | None
) -> Path | None:
    """The file to copy: the one being recorded, or the one being replayed."""
    if recorder is not None:
        return recorder.path
    return replay_source.path if replay_source is not None else None


def save_session_as(app: App[Any], source: Path, *, recording: bool) -> None:
    """Ask where to (``recording``: a live file, the copy is a snapshot), then copy."""

    def chosen(target: Path | None) -> None:
        if target is not None:
            app.run_worker(
                lambda: _copy(app, source, target, recording),
                thread=True,
                group="save-as",
                exit_on_error=False,
            )

    app.push_screen(SaveAsScreen(source, SNAPSHOT_NOTE if recording else ""), chosen)


def _copy(app: App[Any], source: Path, target: Path, recording: bool) -> None:
    """Runs in a thread: everything it tells the user goes through ``call_from_thread``."""
    try:
        size = copy_snapshot(source, target)
    except OSError as exc:
        app.call_from_thread(
            app.notify,
            f"could not copy to {shorten(target)}: {exc.strerror or exc}",
            title="save as",
            severity="error",
            timeout=10,
        )
        return
    message = f"session copied to {shorten(target)} ({size:,} bytes)"
    if recording:
        message += (
            f"; a snapshot of what was recorded so far (recording goes on in {shorten(source)})"
        )
    app.call_from_thread(app.notify, message, title="save as", timeout=8)
