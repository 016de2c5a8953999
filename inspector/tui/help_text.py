"""The help's prose, as data: what each key does in words, the sections and what each
lists, the workflow and the filter rules.

``keymap`` reads this table and the widgets' own ``BINDINGS`` to build the help screen,
the command palette and the README's key table; a new section or a reworded line is an
edit here, not in code.
"""

from __future__ import annotations

from dataclasses import dataclass

from inspector.tui.interactive import SamplingRuleBar
from inspector.tui.screens.all_log import AllLogScreen
from inspector.tui.screens.collections import CollectionsScreen
from inspector.tui.screens.compare import CompareScreen
from inspector.tui.screens.confirm import ConfirmScreen
from inspector.tui.screens.elicitation import CompletionWaitScreen, ElicitationScreen
from inspector.tui.screens.history import HistoryScreen
from inspector.tui.screens.intercept import InterceptScreen
from inspector.tui.screens.keep_step import KeepStepScreen
from inspector.tui.screens.load_dialog import LoadDialog
from inspector.tui.screens.roots import RootsEditor, RootsScreen
from inspector.tui.screens.sampling import SamplingScreen
from inspector.tui.screens.save_as import SaveAsScreen
from inspector.tui.screens.save_files import SaveFilesScreen
from inspector.tui.screens.server_list import AddServerPrompt, ServerListScreen
from inspector.tui.widgets.auth_view import AuthView
from inspector.tui.widgets.call_list import CallRows
from inspector.tui.widgets.catalog import Catalog, ListFilter
from inspector.tui.widgets.document_view import DocumentView
from inspector.tui.widgets.field_input import FieldInput
from inspector.tui.widgets.form_fields import ItemRow
from inspector.tui.widgets.inflight import InFlightView
from inspector.tui.widgets.load_view import LoadView
from inspector.tui.widgets.log_filter import LogFilterBar
from inspector.tui.widgets.message_detail import MessageDetail
from inspector.tui.widgets.message_log import LogLines, MessageLog
from inspector.tui.widgets.result_view import ResultView
from inspector.tui.widgets.schema_form import SchemaForm
from inspector.tui.widgets.server_log import ServerLogView
from inspector.tui.widgets.tasks_view import TasksView

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
    "InspectorApp.history": "History: every call sent (tools, reads, prompts), newest first, "
    "with its result; re-send one or open it in its form",
    "InspectorApp.roots": "edit the roots offered to the server",
    "InspectorApp.collections": "the Collections view: run a collection file's steps on this "
    "connection, each step's pass or fail with what differed",
    "InspectorApp.load_run": "(a tool open) a short load run of it with the form's arguments: "
    "asks sessions, duration or requests, rate; the Load tab shows it; again: stop it",
    "InspectorApp.intercept": "(attached to a proxy) intercept: hold matching frames, "
    "forward, edit or drop them; with frames held (the status bar counts them: ⏸ N held), "
    "opens on them",
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
    "InspectorApp.detail": "with the detail open: raw bytes or pretty JSON, pair (jump "
    "between request and response), copy the frame, save it to a file",
    "InspectorApp.help": "this help, on the section about where you are (F1 works in forms "
    "and dialogs too)",
    "InspectorApp.servers": "the workspace's servers (name, transport, era, state): Enter "
    "shows one as it was left, x removes one (its process stopped)",
    "InspectorApp.add_server": "add a server: a URL, a command line, or a name from --config",
    "InspectorApp.quit_or_ask": "quit (the server is shut down cleanly); asks first when a "
    "form holds input that was not sent, calls are in flight, or an attached proxy holds "
    "frames for intercept (they are released)",
    "Catalog.filter": "filter the list as you type: name, title, URI, description; the best "
    "matches first; again, the filter kept is selected (typing replaces it)",
    "Catalog.clear_filter": "clear the list's filter",
    "ListFilter.list": "(in the filter) move in the list; Enter opens the highlighted item",
    "ListFilter.clear": "(in the filter) clear it and go back to the list",
    "SchemaForm.toggle_json": "switch the form to a raw JSON editor and back, without losing input",
    "SchemaForm.submit": "send",
    "SchemaForm.reset": "reset the form to the schema's defaults (asks first when that drops "
    "input; in the JSON editor it is an edit: ctrl+z brings the text back)",
    "ItemRow.item_up": "(an array item) move it up, down; the focus goes with it",
    "ItemRow.item_down": "(an array item) move it up, down; the focus goes with it",
    "ItemRow.remove_item": "(an array item, a map entry) remove it",
    "FieldInput.choice": "(a field with the server's completions) ↓ opens the list of "
    "values, then move in it; typing narrows it",
    "FieldInput.pick": "(the list open) put the highlighted value in the field",
    "FieldInput.close_choices": "(the list open) close it, staying in the field",
    "ResultView.save": "save the result into a folder: its binary blocks, its JSON or its "
    "text (asked)",
    "ResultView.copy": "copy the result as JSON (OSC 52)",
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
    "LogFilterBar.accept_completion": "insert the completion shown after the cursor (→ too); "
    "a key still waiting for its value shows none, the line under the filter lists them",
    "MessageDetail.toggle_raw": "raw bytes or pretty JSON",
    "MessageDetail.pair": "jump to the paired request or response",
    "MessageDetail.copy": "copy the frame (OSC 52)",
    "MessageDetail.save": "save the frame to a file",
    "MessageDetail.cancel_save": "cancel saving",
    "CallRows.resend": "send the call again as it was (its item opens, the form filled)",
    "CallRows.edit": "open the call in its item's form, its arguments filled in, to edit "
    "(a read of a template's URI: the template)",
    "CallRows.frame": "its request frame in the log, the detail open (in a replay, Enter too)",
    "HistoryScreen.close": "close",
    "InFlightView.cancel": "cancel the highlighted request (the call says 'cancelled by you')",
    "InFlightView.reopen_listen": "re-open the subscriptions/listen stream you cancelled "
    "(2026-07-28: lists update by themselves again)",
    "LoadView.stop": "stop the load run (its report stays in the tab)",
    "LoadDialog.cancel": "cancel",
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
    "ServerListScreen.remove": "remove the highlighted server (stopped as quitting does)",
    "ServerListScreen.close": "close",
    "ServerListScreen.all": "one log of every server's frames (server:NAME filters it)",
    "ServerListScreen.compare": "compare the highlighted server's catalog with the shown one's",
    "CompareScreen.close": "back",
    "CompareScreen.swap": "swap the sides (which one is the old)",
    "CompareScreen.again": "compare again (the servers' catalogs as they are now)",
    "AllLogScreen.back": "close the detail, then back to the server shown",
    "AllLogScreen.toggle_detail": "show or hide the highlighted frame's detail",
    "AllLogScreen.detail": "the detail's raw/pretty, pair, copy and save",
    "AddServerPrompt.cancel": "cancel",
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
        ("F7 ctrl+z ctrl+y", "(the JSON editor) select all; undo, redo"),
    ],
    "filter": [("Enter", "apply the filter and go to the rows")],
    "intercept": [
        ("Enter", "(in the filter) hold what matches from now on; empty: hold nothing"),
        ("↑ ↓", "(in the held frames) the frame shown in the editor, to forward or drop"),
    ],
}


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
    "A key or a value that is not known is said under the filter, with its column (so is "
    "/kind:error: the / that opens the filter, typed again); Tab or → inserts the completion "
    "shown after the cursor: keys, values and the methods seen so far.",
)


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


