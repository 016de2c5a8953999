"""The debounced completer against the bundled demo server over stdio: headless."""

from __future__ import annotations

import anyio
from textual.widgets import Input
from tui_helpers import focus, wait_for

from inspector.engine.client import McpClient
from inspector.engine.completion import Completer, Completion, prompt_ref, resource_ref
from inspector.tui.suggester import CompletionSuggester
from tests.everything import HostApp, demo_session


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
            session.add_observer(
                lambda e: (
                    sent.append(e.message)
                    if isinstance(e.message, dict)
                    and e.message.get("method") == "completion/complete"
                    else None
                )
            )
            completer = Completer(
                McpClient(session), resource_ref("demo://users/{user}/files/{path}"), debounce=0
            )
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
            completer = Completer(
                McpClient(session), resource_ref("demo://weather/{city}{?units}"), debounce=0.15
            )
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


async def test_suggester_in_an_input_with_context() -> None:
    seen: list[Completion] = []
    sent: list[dict[str, object]] = []
    async with demo_session() as session:
        session.add_observer(
            lambda e: (
                sent.append(e.message["params"])
                if isinstance(e.message, dict) and e.message.get("method") == "completion/complete"
                else None
            )
        )
        client = McpClient(session)
        completer = Completer(
            client, resource_ref("demo://users/{user}/files/{path}"), debounce=0.05
        )
        user_box = Input(id="user", suggester=CompletionSuggester(completer, "user"))
        path_box = Input(
            id="path",
            suggester=CompletionSuggester(
                completer, "path", context=lambda: {"user": user_box.value}, on_values=seen.append
            ),
        )
        app = HostApp(user_box, path_box)
        async with app.run_test(size=(80, 12)) as pilot:
            user_box.focus()
            users = await completer.complete("user", "")
            assert users is not None and users.values
            first = users.values[0]
            await pilot.press(*first[:2])
            await wait_for(pilot, lambda: user_box._suggestion == first)
            await pilot.press("right")  # accept the suggestion
            assert user_box.value == first
            await focus(pilot, path_box)
            await pilot.press(*"n")
            await wait_for(pilot, lambda: bool(seen))
            await pilot.pause()
    theirs = seen[-1].values
    assert theirs and all(v.lower().startswith("n") for v in theirs)
    assert sent[-1] == {
        "ref": {"type": "ref/resource", "uri": "demo://users/{user}/files/{path}"},
        "argument": {"name": "path", "value": "n"},
        "context": {"arguments": {"user": first}},
    }
