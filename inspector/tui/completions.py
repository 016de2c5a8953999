"""Completion while typing: prompt arguments and template variables ask the server
(``completion/complete``) when it offers completions.

Each argument's box gets the first value that extends what is typed as ghost text
(→ takes it) and the whole answer as a list under the box (`CompletionMenu`: ↓ opens
it, Enter picks). One `CompletionSuggester` per box does the asking, debounced; the
list shows what it got.
"""

from __future__ import annotations

from typing import Any

from inspector.engine.client import McpClient
from inspector.engine.completion import Completer, Completion, prompt_ref, resource_ref
from inspector.engine.session import Session
from inspector.tui.suggester import CompletionSuggester, ContextSource
from inspector.tui.widgets.completion_menu import Ask, CompletionMenu
from inspector.tui.widgets.field_input import FieldInput
from inspector.tui.widgets.schema_form import SchemaForm


def attach_completions(
    form: SchemaForm | None,
    kind: str,
    item: dict[str, Any],
    session: Session | None,
    client: McpClient | None,
) -> None:
    """Give each argument field of a prompt or template form the server's completions."""
    if (
        kind not in ("prompts", "resource_templates")
        or session is None
        or client is None
        or form is None
        or "completions" not in session.server_capabilities
    ):
        return
    ref = (
        prompt_ref(str(item.get("name")))
        if kind == "prompts"
        else resource_ref(str(item.get("uriTemplate")))
    )
    completer = Completer(client, ref)

    def context() -> dict[str, str]:
        value = form.root.value()
        return {
            k: str(v)
            for k, v in (value or {}).items()
            if isinstance(v, str | int | float) and v != ""
        }

    for name in form.schema.get("properties") or {}:
        field = form.field((name,))
        boxes = list(field.query(FieldInput)) if field is not None else []
        if not boxes or field is None:
            continue
        box = boxes[0]
        menu = CompletionMenu(box, ask=_asker(completer, name, context))
        box.suggester = CompletionSuggester(completer, name, context=context, on_values=menu.offer)
        box.choices = menu
        field.mount(menu, after=box)


def _asker(completer: Completer, argument: str, context: ContextSource) -> Ask:
    """What ↓ calls: the values for what is typed, with the other arguments as context."""

    async def ask(typed: str) -> Completion | None:
        return await completer.complete(argument, typed, context())

    return ask
