"""``mcp-inspect test`` against the demo server and an official-SDK server: passing and
failing expectations (each kind once), save and ``${var}``, snapshots, answers to the
server's requests, secrets, --fail-fast, JUnit (read by junitparser), annotations. The
command runs in the test process; as a child process, end to end, in the first test and
on a terminal."""

from __future__ import annotations

import json
import os
import textwrap
from pathlib import Path

import pytest
from cli_inprocess import cli_inprocess
from cli_runner import cli, inspector_argv
from collections_support import BAD_OUTPUT, SDK, demo_file, run_json, steps, write
from junitparser import Error, Failure, JUnitXml, Skipped
from paths import DEMO, ROOT

PASSING = textwrap.dedent(
    """\
    vars: {a: 2, title: groceries}
    steps:
      - call: add
        arguments: {a: "${a}", b: 3}
        expect:
          text: "2 + 3 = 5"
          matches: '^\\d \\+ \\d = 5$'
          latency_ms: {under: 5000}
      - name: weather in Paris
        call: get_weather
        arguments: {city: Paris}
        expect:
          jsonpath: {"$.structuredContent.city": Paris, "$.content[0].type": text}
          exists: [$.structuredContent.temperature]
          absent: [$.structuredContent.password]
          schema: {type: object, required: [structuredContent]}
      - call: divide
        arguments: {dividend: 1, divisor: 0}
        expect: {isError: true, contains: zero}
      - call: add_note
        arguments: {title: "${title}", body: milk and eggs}
        save: {note: "$.content[1].uri"}
      - read: "${note}"
        expect: {contains: milk and eggs}
      - prompt: code_review
        arguments: {code: "print(${a})", language: python}
        expect: {contains: "print(2)"}
      - list: tools
        expect: {contains: [add, echo, get_weather]}
      - list: templates
      - request: {method: ping}
        expect: {jsonpath: {"$": {}}}
      - call: raise_error
        arguments: {}
        expect: {error: {code: -32603}}
      - call: ask_llm
        arguments: {question: "what is six times seven?"}
        answers: {sample: "forty-two ${title}"}
        expect: {contains: forty-two groceries}
      - call: book_table
        arguments: {restaurant: Chez Test}
        answers: {elicit: {party_size: 3, name: Ada, date: "2026-12-01"}}
        expect: {contains: "for 3 under the name Ada"}
      - call: book_table
        arguments: {}
        answers: {elicit: decline}
        expect: {contains: declined}
      - call: list_roots
        answers: {roots: [.]}
        expect: {contains: "1 root(s)"}
    """
)


def test_a_passing_collection_exits_0_with_a_line_per_step(tmp_path: Path) -> None:
    path = demo_file(tmp_path / "demo.mcp.yaml", PASSING)
    junit = tmp_path / "report.xml"
    done = cli("test", str(path), "--junit", str(junit))
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == str(path)
    assert sum(line.startswith("  PASS  ") for line in lines) == 14
    assert "  PASS  weather in Paris (" in done.stdout
    assert lines[-1].startswith("14 passed, 0 failed in ")
    xml = JUnitXml.fromfile(str(junit))
    suites = list(xml)
    assert [s.name for s in suites] == [str(path)]
    assert (suites[0].tests, suites[0].failures, suites[0].errors) == (14, 0, 0)
    cases = list(suites[0])
    assert cases[1].name == "weather in Paris" and cases[1].is_passed


@pytest.mark.slow
def test_an_official_sdk_server_answers_a_collection(tmp_path: Path) -> None:
    """Structured output, sampling and elicitation answered (the SDK sends those only in
    a handshake era: pinned), a resource and a prompt."""
    body = textwrap.dedent(
        """\
        steps:
          - call: add
            arguments: {a: 2, b: 3}
            expect: {jsonpath: {"$.structuredContent.total": 5}}
          - call: ask
            arguments: {question: hi}
            answers: {sample: forty-two}
            expect: {text: "model said: forty-two"}
          - call: reserve
            answers: {elicit: {seats: 4, window: true}}
            expect: {text: "reserved 4 seats, window=True"}
          - call: reserve
            answers: {elicit: accept-defaults}
            expect: {text: "reserved 2 seats, window=False"}
          - call: reserve
            answers: {elicit: cancel}
            expect: {text: "no reservation (cancel)"}
          - read: sdk://greeting
            expect: {text: hello from the SDK}
          - prompt: review
            arguments: {code: x}
            expect: {contains: "Please review: x"}
        """
    )
    path = write(tmp_path / "sdk.mcp.yaml", SDK, body)
    done, report = run_json(str(path), "--protocol-version", "2025-11-25")
    assert done.returncode == 0, json.dumps(report, indent=1)
    assert [s["status"] for s in steps(report)] == ["passed"] * 7


