"""What ``mcp-inspect test`` prints: one line per step (plain, or under a Rich progress bar
on a terminal), a closing count, and GitHub Actions ``::error`` annotations.

A server's text is data: control characters are made visible (and Rich markup escaped)
before it reaches the terminal.
"""

from __future__ import annotations

import sys
from typing import Protocol, TextIO

from inspector.collection.model import Collection
from inspector.collection.report import FileReport
from inspector.collection.run import ERROR, FAILED, PASSED, SKIPPED, StepResult
from inspector.safe_text import escape_markup, one_line, visible

WORDS = {PASSED: "PASS", FAILED: "FAIL", SKIPPED: "SKIP", ERROR: "ERROR"}
STYLES = {PASSED: "green", FAILED: "bold red", SKIPPED: "yellow", ERROR: "bold red"}
SHOWN = 300  # characters of a failure on its line


class Printer(Protocol):
    def start_file(self, collection: Collection) -> None: ...

    def step(self, result: StepResult) -> None: ...

    def file_error(self, report: FileReport) -> None: ...

    def finish(self, reports: list[FileReport]) -> None: ...


def step_text(result: StepResult) -> str:
    """The step's line after its status word: name, time or what failed (visible text)."""
    title = one_line(result.step.title, 80)
    if result.status == PASSED:
        latency = result.outcome.latency_ms if result.outcome is not None else 0.0
        return f"{title} ({latency:.0f} ms)"
    if result.status == FAILED:
        said = "; ".join(f.message for f in result.failures)
        return f"{title}, line {result.line}: {one_line(said, SHOWN)}"
    return f"{title}: {one_line(result.reason, SHOWN)}"


def summary(reports: list[FileReport]) -> str:
    """``3 passed, 1 failed, 1 skipped in 0.8 s`` (and the files that could not run)."""
    counts = {s: sum(r.count(s) for r in reports) for s in (PASSED, FAILED, SKIPPED, ERROR)}
    parts = [f"{counts[PASSED]} passed", f"{counts[FAILED]} failed"]
    if counts[SKIPPED]:
        parts.append(f"{counts[SKIPPED]} skipped")
    errors = counts[ERROR] + sum(1 for r in reports if r.error)
    if errors:
        parts.append(f"{errors} error{'s' if errors != 1 else ''}")
    seconds = sum(r.seconds for r in reports)
    return f"{', '.join(parts)} in {seconds:.2f} s"


class PlainPrinter:
    """Plain lines (a pipe, a CI log): ``  PASS  call add (2 ms)``."""

    def __init__(self, out: TextIO) -> None:
        self.out = out

    def start_file(self, collection: Collection) -> None:
        self.out.write(f"{one_line(str(collection.path), 300)}\n")
        self.out.flush()

    def step(self, result: StepResult) -> None:
        self.out.write(f"  {WORDS[result.status]:5} {step_text(result)}\n")
        self.out.flush()

    def file_error(self, report: FileReport) -> None:
        self.out.write(f"  ERROR cannot run this file: {one_line(report.error or '', SHOWN)}\n")

    def finish(self, reports: list[FileReport]) -> None:
        self.out.write(summary(reports) + "\n")
        self.out.flush()


class RichPrinter:
    """On a terminal: the same lines, coloured, above a progress bar over every step."""

    def __init__(self, total: int) -> None:
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

        self.console = Console(highlight=False)  # server text is shown as it is
        self.progress = Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            console=self.console,
            transient=True,
        )
        self.task = self.progress.add_task("steps", total=total)
        self.progress.start()

    def start_file(self, collection: Collection) -> None:
        self.console.print(escape_markup(str(collection.path)), style="bold")
        self.progress.update(self.task, description=escape_markup(collection.path.name, limit=40))

    def step(self, result: StepResult) -> None:
        word = WORDS[result.status]
        style = STYLES[result.status]
        self.console.print(f"  [{style}]{word:5}[/] {escape_markup(step_text(result))}")
        self.progress.advance(self.task)

    def file_error(self, report: FileReport) -> None:
        said = escape_markup(report.error or "", limit=SHOWN)
        self.console.print(f"  [bold red]ERROR[/] cannot run this file: {said}")

    def finish(self, reports: list[FileReport]) -> None:
        self.progress.stop()
        ok = all(r.ok for r in reports)
        self.console.print(summary(reports), style="green" if ok else "bold red")


def make_printer(json_report: bool, total: int) -> Printer:
    """Rich on a terminal; plain lines otherwise (on stderr with ``--json``: stdout is
    the report's)."""
    if json_report:
        return PlainPrinter(sys.stderr)
    if sys.stdout.isatty():
        return RichPrinter(total)
    return PlainPrinter(sys.stdout)


def _escape(text: str, *, prop: bool = False) -> str:
    """GitHub's workflow-command escaping (properties escape ``:`` and ``,`` too)."""
    text = text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    return text.replace(":", "%3A").replace(",", "%2C") if prop else text


def github_annotations(reports: list[FileReport]) -> str:
    """An ``::error file=...,line=...::`` line per failed step (and per file that could not
    run), for GitHub Actions to pin on the collection's lines."""
    lines = []
    for report in reports:
        where = _escape(str(report.path), prop=True)
        if report.error is not None:
            lines.append(f"::error file={where},line=1::{_escape(report.error)}")
        for result in report.results:
            if result.status not in (FAILED, ERROR):
                continue
            said = "; ".join(f.message for f in result.failures) or result.reason
            title = _escape(result.step.title, prop=True)
            lines.append(
                f"::error file={where},line={result.line},title={title}::{_escape(visible(said))}"
            )
    return "".join(line + "\n" for line in lines)
