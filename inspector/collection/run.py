"""Play a collection's steps, in order, on one connected engine client.

Each step: its ``${var}`` filled in, its verb sent, its answers current while it runs,
its outcome judged (:mod:`expect`, :mod:`snapshot`), its ``save`` paths read. What is
shown of a failure has the ``${env:...}`` values taken out (the recorder's
:class:`~inspector.record.redact.Redactor`, always on here). A lost connection ends the
file: the steps after it are skipped, and ``lost`` says why.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from inspector.collection.answers import KEYS, StepAnswers
from inspector.collection.expect import Failure, Outcome, check, output_schema
from inspector.collection.interpolate import MissingVariable, from_vars, substitute
from inspector.collection.model import LIST_KINDS, Answers, Collection, Step
from inspector.collection.paths import find
from inspector.collection.snapshot import Snapshots
from inspector.engine.client import McpClient
from inspector.engine.kinds import KIND
from inspector.engine.session import ConnectionClosedError, RequestTimeoutError
from inspector.record.redact import Redactor
from inspector.wire.jsonrpc import RpcError

PASSED, FAILED, SKIPPED, ERROR = "passed", "failed", "skipped", "error"


@dataclass
class StepResult:
    """How one step went: ``passed``, ``failed``, ``skipped`` or ``error`` (not judged:
    the connection was lost)."""

    step: Step
    status: str
    failures: list[Failure] = field(default_factory=list)
    outcome: Outcome | None = None
    seconds: float = 0.0
    reason: str = ""  # why it was skipped, or the error

    @property
    def line(self) -> int:
        """The line of the first failed expectation, else the step's."""
        if self.failures:
            first = self.failures[0].expectation.split(" ")[0].split(".")[0]
            return self.step.expect_lines.get(first, self.step.line)
        return self.step.line

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "name": self.step.title,
            "verb": self.step.verb,
            "line": self.step.line,
            "status": self.status,
            "seconds": round(self.seconds, 4),
            "failures": [f.to_json() for f in self.failures],
        }
        if self.outcome is not None:
            data["latencyMs"] = round(self.outcome.latency_ms, 2)
        if self.reason:
            data["reason"] = self.reason
        return data


def ignore_progress(progress: float, total: float | None, message: str | None) -> None:
    """Asking for progress resets the request's timeout while the server reports it."""


