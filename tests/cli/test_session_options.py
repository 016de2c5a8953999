"""The command line builds a session's options once (``SessionOptions``) from its flags,
for the TUI's launcher to pass on whole."""

from __future__ import annotations

from inspector.commands import attach, build_parser
from inspector.commands.options import ArgParser, session_options
from inspector.engine.options import SessionOptions


def test_the_default_mode_s_flags_make_one_options_object() -> None:
    opts = build_parser(subcommands=False).parse_args(
        [
            "--timeout",
            "5",
            "--max-timeout",
            "9",
            "--protocol-version",
            "2025-06-18",
            "--root",
            "/a",
            "--root",
            "/b",
            "python",
        ]
    )
    assert session_options(opts) == SessionOptions(
        timeout=5.0, max_timeout=9.0, protocol_version="2025-06-18", roots=("/a", "/b")
    )


def test_defaults_and_a_mode_without_every_flag() -> None:
    assert session_options(build_parser(subcommands=False).parse_args([])) == SessionOptions()
    parser = ArgParser(prog="mcp-inspect")
    attach_parser = attach.add_parser(parser.add_subparsers(parser_class=ArgParser))
    opts = attach_parser.parse_args(["--timeout", "7"])
    # attach has no --protocol-version nor --root: the era is found, no roots offered
    assert session_options(opts) == SessionOptions(timeout=7.0, max_timeout=600.0)
