"""The report's mean latency is the mean of the calls' latencies, kept as they are
recorded (hdrh's mean walks every bucket in Python, and is the buckets' mean)."""

from __future__ import annotations

import pytest

from inspector.load.stats import Stats


def test_the_mean_is_exact_and_counts_failures_too() -> None:
    stats = Stats()
    assert stats.mean_ms == 0.0
    stats.record_ok("tools/call add", 0.001, stats.started)
    stats.record_ok("tools/call add", 0.0045, stats.started)
    stats.record_error("tools/call add", "timeout", "no answer", 0.0104, stats.started)
    assert stats.mean_ms == pytest.approx((1.0 + 4.5 + 10.4) / 3, abs=1e-9)
    assert stats.to_json()["latency_ms"]["mean"] == 5.3
