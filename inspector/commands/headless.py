"""``mcp-inspect --cli``: one call, one JSON object on stdout, no TUI.

Check the request (usage errors need no server), connect, initialize, perform one
``--method``, print its result; on failure one JSON line on stderr and a documented exit
code (:mod:`inspector.commands.failures`). ``tools/call`` is checked against the listed
tool's schemas before and after it is sent (:mod:`inspector.commands.tool_call`). The
official Inspector CLI's flags and ``--format json`` are taken as well (its argument
order is sorted out in :func:`inspector.commands.main`). Built on the same engine as the
TUI and never imports Textual.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from inspector.commands.cli_options import METHODS as METHODS  # tests and --help list it
from inspector.commands.exits import CliError, ExitCode, write_error
from inspector.commands.options import (
    UsageError,
    live_export,
    make_recorder,
    printed_redactor,
    responders_from,
    say_demo,
)
from inspector.commands.printed import redacted_stderr
from inspector.commands.tool_call import (
    call_as_task,
    json_arguments,
    output_problem,
    prepare_call,
    split_pairs,
    task_mode,
)

if TYPE_CHECKING:
    from inspector.engine.client import McpClient
    from inspector.engine.responders import Responders
    from inspector.export.live import LiveExport
    from inspector.record.recorder import Recorder
    from inspector.record.redact import Redactor
    from inspector.skills.client import SkillsClient
    from inspector.target import Target
    from inspector.wire.events import WireEvent


@dataclass
class CliRequest:
    """What the user asked for on the command line."""

    method: str
    tool_name: str | None = None
    tool_args: list[str] = field(default_factory=list)  # "key=value" pairs
    tool_args_json: str | None = None
    uri: str | None = None
    prompt_name: str | None = None
    prompt_args: list[str] = field(default_factory=list)
    log_level: str | None = None
    timeout: float = 60.0
    max_timeout: float | None = None  # None: 600, or the timeout when longer
    protocol_version: str | None = None  # None: the era is found (probe, or remembered)
    validate: bool = True  # tools/call: check the arguments and the result (--no-validate)
    output: str = "text"  # --format: text (the result), json ({"result": ...} on one line)
    show_stderr: bool = False  # --stderr: pass the server's stderr through
    task: bool = False  # tools/call as a task (--task; by itself when the tool requires it)


# method -> the flag it needs (attribute, flag)
NEEDS: dict[str, tuple[str, str]] = {
    "tools/call": ("tool_name", "--tool-name"),
    "resources/read": ("uri", "--uri"),
    "resources/subscribe": ("uri", "--uri"),
    "resources/unsubscribe": ("uri", "--uri"),
    "prompts/get": ("prompt_name", "--prompt-name"),
    "skills/get": ("uri", "--uri"),
}


def check_request(request: CliRequest) -> None:
    """The usage errors that need no server, reported before one is started."""
    method = request.method
    if method not in METHODS:
        raise CliError(
            "usage",
            f"unsupported --method {method!r}; use one of {', '.join(METHODS)}",
            ExitCode.USAGE,
        )
    if method in NEEDS:
        attribute, flag = NEEDS[method]
        if not getattr(request, attribute):
            raise CliError("usage", f"{method} needs {flag}", ExitCode.USAGE)
    if method == "logging/setLevel":
        from inspector.engine.client import LOG_LEVELS

        if request.log_level not in LOG_LEVELS:
            raise CliError(
                "usage",
                f"logging/setLevel needs --log-level, one of {', '.join(LOG_LEVELS)}",
                ExitCode.USAGE,
            )
    json_arguments(request.tool_args_json)
    split_pairs(request.tool_args, "--tool-arg")
    split_pairs(request.prompt_args, "--prompt-args")


@dataclass
class Performed:
    """A method's result, and what is wrong with it (reported after it is printed)."""

    result: Any
    problem: CliError | None = None


def ignore_progress(progress: float, total: float | None, message: str | None) -> None:
    """Asking for progress is what matters (it resets the timeout); nothing is shown."""


async def perform(client: McpClient, request: CliRequest) -> Performed:
    """Run the one method (``check_request`` passed) and return its result."""
    from inspector.engine.kinds import BY_LIST_METHOD

    method = request.method
    if method == "initialize":
        return Performed(client.session.initialize_result)
    if method in BY_LIST_METHOD:  # every page, as one result
        kind = BY_LIST_METHOD[method]
        return Performed({kind.key: await client.list_all(kind.name)})
    if method == "ping":
        return Performed(await client.ping())
    if method == "tools/call":
        call = await prepare_call(
            client,
            request.tool_name or "",
            request.tool_args,
            request.tool_args_json,
            check=request.validate,
        )
        if task_mode(client, call, request.task):
            result = await call_as_task(client, call)
        else:
            # A progressToken, so the server's progress resets --timeout as documented;
            # stdout is the result only, so progress itself is not printed.
            result = await client.call_tool(call.name, call.arguments, on_progress=ignore_progress)
        return Performed(result, output_problem(call, result) if request.validate else None)
    if method == "resources/read":
        return Performed(await client.read_resource(request.uri or "", on_progress=ignore_progress))
    if method == "resources/subscribe":
        return Performed(await client.subscribe(request.uri or ""))
    if method == "resources/unsubscribe":
        return Performed(await client.unsubscribe(request.uri or ""))
    if method == "prompts/get":
        arguments = split_pairs(request.prompt_args, "--prompt-args")
        return Performed(
            await client.get_prompt(
                request.prompt_name or "", arguments, on_progress=ignore_progress
            )
        )
    if method == "logging/setLevel":
        return Performed(await client.set_logging_level(request.log_level or ""))
    if method in ("skills/list", "skills/get"):
        from inspector.skills.client import SkillsClient  # start-up: only for skills

        return Performed(await perform_skills(SkillsClient(client), method, request.uri or ""))
    raise CliError(
        "usage", f"unsupported --method {method!r}; use one of {', '.join(METHODS)}", ExitCode.USAGE
    )


