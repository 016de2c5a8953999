"""The error tree: one base, the drawing in inspector/errors.py true, exit codes from it."""

from __future__ import annotations

import functools
import inspect
import json
import re
import subprocess
import sys
from typing import Any

import pytest

import inspector
from inspector import errors
from inspector.commands.failures import EXIT_CODES, CliError, ExitCode, classify_failure
from inspector.commands.options import UsageError
from inspector.config import ConfigError
from inspector.engine.era import VersionError
from inspector.engine.session import (
    ConnectionClosedError,
    RequestCancelledError,
    RequestTimeoutError,
)
from inspector.errors import InspectorError
from inspector.record.format import NewerFormatError, SessionFileError
from inspector.replay.diff import PathError
from inspector.transports.sse_parser import SseError
from inspector.wire.jsonrpc import RpcError
from inspector.wire.transport import ConnectionLost, TransportError

# Run in a child process: importing every module loads Locust for inspector.locust, and
# Locust patches the interpreter for gevent at import (it broke a pytest-xdist worker).
_WALK = """
import importlib, inspect, json, pkgutil, sys
import inspector
from inspector.errors import InspectorError
found = {}
for module in pkgutil.walk_packages(inspector.__path__, "inspector."):
    if module.name.endswith("__main__"):
        continue
    loaded = importlib.import_module(module.name)
    for name, obj in vars(loaded).items():
        mine = obj.__module__ == module.name if inspect.isclass(obj) else False
        if mine and issubclass(obj, BaseException):
            found[f"{module.name}.{name}"] = {
                "name": obj.__name__,
                "bases": [b.__name__ for b in obj.__bases__],
                "ours": issubclass(obj, InspectorError),
            }
sys.stdout.write(json.dumps(found))
"""


@functools.cache
def exception_classes() -> dict[str, dict[str, Any]]:
    """Every exception class defined in the package (``__main__`` modules not run): its
    name, its bases' names, and whether it derives from ``InspectorError``."""
    done = subprocess.run(
        [sys.executable, "-c", _WALK], capture_output=True, text=True, check=True, timeout=120
    )
    found: dict[str, dict[str, Any]] = json.loads(done.stdout)
    return found


@pytest.mark.slow
def test_every_exception_of_the_package_derives_from_the_one_base() -> None:
    classes = exception_classes()
    assert len(classes) >= 15  # the walk sees them all (a broken walk would pass vacuously)
    outside = sorted(name for name, cls in classes.items() if not cls["ours"])
    assert not outside, f"derive these from inspector.errors.InspectorError: {outside}"


def test_the_drawing_names_every_error_of_the_tree() -> None:
    drawn = set(re.findall(r"[├└]── (\w+)", errors.__doc__ or ""))
    defined = {cls["name"] for cls in exception_classes().values()} - {"InspectorError"}
    assert drawn == defined, (
        f"missing from the drawing: {sorted(defined - drawn)}; "
        f"drawn but gone: {sorted(drawn - defined)}"
    )


def test_the_drawing_follows_the_classes() -> None:
    """Each drawn class hangs under the class it derives from (the indentation says which)."""
    by_name = {cls["name"]: cls for cls in exception_classes().values()}
    parents: list[str] = ["InspectorError"]
    for line in (errors.__doc__ or "").splitlines():
        match = re.match(r"\s*((?:│   |    )*)[├└]── (\w+)", line)
        if not match:
            continue
        depth = len(match.group(1)) // 4 + 1
        name = match.group(2)
        parents = [*parents[:depth], name]
        parent = parents[depth - 1] if parents[depth - 1] in by_name else "InspectorError"
        assert parent in by_name[name]["bases"], f"{name} is drawn under {parent}"


def lost(**kw: Any) -> ConnectionClosedError:
    return ConnectionClosedError(ConnectionLost("gone", **kw))


@pytest.mark.parametrize(
    ("failure", "kind", "code"),
    [
        (UsageError("bad flag"), "usage", ExitCode.USAGE),
        (ConfigError("bad config"), "usage", ExitCode.USAGE),
        (PathError("bad path"), "usage", ExitCode.USAGE),
        (SessionFileError("torn"), "file", ExitCode.USAGE),
        (NewerFormatError("newer"), "file", ExitCode.USAGE),  # its parent's row
        (TransportError("no such command"), "connection", ExitCode.CONNECTION),
        (VersionError("1999-01-01"), "protocol-version", ExitCode.PROTOCOL),
        (RpcError(-32602, "bad params"), "protocol", ExitCode.PROTOCOL),
        (RequestCancelledError("tools/call", "user"), "protocol", ExitCode.PROTOCOL),
        (RequestTimeoutError("tools/call", 1, False), "timeout", ExitCode.TIMEOUT),
        (lost(exit_code=2), "connection", ExitCode.CONNECTION),
        (lost(http_status=500), "http", ExitCode.HTTP),
        (lost(http_status=401), "auth", ExitCode.AUTH),
        (RpcError(-32000, "HTTP 403", {"status": 403}), "auth", ExitCode.AUTH),
        (SseError("too big"), "internal", ExitCode.CONNECTION),  # the base's row
        (OSError("broken pipe"), "connection", ExitCode.CONNECTION),
        (CliError("output-schema", "x", ExitCode.OUTPUT_SCHEMA), "output-schema", 8),
        (ZeroDivisionError("bug"), "internal", ExitCode.CONNECTION),
    ],
)
def test_exit_codes_come_from_the_tree(failure: BaseException, kind: str, code: int) -> None:
    error = classify_failure(failure)
    assert (error.kind, error.code) == (kind, code)


def test_every_row_is_a_class_of_the_tree_or_the_system() -> None:
    for cls in EXIT_CODES:
        assert issubclass(cls, InspectorError) or cls is OSError, cls


def test_exit_codes_are_distinct_and_documented() -> None:
    codes = {k: v for k, v in vars(ExitCode).items() if not k.startswith("_")}
    assert len(set(codes.values())) == len(codes)
    readme = (inspect.getfile(inspector).rsplit("/inspector/", 1)[0]) + "/README.md"
    with open(readme, encoding="utf-8") as f:
        text = f.read()
    for value in codes.values():
        assert re.search(rf"^\| {value} \|", text, re.M), f"exit code {value} not in README"
