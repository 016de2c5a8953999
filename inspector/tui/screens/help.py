"""The help screen (``?``, F1): the workflow, every key by area, the log filter, sessions.

Its content is ``inspector.tui.keymap.sections``: read from the widgets' bindings, the
same list the command palette and the README's key table are made from. It opens on
the section about where the focus was; the sections are listed on the left (↑ ↓ go from
one to the next), the text scrolls on the right (PgUp, PgDn).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, ClassVar

from rich.console import Group as RichGroup
from rich.console import RenderableType
from rich.table import Table
from rich.text import Text
from textual import on
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from inspector.record.state import sessions_home
from inspector.safe_text import visible
from inspector.tui.keymap import Group, Section, section_for, sections
from inspector.tui.result_files import default_folder
from inspector.tui.screenshot import screenshot_folder

KEY_STYLE = "bold #87afff"


def render_section(section: Section) -> RenderableType:
    """One section: its title, what it is about, its keys and its paragraphs."""
    parts: list[RenderableType] = [
        Text(section.title, style="bold underline"),
        Text(section.intro, style="italic dim"),
    ]
    for group in section.groups:
        parts.append(_keys_table(group))
    for paragraph in section.text:
        parts.append(Text(visible(paragraph)))  # it names paths (the session file, folders)
    return RichGroup(*parts)


def _keys_table(group: Group) -> RenderableType:
    table = Table.grid(padding=(0, 2))
    table.add_column(justify="right", no_wrap=True, style=KEY_STYLE)
    table.add_column(ratio=1)
    for key in group.keys:
        table.add_row(key.keys, key.text)
    if group.title:
        return RichGroup(Text(group.title, style="bold"), table)
    return table


class HelpScreen(ModalScreen[None]):
    """Sections on the left, their text on the right; opens on ``start``."""

    DEFAULT_CSS = """
    HelpScreen { align: center middle; }
    HelpScreen > Vertical {
        width: 96%; max-width: 130; height: 92%;
        border: thick $accent; background: $surface;
    }
    HelpScreen #help-title { height: 1; padding: 0 1; text-style: bold; }
    HelpScreen #help-hint { height: 1; padding: 0 1; color: $text-muted; }
    HelpScreen Horizontal { height: 1fr; }
    HelpScreen #help-sections {
        width: 16; height: 1fr; border: none; border-right: solid $panel-lighten-2;
    }
    HelpScreen #help-body { width: 1fr; height: 1fr; padding: 0 1; }
    HelpScreen .help-section { margin-bottom: 1; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q,question_mark", "close", "Close"),
        Binding("pageup", "body('page_up')", "Page up", show=False),
        Binding("pagedown", "body('page_down')", "Page down", show=False),
        Binding("home", "body('scroll_home')", "Top", show=False),
        Binding("end", "body('scroll_end')", "Bottom", show=False),
    ]

    def __init__(self, sections: Sequence[Section], start: str = "workflow") -> None:
        super().__init__()
        self.sections = tuple(sections)
        ids = [s.id for s in self.sections]
        self.section = start if start in ids else ids[0]

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static("mcp-inspect help", id="help-title")
            with Horizontal():
                yield OptionList(
                    *(Option(s.title, id=s.id) for s in self.sections), id="help-sections"
                )
                with VerticalScroll(id="help-body", can_focus=False):
                    for section in self.sections:
                        yield Static(
                            render_section(section),
                            id=f"help-{section.id}",
                            classes="help-section",
                        )
            yield Static(
                "↑ ↓ sections · PgUp PgDn scroll · Esc closes · ctrl+p: actions by name",
                id="help-hint",
            )

    def on_mount(self) -> None:
        sections = self.query_one("#help-sections", OptionList)
        sections.highlighted = [s.id for s in self.sections].index(self.section)
        sections.focus()
        self.call_after_refresh(self._show_section, self.section)

    @on(OptionList.OptionHighlighted, "#help-sections")
    def _chosen(self, event: OptionList.OptionHighlighted) -> None:
        if event.option.id:
            self.section = event.option.id
            self._show_section(event.option.id)

    def _show_section(self, section: str) -> None:
        body = self.query_one("#help-body", VerticalScroll)
        body.scroll_to_widget(self.query_one(f"#help-{section}"), top=True, animate=False)

    def action_body(self, action: str) -> None:
        getattr(self.query_one("#help-body", VerticalScroll), f"action_{action}")()

    def action_close(self) -> None:
        self.dismiss(None)


def app_sections(app_cls: type[App[Any]], source: Path | None) -> tuple[Section, ...]:
    """The reference with the app's own places in it: its session file, its folders."""
    return sections(
        app_cls,
        session_file=str(source) if source is not None else None,
        folders={
            "sessions": str(sessions_home()),
            "files": str(default_folder()),
            "screenshots": str(screenshot_folder()),
        },
    )


def toggle_help(app: App[Any], reference: Callable[[], Sequence[Section]]) -> None:
    """The help screen with ``reference``, on the section about where the focus is
    (again: closes it)."""
    if isinstance(app.screen, HelpScreen):
        app.screen.dismiss(None)
        return
    app.push_screen(HelpScreen(reference(), section_for(app.focused, app.screen)))
