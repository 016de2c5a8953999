"""What ``lint`` and ``diff`` survey: a session file (offline) or a live server.

A side given as one word (``diff OLD NEW``) is a session file (an existing ``.jsonl``
file, or one that starts with a session header), an http(s) URL, a server name of
``--config``, or else a stdio command in one quoted string (``"python server.py
--flag"``, split as a shell would).
"""

from __future__ import annotations

import argparse
import shlex
from dataclasses import dataclass
from pathlib import Path

import anyio

from inspector.commands.failures import CliError, ExitCode, classify_failure, unwrap_failure
from inspector.commands.options import UsageError, config_target, parse_env, parse_headers
from inspector.config import ConfigError, load_server_config
from inspector.engine.responders import Responders
from inspector.record.format import SessionFileError
from inspector.record.reader import open_header
from inspector.record.recorder import Recorder
from inspector.survey.survey import Survey, survey_file, survey_live
from inspector.target import Target, build_transport, target_from_words


@dataclass
class Side:
    """One thing to survey: ``file`` or ``target``."""

    label: str  # "old", "new", "target": how errors name it
    file: Path | None = None
    target: Target | None = None

    def describe(self) -> str:
        if self.file is not None:
            return str(self.file)
        assert self.target is not None
        return self.target.name or self.target.describe()


def looks_like_file(word: str) -> bool:
    """A session file: an existing ``.jsonl`` file, or a file whose first line is a
    session header (``server.py`` is a command to start, not a file to read)."""
    path = Path(word)
    if word.startswith(("http://", "https://")) or not path.is_file():
        return False
    if path.suffix == ".jsonl":
        return True
    try:
        open_header(path)
    except SessionFileError:
        return False
    return True


def side_from_word(opts: argparse.Namespace, word: str, label: str) -> Side:
    """A side of ``diff``: a file, a URL, a ``--config`` name, or a command string."""
    if not word.strip():
        raise UsageError(f"{label}: empty; give a session file, a URL or a command")
    if looks_like_file(word):
        return Side(label, file=Path(word))
    if opts.config and not word.startswith(("http://", "https://")) and _named(opts, word):
        return Side(label, target=config_target(opts, word))
    try:
        words = [word] if word.startswith(("http://", "https://")) else shlex.split(word)
    except ValueError as exc:
        raise UsageError(f"{label}: cannot split {word!r} as a command: {exc}") from exc
    try:
        target = target_from_words(
            words,
            transport=opts.transport,
            env=parse_env(opts.env),
            cwd=opts.cwd,
            headers=parse_headers(opts.header),
        )
    except ValueError as exc:
        raise UsageError(f"{label}: {exc}") from exc
    return Side(label, target=target)


def _named(opts: argparse.Namespace, word: str) -> bool:
    """``word`` names a server of ``--config`` (a bad config file is a usage error)."""
    try:
        load_server_config(opts.config, word)
    except ConfigError as exc:
        if "no server named" in str(exc):
            return False
        raise UsageError(str(exc)) from exc
    return True


def survey(
    side: Side,
    timeout: float,
    max_timeout: float | None,
    recorder: Recorder | None = None,
    responders: Responders | None = None,
) -> Survey:
    """The side's survey (a live one written to ``recorder`` too); a failure is a
    :class:`CliError` naming the side."""
    try:
        if side.file is not None:
            return survey_file(side.file)
        assert side.target is not None
        target = side.target

        async def go() -> Survey:
            transport = build_transport(target, timeout=timeout, max_timeout=max_timeout)
            return await survey_live(
                transport,
                side.describe(),
                timeout=timeout,
                max_timeout=max_timeout,
                recorder=recorder,
                responders=responders,
            )

        return anyio.run(go)
    except SessionFileError as exc:
        raise CliError("file", f"{side.label}: {exc}", ExitCode.USAGE) from exc
    except BaseException as exc:
        failure = unwrap_failure(exc)
        if failure is None:
            raise
        error = classify_failure(failure)
        raise CliError(
            error.kind,
            f"{side.label} ({side.describe()}): {error.message}",
            error.code,
            **error.details,
        ) from exc
