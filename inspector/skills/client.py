"""Skills over a session: list, get, load, read a file, each when the user asks.

Nothing is fetched ahead of need (SEP-2640): listing reads no file, getting an entry
reads no file, loading reads the ``SKILL.md``, and a supporting file is read when asked
for. Every read is checked against the entry the skill was loaded from; a mismatch is
an error finding on the response's wire event and :class:`SkillVerificationError`, so
the content is never used.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass
from typing import Any

from inspector.engine.client import McpClient
from inspector.errors import InspectorError
from inspector.skills.entry import (
    EXTENSION,
    SkillEntry,
    content_bytes,
    parse_entry,
    verify,
)
from inspector.wire.events import Finding

MAX_PAGES = 100  # a server that keeps handing out cursors is not followed forever


class SkillVerificationError(InspectorError):
    """A skill file did not match its entry: it must not be used."""

    def __init__(self, uri: str, problems: list[str]) -> None:
        super().__init__(f"skill file {uri} failed verification: " + "; ".join(problems))
        self.uri = uri
        self.problems = problems


class SkillNotFoundError(InspectorError):
    """No entry for the URI: neither ``skills/get`` nor the listing knows it."""


@dataclass
class SkillFileContent:
    """A verified file: its bytes, and how the server typed them."""

    uri: str
    data: bytes
    mime_type: str | None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"uri": self.uri, "size": len(self.data)}
        if self.mime_type:
            out["mimeType"] = self.mime_type
        try:
            out["text"] = self.data.decode("utf-8")
        except UnicodeDecodeError:
            out["blob"] = base64.b64encode(self.data).decode("ascii")
        return out


class _Check:
    """The response check for one read: verification problems become the event's finding."""

    def __init__(self, entry: SkillEntry, uri: str) -> None:
        self.entry = entry
        self.uri = uri
        self.problems: list[str] = []

    def __call__(self, message: dict[str, Any]) -> list[Finding]:
        if "result" not in message:
            return []
        self.problems = verify(self.entry, self.uri, content_bytes(message["result"], self.uri))
        return [Finding("skill-verification", p, "error") for p in self.problems]


class SkillsClient:
    """The Skills extension on one session (through its :class:`McpClient`)."""

    def __init__(self, client: McpClient) -> None:
        self.client = client
        self.entries: dict[str, SkillEntry] = {}  # the last listing, by SKILL.md uri

    @property
    def declared(self) -> bool:
        """Whether the server declared the extension in its capabilities."""
        extensions = self.client.session.server_capabilities.get("extensions")
        return isinstance(extensions, dict) and EXTENSION in extensions

    async def list(self) -> list[SkillEntry]:
        """Every page of ``skills/list``; no file is read."""
        entries: list[SkillEntry] = []
        cursor: str | None = None
        seen: set[str] = set()
        for _ in range(MAX_PAGES):
            result = await self.client.session.request(
                "skills/list", {"cursor": cursor} if cursor else {}
            )
            skills = result.get("skills") if isinstance(result, dict) else None
            for item in skills if isinstance(skills, list) else []:
                entry = parse_entry(item)
                if entry is not None:
                    entries.append(entry)
            cursor = result.get("nextCursor") if isinstance(result, dict) else None
            if not isinstance(cursor, str) or not cursor or cursor in seen:
                break
            seen.add(cursor)
        self.entries = {e.uri: e for e in entries}
        return entries

    async def get(self, uri: str) -> SkillEntry:
        """The entry for ``uri``: ``skills/get``, or the listing when that has no entry."""
        session = self.client.session

        def entry_check(message: dict[str, Any]) -> list[Finding]:
            result = message.get("result")
            if (
                "result" in message
                and parse_entry(result.get("skill") if isinstance(result, dict) else None) is None
            ):
                return [Finding("skill-entry", "skills/get answered without a skill entry")]
            return []

        result = await session.request("skills/get", {"uri": uri}, check=entry_check)
        entry = parse_entry(result.get("skill") if isinstance(result, dict) else None)
        if entry is not None and entry.uri == uri:
            return entry
        if uri not in self.entries:
            await self.list()
        if uri in self.entries:
            session.note(f"skills/get gave no entry for {uri}: using the skills/list entry")
            return self.entries[uri]
        raise SkillNotFoundError(f"no skill entry for {uri} (skills/get and skills/list)")

    async def read(self, entry: SkillEntry, uri: str) -> SkillFileContent:
        """Read one file of ``entry`` and verify it; raises ``SkillVerificationError``."""
        check = _Check(entry, uri)
        result = await self.client.session.request("resources/read", {"uri": uri}, check=check)
        problems = check.problems or verify(entry, uri, content_bytes(result, uri))
        if problems:
            raise SkillVerificationError(uri, problems)
        data = content_bytes(result, uri) or b""
        return SkillFileContent(uri, data, _mime_type(result, uri))

    async def load(self, entry: SkillEntry) -> SkillFileContent:
        """Load the skill: its ``SKILL.md``, verified (digest, size, frontmatter)."""
        return await self.read(entry, entry.uri)


def _mime_type(result: Any, uri: str) -> str | None:
    contents = result.get("contents") if isinstance(result, dict) else None
    for item in contents if isinstance(contents, list) else []:
        if isinstance(item, dict) and item.get("uri") == uri:
            mime = item.get("mimeType")
            return mime if isinstance(mime, str) else None
    return None
