"""``mcp-inspect lint``: each rule fires once on a server built to break it
(tests/servers/lint_server.py, stdio_bad_schemas.py, stdio_misbehave.py), never on a
clean tool; the demo's form exercises are flagged as expected; SARIF; exit codes. The
command runs in the test process; as a child process, end to end, for the failures."""

from __future__ import annotations

import io
import json
import re
from collections import Counter
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from cli_inprocess import cli_inprocess
from cli_runner import cli
from paths import PY, ROOT, SERVERS
from rich.console import Console
from servers.lint_server import TOOLS  # which tool breaks which rule

from inspector.commands.lint_report import print_text
from inspector.lint.rules import BY_ID, RULES, catalogue_markdown
from tests.everything import everything_command

LINT_SERVER = [PY, str(SERVERS / "lint_server.py")]


def lint(*args: str) -> tuple[int, dict[str, Any], str]:
    done = cli_inprocess("lint", "--format", "json", *args)
    data = json.loads(done.stdout) if done.stdout.strip() else {}
    return done.returncode, data, done.stderr


@pytest.fixture(scope="module")
def purpose_built() -> dict[str, Any]:
    code, data, err = lint("--", *LINT_SERVER)
    assert code == 1, err
    return data


@pytest.mark.slow
def test_each_catalog_rule_fires_once_on_its_tool(purpose_built: dict[str, Any]) -> None:
    fired = Counter(issue["rule"] for issue in purpose_built["issues"])
    expected = {rule for rule in TOOLS if rule not in ("clean", "output-without-structured")}
    assert fired == Counter({rule: 1 for rule in expected} | {"list-failed": 1})
    for issue in purpose_built["issues"]:
        if issue["rule"] in TOOLS:
            names = {t["name"] for t in TOOLS[issue["rule"]]}
            assert issue["item"] in {f"tools/{n}" for n in names}, issue
        assert issue["level"] == BY_ID[issue["rule"]].level
    assert not [i for i in purpose_built["issues"] if i["item"] == "tools/clean"]
    assert purpose_built["summary"] == {"error": 5, "warning": 5, "info": 1}


def test_schemas_that_are_not_object_schemas() -> None:
    code, data, err = lint("--", PY, str(SERVERS / "stdio_bad_schemas.py"))
    assert code == 1, err
    found = {(i["rule"], i["item"]) for i in data["issues"]}
    assert found == {
        ("input-schema-not-object", "tools/scalar_input"),
        ("output-schema-not-object", "tools/list_output"),
    }


@pytest.mark.slow
def test_output_without_structured_content_is_read_from_a_recorded_call(tmp_path: Path) -> None:
    session = tmp_path / "calls.jsonl"
    for tool in ("unstructured", "clean"):
        done = cli_inprocess(
            "--cli", "--method", "tools/call", "--tool-name", tool, "--tool-arg", "q=x",
            "--no-validate", "--record", str(session.with_suffix(f".{tool}.jsonl")),
            "--", *LINT_SERVER,
        )  # fmt: skip
        assert done.returncode in (0, 8), done.stderr
    code, data, err = lint(str(session.with_suffix(".unstructured.jsonl")))
    assert code == 1, err
    hits = [i for i in data["issues"] if i["rule"] == "output-without-structured"]
    assert [i["item"] for i in hits] == ["tools/unstructured"]
    _, data, _ = lint(str(session.with_suffix(".clean.jsonl")))  # it answered structured
    assert not [i for i in data["issues"] if i["rule"] == "output-without-structured"]


def test_protocol_findings_of_the_engine() -> None:
    code, data, err = lint("--", PY, str(SERVERS / "stdio_misbehave.py"), "unknown-id")
    assert code == 1, err
    found = [(i["rule"], i["level"], i["message"].split("]")[0]) for i in data["issues"]]
    assert ("protocol", "error", "[unknown-id") in found
    assert ("protocol", "warning", "[id-type-mismatch") in found


def test_the_demo_is_clean_but_for_its_form_exercises() -> None:
    """The demo's schedule_event (oneOf), build_tree and legacy_search ($ref) exercise
    forms on purpose: a warning and infos, no error; every other item is clean."""
    code, data, err = lint()
    assert code == 0, err
    found = {(i["item"], i["rule"], i["level"]) for i in data["issues"]}
    assert found == {
        ("tools/schedule_event", "keyword-dropped", "warning"),
        ("tools/build_tree", "ref-used", "info"),
        ("tools/legacy_search", "ref-used", "info"),
    }
    assert data["listed"] == {"tools": 23, "resources": 9, "resourceTemplates": 3, "prompts": 4}


