"""A short name for a server: what the workspace's server list, a proxy's attach name and
a session file's name call it when no config entry names it.

    short_name(target_from_words(["python", "-m", "weather.server"]))       # weather.server
    short_name(target_from_words(["npx", "-y", "@scope/server-files@1.2"]))  # server-files
    short_name(target_from_words(["node", "pkg/dist/index.js", "stdio"]))    # pkg
    short_name(target_from_words(["https://api.example.com/mcp"]))           # api.example.com
"""

from __future__ import annotations

from pathlib import PurePath
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

if TYPE_CHECKING:
    from inspector.target import Target

SCRIPT_SUFFIXES = (".py", ".js", ".mjs", ".cjs", ".ts", ".mts")
# package runners: the first word after them that is not a flag or a verb is a package
RUNNERS = {"npx", "bunx", "pnpx", "uvx", "pipx", "pnpm", "yarn", "bun", "deno", "uv"}
RUNNER_VERBS = {"run", "exec", "dlx", "x", "tool"}
# runner flags whose value is the next word (not the package)
VALUE_FLAGS = {"--from", "--with", "--python", "-p", "--package", "--index-url", "-c", "--call"}
# an entry script's name that says nothing of the server: its folder's does
GENERIC_STEMS = {"index", "main", "__main__", "cli"}
BUILD_FOLDERS = {"dist", "build", "lib", "out", "src", "bin", "esm", "cjs"}


def short_name(target: Target) -> str:
    """The target's own name (a config entry's, "demo"); else the URL's host (and port);
    a ``-m`` module; a runner's package without its scope and version; a script's name
    (its folder's, for ``index.js`` and the like); else the command's name."""
    if target.name:
        return target.name
    if target.url is not None:
        return urlsplit(target.url).netloc or target.url
    args = target.args
    command = PurePath(target.command or "server").name
    if command.startswith(("python", "pypy")) and "-m" in args[:-1]:  # python -m MODULE
        return args[args.index("-m") + 1].removesuffix(".__main__")
    if command in RUNNERS:
        package = _runner_package(args)
        if package is not None and not package.endswith(SCRIPT_SUFFIXES):
            return _package_name(package)
    script = next((a for a in args if a.endswith(SCRIPT_SUFFIXES)), None)
    if script is not None:
        return _script_name(PurePath(script))
    return PurePath(command).stem or "server"


def _runner_package(args: list[str]) -> str | None:
    """The first word that is not a flag, a flag's value or a verb (``npx -y PKG``,
    ``uvx --from SOURCE TOOL``, ``pnpm dlx PKG``)."""
    skip = False
    for word in args:
        if skip:
            skip = False
        elif word in VALUE_FLAGS:
            skip = True
        elif not word.startswith("-") and word not in RUNNER_VERBS:
            return word
    return None


def _package_name(package: str) -> str:
    """``@scope/name@1.2`` -> ``name``; ``name==1.2`` -> ``name``."""
    name = package.rsplit("/", 1)[-1] if package.startswith("@") else package
    for mark in ("@", "==", ">=", "[", ":"):
        if mark in name[1:]:
            name = name[: name.index(mark, 1)]
    return name or package


def _script_name(path: PurePath) -> str:
    if path.stem not in GENERIC_STEMS:
        return path.stem
    for folder in reversed(path.parent.parts):
        if folder not in BUILD_FOLDERS and folder not in ("/", ".", ".."):
            return folder
    return path.stem
