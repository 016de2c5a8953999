"""The live session's state, headless: one owner for what the TUI shows of a session.

``LiveState`` (``state.py``) holds the wire events, the requests in flight and finished
(``requests.py``), the calls sent, read off the events (``history.py``), the tasks, the
server's log (``server_log.py``), the resources the server said were updated and the
catalog. A session feeds it (``attach``), a replay
feeds it from a file; the TUI's feed takes its batched changes and posts messages.
No Textual here.
"""
