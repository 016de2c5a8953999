"""The command line: ``mcp-inspect [options] [TARGET ...]`` or ``mcp-inspect SUBCOMMAND ...``.

    mcp-inspect                              the TUI on the bundled demo server
    mcp-inspect -- python server.py          the TUI on a stdio server
    mcp-inspect https://host/mcp             the TUI on an HTTP server
    mcp-inspect --cli --method tools/list -- python server.py
    mcp-inspect replay FILE [--against TARGET | --serve]
    mcp-inspect proxy [--name NAME] -- python server.py   between a host and its server
    mcp-inspect attach [NAME]                the TUI on a running proxy
    mcp-inspect proxies                      the running proxies
    mcp-inspect auth list|clear [URL]        the stored OAuth tokens
    mcp-inspect lint TARGET                  check a server against the lint rules
    mcp-inspect diff OLD NEW                 what changed between two servers
    mcp-inspect mcp [--skill]                the inspector as an MCP server for agents

Which one runs: the first word that the default mode would take as TARGET (options
and their values skipped, words after ``--`` never looked at) names a subcommand when
it is a key of :data:`SUBCOMMANDS`; otherwise the default mode
(:mod:`inspector.commands.default`) runs. A server command named like a subcommand
goes after ``--`` (``mcp-inspect -- replay``); options before the subcommand's name
are the subcommand's own (``mcp-inspect --cli replay FILE``).

The official Inspector's CLI order is accepted too: with ``--cli`` first and a TARGET
word next, the words before ``--`` are the server and those after it are options
(``mcp-inspect --cli node build/index.js --port 1 -- --method tools/list``), as its
CLI splits them; any other line keeps ours (options, then the server command after ``--``).

Adding a subcommand: a module ``inspector/commands/NAME.py`` with

    def add_parser(subparsers) -> ArgParser      # subparsers.add_parser("NAME", ...)
    def run(opts, command: list[str]) -> int     # command: the words after ``--``

and one line in :data:`SUBCOMMANDS` (its module and the summary ``--help`` lists it
with). ``mcp-inspect --help`` then lists it and ``mcp-inspect NAME --help`` shows its
parser.

Start-up: this module and the default mode's parser import no HTTP, TUI, schema or
async code (``tests/cli/test_cli_imports.py`` holds them to it): ``--help``, ``--version``
and a usage error need none, ``--cli`` loads the engine when it connects, the TUI loads
Textual when it opens, and a subcommand's module is imported only when it is named.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence
from typing import Any, NamedTuple, Protocol, cast

from inspector.commands import default
from inspector.commands.exits import CliError, ExitCode, write_error
from inspector.commands.options import PROG, ArgParser, Subparsers, UsageError, split_dashdash
from inspector.commands.printed import safe_stderr
from inspector.record.state import StateFileError


class Entry(NamedTuple):
    """A subcommand: its module, and the line ``mcp-inspect --help`` lists it with."""

    module: str
    summary: str


# name -> module and summary. A module is imported only when its name is the
# subcommand chosen (start-up: --help lists the summaries, --cli and the TUI load none).
SUBCOMMANDS: dict[str, Entry] = {
    "replay": Entry(
        "inspector.commands.replay",
        "re-run a session file against a server, serve it, or open it offline",
    ),
    "proxy": Entry(
        "inspector.commands.proxy",
        "run a server through mcp-inspect, between the host and the server",
    ),
    "attach": Entry(
        "inspector.commands.attach",
        "open the inspector on a running proxy (mcp-inspect proxy)",
    ),
    "proxies": Entry(
        "inspector.commands.proxies", "list the running proxies (for mcp-inspect attach)"
    ),
    "auth": Entry("inspector.commands.auth", "list or clear the stored OAuth tokens"),
    "export": Entry(
        "inspector.commands.export",
        "a session file as OTLP traces, HAR, a Markdown transcript or a JSON array",
    ),
    "load": Entry(
        "inspector.commands.load",
        "load test a server: many calls from many sessions, latency percentiles",
    ),
    "diff": Entry(
        "inspector.commands.diff",
        "compare two servers' tools, prompts, resources and capabilities",
    ),
    "lint": Entry(
        "inspector.commands.lint",
        "check a server's tools, prompts and resources against the lint rules",
    ),
    "test": Entry(
        "inspector.commands.testrun", "run collections: MCP calls with expectations (for CI)"
    ),
    "mcp": Entry(
        "inspector.commands.mcp",
        "serve the inspector as an MCP server over stdio (for coding agents)",
    ),
}

USAGE = f"""{PROG} [options] [TARGET ...] [-- COMMAND ...]
       {PROG} SUBCOMMAND [options] ...  (see {PROG} SUBCOMMAND --help)"""


class Subcommand(Protocol):
    """What a module named in :data:`SUBCOMMANDS` provides."""

    def add_parser(self, subparsers: Subparsers[ArgParser]) -> ArgParser: ...

    def run(self, opts: argparse.Namespace, command: list[str]) -> int: ...


def subcommand(name: str) -> Subcommand:
    """The module of subcommand ``name`` (imported now)."""
    return cast(Subcommand, importlib.import_module(SUBCOMMANDS[name].module))


OFFICIAL_ORDER_HINT = (
    "in this order (--cli TARGET ... -- OPTIONS, the official Inspector's) the words after "
    "-- are mcp-inspect's options; to give the server flags of its own, put options first "
    "and the whole server command after --: mcp-inspect --cli [OPTIONS] -- COMMAND ..."
)


def main(argv: Sequence[str] | None = None) -> int:
    """The ``mcp-inspect`` console script. Returns the exit code."""
    argv = list(sys.argv[1:] if argv is None else argv)
    before, command = split_dashdash(argv)
    official = "--" in argv and official_order(before)
    if official:  # --cli TARGET ... -- OPTIONS: the server before --, options after
        before, command = ["--cli", *command], before[1:]
    cli_mode = "--cli" in before
    # paths, config names, URLs and server text reach stderr: control characters visible
    with safe_stderr():
        try:
            return _dispatch(before, command, official=official)
        except (UsageError, StateFileError) as exc:  # a state file planted or broken: exit 2
            message = f"{exc}; {OFFICIAL_ORDER_HINT}" if official else str(exc)
            if cli_mode:
                return write_error(CliError("usage", message, ExitCode.USAGE))
            sys.stderr.write(f"{PROG}: {message}\n")
            return ExitCode.USAGE
        except KeyboardInterrupt:
            return 130
        except BrokenPipeError:  # the reader left (`| head`): end as a pipe's writer does
            _stdout_to_devnull()
            return PIPE_CLOSED


PIPE_CLOSED = 141  # what a shell reports for a writer ended by SIGPIPE (128 + 13)


def _stdout_to_devnull() -> None:
    """Point stdout at /dev/null: Python's own flush of it at exit would meet the closed
    pipe again and print "Exception ignored ... BrokenPipeError"."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # no real stdout (a test's capture): nothing to mend
        pass
    finally:
        os.close(devnull)


