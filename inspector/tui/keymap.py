"""Every key of the TUI by area, read from the widgets' own ``BINDINGS``.

The help screen (``?``), the command palette and the README's key table are all built
from :func:`sections`, so a key added to a widget shows up in all three and a key
removed from one disappears from all three (``tests/tui/test_help.py`` holds the README to
it). The prose is data in ``help_text``: the sections and what each lists (``SECTIONS``),
what a binding does (``EXPLAIN``, ``"Class.action"``; failing that, the binding's own
description) and the keys a section relies on that Textual's widgets bring (``EXTRA``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from textual.app import App
from textual.binding import Binding
from textual.screen import Screen
from textual.widget import Widget

from inspector.logstore.filter_query import KEYS as FILTER_KEYS
from inspector.tui.help_text import (
    EXPLAIN,
    EXTRA,
    FILTER_SYNTAX,
    SECTIONS,
    SESSIONS,
    TEXTUAL_KEYS,
    AppKeys,
    Extra,
    Part,
    sessions_text,
)
from inspector.tui.widgets.auth_view import AuthView
from inspector.tui.widgets.call_list import CallList
from inspector.tui.widgets.catalog import Catalog, ListFilter
from inspector.tui.widgets.inflight import InFlightView
from inspector.tui.widgets.item_panel import ItemPanel
from inspector.tui.widgets.load_view import LoadView
from inspector.tui.widgets.log_filter import LogFilterBar
from inspector.tui.widgets.message_detail import MessageDetail
from inspector.tui.widgets.message_log import LogLines, MessageLog
from inspector.tui.widgets.result_view import ResultView
from inspector.tui.widgets.schema_form import SchemaForm
from inspector.tui.widgets.server_log import ServerLogView
from inspector.tui.widgets.tasks_view import TasksView

KEY_NAMES = {
    "question_mark": "?",
    "slash": "/",
    "escape": "Esc",
    "enter": "Enter",
    "tab": "Tab",
    "shift+tab": "shift+Tab",
    "up": "↑",
    "down": "↓",
    "left": "←",
    "right": "→",
    "pageup": "PgUp",
    "pagedown": "PgDn",
    "home": "Home",
    "end": "End",
    "delete": "Del",
    "backspace": "Backspace",
    "space": "Space",
    "f1": "F1",
}


@dataclass(frozen=True, slots=True)
class Key:
    """One line of the reference: the keys, what they do, and (for an app action) the
    action string the command palette runs and its title there."""

    keys: str
    text: str
    action: str | None = None
    title: str = ""


@dataclass(frozen=True, slots=True)
class Group:
    title: str | None
    keys: tuple[Key, ...]


@dataclass(frozen=True, slots=True)
class Section:
    id: str
    title: str
    intro: str
    groups: tuple[Group, ...] = ()
    text: tuple[str, ...] = ()  # paragraphs (the workflow, the filter syntax, sessions)


TEXTUAL_CLASSES = (App, Screen)  # whose keys the Everywhere section lists too


def key_label(keys: str) -> str:
    """``"n,escape"`` -> ``"n Esc"``; ``"question_mark"`` -> ``"?"``."""
    return " ".join(_key_name(k.strip()) for k in keys.split(","))


def _key_name(key: str) -> str:
    """``"alt+up"`` -> ``"alt+↑"``: the modifiers as they are, the key by its name."""
    if key in KEY_NAMES:
        return KEY_NAMES[key]
    *mods, last = key.split("+")
    return "+".join([*mods, KEY_NAMES.get(last, last)])


def _own_bindings(cls: type[Any]) -> list[Binding]:
    """The bindings a class declares itself (not those it inherits)."""
    found = cls.__dict__.get("BINDINGS", [])
    return [b for b in found if isinstance(b, Binding) and not b.system]


def action_name(action: str) -> str:
    return action.split("(", 1)[0]


def keys_of(
    cls: type[Any], *, only: Iterable[str] | None = None, skip: Iterable[str] = ()
) -> list[Key]:
    """``cls``'s bindings as reference lines; bindings said the same way share a line
    (``1`` ``2`` ``3`` ``4``; ``↑`` ``↓``)."""
    wanted = set(only) if only is not None else None
    skipped = set(skip)
    lines: dict[str, tuple[list[str], Binding]] = {}
    for binding in _own_bindings(cls):
        name = action_name(binding.action)
        if (wanted is not None and name not in wanted) or name in skipped:
            continue
        text = explain(cls, binding)
        keys, _ = lines.setdefault(text, ([], binding))
        if key_label(binding.key) not in keys:  # a key bound twice, one for each mode
            keys.append(key_label(binding.key))
    return [
        Key(" ".join(keys), text, binding.action, binding.description)
        for text, (keys, binding) in lines.items()
    ]


def explain(cls: type[Any], binding: Binding) -> str:
    """What ``binding`` of ``cls`` does, in words."""
    name = action_name(binding.action)
    return EXPLAIN.get(f"{cls.__name__}.{name}") or binding.description.lower()


def palette_entries(app_cls: type[App[Any]]) -> list[tuple[str, str, str]]:
    """(title, help, action) of every app action that works from everywhere: the command
    palette lists them, one per action (``5`` and ``i`` are one)."""
    first: dict[str, Binding] = {}
    keys: dict[str, list[str]] = {}
    for binding in _own_bindings(app_cls):
        if action_name(binding.action) in APP_AREAS or binding.action == "focus_catalog":
            continue  # they need a place (the log, a form); Esc is no command
        first.setdefault(binding.action, binding)
        keys.setdefault(binding.action, []).append(key_label(binding.key))
    out = []
    for action, binding in first.items():
        text = explain(app_cls, binding)
        out.append(
            (
                binding.description,
                f"{text[:1].upper()}{text[1:]} ({' '.join(keys[action])})",
                action,
            )
        )
    return out


def _extra(section: str) -> list[Key]:
    return [Key(keys, text) for keys, text in EXTRA.get(section, [])]


# Actions of the app that belong to one area (the rest work from everywhere).
APP_AREAS = {"detail": "log", "zoom_result": "result", "toggle_form": "form"}


def _app_keys(app_cls: type[App[Any]], area: str) -> list[Key]:
    mine = [a for a, where in APP_AREAS.items() if where == area]
    if area == "everywhere":
        return keys_of(app_cls, skip=APP_AREAS)
    return keys_of(app_cls, only=mine)


def _textual_keys() -> list[Key]:
    """Textual's own: the palette, ctrl+q, Tab."""
    palette = Binding(App.COMMAND_PALETTE_BINDING, "command_palette", "Command palette")
    return [
        *keys_of(App),
        Key(key_label(palette.key), EXPLAIN["App.command_palette"]),
        *keys_of(Screen, only=("app.focus_next", "app.focus_previous")),
    ]


