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
from paths import ROOT

PACKAGE = ROOT / "inspector"

# The layers, bottom up: a part imports only parts of layers below its own, so there is
# no cycle and nothing headless reaches up to a front. Moving a part is a decision.
LAYERS: tuple[tuple[str, ...], ...] = (
    # the version, the base of every error, what looks like a credential, terminal-safe text
    ("inspector", "errors", "credentials", "safe_text"),
    # the wire both the engine and the transports stand on (WireEvent, the JSON-RPC
    # codec, the transport interface); config files; schema forms
    ("wire", "config", "forms"),
    # the client engine, the transports, the in-memory log and its filter language
    ("engine", "transports", "logstore"),
    # two catalogs compared by name, each change classified (diff, replay --against)
    # the Skills extension over a session: entries, lazy reads verified against them
    ("compare", "skills"),
    # session files; replaying one; the live session's state (events, requests, tasks,
    # server log, catalog: fed by the engine's session or a recording, shown by the TUI)
    ("record", "replay", "live"),
    # OAuth: flows over HTTP, tokens masked with the recorder's marker; a server's
    # catalog and findings, surveyed live over a transport or read from a session file
    ("auth", "survey"),
    # the proxy (relays over transports, records); the demo server; the lint rules;
    # exports of recordings; load runs; collections (calls with expectations, judged
    # with replay's diff and the forms' checks)
    ("proxy", "demo", "lint", "export", "load", "collection"),
    ("target",),  # what to connect to: a command, a URL (maybe OAuth), an attached proxy
    ("target_name",),  # a target's short name: the server list's, a proxy's, a session file's
    # several servers at once: a config's entries or several TARGETs, each one's state
    ("workspace",),
    ("connection",),  # a target opened as the command line does (transport, OAuth hook, session)
    # the inspector as an MCP server for coding agents (``mcp-inspect mcp``): headless
    ("bridge",),
    ("tui",),
    ("commands",),
    # fronts run by other programs on the command line's connection: the pytest plugin
    # (pytest loads it) and Locust's user class and locustfile (Locust runs them)
    ("__main__", "pytest_plugin", "locust"),
)
LAYER = {part: level for level, parts in enumerate(LAYERS) for part in parts}
FRONTS = ("tui", "commands", "__main__", "pytest_plugin", "locust")  # the TUI, the command line
HEADLESS = tuple(part for part in LAYER if LAYER[part] < LAYER["tui"])

# part -> the parts it may import (each on a lower layer). A new arrow is a decision:
# add it here, with why when it is not obvious.
ALLOWED: dict[str, set[str]] = {
    "inspector": set(),
    "errors": set(),  # imports nothing: every part may derive from it
    "credentials": set(),  # redaction and redirects agree on what a credential is
    "safe_text": set(),
    "wire": {"errors"},
    "config": {"errors"},
    "forms": {"errors"},
    # the engine speaks to a Transport, the transports make WireEvents: neither imports
    # the other (the session hands HTTP the stateless flag and the tools' header map)
    "engine": {"inspector", "errors", "wire"},
    "transports": {"errors", "wire", "credentials"},
    "logstore": {"wire"},
    "compare": {"engine"},  # the catalog kinds
    "skills": {"errors", "wire", "engine"},
    # an indexed session file is a log source (logstore's EventSource and filter)
    "record": {"inspector", "errors", "wire", "logstore", "credentials"},
    "replay": {"errors", "wire", "engine", "logstore", "compare"},  # plan, run, diff, serve
    "live": {"wire", "engine", "logstore"},  # the log's events are a logstore source
    # OAuth: its flows speak HTTP (transports' helpers), mask with the recorder's marker
    "auth": {"inspector", "errors", "wire", "transports", "record", "credentials"},
    "proxy": {
        "inspector",
        "errors",
        "wire",
        "config",
        "engine",
        "transports",
        "logstore",
        "record",
        "credentials",  # --wrap: which of a URL entry's headers go through the env
    },
    "demo": {"inspector", "errors", "wire"},
    # a session opened and listed over a transport, or a session file read
    "survey": {"errors", "wire", "engine", "logstore", "record", "replay", "compare"},
    "lint": {
        "inspector",
        "forms",
        "engine",
        "survey",
    },  # rules over a survey (inspector: the version in SARIF)
    # recordings out (spans, HAR, Markdown, JSON) and a HAR back in as a recording:
    # reads session files (record), pairs frames as replay does, the log's filter,
    # the SSE parser for a HAR's streams
    # load runs: calls over the engine's sessions (how a server is reached is the
    # caller's), HDR histograms, a sampled recording
    "load": {"errors", "safe_text", "wire", "engine", "record"},
    "export": {
        "inspector",
        "errors",
        "safe_text",
        "wire",
        "transports",
        "logstore",
        "record",
        "replay",
    },
    "collection": {"errors", "wire", "forms", "engine", "record", "replay"},
    "target": {"errors", "wire", "transports", "credentials", "auth", "proxy"},  # proxy: attach
    "target_name": {"target"},
    # the OAuth hook is the caller's; the era found is remembered in the state folder
    "workspace": {
        "config",
        "target",
        "target_name",
        "safe_text",
        "wire",
        "record",
        "survey",
        "compare",
        "engine",
        "logstore",
    },
    "connection": {"engine", "record", "target", "wire"},
    "bridge": {
        "inspector",
        "errors",
        "safe_text",
        "wire",
        "config",
        "forms",
        "engine",
        "transports",
        "logstore",
        "compare",
        "record",
        "replay",
        "survey",
        "lint",
        "auth",
        "proxy",
        "target",
        "connection",
    },
    "tui": {
        "errors",
        "safe_text",
        "wire",
        "forms",
        "engine",
        "live",
        "transports",
        "logstore",
        "record",
        "replay",
        "auth",
        "proxy",
        "lint",  # the catalog's lint badges
        "target",
        "target_name",  # the view switcher names a live server
        "collection",  # k keeps a call as a collection step
        "skills",  # the Skills tab
        "credentials",  # ... with secrets as ${env:...}
        "load",  # ctrl+l: a short load run of the open tool
        "connection",  # ... its sessions opened as the command line opens them
        "workspace",  # several servers: the server list's rows
        "compare",  # the Compare view: two catalogs classified
    },
    "commands": {
        "inspector",
        "errors",
        "safe_text",
        "wire",
        "config",
        "forms",
        "engine",
        "transports",
        "logstore",
        "compare",
        "skills",
        "record",
        "replay",
        "survey",
        "lint",
        "auth",
        "proxy",
        "export",
        "load",
        "target",
        "target_name",
        "connection",
        "bridge",
        "tui",
        "collection",
        "workspace",
    },
    # transports: the gevent bridge has the lifeline watchdog start no servers (its
    # socket and reader thread would be gevent's)
    "locust": {"errors", "engine", "wire", "load", "target", "commands", "transports"},
    "__main__": {"commands"},
    # the pytest plugin: collections as test items, a client fixture (connects as --cli)
    "pytest_plugin": {"errors", "wire", "engine", "record", "target", "collection", "commands"},
}


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


