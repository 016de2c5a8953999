"""Entry point for ``python -m inspector`` and the ``mcp-inspect`` script."""

from __future__ import annotations


def main() -> int:
    """The command line, ctrl+c included from its first instant: loading its modules
    takes a moment before ``commands.main`` catches ctrl+c itself, and a ctrl+c then
    ended Python by the signal, with a traceback."""
    try:
        from inspector.commands import main as run

        return run()
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    raise SystemExit(main())
