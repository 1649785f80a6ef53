"""A whole game in the browser, played by clicks only, to the game-over screen."""

from __future__ import annotations

from typing import Any

from .support import open_page


async def test_a_whole_game_against_ai_seats_played_by_clicks(
    browser: Any, local_table: Any
) -> None:
    table = await local_table(players=3, seed=7)
    player = await open_page(browser, table.url())
    page = player.page
    # the token left the address bar as soon as it was read
    assert "#t=" not in page.url

    moves = await player.play_to_end()
    assert moves > 3

    view = await table.service.table(table.channel)
    assert view.finished
    over = page.locator("#game-over")
    await player.expect(over).to_be_visible()
    if view.draw:
        await player.expect(over).to_contain_text("draw")
    else:
        durak = view.seats[view.loser].name
        await player.expect(page.locator("#over-text")).to_contain_text(durak)
        await player.expect(page.locator("#over-text")).to_contain_text("durak")
    # the series standings and the end-of-game buttons
    await player.expect(page.locator("#standings")).to_contain_text("Alice")
    await player.expect(player.button("Rematch")).to_be_visible()
    await player.expect(player.button("End series")).to_be_visible()
    assert player.errors == []