# -- the sections, in the order the help screen shows them ---------------------------------


@dataclass(frozen=True)
class AppKeys:
    """The app's own keys of one area (``keymap.APP_AREAS``), or of "everywhere"."""

    area: str


@dataclass(frozen=True)
class Extra:
    """The keys Textual's widgets bring to a section (``EXTRA``)."""

    section: str


TEXTUAL_KEYS = "textual"  # Textual's own: the palette, ctrl+q, Tab
FILTER_SYNTAX = "filter-syntax"  # the log filter's keys, from the language's own table
SESSIONS = "sessions"  # where this session and saved things go (``sessions_text``)

# Where a group's keys come from: a class's own bindings, the app's, EXTRA, or one of
# the named sources above.
Part = type | AppKeys | Extra | str
GroupSpec = tuple[str | None, tuple[Part, ...]]


@dataclass(frozen=True)
class SectionSpec:
    id: str
    title: str
    intro: str
    groups: tuple[GroupSpec, ...] = ()
    text: tuple[str, ...] | str = ()  # paragraphs, or SESSIONS (written per session)


DIALOGS: tuple[GroupSpec, ...] = (
    ("Confirm", (ConfirmScreen,)),
    ("Sampling (you are the model)", (SamplingScreen,)),
    ("Elicitation (a form from the server)", (ElicitationScreen,)),
    ("Waiting for a URL elicitation", (CompletionWaitScreen,)),
    ("Roots", (RootsScreen, RootsEditor)),
    ("Load run", (LoadDialog,)),
    ("Save as", (SaveAsScreen,)),
    ("Save files", (SaveFilesScreen,)),
    ("Keep as a check", (KeepStepScreen,)),
    ("Collections", (CollectionsScreen,)),
    ("Intercept (proxy)", (InterceptScreen, Extra("intercept"))),
    ("Servers (workspace)", (ServerListScreen, AddServerPrompt)),
    ("All servers' log (workspace)", (AllLogScreen,)),
    ("Compare (workspace)", (CompareScreen,)),
)

