"""Regenerates the web table's screenshots in ``docs/`` (shown in the README):

    python -m tests.browser.screenshots [--out docs]

A real game (the service and the web server on 127.0.0.1, AI seats, a fixed seed) is played
from the page until the table shows attacks, some beaten, and the player's hand has cards
that glow and cards that are dimmed; the phone (360x740) and desktop (1280x800) pages are
taken there, then the game is played to its end and the game-over screen is taken too.
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
from pathlib import Path

from playwright.async_api import async_playwright

from .support import PHONE, LocalTable, TablePage, animations_done, launch_chromium, open_page

SEED = 21
PLAYERS = 4


async def _worth_showing(player: TablePage) -> bool:
    """Attacks on the table, one of them beaten, and both kinds of cards in the hand."""
    page = player.page
    pairs = await page.locator("#pairs .pair").count()
    beaten = await page.locator("#pairs .defence").count()
    return (
        pairs >= 2 and beaten >= 1 and bool(await player.playable()) and bool(await player.dimmed())
    )


async def take(out: Path, seed: int = SEED) -> list[Path]:
    """Play the game and write the screenshots into ``out``; the files written."""
    out.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    with tempfile.TemporaryDirectory(prefix="durak-shots-") as tmp:
        table = LocalTable(Path(tmp) / "shots.sqlite3", players=PLAYERS, seed=seed)
        await table.start()
        try:
            async with async_playwright() as pw:
                browser = await launch_chromium(pw)
                url = table.url()
                desktop = await open_page(browser, url)
                phone = await open_page(
                    browser,
                    url,
                    viewport=PHONE,
                    device_scale_factor=2,
                    has_touch=True,
                    is_mobile=True,
                )
                await desktop.play_until(_worth_showing)

                async def shoot(name: str) -> None:
                    version = await desktop.version()
                    await phone.expect(phone.hand).to_have_attribute("data-version", version)
                    for player, size in ((phone, "phone"), (desktop, "desktop")):
                        path = out / f"{name}-{size}.png"
                        await animations_done(player.page)  # the fan settles
                        await player.page.screenshot(path=str(path))
                        written.append(path)

                await shoot("web-table")
                await desktop.play_to_end()
                await shoot("web-game-over")
                await browser.close()
        finally:
            await table.close()
    return written


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("docs"), help="folder (default docs)")
    parser.add_argument("--seed", type=int, default=SEED, help=f"first deal (default {SEED})")
    args = parser.parse_args()
    for path in asyncio.run(take(args.out, args.seed)):
        print(path)


if __name__ == "__main__":
    main()
