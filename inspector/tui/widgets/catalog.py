"""The catalog: tools, resources, templates and prompts the server offers, filterable."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Input, OptionList, Static, TabbedContent, TabPane
from textual.widgets.option_list import Option

from inspector.engine.kinds import KIND
from inspector.lint.check import Issue, item_issues
from inspector.lint.rules import ERROR, INFO, LEVELS, WARNING
from inspector.safe_text import one_line, visible
from inspector.tui import messages
from inspector.tui.fuzzy import FuzzyQuery
from inspector.tui.key_order import OPEN_ITEM, OPEN_ITEM_WITHIN, hold_keys
from inspector.tui.masked import row_mask
from inspector.tui.widgets.catalog_label import CatalogLabel, Entry, make_entry
from inspector.tui.widgets.fitted_list import FittedOptionList
from inspector.tui.widgets.steady_input import SteadyInput
from inspector.tui.widgets.tab_fit import TabLabel, fit_tabs

# what a kind's tab is called when the catalog is too narrow for the labels in full
SHORT_LABELS = {
    "tools": "Tools",
    "resources": "Res",
    "resource_templates": "Tmpl",
    "prompts": "Prm",
}


def display_name(item: dict[str, Any]) -> str:
    """title, then annotations.title, then name (the spec's order for tools)."""
    for value in (
        item.get("title"),
        (item.get("annotations") or {}).get("title"),
        item.get("name"),
        item.get("uri"),
        item.get("uriTemplate"),
    ):
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


LINT_STYLES = {ERROR: "bold red", WARNING: "yellow", INFO: "dim"}


def lint_badges(issues: list[Issue]) -> list[tuple[str, str]]:
    """A badge for each lint rule the item breaks, as ``mcp-inspect lint`` reports it:
    red for an error, yellow for a warning, dim for an info; the worst level first."""
    worst: dict[str, str] = {}
    for issue in issues:
        level = worst.get(issue.rule)
        if level is None or LEVELS.index(issue.level) > LEVELS.index(level):
            worst[issue.rule] = issue.level
    ordered = sorted(worst.items(), key=lambda rule_level: -LEVELS.index(rule_level[1]))
    return [(f"lint: {rule}", LINT_STYLES[level]) for rule, level in ordered]


def list_filter_hint(kind: str) -> str:
    return f"filter {KIND[kind].label.lower()}: name, title, description (Esc clears)"


class ListFilter(SteadyInput):
    """The catalog list's filter (``/``): typing filters, the arrows move in the list,
    Enter opens the highlighted item, Esc clears the filter."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up", "list('cursor_up')", "Up", show=False),
        Binding("down", "list('cursor_down')", "Down", show=False),
        Binding("pageup", "list('page_up')", "Page up", show=False),
        Binding("pagedown", "list('page_down')", "Page down", show=False),
        Binding("enter", "list('select')", "Open", show=False),
        Binding("escape", "clear", "Clear filter", show=False),
    ]

    def __init__(self, kind: str) -> None:
        super().__init__(
            placeholder=list_filter_hint(kind), id=f"filter-{kind}", select_on_focus=False
        )
        self.kind = kind

    @property
    def options(self) -> OptionList:
        return self.screen.query_one(f"#list-{self.kind}", OptionList)

    def action_list(self, action: str) -> None:
        getattr(self.options, f"action_{action}")()

    def action_clear(self) -> None:
        self.value = ""
        self.options.focus()


class CatalogList(FittedOptionList):
    """A catalog list: Enter opens the highlighted item, and the keys typed behind it go
    to the item's form once it has the focus (``key_order``), not to this list."""

    def action_select(self) -> None:
        if self.highlighted is not None:
            hold_keys(self.app, OPEN_ITEM, within=OPEN_ITEM_WITHIN)
        super().action_select()


class Catalog(Static):
    """Tabs of option lists; selecting an item posts ``Catalog.ItemSelected``.

    ``/`` filters the list on show (fuzzy, on name, title, URI and description; the best
    matches first, matched characters highlighted); Esc clears it.
    """

    DEFAULT_CSS = """
    /* rows are as tall as their text at the list's width: a scrollbar that came and
       went would change the width without the list measuring its rows again */
    Catalog OptionList { scrollbar-gutter: stable; }
    Catalog ListFilter {
        height: 1; border: none; padding: 0 1; background: $boost; display: none;
    }
    Catalog ListFilter:focus { border: none; }
    Catalog ListFilter.-shown { display: block; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("slash", "filter", "Filter list"),
        Binding("escape", "clear_filter", "Clear filter", show=False),
    ]

    @dataclass
    class ItemSelected(Message):
        kind: str
        item: dict[str, Any]

    def __init__(
        self, *, id: str | None = None, extra: tuple[tuple[str, TabLabel, Widget], ...] = ()
    ) -> None:
        """``extra``: tabs of the app's own after the lists (pane id, label, content),
        composed with them (a tab added once mounted held the key path: a key bubbles
        through the tabs' switcher, which waited for the tab's mount)."""
        super().__init__(id=id)
        self.extra = extra
        self.items: dict[str, list[dict[str, Any]]] = {kind: [] for kind in KIND}
        self.unknown: dict[str, str | None] = {kind: None for kind in KIND}
        self.errors: dict[str, str | None] = {kind: None for kind in KIND}
        self.entries: dict[str, list[Entry]] = {kind: [] for kind in KIND}
        self.queries: dict[str, str] = {kind: "" for kind in KIND}
        self.last_query: FuzzyQuery | None = None  # the work of the last filtering (tests)
        # the last filter's query and matches: typing on only narrows, so the next key
        # looks at these instead of every item
        self._narrowed: dict[str, tuple[str, list[int]]] = {}
        # every tab's label (pane id -> names and count), fitted to the width on a change
        self.tab_labels: dict[str, TabLabel] = {
            f"tab-{kind}": TabLabel(about.label, SHORT_LABELS.get(kind, about.label))
            for kind, about in KIND.items()
        }
        self.tab_labels.update({pane_id: label for pane_id, label, _ in extra})

    def compose(self) -> ComposeResult:
        with TabbedContent(id="catalog-tabs"):
            for kind, about in KIND.items():
                with TabPane(about.label, id=f"tab-{kind}"):
                    yield ListFilter(kind)
                    yield CatalogList(id=f"list-{kind}")
            for pane_id, label, content in self.extra:
                yield TabPane(label.full, content, id=pane_id)

    @property
    def active_kind(self) -> str:
        active = self.query_one(TabbedContent).active or "tab-tools"
        return active.removeprefix("tab-")

    def set_items(
        self,
        kind: str,
        items: list[dict[str, Any]],
        error: str | None = None,
        unknown: str | None = None,
    ) -> None:
        """``unknown``: why there is no list at all (a replay that never listed ``kind``);
        shown instead of "(none)", and the tab shows "–" instead of a count."""
        self.items[kind] = items
        self.unknown[kind] = unknown if not items else None
        self.errors[kind] = error
        problems = item_issues(kind, items)
        mask = row_mask(self.app)  # the session's secrets out of the server's texts
        self.entries[kind] = [
            make_entry(kind, item, display_name(item), hints(item) + lint_badges(found), mask)
            for item, found in zip(items, problems, strict=True)
        ]
        self._narrowed.pop(kind, None)
        self._show(kind)

    @on(messages.ReplayCatalog)
    def _replayed(self, message: messages.ReplayCatalog) -> None:
        """A replay: the lists as recorded (or why a kind was never listed)."""
        catalog = message.catalog
        for kind in KIND:
            error = catalog.errors.get(kind) if kind not in catalog.lists else None
            self.set_items(kind, catalog.lists.get(kind, []), error, message.unknown[kind])

    def _show(self, kind: str) -> None:
        """Fill ``kind``'s list: every item, or the filter's matches, best first."""
        items, entries, error = self.items[kind], self.entries[kind], self.errors[kind]
        options = self.query_one(f"#list-{kind}", OptionList)
        was = options.highlighted_option.id if options.highlighted_option else None
        query = FuzzyQuery(self.queries[kind])
        shown: list[Option] = []
        if error:
            shown.append(
                Option(Text(f"could not list: {one_line(error, 200)}", style="red"), disabled=True)
            )
        elif not items:
            unknown = self.unknown[kind]
            shown.append(
                Option(Text(f"({unknown})" if unknown else "(none)", style="dim"), disabled=True)
            )
        elif not query:
            shown = [Option(CatalogLabel(e), id=f"{kind}:{i}") for i, e in enumerate(entries)]
        else:
            self.last_query = query
            found = [
                (m.score, i, m.positions)
                for i in self._candidates(kind, query.text)
                if (m := query.match(entries[i].haystack)) is not None
            ]
            self._narrowed[kind] = (query.text, sorted(i for _, i, _ in found))
            found.sort(key=lambda f: (-f[0], f[1]))
            shown = [Option(CatalogLabel(entries[i], pos), id=f"{kind}:{i}") for _, i, pos in found]
            if not shown:
                none = f"no {KIND[kind].label.lower()} match {visible(query.text)!r} (Esc clears)"
                shown.append(Option(Text(none, style="dim"), disabled=True))
        options.set_options(shown)
        ids = [o.id for o in shown]
        if shown and not shown[0].disabled:
            # the same item stays highlighted when it is still there, else the best match
            options.highlighted = ids.index(was) if was in ids and not query else 0
        tabs = self.query_one(TabbedContent)
        label = KIND[kind].label
        count = str(len(items)) if items else "–" if self.unknown[kind] else ""
        filtered = bool(query and items)
        if filtered:
            count = f"{sum(1 for o in shown if not o.disabled)}/{len(items)}"
        self.tab_labels[f"tab-{kind}"] = TabLabel(
            label, SHORT_LABELS.get(kind, label), count, filtered
        )
        fit_tabs(tabs, self.tab_labels)

    def on_resize(self) -> None:
        fit_tabs(self.query_one(TabbedContent), self.tab_labels)

    def _candidates(self, kind: str, query: str) -> list[int] | range:
        """The items that can match ``query``: the last matches when it only adds to the
        last query (a longer word or one more word can only match fewer), else all."""
        last, matched = self._narrowed.get(kind, ("", []))
        if last.strip() and query.startswith(last):
            return matched
        return range(len(self.entries[kind]))

    def action_tab(self, kind: str) -> None:
        self.query_one(TabbedContent).active = f"tab-{kind}"
        self.query_one(f"#list-{kind}", OptionList).focus()

    def action_filter(self) -> None:
        box = self.query_one(f"#filter-{self.active_kind}", ListFilter)
        box.add_class("-shown")
        box.focus()
        # the filter kept from before is selected: typing replaces it (it was appended
        # to: "lorem" then "create" filtered on "loremcreate"), arrows keep and edit it
        box.select_all()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "clear_filter":  # else Esc goes on to the app (back to the catalog)
            return bool(self.queries.get(self.active_kind))
        return True

    def action_clear_filter(self) -> None:
        self.query_one(f"#filter-{self.active_kind}", ListFilter).action_clear()

    @on(Input.Changed, "ListFilter")
    def _filter_changed(self, event: Input.Changed) -> None:
        event.stop()
        box = event.input
        assert isinstance(box, ListFilter)
        self.queries[box.kind] = event.value
        box.set_class(bool(event.value) or box.has_focus, "-shown")
        self._show(box.kind)
        self.refresh_bindings()

    @on(Input.Blurred, "ListFilter")  # an empty filter left alone hides again
    def _filter_left(self, event: Input.Blurred) -> None:
        box = event.input
        box.set_class(bool(box.value), "-shown")

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        option_id = event.option.id or ""
        kind, _, index = option_id.partition(":")
        if kind in self.items and index.isdigit() and int(index) < len(self.items[kind]):
            self.post_message(self.ItemSelected(kind, self.items[kind][int(index)]))
