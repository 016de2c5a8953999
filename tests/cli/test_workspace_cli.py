"""The command line's workspace forms: ``--config`` without ``--server`` with several
servers, repeated ``--target`` (with TARGET words as one more); single-server forms
stay as they were; bad combinations are usage errors that say what to do."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from inspector.commands import build_parser, main, workspace
from inspector.commands.options import UsageError


def parse(argv: list[str]) -> object:
    return build_parser(subcommands=False).parse_args(argv)


def config(tmp_path: Path, names: list[str]) -> str:
    path = tmp_path / "mcp.json"
    servers = {n: {"command": "python", "args": [f"{n}.py"]} for n in names}
    path.write_text(json.dumps({"mcpServers": servers}), encoding="utf-8")
    return str(path)


def test_several_config_servers_are_a_workspace(tmp_path: Path) -> None:
    path = config(tmp_path, ["b", "a", "c"])
    opts = parse(["--config", path])
    assert workspace.wanted(opts, [])  # type: ignore[arg-type]
    assert [e.name for e in workspace.entries(opts, [])] == ["b", "a", "c"]  # type: ignore[arg-type]
    assert not workspace.wanted(parse(["--config", path, "--server", "a"]), [])  # type: ignore[arg-type]
    assert not workspace.wanted(parse(["--config", config(tmp_path, ["only"])]), [])  # type: ignore[arg-type]


def test_repeated_target_with_target_words_as_one_more() -> None:
    opts = parse(["--target", "python a.py --flag", "--target", "https://h.example/mcp"])
    found = workspace.entries(opts, ["python", "b.py"])  # type: ignore[arg-type]
    assert [e.name for e in found] == ["a", "h.example", "b"]
    assert found[0].target.args == ["a.py", "--flag"]
    assert not workspace.wanted(parse([]), ["python", "a.py"])  # type: ignore[arg-type]


def test_bad_workspace_forms_are_usage_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(UsageError, match="no further words"):
        workspace.entries(parse(["--target", "https://h/mcp x"]), [])  # type: ignore[arg-type]
    assert main(["--cli", "--config", config(tmp_path, ["a", "b"]), "--method", "tools/list"]) == 2
    assert "--cli calls one server" in capsys.readouterr().err
