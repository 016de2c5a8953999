"""Bad collection files: each mistake is reported with its file, line and key, exit 2,
and no server is started. (The files are read, never run, except by the last tests.)"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from cli_inprocess import cli_inprocess

from inspector.collection.load import load_collection
from inspector.collection.model import CollectionFileError

SERVER = "server: {command: [python3, -m, inspector.demo]}\n"

# (file text, the line, the key, words of the message)
BAD: list[tuple[str, int, str, str]] = [
    (SERVER + "steps:\n  - call: add: 3\n", 3, "", "not valid YAML: mapping values are not"),
    ("- call: add\n", 1, "", "a collection is a mapping"),
    (SERVER + "stesp: []\n", 2, "stesp", "unknown key 'stesp'"),
    (SERVER + "steps: []\n", 2, "steps", "steps is a list"),
    (
        SERVER + "steps:\n  - call: add\n    expcet: {text: '3'}\n",
        4,
        "steps[0].expcet",
        "unknown key 'expcet'",
    ),
    (
        SERVER + "steps:\n  - call: add\n    read: demo://readme\n",
        3,
        "steps[0]",
        "exactly one of call, read, prompt, request, list; found call and read",
    ),
    (SERVER + "steps:\n  - name: nothing\n", 3, "steps[0]", "exactly one of"),
    (
        SERVER + "steps:\n  - call: add\n    expect:\n      txt: '3'\n",
        5,
        "steps[0].expect.txt",
        "unknown key 'txt'",
    ),
    (
        SERVER + "steps:\n  - call: echo\n    arguments: {message: '${note}'}\n",
        4,
        "steps[0].arguments.message",
        "${note} has no value here: no step saves it",
    ),
    (
        SERVER
        + "steps:\n  - read: '${uri}'\n  - call: add_note\n    save: {uri: '$.content[1].uri'}\n",
        3,
        "steps[0].read",
        "saved only by steps[1], which runs after this one",
    ),
    (
        SERVER + "steps:\n  - call: echo\n    arguments: {message: '${env:NO_SUCH_VAR_HC}'}\n",
        4,
        "steps[0].arguments.message",
        "the environment has no NO_SUCH_VAR_HC",
    ),
    (
        SERVER + "steps:\n  - call: add\n    expect:\n      jsonpath: {'$.a[': 1}\n",
        5,
        "steps[0].expect.jsonpath.$.a[",
        "is not a JSONPath",
    ),
    (
        SERVER + "steps:\n  - call: add\n    save: {x: structuredContent}\n",
        4,
        "steps[0].save.x",
        "starts with $",
    ),
    (
        SERVER + "steps:\n  - call: add\n    expect: {matches: '(unclosed'}\n",
        4,
        "steps[0].expect.matches",
        "not a regular expression",
    ),
    (
        SERVER + "steps:\n  - call: add\n    expect:\n      schema: {type: 12}\n",
        5,
        "steps[0].expect.schema",
        "not a valid JSON Schema",
    ),
    (
        "server: {command: [x], url: 'http://h/mcp'}\nsteps:\n  - list: tools\n",
        1,
        "server",
        "exactly one of command",
    ),
    ("server: {url: 'ftp://h'}\nsteps:\n  - list: tools\n", 1, "server.url", "http://"),
    (
        SERVER + "steps:\n  - list: tool\n",
        3,
        "steps[0].list",
        "one of tools, resources, prompts, templates",
    ),
    (
        SERVER + "steps:\n  - read: demo://readme\n    arguments: {a: 1}\n",
        4,
        "steps[0].arguments",
        "arguments go with call or prompt",
    ),
    (
        SERVER + "steps:\n  - read: demo://readme\n    expect: {isError: false}\n",
        4,
        "steps[0].expect.isError",
        "goes with call",
    ),
    (
        SERVER + "steps:\n  - call: book_table\n    answers: {elicit: maybe}\n",
        4,
        "steps[0].answers.elicit",
        "accept-defaults, decline, cancel",
    ),
    (
        SERVER + "steps:\n  - call: add\n    expect: {latency_ms: 5}\n",
        4,
        "steps[0].expect.latency_ms",
        "{under: MILLISECONDS}",
    ),
    (
        SERVER + "steps:\n  - request: {params: {}}\n",
        3,
        "steps[0].request",
        "{method: NAME, params",
    ),
    (
        SERVER + "steps:\n  - call: add\n    expect: {error: {code: oops}}\n",
        4,
        "steps[0].expect.error.code",
        "code is an integer",
    ),
]


@pytest.mark.parametrize(("text", "line", "key", "words"), BAD)
def test_a_bad_file_names_its_line_and_key(
    tmp_path: Path, text: str, line: int, key: str, words: str
) -> None:
    path = tmp_path / "bad.mcp.yaml"
    path.write_text(text)
    with pytest.raises(CollectionFileError) as caught:
        load_collection(path, environ={})
    error = caught.value
    assert (error.line, error.key) == (line, key), str(error)
    assert words in str(error)
    assert str(error).startswith(f"{path}:{line}: ")


def test_a_json_collection_names_its_lines_too(tmp_path: Path) -> None:
    path = tmp_path / "bad.mcp.json"
    path.write_text(
        textwrap.dedent(
            """\
            {
              "server": {"command": ["python3", "-m", "inspector.demo"]},
              "steps": [
                {"call": "add", "arguments": {"a": 1, "b": 2}},
                {"call": "add", "expect": {"txet": "3"}}
              ]
            }
            """
        )
    )
    with pytest.raises(CollectionFileError) as caught:
        load_collection(path)
    assert (caught.value.line, caught.value.key) == (5, "steps[1].expect.txet")


def test_a_good_file_reads_into_steps(tmp_path: Path) -> None:
    path = tmp_path / "good.mcp.yaml"
    path.write_text(
        SERVER
        + textwrap.dedent(
            """\
            vars: {a: 2}
            steps:
              - call: add
                arguments: {a: "${a}", b: 3}
                save: {sum: "$.content[0].text"}
              - name: echo it
                call: echo
                arguments: {message: "${sum} and ${env:HC_TOKEN} and $${literal}"}
            """
        )
    )
    collection = load_collection(path, environ={"HC_TOKEN": "s3cret-token"})
    assert [s.title for s in collection.steps] == ["call add", "echo it"]
    assert [s.line for s in collection.steps] == [4, 7]
    assert collection.steps[1].arguments == {"message": "${sum} and s3cret-token and $${literal}"}
    assert collection.secrets == ["s3cret-token"]
    assert collection.server is not None and collection.server.command[-1] == "inspector.demo"


def test_bad_files_exit_2_before_any_server_starts(tmp_path: Path) -> None:
    """Two files, one bad: nothing runs (not even the good file's server), exit 2, and
    the message has the file, line and key."""
    marker = tmp_path / "started"
    starts = f"server: {{command: [python3, -c, \"open('{marker}', 'w')\"]}}\n"
    (tmp_path / "a.mcp.yaml").write_text(starts + "steps:\n  - list: tools\n")
    (tmp_path / "b.mcp.yaml").write_text(starts + "steps:\n  - call: add\n    read: x\n")
    done = cli_inprocess("test", str(tmp_path))
    assert done.returncode == 2, done.stderr
    assert f"{tmp_path / 'b.mcp.yaml'}:3: steps[0]: a step has exactly one of" in done.stderr
    assert "Traceback" not in done.stderr
    assert not marker.exists()


def test_a_file_without_a_server_needs_a_target(tmp_path: Path) -> None:
    path = tmp_path / "no-server.mcp.yaml"
    path.write_text("steps:\n  - list: tools\n")
    done = cli_inprocess("test", str(path))
    assert done.returncode == 2
    assert f"{path}:1: server: no server" in done.stderr
    missing = cli_inprocess("test", str(tmp_path / "nothing-here"))
    assert missing.returncode == 2 and "no such file or folder" in missing.stderr
