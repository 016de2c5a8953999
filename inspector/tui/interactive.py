"""The bridge between the session's responders and the screens that ask the user.

    bridge = InteractiveResponders(app, roots=["."])
    session = Session(transport, responders=bridge.responders())
    bridge.attach(session)          # for list_changed and the server's name in titles

A server request (sampling, elicitation) pushes its screen and awaits a future the
screen resolves on dismiss, so the UI never blocks and several requests can be
open at once (stacked). If the server cancels its request meanwhile, the session
cancels the responder and the screen closes with a note. Roots are answered from a
``RootsList`` the roots editor edits.

Standing rule for sampling: ``bridge.rule = SamplingRule(text=...)`` answers every
sampling request without asking (``SamplingRule(reject=True)`` rejects them); it is
shown by ``SamplingRuleBar`` with a button (and ``bridge.clear_rule()``) to switch
it off, and each automatic answer is announced with a notification.

URL elicitations: ``notifications/elicitation/complete`` for an id the user was shown
(and did not decline) is announced, and marked in its dialog if still open; after
error -32042, ``complete_url_elicitations`` waits for those reports (bounded,
cancellable, "retry now") before the caller retries. Unknown or repeated ids are ignored.
In the 2026-07-28 stateless era that notification is gone: nothing is awaited, the
request is retried once the user accepted (the dialog says so).
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, ClassVar

from textual import on
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.message import Message
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Button, Static

from inspector.engine.responders import Responders, RootsList
from inspector.engine.session import Session
from inspector.safe_text import one_line, safe_text
from inspector.tui.screens.elicitation import CompletionWaitScreen, ElicitationScreen, Opener
from inspector.tui.screens.roots import RootsScreen
from inspector.tui.screens.sampling import (
    DEFAULT_MODEL,
    SamplingDecision,
    SamplingScreen,
    ServerRequestScreen,
    offered_tools,
    tool_choice,
)
from inspector.wire.jsonrpc import URL_ELICITATION_REQUIRED, USER_REJECTED, RpcError

ScreenFactory = Callable[[dict[str, Any]], Screen[Any]]


@dataclass(frozen=True)
class SamplingRule:
    """A standing answer to sampling requests; ``reject`` refuses them instead."""

    text: str = ""
    model: str = DEFAULT_MODEL
    stop_reason: str = "endTurn"
    reject: bool = False

    def describe(self) -> str:
        if self.reject:
            return "reject every sampling request (error -1)"
        return f"answer every sampling request with {one_line(self.text, 40)!r}"

    def answer(self) -> dict[str, Any]:
        if self.reject:
            raise RpcError(USER_REJECTED, "rejected by a standing rule")
        return {
            "role": "assistant",
            "content": {"type": "text", "text": self.text},
            "model": self.model,
            "stopReason": self.stop_reason,
        }


class UrlCompletions:
    """The URL elicitation ids we know (shown or accepted) and those reported complete.

    Both are bounded: a long session forgets the oldest."""

    LIMIT = 256

    def __init__(self) -> None:
        self.known: OrderedDict[str, ElicitationScreen | None] = OrderedDict()
        self.done: OrderedDict[str, None] = OrderedDict()
        self.waiters: list[CompletionWaitScreen] = []

    def expect(self, eid: str, screen: ElicitationScreen | None = None) -> None:
        self.known[eid] = screen or self.known.get(eid)
        self.known.move_to_end(eid)
        while len(self.known) > self.LIMIT:
            self.known.popitem(last=False)

    def dialog_closed(self, eid: str, screen: ElicitationScreen) -> None:
        if self.known.get(eid) is screen:
            self.known[eid] = None

    def forget(self, eid: str) -> None:
        self.known.pop(eid, None)

    def is_complete(self, eid: str) -> bool:
        return eid in self.done

    def complete(self, eid: str) -> bool:
        """Record a completion; False for an unknown or already-completed id (ignored)."""
        if eid not in self.known or eid in self.done:
            return False
        self.done[eid] = None
        while len(self.done) > self.LIMIT:
            self.done.popitem(last=False)
        screen = self.known[eid]
        if screen is not None:
            screen.mark_complete()
        for waiter in list(self.waiters):
            waiter.mark_complete(eid)
        return True


@dataclass
class RuleChanged(Message):
    """The standing sampling rule was set or switched off (``rule`` is None)."""

    rule: SamplingRule | None


class InteractiveResponders:
    """Responders whose answers come from the user, through screens."""

    def __init__(
        self,
        app: App[Any],
        *,
        roots: Iterable[str | Path] = (),
        opener: Opener | None = None,
        elicitation_modes: tuple[str, ...] = ("form", "url"),
    ) -> None:
        self.app = app
        self.roots = RootsList(roots)
        self.opener = opener
        self.elicitation_modes = elicitation_modes
        self.session: Session | None = None
        self.rule: SamplingRule | None = None
        self.auto_answered = 0  # sampling requests answered by the rule
        self.last_reply = ""
        self.completions = UrlCompletions()
        self.completion_timeout = 120.0  # seconds a -32042 retry waits for the server
        self._rule_listeners: list[Callable[[SamplingRule | None], None]] = []
        self.workspace_name: str | None = None  # a workspace's: which server asks

    def for_server(self, name: str) -> InteractiveResponders:
        """Another workspace server's bridge: its own dialogs, saying ``name``; the same
        roots (one list, edited for every server), opener and elicitation modes."""
        bridge = InteractiveResponders(
            self.app, opener=self.opener, elicitation_modes=self.elicitation_modes
        )
        bridge.roots = self.roots
        bridge.workspace_name = name
        return bridge

    def responders(self) -> Responders:
        return Responders(
            roots=self.roots,
            sampling=self.sampling,
            sampling_tools=True,
            elicitation=self.elicitation,
            elicitation_modes=self.elicitation_modes,
        )

    def attach(self, session: Session) -> None:
        if session is self.session:
            return  # a workspace's relay attached it already (as it connected)
        self.session = session
        if not session.era.stateless:  # the notification is gone in 2026-07-28
            session.on_notification("notifications/elicitation/complete", self.elicitation_complete)

    @property
    def server_name(self) -> str:
        info = self.session.server_info if self.session is not None else {}
        found = info.get("title") or info.get("name")
        if self.workspace_name is not None:  # several servers: the one asking, by its name
            return f"{self.workspace_name} ({found})" if found else self.workspace_name
        return str(found or "the server")

    # -- the standing rule -------------------------------------------------------------

    def add_rule_listener(self, listener: Callable[[SamplingRule | None], None]) -> None:
        self._rule_listeners.append(listener)

    def remove_rule_listener(self, listener: Callable[[SamplingRule | None], None]) -> None:
        if listener in self._rule_listeners:
            self._rule_listeners.remove(listener)

    def set_rule(self, rule: SamplingRule | None) -> None:
        self.rule = rule
        self.app.post_message(RuleChanged(rule))
        for listener in self._rule_listeners:
            listener(rule)
        if rule is not None:
            self.app.notify(f"Standing rule on: {rule.describe()}", title="Sampling", markup=False)

    def clear_rule(self) -> None:
        if self.rule is not None:
            self.set_rule(None)
            self.app.notify("Standing rule off: sampling requests ask you again", title="Sampling")

    # -- responders --------------------------------------------------------------------

    async def sampling(self, params: dict[str, Any]) -> dict[str, Any]:
        if self.rule is not None:
            self.auto_answered += 1
            flag = ""
            if not self.rule.reject and tool_choice(params) == "required" and offered_tools(params):
                flag = " (toolChoice required a tool use: answered with text anyway)"
            self.app.notify(
                f"sampling/createMessage answered by the standing rule: "
                f"{self.rule.describe()}{flag}",
                title="Sampling",
                markup=False,
                severity="warning" if flag else "information",
            )
            return self.rule.answer()
        draft = self.last_reply
        decision: SamplingDecision = await self.ask(
            SamplingScreen(params, server=self.server_name, draft=draft)
        )
        if decision.result is None:
            raise RpcError(USER_REJECTED, decision.reason)
        content = decision.result.get("content")
        if isinstance(content, dict) and isinstance(content.get("text"), str):
            self.last_reply = content["text"]  # the next request starts from it
        if decision.remember:
            content = decision.result.get("content")
            text = content.get("text", "") if isinstance(content, dict) else ""
            self.set_rule(
                replace(
                    SamplingRule(),
                    text=str(text),
                    model=str(decision.result.get("model") or DEFAULT_MODEL),
                    stop_reason=str(decision.result.get("stopReason") or "endTurn"),
                )
            )
        return decision.result

    @property
    def completion_notices(self) -> bool:
        """Whether the server can report a URL elicitation complete: 2026-07-28 removed
        ``notifications/elicitation/complete`` (the client retries after consent)."""
        return self.session is None or not self.session.era.stateless

    async def elicitation(self, params: dict[str, Any]) -> dict[str, Any]:
        kwargs: dict[str, Any] = {
            "server": self.server_name,
            "completion_notice": self.completion_notices,
        }
        if self.opener is not None:
            kwargs["opener"] = self.opener
        screen = ElicitationScreen(params, **kwargs)
        eid = params.get("elicitationId")
        tracked = screen.mode == "url" and isinstance(eid, str) and self.completion_notices
        if tracked:
            self.completions.expect(str(eid), screen)
        try:
            answer: dict[str, Any] = await self.ask(screen)
        except BaseException:  # withdrawn by the server: never accepted, so unknown
            if tracked:
                self.completions.forget(str(eid))
            raise
        finally:
            if tracked:
                self.completions.dialog_closed(str(eid), screen)
        if tracked and answer.get("action") != "accept":
            self.completions.forget(str(eid))  # declined: a later "complete" is unknown
        return answer

    def elicitation_complete(self, params: dict[str, Any]) -> None:
        """notifications/elicitation/complete: tell the user, wake a waiting retry.

        Unknown and already-completed ids are ignored, as the spec says."""
        eid = params.get("elicitationId")
        if not isinstance(eid, str) or not self.completions.complete(eid):
            return
        self.app.notify(
            f"{self.server_name} reports URL elicitation {one_line(eid, 80)} complete",
            title="Elicitation",
            markup=False,
        )

    async def complete_url_elicitations(self, error: RpcError) -> bool:
        """Error -32042: show each URL elicitation it carries; once the user accepted them
        all, wait (bounded, cancellable) for the server to report them complete. True: the
        caller may retry the request now."""
        if error.code != URL_ELICITATION_REQUIRED:
            return False
        data = error.data if isinstance(error.data, dict) else {}
        items = [e for e in data.get("elicitations") or [] if isinstance(e, dict)]
        if not items:
            return False
        if not self.completion_notices:
            return await self._consent_then_retry(items)
        ids = [str(i["elicitationId"]) for i in items if isinstance(i.get("elicitationId"), str)]
        for eid in ids:  # known from now on: a "complete" may arrive before the user accepts
            self.completions.expect(eid)
        for item in items:
            answer = await self.elicitation({**item, "mode": "url"})
            if answer.get("action") != "accept":
                for eid in ids:
                    self.completions.forget(eid)
                return False
        pending = [eid for eid in ids if not self.completions.is_complete(eid)]
        if not pending:
            return True
        wait = CompletionWaitScreen(
            pending, server=self.server_name, timeout=self.completion_timeout
        )
        self.completions.waiters.append(wait)
        try:
            outcome: str = await self.ask(
                wait, withdrawn="Stopped waiting for the URL elicitation(s) to complete."
            )
        finally:
            self.completions.waiters.remove(wait)
        if outcome == "timeout":
            self.app.notify(
                "No completion reported in time: retrying anyway",
                title="Elicitation",
                severity="warning",
            )
        return outcome != "cancel"

    async def _consent_then_retry(self, items: list[dict[str, Any]]) -> bool:
        """2026-07-28: no completion notice will come, so there is nothing to wait for;
        once the user accepted every URL the request is retried (the MRTR way)."""
        for item in items:
            answer = await self.elicitation({**item, "mode": "url"})
            if answer.get("action") != "accept":
                return False
        self.app.notify(
            "Retrying now: in protocol 2026-07-28 the server sends no completion notice",
            title="Elicitation",
            markup=False,
        )
        return True

    async def roots_changed(self, roots: list[dict[str, Any]]) -> None:
        """The roots editor's ``on_change``: tell the server (when connected)."""
        if self.session is None or self.session.initialize_result is None:
            raise RuntimeError("not connected: the server will ask for roots when it needs them")
        await self.session.notify("notifications/roots/list_changed")

    def roots_screen(self) -> RootsScreen:
        return RootsScreen(self.roots, on_change=self.roots_changed)

    # -- pushing a screen and waiting for it -------------------------------------------

    async def ask(
        self,
        screen: Screen[Any],
        *,
        withdrawn: str = "The server withdrew its request; the dialog was closed.",
    ) -> Any:
        """Push ``screen`` and wait for its dismiss value; withdraw it (and say
        ``withdrawn``) if we are cancelled."""
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        answered = False

        def done(value: Any) -> None:
            nonlocal answered
            answered = True
            if not future.done():
                future.set_result(value)

        self.app.push_screen(screen, callback=done)
        try:
            return await future
        finally:
            if not answered:  # the server cancelled its request, or the session is closing
                if isinstance(screen, ServerRequestScreen):
                    screen.withdraw()
                elif self.app.screen is screen:
                    self.app.pop_screen()
                self.app.notify(withdrawn, severity="warning")


