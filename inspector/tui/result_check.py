"""A big structured result's size and outputSchema check, worked out in a child process,
and the result kept as compact JSON bytes instead of a tree of Python objects.

A 12 MB ``structuredContent`` of 100,000 small objects parses into ~3.7x its size of
dicts, strings and floats, and checking it with jsonschema is pure Python for seconds:
in a thread it holds the GIL in 5 ms turns, and every step of the UI's event loop waits
for one (a key took 0.6 s). So a child process (``python -m inspector.tui.result_check``)
parses, measures and checks it, on another core and in its own memory, from the
response's frame when the engine offered it (``Session.take_frame``: the bytes the log
holds anyway), else from the tree encoded by the formatter thread (``encode``: many small
``json.dumps`` calls, never one long one). The view then keeps those bytes
(``Outcome.park``) instead of the tree.

A result with few containers (a 50 MB text) gains nothing from this and is measured in
the thread as before (``many_containers``); a folded one (``Session`` parsed its frame
folded: never a whole tree in this process) always goes to the child.
"""

from __future__ import annotations

import io
import json
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from inspector.forms.output import OutputCheck, OutputStatus, check_output
from inspector.forms.validate import ValidationIssue
from inspector.tui.json_size import json_length
from inspector.wire.folded import is_folded

MANY = 10_000  # containers from which a result is checked in a child and kept as bytes
_SLICE = 1 << 20  # a big string is encoded a slice at a time (the GIL changes hands between)
_ITEMS = 256  # items encoded in one call (a slice of a long array)
_SHORT = 4_096  # a string this long counts as small inside a container
TIMEOUT = 600.0  # seconds the child may take (a result of hundreds of MB)


def many_containers(value: Any, limit: int = MANY) -> bool:
    """More than ``limit`` dicts and lists in ``value`` (stops counting there)."""
    count, todo = 0, [value]
    while todo:
        item = todo.pop()
        if isinstance(item, dict):
            todo.extend(item.values())
        elif isinstance(item, list):
            todo.extend(item)
        else:
            continue
        count += 1
        if count > limit:
            return True
    return False


def encode(value: Any) -> bytes:
    """``json.dumps(value, ensure_ascii=False, separators=(",", ":"))`` as UTF-8, built from
    small pieces so that no single C call holds the GIL for long."""
    # each piece encoded as it is made (no whole-size str as well) into one buffer, whose
    # bytes getvalue hands over without a copy (a list of pieces, joined, held two)
    out = io.BytesIO()
    _encode(value, out.write)
    return out.getvalue()


def _encode(value: Any, write: Callable[[bytes], object]) -> None:
    if isinstance(value, str) and len(value) > _SLICE:
        write(b'"')
        for start in range(0, len(value), _SLICE):  # an escape never spans two characters
            write(_utf8(json.dumps(value[start : start + _SLICE], ensure_ascii=False)[1:-1]))
        write(b'"')
    elif isinstance(value, dict) and not _small(value):  # key by key
        write(b"{")
        for n, (key, item) in enumerate(value.items()):
            write(b"," if n else b"")
            write(_utf8(_dumps(str(key)) + ":"))
            _encode(item, write)
        write(b"}")
    elif isinstance(value, list) and not _small(value):
        write(b"[")
        for start in range(0, len(value), _ITEMS):  # rows of small objects: a slice a call
            part = value[start : start + _ITEMS]
            write(b"," if start else b"")
            if all(_small(item) for item in part):
                write(_utf8(_dumps(part)[1:-1]))
            else:
                for n, item in enumerate(part):
                    write(b"," if n else b"")
                    _encode(item, write)
        write(b"]")
    else:
        write(_utf8(_dumps(value)))


def _utf8(text: str) -> bytes:
    return text.encode("utf-8", "surrogatepass")  # a lone surrogate came as an escape


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)


def _small(value: Any) -> bool:
    """A scalar, a short string, or a short container of those: one quick ``dumps``."""
    if isinstance(value, str):
        return len(value) <= _SHORT
    if isinstance(value, dict):
        items: Any = value.values()
    elif isinstance(value, list):
        items = value
    else:
        return True
    return len(value) <= _ITEMS and not any(
        isinstance(item, dict | list) or (isinstance(item, str) and len(item) > _SHORT)
        for item in items
    )


@dataclass(frozen=True)
class Measured:
    """A result's size (characters as JSON, as ``json_length``), its check, its bytes."""

    size: int
    check: OutputCheck
    blob: bytes | None = None  # compact JSON of the result, when worked out


def measure(result: Any, schema: Any, frame: bytes | None = None) -> Measured:
    """Size and outputSchema check of ``result``: in a child for one of many containers
    (falling back to this thread if the child cannot run), here for the rest.

    ``frame``: the response ``result`` came in (its ``"result"``), given to the child and
    kept as it is, the blob; else the result is encoded for them (the tree and its JSON
    held at once: a 12 MB result's peak was the frame, ~3.8x of tree and the JSON). A
    folded result (``inspector.wire.folded``) is only a part: its frame is what counts."""
    folded = frame is not None and is_folded(result)
    if folded or many_containers(result):
        blob = frame if frame is not None else encode(result)
        measured = _in_child(blob, schema, "result" if frame is not None else None)
        if measured is not None:
            return Measured(measured[0], measured[1], blob)
        if folded:  # no child: the whole result here, for as long as this takes
            result = json.loads(blob)["result"]
        return Measured(json_length(result), check_output(schema, result), blob)
    return Measured(json_length(result), check_output(schema, result))


def _in_child(blob: bytes, schema: Any, member: str | None) -> tuple[int, OutputCheck] | None:
    """The child's size and check of ``blob`` (its ``member`` when given); None if it
    could not run."""
    try:
        child = subprocess.Popen(
            [sys.executable, "-m", __name__],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        assert child.stdin is not None
        child.stdin.write(json.dumps({"schema": schema, "member": member}).encode() + b"\n")
        child.stdin.write(blob)
        # communicate flushes and closes stdin itself (closed here first, its flush of the
        # closed file raised: the child's answer was never read, the check ran here)
        out, _ = child.communicate(timeout=TIMEOUT)
        if child.returncode != 0:
            return None
        answer = json.loads(out)
        issues = [ValidationIssue(tuple(path), message) for path, message in answer["issues"]]
        return int(answer["size"]), OutputCheck(OutputStatus(answer["status"]), issues)
    except (OSError, ValueError, KeyError, TypeError, subprocess.SubprocessError):
        if "child" in locals():
            child.kill()
        return None


def main() -> None:
    """The child: a line of the schema and the member of the JSON that is the result (or
    null: all of it), then the JSON, on stdin; the answer on stdout."""
    stdin = sys.stdin.buffer
    header = json.loads(stdin.readline())
    schema, member = header["schema"], header["member"]
    result = json.loads(stdin.read())
    if member is not None:
        result = result[member]
    check = check_output(schema, result)
    answer = {
        "size": json_length(result),
        "status": check.status.value,
        "issues": [[list(issue.path), issue.message] for issue in check.issues],
    }
    sys.stdout.write(json.dumps(answer))


if __name__ == "__main__":
    main()
