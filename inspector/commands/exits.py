"""The command line's exit codes and its error line: one JSON object on stderr for
machines (``--cli``, ``--format json``), a sentence for a person reading text output.

Light on purpose: a usage error is reported before anything else loads. Which exit code
an engine or transport failure gets is decided in :mod:`inspector.commands.failures`.
"""

from __future__ import annotations

import json
import sys
from typing import Any

from inspector.errors import InspectorError
from inspector.safe_text import json_visible


class ExitCode:
    """Documented exit codes of ``mcp-inspect --cli`` (see README)."""

    OK = 0
    TOOL_ERROR = 1  # tools/call returned isError: true (replay: differences found)
    USAGE = 2  # bad flags, missing file, bad config
    CONNECTION = 3  # could not start or reach the server, or it went away
    PROTOCOL = 4  # the server answered with a JSON-RPC error, or a version we do not speak
    TIMEOUT = 5  # no answer within --timeout
    HTTP = 6  # an HTTP error status (4xx/5xx other than auth)
    AUTH = 7  # 401/403: authorization is needed
    OUTPUT_SCHEMA = 8  # tools/call: structuredContent does not match the tool's outputSchema


class CliError(InspectorError):
    """A failure as the command line reports it: a kind, a message, an exit code."""

    def __init__(self, kind: str, message: str, code: int, **details: Any) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message
        self.code = code
        self.details = details

    def to_json(self) -> dict[str, Any]:
        return {
            "error": {
                "kind": self.kind,
                "message": self.message,
                "exitCode": self.code,
                **self.details,
            }
        }


def write_error(error: CliError) -> int:
    """The error as one JSON line on stderr; returns its exit code."""
    # C1 controls and bidi overrides as \\u escapes: the line stays JSON and prints safely
    sys.stderr.write(json_visible(json.dumps(error.to_json(), ensure_ascii=False)) + "\n")
    return error.code


def report_error(error: CliError, command: str, *, as_json: bool) -> int:
    """The error for whoever reads this command's output; returns its exit code.

    ``as_json``: the JSON line of :func:`write_error` (scripts parse it). Otherwise one
    sentence, ``mcp-inspect COMMAND: message``, as the usage errors are said.
    """
    if as_json:
        return write_error(error)
    sys.stderr.write(f"mcp-inspect {command}: {error.message}\n")
    return error.code
