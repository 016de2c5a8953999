"""Lint issues as SARIF 2.1.0, the format GitHub code scanning uploads.

The driver's rules come from the catalogue (id, title, why, fix as help); each result
names its rule, its level (SARIF's ``note`` for info) and where: ``artifact`` (the
session file or config file linted, when there is one: code scanning pins results to a
file of the repository) and a logical location naming the tool, prompt or frame.
"""

from __future__ import annotations

import hashlib
from typing import Any

from inspector import __version__
from inspector.lint.check import Issue
from inspector.lint.rules import RULES, WARNING

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
SARIF_LEVELS = {"error": "error", "warning": "warning", "info": "note"}


def sarif(issues: list[Issue], artifact: str) -> dict[str, Any]:
    """A SARIF log with one run of ``mcp-inspect lint``."""
    index = {rule.id: n for n, rule in enumerate(RULES)}
    rules = [
        {
            "id": rule.id,
            "name": "".join(part.capitalize() for part in rule.id.split("-")),
            "shortDescription": {"text": rule.title},
            "fullDescription": {"text": rule.why},
            "help": {
                "text": f"{rule.why}\nFix: {rule.fix}",
                "markdown": f"{rule.why}\n\n**Fix:** {rule.fix}",
            },
            "defaultConfiguration": {"level": SARIF_LEVELS.get(rule.level, WARNING)},
            "properties": {"tags": ["mcp"]},
        }
        for rule in RULES
    ]
    results = [
        {
            "ruleId": issue.rule,
            "ruleIndex": index[issue.rule],
            "level": SARIF_LEVELS[issue.level],
            "message": {"text": f"{issue.item}: {issue.message}"},
            "locations": [
                {
                    "physicalLocation": {
                        "artifactLocation": {"uri": artifact},
                        "region": {"startLine": 1},
                    },
                    "logicalLocations": [{"fullyQualifiedName": issue.item, "kind": "member"}],
                }
            ],
            "partialFingerprints": {"mcpInspectIssue/v1": _fingerprint(issue)},
        }
        for issue in issues
    ]
    return {
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "mcp-inspect",
                        "version": __version__,
                        "rules": rules,
                    }
                },
                "results": results,
            }
        ],
    }


def _fingerprint(issue: Issue) -> str:
    """Stable across runs: the same rule on the same item is the same alert."""
    return hashlib.sha256(f"{issue.rule}\0{issue.item}\0{issue.message}".encode()).hexdigest()[:32]
