"""The pytest plugin, as a user runs it: ``pytest`` in a child process on a folder of
collections, and on a hand-written test using the ``mcp_client`` fixture (demo server)."""

from __future__ import annotations

import subprocess
import textwrap
from pathlib import Path

import pytest
from collections_support import SDK, demo_file, write
from paths import PY, ROOT


def pytest_in(folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``pytest ARGS`` run in ``folder`` (its own rootdir: this project's conftest unused)."""
    return subprocess.run(
        [PY, "-m", "pytest", "-p", "no:cacheprovider", "-q", *args],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=folder,
        check=False,
    )


@pytest.mark.slow
def test_collections_are_collected_one_item_per_step(tmp_path: Path) -> None:
    demo_file(
        tmp_path / "good.mcp.yaml",
        textwrap.dedent(
            """\
            steps:
              - call: add_note
                arguments: {title: a, body: b}
                save: {uri: "$.content[1].uri"}
              - name: read it back
                read: "${uri}"
                expect: {contains: b}
            """
        ),
    )
    demo_file(
        tmp_path / "failing.mcp.yaml",
        "steps:\n  - list: tools\n  - call: add\n    arguments: {a: 1, b: 2}\n"
        "    expect:\n      text: '4'\n",
    )
    (tmp_path / "notes.yaml").write_text("not: a collection\n")  # not *.mcp.yaml: ignored
    done = pytest_in(tmp_path, "-rA")
    assert done.returncode == 1, done.stdout + done.stderr
    assert "1 failed, 3 passed" in done.stdout
    assert "PASSED good.mcp.yaml::read it back" in done.stdout
    assert "FAILED failing.mcp.yaml::call add" in done.stdout
    failure = done.stdout.split("_ call add _")[1]
    assert f"{tmp_path / 'failing.mcp.yaml'}:4: call add" in failure
    assert 'E   text: expected "4", got "1 + 2 = 3"' in failure
    assert "inspector/" not in failure  # no traceback through the plugin
    # one step picked: the steps before it run too (its ${uri} comes from them)
    picked = pytest_in(tmp_path, "good.mcp.yaml::read it back")
    assert "1 passed" in picked.stdout, picked.stdout


@pytest.mark.slow
def test_mcp_update_writes_the_snapshots_then_they_are_compared(tmp_path: Path) -> None:
    demo_file(
        tmp_path / "snap.mcp.yaml",
        "steps:\n  - call: add\n    arguments: {a: 1, b: 2}\n    expect: {snapshot: true}\n",
    )
    assert "no golden copy" in pytest_in(tmp_path).stdout
    assert "1 passed" in pytest_in(tmp_path, "--mcp-update").stdout
    assert "1 + 2 = 3" in (tmp_path / "__snapshots__" / "snap.mcp.yaml.json").read_text()
    assert "1 passed" in pytest_in(tmp_path).stdout


@pytest.mark.slow
def test_a_bad_collection_is_a_collection_error_with_its_line(tmp_path: Path) -> None:
    demo_file(tmp_path / "bad.mcp.yaml", "steps:\n  - call: add\n    expcet: {}\n")
    done = pytest_in(tmp_path)
    assert done.returncode == 2
    assert f"{tmp_path / 'bad.mcp.yaml'}:4: steps[0].expcet: unknown key 'expcet'" in done.stdout
    assert "Traceback" not in done.stdout


@pytest.mark.slow
def test_mcp_target_overrides_the_files_server(tmp_path: Path) -> None:
    write(tmp_path / "sdk.mcp.yaml", ["no-such-server-hc"], "steps:\n  - read: sdk://greeting\n")
    done = pytest_in(tmp_path, "--mcp-target", " ".join(SDK))
    assert "1 passed" in done.stdout, done.stdout + done.stderr


FIXTURE_TEST = """
import pytest
from inspector.wire.jsonrpc import RpcError


def test_add(mcp_client):
    result = mcp_client.call("add", a=2, b=3)
    assert result.text == "2 + 3 = 5"
    assert not result.is_error


def test_weather_is_structured(mcp_client):
    result = mcp_client.call("get_weather", {"city": "Oslo"})
    assert result.structured["city"] == "Oslo"
    sent = [m for m in mcp_client.messages if m.get("method") == "tools/call"]
    assert sent[-1]["params"]["arguments"] == {"city": "Oslo"}
    assert any(e.direction == "in" and e.method is None for e in mcp_client.events)
    assert mcp_client.messages[0]["method"] in ("initialize", "server/discover")  # all of it


def test_errors(mcp_client):
    assert mcp_client.call("divide", dividend=1, divisor=0).is_error
    with pytest.raises(RpcError) as caught:
        mcp_client.call("raise_error")
    assert caught.value.code == -32603


def test_read_prompt_list(mcp_client):
    assert "demo" in mcp_client.read("demo://readme").text.lower()
    assert "x = 1" in mcp_client.prompt("code_review", code="x = 1", language="python").text
    assert "add" in [t["name"] for t in mcp_client.list("tools")]
"""


@pytest.mark.slow
def test_the_fixture_connects_to_the_demo_server(tmp_path: Path) -> None:
    (tmp_path / "test_demo.py").write_text(FIXTURE_TEST)
    done = pytest_in(tmp_path)
    assert "4 passed" in done.stdout, done.stdout + done.stderr
    assert done.returncode == 0


@pytest.mark.slow
def test_the_fixture_follows_mcp_target(tmp_path: Path) -> None:
    (tmp_path / "test_sdk.py").write_text(
        "def test_greeting(mcp_client):\n"
        "    assert mcp_client.read('sdk://greeting').text == 'hello from the SDK'\n"
        "    assert mcp_client.call('add', a=1, b=2).structured == {'total': 3}\n"
    )
    (tmp_path / "pytest.ini").write_text(f"[pytest]\nmcp_target = {' '.join(SDK)}\n")
    done = pytest_in(tmp_path)
    assert "1 passed" in done.stdout, done.stdout + done.stderr


def test_loading_the_plugin_loads_nothing_else() -> None:
    """pytest loads the plugin in every run (this project's too): it must stay cheap."""
    code = (
        "import sys, inspector.pytest_plugin\n"
        "print(sorted(m for m in sys.modules if m.startswith('inspector')))\n"
    )
    done = subprocess.run([PY, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    # inspector.errors imports nothing: the plugin's StepFailed derives from its base
    loaded = "['inspector', 'inspector.errors', 'inspector.pytest_plugin']"
    assert done.stdout.strip() == loaded
