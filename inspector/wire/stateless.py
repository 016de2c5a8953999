"""What every 2026-07-28 result carries, for the servers mcp-inspect plays (the demo,
``replay --serve``): ``resultType``, and ``ttlMs``/``cacheScope`` where a client may cache
the result (SEP-2549); and which param of a request its ``Mcp-Name`` header carries."""

from __future__ import annotations

from typing import Any

# method -> the param its Mcp-Name routing header carries (the HTTP client sends it, the
# proxy's front checks it, load runs send it): here, so none of them needs another's code
NAME_PARAMS = {"tools/call": "name", "prompts/get": "name", "resources/read": "uri"}

CACHEABLE = frozenset(
    {
        "server/discover",
        "tools/list",
        "prompts/list",
        "resources/list",
        "resources/templates/list",
        "resources/read",
        "skills/list",
        "skills/get",
    }
)


def complete_result(method: str, result: Any) -> Any:
    """``result`` with the fields 2026-07-28 requires of an answer to ``method`` (a
    private result, fresh for no time: nothing is promised that the server did not say)."""
    if not isinstance(result, dict):
        return result
    out = {"resultType": "complete", **result}
    if method in CACHEABLE:
        out.setdefault("ttlMs", 0)
        out.setdefault("cacheScope", "private")
    return out
