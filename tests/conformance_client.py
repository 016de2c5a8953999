"""Adapter: a conformance-suite client scenario -> the ``mcp-inspect --cli`` line a user types.

The suite runs ``python tests/conformance_client.py SERVER_URL`` with the scenario's name in
``MCP_CONFORMANCE_SCENARIO`` and its data (pre-registered credentials, a private key, an
identity provider's token) in ``MCP_CONFORMANCE_CONTEXT``. This script only chooses the
flags; the command it prints on stderr and then runs (``exec``, same process) is plain
``mcp-inspect``. A private key from the context goes into a 0600 file, as a user keeps one.

``MCP_INSPECT_CONFORMANCE_RECORD``: a folder; the session is recorded there as
``<scenario with / as _>.jsonl`` so a test can check what went over the wire.
``MCP_INSPECT_CONFORMANCE_EXTRA``: extra flags (shell words) appended, for experiments.
"""

from __future__ import annotations

import json
import os
import shlex
import sys
import tempfile
from pathlib import Path
from typing import Any

# What the suite's fixed client metadata URL is (auth/basic-cimd): a CLI cannot host the
# document itself, so a user passes the URL where theirs is published.
CIMD_URL = "https://conformance-test.local/client-metadata.json"
CALL_TEST_TOOL = ["--method", "tools/call", "--tool-name", "test-tool"]


def scenario_flags(scenario: str, context: dict[str, Any]) -> list[str]:
    """The flags for one scenario (the server URL is appended by the caller)."""
    if scenario == "initialize":
        return ["--method", "tools/list"]
    if scenario == "tools_call":
        return [
            "--method",
            "tools/call",
            "--tool-name",
            "add_numbers",
            "--tool-arg",
            "a=2",
            "--tool-arg",
            "b=3",
        ]
    if scenario == "elicitation-sep1034-client-defaults":
        return [
            "--method",
            "tools/call",
            "--tool-name",
            "test_client_elicitation_defaults",
            "--on-elicit",
            "accept-defaults",
        ]
    if scenario == "sse-retry":
        return ["--method", "tools/call", "--tool-name", "test_reconnection"]
    if not scenario.startswith("auth/"):
        raise SystemExit(f"conformance_client: no command line for scenario {scenario!r}")
    return [*CALL_TEST_TOOL, *auth_flags(scenario, context)]


def auth_flags(scenario: str, context: dict[str, Any]) -> list[str]:
    """OAuth flags: the authorization server approves without a person, so the CLI
    follows the authorization URL itself (--auth-follow); tokens stay in memory."""
    flags = ["--no-store"]
    if scenario == "auth/client-credentials-jwt":
        key = _private_key_file(str(context["private_key_pem"]))
        return [
            *flags,
            "--client-credentials",
            "--client-id",
            context["client_id"],
            "--private-key",
            key,
        ]
    if scenario == "auth/client-credentials-basic":
        return [
            *flags,
            "--client-credentials",
            "--client-id",
            context["client_id"],
            "--client-secret",
            context["client_secret"],
        ]
    if scenario == "auth/cross-app-access-complete-flow":
        token_file = _secret_file(str(context["idp_id_token"]), ".jwt")
        return [
            *flags,
            "--client-id",
            context["client_id"],
            "--client-secret",
            context["client_secret"],
            "--idp-token-endpoint",
            context["idp_token_endpoint"],
            "--idp-client-id",
            context["idp_client_id"],
            "--idp-id-token-file",
            token_file,
        ]
    flags.append("--auth-follow")
    if scenario == "auth/pre-registration":
        flags += ["--client-id", context["client_id"], "--client-secret", context["client_secret"]]
    if scenario == "auth/basic-cimd":
        flags += ["--client-metadata-url", CIMD_URL]
    return flags


def _secret_file(text: str, suffix: str) -> str:
    fd, path = tempfile.mkstemp(prefix="mcp-inspect-conformance-", suffix=suffix)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:  # mkstemp: mode 0600
        handle.write(text)
    return path


def _private_key_file(pem: str) -> str:
    return _secret_file(pem, ".pem")


def main() -> None:
    if len(sys.argv) < 2:
        raise SystemExit("usage: conformance_client.py SERVER_URL (run by the conformance suite)")
    url = sys.argv[-1]
    scenario = os.environ.get("MCP_CONFORMANCE_SCENARIO", "")
    context = json.loads(os.environ.get("MCP_CONFORMANCE_CONTEXT") or "{}")
    argv = ["--cli", *scenario_flags(scenario, context)]
    record_dir = os.environ.get("MCP_INSPECT_CONFORMANCE_RECORD")
    if record_dir:
        argv += ["--record", str(Path(record_dir) / (scenario.replace("/", "_") + ".jsonl"))]
    argv += shlex.split(os.environ.get("MCP_INSPECT_CONFORMANCE_EXTRA", ""))
    argv.append(url)
    program = Path(sys.executable).with_name("mcp-inspect")
    command = [str(program)] if program.exists() else [sys.executable, "-m", "inspector"]
    sys.stderr.write("conformance_client: " + shlex.join([*command, *argv]) + "\n")
    sys.stderr.flush()
    os.execv(command[0], [*command, *argv])


if __name__ == "__main__":
    main()
