"""``mcp-inspect --cli`` takes the official Inspector CLI's documented command lines.

Every example of its documentation (``clients/cli/README.md`` and
``docs/cli-smoke-testing.md`` of modelcontextprotocol/inspector, v2 line) is run twice,
as written: through ``mcp-inspect --cli`` and through the official CLI itself (pinned in
tests/official_inspector.py), against the same server written with the official SDK
(tests/servers/sdk_cli_examples.py: ``node build/index.js`` and the example URLs map
to it). Both must print the same result. Then the exit codes of both, side by side, for
the failures the README's table lists. Ours runs in the test process, and as a child
process where what reaches its stderr is the point.
"""

from __future__ import annotations

import http.server
import json
import shlex
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from cli_inprocess import cli_inprocess
from cli_runner import cli
from paths import PY, ROOT, SERVERS
from servers.http_support import dead_port, sdk_server

from tests.official_inspector import official_cli

EXAMPLES_SERVER = [PY, str(SERVERS / "sdk_cli_examples.py")]
NODE_SERVER = ["node", "build/index.js"]  # what the examples start

# (name, the line after `npx @modelcontextprotocol/inspector --cli`, as documented; succeeds?)
EXAMPLES: list[tuple[str, str, bool]] = [
    # clients/cli/README.md
    ("basic usage", "node build/index.js", False),  # no --method: both refuse
    ("config file", "--config path/to/config.json --server myserver", False),
    ("list tools", "node build/index.js --method tools/list", True),
    (
        "call a tool",
        "node build/index.js --method tools/call --tool-name mytool --tool-arg key=value "
        "--tool-arg another=value2",
        True,
    ),
    (
        "JSON arguments",
        "node build/index.js --method tools/call --tool-name mytool "
        """--tool-arg 'options={"format": "json", "max_tokens": 100}'""",
        True,
    ),
    ("list resources", "node build/index.js --method resources/list", True),
    ("list prompts", "node build/index.js --method prompts/list", True),
    ("remote, no method", "https://my-mcp-server.example.com", False),
    (
        "remote over HTTP",
        "https://my-mcp-server.example.com --transport http --method tools/list",
        True,
    ),
    (
        "custom headers",
        "https://my-mcp-server.example.com --transport http --method tools/list "
        '--header "X-API-Key: your-api-key"',
        True,
    ),
    (
        "remote tool call",
        "https://my-mcp-server.example.com --method tools/call --tool-name remotetool "
        "--tool-arg param=value",
        True,
    ),
    # docs/cli-smoke-testing.md
    ("connect probe", "node build/index.js --method initialize", True),
    (
        "probe over HTTP",
        "--transport http --server-url https://example.com/mcp --method initialize",
        True,
    ),
    (
        "probe over SSE",
        "--transport sse --server-url https://example.com/sse --method initialize",
        True,
    ),
    (
        "server flags before --",
        "node build/index.js --config ./server.conf -- --method tools/list",
        True,
    ),
    ("config, by name", "--config ./mcp.json --server my-server --method initialize", True),
    ("JSON output", "node build/index.js --method tools/list --format json", True),
    (
        "call with JSON, JSON output",
        "node build/index.js --method tools/call --tool-name get_temp "
        """--tool-args-json '{"city":"Paris","units":"C"}' --format json""",
        True,
    ),
]


@pytest.fixture(scope="module")
def http_url() -> Iterator[str]:
    with sdk_server("http", script="sdk_cli_examples.py") as base:
        yield f"{base}/mcp"


@pytest.fixture(scope="module")
def sse_url() -> Iterator[str]:
    with sdk_server("sse", script="sdk_cli_examples.py") as base:
        yield f"{base}/sse"


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The official CLI's home, and the config files the examples name."""
    folder = tmp_path_factory.mktemp("official")
    server = {"command": EXAMPLES_SERVER[0], "args": EXAMPLES_SERVER[1:]}
    config = json.dumps({"mcpServers": {"myserver": server, "my-server": server}})
    for name in ("config.json", "mcp.json"):
        (folder / name).write_text(config)
    return folder


def as_run(words: list[str], home: Path, http_url: str, sse_url: str) -> list[str]:
    """The example's words with its placeholders mapped to the test's server and files."""
    swap = {
        "https://my-mcp-server.example.com": http_url,
        "https://example.com/mcp": http_url,
        "https://example.com/sse": sse_url,
        "path/to/config.json": str(home / "config.json"),
        "./mcp.json": str(home / "mcp.json"),
    }
    out: list[str] = []
    at = 0
    while at < len(words):
        if words[at : at + 2] == NODE_SERVER:
            out += EXAMPLES_SERVER
            at += 2
            continue
        out.append(swap.get(words[at], words[at]))
        at += 1
    return out


