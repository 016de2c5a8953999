"""A tool result checked against the tool's ``outputSchema`` (the TUI's result view and
``--cli`` both ask here).

As the spec says and the official SDK client checks: a tool that declares an
``outputSchema`` must return ``structuredContent`` that conforms to it, unless the
result is a tool error (``isError: true``), which is not checked.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from inspector.forms.fastcheck import surely_conforms
from inspector.forms.validate import ValidationIssue, validate


class OutputStatus(StrEnum):
    NOT_CHECKED = "not-checked"  # no outputSchema, an isError result, or not a result
    MATCHES = "matches"
    MISSING = "missing"  # outputSchema declared, no structuredContent
    MISMATCH = "mismatch"


@dataclass(frozen=True)
class OutputCheck:
    status: OutputStatus
    issues: list[ValidationIssue] = field(default_factory=list)

    @property
    def failed(self) -> bool:
        return self.status in (OutputStatus.MISSING, OutputStatus.MISMATCH)

    def describe(self) -> str:
        """One line: what is wrong (empty when nothing is)."""
        if self.status is OutputStatus.MISSING:
            return "the tool declares an outputSchema but the result has no structuredContent"
        if self.status is not OutputStatus.MISMATCH:
            return ""
        return "structuredContent does not match the outputSchema: " + "; ".join(
            f"{issue_path(issue)}: {issue.message}" for issue in self.issues
        )


def issue_path(issue: ValidationIssue) -> str:
    """``a/b/0``, or ``(root)``."""
    return "/".join(str(p) for p in issue.path) or "(root)"


def check_output(output_schema: Any, result: Any) -> OutputCheck:
    """Check a ``tools/call`` result against the tool's ``outputSchema`` (None: none)."""
    if not output_schema or not isinstance(result, dict) or result.get("isError"):
        return OutputCheck(OutputStatus.NOT_CHECKED)
    if "structuredContent" not in result:
        return OutputCheck(OutputStatus.MISSING)
    structured = result["structuredContent"]
    if surely_conforms(output_schema, structured):  # a big result in milliseconds
        return OutputCheck(OutputStatus.MATCHES)
    issues = validate(output_schema, structured)
    return OutputCheck(OutputStatus.MISMATCH if issues else OutputStatus.MATCHES, issues)
