"""Keep the app's long-lived startup heap out of the garbage collector's full passes.

Every resize or repaint allocates many short-lived objects (strips, segments, caches);
every few of them CPython runs a full collection, which walks every tracked object:
the modules, classes and widgets made at startup (over 100,000), for 50-200 ms each
time, and a resize that hit one took twice as long. Frozen objects are not walked;
thawing them when the app ends lets the collector reclaim them as usual.
"""

from __future__ import annotations

import contextlib
import ctypes
import gc


def freeze() -> None:
    """Move every object alive now out of the collector's generations."""
    gc.freeze()


def thaw() -> None:
    """Give the frozen objects back to the collector (the app is ending)."""
    gc.unfreeze()


M_MMAP_THRESHOLD = -3  # glibc's mallopt parameter
BIG_BLOCK = 1 << 18  # asyncio's reads (64 KiB, readsize.py) stay below


def map_big_blocks() -> None:
    """Blocks of ``BIG_BLOCK`` and more always come from ``mmap`` (glibc; elsewhere this
    does nothing), so each one freed goes back to the system at once.

    glibc raises its threshold to the size of a big block once it is freed: the next
    blocks of a big result's arrival (the decoded frame, the parsed text) then came from
    the heap, where a freed one stayed resident and a growing one was copied to grow
    (a 13 MB text result peaked at 6x its size). A threshold that is set stays put."""
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL("libc.so.6").mallopt(M_MMAP_THRESHOLD, BIG_BLOCK)
