"""How an event looks as a row of the message log (``row_strip``): its badge, arrow and
colours, its time and latency as text, in columns of fixed width and a summary that takes
the rest (the detail shows the same badges)."""

from __future__ import annotations

from collections.abc import Callable

from rich.cells import cell_len, set_cell_size
from rich.segment import Segment
from rich.style import Style
from textual.strip import Strip

from inspector.engine.summary import RowSummary
from inspector.logstore.store import EventSource
from inspector.safe_text import visible
from inspector.wire.events import Channel, Direction, Kind

ARROWS = {Direction.OUT: "→", Direction.IN: "←", Direction.LOCAL: "·"}
BADGES: dict[Kind, tuple[str, Style]] = {
    Kind.REQUEST: ("REQ", Style(color="black", bgcolor="#5fafff")),
    Kind.RESPONSE: ("RES", Style(color="black", bgcolor="#5fd75f")),
    Kind.ERROR: ("ERROR", Style(color="white", bgcolor="#d70000", bold=True)),
    Kind.NOTIFICATION: ("NOTIF", Style(color="black", bgcolor="#d787ff")),
    Kind.BATCH: ("BATCH", Style(color="black", bgcolor="#ffd75f")),
    Kind.INVALID: ("INVALID", Style(color="white", bgcolor="#af005f", bold=True)),
    Kind.STDERR: ("STDERR", Style(color="black", bgcolor="#ffaf00")),
    Kind.HTTP: ("HTTP", Style(color="black", bgcolor="#5fafaf")),
    Kind.SYSTEM: ("SYS", Style(color="white", bgcolor="#585858")),
}
AUTH_BADGE = ("AUTH", Style(color="black", bgcolor="#d7af5f"))  # OAuth exchanges (ch:auth)
BADGE_WIDTH = 9
ARROW_STYLES = {
    Direction.OUT: Style(color="#5fafff", bold=True),
    Direction.IN: Style(color="#5fd75f", bold=True),
    Direction.LOCAL: Style(color="#808080"),
}
DIM = Style(color="#808080")
METHOD_STYLE = Style(color="#87d7ff")
ID_STYLE = Style(color="#d7af5f")
SERVER_STYLE = Style(color="#d7afff", bold=True)
SERVER_WIDTH = 12  # a workspace's merged log: the server column (longer names are cut)
LATENCY_STYLE = Style(color="#afaf87")
SLOW_STYLE = Style(color="#ff8700", bold=True)
FINDING = ("⚠", Style(color="#ffaf00", bold=True))
SUMMARY_STYLES = {
    Kind.ERROR: Style(color="#ff5f5f"),
    Kind.INVALID: Style(color="#ff5f87"),
    Kind.STDERR: Style(color="#ffd787"),
    Kind.SYSTEM: Style(color="#a8a8a8", italic=True),
}


def format_latency(ms: float) -> str:
    if ms < 1:
        return f"{ms:.2f}ms"
    if ms < 1000:
        return f"{ms:.0f}ms"
    return f"{ms / 1000:.1f}s" if ms < 60_000 else f"{ms / 60_000:.0f}m"


def format_offset(seconds: float) -> str:
    """Relative time from the first event: ``12.345`` or ``1:02:03.4``."""
    if seconds < 10_000:
        return f"{seconds:.3f}"
    h, rest = divmod(seconds, 3600)
    m, s = divmod(rest, 60)
    return f"{h:.0f}:{m:02.0f}:{s:04.1f}"


def cell(text: str, width: int, style: Style | None = None, *, right: bool = False) -> Segment:
    """``text`` in exactly ``width`` cells (cut with … when too long)."""
    if width <= 0:
        return Segment("")
    length = cell_len(text)
    if length > width:
        text = set_cell_size(text, width - 1) + "…" if width > 1 else "…"
    elif length < width:
        text = " " * (width - length) + text if right else text + " " * (width - length)
    return Segment(text, style)


def row_strip(
    src: EventSource,
    index: int,
    summary: RowSummary,
    width: int,
    *,
    seq_width: int,
    server: str = "",
    server_width: int = 0,
    mask: Callable[[str], str] | None = None,
) -> Strip:
    """Event ``index`` of ``src`` as a row of fixed columns and a summary that takes the
    rest; ``server`` in a column of ``server_width`` (a workspace's merged log); ``mask``:
    the session's secrets out of the server's text (method, id, summary)."""
    kind = src.kind(index)
    direction = src.direction(index)
    seq = src.seq(index) or index + 1
    offset = src.time(index) - src.time(0)
    method = src.method(index) or summary.method
    msg_id, text = summary.id, summary.text
    if mask is not None:
        method, msg_id, text = mask(method), mask(msg_id), mask(text)
    latency = src.latency_ms(index) if kind in (Kind.RESPONSE, Kind.ERROR) else None
    label, badge_style = BADGES.get(kind, (kind.value.upper(), DIM))
    if kind is Kind.HTTP and src.channel(index) is Channel.AUTH:
        label, badge_style = AUTH_BADGE
    segs = [
        cell(str(seq), seq_width, DIM, right=True),
        Segment(" "),
        cell(format_offset(max(offset, 0.0)), 9, DIM, right=True),
        Segment(" "),
        Segment(ARROWS.get(direction, "?"), ARROW_STYLES.get(direction)),
        Segment(" "),
        cell(label.center(BADGE_WIDTH - 1), BADGE_WIDTH - 1, badge_style),
        Segment(" "),
    ]
    used = seq_width + 1 + 9 + 1 + 1 + 1 + BADGE_WIDTH
    if server_width:
        segs += [cell(server, server_width, SERVER_STYLE), Segment(" ")]
        used += server_width + 1
    tail_width = 10  # latency (8) + marker (2)
    rest = width - used - tail_width
    method_width = min(28, max(0, rest // 3))
    id_width = 6 if rest > 40 else 0
    summary_width = max(0, rest - method_width - id_width - 2)
    segs.append(cell(visible(method), method_width, METHOD_STYLE))
    segs.append(Segment(" "))
    if id_width:
        segs.append(cell(visible(msg_id), id_width, ID_STYLE, right=True))
        segs.append(Segment(" "))
    segs.append(cell(visible(text), summary_width, SUMMARY_STYLES.get(kind)))
    lat_text = format_latency(latency) if latency is not None else ""
    slow = latency is not None and latency >= 1000
    segs.append(cell(lat_text, 8, SLOW_STYLE if slow else LATENCY_STYLE, right=True))
    mark, mark_style = FINDING if src.has_findings(index) else (" ", None)
    segs.append(Segment(" "))
    segs.append(Segment(mark, mark_style))
    return Strip(segs).crop_extend(0, width, None)
