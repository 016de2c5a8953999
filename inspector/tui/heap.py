"""Keep the app's long-lived startup heap out of the garbage collector's full passes.

Every resize or repaint allocates many short-lived objects (strips, segments, caches);
every few of them CPython runs a full collection, which walks every tracked object:
the modules, classes and widgets made at startup (over 100,000), for 50-200 ms each
time, and a resize that hit one took twice as long. Frozen objects are not walked;
thawing them when the app ends lets the collector reclaim them as usual.
"""

from __future__ import annotations

import gc


def freeze() -> None:
    """Move every object alive now out of the collector's generations."""
    gc.freeze()


def thaw() -> None:
    """Give the frozen objects back to the collector (the app is ending)."""
    gc.unfreeze()