@pytest.mark.slow
def test_every_part_is_in_the_table(graph: dict[str, set[str]]) -> None:
    missing = sorted(set(graph) - set(ALLOWED))
    assert not missing, f"new parts of inspector/: add them to ALLOWED and LAYERS: {missing}"
    assert set(ALLOWED) == set(LAYER), "ALLOWED and LAYERS name different parts"


def test_the_table_points_down_the_layers() -> None:
    """No arrow of the table itself may point sideways or up: it could close a cycle."""
    up = {p: sorted(t for t in ALLOWED[p] if LAYER[t] >= LAYER[p]) for p in ALLOWED}
    assert not {p: t for p, t in up.items() if t}, "ALLOWED arrows that do not point down"


def test_imports_follow_the_table(graph: dict[str, set[str]]) -> None:
    extra = {part: sorted(graph[part] - ALLOWED.get(part, set())) for part in graph}
    assert not {p: e for p, e in extra.items() if e}, "imports outside ALLOWED"


def test_every_part_imports_only_layers_below_it(graph: dict[str, set[str]]) -> None:
    up = {p: sorted(t for t in graph[p] if LAYER[t] >= LAYER[p]) for p in graph}
    assert not {p: t for p, t in up.items() if t}, "imports of a part's own layer or above"


def test_no_import_cycles_between_parts(graph: dict[str, set[str]]) -> None:
    assert not cycles(graph), f"import cycles: {cycles(graph)}"


def test_headless_parts_import_no_front(graph: dict[str, set[str]]) -> None:
    assert "engine" in HEADLESS and "tui" not in HEADLESS
    for part in HEADLESS:
        assert not graph[part] & set(FRONTS), f"{part} imports {graph[part] & set(FRONTS)}"


@pytest.mark.slow
def test_headless_parts_import_no_textual() -> None:
    """The headless parts run without a terminal: no Textual, not even lazily."""
    for part in HEADLESS:
        root = PACKAGE / part
        if part == PACKAGE.name:  # inspector/__init__.py
            paths = [PACKAGE / "__init__.py"]
        else:
            paths = sorted(root.rglob("*.py")) if root.is_dir() else [root.with_suffix(".py")]
        for path in paths:
            module = ".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts)
            tree = ast.parse(path.read_text(), str(path))
            names = _imported(tree, module, path.name == "__init__.py")
            assert not [n for n in names if n.split(".")[0] == "textual"], path


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


def module_graph(package: Path) -> dict[str, set[str]]:
    """module -> the modules of ours it imports (a package's own parents left out: every
    module imports its package's ``__init__`` anyway)."""
    modules: dict[str, tuple[Path, bool]] = {}
    for path in sorted(package.rglob("*.py")):
        relative = path.relative_to(package.parent).with_suffix("")
        is_package = path.name == "__init__.py"
        modules[".".join(relative.parts[:-1] if is_package else relative.parts)] = (
            path,
            is_package,
        )
    graph: dict[str, set[str]] = {}
    for module, (path, is_package) in modules.items():
        targets = graph.setdefault(module, set())
        for name in _imported(ast.parse(path.read_text(), str(path)), module, is_package):
            while name and name not in modules:  # package.attribute -> package
                name = name.rpartition(".")[0]
            if name and name != module and not module.startswith(name + "."):
                targets.add(name)
    return graph


@pytest.mark.slow
def test_no_import_cycles_between_modules_of_the_tui() -> None:
    """A widget that calls back into its container's module (a field into its form) is a
    cycle: it posts a message instead."""
    graph = module_graph(PACKAGE)
    tui = {m: {t for t in ts if t.startswith("inspector.tui.")} for m, ts in graph.items()}
    found = [c for c in cycles(tui) if any(m.startswith("inspector.tui.") for m in c)]
    assert not found, f"import cycles: {found}"
    fields = graph["inspector.tui.widgets.form_fields"]
    assert "inspector.tui.widgets.schema_form" not in fields
