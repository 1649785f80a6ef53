"""Screenshots of the table options (issue 30), on a phone (390×844) and a desktop (1280×800):

    python -m tests.browser.options_screenshots [--out /work/shots/h30]

``teams-2x2-<size>.png``: a 2×2 table (one player, three AI seats) with cards on the table;
``show-trump-<size>.png``: the moment after the player showed a trump (the table says who
showed which trump, the card still in the hand).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import tempfile
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

from playwright.async_api import async_playwright

from .support import LocalTable, TablePage, launch_chromium, local_webs, open_page, play_to_a_show

#: The phone's and the desktop's screens (CSS pixels).
SIZES = ({"width": 390, "height": 844}, {"width": 1280, "height": 800})


async def _shoot(browser: Any, url: str, path_of: Any) -> list[Path]:
    """The table at ``url`` on each screen size, into ``path_of(size)``."""
    written = []
    for viewport in SIZES:
        page = await open_page(browser, url, viewport=viewport)
        await page.page.wait_for_timeout(400)  # the fan settles
        path = path_of(f"{viewport['width']}x{viewport['height']}")
        await page.page.screenshot(path=str(path))
        written.append(path)
        await page.page.context.close()
    return written


async def _pairs_on_the_table(player: TablePage) -> bool:
    return await player.page.locator("#pairs .pair").count() >= 2


async def take(out: Path) -> list[Path]:
    """Write the screenshots into ``out``; the files written."""
    out.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    with tempfile.TemporaryDirectory(prefix="durak-options-") as tmp:
        async with AsyncExitStack() as stack:
            make = await stack.enter_async_context(local_webs(LocalTable, Path(tmp), "shots"))
            pw = await stack.enter_async_context(async_playwright())
            browser = await launch_chromium(pw)
            # a 2×2 table, played until a few cards lie on it
            table = await make(players=4, teams="2x2", seed=3, level="casual")
            player = await open_page(browser, table.url())
            with contextlib.suppress(AssertionError):  # else the table as the game left it
                await player.play_until(_pairs_on_the_table)
            written += await _shoot(browser, table.url(), lambda s: out / f"teams-2x2-{s}.png")
            # a trump shown to transfer
            table, player, card = await play_to_a_show(browser, make)
            await player.button(f"Show {card}").click()
            await player.page.locator("#shown .round-shown").wait_for()
            written += await _shoot(browser, table.url(), lambda s: out / f"show-trump-{s}.png")
            await browser.close()
    return written


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("/work/shots/h30"))
    args = parser.parse_args()
    for path in asyncio.run(take(args.out)):
        print(path)


if __name__ == "__main__":
    main()
