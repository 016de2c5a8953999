"""A load run's recording: every failed call in full, one in N of the others.

Each virtual user's frames are tagged as a party of the wire (``side`` ``user``, ``attach``
its number), the way a proxy's recording tells its host and inspectors apart, so one file
holds every session and ``replay`` pairs each request with its own answer. A call's frames
(its request, its answer, the HTTP exchange and the notifications that name it) wait in
memory until the answer says whether to keep them; frames of no call (notes, the
handshake's notification) are kept as they come, and stderr up to a cap. The file is
still write-ahead for what it keeps: a kept call is on disk before the run goes on."""

from __future__ import annotations

from typing import Any

from inspector.record.recorder import Recorder
from inspector.record.redact import Redactor
from inspector.wire.events import ATTACH_KEY, SIDE_KEY, Channel, WireEvent

MAX_STDERR = 1000  # stderr lines kept in all (the report counts every one)
MAX_WAITING = 10_000  # calls whose frames wait for their answer; past it, the oldest go


def _call_id(event: WireEvent) -> Any:
    """Which call a frame belongs to: its JSON-RPC id, the HTTP exchange's request id, the
    SSE stream's ``post:<id>``, a progress note's token ``progress-<id>``."""
    msg = event.message
    if isinstance(msg, dict):
        if "id" in msg:
            return msg["id"]
        params = msg.get("params")
        if isinstance(params, dict):
            token = params.get("progressToken")
            if isinstance(token, str) and token.startswith("progress-"):
                return _number(token[len("progress-") :])
            if "requestId" in params:
                return params["requestId"]
    rid = event.meta.get("request_id")
    if rid is not None:
        return rid
    stream = event.meta.get("stream")
    if isinstance(stream, str) and stream.startswith("post:"):
        return _number(stream[len("post:") :])
    return None


def _number(text: str) -> Any:
    return int(text) if text.isdigit() else text


class SampledRecorder:
    """One virtual user's view of the shared ``Recorder`` (the engine's EventRecorder)."""

    def __init__(self, recorder: Recorder, user: int, keep_one_in: int, shared: list[int]) -> None:
        self.recorder = recorder
        self.user = user
        self.keep_one_in = max(1, keep_one_in)
        self._shared = shared  # [successes seen, stderr lines kept] across users
        self._waiting: dict[Any, list[WireEvent]] = {}
        self._opened = False

    @property
    def redactor(self) -> Redactor:
        return self.recorder.redactor

    def write(self, event: WireEvent) -> None:
        event.meta = {**event.meta, SIDE_KEY: "user", ATTACH_KEY: self.user}
        if event.channel is Channel.STDERR:
            if self._shared[1] < MAX_STDERR:
                self._shared[1] += 1
                self.recorder.write(event)
            return
        cid = _call_id(event)
        if cid is None or not self._opened:
            # the opening (initialize, discover) is kept whole: replay starts from it
            self.recorder.write(event)
            if event.method == "notifications/initialized" or _opened_stateless(event):
                self._opened = True
            return
        frames = self._waiting.setdefault(repr(cid), [])
        frames.append(event)
        msg = event.message
        if isinstance(msg, dict) and "method" not in msg and ("result" in msg or "error" in msg):
            self._settle(repr(cid), failed=_failed(msg))
        elif len(self._waiting) > MAX_WAITING:
            self._waiting.pop(next(iter(self._waiting)))

    def _settle(self, key: str, *, failed: bool) -> None:
        frames = self._waiting.pop(key, [])
        if not failed:
            self._shared[0] += 1
            if self._shared[0] % self.keep_one_in:
                return
        for frame in frames:
            self.recorder.write(frame, flush=False)
        self.recorder.flush()


def _failed(message: dict[str, Any]) -> bool:
    result = message.get("result")
    return "error" in message or (isinstance(result, dict) and result.get("isError") is True)


def _opened_stateless(event: WireEvent) -> bool:
    """The stateless era has no initialized notification: its discover answer opens."""
    msg = event.message
    result = msg.get("result") if isinstance(msg, dict) else None
    return isinstance(result, dict) and "supportedVersions" in result
