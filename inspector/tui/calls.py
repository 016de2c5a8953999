"""One user call - a tool, a prompt, a resource read, (un)subscribe - filled into an
``Outcome``; protocol errors are raised (``RpcError``) for the caller to show or retry."""

from __future__ import annotations

from collections.abc import Callable
from time import monotonic
from typing import Any

from inspector.engine.big_frame import folded_results
from inspector.engine.client import McpClient
from inspector.tui.widgets.result_view import Outcome

Progress = Callable[[float, float | None, str | None], None]

EXPIRED = (
    "the server's session expired during this call (HTTP 404): it got no answer. "
    "A new session is starting; then press ctrl+s to call again."
)
RENEWED = (
    "the server's session expired during this call (HTTP 404): it got no answer. "
    "A new session has started: press ctrl+s to call again."
)


SUBSCRIPTION = ("subscribe", "unsubscribe")


def subscription_title(action: str, uri: str, *, done: bool = False) -> str:
    """ "subscribe to demo://readme"; done: "subscribed to …", "unsubscribed from …"."""
    return f"{action}{'d' * done} {'to' if action == 'subscribe' else 'from'} {uri}"


def call_name(item: dict[str, Any]) -> str:
    return str(item.get("name") or item.get("uri") or item.get("uriTemplate"))


def call_title(kind: str, item: dict[str, Any]) -> str:
    """ "tool add", "resource template demo://notes/{id}" ..."""
    return f"{kind[:-1].replace('_', ' ')} {call_name(item)}"


async def perform(
    client: McpClient,
    kind: str,
    item: dict[str, Any],
    arguments: Any,
    action: str,
    outcome: Outcome,
    on_progress: Progress | None = None,
) -> None:
    """Make the call and put its result (and a more precise title) on ``outcome``; a
    big result comes folded (``folded_results``: the view shows a part of it, and the
    frame holds it all)."""
    with folded_results():
        await _perform(client, kind, item, arguments, action, outcome, on_progress)
    # a big result's frame: kept instead of the tree once it is shown (``Outcome.park``)
    outcome.frame = client.session.take_frame(outcome.result)
    if outcome.uri and outcome.uri in client.subscriptions:
        # a read (a re-read on resources/updated) of a subscribed resource says so
        outcome.status = f"✓ {subscription_title('subscribe', outcome.uri, done=True)}"


async def _perform(
    client: McpClient,
    kind: str,
    item: dict[str, Any],
    arguments: Any,
    action: str,
    outcome: Outcome,
    on_progress: Progress | None,
) -> None:
    """The call itself, its result on ``outcome``."""
    name = call_name(item)
    if kind == "tools":
        outcome.output_schema = item.get("outputSchema")
        outcome.step = ("call", name, dict(arguments or {}))
        outcome.result = await client.call_tool(name, arguments or {}, on_progress=on_progress)
    elif kind == "prompts":
        args = {k: str(v) for k, v in (arguments or {}).items() if v is not None}
        outcome.step = ("prompt", name, dict(args))
        outcome.result = await client.get_prompt(name, args)
    elif kind == "resource_templates":
        from inspector.engine.uritemplate import expand

        uri = expand(str(item.get("uriTemplate", "")), arguments or {})
        outcome.title = f"read {uri}"
        outcome.uri = uri
        outcome.step = ("read", uri, None)
        outcome.result = await client.read_resource(uri)
    elif action in SUBSCRIPTION:
        # titled before the call: an error is the (un)subscribe's, not a read's
        uri = str(item.get("uri"))
        outcome.title = subscription_title(action, uri)
        call = client.subscribe if action == "subscribe" else client.unsubscribe
        outcome.result = await call(uri)
        outcome.title = subscription_title(action, uri, done=True)
    else:
        outcome.uri = str(item.get("uri"))
        outcome.step = ("read", outcome.uri, None)
        outcome.result = await client.read_resource(outcome.uri)


def finish(outcome: Outcome, started: float) -> Outcome:
    """Latency since ``started`` (a ``monotonic()`` reading); the result's size is worked
    out where it is formatted (off the UI thread when it is big)."""
    outcome.latency_ms = (monotonic() - started) * 1000
    return outcome