def filter_syntax() -> Group:
    """The log filter's keys, from the language's own table."""
    lines = []
    for key in FILTER_KEYS:
        values = f" ({', '.join(key.values)})" if key.values else ""
        examples = "; e.g. " + ", ".join(key.examples)
        lines.append(Key(" ".join(f"{k}:" for k in key.spellings), key.meaning + values + examples))
    return Group("Syntax", tuple(lines))


def _keys(app_cls: type[App[Any]], part: Part) -> list[Key]:
    """The reference lines one part of a group names (``help_text.Part``)."""
    if isinstance(part, AppKeys):
        return _app_keys(app_cls, part.area)
    if isinstance(part, Extra):
        return _extra(part.section)
    if part == TEXTUAL_KEYS:
        return _textual_keys()
    if part == FILTER_SYNTAX:
        return list(filter_syntax().keys)
    assert isinstance(part, type), part
    return keys_of(part)


def sections(
    app_cls: type[App[Any]],
    *,
    session_file: str | None = None,
    folders: dict[str, str] | None = None,
) -> tuple[Section, ...]:
    """The whole reference, in the order the help screen shows it (``help_text.SECTIONS``)."""
    folders = folders or {"sessions": "?", "files": "?", "screenshots": "?"}
    return tuple(
        Section(
            spec.id,
            spec.title,
            spec.intro,
            tuple(
                Group(title, tuple(k for part in parts for k in _keys(app_cls, part)))
                for title, parts in spec.groups
            ),
            sessions_text(session_file, folders) if spec.text == SESSIONS else tuple(spec.text),
        )
        for spec in SECTIONS
    )


# Where the focus is -> the section the help opens on (the nearest ancestor decides).
AREAS: Sequence[tuple[type[Widget], str]] = (
    (LogFilterBar, "filter"),
    (ListFilter, "catalog"),
    (Catalog, "catalog"),
    (SchemaForm, "form"),
    (ResultView, "result"),
    (CallList, "history"),
    (ItemPanel, "form"),
    (LogLines, "log"),
    (MessageLog, "log"),
    (MessageDetail, "detail"),
    (InFlightView, "inflight"),
    (LoadView, "load"),
    (ServerLogView, "serverlog"),
    (TasksView, "tasks"),
    (AuthView, "auth"),
)


def section_for(focused: Widget | None, screen: Screen[Any] | None = None) -> str:
    """The section about where the user is: a dialog, or the focused widget's area."""
    if screen is not None and screen.is_modal:
        in_calls = focused is not None and any(
            isinstance(node, CallList) for node in focused.ancestors_with_self
        )
        return "history" if in_calls else "dialogs"
    for node in focused.ancestors_with_self if focused is not None else ():
        for cls, section in AREAS:
            if isinstance(node, cls):
                return section
    return "everywhere"


def markdown_table(all_sections: Sequence[Section]) -> str:
    """The key table of the README: one row per key line, the area named once."""
    rows = ["| where | key | what it does |", "| --- | --- | --- |"]
    for section in all_sections:
        for group in section.groups:
            where = section.title + (f": {group.title}" if group.title else "")
            for n, key in enumerate(group.keys):
                keys = " ".join(f"`{k}`" for k in key.keys.split(" "))
                text = key.text.replace("|", "\\|")
                rows.append(f"| {where if n == 0 else ''} | {keys} | {text} |")
    return "\n".join(rows) + "\n"
