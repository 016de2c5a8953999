"""Wire the interactive answers (sampling, elicitation, roots screens) into responders.

What the command line fixed (--on-sample, --on-elicit) wins; everything else is
asked in the TUI. --root paths seed the roots editor.
"""

from __future__ import annotations

from typing import Any

from inspector.engine.responders import Responders


def interactive_responders(app: Any, responders: Responders, roots: list[str] | None = None) -> Any:
    """Fill the unset responders with interactive ones; returns the bridge."""
    from inspector.tui.interactive import InteractiveResponders

    bridge = InteractiveResponders(app, roots=roots or [])
    interactive = bridge.responders()
    if responders.sampling is None:
        responders.sampling = interactive.sampling
        responders.sampling_tools = interactive.sampling_tools  # the dialog can use tools
    if responders.elicitation is None:
        responders.elicitation = interactive.elicitation
        responders.elicitation_modes = interactive.elicitation_modes
    responders.roots = interactive.roots  # seeded with the --root paths; the editor edits it
    app.bridge = bridge
    return bridge