SECTIONS: tuple[SectionSpec, ...] = (
    SectionSpec("workflow", "Workflow", "How a session goes.", text=WORKFLOW),
    SectionSpec(
        "everywhere",
        "Everywhere",
        "Letter, digit and ? keys act outside forms and dialogs (in a form they type; "
        "Esc leaves it first).",
        (
            (None, (AppKeys("everywhere"),)),
            ("The sampling rule bar", (SamplingRuleBar,)),
            ("Textual", (TEXTUAL_KEYS,)),
        ),
    ),
    SectionSpec(
        "catalog",
        "Catalog",
        "The lists on the left: tools, resources, templates, prompts.",
        ((None, (Extra("catalog"), Catalog, ListFilter)),),
    ),
    SectionSpec(
        "form",
        "Form",
        "The selected item's arguments, built from its schema.",
        (
            (None, (SchemaForm, AppKeys("form"), Extra("form"), ItemRow)),
            ("Completions", (FieldInput,)),
        ),
    ),
    SectionSpec(
        "result",
        "Result",
        "What the server answered, under the form.",
        ((None, (ResultView, AppKeys("result"), DocumentView)),),
    ),
    SectionSpec(
        "log",
        "Log",
        "One row per frame on the wire, in both directions.",
        ((None, (LogLines, MessageLog, AppKeys("log"))),),
    ),
    SectionSpec(
        "filter",
        "Log filter",
        "/ in the log: which events to show.",
        ((None, (LogFilterBar, Extra("filter"))), ("Syntax", (FILTER_SYNTAX,))),
        FILTER_RULES,
    ),
    SectionSpec(
        "detail",
        "Detail",
        "One frame in full: pretty JSON, raw bytes, transport, findings (d shows it).",
        ((None, (MessageDetail,)),),
    ),
    SectionSpec(
        "history",
        "History",
        "The calls sent, newest first (h); in a replay, an item's recorded calls in the work pane.",
        ((None, (CallRows, HistoryScreen)),),
    ),
    SectionSpec(
        "inflight",
        "In flight",
        "Requests waiting for their answer (f).",
        ((None, (InFlightView,)),),
    ),
    SectionSpec(
        "load",
        "Load",
        "A short load run of a tool (ctrl+l in its form): live numbers, then the report.",
        ((None, (LoadView,)),),
    ),
    SectionSpec(
        "serverlog",
        "Server log",
        "notifications/message by level (o).",
        ((None, (ServerLogView,)),),
    ),
    SectionSpec(
        "tasks",
        "Tasks",
        "Tools run as tasks, followed to their result (t).",
        ((None, (TasksView,)),),
    ),
    SectionSpec(
        "auth",
        "Auth",
        "OAuth: the flow as steps, each HTTP exchange a row of the log on the auth channel (A).",
        ((None, (AuthView,)),),
    ),
    SectionSpec(
        "dialogs",
        "Dialogs",
        "The server's requests and the inspector's questions; each has its own keys.",
        DIALOGS,
    ),
    SectionSpec("sessions", "Sessions", "Where things are written.", text=SESSIONS),
)
