"""OAuth in the TUI: the authorizer of an HTTP target, the Auth tab, and the person in it.

    auth = AuthUi.for_target(app, target)       # None: no URL, OAuth off, or -H Authorization
    auth.mount(bottom_tabs)                     # the "Auth" tab
    SessionController(..., auth=auth.authorizer)
    auth.observe(event)                         # from the app's wire observer

    ObservedAuth(app, screen, describe).observe(event)  # attached to a proxy: its flow, followed

The authorizer lives as long as the app: tokens survive reconnects. ``TuiInteraction`` is
how a flow reaches the person: it shows the authorization URL in the Auth view and waits
for the loopback redirect or a pasted URL; in step-by-step mode it waits before each request.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import anyio
from textual.widgets import TabbedContent, TabPane

from inspector.auth.errors import AuthError
from inspector.auth.person import AuthorizationRequest, parse_redirect
from inspector.tui.widgets.auth_view import AuthView
from inspector.wire.events import Channel, WireEvent

if TYPE_CHECKING:
    from textual.app import App

    from inspector.record.redact import Redactor
    from inspector.target import Target
    from inspector.tui.screens.main import MainScreen

TAB_ID = "tab-auth"


class TuiInteraction:
    """A flow's person, in the Auth view."""

    can_prompt = True

    def __init__(self, view: AuthView, step_mode: bool = False) -> None:
        self.view = view
        self.step_mode = step_mode
        self._request: AuthorizationRequest | None = None
        self._answer: dict[str, str] | None = None
        self._done: anyio.Event | None = None
        self._cancelled = False
        self._next: anyio.Event | None = None

    @property
    def waiting(self) -> bool:
        """A flow waits on the person: for the browser's redirect (or a pasted URL), or
        in step-by-step mode for the next step."""
        paused = self._next is not None and not self._next.is_set()
        return self._request is not None or paused

    async def obtain_redirect(self, request: AuthorizationRequest) -> dict[str, str]:
        self._request, self._answer, self._cancelled = request, None, False
        done = self._done = anyio.Event()
        self.view.post_message(AuthView.Waiting(request.url, request.redirect_uri))
        try:
            async with anyio.create_task_group() as tg:

                async def from_listener() -> None:
                    self._answer = await request.listener()
                    done.set()

                async def until_done() -> None:
                    await done.wait()
                    tg.cancel_scope.cancel()

                tg.start_soon(from_listener)
                tg.start_soon(until_done)
        finally:
            self._request = None
            self.view.post_message(AuthView.Ended())
        if self._cancelled or self._answer is None:
            raise AuthError("authorization", "cancelled in the Auth view")
        return self._answer

    def paste(self, text: str) -> str | None:
        """A pasted redirect URL; the problem with it, or None when it was taken."""
        if self._request is None or self._done is None:
            return "no authorization is waiting for a redirect"
        try:
            self._answer = parse_redirect(text, self._request.state)
        except AuthError as exc:
            return exc.message
        self._done.set()
        return None

    def cancel(self) -> None:
        if self._done is not None and not self._done.is_set():
            self._cancelled = True
            self._done.set()

    async def pause(self, step: str, method: str, url: str) -> None:
        self._next = anyio.Event()
        self.view.post_message(AuthView.Paused(step, method, url))
        try:
            await self._next.wait()
        finally:
            self.view.post_message(AuthView.Resumed())

    def proceed(self) -> None:
        if self._next is not None:
            self._next.set()


class AuthUi:
    """The Auth tab and the authorizer behind it, for one HTTP target."""

    def __init__(self, app: App[Any], target: Target, authorizer_factory: Any) -> None:
        assert target.url is not None and target.oauth is not None
        self.app = app
        self.view = AuthView(target.url, id="auth")
        self.interaction = TuiInteraction(self.view, step_mode=target.oauth.step)
        self.authorizer = authorizer_factory(self.interaction)
        self.view.bind(self.interaction, self.authorizer)
        self.mounted = False  # its tab (a workspace's server: once its screen is composed)
        self.deferred = False  # a person is asked only once the server is chosen
        self.held = False  # a flow was not started for that: it "needs authorization"

    @classmethod
    def for_target(
        cls, app: App[Any], target: Target | None, redactor: Redactor | None = None
    ) -> AuthUi | None:
        """``redactor``: told every token the flow learns (the session file's and the
        toasts' redaction)."""
        if target is None or target.url is None or target.oauth is None:
            return None
        from dataclasses import replace

        from inspector.auth.errors import StoreError
        from inspector.auth.options import make_authorizer

        url, settings = target.url, target.oauth

        def factory(interaction: TuiInteraction) -> Any:
            try:
                return make_authorizer(url, target.headers, settings, interaction)
            except StoreError as exc:  # tokens in memory only, and say why
                app.notify(f"{exc}; OAuth tokens are kept in memory only", severity="error")
                return make_authorizer(
                    url, target.headers, replace(settings, store=False), interaction
                )

        ui = cls(app, target, factory)
        if ui.authorizer is None:
            return None
        if redactor is not None:
            ui.authorizer.add_secret_sink(redactor.add_secret)
        return ui

    def mount(self, tabs: TabbedContent) -> Any:
        self.mounted = True
        return tabs.add_pane(TabPane("Auth", self.view, id=TAB_ID))

    def defer(self) -> None:
        """No browser, no Auth tab brought forward until ``allow``: a flow that needs a
        person is not started (a workspace's server the user has not chosen yet)."""
        self.deferred = True
        if self.authorizer is not None:
            self.authorizer.hold = self._hold

    def allow(self) -> None:
        """The person chose this server: its next flow starts."""
        self.deferred = self.held = False

    def _hold(self) -> str | None:
        if not self.deferred:
            return None
        self.held = True
        return "needs authorization: not started until this server is chosen (W, Enter; or A)"

    def observe(self, event: WireEvent) -> None:
        """Every wire event passes here; the ``auth`` channel's go to the view."""
        if event.channel is Channel.AUTH:
            self.app.call_later(self._show, event)

    def _show(self, event: WireEvent) -> None:
        self.view.add_event(event)


class ObservedAuth:
    """An attached inspector's Auth tab: the proxy's own OAuth flow (its person is the
    host's log, or whoever opens the URL), followed from the events it passes on. The tab
    opens with the first such event; its URL can be opened from here, and the browser's
    redirect reaches the proxy's loopback listener on this machine."""

    def __init__(self, app: App[Any], screen: MainScreen, describe: Callable[[], str]) -> None:
        self.app = app
        self.screen = screen
        self.describe = describe
        self.view: AuthView | None = None

    def observe(self, event: WireEvent) -> None:
        if event.channel is Channel.AUTH:
            self.app.call_later(self._show, event)

    def _show(self, event: WireEvent) -> None:
        if self.view is None:
            self.view = AuthView(self.describe(), id="auth", observing=True)
            self.screen.bottom_tabs.add_pane(TabPane("Auth", self.view, id=TAB_ID))
        self.view.add_event(event)  # kept until the view is mounted
