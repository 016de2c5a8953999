"""The numbers of a load run: latencies in an HDR histogram, counts, errors by kind.

Latencies are recorded in microseconds (1 µs to 10 min, 3 significant digits), so a
percentile is exact to 0.1 % whatever the count, in a few hundred KB. Errors are grouped
by kind (``jsonrpc -32602``, ``tool_error``, ``timeout``, ``http 503``, ``connection``)
with the first one's message kept as the sample. A per-second series of completions feeds
the live sparkline and the report's throughput over time."""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from hdrh.histogram import HdrHistogram

from inspector.wire import jsonrpc
from inspector.wire.jsonrpc import RpcError

LOWEST_US = 1
HIGHEST_US = 600_000_000
DIGITS = 3
PERCENTILES = (50.0, 90.0, 99.0, 99.9)


def error_kind(error: BaseException) -> str:
    """The kind a failed call is counted under."""
    if isinstance(error, RpcError):
        if error.code == jsonrpc.REQUEST_TIMEOUT:
            return "timeout"
        if error.code == jsonrpc.CONNECTION_CLOSED:
            return "connection"
        status = error.data.get("status") if isinstance(error.data, dict) else None
        if isinstance(status, int):
            return f"http {status}"
        return f"jsonrpc {error.code}"
    if isinstance(error, TimeoutError):
        return "timeout"
    return type(error).__name__


@dataclass(slots=True)
class ErrorGroup:
    count: int = 0
    sample: str = ""


@dataclass
class Stats:
    """Everything a run counts; ``record_*`` is called from one event loop only."""

    histogram: HdrHistogram = field(
        default_factory=lambda: HdrHistogram(LOWEST_US, HIGHEST_US, DIGITS)
    )
    ok: int = 0
    errors: dict[str, ErrorGroup] = field(default_factory=dict)
    per_label: Counter[str] = field(default_factory=Counter)
    per_second: list[int] = field(default_factory=list)
    in_flight: int = 0
    dropped: int = 0  # open model: calls not started, the client was saturated
    unfinished: int = 0  # calls sent that the end of the run (a stop, the drain) cut off
    offered: int = 0  # open model: calls the schedule reached (started or dropped)
    offered_span: float = 0.0  # open model: seconds from the first scheduled call to the last
    lag: float = 0.0  # open model: the latest a call started after its scheduled time
    stderr: Counter[str] = field(default_factory=Counter)
    started: float = field(default_factory=time.monotonic)
    ended: float | None = None
    # the latencies' sum, for the mean: hdrh's get_mean_value walks every bucket in Python
    # (about 0.1 s of CPU for 5,000 spread latencies, twice a report), and this one is exact
    latency_sum_us: int = 0

    @property
    def failed(self) -> int:
        return sum(group.count for group in self.errors.values())

    @property
    def total(self) -> int:
        return self.ok + self.failed

    @property
    def elapsed(self) -> float:
        end = self.ended if self.ended is not None else time.monotonic()
        return max(end - self.started, 1e-9)

    @property
    def throughput(self) -> float:
        return self.total / self.elapsed

    @property
    def offered_rate(self) -> float | None:
        """Open model: calls a second the schedule kept (None in the closed model)."""
        if self.offered < 2 or self.offered_span <= 0:
            return None
        return (self.offered - 1) / self.offered_span

    @property
    def error_rate(self) -> float:
        return self.failed / self.total if self.total else 0.0

    def _tick(self, now: float) -> None:
        second = int(now - self.started)
        if second >= len(self.per_second):
            self.per_second.extend([0] * (second + 1 - len(self.per_second)))
        self.per_second[second] += 1

    def _latency(self, seconds: float) -> None:
        micros = max(LOWEST_US, min(HIGHEST_US, round(seconds * 1e6)))
        self.histogram.record_value(micros)
        self.latency_sum_us += micros

    def record_ok(self, label: str, seconds: float, now: float) -> None:
        self.ok += 1
        self.per_label[label] += 1
        self._latency(seconds)
        self._tick(now)

    def record_error(self, label: str, kind: str, sample: str, seconds: float, now: float) -> None:
        group = self.errors.setdefault(kind, ErrorGroup(sample=sample[:2000]))
        group.count += 1
        self.per_label[label] += 1
        self._latency(seconds)
        self._tick(now)

    def percentile_ms(self, percentile: float) -> float:
        if self.histogram.get_total_count() == 0:
            return 0.0
        return float(self.histogram.get_value_at_percentile(percentile)) / 1000

    @property
    def max_ms(self) -> float:
        return float(self.histogram.get_max_value()) / 1000 if self.total else 0.0

    @property
    def mean_ms(self) -> float:
        count = self.histogram.get_total_count()
        return self.latency_sum_us / count / 1000 if count else 0.0

    def to_json(self) -> dict[str, Any]:
        return {
            "calls": self.total,
            "ok": self.ok,
            "failed": self.failed,
            "dropped": self.dropped,
            "unfinished": self.unfinished,
            "seconds": round(self.elapsed, 3),
            "throughput": round(self.throughput, 2),
            "error_rate": round(self.error_rate, 6),
            "offered_rate": None if self.offered_rate is None else round(self.offered_rate, 2),
            "schedule_lag_ms": round(self.lag * 1000, 3),
            "latency_ms": {
                "mean": round(self.mean_ms, 3),
                **{f"p{p:g}": round(self.percentile_ms(p), 3) for p in PERCENTILES},
                "max": round(self.max_ms, 3),
            },
            "errors": {k: {"count": g.count, "sample": g.sample} for k, g in self.errors.items()},
            "per_call": dict(self.per_label),
            "per_second": list(self.per_second),
            "stderr": [{"line": line, "count": n} for line, n in self.stderr.most_common(20)],
            "histogram": self.histogram.encode().decode("ascii"),
        }