def ours(
    *words: str, era: str | None = None, process: bool = False
) -> subprocess.CompletedProcess[str]:
    """``mcp-inspect --cli WORDS`` in the test process, or as a child process (``process``:
    where what reaches the process's stderr is the point). ``era`` pins a protocol version
    (the SDK servers here speak both eras)."""
    pinned = ["--protocol-version", era] if era else []
    run = cli if process else cli_inprocess
    return run("--cli", *words, *pinned, timeout=120)


def result_of(done: subprocess.CompletedProcess[str], words: list[str]) -> Any:
    """The result printed on stdout, without the ``--format json`` envelope."""
    printed = json.loads(done.stdout)
    return printed["result"] if "json" in words else printed


@pytest.mark.slow
@pytest.mark.parametrize(
    ("line", "succeeds"), [(w, ok) for _, w, ok in EXAMPLES], ids=[n for n, _, _ in EXAMPLES]
)
@pytest.mark.slow
def test_the_official_examples_give_the_official_result(
    line: str, succeeds: bool, home: Path, http_url: str, sse_url: str
) -> None:
    words = shlex.split(line)
    run = as_run(words, home, http_url, sse_url)
    # the official CLI speaks the handshake era: like is compared with like (with no
    # --protocol-version ours finds these dual-era SDK servers' newest era, 2026-07-28)
    mine = ours(*run, era="2025-11-25")
    theirs = official_cli(home, *run)
    if not succeeds:
        assert mine.returncode == 2 and theirs.returncode != 0, (mine.stderr, theirs.stderr)
        error = json.loads(mine.stderr.strip().splitlines()[-1])["error"]
        assert "--method" in error["message"], error
        return
    assert theirs.returncode == 0, theirs.stderr[-2000:]
    assert mine.returncode == 0, mine.stderr
    assert result_of(mine, words) == result_of(theirs, words)
    if "json" in words:  # the envelope and the one line, exactly as theirs
        assert list(json.loads(mine.stdout)) == ["result"]
        assert mine.stdout.count("\n") == 1


@pytest.mark.slow
def test_the_headers_and_the_server_flags_arrive(home: Path, http_url: str) -> None:
    """What the examples send is what the server gets: the header, the server's own flags."""
    done = ours(http_url, "--method", "tools/list", "--header", "X-API-Key: your-api-key")
    assert done.returncode == 0, done.stderr
    seen = ours(http_url, "--method", "tools/call", "--tool-name", "seen_api_key")
    assert json.loads(seen.stdout)["structuredContent"]["result"] == "your-api-key"
    done = ours(
        *EXAMPLES_SERVER,
        "--config",
        "./server.conf",
        "--",
        "--method",
        "tools/call",
        "--tool-name",
        "argv",
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["structuredContent"]["result"] == ["--config", "./server.conf"]


class _Status(http.server.BaseHTTPRequestHandler):
    """Answers every request with the status in the server's ``status`` attribute."""

    def _answer(self) -> None:
        self.rfile.read(int(self.headers.get("content-length") or 0))
        status: int = self.server.status  # type: ignore[attr-defined]
        self.send_response(status)
        if status == 401:
            self.send_header("WWW-Authenticate", 'Bearer realm="test"')
        self.send_header("content-type", "text/plain")
        self.send_header("content-length", "4")
        self.end_headers()
        self.wfile.write(b"nope")

    do_GET = do_POST = do_DELETE = _answer

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture(scope="module")
def status_url() -> Iterator[Any]:
    """``url(status)``: an HTTP endpoint that answers everything with that status."""
    servers: list[http.server.ThreadingHTTPServer] = []

    def url(status: int) -> str:
        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Status)
        server.status = status  # type: ignore[attr-defined]
        threading.Thread(target=server.serve_forever, daemon=True).start()
        servers.append(server)
        return f"http://127.0.0.1:{server.server_address[1]}/mcp"

    yield url
    for server in servers:
        server.shutdown()
        server.server_close()


BAD_OUTPUT = [PY, str(SERVERS / "stdio_bad_output.py")]
SDK = [PY, str(SERVERS / "sdk_stdio_server.py")]
SILENT = [PY, str(SERVERS / "stdio_misbehave.py"), "silent"]

