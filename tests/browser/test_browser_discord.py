"""Two players of one Discord game: Alice in the browser (the "Open the table" link of her
Discord hand), Bob with the buttons of his Discord hand, against the fake Discord.  Each sees
the other's moves: Bob's land on Alice's page, Alice's on Bob's hand and on the channel's
table message, to the end of the game."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.e2e.durak_e2e import Harness, buttons, poll, prefer
from tests.e2e.fakediscord import FakeDiscord
from tests.e2e.fakediscord.pytest_plugin import fake_discord  # noqa: F401  (a fixture)
from tests.e2e.test_e2e_web_links import links

from .support import MAX_MOVES, free_port, open_page

pytestmark = pytest.mark.e2e


async def test_a_browser_player_and_a_discord_player_see_each_others_moves(
    browser: Any,
    fake_discord: FakeDiscord,  # noqa: F811
    tmp_path: Path,
) -> None:
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    h = Harness(
        fake_discord,
        tmp_path / "durak.sqlite3",
        seeds=[7],
        settings_extra={"public_url": base, "web_host": "127.0.0.1", "web_port": port},
    )
    alice, bob = h.user("alice"), h.user("bob")
    await h.start_with_game(alice, join=[bob], seats=2)
    hand_message = h.hand_message(alice)
    assert hand_message is not None
    (label, url), *_ = links(hand_message)
    assert label == "Open the table" and url.startswith(base + "/table#t=")

    player = await open_page(browser, url)
    page = player.page
    alice_moves = bob_moves = 0
    for _ in range(MAX_MOVES):
        view = await h.table_view()
        if view.finished:
            break
        # the page always catches up with the game, whoever moved
        await player.expect(page.locator("#hand")).to_have_attribute(
            "data-version", str(view.version)
        )
        if view.seats[view.to_act].user_id == alice.id:
            pressed = await player.move()
            after = await poll(
                lambda v=view.version: _newer(h, v), what="Alice's move in the service"
            )
            alice_moves += 1
            await h.idle()
            # the service took it as Alice's move, and the channel's table message shows it
            last = after.recent[-1]
            assert last.seat == view.to_act
            assert pressed in ("Pass", "Take") or pressed in map(str, last.cards)
            table_text = h.last_table().text().replace("\ufe0f", "")  # plain suit symbols
            assert "**Alice**" in table_text
            if pressed not in ("Pass", "Take"):
                assert pressed in table_text  # the card she played, on Discord's table
        else:
            found = await h.turn()
            assert found is not None
            turn_player, message = found
            assert turn_player.user is bob
            choice = prefer("defend", "take", "attack", "pass")(
                turn_player, [b for b in buttons(message) if b.is_game_action], view
            )
            await h.press(bob, message, choice)
            after = await poll(lambda v=view.version: _newer(h, v), what="Bob's move")
            bob_moves += 1
            # the page shows Bob's move, in words, once it was stored
            await player.expect(page.locator("#recent li").last).to_contain_text("Bob")
    else:
        raise AssertionError("the game did not end")

    assert alice_moves >= 2 and bob_moves >= 2
    view = await h.table_view()
    await player.expect(page.locator("#game-over")).to_be_visible()
    for loser in view.outcome.losers:
        durak = view.seats[loser].name
        await player.expect(page.locator("#over-text")).to_contain_text(durak)
    await h.idle()
    assert player.errors == []
    await page.context.close()  # the page's socket closes before the fake Discord checks
    await h.idle()


async def _newer(h: Harness, version: int) -> Any:
    """The table once it is past ``version`` (else ``None``)."""
    view = await h.table_view()
    return view if view.version > version else None
