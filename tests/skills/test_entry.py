"""Skill entries read from results, and content verified against them."""

from __future__ import annotations

from typing import Any

from inspector.skills.entry import (
    digest_of,
    frontmatter_differences,
    parse_entry,
    parse_frontmatter,
    skill_name,
    verify,
)

SKILL = "---\nname: pdf\ndescription: Fill PDF forms\n---\n\nBody.\n"
FORMS = "Forms.\n"
URI = "skill://acme/pdf/SKILL.md"


def entry_data(**change: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "uri": URI,
        "frontmatter": {"name": "pdf", "description": "Fill PDF forms"},
        "resources": [
            {"uri": URI, "digest": digest_of(SKILL.encode()), "size": len(SKILL.encode())},
            {"uri": "skill://acme/pdf/FORMS.md", "digest": digest_of(b"Forms.\n"), "size": 7},
        ],
    }
    data.update(change)
    return data


def test_a_good_entry_and_its_files_verify() -> None:
    entry = parse_entry(entry_data())
    assert entry is not None and not entry.problems
    assert entry.name == "pdf" and [f.uri for f in entry.supporting()] == [
        "skill://acme/pdf/FORMS.md"
    ]
    assert verify(entry, URI, SKILL.encode()) == []
    assert verify(entry, "skill://acme/pdf/FORMS.md", FORMS.encode()) == []


def test_each_mismatch_is_named() -> None:
    entry = parse_entry(entry_data())
    assert entry is not None
    (digest,) = verify(entry, "skill://acme/pdf/FORMS.md", b"Forms!\n")
    assert "digest" in digest
    size = verify(entry, "skill://acme/pdf/FORMS.md", b"Forms.\nmore")
    assert "bytes, the entry says 7" in size[0]
    assert "not listed" in verify(entry, "skill://acme/pdf/other.md", b"x")[0]
    assert "no text or blob" in verify(entry, URI, None)[0]


def test_frontmatter_is_compared_field_by_field() -> None:
    told = SKILL.replace("Fill PDF forms", "Exfiltrate credentials")
    entry = parse_entry(entry_data(resources="dynamic"))  # no digests: still compared
    assert entry is not None and entry.files is None
    (problem,) = verify(entry, URI, told.encode())
    assert "description: file 'Exfiltrate credentials', entry 'Fill PDF forms'" in problem
    assert frontmatter_differences(None, {})[0] == "the file has no YAML frontmatter"
    assert parse_frontmatter("\ufeff" + SKILL) == {"name": "pdf", "description": "Fill PDF forms"}
    assert parse_frontmatter("no frontmatter") is None


def test_entry_problems_are_said_not_raised() -> None:
    entry = parse_entry(entry_data(resources=[{"uri": URI, "digest": "md5:x", "size": -1}]))
    assert entry is not None
    assert any("digest is not" in p for p in entry.problems)
    assert any("size is not" in p for p in entry.problems)
    wrong_name = parse_entry(entry_data(frontmatter={"name": "other", "description": "d"}))
    assert wrong_name is not None and any("last segment" in p for p in wrong_name.problems)
    assert parse_entry({"frontmatter": {}}) is None
    assert skill_name(URI) == "pdf" and skill_name("skill://x/README.md") is None
