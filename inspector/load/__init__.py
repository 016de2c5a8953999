"""Load and soak runs on the engine: many calls, many sessions, numbers that hold up.

``workload`` (what each virtual user calls), ``stats`` (an HDR histogram of latencies,
counts, errors by kind with one sample each, a per-second series), ``runner`` (the closed
model, N users each calling in a loop, and the open model, R calls a second whatever the
latency), ``report`` (the end report as text, JSON and CSV, and the change against an
earlier run). A run takes a way to open a session from its caller (the command line
passes its own connection), so this package never decides how a server is reached.
Headless: nothing here imports Textual.
"""