class Runner:
    """The steps of ``collection`` on ``client``; ``answers`` is the session's responders'."""

    def __init__(
        self,
        collection: Collection,
        client: McpClient,
        answers: StepAnswers,
        *,
        update: bool = False,
        redactor: Redactor | None = None,
    ) -> None:
        self.collection = collection
        self.client = client
        self.answers = answers
        self.snapshots = Snapshots(collection, update=update)
        self.redactor = redactor or Redactor()
        for secret in collection.secrets:
            self.redactor.add_secret(secret)
        self.values: dict[str, Any] = dict(collection.vars)
        self.results: list[StepResult] = []
        self.lost: ConnectionClosedError | None = None
        self._tools: dict[str, dict[str, Any]] | None = None

    async def run(
        self, *, fail_fast: bool = False, on_result: Callable[[StepResult], None] | None = None
    ) -> list[StepResult]:
        """Every step, in order (after a failure too, unless ``fail_fast``)."""
        for step in self.collection.steps:
            result = await self.result_of(step.index, stop_after_failure=fail_fast)
            if on_result is not None:
                on_result(result)
        self.snapshots.save()
        return self.results

    async def result_of(self, index: int, *, stop_after_failure: bool = False) -> StepResult:
        """Step ``index``'s result, running it (and any earlier step not run yet) first."""
        while len(self.results) <= index:
            step = self.collection.steps[len(self.results)]
            reason = self._stopped(stop_after_failure)
            if reason:
                self.results.append(StepResult(step, SKIPPED, reason=reason))
            else:
                self.results.append(await self.run_step(step))
        return self.results[index]

    def _stopped(self, after_failure: bool) -> str:
        if self.lost is not None:
            return f"not run: the connection was lost ({self._clean(self.lost.message)})"
        if after_failure and any(r.status in (FAILED, ERROR) for r in self.results):
            first = next(r for r in self.results if r.status in (FAILED, ERROR))
            return f"not run: --fail-fast, steps[{first.step.index}] {first.step.title} failed"
        return ""

    async def run_step(self, step: Step) -> StepResult:
        """Send one step, judge it, save what it names."""
        started = time.perf_counter()
        try:
            filled = self._fill(step)
        except MissingVariable as exc:
            return StepResult(
                step,
                FAILED,
                [
                    Failure(
                        "save",
                        f"${{{exc.args[0]}}} has no value: the step that saves it did not find it",
                    )
                ],
            )
        self.answers.start(filled["answers"])
        outcome = Outcome()
        try:
            sent = time.perf_counter()
            outcome.result = await self._send(step, filled)
        except ConnectionClosedError as exc:
            self.lost = exc
            return StepResult(
                step, ERROR, reason=self._clean(exc.message), seconds=time.perf_counter() - started
            )
        except RequestTimeoutError as exc:
            failure = Failure("timeout", f"timeout: {exc.message}")
            return StepResult(step, FAILED, [failure], seconds=time.perf_counter() - started)
        except RpcError as exc:
            outcome.error = {"code": exc.code, "message": exc.message}
            if exc.data is not None:
                outcome.error["data"] = exc.data
        outcome.latency_ms = (time.perf_counter() - sent) * 1000
        expect = filled["expect"]
        failures = check(expect, outcome, step.verb)
        if step.verb == "call" and outcome.error is None:
            failures += output_schema(await self._tool(filled["target"]), outcome.result)
        if expect.get("snapshot"):
            failures += self.snapshots.check(step, outcome)
        failures += self._save(step, outcome)
        for method in dict.fromkeys(self.answers.unanswered):
            failures.append(
                Failure(
                    "answers",
                    f"answers: the server sent {method} during this "
                    f"step, which has no answers.{KEYS[method]} (it was refused)",
                )
            )
        failures = [self._clean_failure(f) for f in failures]
        # judged: the result itself is let go (a file of a thousand big results would
        # otherwise hold them all); the session file keeps every byte of it
        outcome.result = None
        return StepResult(
            step, FAILED if failures else PASSED, failures, outcome, time.perf_counter() - started
        )

    def _fill(self, step: Step) -> dict[str, Any]:
        lookup = from_vars(self.values)
        return {
            "target": substitute(step.target, lookup),
            "arguments": substitute(step.arguments, lookup),
            "expect": substitute(step.expect, lookup),
            "answers": Answers(
                elicit=substitute(step.answers.elicit, lookup),
                sample=substitute(step.answers.sample, lookup),
                roots=step.answers.roots,
            ),
        }

    async def _send(self, step: Step, filled: dict[str, Any]) -> Any:
        target, arguments = filled["target"], filled["arguments"]
        client = self.client
        if step.verb == "call":
            return await client.call_tool(target, arguments, on_progress=ignore_progress)
        if step.verb == "read":
            return await client.read_resource(target, on_progress=ignore_progress)
        if step.verb == "prompt":
            texts = {k: v if isinstance(v, str) else json.dumps(v) for k, v in arguments.items()}
            return await client.get_prompt(target, texts, on_progress=ignore_progress)
        if step.verb == "list":
            kind = KIND[LIST_KINDS[target]]
            return {kind.key: await client.list_all(kind.name)}
        return await client.session.request(target["method"], target.get("params"))

    async def _tool(self, name: str) -> dict[str, Any] | None:
        """The listed tool (for its outputSchema); None when the server cannot list them."""
        if self._tools is None:
            try:
                self._tools = {str(t.get("name")): t for t in await self.client.list_tools()}
            except ConnectionClosedError:
                raise
            except RpcError:
                self._tools = {}
        return self._tools.get(name)

    def _save(self, step: Step, outcome: Outcome) -> list[Failure]:
        failures = []
        for name, path in step.save.items():
            values = find(substitute(path, from_vars(self.values)), outcome.document)
            if values:
                self.values[name] = values[0]
            else:
                failures.append(
                    Failure(
                        f"save {name}",
                        f"save {name}: {path} found nothing in the response",
                        path,
                        None,
                    )
                )
        return failures

    def _clean(self, text: str) -> str:
        return self.redactor.text(text)

    def _clean_failure(self, failure: Failure) -> Failure:
        """The failure with every ``${env:...}`` value taken out."""
        if not self.collection.secrets:
            return failure
        return Failure(
            self._clean(failure.expectation),
            self._clean(failure.message),
            self._clean_value(failure.expected),
            self._clean_value(failure.actual),
        )

    def _clean_value(self, value: Any) -> Any:
        if value is None:
            return None
        return json.loads(self._clean(json.dumps(value, ensure_ascii=False)))
