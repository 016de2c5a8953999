"""Which part of ``inspector`` may import which: read from the source, lazy imports too.

Every ``import`` statement counts, also those inside functions or ``if TYPE_CHECKING``:
a function-local import hides a dependency from the reader, not from this test.
A part is a subpackage (``engine``, ``tui``...) or a top-level module (``target``);
``inspector`` itself is ``inspector/__init__.py`` (the version).
"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from pathlib import Path

import pytest

PACKAGE = Path(__file__).parent.parent / "inspector"

# part -> the parts it may import. A new part, or a new arrow, is a decision: add it here.
ALLOWED: dict[str, set[str]] = {
    "inspector": set(),
    # the base of every error (inspector/errors.py imports nothing): everyone may use it
    "errors": set(),
    # the wire layer both sides stand on: WireEvents, the JSON-RPC codec, the
    # transport interface. The engine speaks to a Transport, the transports build
    # WireEvents; neither imports the other.
    "wire": {"errors"},
    "engine": {"inspector", "errors", "wire"},
    "transports": {"errors", "wire", "engine", "credentials"},
    "forms": {"errors"},
    # session files (format, recorder, readers); an indexed file is a log source
    "record": {"inspector", "errors", "wire", "logstore", "credentials"},
    "logstore": {"wire"},  # the in-memory log and its filter language
    "replay": {"errors", "wire", "engine", "logstore"},  # plan, run, diff, serve
    "config": {"errors"},
    "credentials": set(),  # what looks like a credential: redaction and redirects agree
    # proxy: an attach target
    "target": {"errors", "wire", "transports", "credentials", "proxy", "auth"},
    # OAuth: its flows speak HTTP (transports' helpers), make WireEvents (engine), mask
    # with the recorder's marker (record)
    "auth": {"inspector", "errors", "wire", "engine", "transports", "record"},
    "proxy": {
        "inspector",
        "errors",
        "wire",
        "engine",
        "transports",
        "record",
        "logstore",
        "config",
    },
    "safe_text": set(),
    "demo": {"inspector", "errors", "wire", "engine"},
    "tui": {
        "errors",
        "wire",
        "engine",
        "transports",
        "record",
        "logstore",
        "replay",
        "forms",
        "target",
        "safe_text",
        "proxy",
        "auth",
    },
    "commands": {
        "inspector",
        "errors",
        "wire",
        "engine",
        "transports",
        "record",
        "logstore",
        "replay",
        "forms",
        "config",
        "target",
        "safe_text",
        "tui",
        "proxy",
        "auth",
    },
    "__main__": {"commands"},
}
TOLERATED_CYCLES: list[set[str]] = []

HEADLESS = (
    "wire",
    "engine",
    "transports",
    "record",
    "logstore",
    "replay",
    "forms",
    "proxy",
    "auth",
)
FRONTS = ("commands", "tui", "__main__")  # the command line and the TUI


def _part(module: str, package: Path) -> str | None:
    """``inspector.engine.session`` -> ``engine``; None outside the package."""
    names = module.split(".")
    if names[0] != package.name:
        return None
    if len(names) == 1:
        return package.name
    return names[1]


def _imported(tree: ast.AST, module: str, is_package: bool) -> Iterable[str]:
    """The modules (or ``package.name`` for ``from package import name``) a tree imports."""
    for node in ast.walk(tree):  # every statement, function bodies included
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # relative: from . import x, from ..engine import y
                here = module.split(".") if is_package else module.split(".")[:-1]
                here = here[: len(here) - (node.level - 1)]
                base = ".".join([*here, base] if base else here)
            yield base
            yield from (f"{base}.{alias.name}" for alias in node.names)


def import_graph(package: Path) -> dict[str, set[str]]:
    """part -> the other parts its modules import."""
    graph: dict[str, set[str]] = {}
    for path in sorted(package.rglob("*.py")):
        relative = path.relative_to(package.parent).with_suffix("")
        is_package = path.name == "__init__.py"
        module = ".".join(relative.parts[:-1] if is_package else relative.parts)
        source = _part(module, package)
        assert source is not None
        targets = graph.setdefault(source, set())
        for name in _imported(ast.parse(path.read_text(), str(path)), module, is_package):
            part = _part(name, package)
            if part is None or part == source:
                continue
            if part != package.name and not _exists(package, name):
                part = package.name  # from inspector import __version__: an attribute
            targets.add(part)
    return graph


def _exists(package: Path, module: str) -> bool:
    """``inspector.x`` names a module or package of ours (not an attribute)."""
    first = package / module.split(".")[1]
    return first.is_dir() or first.with_suffix(".py").exists()


def cycles(graph: dict[str, set[str]]) -> list[set[str]]:
    """The strongly connected parts with more than one member (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[set[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            members = set()
            while True:
                member = stack.pop()
                members.add(member)
                if member == node:
                    break
            if len(members) > 1:
                found.append(members)

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


@pytest.fixture(scope="module")
def graph() -> dict[str, set[str]]:
    return import_graph(PACKAGE)


def test_every_part_is_in_the_table(graph: dict[str, set[str]]) -> None:
    missing = sorted(set(graph) - set(ALLOWED))
    assert not missing, f"new parts of inspector/: add them to ALLOWED: {missing}"


def test_imports_follow_the_table(graph: dict[str, set[str]]) -> None:
    extra = {part: sorted(graph[part] - ALLOWED.get(part, set())) for part in graph}
    assert not {p: e for p, e in extra.items() if e}, "imports outside ALLOWED"


def test_no_import_cycles_between_parts(graph: dict[str, set[str]]) -> None:
    found = [c for c in cycles(graph) if c not in TOLERATED_CYCLES]
    assert not found, f"import cycles: {found}"


def test_headless_parts_import_no_front(graph: dict[str, set[str]]) -> None:
    for part in HEADLESS:
        assert not graph[part] & set(FRONTS), f"{part} imports {graph[part] & set(FRONTS)}"


def test_the_walk_sees_lazy_and_relative_imports(tmp_path: Path) -> None:
    """A cycle hidden in a function body, and a relative import, are still arrows."""
    pkg = tmp_path / "pkg"
    for sub in ("low", "high"):
        (pkg / sub).mkdir(parents=True)
        (pkg / sub / "__init__.py").write_text("")
    (pkg / "__init__.py").write_text("VERSION = '1'\n")
    (pkg / "high" / "front.py").write_text("from ..low import lib\nfrom pkg import VERSION\n")
    (pkg / "low" / "lib.py").write_text("def f():\n    from pkg.high.front import x\n")
    found = import_graph(pkg)
    assert found == {"pkg": set(), "low": {"high"}, "high": {"low", "pkg"}}
    assert cycles(found) == [{"low", "high"}]
