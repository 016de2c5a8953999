"""How much asyncio's pipe and socket transports read at once.

asyncio reads up to 256 KiB a call into a new bytes object, then shrinks it to what came.
glibc serves a block that size with ``mmap`` (its threshold is 128 KiB), so every read,
however short the line, costs an ``mmap``, an ``mremap`` and a ``munmap``, and fresh pages
the kernel must fault in and zero. A proxy reads a few short lines a call: this was a
third of its CPU (``bench/proxy_overhead.py``: 0.15 -> 0.09 ms a call behind the demo).
64 KiB comes from the heap; a big message is read in more calls, which costs nothing
that shows next to parsing it.
"""

from __future__ import annotations

import asyncio.selector_events
import contextlib

READ_SIZE = 1 << 16

# the classes asyncio makes for pipes (a server's stdout and stderr, the proxy's stdin)
# and for sockets; ``max_size`` is how much their ``_read_ready`` asks for
_READERS: list[object] = [getattr(asyncio.selector_events, "_SelectorSocketTransport", None)]
with contextlib.suppress(ImportError):  # not on Windows
    import asyncio.unix_events

    _READERS.append(getattr(asyncio.unix_events, "_UnixReadPipeTransport", None))


def read_in_heap_sized_chunks() -> None:
    """Make asyncio's transports read at most ``READ_SIZE`` bytes a call (idempotent;
    a transport class without ``max_size``, in some other Python, is left alone)."""
    for reader in _READERS:
        size = getattr(reader, "max_size", None)
        if isinstance(size, int) and size > READ_SIZE:
            setattr(reader, "max_size", READ_SIZE)  # noqa: B010 - mypy knows no such attribute
