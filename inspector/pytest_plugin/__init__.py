"""The pytest plugin (entry point ``pytest11``): collections as tests, and a client fixture.

- ``*.mcp.yaml`` (``.mcp.yml``, ``.mcp.json``) files are collected: one item per step,
  all the steps of a file on one connection, run in order; a failed expectation is
  reported like a failed assertion, at the step's line.
- ``mcp_client``: a connected client for hand-written tests (``call``, ``read``,
  ``prompt``, ``request``, ``list``; each result's ``text``, ``structured``,
  ``is_error``; ``events``: the session's wire events). ``mcp_target`` names the server
  (``--mcp-target``, the ``mcp_target`` ini value, else the bundled demo server);
  override that fixture to choose another per test module.

Loading it costs nothing: the engine is imported only when a collection or the fixture
is used (pytest loads the plugin in every run of any project that has it installed).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from inspector.errors import InspectorError

if TYPE_CHECKING:
    from inspector.collection.model import Collection, Step
    from inspector.pytest_plugin.live import LiveCollection, McpTestClient

SUFFIXES = (".mcp.yaml", ".mcp.yml", ".mcp.json")


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("mcp-inspect", "MCP servers (mcp-inspect)")
    group.addoption(
        "--mcp-target",
        metavar="TARGET",
        help="the MCP server of the mcp_client fixture and of collections (over their "
        "server): a URL, or a command line (quoted as one word)",
    )
    group.addoption(
        "--mcp-update",
        action="store_true",
        help="collections: write the golden copies of snapshot: true steps",
    )
    parser.addini("mcp_target", "the MCP server, as --mcp-target", default="")


def _target_words(config: pytest.Config) -> list[str]:
    """``--mcp-target``, else the ini value, split as a shell would ([]: none given)."""
    import shlex

    given = config.getoption("--mcp-target") or config.getini("mcp_target")
    return shlex.split(str(given)) if given else []


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    if file_path.name.endswith(SUFFIXES):
        return CollectionFile.from_parent(parent, path=file_path)
    return None


class CollectionFile(pytest.File):
    """A collection file: its steps are the items; one connection for all of them."""

    collection: Collection
    live: LiveCollection | None = None

    def collect(self) -> Iterator[pytest.Item]:
        from inspector.collection.load import load_collection
        from inspector.collection.snapshot import snapshot_keys

        self.collection = load_collection(self.path)
        keys = snapshot_keys(self.collection)
        for step in self.collection.steps:
            yield StepItem.from_parent(self, name=keys[step.index], step=step)

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException]) -> Any:  # type: ignore[override]
        """A bad file: its file, line, key and what to do, without a traceback."""
        from inspector.errors import InspectorError

        if isinstance(excinfo.value, InspectorError):
            return str(excinfo.value)
        return super().repr_failure(excinfo)

    def setup(self) -> None:
        from inspector.pytest_plugin.live import LiveCollection

        self.live = LiveCollection(
            self.collection,
            _target_words(self.config),
            update=bool(self.config.getoption("--mcp-update")),
        )
        self.live.open()

    def teardown(self) -> None:
        if self.live is not None:
            self.live.close()
            self.live = None


class StepFailed(InspectorError):
    """A step whose expectations did not hold (shown without a traceback)."""


class StepItem(pytest.Item):
    """One step of a collection file."""

    def __init__(self, *, step: Step, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.step = step

    def runtest(self) -> None:
        parent = self.parent
        assert isinstance(parent, CollectionFile) and parent.live is not None
        result = parent.live.result_of(self.step.index)
        if result.status == "skipped":
            pytest.skip(result.reason)
        if result.status != "passed":
            said = [f.message for f in result.failures] or [result.reason]
            raise StepFailed("\n".join(said))

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> Any:
        from inspector.errors import InspectorError

        if isinstance(excinfo.value, StepFailed | InspectorError):
            where = f"{self.path}:{self.step.line}: {self.step.title}"
            return f"{where}\nE   " + str(excinfo.value).replace("\n", "\nE   ")
        return super().repr_failure(excinfo, style)

    def reportinfo(self) -> tuple[Path, int, str]:
        return self.path, self.step.line - 1, self.name


@pytest.fixture
def mcp_target(request: pytest.FixtureRequest) -> list[str]:
    """The server of ``mcp_client``: a URL or a command line as words ([]: the demo server).
    Override it in a conftest.py or a test module to test your own server."""
    return _target_words(request.config)


@pytest.fixture
def mcp_client(mcp_target: list[str] | str) -> Iterator[McpTestClient]:
    """A client connected to ``mcp_target`` (closed, and the server stopped, after the test)."""
    from inspector.pytest_plugin.live import McpTestClient

    words = mcp_target.split() if isinstance(mcp_target, str) else list(mcp_target)
    client = McpTestClient(words)
    client.open()
    try:
        yield client
    finally:
        client.close()