async def perform_skills(skills: SkillsClient, method: str, uri: str) -> dict[str, Any]:
    """``skills/list``: the entries, no file read. ``skills/get``: the entry, then the
    skill loaded (its ``SKILL.md`` verified) and each listed file read and verified, in
    the entry's order; the first file that fails verification ends the call."""
    if method == "skills/list":
        return {"skills": [entry.raw for entry in await skills.list()]}
    entry = await skills.get(uri)
    files = [await skills.load(entry)]
    for listed in entry.supporting():
        files.append(await skills.read(entry, listed.uri))
    return {"skill": entry.raw, "files": [f.to_json() for f in files]}


def pass_stderr(event: WireEvent) -> None:
    """``--stderr``: a server stderr line onto ours, control characters made visible."""
    from inspector.wire.events import Channel

    if event.channel is Channel.STDERR:
        from inspector.safe_text import visible  # loads Rich: only with --stderr

        sys.stderr.write(visible(event.text()) + "\n")
        sys.stderr.flush()


def print_result(result: Any, output: str) -> None:
    """``--format text``: the result, indented; ``json``: ``{"result": ...}`` on one line,
    as the official Inspector's CLI prints it."""
    if output == "json":
        sys.stdout.write(json.dumps({"result": result}, ensure_ascii=False) + "\n")
    else:
        sys.stdout.write(json.dumps(result, indent=2, ensure_ascii=False) + "\n")


async def run(
    target: Target,
    request: CliRequest,
    responders: Responders,
    recorder: Recorder | None = None,
    redactor: Redactor | None = None,
    trace: LiveExport | None = None,
) -> int:
    """Connect, initialize, perform, print. Returns the exit code. ``redactor``: what
    stderr is redacted by (the recorder's by default); OAuth tokens are told to it.

    SIGHUP and SIGTERM end the call the way the TUI's quit does: the session is closed
    (the server's whole process group stopped), then the exit is 128 + the signal."""
    # Start-up: the engine, anyio and the error tree load here, once a call is to be made
    # (--help and usage errors never get this far).
    import signal

    import anyio

    from inspector.commands.connect import Connection
    from inspector.engine.client import McpClient
    from inspector.engine.signals import quit_on_signals, signal_exit_code

    connection = Connection(
        target,
        responders=responders,
        recorder=recorder,
        timeout=request.timeout,
        max_timeout=request.max_timeout,
        protocol_version=request.protocol_version,
        observers=[pass_stderr] if request.show_stderr else [],
        trace=trace,
        redactor=redactor,
    )
    stopped_by: list[int] = []
    try:
        check_request(request)
        with anyio.CancelScope() as scope:

            def stop(signum: int) -> None:
                stopped_by.append(signum)
                scope.cancel()

            with quit_on_signals(stop):
                async with connection as session:
                    performed = await perform(McpClient(session), request)
        if stopped_by:
            name = signal.Signals(stopped_by[0]).name
            raise CliError(
                "interrupted",
                f"stopped by {name}; the server was shut down",
                signal_exit_code(stopped_by[0]),
            )
    except BaseException as exc:
        from inspector.commands.failures import classify_failure, unwrap_failure

        failure = unwrap_failure(exc)
        if failure is None:
            raise
        return write_error(classify_failure(failure, connection.session_expired))
    result = performed.result
    print_result(result, request.output)
    if request.method == "tools/call" and isinstance(result, dict) and result.get("isError"):
        return ExitCode.TOOL_ERROR
    if performed.problem is not None:
        return write_error(performed.problem)
    return ExitCode.OK


def run_from_options(opts: argparse.Namespace, target: Target, *, demo: bool = False) -> int:
    """``--cli`` with parsed options: the request, its answers and recorder, the call.

    ``demo``: no target was given, so the bundled demo server answers (said on stderr)."""
    if not opts.method:
        raise UsageError(f"--cli needs --method, one of {', '.join(METHODS)}")
    request = CliRequest(
        method=opts.method,
        tool_name=opts.tool_name,
        tool_args=opts.tool_arg,
        tool_args_json=opts.tool_args_json,
        uri=opts.uri,
        prompt_name=opts.prompt_name,
        prompt_args=opts.prompt_args,
        log_level=opts.log_level,
        timeout=opts.timeout,
        max_timeout=opts.max_timeout,
        protocol_version=opts.protocol_version,
        validate=opts.validate,
        output=opts.format,
        show_stderr=opts.show_stderr,
        task=opts.task,
    )
    try:
        check_request(request)  # before anything starts or a session file is made
    except CliError as exc:
        return write_error(exc)
    if demo:
        say_demo(target)
    responders = responders_from(opts)
    trace = live_export(opts)
    recorder = make_recorder(opts, target, opts.record)
    # stderr gets the session file's redaction, with or without a session file: a server
    # that echoes a token in its error body must not put it into a CI log
    redactor = recorder.redactor if recorder is not None else printed_redactor(opts, target)
    import anyio

    try:
        with redacted_stderr(redactor):
            code: int = anyio.run(run, target, request, responders, recorder, redactor, trace)
    finally:
        if trace is not None:
            trace.close()  # the spans still queued, bounded; one warning if lost
        if recorder is not None:
            recorder.close()
    return code
