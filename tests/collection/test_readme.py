"""The README's examples of "Testing your server in CI" run as they are written."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest
from cli_inprocess import cli_inprocess
from paths import PY, ROOT


def example(marker: str, language: str) -> str:
    """The fenced block after ``<!-- MARKER`` in the README."""
    readme = (ROOT / "README.md").read_text()
    found = re.search(rf"<!-- {marker}.*?-->\n```{language}\n(.*?)```", readme, re.S)
    assert found is not None, f"no {marker} block in the README"
    return found.group(1)


def test_the_readme_collection_runs_against_the_demo(tmp_path: Path) -> None:
    path = tmp_path / "checks.mcp.yaml"
    path.write_text(example("collection example", "yaml").replace("[python,", f"[{PY},"))
    first = cli_inprocess("test", str(path))
    assert first.returncode == 1 and "no golden copy" in first.stdout  # snapshot not written
    assert cli_inprocess("test", str(path), "--update").returncode == 0
    again = cli_inprocess("test", str(path))
    assert again.returncode == 0, again.stdout + again.stderr
    assert again.stdout.splitlines()[-1].startswith("7 passed, 0 failed")


@pytest.mark.slow
def test_the_readme_fixture_example_passes(tmp_path: Path) -> None:
    (tmp_path / "test_demo.py").write_text(example("fixture example", "python"))
    done = subprocess.run(
        [PY, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_demo.py"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0 and "3 passed" in done.stdout, done.stdout + done.stderr