@pytest.mark.slow
def test_a_session_file_is_linted_offline(tmp_path: Path) -> None:
    session = tmp_path / "s.jsonl"
    code, live, err = lint("--record", str(session), "--", *LINT_SERVER)
    assert code == 1, err
    code, offline, err = lint(str(session))
    assert code == 1, err
    assert offline["issues"] == live["issues"] and offline["source"] == str(session)


@pytest.mark.slow
def test_answers_declare_capabilities_and_the_server_lists_what_it_offers_them() -> None:
    """server-everything offers its sampling, elicitation and roots tools only to clients
    that declare those capabilities: --on-sample, --on-elicit and --root declare them."""
    command, args = everything_command()
    code, plain, err = lint("--", command, *args)
    assert code == 0, err
    answers = ["--on-sample", "hello", "--on-elicit", "decline", "--root", str(ROOT)]
    code, capable, err = lint(*answers, "--", command, *args)
    assert code == 0, err
    assert capable["listed"]["tools"] > plain["listed"]["tools"]
    assert capable["listed"]["prompts"] == plain["listed"]["prompts"]


def test_the_text_summary_counts_in_words() -> None:
    console = Console(record=True, width=120, file=io.StringIO())
    data = {
        "source": "s.jsonl",
        "server": {},
        "listed": {"tools": 1},
        "issues": [],
        "summary": {"error": 1, "warning": 2, "info": 3},
        "exitCode": 1,
    }
    print_text(data, console)
    assert "1 error, 2 warnings, 3 info  (exit 1)" in console.export_text()


# A SARIF 2.1.0 log as GitHub code scanning reads it: the fields it requires, from the
# OASIS schema (sarif-schema-2.1.0.json) and GitHub's "SARIF support" page.
SARIF_SHAPE: dict[str, Any] = {
    "type": "object",
    "required": ["version", "runs", "$schema"],
    "properties": {
        "version": {"const": "2.1.0"},
        "runs": {
            "type": "array",
            "minItems": 1,
            "items": {
                "type": "object",
                "required": ["tool", "results"],
                "properties": {
                    "tool": {
                        "type": "object",
                        "required": ["driver"],
                        "properties": {
                            "driver": {
                                "type": "object",
                                "required": ["name", "rules"],
                                "properties": {
                                    "rules": {
                                        "type": "array",
                                        "items": {
                                            "type": "object",
                                            "required": ["id", "shortDescription", "help"],
                                            "properties": {
                                                "id": {"type": "string"},
                                                "help": {
                                                    "type": "object",
                                                    "required": ["text"],
                                                },
                                                "defaultConfiguration": {
                                                    "properties": {
                                                        "level": {
                                                            "enum": ["error", "warning", "note"]
                                                        }
                                                    }
                                                },
                                            },
                                        },
                                    }
                                },
                            }
                        },
                    },
                    "results": {
                        "type": "array",
                        "items": {
                            "type": "object",
                            "required": ["ruleId", "message", "locations", "level"],
                            "properties": {
                                "level": {"enum": ["error", "warning", "note"]},
                                "message": {"type": "object", "required": ["text"]},
                                "locations": {
                                    "type": "array",
                                    "minItems": 1,
                                    "items": {
                                        "type": "object",
                                        "required": ["physicalLocation"],
                                        "properties": {
                                            "physicalLocation": {
                                                "type": "object",
                                                "required": ["artifactLocation", "region"],
                                            }
                                        },
                                    },
                                },
                                "partialFingerprints": {"type": "object"},
                            },
                        },
                    },
                },
            },
        },
    },
}


