"""Wire the interactive answers (sampling, elicitation, roots screens) into responders.

What the command line fixed (--on-sample, --on-elicit) wins; everything else is
asked in the TUI. --root paths seed the roots editor.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from inspector.engine.responders import Responders

if TYPE_CHECKING:
    from inspector.tui.app import InspectorApp
    from inspector.tui.interactive import InteractiveResponders


def interactive_responders(
    app: InspectorApp, responders: Responders, roots: list[str] | None = None
) -> InteractiveResponders:
    """Fill the unset responders with interactive ones; the bridge answering them is the
    app's server's (``app.bridge``), and returned."""
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
