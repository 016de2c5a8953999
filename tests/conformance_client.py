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

import atexit
import contextlib
import json
import os
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

# What the suite's fixed client metadata URL is (auth/basic-cimd): a CLI cannot host the
# document itself, so a user passes the URL where theirs is published.
CIMD_URL = "https://conformance-test.local/client-metadata.json"
CALL_TEST_TOOL = ["--method", "tools/call", "--tool-name", "test-tool"]


def scenario_commands(scenario: str, context: dict[str, Any]) -> list[list[str]]:
    """The command lines (flags; the server URL is appended) a user types for a scenario,
    in order: one for most, several where the scenario wants more than one call."""
    if scenario == "sep-2322-client-request-state":
        # multi round-trip requests: a tool asking with requestState, one without, an
        # unrelated call between rounds, and a result without resultType
        return [
            [*CALL, name, "--on-elicit", "accept-defaults"]
            for name in (
                "test_mrtr_echo_state",
                "test_mrtr_unrelated",
                "test_mrtr_no_state",
                "test_mrtr_no_result_type",
            )
        ]
    if scenario == "http-custom-headers":
        # a null argument is outside the schema: the CLI says so and --no-validate sends it
        return [
            [*CALL, str(call["name"]), "--tool-args-json", json.dumps(call["arguments"])]
            + (["--no-validate"] if None in call["arguments"].values() else [])
            for call in context.get("toolCalls", [])
        ]
    if scenario == "http-invalid-tool-headers":
        return [["--method", "tools/list"], [*CALL, "valid_tool", "--tool-arg", "region=us"]]
    if scenario == "json-schema-2020-12-preservation":
        # the tool's inputSchema as tools/list printed it, passed back to the echo tool
        return [["--method", "tools/list"], [ECHO_LISTED_SCHEMA]]
    if scenario == "http-standard-headers":  # Mcp-Method and Mcp-Name on each kind of call
        return [
            [*CALL, "my-hyphenated-tool"],
            ["--method", "resources/read", "--uri", "file:///path/to/file%20name.txt"],
            ["--method", "prompts/get", "--prompt-name", "test_prompt"],
        ]
    if scenario == "sep-2640-client-no-prefetch":  # the listing, and nothing read
        return [["--method", "skills/list"]]
    if scenario.startswith("sep-2640-client-verify-"):
        # list the skills, then load the first one listed (what a user copies from it)
        return [["--method", "skills/list"], [GET_LISTED_SKILL]]
    return [scenario_flags(scenario, context)]


CALL = ["--method", "tools/call", "--tool-name"]
# a command line made from the previous one's output (what a user copies from it)
ECHO_LISTED_SCHEMA = "<echo the listed schema>"
GET_LISTED_SKILL = "<get the first listed skill>"


def echo_listed_schema(listed: str) -> list[str]:
    """Call json_schema_echo with json_schema_2020_12_tool's inputSchema, verbatim."""
    tools = json.loads(listed)["tools"]
    schema = next(t["inputSchema"] for t in tools if t["name"] == "json_schema_2020_12_tool")
    return [*CALL, "json_schema_echo", "--tool-args-json", json.dumps({"schema": schema})]


def get_listed_skill(listed: str) -> list[str]:
    """Get (load, verify) the first skill ``skills/list`` printed."""
    uri = json.loads(listed)["skills"][0]["uri"]
    return ["--method", "skills/get", "--uri", uri]


def scenario_flags(scenario: str, context: dict[str, Any]) -> list[str]:
    """The flags for a scenario run with one command line."""
    if scenario in ("initialize", "request-metadata", "json-schema-ref-no-deref"):
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
    if scenario in (
        "auth/cross-app-access-complete-flow",  # suite 0.1.x
        "auth/enterprise-managed-authorization",  # its name since 0.2.0
    ):
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
    if scenario == "auth/wif-jwt-bearer":  # the platform's token, in a file as CI gets it
        token_file = _secret_file(str(context["valid_jwt"]), ".jwt")
        return [*flags, "--client-id", context["client_id"], "--workload-token-file", token_file]
    flags.append("--auth-follow")
    if scenario == "auth/pre-registration":
        flags += ["--client-id", context["client_id"], "--client-secret", context["client_secret"]]
    if scenario == "auth/basic-cimd":
        flags += ["--client-metadata-url", CIMD_URL]
    return flags


CREATED: list[str] = []  # the files ``_secret_file`` wrote, removed at exit


def _secret_file(text: str, suffix: str) -> str:
    """A 0600 temporary file holding ``text``, removed when this process exits (each run
    of the suites left dozens of keys and tokens in the temporary folder)."""
    fd, path = tempfile.mkstemp(prefix="mcp-inspect-conformance-", suffix=suffix)
    CREATED.append(path)
    atexit.register(_remove, path)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:  # mkstemp: mode 0600
        handle.write(text)
    return path


def _remove(path: str) -> None:
    with contextlib.suppress(OSError):
        os.unlink(path)


def _private_key_file(pem: str) -> str:
    return _secret_file(pem, ".pem")


def main() -> None:
    if len(sys.argv) < 2:
        raise SystemExit("usage: conformance_client.py SERVER_URL (run by the conformance suite)")
    url = sys.argv[-1]
    scenario = os.environ.get("MCP_CONFORMANCE_SCENARIO", "")
    context = json.loads(os.environ.get("MCP_CONFORMANCE_CONTEXT") or "{}")
    lines = scenario_commands(scenario, context)
    record_dir = os.environ.get("MCP_INSPECT_CONFORMANCE_RECORD")
    extra = shlex.split(os.environ.get("MCP_INSPECT_CONFORMANCE_EXTRA", ""))
    program = Path(sys.executable).with_name("mcp-inspect")
    command = [str(program)] if program.exists() else [sys.executable, "-m", "inspector"]
    worst = 0
    printed = ""
    for number, flags in enumerate(lines, 1):
        if flags == [ECHO_LISTED_SCHEMA]:
            flags = echo_listed_schema(printed)
        elif flags == [GET_LISTED_SKILL]:
            flags = get_listed_skill(printed)
        argv = ["--cli", *flags]
        if record_dir:
            argv += ["--record", str(Path(record_dir) / record_name(scenario, number))]
        argv += [*extra, url]
        sys.stderr.write("conformance_client: " + shlex.join([*command, *argv]) + "\n")
        sys.stderr.flush()
        if len(lines) == 1 and not CREATED:  # (files to remove after: run, then exit)
            os.execv(command[0], [*command, *argv])  # what the user typed, as it exits
        done = subprocess.run([*command, *argv], stdout=subprocess.PIPE, text=True, check=False)
        printed = done.stdout
        sys.stdout.write(printed)
        sys.stdout.flush()
        worst = max(worst, done.returncode)
    sys.exit(worst)


def record_name(scenario: str, number: int = 1) -> str:
    """The recording of a scenario's ``number``-th command line."""
    stem = scenario.replace("/", "_")
    return f"{stem}.jsonl" if number == 1 else f"{stem}.{number}.jsonl"


if __name__ == "__main__":
    main()
