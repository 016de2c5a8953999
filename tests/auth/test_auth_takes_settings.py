"""The OAuth package takes settings, not the command line's namespace: the flags are read
in ``commands/oauth_options``; ``auth.options.over_config`` lays them over a config file's
``oauth`` object."""

from __future__ import annotations

import ast

import pytest
from paths import ROOT

from inspector.auth.errors import OptionError
from inspector.auth.options import over_config
from inspector.auth.settings import AuthSettings


def test_no_module_of_the_auth_package_imports_argparse() -> None:
    for path in sorted((ROOT / "inspector" / "auth").glob("*.py")):
        tree = ast.parse(path.read_text("utf-8"))
        names = {
            alias.name.split(".")[0]
            for node in ast.walk(tree)
            if isinstance(node, ast.Import)
            for alias in node.names
        } | {
            (node.module or "").split(".")[0]
            for node in ast.walk(tree)
            if isinstance(node, ast.ImportFrom)
        }
        assert "argparse" not in names, path.name


def test_settings_over_a_config_object() -> None:
    config = {"clientId": "conf", "callbackPort": 8765, "scopes": ["a b", "c"]}
    merged = over_config(AuthSettings(), config, {"MCP_CLIENT_SECRET": "env"})
    assert (merged.client_id, merged.callback_port, merged.scopes, merged.client_secret) == (
        "conf",
        8765,
        ["a", "b", "c"],
        "env",
    )
    # what the flags set wins; an empty --scope list is a choice, not "unset"
    flagged = over_config(AuthSettings(client_id="flag", scopes=[]), config, {})
    assert (flagged.client_id, flagged.scopes) == ("flag", [])
    with pytest.raises(OptionError, match="needs --client-id"):
        over_config(AuthSettings(client_credentials=True), {}, {})
