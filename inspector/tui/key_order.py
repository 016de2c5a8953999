"""Keys handled one after another, each by the widget focused when its turn comes.

Textual forwards a key to the focused widget's queue as soon as the terminal's bytes are
read, and runs an ordinary binding (Tab's focus move, Esc back to the catalog, Enter
opening an item) only when the key has bubbled back up to the app. Keys that arrive
together ("5", Tab, "1": a fast typist, a password manager's "value Tab value", an
agent's ``tmux send-keys``) were all forwarded before Tab moved the focus, so "1" went
into the field Tab was leaving ("51" and an empty field).

Here the app starts the next key only once the one before it is done: stopped by the
widget that handled it, or back at the app, where its binding ran. A key's way up is
followed by a callback queued behind it at each widget it reaches (a widget's queue is
handled in order). Keys typed one at a time are not held: each is done before the next
arrives. A way up that stalls holds the next keys for ``STUCK_AFTER`` at most (a widget
removed while it handles a key still runs the callback queued behind it).

Some keys move the focus later than their own handling: Enter on a catalog item opens
its form, which is built and focused after the screen's next refresh. Such a key takes a
named ``hold`` (released once the focus has moved, or after its ``within``), and the keys
behind it wait for it too: "Enter 9" types the 9 into the form's first field.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import Awaitable, Callable
from functools import cached_property
from typing import Any, TypeVar

from textual import events
from textual.app import App
from textual.dom import DOMNode

STUCK_AFTER = 2.0  # seconds a key's way up may take before the next keys go on anyway
CHECK_EVERY = 0.05  # seconds between looks at what held keys wait for
OPEN_ITEM = "open-item"  # Enter on a catalog item: its form takes the keys behind it
OPEN_ITEM_WITHIN = 5.0  # seconds a form may take to open before they go on anyway

Handle = Callable[[events.Key], Awaitable[None]]


class KeyOrder:
    """The keys of one app, in order (see the module docstring)."""

    def __init__(self, app: App[Any], handle: Handle) -> None:
        """``handle``: the app's own handling of a key from the terminal (Textual's:
        priority bindings, else forwarded to the focused widget)."""
        self._app = app
        self._handle = handle
        self._flying: events.Key | None = None  # started, not yet done
        self._since = 0.0
        self._held: deque[events.Key] = deque()
        self._holds: dict[str, float] = {}  # a named hold -> when it lapses (monotonic)
        self._timer: asyncio.TimerHandle | None = None

    @property
    def holding(self) -> int:
        """How many keys wait for the ones before them."""
        return len(self._held)

    def hold(self, name: str, within: float) -> None:
        """Keep the next keys until ``release(name)``, or ``within`` seconds at most."""
        self._holds[name] = time.monotonic() + within
        self._arm()

    def release(self, name: str) -> None:
        """The focus moved where the keys held for ``name`` should go: on with them."""
        if self._holds.pop(name, None) is not None and self._held:
            self._app.call_later(self._next)

    def _busy(self) -> bool:
        return self._flying is not None or bool(self._held) or bool(self._holds)

    async def key(self, event: events.Key) -> None:
        """A key from the terminal: handled now, or after the keys before it."""
        if self._busy():
            self._held.append(event)
            self._arm()
            return
        if not await self._start(event):
            await self._next()

    async def _start(self, event: events.Key) -> bool:
        """Handle ``event``; True while it is still on its way (followed), False when it
        is done already (a priority binding ran in the app, or nowhere to follow it)."""
        target: DOMNode = self._app.focused or self._app.screen  # where Textual sends it
        self._flying, self._since = event, time.monotonic()
        await self._handle(event)
        if event.is_forwarded and self._follow(target, event):
            return True
        self._flying = None
        return False

    def _follow(self, node: DOMNode, event: events.Key) -> bool:
        """Look again once ``node`` has handled ``event`` (False: ``node`` is closed)."""
        return node.call_later(self._reached, node, event)

    def _reached(self, node: DOMNode, event: events.Key) -> None:
        """``node`` handled ``event``: it went up to the parent, or it is done."""
        if event is not self._flying:
            return  # given up on (STUCK_AFTER)
        parent = node.parent
        # a key the app sent stops *after* reaching the app (Textual marks it stopped
        # as it bubbles there), so the way to the app is always followed
        goes_on = event.bubble and not event._stop_propagation
        if parent is not None and (goes_on or parent is self._app) and self._follow(parent, event):
            return
        self._flying = None
        if self._held and not self._holds:
            self._app.call_later(self._next)  # the next key starts in the app's own task

    async def _next(self) -> None:
        """Start the held keys, in order, until one is on its way."""
        while self._flying is None and not self._holds and self._held:
            if await self._start(self._held.popleft()):
                return

    def _arm(self) -> None:
        """Make sure held keys go on within ``STUCK_AFTER`` (or a hold's ``within``)
        whatever becomes of what they wait for."""
        if self._timer is None:
            loop = asyncio.get_running_loop()
            self._timer = loop.call_later(CHECK_EVERY, self._check_stuck)

    def _check_stuck(self) -> None:
        self._timer = None
        if not self._app.is_running:  # the app ended: nothing will handle them
            self._held.clear()
            self._holds.clear()
            self._flying = None
            return
        now = time.monotonic()
        lapsed = [name for name, until in self._holds.items() if now >= until]
        for name in lapsed:  # what it waited for did not happen (nothing was opened)
            del self._holds[name]
        if self._flying is not None and now - self._since >= STUCK_AFTER:
            self._flying = None  # its way up was lost: the next keys go on
        if self._held and self._flying is None and not self._holds:
            self._app.call_later(self._next)
        if self._busy():
            self._arm()


ReturnType = TypeVar("ReturnType")


class OrderedKeys(App[ReturnType]):
    """An app whose keys from the terminal go through a ``KeyOrder``; ``_handle_key`` is
    where a subclass adds to a key's handling once its turn has come."""

    @cached_property
    def key_order(self) -> KeyOrder:
        return KeyOrder(self, self._handle_key)

    async def on_event(self, event: events.Event) -> None:
        if isinstance(event, events.Key) and not event.is_forwarded:
            await self.key_order.key(event)  # in order, each where the focus is by then
            return
        await super().on_event(event)

    async def _handle_key(self, event: events.Key) -> None:
        """A key from the terminal, its turn come: Textual's handling."""
        await super().on_event(event)


def hold_keys(app: App[Any], name: str, within: float) -> None:
    """``KeyOrder.hold`` on ``app``'s keys (nothing for an app without ordered keys: a
    widget in a test app of its own)."""
    if isinstance(app, OrderedKeys):
        app.key_order.hold(name, within)
