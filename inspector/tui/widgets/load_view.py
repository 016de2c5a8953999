"""The Load tab: a short load run's live numbers, then its report.

It only renders: ``load_run.LoadRun`` runs the calls and hands it the run's ``Stats``
a few times a second (``show``) and once at the end (``finish``); ``x`` asks it to stop.
"""

from __future__ import annotations

from typing import Any, ClassVar

from rich.text import Text
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.widgets import Static

from inspector.load.report import report_text, sparkline
from inspector.load.stats import Stats
from inspector.safe_text import one_line

IDLE = "No load run yet: open a tool, fill its form, press ctrl+l."


def live_text(stats: Stats) -> str:
    """The numbers while the run goes (as the command line's live display shows them)."""
    errors = ", ".join(f"{kind} {g.count}" for kind, g in stats.errors.items()) or "none"
    return (
        f"calls {stats.total:,}  {stats.throughput:,.1f}/s  in flight {stats.in_flight}\n"
        f"p50 {stats.percentile_ms(50):.2f} ms  p90 {stats.percentile_ms(90):.2f} ms  "
        f"p99 {stats.percentile_ms(99):.2f} ms  max {stats.max_ms:.2f} ms\n"
        f"errors {one_line(errors, 300)}\n"
        f"per second {sparkline(stats.per_second)}"
    )


class LoadView(Static, can_focus=True):
    """Posts ``LoadView.Stop`` on ``x``."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("x", "stop", "Stop run")]

    DEFAULT_CSS = """
    LoadView { height: 1fr; padding: 0 1; overflow-y: auto; }
    """

    class Stop(Message):
        """The user asked the run to stop."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(Text(IDLE, style="dim"), **kwargs)
        self.heading = ""
        self.text = IDLE  # what the tab says, as plain text (tests read it)

    def begin(self, heading: str) -> None:
        self.heading = heading
        self._say("starting: opening the sessions…")

    def show(self, stats: Stats) -> None:
        self._say("running (x stops it)\n" + live_text(stats))

    def finish(self, stats: Stats, settings: dict[str, Any], how: str) -> None:
        """The report (its first line, what ran, is the heading)."""
        heading, _, body = report_text(stats, settings).rstrip().partition("\n")
        self.heading = one_line(heading, 200)
        self._say(f"{how}\n{body}")

    def failed(self, reason: str) -> None:
        self._say(f"could not start: {reason}")

    def _say(self, body: str) -> None:
        self.text = f"{self.heading}\n{body}"
        self.update(Text(self.text))

    def action_stop(self) -> None:
        self.post_message(self.Stop())
