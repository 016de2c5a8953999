"""The end of a run as people and machines read it: text, JSON, CSV, a comparison.

``--json`` writes :meth:`Stats.to_json` with the run's settings; ``--csv`` one row per
percentile and per error kind (what a spreadsheet or a CI chart takes); ``--compare``
reads an earlier ``--json`` and says what moved. ``limits`` turns ``--max-p99`` and
``--max-error-rate`` into the reasons a run fails in CI."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

from inspector.errors import InspectorError
from inspector.load.stats import PERCENTILES, Stats
from inspector.safe_text import one_line

SPARK = "▁▂▃▄▅▆▇█"


class CompareError(InspectorError):
    """``--compare`` names a file that is not an earlier run's JSON."""


def sparkline(values: list[int], width: int = 40) -> str:
    if not values:
        return ""
    values = values[-width:]
    top = max(values) or 1
    return "".join(SPARK[min(len(SPARK) - 1, v * len(SPARK) // (top + 1))] for v in values)


def report_json(stats: Stats, settings: dict[str, Any]) -> dict[str, Any]:
    return {"settings": settings, **stats.to_json()}


def report_csv(stats: Stats) -> str:
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(["metric", "value"])
    data = stats.to_json()
    for key in (
        "calls",
        "ok",
        "failed",
        "dropped",
        "unfinished",
        "seconds",
        "throughput",
        "error_rate",
    ):
        writer.writerow([key, data[key]])
    for key, value in data["latency_ms"].items():
        writer.writerow([f"latency_ms_{key}", value])
    for kind, group in data["errors"].items():
        writer.writerow([f"errors {kind}", group["count"]])
    for label, count in data["per_call"].items():
        writer.writerow([f"calls {label}", count])
    return out.getvalue()


def report_text(stats: Stats, settings: dict[str, Any]) -> str:
    """The report a person reads at the end (plain text; Rich prints it as is)."""
    lines = [
        f"{settings.get('target', '')}: {settings.get('describe', '')}",
        f"calls      {stats.total:,} in {stats.elapsed:.2f} s = {stats.throughput:,.1f}/s"
        f"   ok {stats.ok:,}   failed {stats.failed:,} ({stats.error_rate:.2%})"
        + (f"   dropped {stats.dropped:,} (client saturated)" if stats.dropped else "")
        + (f"   unfinished {stats.unfinished:,} (cut off)" if stats.unfinished else ""),
        "latency    "
        + "   ".join(f"p{p:g} {stats.percentile_ms(p):.2f} ms" for p in PERCENTILES)
        + f"   max {stats.max_ms:.2f} ms   mean {stats.mean_ms:.2f} ms",
        f"per second {sparkline(stats.per_second)}",
    ]
    if stats.offered_rate is not None:
        lines.insert(
            2,
            f"schedule   {stats.offered_rate:,.1f} calls/s offered, started at most "
            f"{stats.lag * 1000:.1f} ms late",
        )
    if stats.errors:
        lines.append("errors")
        for kind, group in sorted(stats.errors.items(), key=lambda kv: -kv[1].count):
            lines.append(f"  {group.count:>8,}  {kind}: {one_line(group.sample, 160)}")
    if stats.stderr:
        lines.append(f"server stderr ({sum(stats.stderr.values()):,} lines)")
        for line, count in stats.stderr.most_common(5):
            lines.append(f"  {count:>8,}  {one_line(line, 160)}")
    return "\n".join(lines) + "\n"


def compare(stats: Stats, previous_path: Path) -> str:
    """What moved since the run saved at ``previous_path`` (its ``--json``)."""
    try:
        before = json.loads(previous_path.read_text(encoding="utf-8"))
        old_latency = before["latency_ms"]
        old_throughput = float(before["throughput"])
        old_rate = float(before["error_rate"])
    except OSError as exc:
        raise CompareError(f"--compare {previous_path}: {exc.strerror or exc}") from exc
    except (ValueError, KeyError, TypeError) as exc:
        raise CompareError(
            f"--compare {previous_path}: not the JSON of an earlier run (--json FILE)"
        ) from exc

    def change(new: float, old: float) -> str:
        if old == 0:
            return "(was 0)"
        return f"({(new - old) / old:+.1%})"

    now = stats.to_json()
    rows = [f"against {previous_path.name}:"]
    rows.append(
        f"  throughput {now['throughput']:,.1f}/s, was {old_throughput:,.1f} "
        f"{change(now['throughput'], old_throughput)}"
    )
    for key in ("p50", "p99", "max"):
        new, old = float(now["latency_ms"][key]), float(old_latency.get(key, 0))
        rows.append(f"  {key} {new:.2f} ms, was {old:.2f} ms {change(new, old)}")
    rows.append(f"  error rate {now['error_rate']:.2%}, was {old_rate:.2%}")
    return "\n".join(rows) + "\n"


def limits(stats: Stats, max_p99: float | None, max_error_rate: float | None) -> list[str]:
    """Why the run fails its limits (empty: it holds them)."""
    broken = []
    p99 = stats.percentile_ms(99)
    if max_p99 is not None and p99 > max_p99:
        broken.append(f"p99 {p99:.2f} ms is over --max-p99 {max_p99:g} ms")
    if max_error_rate is not None and stats.error_rate > max_error_rate:
        broken.append(
            f"error rate {stats.error_rate:.2%} is over --max-error-rate {max_error_rate:g}"
        )
    return broken
