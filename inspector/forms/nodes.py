"""The form's field tree: one node per input, holding what the user typed.

`node.value()` turns the input into JSON (MISSING when an optional field is left
empty); `node.set_value(json)` loads JSON back. Nodes keep the original sub-schema
untouched (`schema`) and a merged view for building (`effective`).

This module holds the base (`FieldNode`, `MISSING`, `FormContext`) and the leaf
nodes (scalar, bool, enum, const, null); the nodes that hold other nodes (object,
array, union) and `build_node` are in `inspector.forms.containers`.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from inspector.forms.coerce import coerce_text, same_json
from inspector.forms.formats import FORMAT_EXAMPLES
from inspector.forms.resolve import Kind, Schema, Shape, label_of
from inspector.forms.validate import make_validator

Segment = str | int
Path = tuple[Segment, ...]

_HINT_KEYS = (
    "format",
    "minLength",
    "maxLength",
    "pattern",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minItems",
    "maxItems",
    "uniqueItems",
    "minProperties",
    "maxProperties",
    "examples",
    "contentMediaType",
)


class _Missing:
    """Marks a value the user left out (the key is omitted from the arguments)."""

    _instance: _Missing | None = None

    def __new__(cls) -> _Missing:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "MISSING"

    def __bool__(self) -> bool:
        return False


MISSING: Any = _Missing()


class FormContext:
    """What every node of one form shares: the root schema and a validator for unions."""

    def __init__(self, root: Schema) -> None:
        self.root = root
        try:
            self.validator: Any = make_validator(root)
            self.validator._resolver  # noqa: B018 - bind the root resolver before evolve()
        except Exception:
            self.validator = None


class FieldNode:
    """Base of all nodes. Subclasses implement `_raw`, `_load` and `clear`."""

    def __init__(
        self,
        ctx: FormContext,
        schema: Any,
        shape: Shape,
        key: Segment | None,
        parent: FieldNode | None,
        required: bool,
    ) -> None:
        self.ctx = ctx
        self.schema: Any = schema  # as written in the original schema, never modified
        self.effective: Schema = shape.schema
        self.kind: Kind = shape.kind
        self.refs = shape.refs
        self.unresolved = shape.unresolved
        self.key = key
        self.parent = parent
        self.required = required
        self.nullable = shape.nullable
        self.is_null = False
        self._foreign: Any = MISSING  # a loaded value this node cannot show as such

    # --- description -------------------------------------------------------------------
    @property
    def title(self) -> str | None:
        title = self.effective.get("title")
        return str(title) if title is not None else None

    @property
    def label(self) -> str:
        """Display name: the property name (or key, or `item N`), falling back to the title."""
        key = self.parent._segment_of(self) if self.parent is not None else self.key
        if isinstance(key, str) and key:
            return key
        if isinstance(key, int):
            return f"item {key + 1}"
        return self.title or ""

    @property
    def description(self) -> str | None:
        desc = self.effective.get("description")
        return str(desc) if desc is not None else None

    @property
    def has_default(self) -> bool:
        return "default" in self.effective

    @property
    def default(self) -> Any:
        return self.effective.get("default", MISSING)

    @property
    def format(self) -> str | None:
        fmt = self.effective.get("format")
        return str(fmt) if fmt is not None else None

    @property
    def hints(self) -> dict[str, Any]:
        """Constraint keywords kept for display (min/max, pattern, format...)."""
        return {k: self.effective[k] for k in _HINT_KEYS if k in self.effective}

    @property
    def type_text(self) -> str:
        """What to type, for placeholders: `integer`, `string (email)`, `JSON`..."""
        base = {
            Kind.ANY: "JSON",
            Kind.MULTI_ENUM: "choices",
            Kind.UNION: "one of",
            Kind.ENUM: "choice",
        }.get(self.kind, self.kind.value)
        parts = [f"{base} ({self.format})" if self.format else base]
        hints = self.hints
        for word, sign in (
            ("minimum", "≥"),
            ("exclusiveMinimum", ">"),
            ("maximum", "≤"),
            ("exclusiveMaximum", "<"),
        ):
            if word in hints and not isinstance(hints[word], bool):
                parts.append(f"{sign} {hints[word]}")
        if "minLength" in hints or "maxLength" in hints:
            parts.append(f"length {hints.get('minLength', 0)}..{hints.get('maxLength', '')}")
        if "pattern" in hints:
            parts.append(f"/{hints['pattern']}/")
        return " ".join(str(p) for p in parts)

    @property
    def placeholder(self) -> str:
        """`type_text` plus an example (the schema's `examples`, or one for the format)."""
        examples = self.effective.get("examples")
        if isinstance(examples, list) and examples:
            return f"{self.type_text}  e.g. {label_of(examples[0])}"
        if self.format in FORMAT_EXAMPLES:
            return f"{self.type_text}  {FORMAT_EXAMPLES[self.format]}"
        return self.type_text

    # --- tree --------------------------------------------------------------------------
    @property
    def path(self) -> Path:
        """Where this node's value sits in the arguments (unions add no segment)."""
        if self.parent is None:
            return ()
        segment = self.parent._segment_of(self)
        return self.parent.path if segment is None else (*self.parent.path, segment)

    def _segment_of(self, child: FieldNode) -> Segment | None:
        return child.key

    def children(self) -> list[FieldNode]:
        """Direct child nodes currently built (in display order)."""
        return []

    def child_at(self, segment: Segment) -> FieldNode | None:
        """The child whose value sits under `segment`, if built."""
        return None

    def find(self, path: Path) -> FieldNode:
        """The deepest built node along `path` (for showing a validation issue)."""
        node: FieldNode = self
        for segment in path:
            child = node.child_at(segment)
            if child is None:
                break
            node = child
        return node

    def walk(self) -> Iterator[FieldNode]:
        """This node and all built descendants, depth first."""
        yield self
        for child in self.children():
            yield from child.walk()

    # --- values ------------------------------------------------------------------------
    def value(self) -> Any:
        """The JSON for this field, or MISSING when it is optional and left empty."""
        if self._foreign is not MISSING:
            return self._foreign
        if self.nullable and self.is_null:
            return None
        result = self._raw()
        if result is MISSING and self.parent is None:
            return {} if self.kind is Kind.OBJECT else None
        return result

    def set_value(self, value: Any) -> None:
        """Load JSON (e.g. last arguments, or the raw editor's text) into the field."""
        self._foreign = MISSING
        if value is MISSING:
            self.is_null = False
            self.clear()
            return
        if value is None and self.nullable:
            self.is_null = True
            return
        self.is_null = False
        if not self._load(value):
            # Keep what we cannot represent, so nothing typed is lost on a round trip.
            self.clear()
            self._foreign = value

    def set_null(self, flag: bool) -> None:
        """The user's null toggle (a choice made: the field is given, null or not)."""
        self.is_null = flag
        self.touch()

    def touch(self) -> None:
        """The user edited this field: forget a loaded foreign value (here and above)."""
        node: FieldNode | None = self
        while node is not None:
            node._foreign = MISSING
            node._mark_present()
            node = node.parent

    def _mark_present(self) -> None:
        pass

    def clear(self) -> None:
        """Empty the field (no default)."""

    def reset(self) -> None:
        """Back to the schema's default, or empty."""
        self._foreign = MISSING
        self.is_null = False
        if self.has_default:
            self.set_value(self.default)
        else:
            self.clear()

    @property
    def foreign(self) -> Any:
        """A loaded value the field could not represent (shown as JSON), or MISSING."""
        return self._foreign

    def _raw(self) -> Any:
        raise NotImplementedError

    def _load(self, value: Any) -> bool:
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.kind.value} {self.path!r}>"


