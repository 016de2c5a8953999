"""Both pinned releases of the official conformance suite, every client scenario through
``mcp-inspect --cli`` as ``tests/conformance_client.py`` types it, with a table of the
verdicts printed: 0.1.16 (all its client scenarios) and 0.2.0-alpha.12 (the scenarios
2026-07-28 requires, run at that revision's wire as ``--requirements 2026-07-28`` runs
them, and the extension scenarios).

Each scenario's recording is checked too (the suite passes some scenarios for a client
that does nothing), and for the 2026-07-28 work the recording must show what the
scenario is about: the registration's ``application_type``, the ``-32022`` retry, the
refused ``iss``, the new authorization server, the DPoP proofs, the JWT bearer grant.

Each scenario runs once a test session (``run_through_adapter``): tests/cli/
test_conformance.py's checks of single 0.1.16 scenarios read the same runs.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from urllib.parse import parse_qsl

import pytest

from inspector.record.reader import read_session
from inspector.wire.events import Channel, Direction, WireEvent
from tests.conformance import (
    PRERELEASE,
    VERSION,
    ScenarioResult,
    client_scenarios,
    extension_scenarios,
    run_through_adapter,
    tagged_scenarios,
)
from tests.conformance_client import record_name

REVISION = "2026-07-28"
# extension scenarios of features built elsewhere: run and shown in the table, not asserted
ELSEWHERE: set[str] = set()
Check = Callable[[list[WireEvent]], str | None]


def recordings(folder: Path, scenario: str) -> list[list[WireEvent]]:
    found = []
    number = 1
    while (path := folder / record_name(scenario, number)).exists():
        found.append(read_session(path).events)
        number += 1
    return found


def auth_out(events: list[WireEvent], step: str) -> list[WireEvent]:
    return [
        e
        for e in events
        if e.channel is Channel.AUTH
        and e.direction is Direction.OUT
        and e.meta.get("step") == step
        and "method" in e.meta
    ]


def bodies_after(events: list[WireEvent], request: WireEvent) -> object:
    """The body sent with ``request`` (the event after its request line): JSON or a form."""
    index = events.index(request)
    if index + 1 >= len(events) or events[index + 1].direction is not Direction.OUT:
        return None
    text = events[index + 1].raw.decode("utf-8", "replace")
    return json.loads(text) if text.startswith("{") else dict(parse_qsl(text))


def notes(events: list[WireEvent], kind: str) -> list[WireEvent]:
    return [e for e in events if e.direction is Direction.LOCAL and e.meta.get("auth") == kind]


def registered_native(events: list[WireEvent]) -> str | None:
    bodies = [bodies_after(events, r) for r in auth_out(events, "registration")]
    types = {b.get("application_type") for b in bodies if isinstance(b, dict)}
    return None if types <= {"native"} else f"application_type {types}"


def retried_version(events: list[WireEvent]) -> str | None:
    steps = [e.meta["era"].get("step") for e in events if isinstance(e.meta.get("era"), dict)]
    sent = [
        e.message.get("method")
        for e in events
        if e.channel is Channel.BODY
        and e.direction is Direction.OUT
        and isinstance(e.message, dict)
    ]
    if "retry" not in steps or "initialize" in sent:
        return f"no -32022 retry (era steps {steps}, sent {sent})"
    return None


def refused_iss(events: list[WireEvent]) -> str | None:
    failed = " ".join(e.text() for e in notes(events, "failed"))
    if "mix-up" not in failed or auth_out(events, "token"):
        return "the trailing-slash iss was not refused before the token request"
    return None


def migrated(events: list[WireEvent]) -> str | None:
    hosts = {e.meta["url"].split("/")[2] for e in auth_out(events, "registration")}
    if not notes(events, "migrated") or len(hosts) != 2:
        return f"no registration at the new authorization server ({hosts})"
    return None


def dpop_bound(events: list[WireEvent]) -> str | None:
    proofs = notes(events, "dpop-proof")
    jtis = [p.meta["claims"]["jti"] for p in proofs]
    token = auth_out(events, "token")
    if not token or not all("DPoP" in t.meta["headers"] for t in token):
        return "a token request without a DPoP proof"
    posts = [
        e
        for e in events
        if e.channel is Channel.HTTP and e.direction is Direction.OUT and e.meta.get("headers")
    ]
    if not any("DPoP" in e.meta["headers"] for e in posts) or len(set(jtis)) != len(jtis):
        return "no fresh DPoP proof on the MCP requests"
    return None


def dpop_nonces(events: list[WireEvent]) -> str | None:
    nonces = {p.meta["claims"].get("nonce") for p in notes(events, "dpop-proof")}
    return dpop_bound(events) or (None if len(nonces - {None}) == 2 else f"nonces {nonces}")


def jwt_bearer(events: list[WireEvent]) -> str | None:
    (grant,) = auth_out(events, "jwt bearer") or [None]
    body = bodies_after(events, grant) if grant else None
    if not isinstance(body, dict) or not body.get("grant_type", "").endswith(":jwt-bearer"):
        return "no JWT bearer grant"
    return None if body.get("assertion") == "«redacted»" else "the assertion is not masked"


def sent_methods(events: list[WireEvent]) -> list[str]:
    return [
        str(e.message.get("method"))
        for e in events
        if e.channel is Channel.BODY
        and e.direction is Direction.OUT
        and isinstance(e.message, dict)
    ]


def listed_only(events: list[WireEvent]) -> str | None:
    sent = sent_methods(events)
    if "skills/list" not in sent or "resources/read" in sent:
        return f"no skills/list, or a file read ahead of need ({sent})"
    return None


def rejected_skill(events: list[WireEvent]) -> str | None:
    """The SKILL.md was read, its response carries the verification finding, and no
    other file was read after it."""
    reads = [e for e in events if e.message and e.message.get("method") == "resources/read"]
    flagged = [e for e in events if any(f.code == "skill-verification" for f in e.findings)]
    if len(reads) != 1 or not flagged:
        return f"{len(reads)} file reads, {len(flagged)} verification findings"
    return None


EVIDENCE: dict[str, Check] = {
    "sep-2640-client-no-prefetch": listed_only,
    "sep-2640-client-verify-digest": rejected_skill,
    "sep-2640-client-verify-size": rejected_skill,
    "sep-2640-client-verify-frontmatter": rejected_skill,
    "request-metadata": retried_version,
    "auth/iss-normalized": refused_iss,
    "auth/authorization-server-migration": migrated,
    "auth/dpop": dpop_bound,
    "auth/dpop-nonce": dpop_nonces,
    "auth/wif-jwt-bearer": jwt_bearer,
}


def verdict(
    scenario: str, result: ScenarioResult, sessions: list[list[WireEvent]], revision: str | None
) -> str:
    """ "pass", or why not: the suite's verdict, then what the recordings show."""
    if not result.passed:
        problems = result.problems()
        return "suite: " + (
            "; ".join(str(c.get("id")) for c in problems)
            if problems
            else f"exit {result.exit_code}"
        )
    if not sessions or not any(
        e.direction is Direction.OUT and e.channel is Channel.BODY for s in sessions for e in s
    ):
        return "no request in the recording"
    events = [e for s in sessions for e in s]
    if revision == REVISION:
        why = registered_native(events)
        if why:
            return why
    check = EVIDENCE.get(scenario)
    return (check(events) if check else None) or "pass"


