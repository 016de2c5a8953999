"""The nodes that hold other nodes (object with its map rows, array, union) and
`build_node`, which picks the node class for a sub-schema.

`build_node` lives here, next to the containers, because the two recurse into each
other: a container builds its children with `build_node`, and `build_node` builds
containers. Keeping them in one module avoids an import cycle (and a function-local
import) altogether; the leaf nodes they build come from `inspector.forms.nodes`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from inspector.forms.nodes import (
    MISSING,
    BoolNode,
    ConstNode,
    EnumNode,
    FieldNode,
    FormContext,
    MultiEnumNode,
    NullNode,
    Path,
    ScalarNode,
    Segment,
)
from inspector.forms.resolve import Kind, Variant, as_schema, shape_of
from inspector.forms.validate import is_valid


@dataclass(eq=False)
class MapRow:
    """One key/value row of an `additionalProperties` map."""

    key: str
    node: FieldNode


class ObjectNode(FieldNode):
    """Fixed properties, plus key/value rows when extra properties are allowed.

    A node reached again through a `$ref` already followed above it (a recursive
    schema) starts collapsed: its properties are built only by `expand()`.
    """

    def __init__(self, *args: Any, lazy: bool = False, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields: dict[str, FieldNode] = {}
        self.rows: list[MapRow] = []
        self.present = False
        self.expanded = False
        self.lazy = lazy  # recursive: shown as "+ add" until the user asks for it
        extra = self.effective.get("additionalProperties", True)
        props = self.effective.get("properties")
        self.extra_schema: Any = extra if extra is not True else {}
        pattern = self.effective.get("patternProperties")
        # Offer free rows where the schema is a map: a value schema, or no fixed properties.
        self.allows_extra = extra is not False and (
            isinstance(extra, dict) or not props or bool(pattern)
        )
        if not lazy:
            self.expand()

    def expand(self) -> None:
        """Build the property nodes (once)."""
        if self.expanded:
            return
        self.expanded = True
        props = self.effective.get("properties") or {}
        required = self.effective.get("required") or []
        for name, sub in props.items():
            if isinstance(name, str):
                self.fields[name] = build_node(
                    self.ctx, sub, name, self, name in required, self.refs
                )

    def collapse(self) -> None:
        """Undo `expand` of a recursive node (the user removed it)."""
        self.fields = {}
        self.rows = []
        self.expanded = False
        self.present = False

    def add_row(self, key: str = "", value: Any = MISSING) -> MapRow:
        schema = self._row_schema(key)
        row = MapRow(key, build_node(self.ctx, schema, key, self, True, self.refs))
        row.node.key = None  # a row's segment is its key, kept on the row
        _open(row.node)
        self.rows.append(row)
        if value is not MISSING:
            row.node.set_value(value)
        self._mark_present()
        return row

    def _row_schema(self, key: str) -> Any:
        import re

        for pattern, sub in (self.effective.get("patternProperties") or {}).items():
            try:
                if re.search(pattern, key):
                    return sub
            except re.error:
                continue
        return self.extra_schema if isinstance(self.extra_schema, dict) else {}

    def remove_row(self, index: int) -> None:
        del self.rows[index]
        self.touch()

    def set_row_key(self, index: int, key: str) -> None:
        self.rows[index].key = key
        self.touch()

    def _mark_present(self) -> None:
        self.present = True

    def _segment_of(self, child: FieldNode) -> Segment | None:
        for row in self.rows:
            if row.node is child:
                return row.key
        return child.key

    def children(self) -> list[FieldNode]:
        return [*self.fields.values(), *(row.node for row in self.rows)]

    def child_at(self, segment: Segment) -> FieldNode | None:
        if isinstance(segment, str) and segment in self.fields:
            return self.fields[segment]
        for row in reversed(self.rows):  # the last duplicate key wins, as in the JSON
            if row.key == segment:
                return row.node
        return None

    def clear(self) -> None:
        for child in self.fields.values():
            child.set_value(MISSING)
        self.rows = []
        self.present = False

    def _raw(self) -> Any:
        if not self.expanded or not (self.present or self.required):
            # An optional object nobody filled in (defaults inside do not count) is left out.
            return MISSING
        result: dict[str, Any] = {}
        for name, child in self.fields.items():
            value = child.value()
            if value is not MISSING:
                result[name] = value
        for row in self.rows:
            if row.key == "" and row.node.value() is MISSING:
                continue  # a blank row the user has not filled yet
            value = row.node.value()
            result[row.key] = None if value is MISSING else value
        return result

    def _load(self, value: Any) -> bool:
        if not isinstance(value, dict):
            return False
        self.expand()
        self.rows = []
        for name, child in self.fields.items():
            child.set_value(value.get(name, MISSING))
        for key, item in value.items():
            if key not in self.fields:
                self.add_row(key, item)
        self.present = True
        return True


class ArrayNode(FieldNode):
    """A list of item fields: add, remove, move. `prefixItems` give the first items' schemas."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.items: list[FieldNode] = []
        self.present = False

    @property
    def prefix(self) -> list[Any]:
        prefix = self.effective.get("prefixItems")
        if isinstance(prefix, list):
            return prefix
        items = self.effective.get("items")  # draft-04..2019-09 tuple form
        return items if isinstance(items, list) else []

    def item_schema(self, index: int) -> Any:
        prefix = self.prefix
        if index < len(prefix):
            return prefix[index]
        if isinstance(self.effective.get("prefixItems"), list) or isinstance(
            self.effective.get("items"), list
        ):
            rest = self.effective.get(
                "items" if "prefixItems" in self.effective else "additionalItems", True
            )
        else:
            rest = self.effective.get("items", True)
        return rest

    @property
    def can_add(self) -> bool:
        """False when the schema forbids more items (`items: false` after a tuple, maxItems)."""
        limit = self.effective.get("maxItems")
        if isinstance(limit, int) and len(self.items) >= limit:
            return False
        return self.item_schema(len(self.items)) is not False

    def add(self, value: Any = MISSING) -> FieldNode:
        """Append an item (built from its schema, pre-filled with its default)."""
        node = build_node(
            self.ctx, self.item_schema(len(self.items)), len(self.items), self, True, self.refs
        )
        self.items.append(node)
        _open(node)
        if value is not MISSING:
            node.set_value(value)
        self.touch()
        return node

    def remove(self, index: int) -> None:
        del self.items[index]
        self.touch()

    def move(self, index: int, delta: int) -> int:
        """Move an item up (-1) or down (+1); returns its new index."""
        target = max(0, min(len(self.items) - 1, index + delta))
        if target != index:
            self.items.insert(target, self.items.pop(index))
            self.touch()
        return target

    def _mark_present(self) -> None:
        self.present = True

    def _segment_of(self, child: FieldNode) -> Segment | None:
        for i, item in enumerate(self.items):
            if item is child:
                return i
        return None

    def children(self) -> list[FieldNode]:
        return list(self.items)

    def child_at(self, segment: Segment) -> FieldNode | None:
        if isinstance(segment, int) and 0 <= segment < len(self.items):
            return self.items[segment]
        return None

    def clear(self) -> None:
        self.items = []
        self.present = False

    def _raw(self) -> Any:
        if not self.items and not self.present and not self.required:
            return MISSING
        tuple_len = len(self.prefix)
        out: list[Any] = []
        for i, item in enumerate(self.items):
            value = item.value()
            if value is MISSING:
                if i >= tuple_len:
                    continue  # an empty row the user added but did not fill
                value = None  # keep tuple positions
            out.append(value)
        return out

    def _load(self, value: Any) -> bool:
        if not isinstance(value, list):
            return False
        self.items = []
        for item in value:
            node = build_node(
                self.ctx, self.item_schema(len(self.items)), len(self.items), self, True, self.refs
            )
            node.set_value(item)
            self.items.append(node)
        self.present = True
        return True