class ScalarNode(FieldNode):
    """string, number, integer and untyped (JSON text) fields: one line of text."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.text = ""
        self._loaded: tuple[str, Any] | None = None  # exact value behind unchanged text
        # the user typed here, or a value (a default, the last arguments) was loaded: an
        # empty text is then meant; never given, a required one is only a blank form
        self.given = False

    def set_text(self, text: str) -> None:
        if text != self.text:
            self.text = text
            self.given = True
            self.touch()

    def mask_text(self, shown: str) -> None:
        """Show `shown` in place of the text (e.g. control characters escaped) while the
        exact value is still what `value()` returns until the user edits it."""
        if shown != self.text:
            exact = self._raw()
            self.text = shown
            self._loaded = (shown, exact)

    def clear(self) -> None:
        self.text = ""
        self._loaded = None
        self.given = False

    def _raw(self) -> Any:
        if self._loaded is not None and self._loaded[0] == self.text:
            return self._loaded[1]
        if self.text == "":
            return "" if self.kind is Kind.STRING and self.required else MISSING
        return coerce_text(self.kind.value, self.text)

    def _load(self, value: Any) -> bool:
        if self.kind is Kind.STRING and isinstance(value, str):
            self.text = value
        elif (
            self.kind in (Kind.NUMBER, Kind.INTEGER)
            and isinstance(value, int | float)
            and (not isinstance(value, bool))
        ):
            self.text = json.dumps(value)
        elif self.kind is Kind.ANY:
            self.text = _any_text(value)
        else:
            return False
        self._loaded = (self.text, value)
        self.given = True
        return True


def _any_text(value: Any) -> str:
    """Text for a JSON-or-bare-string field: strings stay bare unless they would parse."""
    if isinstance(value, str):
        try:
            json.loads(value)
        except ValueError:
            return value
    return json.dumps(value, ensure_ascii=False)


class BoolNode(FieldNode):
    """A boolean: None until the user (or a default) sets it."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.state: bool | None = None

    def set_state(self, state: bool) -> None:
        self.state = state
        self.touch()

    def clear(self) -> None:
        self.state = None

    def _raw(self) -> Any:
        if self.state is None:
            return False if self.required else MISSING
        return self.state

    def _load(self, value: Any) -> bool:
        if isinstance(value, bool):
            self.state = value
            return True
        return False


