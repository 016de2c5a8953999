"""Where the user types, typed keys are text, never shortcuts.

The app's shortcuts are plain keys (``q`` quits, ``l`` resizes the log, ``1`` shows the
tools). In a text field Textual keeps them out already: the ``Input`` says it consumes
printable keys (``check_consume_key``), so the bindings above it are left out of the
binding chain. A checkbox, a select, a button or a group header does not, and typing a
word with one of those focused fired the shortcuts letter by letter ("quick" quit the
app). A widget with ``TypingScope`` says the same for everything inside it, so a whole
form (and its buttons) behaves like one text field: keys that type a character reach
its own controls, never the shortcuts of its containers, the app's included. Keys
that cannot be typed (ctrl+s, ctrl+j, Esc, Tab, ctrl+q) are untouched. Dialogs need
nothing: a modal screen already ends the binding chain before the app.
"""

from __future__ import annotations


def types_text(character: str | None) -> bool:
    """Does a key with this character type text (letters, digits, signs, space)?"""
    return character is not None and character.isprintable()


class TypingScope:
    """Mixin for a widget: printable keys inside it never reach the bindings above it."""

    def check_consume_key(self, key: str, character: str | None) -> bool:
        return types_text(character)