@pytest.mark.slow
def test_sarif_for_code_scanning(tmp_path: Path, purpose_built: dict[str, Any]) -> None:
    out = tmp_path / "lint.sarif"
    done = cli_inprocess("lint", "--sarif", str(out), "--", *LINT_SERVER)
    assert done.returncode == 1, done.stderr
    log = json.loads(out.read_text())
    jsonschema.Draft202012Validator(SARIF_SHAPE).validate(log)
    run = log["runs"][0]
    rules = run["tool"]["driver"]["rules"]
    assert [r["id"] for r in rules] == [r.id for r in RULES]
    assert len(run["results"]) == len(purpose_built["issues"])
    for result in run["results"]:
        assert rules[result["ruleIndex"]]["id"] == result["ruleId"]
    levels = Counter(r["level"] for r in run["results"])
    assert levels == Counter({"error": 5, "warning": 5, "note": 1})
    location = run["results"][0]["locations"][0]
    assert location["physicalLocation"]["artifactLocation"]["uri"] == "mcp-server"


@pytest.mark.slow
def test_usage_connection_and_file_failures(tmp_path: Path) -> None:
    bad = tmp_path / "notes.jsonl"
    bad.write_text("not a session\n")
    done = cli("lint", str(bad))
    assert done.returncode == 2, done.stderr
    done = cli("lint", "--", "/nonexistent/server-binary")
    assert done.returncode == 3, done.stderr
    assert done.stderr.splitlines()[-1].startswith("mcp-inspect lint: target ("), done.stderr
    done = cli("lint", "--format", "json", "--", "/nonexistent/server-binary")
    assert done.returncode == 3, done.stderr
    assert json.loads(done.stderr.splitlines()[-1])["error"]["kind"] == "connection"
    done = cli("lint", "--sarif", str(tmp_path / "no" / "such" / "dir.sarif"), "--", *LINT_SERVER)
    assert done.returncode == 2 and "--sarif" in done.stderr


def test_the_readme_lists_the_catalogue() -> None:
    readme = (ROOT / "README.md").read_text()
    section = re.search(r"<!-- lint-rules -->\n(.*?)<!-- /lint-rules -->", readme, re.S)
    assert section is not None, "README.md: the lint rule table between its markers"
    assert section.group(1) == catalogue_markdown()


@pytest.mark.slow
def test_a_config_of_several_servers_lints_each(tmp_path: Path) -> None:
    config = tmp_path / "host.json"
    servers = {
        "demo": {"command": PY, "args": ["-m", "inspector.demo"]},
        "gone": {"command": "/nonexistent/server-binary"},
        "broken": {"command": LINT_SERVER[0], "args": LINT_SERVER[1:]},
    }
    config.write_text(json.dumps({"mcpServers": servers}))
    sarif_file = tmp_path / "lint.sarif"
    done = cli_inprocess("lint", "--config", str(config), "--sarif", str(sarif_file))
    assert done.returncode == 3, done.stderr  # a server not reached outranks its errors
    assert done.stdout.startswith("lint demo ") and "\nlint broken " in done.stdout
    assert "mcp-inspect lint: server (gone): command not found" in done.stderr
    assert "3 servers, 1 not reached: 5 errors" in done.stdout
    items = {
        r["message"]["text"].split(":")[0]
        for r in json.loads(sarif_file.read_text())["runs"][0]["results"]
    }
    assert "broken/tools/twin" in items and "demo/tools/schedule_event" in items

    code, data, err = lint("--config", str(config))
    assert code == 3 and [s["source"] for s in data["servers"]] == ["demo", "broken"]
    assert [s["exitCode"] for s in data["servers"]] == [0, 1]
    assert data["failures"][0]["kind"] == "connection" and data["summary"]["error"] == 5
    assert err == ""  # the failure is in the JSON, not said twice

    servers["gone"] = {"command": "${NOT_SET_ANYWHERE_XYZ}"}  # a mistake of its own
    config.write_text(json.dumps({"mcpServers": servers}))
    code, data, err = lint("--config", str(config))
    assert code == 2 and len(data["servers"]) == 2, err  # the others are still linted
    assert "NOT_SET_ANYWHERE_XYZ" in data["failures"][0]["message"]

    del servers["gone"]
    config.write_text(json.dumps({"mcpServers": servers}))
    code, data, err = lint("--config", str(config))
    assert code == 1 and data["failures"] == [], err
    code, one, err = lint("--config", str(config), "--server", "demo")
    assert code == 0 and one["source"] == "demo", err  # one server: its own report
    refused = cli_inprocess("lint", "--config", str(config), "--record", str(tmp_path / "r"))
    assert refused.returncode == 2 and "--record records one server" in refused.stderr
