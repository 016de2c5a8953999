"""Skill entries as ``skills/list`` and ``skills/get`` give them, and verifying content.

Pure functions, no I/O: an entry read from a result (what is wrong with it said, never
raised), a file's bytes checked against the entry's size and digest, a ``SKILL.md``'s
YAML frontmatter compared field by field with the entry's ``frontmatter``.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import re
from dataclasses import dataclass, field
from typing import Any

EXTENSION = "io.modelcontextprotocol/skills"
SKILL_FILE = "SKILL.md"
DYNAMIC = "dynamic"  # resources of a generated skill: no digests to verify against
DIGEST = re.compile(r"^sha256:[0-9a-f]{64}$")
# the leading --- block (a BOM allowed), as the Agent Skills format writes it
FRONTMATTER = re.compile(r"^---\r?\n(.*?)\r?\n---[ \t]*(?:\r?\n|$)", re.DOTALL)


@dataclass(frozen=True)
class SkillFile:
    """One file of a skill as its entry lists it."""

    uri: str
    digest: str | None
    size: int | None


@dataclass
class SkillEntry:
    """One skill: its ``SKILL.md`` URI, frontmatter, and files (``None``: dynamic)."""

    uri: str
    frontmatter: dict[str, Any]
    files: list[SkillFile] | None
    raw: dict[str, Any] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)  # what the entry itself gets wrong

    @property
    def name(self) -> str:
        value = self.frontmatter.get("name")
        return value if isinstance(value, str) else skill_name(self.uri) or self.uri

    @property
    def description(self) -> str:
        value = self.frontmatter.get("description")
        return value if isinstance(value, str) else ""

    def file(self, uri: str) -> SkillFile | None:
        return next((f for f in self.files or [] if f.uri == uri), None)

    def supporting(self) -> list[SkillFile]:
        """The files other than ``SKILL.md``, in the entry's order."""
        return [f for f in self.files or [] if f.uri != self.uri]


def skill_name(uri: str) -> str | None:
    """The skill name a ``…/<name>/SKILL.md`` URI carries (its last path segment)."""
    head, sep, rest = uri.partition("://")
    parts = [p for p in (rest if sep else head).split("/") if p]
    if len(parts) < 2 or parts[-1] != SKILL_FILE:
        return None
    return parts[-2]


def parse_entry(data: Any) -> SkillEntry | None:
    """An entry from a result's ``skills[i]`` or ``skill``; ``None`` when it has no uri."""
    if not isinstance(data, dict) or not isinstance(data.get("uri"), str):
        return None
    problems: list[str] = []
    uri = data["uri"]
    frontmatter = data.get("frontmatter")
    if not isinstance(frontmatter, dict):
        problems.append("frontmatter is missing or not an object")
        frontmatter = {}
    name = frontmatter.get("name")
    if skill_name(uri) is None:
        problems.append(f"uri does not end in /{SKILL_FILE}")
    elif isinstance(name, str) and skill_name(uri) != name:
        problems.append(f"the uri's last segment is not frontmatter.name {name!r}")
    files: list[SkillFile] | None = None
    resources = data.get("resources")
    if resources == DYNAMIC:
        files = None
    elif isinstance(resources, list):
        files = []
        for item in resources:
            if not isinstance(item, dict) or not isinstance(item.get("uri"), str):
                problems.append("a resources entry has no uri")
                continue
            digest = item.get("digest")
            size = item.get("size")
            if not (isinstance(digest, str) and DIGEST.match(digest)):
                problems.append(f"{item['uri']}: digest is not sha256:<64 lowercase hex>")
                digest = None
            if not (isinstance(size, int) and not isinstance(size, bool) and size >= 0):
                problems.append(f"{item['uri']}: size is not a non-negative integer")
                size = None
            files.append(SkillFile(item["uri"], digest, size))
        if not any(f.uri == uri for f in files):
            problems.append(f"resources does not list the {SKILL_FILE} itself")
    else:
        problems.append(f'resources is neither a list nor "{DYNAMIC}"')
    return SkillEntry(uri, frontmatter, files, raw=data, problems=problems)


def digest_of(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


def content_bytes(result: Any, uri: str) -> bytes | None:
    """The bytes of ``uri`` in a ``resources/read`` result (text as UTF-8, blob decoded)."""
    contents = result.get("contents") if isinstance(result, dict) else None
    if not isinstance(contents, list):
        return None
    items = [c for c in contents if isinstance(c, dict)]
    item = next((c for c in items if c.get("uri") == uri), items[0] if items else None)
    if item is None:
        return None
    if isinstance(item.get("text"), str):
        return str(item["text"]).encode("utf-8")
    if isinstance(item.get("blob"), str):
        try:
            return base64.b64decode(item["blob"], validate=True)
        except (binascii.Error, ValueError):
            return None
    return None


def parse_frontmatter(text: str) -> dict[str, Any] | None:
    """A ``SKILL.md``'s YAML frontmatter as a mapping; ``None`` when there is none."""
    match = FRONTMATTER.match(text.removeprefix("\ufeff"))
    if match is None:
        return None
    import yaml  # start-up: loaded when a skill is read, not with the error tree

    try:
        data = yaml.safe_load(match.group(1))
    except yaml.YAMLError:
        return None
    return data if isinstance(data, dict) else None


def frontmatter_differences(found: dict[str, Any] | None, entry: dict[str, Any]) -> list[str]:
    """Each field where a ``SKILL.md``'s frontmatter and its entry's disagree."""
    if found is None:
        return ["the file has no YAML frontmatter"]
    return [
        f"{key}: file {found.get(key)!r}, entry {entry.get(key)!r}"
        for key in sorted(set(found) | set(entry), key=str)
        if _plain(found.get(key)) != _plain(entry.get(key))
    ]


def _plain(value: Any) -> Any:
    """YAML values as JSON would carry them (a date read from YAML is its ISO text)."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if hasattr(value, "isoformat"):
        return value.isoformat()
    return value


def verify(entry: SkillEntry, uri: str, data: bytes | None) -> list[str]:
    """What is wrong with ``data`` read for ``uri`` of ``entry``: empty when it may be used.

    An unlisted file is a failure like a digest mismatch (the entry is complete); the
    size is checked before the digest; a ``SKILL.md`` is also compared by frontmatter."""
    if data is None:
        return [f"{uri}: the read returned no text or blob content"]
    problems: list[str] = []
    if entry.files is not None:
        listed = entry.file(uri)
        if listed is None:
            return [f"{uri} is not listed in the skill's resources"]
        if listed.size is not None and len(data) != listed.size:
            problems.append(f"{uri}: {len(data)} bytes, the entry says {listed.size}")
        actual = digest_of(data)
        if listed.digest is None:
            problems.append(f"{uri}: the entry has no valid digest to verify against")
        elif actual != listed.digest:
            problems.append(f"{uri}: digest {actual}, the entry says {listed.digest}")
    if uri == entry.uri:
        text = data.decode("utf-8", "replace")
        differences = frontmatter_differences(parse_frontmatter(text), entry.frontmatter)
        if differences:
            problems.append(f"{uri}: frontmatter differs from the entry: " + "; ".join(differences))
    return problems
