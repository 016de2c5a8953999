"""The Skills tab: a server's skills (SEP-2640), each one's frontmatter and files.

The list comes from ``skills/list``; no file is read until the user loads a skill
(Enter), which reads its ``SKILL.md`` verified against the entry. A file that fails
verification is shown as the failure, never as content.
"""

from __future__ import annotations

from rich.console import RenderableType
from rich.text import Text
from textual import on
from textual.containers import Horizontal, VerticalScroll
from textual.message import Message
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from inspector.safe_text import safe_text
from inspector.skills.entry import SkillEntry
from inspector.tui.document import stack
from inspector.tui.widgets.message_detail import pretty_json


def render_skill(entry: SkillEntry, loaded: str | None, failure: str | None) -> RenderableType:
    """A skill's entry: frontmatter, files (size, digest), then what loading it gave."""
    parts: list[RenderableType] = [
        Text.assemble(("Skill ", "bold underline"), safe_text(entry.uri)),
        Text("\nFrontmatter", style="bold underline"),
        pretty_json(entry.frontmatter),
        Text("\nFiles", style="bold underline"),
    ]
    if entry.files is None:
        parts.append(Text("dynamic: no digests, the content cannot be verified", style="yellow"))
    for listed in entry.files or []:
        size = "?" if listed.size is None else f"{listed.size:,} B"
        parts.append(
            Text.assemble(
                safe_text(listed.uri), (f"  {size}  ", "dim"), (listed.digest or "no digest", "dim")
            )
        )
    for problem in entry.problems:
        parts.append(Text.assemble(("entry: ", "bold yellow"), safe_text(problem)))
    if failure is not None:
        parts.append(Text("\nNot loaded: verification failed", style="bold red"))
        parts.append(safe_text(failure, multiline=True))
    elif loaded is not None:
        parts.append(Text("\nSKILL.md (verified)", style="bold underline"))
        parts.append(safe_text(loaded, multiline=True))
    else:
        parts.append(Text("\nEnter: load the skill (reads and verifies its SKILL.md)", style="dim"))
    return stack(*parts)


class SkillsView(Horizontal):
    """The skills listed (left), and the highlighted one's entry (right)."""

    DEFAULT_CSS = """
    SkillsView #skills-list { width: 2fr; height: 1fr; }
    SkillsView #skills-detail-scroll { width: 3fr; height: 1fr; }
    """

    class Load(Message):
        """The user asked to load a skill (its SKILL.md, verified)."""

        def __init__(self, entry: SkillEntry) -> None:
            super().__init__()
            self.entry = entry

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.entries: list[SkillEntry] = []
        self.loaded: dict[str, str] = {}  # uri -> verified SKILL.md text
        self.failed: dict[str, str] = {}  # uri -> why it was not loaded

    def compose(self):  # type: ignore[no-untyped-def]
        yield OptionList(id="skills-list")
        with VerticalScroll(id="skills-detail-scroll"):
            yield Static(Text("(no skills listed yet)", style="dim"), id="skills-detail")

    def show(self, entries: list[SkillEntry], error: str | None = None) -> None:
        """A new listing (the loaded texts of skills still listed are kept)."""
        self.entries = entries
        options = self.query_one(OptionList)
        options.clear_options()
        for entry in entries:
            label = Text.assemble(
                safe_text(entry.name, "bold"), "  ", safe_text(entry.description, "dim")
            )
            options.add_option(Option(label, id=entry.uri))
        if error is not None:
            self._detail(Text.assemble(("skills/list failed: ", "bold red"), safe_text(error)))
        elif not entries:
            self._detail(Text("the server lists no skills", style="dim"))
        else:
            options.highlighted = 0
            self._show_entry(entries[0])

    def loaded_text(self, entry: SkillEntry, text: str | None, failure: str | None) -> None:
        if failure is not None:
            self.failed[entry.uri] = failure
            self.loaded.pop(entry.uri, None)
        elif text is not None:
            self.loaded[entry.uri] = text
            self.failed.pop(entry.uri, None)
        current = self._current()
        if current is not None and current.uri == entry.uri:
            self._show_entry(entry)

    def _current(self) -> SkillEntry | None:
        index = self.query_one(OptionList).highlighted
        return self.entries[index] if index is not None and index < len(self.entries) else None

    def _show_entry(self, entry: SkillEntry) -> None:
        self._detail(render_skill(entry, self.loaded.get(entry.uri), self.failed.get(entry.uri)))

    def _detail(self, renderable: RenderableType) -> None:
        self.query_one("#skills-detail", Static).update(renderable)

    @on(OptionList.OptionHighlighted, "#skills-list")
    def _highlighted(self, event: OptionList.OptionHighlighted) -> None:
        current = self._current()
        if current is not None:
            self._show_entry(current)

    @on(OptionList.OptionSelected, "#skills-list")
    def _selected(self, event: OptionList.OptionSelected) -> None:
        current = self._current()
        if current is not None:
            self.post_message(self.Load(current))
