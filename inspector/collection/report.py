"""What a run of collections produced, as JUnit XML (one testsuite per file, one testcase
per step, as Jenkins, GitLab and GitHub's test reporters read it) and as JSON."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from inspector.collection.run import ERROR, FAILED, PASSED, SKIPPED, StepResult

# characters XML 1.0 cannot hold (a server's text may have them): written as \xNN
_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def xml_text(text: str) -> str:
    """``text`` with what XML 1.0 cannot hold made visible (``\x1b``)."""
    return _NOT_XML.sub(lambda m: f"\\x{ord(m.group(0)):02x}", text)


@dataclass
class FileReport:
    """One collection file's run; ``error``: it could not run at all (connection...)."""

    path: Path
    results: list[StepResult] = field(default_factory=list)
    error: str | None = None
    code: int = 0  # the command line's exit code for ``error``
    seconds: float = 0.0

    def count(self, status: str) -> int:
        return sum(1 for r in self.results if r.status == status)

    @property
    def ok(self) -> bool:
        return self.error is None and all(r.status in (PASSED, SKIPPED) for r in self.results)

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "file": str(self.path),
            "passed": self.count(PASSED),
            "failed": self.count(FAILED),
            "errors": self.count(ERROR) + (1 if self.error else 0),
            "skipped": self.count(SKIPPED),
            "seconds": round(self.seconds, 3),
            "steps": [r.to_json() for r in self.results],
        }
        if self.error is not None:
            data["error"] = self.error
        return data


def json_report(files: list[FileReport]) -> dict[str, Any]:
    """The machine report: every file and step, and the totals."""
    totals = {status: sum(f.count(status) for f in files) for status in (PASSED, FAILED, SKIPPED)}
    totals["errors"] = sum(f.count(ERROR) + (1 if f.error else 0) for f in files)
    return {"ok": all(f.ok for f in files), "totals": totals, "files": [f.to_json() for f in files]}


def junit_xml(files: list[FileReport]) -> str:
    """JUnit XML: ``<testsuites>``, a ``<testsuite>`` per file, a ``<testcase>`` per step
    whose ``<failure message=...>`` names the expectation, the expected and the actual."""
    root = ET.Element("testsuites", name="mcp-inspect test")
    total = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    for report in files:
        suite = ET.SubElement(root, "testsuite", name=str(report.path), file=str(report.path))
        counts = {
            "tests": len(report.results) + (1 if report.error else 0),
            "failures": report.count(FAILED),
            "errors": report.count(ERROR) + (1 if report.error else 0),
            "skipped": report.count(SKIPPED),
        }
        for key, value in counts.items():
            suite.set(key, str(value))
            total[key] += value
        suite.set("time", f"{report.seconds:.3f}")
        if report.error is not None:
            case = ET.SubElement(suite, "testcase", name="connect", classname=_classname(report))
            said = xml_text(report.error)
            error = ET.SubElement(case, "error", message=said, type="connection")
            error.text = said
        for result in report.results:
            _testcase(suite, report, result)
    for key, value in total.items():
        root.set(key, str(value))
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def _classname(report: FileReport) -> str:
    return report.path.name


def _testcase(suite: ET.Element, report: FileReport, result: StepResult) -> None:
    case = ET.SubElement(
        suite,
        "testcase",
        name=xml_text(result.step.title),
        classname=_classname(report),
        file=str(report.path),
        line=str(result.step.line),
        time=f"{result.seconds:.3f}",
    )
    if result.status == FAILED:
        first = result.failures[0]
        failure = ET.SubElement(
            case, "failure", message=xml_text(first.message), type=xml_text(first.expectation)
        )
        failure.text = xml_text("\n\n".join(_detail(f) for f in result.failures))
    elif result.status == ERROR:
        said = xml_text(result.reason)
        error = ET.SubElement(case, "error", message=said, type="connection")
        error.text = said
    elif result.status == SKIPPED:
        ET.SubElement(case, "skipped", message=xml_text(result.reason))


def _detail(failure: Any) -> str:
    lines = [failure.message]
    if failure.expected is not None:
        lines.append(f"expected: {json.dumps(failure.expected, ensure_ascii=False, indent=2)}")
    if failure.actual is not None:
        lines.append(f"actual: {json.dumps(failure.actual, ensure_ascii=False, indent=2)}")
    return "\n".join(lines)