def official_order(before: list[str]) -> bool:
    """``--cli`` first, then a TARGET word (not an option, not a subcommand): the official
    Inspector's CLI order, where the words before ``--`` are the server's."""
    return (
        len(before) >= 2
        and before[0] == "--cli"
        and not (len(before[1]) > 1 and before[1].startswith("-"))
        and before[1] not in SUBCOMMANDS
    )


def _dispatch(before: list[str], command: list[str], *, official: bool = False) -> int:
    parser = build_parser(subcommands=False)
    at = first_positional(parser, before)
    try:
        if at is not None and before[at] in SUBCOMMANDS:
            chosen = subcommand(before[at])
            sub_parser = chosen.add_parser(_subparsers(ArgParser(prog=PROG)))
            words = before[:at] + before[at + 1 :]
            opts = _parsed(sub_parser, words, before[at])
            return chosen.run(opts, command)
        opts = _parsed(parser, before)
    except SystemExit as exc:  # --help, --version (errors are UsageError)
        return int(exc.code or 0)
    if official and opts.target:
        raise UsageError(f"unexpected words after --: {' '.join(opts.target)}")
    return default.run(opts, command)


# the modes whose words are a server's (TARGET ...): a flag after them may be the server's
TARGET_WORDS = ("", "proxy", "load", "lint", "diff")