class SamplingRuleBar(Widget):
    """One line that shows the standing sampling rule, with a button to switch it off.

    Hidden while no rule is set. Mount it in the status area; it follows the bridge.
    """

    BINDINGS: ClassVar[list[BindingType]] = [Binding("ctrl+o", "rule_off", "Rule off")]

    DEFAULT_CSS = """
    SamplingRuleBar { height: 1; display: none; background: $warning-muted; }
    SamplingRuleBar.active { display: block; }
    SamplingRuleBar > Horizontal { height: 1; }
    SamplingRuleBar #rule-text { width: 1fr; }
    """

    def __init__(self, bridge: InteractiveResponders, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.bridge = bridge

    def compose(self) -> ComposeResult:
        with Horizontal():
            yield Static("", id="rule-text")
            yield Button("switch off", id="rule-off", compact=True, variant="warning")

    def on_mount(self) -> None:
        self.bridge.add_rule_listener(self.show_rule)
        self.show_rule(self.bridge.rule)

    def on_unmount(self) -> None:
        self.bridge.remove_rule_listener(self.show_rule)

    def show_rule(self, rule: SamplingRule | None) -> None:
        self.set_class(rule is not None, "active")
        text = safe_text(f"⚑ Standing rule: {rule.describe()}" if rule else "")
        self.query_one("#rule-text", Static).update(text)

    @on(Button.Pressed, "#rule-off")
    def action_rule_off(self) -> None:
        self.bridge.clear_rule()
