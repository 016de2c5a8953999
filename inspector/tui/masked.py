"""The session's secrets out of what the TUI prints of the wire: the message log's rows,
the event detail (pretty and raw) and what its save and copy write, what the result
pane's save and copy write, and the other panes that show server text (In flight, Tasks,
the Server pane, the catalog, the server log) through ``shown_mask`` (issue 24).

The redaction is the session file's (``Redactor``, one per server), applied when a row or
a detail is drawn, never when a frame arrives: a flood's frames cost nothing more, and
the stored events stay as they came (the wire is the truth). A workspace masks with
every server's redaction: a secret of one server is a secret in another's frames too.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from inspector.record.redact import Redactor


def redactors(app: Any) -> tuple[Redactor, ...]:
    """Every server's redaction the app holds that is on (none: ``--no-redact``, or an app
    without server views)."""
    return tuple(view.redactor for view in getattr(app, "views", ()) if view.redactor.enabled)


def text_mask(masks: tuple[Redactor, ...]) -> Callable[[str], str]:
    """A short text (a method, an id) with the registered secrets of ``masks`` out."""

    def masked(text: str) -> str:
        for redactor in masks:
            text = redactor.text(text)
        return text

    return masked


def value_mask(masks: tuple[Redactor, ...]) -> Callable[[Any], Any]:
    """Parsed JSON (a result, an error) with the registered secrets of ``masks`` out of
    its strings and keys; the same object when none holds one."""

    def masked(value: Any) -> Any:
        for redactor in masks:
            value = redactor.parsed(value)
        return value

    return masked


@dataclass(frozen=True, slots=True)
class RowMask:
    """What the log's rows are masked with; equal while no new secret is known (the
    rows' cache is dropped when it changes)."""

    masks: tuple[Redactor, ...]
    known: tuple[int, ...]

    def __call__(self, text: str) -> str:
        for redactor in self.masks:
            text = redactor.cut_text(text)  # a summary's values are cut with "…"
        return text


def _masking(app: Any) -> tuple[Redactor, ...]:
    """The app's redactions that know a secret to mask (none: nothing to do)."""
    return tuple(redactor for redactor in redactors(app) if redactor.masking)


def row_mask(app: Any) -> RowMask | None:
    """The rows' mask, None when no secret is known (the common case: nothing to do)."""
    masks = _masking(app)
    return RowMask(masks, tuple(redactor.known for redactor in masks)) if masks else None


def as_is(text: str) -> str:
    """No mask: the text as it is (the default of a function that takes one)."""
    return text


def shown_mask(app: Any) -> Callable[[str], str]:
    """What a pane masks a server text with as it draws it, once cut to what it shows (a
    secret's start before a cut ``…`` goes too); the text as it is while no secret is
    known (the common case costs a call)."""
    return row_mask(app) or as_is


def shown_value_mask(app: Any) -> Callable[[Any], Any]:
    """The same for parsed JSON a pane shows whole (server info): the same object while
    no secret is known or none is in it."""
    return value_mask(_masking(app))