class UnionNode(FieldNode):
    """`oneOf`/`anyOf` (or several types): pick a variant, then fill its fields."""

    def __init__(self, *args: Any, variants: list[Variant], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.variants = variants
        self.selected = 0
        self._built: dict[int, FieldNode] = {}
        # an optional union nobody touched is left out, like an optional object: its
        # first variant is only what the form shows, not what the user chose
        self.present = False

    @property
    def current(self) -> FieldNode:
        """The selected variant's node (built on first use; input kept per variant)."""
        node = self._built.get(self.selected)
        if node is None:
            node = build_node(
                self.ctx, self.variants[self.selected].schema, None, self, True, self.refs
            )
            self._built[self.selected] = node
        return node

    def select(self, index: int) -> FieldNode:
        self.selected = index
        self.touch()
        _open(self.current)
        return self.current

    def variant_for(self, value: Any) -> int | None:
        """The first variant the value is valid against, else the first whose type fits."""
        for i, variant in enumerate(self.variants):
            if is_valid(self.ctx.validator, variant.schema, value):
                return i
        for i, variant in enumerate(self.variants):
            shape = shape_of(self.ctx.root, variant.schema, self.refs)
            if _fits(shape.kind, value):
                return i
        return None

    def children(self) -> list[FieldNode]:
        return [self.current]

    def child_at(self, segment: Segment) -> FieldNode | None:
        return self.current.child_at(segment)

    def find(self, path: Path) -> FieldNode:
        return self.current.find(path) if path else self

    def _mark_present(self) -> None:
        self.present = True

    def clear(self) -> None:
        for node in self._built.values():
            node.set_value(MISSING)
        self.present = False

    def _raw(self) -> Any:
        if not (self.present or self.required):
            return MISSING
        return self.current.value()

    def _load(self, value: Any) -> bool:
        index = self.variant_for(value)
        if index is None:
            return False
        self.selected = index
        self.current.set_value(value)
        self.present = True
        return True


def _open(node: FieldNode) -> None:
    """What the user adds explicitly is built at once, even if recursive."""
    if isinstance(node, ObjectNode):
        node.expand()


def _fits(kind: Kind, value: Any) -> bool:
    checks: dict[Kind, Any] = {
        Kind.STRING: lambda v: isinstance(v, str),
        Kind.INTEGER: lambda v: isinstance(v, int) and not isinstance(v, bool),
        Kind.NUMBER: lambda v: isinstance(v, int | float) and not isinstance(v, bool),
        Kind.BOOLEAN: lambda v: isinstance(v, bool),
        Kind.OBJECT: lambda v: isinstance(v, dict),
        Kind.ARRAY: lambda v: isinstance(v, list),
        Kind.MULTI_ENUM: lambda v: isinstance(v, list),
        Kind.NULL: lambda v: v is None,
        Kind.ANY: lambda v: True,
    }
    check = checks.get(kind)
    return bool(check(value)) if check else False


_CLASSES: dict[Kind, type[FieldNode]] = {
    Kind.STRING: ScalarNode,
    Kind.NUMBER: ScalarNode,
    Kind.INTEGER: ScalarNode,
    Kind.ANY: ScalarNode,
    Kind.BOOLEAN: BoolNode,
    Kind.CONST: ConstNode,
    Kind.NULL: NullNode,
    Kind.ARRAY: ArrayNode,
}


def build_node(
    ctx: FormContext,
    schema: Any,
    key: Segment | None,
    parent: FieldNode | None,
    required: bool,
    refs: tuple[str, ...],
) -> FieldNode:
    """Build the node for `schema`, pre-filled with its default."""
    shape = shape_of(ctx.root, as_schema(schema), refs)
    args = (ctx, schema, shape, key, parent, required)
    node: FieldNode
    if shape.kind is Kind.OBJECT:
        # Recursive: a reference followed here was already followed by an ancestor.
        new_refs = shape.refs[len(refs) :]
        lazy = any(ref in refs for ref in new_refs) and parent is not None
        node = ObjectNode(*args, lazy=lazy)
    elif shape.kind is Kind.ENUM:
        node = EnumNode(*args, options=shape.options)
    elif shape.kind is Kind.MULTI_ENUM:
        node = MultiEnumNode(*args, options=shape.options)
    elif shape.kind is Kind.UNION:
        node = UnionNode(*args, variants=shape.variants)
    else:
        node = _CLASSES[shape.kind](*args)
    if node.has_default:
        node.set_value(node.default)
    return node
