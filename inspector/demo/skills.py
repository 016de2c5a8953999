"""Demo skills (the Skills extension, SEP-2640): two skills, their entries and files.

Each skill is a directory of files; its entry lists every file with the SHA-256 digest
and byte size of exactly what ``resources/read`` returns, and its ``frontmatter`` is the
``SKILL.md`` frontmatter as JSON (one source: the frontmatter text is made from it).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from inspector.wire.jsonrpc import INVALID_PARAMS, RpcError

EXTENSION = "io.modelcontextprotocol/skills"


@dataclass(frozen=True)
class DemoSkill:
    path: str  # the <skill-path>: its last segment is the name
    frontmatter: dict[str, str]
    body: str
    files: dict[str, str]  # supporting files: path in the skill -> text

    @property
    def uri(self) -> str:
        return f"skill://{self.path}/SKILL.md"

    def skill_md(self) -> str:
        head = "".join(f"{key}: {value}\n" for key, value in self.frontmatter.items())
        return f"---\n{head}---\n\n{self.body}"

    def contents(self) -> dict[str, str]:
        """Every file: URI -> text, SKILL.md first."""
        out = {self.uri: self.skill_md()}
        out.update({f"skill://{self.path}/{name}": text for name, text in self.files.items()})
        return out

    def entry(self) -> dict[str, Any]:
        import hashlib  # start-up: OpenSSL loads when a skill is listed, not with the server

        resources = []
        for uri, text in self.contents().items():
            data = text.encode("utf-8")
            digest = "sha256:" + hashlib.sha256(data).hexdigest()
            resources.append({"uri": uri, "digest": digest, "size": len(data)})
        return {"uri": self.uri, "frontmatter": dict(self.frontmatter), "resources": resources}


SKILLS: tuple[DemoSkill, ...] = (
    DemoSkill(
        "git-workflow",
        {
            "name": "git-workflow",
            "description": "Follow the demo team's Git conventions for branches and commits",
            "license": "MIT",
        },
        "# Git workflow\n\nBranch from main as `topic/<what>`; write commit messages as "
        "described in [references/COMMITS.md](references/COMMITS.md).\n",
        {
            "references/COMMITS.md": "# Commit messages\n\nOne line that says what and why, "
            "under 72 characters; details after a blank line.\n",
        },
    ),
    DemoSkill(
        "demo/report-writing",
        {
            "name": "report-writing",
            "description": "Write a short status report from the demo server's data",
        },
        "# Report writing\n\nCall the generate_report tool, then fill in "
        "[templates/report.md](templates/report.md).\n",
        {
            "templates/report.md": "# Status report\n\n## Done\n\n## Next\n\n## Risks\n",
            "scripts/count.py": "import sys\n\nprint(len(sys.stdin.read().split()))\n",
        },
    ),
)
BY_URI = {skill.uri: skill for skill in SKILLS}
FILES = {uri: text for skill in SKILLS for uri, text in skill.contents().items()}


def list_skills() -> dict[str, Any]:
    return {"skills": [skill.entry() for skill in SKILLS]}


def get_skill(uri: Any) -> dict[str, Any]:
    """``skills/get``: an unknown URI is -32602, as the extension requires."""
    skill = BY_URI.get(uri) if isinstance(uri, str) else None
    if skill is None:
        raise RpcError(INVALID_PARAMS, f"Invalid params: no skill at {uri!r}", {"uri": uri})
    return {"skill": skill.entry()}


def read(uri: str) -> dict[str, Any] | None:
    """A skill file's ``resources/read`` result; ``None`` when ``uri`` is none of them."""
    text = FILES.get(uri)
    if text is None:
        return None
    mime = "text/markdown" if uri.endswith(".md") else "text/x-python"
    return {"contents": [{"uri": uri, "mimeType": mime, "text": text}]}