def _parsed(parser: ArgParser, words: list[str], name: str = "") -> argparse.Namespace:
    """``words`` parsed; a flag it does not know after a server's words (``--cli python
    -m server``: the server's own flag, taken for ours) says where such flags go."""
    try:
        return parser.parse_intermixed_args(words)
    except UsageError as exc:
        if (
            name not in TARGET_WORDS
            or "unrecognized arguments" not in str(exc)
            or first_positional(parser, words) is None
        ):
            raise
        if name == "diff":
            hint = (
                f'give each server as one quoted word: {PROG} diff "python old.py --flag" '
                '"python new.py --flag"'
            )
        else:
            where = f"{PROG} {name + ' ' if name else ''}[OPTIONS]"
            hint = (
                "a server command with flags of its own goes last, after --: "
                f"{where} -- python server.py --its-flag"
            )
        raise UsageError(f"{exc}; {hint}") from None


def build_parser(*, subcommands: bool = True) -> ArgParser:
    """The command line: the default mode's TARGET and options, then the subcommands
    listed by name and summary (for ``--help``: each one's own parser is built by
    :func:`_dispatch` when it is chosen, so listing them imports none).

    The default mode parses without the subcommands (argparse cannot intermix a list
    of TARGET words with subparsers); its ``--help`` prints this whole parser's help.
    """
    parser = ArgParser(
        prog=PROG,
        usage=USAGE,
        add_help=False,
        description="A terminal inspector and debugger for MCP servers. With no target it "
        "opens on the bundled demo server.",
        epilog="TARGET is a URL (http:// or https://) or a server command; put the command "
        "after `--` when it has flags of its own (always when it is named like a "
        "subcommand). The official Inspector's order works too: --cli TARGET ... -- "
        "OPTIONS. Exit codes of --cli: 0 ok, 1 tool isError, 2 usage (an unknown tool or "
        "invalid arguments too), 3 connection, 4 protocol error, 5 timeout, 6 HTTP error, "
        "7 authorization needed, 8 structuredContent does not match the outputSchema.",
    )
    parser.add_argument("-h", "--help", action=_WholeHelp, help="show this help message and exit")
    default.add_options(parser)
    if subcommands:
        subparsers = _subparsers(parser)
        for name, entry in SUBCOMMANDS.items():
            subparsers.add_parser(name, help=entry.summary)
    return parser


def _subparsers(parser: ArgParser) -> Subparsers[ArgParser]:
    """Where subcommands add their parsers (each named ``mcp-inspect NAME``)."""
    return parser.add_subparsers(
        title="subcommands",
        metavar="SUBCOMMAND",
        prog=PROG,
        parser_class=ArgParser,
    )


class _WholeHelp(argparse.Action):
    """``-h``/``--help``: the whole command line's help, subcommands listed."""

    def __init__(self, option_strings: list[str], dest: str, help: str | None = None) -> None:
        super().__init__(option_strings, dest=argparse.SUPPRESS, nargs=0, help=help)

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: Any,
        option_string: str | None = None,
    ) -> None:
        build_parser().print_help()
        parser.exit()


def first_positional(parser: argparse.ArgumentParser, words: list[str]) -> int | None:
    """The index of the first word ``parser`` would take as a positional, or None.

    Skips options and the values they take (``--cwd replay``, ``-e K=V``,
    ``--time 5``: argparse's unique prefixes too). ``words`` come before any ``--``.
    An option takes no value or exactly one (a test keeps the parser that way)."""
    takes_value: dict[str, bool] = {}
    for action in parser._actions:  # argparse has no public list of its options
        for option in action.option_strings:
            takes_value[option] = action.nargs != 0
    at = 0
    while at < len(words):
        word = words[at]
        if not word.startswith("-") or word == "-":
            return at
        at += 1
        if "=" in word or (not word.startswith("--") and len(word) > 2):
            continue  # the value is in the word: --cwd=DIR, -eKEY=VALUE
        if takes_value.get(_resolve(word, takes_value) or "", False):
            at += 1
    return None


def _resolve(word: str, options: dict[str, bool]) -> str | None:
    """The option ``word`` names: itself, or the one long option it is a prefix of."""
    if word in options:
        return word
    if word.startswith("--"):
        matches = [o for o in options if o.startswith(word)]
        if len(matches) == 1:
            return matches[0]
    return None