# Each step fails exactly one expectation kind; (the kind, words of its message).
FAILING = textwrap.dedent(
    """\
    steps:
      - call: divide
        arguments: {dividend: 1, divisor: 0}
      - call: add
        arguments: {a: 1, b: 2}
        expect: {error: {code: -32602}}
      - call: raise_error
        arguments: {}
        expect: {error: {code: -32602}}
      - call: raise_error
        arguments: {}
        expect: {error: {message: "no such words"}}
      - call: add
        arguments: {a: 1, b: 2}
        expect: {text: "3"}
      - call: add
        arguments: {a: 1, b: 2}
        expect: {contains: "= 4"}
      - call: add
        arguments: {a: 1, b: 2}
        expect: {matches: '^\\d+$'}
      - call: get_weather
        arguments: {city: Paris}
        expect: {jsonpath: {"$.structuredContent.city": Rome}}
      - call: get_weather
        arguments: {city: Paris}
        expect: {exists: [$.structuredContent.pressure]}
      - call: get_weather
        arguments: {city: Paris}
        expect: {absent: [$.structuredContent.city]}
      - call: get_weather
        arguments: {city: Paris}
        expect: {schema: {type: object, properties: {structuredContent: {type: string}}}}
      - call: add
        arguments: {a: 1, b: 2}
        expect: {latency_ms: {under: 0.001}}
        answers: {elicit: decline}
      - call: add
        arguments: {a: 1, b: 2}
        expect: {snapshot: true}
      - call: add
        arguments: {a: 1, b: 2}
        save: {missing: $.structuredContent.nothing}
      - call: echo
        arguments: {message: "${missing}"}
      - call: book_table
        arguments: {}
      - request: {method: no/such/method}
    """
)
KINDS = [
    ("isError", "isError: expected false, got true"),
    ("error", "error: expected a JSON-RPC error"),
    ("error.code", "error.code: expected -32602, got -32603"),
    ("error.message", 'error.message: expected it to contain "no such words"'),
    ("text", 'text: expected "3", got "1 + 2 = 3"'),
    ("contains", 'contains: "= 4" is not in the text "1 + 2 = 3"'),
    ("matches", "matches: /^\\d+$/ finds nothing"),
    ("jsonpath $.structuredContent.city", 'expected "Rome", got "Paris"'),
    ("exists $.structuredContent.pressure", "found nothing at this path"),
    ("absent $.structuredContent.city", 'expected nothing, found "Paris"'),
    ("schema", "schema: the result does not match: structuredContent:"),
    ("latency_ms", "expected under 0.001 ms"),
    ("snapshot", "no golden copy"),
    ("save missing", "save missing: $.structuredContent.nothing found nothing"),
    ("save", "${missing} has no value: the step that saves it did not find it"),
    ("answers", "the server sent elicitation/create during this step, which has no answers.elicit"),
    ("error", "error: JSON-RPC error -32601"),
]