# (what happened: the README's words, the words after --cli, mcp-inspect's code, theirs)
EXIT_CODES: list[tuple[str, list[str], int, int]] = [
    ("success", [*SDK, "--method", "tools/list"], 0, 0),
    (
        "the tool returned `isError: true`",
        [*BAD_OUTPUT, "--method", "tools/call", "--tool-name", "failing"],
        1,
        5,
    ),
    ("no `--method`", [*SDK], 2, 1),
    ("an unknown tool", [*SDK, "--method", "tools/call", "--tool-name", "nope"], 2, 5),
    (
        "an argument of the wrong type (`a=one` for an integer)",
        [
            *SDK,
            "--method",
            "tools/call",
            "--tool-name",
            "add",
            "--tool-arg",
            "a=one",
            "--tool-arg",
            "b=2",
        ],
        2,
        5,
    ),
    ("the server command was not found", ["no-such-command-xyz", "--method", "tools/list"], 3, 1),
    (
        "the server exited",
        [PY, str(SERVERS / "stdio_misbehave.py"), "exit-now", "--method", "tools/list"],
        3,
        1,
    ),
    ("nothing listens at the URL", ["{dead}", "--method", "tools/list"], 3, 4),
    (
        "the server answered a JSON-RPC error",
        [*SDK, "--method", "prompts/get", "--prompt-name", "no-such-prompt"],
        4,
        1,
    ),
    (
        "no answer in time (ours `--timeout 1`, theirs `--connect-timeout 1000`)",
        [*SILENT, "--method", "tools/list", "{timeout}"],
        5,
        4,
    ),
    ("HTTP 500", ["{500}", "--method", "tools/list"], 6, 1),
    ("HTTP 401: authorization needed", ["{401}", "--method", "tools/list"], 7, 3),
    (
        "`structuredContent` does not match the `outputSchema`",
        [*BAD_OUTPUT, "--method", "tools/call", "--tool-name", "mismatch"],
        8,
        1,
    ),
]


@pytest.mark.slow
@pytest.mark.parametrize(
    ("words", "mine", "theirs"),
    [(w, m, t) for _, w, m, t in EXIT_CODES],
    ids=[what for what, _, _, _ in EXIT_CODES],
)
@pytest.mark.slow
def test_exit_codes_side_by_side(
    words: list[str], mine: int, theirs: int, home: Path, status_url: Any
) -> None:
    def fill(side: str) -> list[str]:
        out: list[str] = []
        for word in words:
            if word == "{dead}":
                out.append(f"http://127.0.0.1:{dead_port()}/mcp")
            elif word in ("{500}", "{401}"):
                out.append(status_url(int(word.strip("{}"))))
            elif word == "{timeout}":
                out += ["--timeout", "1"] if side == "ours" else ["--connect-timeout", "1000"]
            else:
                out.append(word)
        return out

    done = ours(*fill("ours"))
    assert done.returncode == mine, done.stderr
    official = official_cli(home, *fill("theirs"), "--format", "json")
    assert official.returncode == theirs, official.stderr[-2000:]
    if theirs:  # theirs ends with one JSON error line on stderr, ours too but for isError
        assert set(last_error(official.stderr)) >= {"code", "message"}
    if mine > 1:
        assert set(last_error(done.stderr)) >= {"kind", "message", "exitCode"}
    if words[-2:] == ["--tool-arg", "b=2"]:  # theirs sent "one": the server's isError
        assert json.loads(official.stdout)["result"]["isError"] is True
    if "mismatch" in words:  # ours prints the result, theirs does not
        assert json.loads(done.stdout)["structuredContent"] == {"temp": "hot"}
        assert official.stdout == ""


def last_error(stderr: str) -> dict[str, Any]:
    error: dict[str, Any] = json.loads(stderr.strip().splitlines()[-1])["error"]
    return error


@pytest.mark.slow
def test_the_servers_stderr_passes_through_with_stderr(home: Path) -> None:
    """Theirs passes the server's stderr through by default; ours with --stderr."""
    words = [*BAD_OUTPUT, "--method", "tools/call", "--tool-name", "good"]
    assert "bad-output" in official_cli(home, *words).stderr
    assert "bad-output" not in ours(*words, process=True).stderr
    shown = ours(*words, "--stderr", process=True)
    assert shown.returncode == 0, shown.stderr
    # every line, in order, the colour sequence shown and not sent to the terminal
    assert shown.stderr.splitlines() == [
        f"␛[31mbad-output␛[0m got {method}" for method in ("initialize", "tools/list", "tools/call")
    ]


def test_the_readme_maps_the_exit_codes_as_measured() -> None:
    readme = (ROOT / "README.md").read_text("utf-8")
    for what, _, mine, theirs in EXIT_CODES:
        assert f"| {what} | {mine} | {theirs} |" in readme, what