class EnumNode(FieldNode):
    """A choice among fixed values (`enum`, or `oneOf` of `const` with titles)."""

    def __init__(self, *args: Any, options: list[tuple[str, Any]], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.options = options
        self.selected: int | None = None

    def select(self, index: int | None) -> None:
        self.selected = index
        self.touch()

    def clear(self) -> None:
        self.selected = None

    def index_of(self, value: Any) -> int | None:
        for i, (_, option) in enumerate(self.options):
            if same_json(option, value):
                return i
        return None

    def _raw(self) -> Any:
        return MISSING if self.selected is None else self.options[self.selected][1]

    def _load(self, value: Any) -> bool:
        self.selected = self.index_of(value)
        return self.selected is not None


class MultiEnumNode(EnumNode):
    """An array of enum values: pick several (order of picking kept)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.chosen: list[int] = []
        self.present = False

    def set_chosen(self, indexes: list[int]) -> None:
        self.chosen = list(dict.fromkeys(indexes))
        self.touch()

    def _mark_present(self) -> None:
        self.present = True

    def clear(self) -> None:
        self.chosen = []
        self.present = False

    def _raw(self) -> Any:
        if not self.chosen and not self.present and not self.required:
            return MISSING
        return [self.options[i][1] for i in self.chosen]

    def _load(self, value: Any) -> bool:
        if not isinstance(value, list):
            return False
        indexes = [self.index_of(v) for v in value]
        if any(i is None for i in indexes) or len(set(indexes)) != len(indexes):
            return False
        self.chosen = [i for i in indexes if i is not None]
        self.present = True
        return True


class ConstNode(FieldNode):
    """A fixed value (`const`): always sent, nothing to type."""

    def clear(self) -> None:
        pass

    def _raw(self) -> Any:
        return self.effective["const"]

    def _load(self, value: Any) -> bool:
        return same_json(value, self.effective["const"])


class NullNode(FieldNode):
    """`type: null`: the only value is null."""

    def clear(self) -> None:
        pass

    def _raw(self) -> Any:
        return None if self.required else MISSING

    def _load(self, value: Any) -> bool:
        return value is None
