"""The tests' npm installer counts a package as installed only once npm has finished."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests import npm_packages

PACKAGE = "@example/server"
VERSION = "1.2.3"


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setattr(npm_packages, "CACHE", tmp_path)
    return tmp_path


def unpack_own_files(version: str = VERSION) -> None:
    """What npm has written early in an install: the package's own manifest."""
    folder = npm_packages.package_dir(PACKAGE, VERSION)
    folder.mkdir(parents=True)
    (folder / "package.json").write_text(json.dumps({"name": PACKAGE, "version": version}))


def test_a_package_whose_install_is_still_running_is_not_installed(cache: Path) -> None:
    # A CI run started node here while npm was still unpacking zod: the package's own
    # package.json alone must not count.
    unpack_own_files()
    assert not npm_packages._installed(PACKAGE, VERSION)


def test_a_finished_install_counts(cache: Path) -> None:
    unpack_own_files()
    npm_packages._marker(PACKAGE, VERSION).write_text(VERSION)
    assert npm_packages._installed(PACKAGE, VERSION)


def test_a_manifest_of_another_version_does_not_count(cache: Path) -> None:
    unpack_own_files("1.0.0")
    npm_packages._marker(PACKAGE, VERSION).write_text(VERSION)
    assert not npm_packages._installed(PACKAGE, VERSION)
