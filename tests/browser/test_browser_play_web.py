"""``durak-bot play --web`` in the browser, from the deal to a new game: the game played to its
end by clicks, End series (the end screen then says the series is over, and offers a new game
instead of Rematch and End series), a reload of the page (no game at this table: a new game
is offered in the page's words, not a Discord sentence), and New game, which deals the next
game with the same options on the same page."""

from __future__ import annotations

import asyncio
import contextlib
import io
import re
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest_asyncio
from playwright.async_api import expect

from apps.play_web import play_web
from web.strings import page_strings
from web.wording import catalog

from .support import free_port, open_page

EN = page_strings("table", catalog("en"))


class LocalPlay:
    """``play_web`` running in the test's loop (as ``durak-bot play --web --no-browser``):
    its address and its output."""

    def __init__(self, task: asyncio.Task[int], out: io.StringIO, port: int) -> None:
        self.task, self.out, self.port = task, out, port

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    async def url(self) -> str:
        """The player's link, once printed."""
        for _ in range(300):
            found = re.search(r"Open (http://\S+)", self.out.getvalue())
            if found:
                return found[1]
            assert not self.task.done(), self.out.getvalue()
            await asyncio.sleep(0.05)
        raise AssertionError(f"no link printed: {self.out.getvalue()!r}")


@pytest_asyncio.fixture
async def local_play(tmp_path: Path) -> AsyncIterator[LocalPlay]:
    out = io.StringIO()
    port = free_port()
    task = asyncio.create_task(
        play_web(
            players=3,
            level="beginner",
            out=out,
            port=port,
            db_path=str(tmp_path / "play.sqlite3"),
            ai_delay=0.0,
            seed=7,
            open_browser=False,
        )
    )
    try:
        yield LocalPlay(task, out, port)
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task


async def test_after_the_series_the_page_deals_a_new_game(
    browser: Any, local_play: LocalPlay
) -> None:
    player = await open_page(browser, await local_play.url())
    page = player.page
    assert await player.play_to_end() > 3
    over = page.locator("#game-over")
    title = page.locator("#over-title")
    await expect(title).to_have_text(EN["game_over"])
    await player.button(EN["end_series"]).click()

    # the end screen says the series is over, and offers a new game instead
    await expect(title).to_have_text(EN["series_over"])
    await expect(player.button(EN["rematch"])).to_be_hidden()
    await expect(player.button(EN["end_series"])).to_be_hidden()
    await expect(player.button(EN["new_game"])).to_be_visible()
    await expect(page.locator("#standings")).to_contain_text("Player")

    # a reload: no game at this table, in the page's words, and the same offer
    await page.reload()
    await expect(over).to_be_visible()
    await expect(title).to_have_text(EN["no_game"])
    await expect(page.locator("#banner")).to_be_hidden()
    await expect(page.locator("body")).not_to_contain_text("channel")

    game = await player.hand.get_attribute("data-game")
    await player.button(EN["new_game"]).click()
    await expect(over).to_be_hidden()
    await player.ready()
    assert await player.hand.get_attribute("data-game") != game
    await expect(player.hand.locator("button")).not_to_have_count(0)
    await expect(page.locator(".seat")).to_have_count(3)  # the same options: 3 seats

    # and the new game plays
    version = await player.version()
    assert await player.my_turn_or_over()
    await player.move()
    await player.moved_from(version)
    assert player.errors == []
