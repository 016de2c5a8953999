"""The debounced completer against the bundled demo server over stdio: headless."""

from __future__ import annotations

import anyio

from inspector.engine.client import McpClient
from inspector.engine.completion import Completer, Completion, prompt_ref, resource_ref
from tests.everything import demo_session


async def test_prompt_argument_completion() -> None:
    with anyio.fail_after(20):
        async with demo_session() as session:
            completer = Completer(McpClient(session), prompt_ref("greeting"), debounce=0)
            found = await completer.complete("name", "a")
    assert found is not None and found.error is None
    assert found.values == ["Ada", "Alan"]
    assert found.total == 2 and not found.has_more
    assert found.first_with_prefix("a") == "ada"  # keeps what the user typed, extends it
    assert found.first_with_prefix("Al") == "Alan"


async def test_template_completion_sends_context_arguments() -> None:
    sent: list[dict[str, object]] = []
    with anyio.fail_after(20):
        async with demo_session() as session:
            session.add_observer(lambda e: sent.append(e.message) if isinstance(e.message, dict)
                                 and e.message.get("method") == "completion/complete" else None)
            completer = Completer(McpClient(session),
                                  resource_ref("demo://users/{user}/files/{path}"), debounce=0)
            users = await completer.complete("user", "")
            assert users is not None and users.values
            user = users.values[0]
            everyone = await completer.complete("path", "")
            theirs = await completer.complete("path", "", {"user": user, "path": "ignored"})
    assert everyone is not None and theirs is not None
    assert theirs.values and theirs.values != everyone.values  # the context changed it
    last = sent[-1]["params"]
    assert isinstance(last, dict)
    assert last["context"] == {"arguments": {"user": user}}  # the argument itself left out
    assert "context" not in sent[0]["params"]  # type: ignore[operator]


async def test_debounce_sends_only_the_last_keystroke_and_caches() -> None:
    with anyio.fail_after(20):
        async with demo_session() as session:
            completer = Completer(McpClient(session),
                                  resource_ref("demo://weather/{city}{?units}"), debounce=0.15)
            answers: dict[str, Completion | None] = {}

            async def type_(value: str, delay: float) -> None:
                await anyio.sleep(delay)
                answers[value] = await completer.complete("city", value)

            async with anyio.create_task_group() as tg:
                for i, value in enumerate(["B", "Be", "Ber"]):
                    tg.start_soon(type_, value, i * 0.03)
            assert completer.calls == 1
            again = await completer.complete("city", "Ber")
            assert completer.calls == 1  # served from the cache
    assert answers["B"] is None and answers["Be"] is None
    final = answers["Ber"]
    assert final is not None and final.values == ["Berlin"]
    assert again == final


async def test_server_without_completions_is_never_asked() -> None:
    with anyio.fail_after(20):
        async with demo_session() as session:
            session.server_capabilities.pop("completions")
            completer = Completer(McpClient(session), prompt_ref("greeting"), debounce=0)
            found = await completer.complete("name", "A")
    assert found == Completion() and completer.calls == 0


async def test_errors_become_a_message_not_an_exception() -> None:
    with anyio.fail_after(20):
        async with demo_session() as session:
            completer = Completer(McpClient(session), prompt_ref("no_such_prompt"), debounce=0)
            found = await completer.complete("name", "A")
    assert found is not None and found.values == [] and found.error
    assert "no_such_prompt" in found.error


def test_malformed_answers_are_tamed() -> None:
    many = {"completion": {"values": [str(i) for i in range(150)] + [3, None], "total": "x"}}
    found = Completion.from_result(many)
    assert len(found.values) == 100 and found.total is None
    assert Completion.from_result({"nope": 1}).error
