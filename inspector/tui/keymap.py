"""Every key of the TUI by area, read from the widgets' own ``BINDINGS``.

The help screen (``?``), the command palette and the README's key table are all built
from :func:`sections`, so a key added to a widget shows up in all three and a key
removed from one disappears from all three (``tests/tui/test_help.py`` holds the README to
it). What a binding does is said by ``EXPLAIN`` (``"Class.action"``) or, failing that,
by the binding's own description; ``EXTRA`` adds the keys a section relies on that
Textual's widgets bring (the arrows in a list, Enter in a text field).
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
from inspector.tui.interactive import SamplingRuleBar
from inspector.tui.screens.collections import CollectionsScreen
from inspector.tui.screens.confirm import ConfirmScreen
from inspector.tui.screens.elicitation import CompletionWaitScreen, ElicitationScreen
from inspector.tui.screens.intercept import InterceptScreen
from inspector.tui.screens.keep_step import KeepStepScreen
from inspector.tui.screens.roots import RootsEditor, RootsScreen
from inspector.tui.screens.sampling import SamplingScreen
from inspector.tui.screens.save_as import SaveAsScreen
from inspector.tui.screens.save_files import SaveFilesScreen
from inspector.tui.widgets.auth_view import AuthView
from inspector.tui.widgets.catalog import Catalog, ListFilter
from inspector.tui.widgets.document_view import DocumentView
from inspector.tui.widgets.field_input import FieldInput
from inspector.tui.widgets.form_fields import ItemRow
from inspector.tui.widgets.inflight import InFlightView
from inspector.tui.widgets.item_panel import ItemPanel
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

# What a binding does, in more words than its footer label: "Class.action" (the action
# without its arguments: 1 2 3 4 share "InspectorApp.catalog").
EXPLAIN = {
    "App.quit": "quit at once, from anywhere (even a dialog)",
    "App.command_palette": "the command palette: every action by name",
    "Screen.app.focus_next": "the next area or field",
    "Screen.app.focus_previous": "the previous area or field",
    "InspectorApp.send": "send the open item (call, read, get) from anywhere; with problems "
    "in the form, the first press marks each on its field and sends nothing, the next "
    "sends anyway",
    "InspectorApp.catalog": "the Tools, Resources, Templates and Prompts lists",
    "InspectorApp.server_info": "the Server tab: info, both sides' capabilities, "
    "instructions, stderr",
    "InspectorApp.focus_log": "the message log",
    "InspectorApp.bottom": "the In flight, Server log, Tasks and Auth tabs",
    "InspectorApp.roots": "edit the roots offered to the server",
    "InspectorApp.collections": "the Collections view: run a collection file's steps on this "
    "connection, each step's pass or fail with what differed",
    "InspectorApp.intercept": "(attached to a proxy) intercept: hold matching frames, "
    "forward, edit or drop them",
    "InspectorApp.toggle_auto_reread": "re-read subscribed resources when they are updated",
    "InspectorApp.focus_catalog": "back to the catalog (from a form, a tab, the log)",
    "InspectorApp.cycle_log": "log size: normal, maximized, collapsed",
    "InspectorApp.toggle_detail": "show or hide the event detail",
    "InspectorApp.reconnect": "reconnect (the log is kept)",
    "InspectorApp.relist": "list tools, resources, templates and prompts again (attached to "
    "a proxy, the catalog is otherwise what the host was given)",
    "InspectorApp.save_as": "save the session file (or the replayed one) as…: asks for a path",
    "InspectorApp.zoom_result": "the result: in its place, the whole work pane, the whole screen",
    "InspectorApp.toggle_form": "hide the form (ctrl+s still sends it) or show it again",
    "InspectorApp.detail": "with the detail open: pair (jump between request and "
    "response), copy the frame, save it to a file",
    "InspectorApp.help": "this help, on the section about where you are (F1 works in forms "
    "and dialogs too)",
    "InspectorApp.quit_or_ask": "quit (the server is shut down cleanly); asks first when a "
    "form holds input that was not sent or calls are in flight",
    "Catalog.filter": "filter the list as you type: name, title, URI, description; the best "
    "matches first; again, the filter kept is selected (typing replaces it)",
    "Catalog.clear_filter": "clear the list's filter",
    "ListFilter.list": "(in the filter) move in the list; Enter opens the highlighted item",
    "ListFilter.clear": "(in the filter) clear it and go back to the list",
    "SchemaForm.toggle_json": "switch the form to a raw JSON editor and back, without losing input",
    "SchemaForm.submit": "send",
    "ItemRow.item_up": "(an array item) move it up, down; the focus goes with it",
    "ItemRow.item_down": "(an array item) move it up, down; the focus goes with it",
    "ItemRow.remove_item": "(an array item, a map entry) remove it",
    "FieldInput.choice": "(a field with the server's completions) ↓ opens the list of "
    "values, then move in it; typing narrows it",
    "FieldInput.pick": "(the list open) put the highlighted value in the field",
    "FieldInput.close_choices": "(the list open) close it, staying in the field",
    "ResultView.save": "save the result's binary blocks into a folder",
    "ResultView.open_link": "read the result's resource link",
    "ResultView.keep": "keep the call (arguments as sent) as a step of a collection file, "
    "its result's state as the expectation (the file is asked once; mcp-inspect test runs it)",
    "DocumentView.scroll_up": "scroll",
    "DocumentView.scroll_down": "scroll",
    "DocumentView.page_up": "scroll a page",
    "DocumentView.page_down": "scroll a page",
    "DocumentView.scroll_home": "the top, the bottom",
    "DocumentView.scroll_end": "the top, the bottom",
    "LogLines.cursor_up": "move the cursor; with the detail open, it follows",
    "LogLines.cursor_down": "move the cursor; with the detail open, it follows",
    "LogLines.page_up": "a page up, down",
    "LogLines.page_down": "a page up, down",
    "LogLines.first": "the first event; the last (and follow new ones)",
    "LogLines.last": "the first event; the last (and follow new ones)",
    "LogLines.select": "open the event's detail",
    "MessageLog.open_filter": "filter the log (syntax below, in Log filter)",
    "LogFilterBar.close": "clear the filter and close it",
    "LogFilterBar.accept_completion": "complete the word being typed (→ too)",
    "MessageDetail.toggle_raw": "raw bytes or pretty JSON",
    "MessageDetail.pair": "jump to the paired request or response",
    "MessageDetail.copy": "copy the frame (OSC 52)",
    "MessageDetail.save": "save the frame to a file",
    "MessageDetail.cancel_save": "cancel saving",
    "InFlightView.cancel": "cancel the highlighted request (the call says 'cancelled by you')",
    "InFlightView.reopen_listen": "re-open the subscriptions/listen stream you cancelled "
    "(2026-07-28: lists update by themselves again)",
    "ServerLogView.clear": "clear the server log",
    "TasksView.refresh_tasks": "refresh (tasks/list)",
    "TasksView.cancel_task": "cancel the highlighted task",
    "TasksView.fetch_result": "fetch its result (tasks/result)",
    "AuthView.open_browser": "open the authorization URL in the browser (asks first)",
    "AuthView.copy_url": "copy the authorization URL (OSC 52), for a browser elsewhere",
    "AuthView.next_request": "(step by step) send the flow's next request",
    "AuthView.toggle_step": "step by step: pause before each request of the flow",
    "AuthView.cancel_flow": "cancel the authorization",
    "SamplingRuleBar.rule_off": "switch the standing sampling rule off",
    "ConfirmScreen.answer": "yes; yes and do not ask again; no",
    "SamplingScreen.send": "send the reply",
    "SamplingScreen.reject": "reject the request (error -1)",
    "SamplingScreen.toggle_json": "write the reply as a form or as JSON",
    "ElicitationScreen.accept": "accept: send the form",
    "ElicitationScreen.decline": "decline",
    "ElicitationScreen.cancel": "cancel",
    "CompletionWaitScreen.retry": "call again now, without waiting for the server",
    "CompletionWaitScreen.cancel": "give up",
    "RootsScreen.close": "close",
    "RootsEditor.remove": "remove the highlighted root",
    "SaveAsScreen.cancel": "cancel",
    "SaveFilesScreen.cancel": "cancel",
    "CollectionsScreen.close": "close",
    "KeepStepScreen.cancel": "cancel",
    "InterceptScreen.forward": "forward the frame shown, as edited",
    "InterceptScreen.drop": "drop the frame shown",
    "InterceptScreen.forward_all": "forward every held frame",
    "InterceptScreen.close": "close",
}

# Keys that Textual's own widgets bring to a section: (key, what it does).
EXTRA: dict[str, list[tuple[str, str]]] = {
    "catalog": [
        ("↑ ↓ PgUp PgDn", "move in the list"),
        ("Enter", "open the item (a resource is read at once, the list keeps the focus)"),
    ],
    "form": [
        ("Tab shift+Tab", "the next, the previous field (an array item is one stop)"),
        ("Esc", "back to the catalog"),
    ],
    "filter": [("Enter", "apply the filter and go to the rows")],
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


WORKFLOW = (
    "1. Pick an item in the catalog on the left: 1-4 switch lists, / filters the list, "
    "Enter opens the item (a resource is read at once, the list keeps the focus).",
    "2. Fill its form and send it with ctrl+s: the result shows under the form (z zooms it).",
    "3. Every frame is in the message log (g): Enter opens its detail, / filters the log, "
    "p jumps between a request and its response.",
    "4. The server's own requests (sampling, elicitation, roots) open dialogs that wait for "
    "your answer.",
    "5. The whole session is written to a file as it happens: reopen it with "
    "mcp-inspect replay FILE.",
)


FILTER_RULES = (
    "Words are ANDed: every one must hold; the values of one key, separated by commas, "
    "are alternatives (kind:request,notification).",
    "Any other word is text found anywhere in the frame, in any case, in the raw bytes and "
    'the decoded JSON alike; quotes keep spaces ("two words") or a colon ("knd:error").',
    "A key or a value that is not known is said under the filter, with its column; Tab or "
    "→ completes keys, values and the methods seen so far.",
)


def filter_syntax() -> Group:
    """The log filter's keys, from the language's own table."""
    lines = []
    for key in FILTER_KEYS:
        values = f" ({', '.join(key.values)})" if key.values else ""
        examples = "; e.g. " + ", ".join(key.examples)
        lines.append(Key(" ".join(f"{k}:" for k in key.spellings), key.meaning + values + examples))
    return Group("Syntax", tuple(lines))


def sessions_text(session_file: str | None, folders: dict[str, str]) -> tuple[str, ...]:
    """Where this session and saved things go."""
    now = (
        f"This session is written to {session_file}, one event a line, each flushed before "
        "it is acted on."
        if session_file
        else "This session is not recorded (--no-record)."
    )
    return (
        now,
        f"New sessions go to {folders['sessions']} (--record FILE chooses the file, "
        "--no-record turns it off); w saves a copy where you choose.",
        "Reopen one offline with: mcp-inspect replay FILE. Check a new server build "
        "against it with: mcp-inspect --cli replay FILE --against -- COMMAND.",
        f"Result files (s in a result) go to {folders['files']} by default, screenshots "
        f"(command palette) to {folders['screenshots']}.",
    )


def sections(
    app_cls: type[App[Any]],
    *,
    session_file: str | None = None,
    folders: dict[str, str] | None = None,
) -> tuple[Section, ...]:
    """The whole reference, in the order the help screen shows it."""
    folders = folders or {"sessions": "?", "files": "?", "screenshots": "?"}
    dialogs: tuple[tuple[Any, ...], ...] = (
        ("Confirm", ConfirmScreen),
        ("Sampling (you are the model)", SamplingScreen),
        ("Elicitation (a form from the server)", ElicitationScreen),
        ("Waiting for a URL elicitation", CompletionWaitScreen),
        ("Roots", RootsScreen, RootsEditor),
        ("Save as", SaveAsScreen),
        ("Save files", SaveFilesScreen),
        ("Keep as a check", KeepStepScreen),
        ("Collections", CollectionsScreen),
        ("Intercept (proxy)", InterceptScreen),
    )
    return (
        Section("workflow", "Workflow", "How a session goes.", text=WORKFLOW),
        Section(
            "everywhere",
            "Everywhere",
            "Letter, digit and ? keys act outside forms and dialogs (in a form they type; "
            "Esc leaves it first).",
            (
                Group(None, tuple(_app_keys(app_cls, "everywhere"))),
                Group("The sampling rule bar", tuple(keys_of(SamplingRuleBar))),
                Group("Textual", tuple(_textual_keys())),
            ),
        ),
        Section(
            "catalog",
            "Catalog",
            "The lists on the left: tools, resources, templates, prompts.",
            (Group(None, (*_extra("catalog"), *keys_of(Catalog), *keys_of(ListFilter))),),
        ),
        Section(
            "form",
            "Form",
            "The selected item's arguments, built from its schema.",
            (
                Group(
                    None,
                    (
                        *keys_of(SchemaForm),
                        *_app_keys(app_cls, "form"),
                        *_extra("form"),
                        *keys_of(ItemRow),
                    ),
                ),
                Group("Completions", tuple(keys_of(FieldInput))),
            ),
        ),
        Section(
            "result",
            "Result",
            "What the server answered, under the form.",
            (
                Group(
                    None,
                    (
                        *keys_of(ResultView),
                        *_app_keys(app_cls, "result"),
                        *keys_of(DocumentView),
                    ),
                ),
            ),
        ),
        Section(
            "log",
            "Log",
            "One row per frame on the wire, in both directions.",
            (
                Group(
                    None,
                    (*keys_of(LogLines), *keys_of(MessageLog), *_app_keys(app_cls, "log")),
                ),
            ),
        ),
        Section(
            "filter",
            "Log filter",
            "/ in the log: which events to show.",
            (Group(None, (*keys_of(LogFilterBar), *_extra("filter"))), filter_syntax()),
            FILTER_RULES,
        ),
        Section(
            "detail",
            "Detail",
            "One frame in full: pretty JSON, raw bytes, transport, findings (d shows it).",
            (Group(None, tuple(keys_of(MessageDetail))),),
        ),
        Section(
            "inflight",
            "In flight",
            "Requests waiting for their answer (f).",
            (Group(None, tuple(keys_of(InFlightView))),),
        ),
        Section(
            "serverlog",
            "Server log",
            "notifications/message by level (o).",
            (Group(None, tuple(keys_of(ServerLogView))),),
        ),
        Section(
            "tasks",
            "Tasks",
            "Tools run as tasks, followed to their result (t).",
            (Group(None, tuple(keys_of(TasksView))),),
        ),
        Section(
            "auth",
            "Auth",
            "OAuth: the flow as steps, each HTTP exchange a row of the log on the auth "
            "channel (A).",
            (Group(None, tuple(keys_of(AuthView))),),
        ),
        Section(
            "dialogs",
            "Dialogs",
            "The server's requests and the inspector's questions; each has its own keys.",
            tuple(
                Group(title, tuple(k for cls in classes for k in keys_of(cls)))
                for title, *classes in dialogs
            ),
        ),
        Section(
            "sessions",
            "Sessions",
            "Where things are written.",
            text=sessions_text(session_file, folders),
        ),
    )


# Where the focus is -> the section the help opens on (the nearest ancestor decides).
AREAS: Sequence[tuple[type[Widget], str]] = (
    (LogFilterBar, "filter"),
    (ListFilter, "catalog"),
    (Catalog, "catalog"),
    (SchemaForm, "form"),
    (ResultView, "result"),
    (ItemPanel, "form"),
    (LogLines, "log"),
    (MessageLog, "log"),
    (MessageDetail, "detail"),
    (InFlightView, "inflight"),
    (ServerLogView, "serverlog"),
    (TasksView, "tasks"),
    (AuthView, "auth"),
)


def section_for(focused: Widget | None, screen: Screen[Any] | None = None) -> str:
    """The section about where the user is: a dialog, or the focused widget's area."""
    if screen is not None and screen.is_modal:
        return "dialogs"
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
