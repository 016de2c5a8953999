"""The ``--cli`` option group and the methods ``--cli`` performs (:data:`METHODS`).

Apart from :mod:`inspector.commands.headless` (which performs them) so that building
the parser, for ``--help`` or a usage error, loads no engine.
"""

from __future__ import annotations

import argparse

# Every --method the CLI performs (the one list: --help, the usage errors, perform).
METHODS = (
    "tools/list",
    "tools/call",
    "resources/list",
    "resources/read",
    "resources/templates/list",
    "prompts/list",
    "prompts/get",
    "logging/setLevel",
    "ping",
    "resources/subscribe",
    "resources/unsubscribe",
    "skills/list",
    "skills/get",
    "initialize",
)


def add_options(parser: argparse.ArgumentParser) -> None:
    """The ``--cli`` option group; ``--method`` lists every method :data:`METHODS` holds."""
    cli = parser.add_argument_group("headless (--cli)")
    cli.add_argument("--cli", action="store_true", help="one call, JSON on stdout, no TUI")
    cli.add_argument("--method", help=", ".join(METHODS))
    cli.add_argument("--tool-name")
    cli.add_argument(
        "--tool-arg",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="tool argument, coerced by the tool's input schema (repeatable)",
    )
    cli.add_argument("--tool-args-json", metavar="JSON", help="all tool arguments as JSON")
    cli.add_argument(
        "--uri", help="resources/read, subscribe, unsubscribe; skills/get: the skill's SKILL.md URI"
    )
    cli.add_argument("--prompt-name")
    cli.add_argument("--prompt-args", action="append", default=[], metavar="KEY=VALUE")
    cli.add_argument("--log-level")
    cli.add_argument(
        "--no-validate",
        dest="validate",
        action="store_false",
        help="tools/call: send the arguments without checking them against the tool's "
        "inputSchema, and do not check the result against its outputSchema",
    )
    cli.add_argument(
        "--task",
        action="store_true",
        help="tools/call: call the tool as a task and poll it to its end (tasks/get, then "
        "tasks/result); done by itself for a tool whose taskSupport is required",
    )
    cli.add_argument(
        "--format",
        choices=("text", "json"),
        default="text",
        help='text: the result as indented JSON (default); json: {"result": ...} on one '
        "line, as the official Inspector's CLI prints it",
    )
    cli.add_argument(
        "--stderr",
        dest="show_stderr",
        action="store_true",
        help="pass the server's stderr through to ours (control characters made visible)",
    )
