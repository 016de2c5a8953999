"""The person at a terminal (``--cli``): the authorization URL on stderr, the redirect back
on the loopback listener, or pasted on stdin (``--auth-paste``, for a browser on another
machine). The browser is never opened from here: the URL is printed to be opened anywhere."""

from __future__ import annotations

import sys
from typing import TextIO

import anyio

from inspector.auth.errors import AuthError
from inspector.auth.person import AuthorizationRequest, NoSteps, parse_redirect


class TerminalInteraction(NoSteps):
    """Prompts on ``err`` (stderr); reads a pasted URL from ``inp`` (stdin) when ``paste``."""

    def __init__(
        self, *, paste: bool = False, err: TextIO | None = None, inp: TextIO | None = None
    ):
        self.paste = paste
        self.err = err or sys.stderr
        self.inp = inp or sys.stdin

    @property
    def can_prompt(self) -> bool:
        return self.paste or self.err.isatty()

    async def obtain_redirect(self, request: AuthorizationRequest) -> dict[str, str]:
        self.err.write(
            "mcp-inspect: authorization needed. Open this URL in a browser:\n\n"
            f"  {request.url}\n\n"
            f"mcp-inspect: waiting up to {request.timeout:g} s for the redirect to "
            f"{request.redirect_uri}"
            + (
                "; or paste here the URL the browser was sent to (from its address bar), "
                "then Enter:\n"
                if self.paste
                else "\n"
            )
        )
        self.err.flush()
        result: dict[str, str] = {}
        async with anyio.create_task_group() as tg:

            async def from_listener() -> None:
                result.update(await request.listener())
                tg.cancel_scope.cancel()

            async def from_paste() -> None:
                while True:
                    line = await anyio.to_thread.run_sync(self.inp.readline, abandon_on_cancel=True)
                    if not line:  # stdin closed: only the listener can answer now
                        return
                    if not line.strip():
                        continue
                    try:
                        result.update(parse_redirect(line, request.state))
                    except AuthError as exc:
                        self.err.write(f"mcp-inspect: {exc.message}; paste the whole URL again:\n")
                        self.err.flush()
                        continue
                    tg.cancel_scope.cancel()
                    return

            tg.start_soon(from_listener)
            if self.paste:
                tg.start_soon(from_paste)
        self.err.write("mcp-inspect: redirect received\n")
        self.err.flush()
        return result


class LogInteraction(TerminalInteraction):
    """The person behind a proxy: its stdin and stdout are the host's, so the URL goes to
    stderr (the host's log of the server, or the terminal that started the proxy) and the
    redirect comes back on the loopback listener only. It can always prompt: someone may
    read that log, and the flow's timeout ends the wait when nobody does."""

    def __init__(self, *, err: TextIO | None = None) -> None:
        super().__init__(paste=False, err=err)

    @property
    def can_prompt(self) -> bool:
        return True