def run_suite(
    version: str, plan: list[tuple[str, str | None]], folder: Path, runs: Path
) -> dict[str, str]:
    """Each scenario's verdict; the runs shared with test_conformance (``runs``)."""
    rows: dict[str, str] = {}
    for scenario, revision in plan:
        record = folder / scenario.replace("/", "_")
        record.mkdir(parents=True)
        result = run_through_adapter(scenario, record, runs, version=version, spec_version=revision)
        rows[scenario] = verdict(scenario, result, recordings(record, scenario), revision)
    return rows


def table(version: str, plan: list[tuple[str, str | None]], rows: dict[str, str]) -> str:
    width = max(len(name) for name, _ in plan)
    lines = [f"conformance {version}: client scenarios through mcp-inspect --cli"]
    required = (
        set(client_scenarios(version, requirements=REVISION)) if version == PRERELEASE else set()
    )
    for scenario, revision in plan:
        kind = "" if version != PRERELEASE else "extension"
        if revision:
            kind = "required" if scenario in required else "not scored (added after release)"
        mark = "PASS" if rows[scenario] == "pass" else "FAIL"
        note = "" if mark == "PASS" else f"  {rows[scenario]}"
        if scenario in ELSEWHERE:
            note += "  (not asserted here)"
        lines.append(f"  {mark}  {scenario:<{width}}  {kind:<9}{note}")
    counted = [s for s, _ in plan if s not in ELSEWHERE]
    passed = sum(rows[s] == "pass" for s in counted)
    lines.append(f"  {passed}/{len(counted)} passed")
    return "\n".join(lines)


def suite_plan(version: str) -> list[tuple[str, str | None]]:
    """(scenario, the revision it runs at): 0.1.16 as it comes; the prerelease: what
    2026-07-28 requires at that wire, then the extensions."""
    if version == VERSION:
        return [(s, None) for s in client_scenarios(version)]
    required = client_scenarios(version, requirements=REVISION)
    later = [s for s in tagged_scenarios(version, REVISION) if s not in required]
    return [(s, REVISION) for s in [*required, *later]] + [
        (s, None) for s in extension_scenarios(version)
    ]


# each suite runs in shards (every SHARDS-th scenario), so parallel workers share a suite
# of a few minutes instead of one worker running it alone while the others idle at the end
SHARDS = 4


@pytest.mark.slow
@pytest.mark.parametrize("shard", range(SHARDS))
@pytest.mark.parametrize("version", [VERSION, PRERELEASE])
def test_every_client_scenario(
    version: str,
    shard: int,
    tmp_path: Path,
    conformance_runs: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    plan = suite_plan(version)[shard::SHARDS]
    rows = run_suite(version, plan, tmp_path, conformance_runs)
    with capsys.disabled():
        print("\n" + table(version, plan, rows) + f" (shard {shard + 1} of {SHARDS})")
    failed = {s: why for s, why in rows.items() if why != "pass" and s not in ELSEWHERE}
    assert not failed, json.dumps(failed, indent=1)
