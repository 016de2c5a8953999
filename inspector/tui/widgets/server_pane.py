"""Server facts: info, negotiated version, both sides' capabilities, instructions, stderr;
the session's secrets masked in what the server said (``inspector.tui.masked``)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from rich.console import RenderableType
from rich.text import Text
from textual import on
from textual.containers import VerticalScroll
from textual.widgets import Static

from inspector.safe_text import safe_text
from inspector.tui import messages
from inspector.tui.document import stack
from inspector.tui.masked import as_is, shown_mask, shown_value_mask, value_mask
from inspector.tui.widgets.message_detail import pretty_json


def fold_data_uris(value: Any, keep: int = 40) -> Any:
    """Icons as ``data:`` URIs are kilobytes of base64: keep their head and say the size
    (the log's detail still has every byte)."""
    if isinstance(value, str) and value.startswith("data:") and len(value) > keep * 2:
        return f"{value[:keep]}… ({len(value):,} chars)"
    if isinstance(value, dict):
        return {k: fold_data_uris(v, keep) for k, v in value.items()}
    if isinstance(value, list):
        return [fold_data_uris(v, keep) for v in value]
    return value


def render_server(
    info: dict[str, Any],
    protocol: str | None,
    server_caps: dict[str, Any],
    client_caps: dict[str, Any],
    instructions: str | None,
    stderr_tail: Iterable[str],
    target: str,
    mask: Callable[[str], str] = as_is,
    json_mask: Callable[[Any], Any] | None = None,
) -> RenderableType:
    """``mask`` and ``json_mask``: the session's secrets out of texts and of JSON
    (``inspector.tui.masked``; none by default)."""
    json_mask = json_mask or value_mask(())
    parts: list[RenderableType] = [Text("Server", style="bold underline")]
    parts.append(
        pretty_json(json_mask(fold_data_uris(info)))
        if info
        else Text("(not connected)", style="dim")
    )
    parts.append(Text.assemble(("target ", "bold"), safe_text(mask(target))))
    parts.append(Text.assemble(("protocol ", "bold"), protocol or "-"))
    parts.append(Text("\nServer capabilities", style="bold underline"))
    parts.append(pretty_json(json_mask(server_caps)))
    parts.append(Text("\nClient capabilities (declared)", style="bold underline"))
    parts.append(pretty_json(client_caps))
    if instructions:
        parts.append(Text("\nInstructions", style="bold underline"))
        parts.append(safe_text(mask(instructions), multiline=True))
    tail = list(stderr_tail)
    parts.append(Text(f"\nstderr (last {len(tail)} lines)", style="bold underline"))
    for line in tail:
        parts.append(safe_text(mask(line), "dim"))
    return stack(*parts)


class ServerPane(VerticalScroll, can_focus=True):
    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._body = Static("", id="server-body")

    def compose(self):  # type: ignore[no-untyped-def]
        yield self._body

    def refresh_from(self, **kwargs: Any) -> None:
        app = self.app
        self._body.update(
            render_server(**kwargs, mask=shown_mask(app), json_mask=shown_value_mask(app))
        )

    @on(messages.ReplayCatalog)
    def _replayed(self, message: messages.ReplayCatalog) -> None:
        """A replay: the server's facts as recorded."""
        init = message.catalog.initialize or {}
        self.refresh_from(
            info=init.get("serverInfo") or {},
            protocol=init.get("protocolVersion"),
            server_caps=init.get("capabilities") or {},
            client_caps={},
            instructions=init.get("instructions"),
            stderr_tail=[],
            target=f"recording {message.title}",
        )
