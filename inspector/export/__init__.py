"""Session files out to the tools people already use, and a HAR back in.

``events_json`` (the events as one JSON array), ``markdown`` (a transcript for a bug
report), ``har`` (HAR 1.2 of every HTTP exchange), ``otlp`` (OpenTelemetry spans after the
MCP semantic conventions, as OTLP JSON or sent by the SDK), ``har_import`` (a HAR of a
Streamable HTTP session as session events), ``live`` (the same spans sent while a session
runs, and W3C trace context in its requests). They read a recording as a stream of
``WireEvent`` s (``operations`` pairs requests with their answers, ``http_exchanges``
groups an HTTP exchange's frames), so a 1 GB file costs the memory of what is in flight.
Headless: nothing here imports Textual.
"""
