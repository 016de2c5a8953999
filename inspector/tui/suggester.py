"""Server completions as you type: a Textual ``Suggester`` over the headless ``Completer``.

    completer = Completer(client, prompt_ref("greeting"))
    Input(suggester=CompletionSuggester(completer, "name", context=lambda: form_values()))

The input shows the first server value that extends what is typed, in dim text after
the cursor (right arrow accepts it); ``last`` and ``on_values`` carry the whole answer
(the list under the field, `CompletionMenu`, shows it). Debouncing and caching live in
the ``Completer``: a keystroke superseded by a newer one asks nothing. ``context``
returns the other arguments' current values (sent as ``context.arguments``).
"""

from __future__ import annotations

from collections.abc import Callable

from textual.suggester import Suggester

from inspector.engine.completion import Completer, Completion
from inspector.safe_text import visible

ContextSource = Callable[[], dict[str, str]]


class CompletionSuggester(Suggester):
    """Suggests completions for one prompt argument or template variable."""

    def __init__(
        self,
        completer: Completer,
        argument: str,
        *,
        context: ContextSource | None = None,
        on_values: Callable[[Completion], None] | None = None,
    ) -> None:
        # No Textual cache: the answer depends on the context, the Completer caches per context.
        super().__init__(use_cache=False, case_sensitive=True)
        self.completer = completer
        self.argument = argument
        self.context = context
        self.on_values = on_values
        self.last: Completion | None = None

    async def get_suggestion(self, value: str) -> str | None:
        context = self.context() if self.context is not None else None
        found = await self.completer.complete(self.argument, value, context)
        if found is None:  # superseded by a newer keystroke
            return None
        self.last = found
        if self.on_values is not None:
            self.on_values(found)
        suggestion = found.first_with_prefix(value)
        if suggestion is not None and visible(suggestion) != suggestion:
            # the box would draw control characters as they are: the list under the
            # field offers this value (shown safely, taken exactly)
            return None
        return suggestion
