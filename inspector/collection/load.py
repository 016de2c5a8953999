"""Read and check a collection file: every mistake is found here, before a server starts.

An unknown key, a step with no verb or two, a value of the wrong type, a JSONPath or a
regular expression that does not parse, an invalid ``schema``, a ``${var}`` that no
earlier step saves, an ``${env:NAME}`` that is not set: each is a
:class:`~inspector.collection.model.CollectionFileError` naming the file, the line and
the key, and saying what to write instead.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from inspector.collection.interpolate import NAME, MissingVariable, env_only, substitute
from inspector.collection.model import (
    LIST_KINDS,
    VERBS,
    Answers,
    Collection,
    ServerSpec,
    Step,
)
from inspector.collection.paths import compile_path
from inspector.collection.source import Source, Where, read_source
from inspector.collection.vars import check_references
from inspector.engine.responders import ELICIT_POLICIES

TOP_KEYS = ("server", "vars", "steps")
SERVER_KEYS = ("command", "env", "cwd", "url", "headers", "transport", "config", "name")
STEP_KEYS = (*VERBS, "name", "arguments", "expect", "save", "answers")
EXPECT_KEYS = (
    "isError",
    "error",
    "text",
    "contains",
    "matches",
    "jsonpath",
    "exists",
    "absent",
    "schema",
    "latency_ms",
    "snapshot",
)
ANSWER_KEYS = ("elicit", "sample", "roots")
SUFFIXES = (".yaml", ".yml", ".json")


def load_collection(
    path: str | os.PathLike[str], environ: Mapping[str, str] | None = None
) -> Collection:
    """The checked collection at ``path`` (``${env:NAME}`` read from ``environ``)."""
    source = read_source(Path(path))
    data = source.data
    if not isinstance(data, dict):
        raise source.error((), "a collection is a mapping with server, vars and steps")
    _known(source, (), data, TOP_KEYS)
    secrets: list[str] = []
    data = _resolve_env(source, (), data, os.environ if environ is None else environ, secrets)
    server = _server(source, data["server"]) if "server" in data else None
    variables = data.get("vars") or {}
    if not isinstance(variables, dict):
        raise source.error(("vars",), "vars is a mapping of names to values")
    for name in variables:
        if not isinstance(name, str) or not NAME.fullmatch(name):
            raise source.error(("vars", str(name)), "a variable name is letters, digits, _ . -")
    steps = data.get("steps")
    if not isinstance(steps, list) or not steps:
        raise source.error(("steps",), "steps is a list of steps (call, read, prompt, ...)")
    parsed = [_step(source, i, raw) for i, raw in enumerate(steps)]
    check_references(source, parsed, set(variables))
    return Collection(
        path=source.path,
        server=server,
        server_line=source.line(("server",)),
        vars=dict(variables),
        steps=parsed,
        secrets=secrets,
    )


def _known(source: Source, where: Where, data: dict[str, Any], allowed: tuple[str, ...]) -> None:
    for key in data:
        if key not in allowed:
            raise source.error(
                (*where, str(key)),
                f"unknown key {key!r}; allowed here: {', '.join(allowed)}",
            )


def _resolve_env(
    source: Source, where: Where, value: Any, environ: Mapping[str, str], found: list[str]
) -> Any:
    """``${env:NAME}`` replaced everywhere (values kept in ``found``)."""
    if isinstance(value, dict):
        return {k: _resolve_env(source, (*where, k), v, environ, found) for k, v in value.items()}
    if isinstance(value, list):
        return [_resolve_env(source, (*where, i), v, environ, found) for i, v in enumerate(value)]
    if isinstance(value, str) and "${env:" in value:
        try:
            return substitute(value, env_only(environ, found), unescape=False)
        except MissingVariable as exc:
            raise source.error(
                where, f"${{{exc.args[0]}}}: the environment has no {exc.args[0][4:]} (set it)"
            ) from None
    return value


def _strings(source: Source, where: Where, value: Any, what: str) -> dict[str, str]:
    if not isinstance(value, dict) or not all(
        isinstance(v, str | int | float) for v in value.values()
    ):
        raise source.error(where, f"{what} is a mapping of names to strings")
    return {str(k): str(v) for k, v in value.items()}


def _server(source: Source, raw: Any) -> ServerSpec:
    where: Where = ("server",)
    if not isinstance(raw, dict):
        raise source.error(where, "server is a mapping: command (a list), url, or config + name")
    _known(source, where, raw, SERVER_KEYS)
    kinds = [k for k in ("command", "url", "config") if k in raw]
    if len(kinds) != 1:
        raise source.error(
            where,
            "give exactly one of command (a stdio server), url (HTTP) or config (+ name)"
            + (f"; found {', '.join(kinds)}" if kinds else ""),
        )
    spec = ServerSpec()
    if "command" in raw:
        command = raw["command"]
        if isinstance(command, str):
            command = command.split()
        if (
            not isinstance(command, list)
            or not command
            or not all(isinstance(w, str | int | float) for w in command)
        ):
            raise source.error(
                (*where, "command"), "command is a list of words: [python, server.py]"
            )
        spec.command = [str(w) for w in command]
    for key in ("url", "cwd", "config", "name", "transport"):
        if key in raw:
            if not isinstance(raw[key], str) or not raw[key]:
                raise source.error((*where, key), f"{key} is a string")
            setattr(spec, key, raw[key])
    if spec.url is not None and not spec.url.startswith(("http://", "https://")):
        raise source.error((*where, "url"), "url starts with http:// or https://")
    if "env" in raw:
        spec.env = _strings(source, (*where, "env"), raw["env"], "env")
    if "headers" in raw:
        spec.headers = _strings(source, (*where, "headers"), raw["headers"], "headers")
    if spec.transport not in ("auto", "stdio", "http", "sse"):
        raise source.error((*where, "transport"), "transport is auto, stdio, http or sse")
    if spec.name is not None and spec.config is None:
        raise source.error((*where, "name"), "name picks a server in config: give config too")
    base = source.path.parent
    if spec.cwd is not None:
        spec.cwd = str(base / spec.cwd)
    if spec.config is not None:
        spec.config = str(base / spec.config)
    return spec


def _step(source: Source, index: int, raw: Any) -> Step:
    where: Where = ("steps", index)
    if not isinstance(raw, dict):
        raise source.error(where, "a step is a mapping: call, read, prompt, request or list")
    _known(source, where, raw, STEP_KEYS)
    verbs = [v for v in VERBS if v in raw]
    if len(verbs) != 1:
        found = f"; found {' and '.join(verbs)}" if verbs else ""
        raise source.error(
            where, f"a step has exactly one of {', '.join(VERBS)}{found} (split it in two steps)"
        )
    verb = verbs[0]
    step = Step(index=index, line=source.line(where), verb=verb, target=raw[verb])
    _target(source, (*where, verb), step)
    if "arguments" in raw:
        if verb not in ("call", "prompt"):
            raise source.error(
                (*where, "arguments"), f"arguments go with call or prompt, not {verb}"
            )
        if not isinstance(raw["arguments"], dict):
            raise source.error((*where, "arguments"), "arguments is a mapping")
        step.arguments = raw["arguments"]
    if "name" in raw:
        if not isinstance(raw["name"], str | int | float):
            raise source.error((*where, "name"), "name is a string")
        step.name = str(raw["name"])
    if "expect" in raw:
        step.expect = _expect(source, (*where, "expect"), raw["expect"], verb)
        step.expect_lines = {k: source.line((*where, "expect", k)) for k in step.expect}
    if "save" in raw:
        step.save = _save(source, (*where, "save"), raw["save"])
    if "answers" in raw:
        step.answers = _answers(source, (*where, "answers"), raw["answers"])
    return step


def _target(source: Source, where: Where, step: Step) -> None:
    value = step.target
    if step.verb == "request":
        if not isinstance(value, dict) or not isinstance(value.get("method"), str):
            raise source.error(where, "request is a mapping: {method: NAME, params: {...}}")
        _known(source, where, value, ("method", "params"))
        if "params" in value and not isinstance(value["params"], dict):
            raise source.error((*where, "params"), "params is a mapping")
    elif step.verb == "list":
        if value not in LIST_KINDS:
            raise source.error(where, f"list takes one of {', '.join(LIST_KINDS)}")
    elif not isinstance(value, str) or not value:
        what = {"call": "a tool's name", "read": "a resource URI", "prompt": "a prompt's name"}
        raise source.error(where, f"{step.verb} takes {what[step.verb]}")


def _path_list(source: Source, where: Where, value: Any) -> list[str]:
    paths = [value] if isinstance(value, str) else value
    if not isinstance(paths, list) or not all(isinstance(p, str) for p in paths):
        raise source.error(where, "a JSONPath or a list of them ($.structuredContent.id)")
    for i, path in enumerate(paths):
        _check_path(source, (*where, i) if isinstance(value, list) else where, path)
    return paths


def _check_path(source: Source, where: Where, path: str) -> None:
    if "${" in path:
        return  # completed when the step runs
    try:
        compile_path(path)
    except ValueError as exc:
        raise source.error(where, str(exc)) from None


def _expect(source: Source, where: Where, raw: Any, verb: str) -> dict[str, Any]:
    if not isinstance(raw, dict):
        raise source.error(where, "expect is a mapping: isError, text, jsonpath, ...")
    _known(source, where, raw, EXPECT_KEYS)
    out = dict(raw)
    for key in ("isError", "snapshot"):
        if key in raw and not isinstance(raw[key], bool):
            raise source.error((*where, key), f"{key} is true or false")
    if "isError" in raw and verb != "call":
        raise source.error((*where, "isError"), "isError is a tool result's: it goes with call")
    if "error" in raw:
        error = raw["error"]
        if error is True or error is None:
            error = {}
        if not isinstance(error, dict):
            raise source.error((*where, "error"), "error is a mapping: {code: N, message: TEXT}")
        _known(source, (*where, "error"), error, ("code", "message"))
        if "code" in error and not isinstance(error["code"], int):
            raise source.error((*where, "error", "code"), "code is an integer (-32602)")
        out["error"] = error
    if "text" in raw and not isinstance(raw["text"], str):
        raise source.error((*where, "text"), "text is a string (the result's text, whole)")
    if "contains" in raw:
        texts = raw["contains"]
        texts = [texts] if isinstance(texts, str) else texts
        if not isinstance(texts, list) or not all(isinstance(t, str) for t in texts):
            raise source.error((*where, "contains"), "contains is a string or a list of strings")
        out["contains"] = texts
    if "matches" in raw:
        pattern = raw["matches"]
        if not isinstance(pattern, str):
            raise source.error((*where, "matches"), "matches is a regular expression")
        if "${" not in pattern:
            try:
                re.compile(pattern)
            except re.error as exc:
                raise source.error(
                    (*where, "matches"), f"not a regular expression: {exc}"
                ) from None
    if "jsonpath" in raw:
        table = raw["jsonpath"]
        if not isinstance(table, dict) or not table:
            raise source.error((*where, "jsonpath"), 'jsonpath maps paths to values: {"$.a": 1}')
        for path in table:
            _check_path(source, (*where, "jsonpath", path), str(path))
    for key in ("exists", "absent"):
        if key in raw:
            out[key] = _path_list(source, (*where, key), raw[key])
    if "schema" in raw:
        _schema(source, (*where, "schema"), raw["schema"])
    if "latency_ms" in raw:
        latency = raw["latency_ms"]
        under = latency.get("under") if isinstance(latency, dict) else None
        if not isinstance(under, int | float) or isinstance(under, bool) or under <= 0:
            raise source.error((*where, "latency_ms"), "latency_ms is {under: MILLISECONDS}")
        _known(source, (*where, "latency_ms"), latency, ("under",))
    return out


def _schema(source: Source, where: Where, schema: Any) -> None:
    if not isinstance(schema, dict):
        raise source.error(where, "schema is a JSON Schema (a mapping)")
    # Start-up: jsonschema only for files that use schema:.
    from jsonschema.exceptions import SchemaError

    from inspector.forms.validate import validator_class

    try:
        validator_class(schema).check_schema(schema)
    except SchemaError as exc:
        at = "/".join(str(p) for p in exc.absolute_path) or "(root)"
        raise source.error(where, f"not a valid JSON Schema at {at}: {exc.message}") from None


def _save(source: Source, where: Where, raw: Any) -> dict[str, str]:
    if not isinstance(raw, dict) or not raw:
        raise source.error(
            where, 'save maps names to JSONPaths: {note_id: "$.structuredContent.id"}'
        )
    for name, path in raw.items():
        if not isinstance(name, str) or not NAME.fullmatch(name):
            raise source.error((*where, str(name)), "a variable name is letters, digits, _ . -")
        if not isinstance(path, str):
            raise source.error((*where, name), "a JSONPath ($.structuredContent.id)")
        _check_path(source, (*where, name), path)
    return dict(raw)


def _answers(source: Source, where: Where, raw: Any) -> Answers:
    if not isinstance(raw, dict):
        raise source.error(where, "answers is a mapping: elicit, sample, roots")
    _known(source, where, raw, ANSWER_KEYS)
    answers = Answers()
    if "elicit" in raw:
        elicit = raw["elicit"]
        if not (elicit in ELICIT_POLICIES or isinstance(elicit, dict)):
            raise source.error(
                (*where, "elicit"),
                f"elicit is {', '.join(ELICIT_POLICIES)}, or the content to accept (a mapping)",
            )
        answers.elicit = elicit
    if "sample" in raw:
        if not isinstance(raw["sample"], str):
            raise source.error((*where, "sample"), "sample is the model's answer (text)")
        answers.sample = raw["sample"]
    if "roots" in raw:
        roots = raw["roots"]
        if not isinstance(roots, list) or not all(isinstance(r, str) for r in roots):
            raise source.error((*where, "roots"), "roots is a list of paths")
        answers.roots = [str(source.path.parent / r) for r in roots]
    return answers
