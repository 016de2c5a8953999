"""``k`` on a result: keep the call as a step of a collection file (asked once per app).

The file starts with the app's server (a secret ``-e`` value or credential header is
written as ``${env:NAME}``, never as itself); the step and its expectation come from
:func:`inspector.collection.keep.step_from_call`.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from inspector.collection.expect import Outcome as StepOutcome
from inspector.collection.keep import keep_step, step_from_call
from inspector.credentials import credential_name, env_secret
from inspector.record.state import sessions_home
from inspector.target import Target
from inspector.tui.session_copy import shorten

if TYPE_CHECKING:
    from textual.app import App

# the app's file for kept steps, once asked (per app: a new app asks again)
CHOSEN = "_collection_path"


def default_path(target: Target | None) -> Path:
    """Next to the session files: ``<server>.mcp.yaml``."""
    name = "server"
    if target is not None:
        name = target.name or (
            target.url or Path(target.args[-1] if target.args else target.command or "server").name
        )
    slug = re.sub(r"[^A-Za-z0-9]+", "-", name).strip("-")[:40] or "server"
    return sessions_home() / f"{slug}.mcp.yaml"


def server_block(target: Target | None) -> dict[str, Any] | None:
    """The ``server`` of a new collection file: the app's target, secrets as ``${env:...}``."""
    if target is None or target.attach is not None:
        return None
    if target.url is not None:
        block: dict[str, Any] = {"url": target.url}
        if target.headers:
            block["headers"] = {
                k: (f"${{env:MCP_HEADER_{_env_name(k)}}}" if credential_name(k) else v)
                for k, v in target.headers.items()
            }
        return block
    block = {"command": [target.command or "", *target.args]}
    if target.env:
        block["env"] = {
            k: (f"${{env:{k}}}" if env_secret(k, v) else v) for k, v in target.env.items()
        }
    if target.cwd:
        block["cwd"] = str(Path(target.cwd).resolve())
    return block


def _env_name(header: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "_", header).upper()


def keep_dialog(
    app: App[Any],
    call: tuple[str, str, dict[str, Any] | None],
    result: Any,
    error: dict[str, Any] | None,
) -> None:
    """Keep ``call`` (verb, target, arguments) and what it got: into the file chosen
    before, else ask for one first."""
    verb, target, arguments = call
    kept = StepOutcome(result=result, error=error)
    step = step_from_call(verb, target, arguments, kept)
    chosen: Path | None = getattr(app, CHOSEN, None)

    def write(path: Path | None) -> None:
        if path is None:
            return
        setattr(app, CHOSEN, path)
        try:
            collection = keep_step(path, step, kept, server_block(getattr(app, "target", None)))
        except (OSError, ValueError) as exc:
            app.notify(f"could not keep the step: {exc}", severity="error", timeout=10)
            return
        app.notify(
            f"kept as step {len(collection.steps)} of {shorten(path)} "
            f"(mcp-inspect test {shorten(path)} runs it)",
            title="keep as a check",
        )

    if chosen is not None:
        write(chosen)
        return
    from inspector.tui.screens.keep_step import KeepStepScreen

    app.push_screen(
        KeepStepScreen(default_path(getattr(app, "target", None)), f"{verb} {target}"), write
    )