def test_each_expectation_kind_fails_once_naming_itself(tmp_path: Path) -> None:
    failing = demo_file(tmp_path / "a-failing.mcp.yaml", FAILING)
    bad_output = write(
        tmp_path / "b-output.mcp.yaml",
        BAD_OUTPUT,
        "steps:\n  - call: mismatch\n  - call: good\n",
    )
    junit = tmp_path / "report.xml"
    done, report = run_json(str(failing), str(bad_output), "--junit", str(junit))
    assert done.returncode == 1, done.stderr
    got = steps(report)
    assert len(got) == len(KINDS)
    # the answers step also fails its isError check: the tool reports the refusal (a step
    # of the file answers elicitation, so the session declared it)
    for step, (kind, words) in zip(got, KINDS, strict=True):
        assert step["status"] == "failed", step
        failure = next(f for f in step["failures"] if f["expectation"] == kind)
        assert words in failure["message"], (kind, failure["message"])
    assert [len(s["failures"]) for s in got if s["name"] != "call book_table"] == [1] * 16
    output = steps(report, 1)
    assert output[0]["failures"][0]["expectation"] == "outputSchema"
    assert "temp: " in output[0]["failures"][0]["message"]
    assert output[1]["status"] == "passed"
    # the lines say the same, at the line of the failed expectation
    assert "FAIL  call add, line 7: error: expected a JSON-RPC error" in done.stderr
    # JUnit: the failure's message names the expectation; its text has expected and actual
    suites = list(JUnitXml.fromfile(str(junit)))
    case = list(suites[0])[4]
    assert case.name == "call add" and not case.is_passed
    (result,) = case.result
    assert isinstance(result, Failure)
    assert result.type == "text" and result.message.startswith('text: expected "3"')
    assert 'expected: "3"' in (result.text or "") and 'actual: "1 + 2 = 3"' in (result.text or "")
    assert (suites[0].tests, suites[0].failures) == (17, 17)
    assert (suites[1].tests, suites[1].failures) == (2, 1)


def test_save_fills_later_steps_and_vars_keep_their_type(tmp_path: Path) -> None:
    body = textwrap.dedent(
        """\
        vars: {n: 4}
        steps:
          - call: add_note
            arguments: {title: plan, body: "step one"}
            save: {uri: "$.content[1].uri", name: "$.content[1].name"}
          - read: "${uri}"
            expect: {contains: "step one"}
          - call: echo
            arguments: {message: "${name} at ${uri}", repeat: "${n}"}
            expect: {matches: '^(note-\\d+ at demo://notes/\\d+\\s*){4}$'}
        """
    )
    done, report = run_json(str(demo_file(tmp_path / "save.mcp.yaml", body)))
    assert done.returncode == 0, json.dumps(report, indent=1)


@pytest.mark.slow
def test_snapshots_are_written_then_compared(tmp_path: Path) -> None:
    body = (
        "steps:\n  - name: sum\n    call: add\n    arguments: {a: 1, b: 2}\n"
        "    expect: {snapshot: true}\n"
    )
    path = demo_file(tmp_path / "snap.mcp.yaml", body)
    golden = tmp_path / "__snapshots__" / "snap.mcp.yaml.json"
    done = cli_inprocess("test", str(path), "--update")
    assert done.returncode == 0, done.stdout
    stored = json.loads(golden.read_text())
    assert stored == {"sum": {"result": {"content": [{"type": "text", "text": "1 + 2 = 3"}]}}}
    assert cli_inprocess("test", str(path)).returncode == 0
    # a volatile field (replay --against's default ignores) is not a difference
    stored["sum"]["result"]["content"][0]["timestamp"] = "2020-01-01T00:00:00Z"
    golden.write_text(json.dumps(stored))
    assert cli_inprocess("test", str(path)).returncode == 0
    # a real one is
    path.write_text(path.read_text().replace("b: 2", "b: 5"))
    done, report = run_json(str(path))
    assert done.returncode == 1
    (failure,) = steps(report)[0]["failures"]
    assert failure["expectation"] == "snapshot"
    assert '$.result.content[0].text changed: "1 + 2 = 3" -> "1 + 5 = 6"' in failure["message"]
    assert cli_inprocess("test", str(path), "--update").returncode == 0
    assert "1 + 5 = 6" in golden.read_text()


