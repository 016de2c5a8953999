"""The catalog's kinds, defined once: what lists them, what names an item, who offers them.

Everything that walks the catalog (the client's paging, the list follower's diffs, a
recording's rebuilt catalog, the TUI's tabs) reads these rows instead of its own table.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class CatalogKind:
    """One kind of catalog item (``tools``, ``resources``, ``resource_templates``...)."""

    name: str  # how the inspector names the kind
    label: str  # the kind as a tab shows it
    method: str  # the paged ``*/list`` request
    key: str  # the result's list of items
    identity: str  # what names an item (a server may repeat one)
    capability: str  # the server capability that offers it (and its list_changed)
    verb: str  # what a user does with an item (tools/call, resources/read, prompts/get)

    @property
    def list_changed(self) -> str:
        """The notification that says this kind's list changed."""
        return f"notifications/{self.capability}/list_changed"


CATALOG_KINDS: tuple[CatalogKind, ...] = (
    CatalogKind("tools", "Tools", "tools/list", "tools", "name", "tools", "Call"),
    CatalogKind(
        "resources", "Resources", "resources/list", "resources", "uri", "resources", "Read"
    ),
    CatalogKind(
        "resource_templates",
        "Templates",
        "resources/templates/list",
        "resourceTemplates",
        "uriTemplate",
        "resources",
        "Read",
    ),
    CatalogKind("prompts", "Prompts", "prompts/list", "prompts", "name", "prompts", "Get"),
)
KIND = {kind.name: kind for kind in CATALOG_KINDS}
BY_LIST_METHOD = {kind.method: kind for kind in CATALOG_KINDS}


def changed_by(notification: str) -> tuple[str, ...]:
    """The kinds a ``notifications/*/list_changed`` makes stale (resources: two)."""
    return tuple(kind.name for kind in CATALOG_KINDS if kind.list_changed == notification)


# every list_changed notification, in catalog order, once
LIST_CHANGED: tuple[str, ...] = tuple(dict.fromkeys(k.list_changed for k in CATALOG_KINDS))
