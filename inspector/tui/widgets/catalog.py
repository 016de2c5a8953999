"""The catalog: tools, resources, templates and prompts the server offers."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.message import Message
from textual.widgets import OptionList, Static, TabbedContent, TabPane
from textual.widgets.option_list import Option

from inspector.tui.safe_text import one_line

KINDS = (("tools", "Tools"), ("resources", "Resources"), ("resource_templates", "Templates"),
         ("prompts", "Prompts"))


def display_name(item: dict[str, Any]) -> str:
    """title, then annotations.title, then name (the spec's order for tools)."""
    for value in (item.get("title"), (item.get("annotations") or {}).get("title"),
                  item.get("name"), item.get("uri"), item.get("uriTemplate")):
        if isinstance(value, str) and value:
            return value
    return "?"


def hints(item: dict[str, Any]) -> list[tuple[str, str]]:
    """Short badges for tool annotations and task support."""
    ann = item.get("annotations") or {}
    out: list[tuple[str, str]] = []
    if ann.get("readOnlyHint"):
        out.append(("ro", "green"))
    if ann.get("destructiveHint"):
        out.append(("destructive", "red"))
    if ann.get("idempotentHint"):
        out.append(("idem", "cyan"))
    if ann.get("openWorldHint"):
        out.append(("open", "magenta"))
    task = (item.get("execution") or {}).get("taskSupport")
    if task in ("optional", "required"):
        out.append((f"task:{task}", "yellow"))
    return out


def option_label(kind: str, item: dict[str, Any]) -> Text:
    text = Text(no_wrap=True, overflow="ellipsis")
    text.append(one_line(display_name(item), 60), style="bold")
    name = item.get("name")
    if isinstance(name, str) and name != display_name(item):
        text.append(f"  {one_line(name, 40)}", style="dim")
    if kind in ("resources", "resource_templates"):
        uri = item.get("uri") or item.get("uriTemplate")
        if isinstance(uri, str) and uri != display_name(item):
            text.append(f"  {one_line(uri, 60)}", style="dim cyan")
    for label, style in hints(item):
        text.append(f" [{label}]", style=style)
    description = item.get("description")
    if isinstance(description, str) and description:
        text.append("\n  ")
        text.append(one_line(description, 90), style="dim")
    return text


class Catalog(Static):
    """Tabs of option lists; selecting an item posts ``Catalog.ItemSelected``."""

    class ItemSelected(Message):
        def __init__(self, kind: str, item: dict[str, Any]) -> None:
            super().__init__()
            self.kind = kind
            self.item = item

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.items: dict[str, list[dict[str, Any]]] = {kind: [] for kind, _ in KINDS}
        self.unknown: dict[str, str | None] = {kind: None for kind, _ in KINDS}

    def compose(self) -> ComposeResult:
        with TabbedContent(id="catalog-tabs"):
            for kind, label in KINDS:
                with TabPane(label, id=f"tab-{kind}"):
                    yield OptionList(id=f"list-{kind}")

    def set_items(self, kind: str, items: list[dict[str, Any]], error: str | None = None,
                  unknown: str | None = None) -> None:
        """``unknown``: why there is no list at all (a replay that never listed ``kind``);
        shown instead of "(none)", and the tab shows "–" instead of a count."""
        self.items[kind] = items
        self.unknown[kind] = unknown if not items else None
        options = self.query_one(f"#list-{kind}", OptionList)
        highlighted = options.highlighted
        options.clear_options()
        if error:
            options.add_option(Option(Text(f"could not list: {one_line(error, 200)}",
                                           style="red"), disabled=True))
        elif not items:
            options.add_option(Option(Text(f"({unknown})" if unknown else "(none)",
                                           style="dim"), disabled=True))
        else:
            options.add_options(Option(option_label(kind, item), id=f"{kind}:{i}")
                                for i, item in enumerate(items))
            options.highlighted = highlighted if highlighted is not None and \
                highlighted < len(items) else 0  # Enter works at once
        tabs = self.query_one(TabbedContent)
        label = dict(KINDS)[kind]
        tab = tabs.get_tab(f"tab-{kind}")
        count = str(len(items)) if items else "–" if unknown else ""
        tab.label = f"{label} {count}".rstrip()

    def action_tab(self, kind: str) -> None:
        self.query_one(TabbedContent).active = f"tab-{kind}"
        self.query_one(f"#list-{kind}", OptionList).focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        option_id = event.option.id or ""
        kind, _, index = option_id.partition(":")
        if kind in self.items and index.isdigit() and int(index) < len(self.items[kind]):
            self.post_message(self.ItemSelected(kind, self.items[kind][int(index)]))
