"""Completion while typing: prompt arguments and template variables ask the server
(``completion/complete``) when it offers completions."""

from __future__ import annotations

from typing import Any

from textual.widgets import Input

from inspector.engine.client import McpClient
from inspector.engine.session import Session
from inspector.tui.widgets.schema_form import SchemaForm


def attach_completions(
    form: SchemaForm | None,
    kind: str,
    item: dict[str, Any],
    session: Session | None,
    client: McpClient | None,
) -> None:
    """Give each argument field of a prompt or template form a completing suggester."""
    if (
        kind not in ("prompts", "resource_templates")
        or session is None
        or client is None
        or form is None
        or "completions" not in session.server_capabilities
    ):
        return
    from inspector.engine.completion import Completer, prompt_ref, resource_ref
    from inspector.tui.suggester import CompletionSuggester

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
        inputs = list(field.query(Input)) if field is not None else []
        if inputs:
            inputs[0].suggester = CompletionSuggester(completer, name, context=context)