def test_env_secrets_are_never_printed_nor_recorded(tmp_path: Path) -> None:
    secret = "hc-secret-value-123"
    body = textwrap.dedent(
        """\
        steps:
          - call: echo
            arguments: {message: "token ${env:HC_TEST_TOKEN}"}
            expect: {text: "something else"}
        """
    )
    path = demo_file(tmp_path / "secret.mcp.yaml", body)
    record = tmp_path / "sessions"
    junit = tmp_path / "report.xml"
    env = {**os.environ, "HC_TEST_TOKEN": secret, "GITHUB_ACTIONS": "true"}
    done = cli_inprocess("test", str(path), "--record", str(record), "--junit", str(junit), env=env)
    assert done.returncode == 1
    assert "«redacted»" in done.stdout
    session = (record / "secret.mcp.yaml.jsonl").read_text()
    assert "tools/call" in session and "«redacted»" in session
    for text in (done.stdout, done.stderr, session, junit.read_text()):
        assert secret not in text
    json_done = cli_inprocess("test", "--json", str(path), env=env)
    assert secret not in json_done.stdout + json_done.stderr
    assert "«redacted»" in json_done.stdout


def test_fail_fast_skips_the_rest_and_annotations_name_the_line(tmp_path: Path) -> None:
    body = textwrap.dedent(
        """\
        steps:
          - call: add
            arguments: {a: 1, b: 2}
            expect:
              text: "4"
          - list: tools
        """
    )
    path = demo_file(tmp_path / "ff.mcp.yaml", body)
    junit = tmp_path / "report.xml"
    env = {**os.environ, "GITHUB_ACTIONS": "true"}
    done = cli_inprocess("test", str(path), "--fail-fast", "--junit", str(junit), env=env)
    assert done.returncode == 1
    assert "  SKIP  list tools: not run: --fail-fast, steps[0] call add failed" in done.stdout
    assert (
        f'::error file={path},line=6,title=call add::text: expected "4", got "1 + 2 = 3"'
        in done.stdout
    )
    cases = list(next(iter(JUnitXml.fromfile(str(junit)))))
    assert isinstance(cases[1].result[0], Skipped)


def test_a_target_overrides_the_server_and_a_dead_one_is_exit_3(tmp_path: Path) -> None:
    body = "server: {command: [no-such-server-hc]}\nsteps:\n  - list: tools\n"
    path = tmp_path / "o.mcp.yaml"
    path.write_text(body)
    junit = tmp_path / "report.xml"
    done = cli_inprocess("test", str(path), "--junit", str(junit))
    assert done.returncode == 3, done.stdout + done.stderr
    assert "ERROR cannot run this file:" in done.stdout and "no-such-server-hc" in done.stdout
    (case,) = list(next(iter(JUnitXml.fromfile(str(junit)))))
    assert isinstance(case.result[0], Error)
    done = cli_inprocess("test", str(path), "--", *DEMO)
    assert done.returncode == 0, done.stdout + done.stderr


def test_on_a_terminal_the_lines_run_under_a_progress_bar(tmp_path: Path) -> None:
    """stdout a terminal: Rich draws the lines (coloured) and a progress bar, same words."""
    import pty
    import select
    import subprocess
    import time

    path = demo_file(
        tmp_path / "tty.mcp.yaml",
        "steps:\n  - list: tools\n  - call: echo\n"
        "    arguments: {message: hi}\n    expect: {text: nope}\n",
    )
    leader, follower = pty.openpty()
    proc = subprocess.Popen(
        inspector_argv("test", str(path)), stdout=follower, stderr=subprocess.PIPE, cwd=ROOT
    )
    os.close(follower)
    chunks = []
    deadline = time.monotonic() + 60
    # read until the process has ended and the terminal is drained; never wait on the
    # terminal's other end alone (in a parallel run another fd may keep it open)
    while time.monotonic() < deadline:
        ready, _, _ = select.select([leader], [], [], 0.2)
        if ready:
            try:
                chunk = os.read(leader, 65536)
            except OSError:  # the terminal's other end closed: the process is done
                break
            if not chunk:
                break
            chunks.append(chunk)
        elif proc.poll() is not None:
            break
    assert proc.wait(60) == 1
    os.close(leader)
    screen = b"".join(chunks).decode(errors="replace")
    assert "\x1b[" in screen  # coloured: Rich, not the plain lines
    assert "PASS" in screen and "list tools" in screen
    assert 'text: expected "nope", got "hi"' in screen
    assert "1 passed, 1 failed" in screen
