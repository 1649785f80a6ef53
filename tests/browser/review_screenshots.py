"""Screenshots of the coach's review on the web table, to look at its layout:

    python -m tests.browser.review_screenshots [--out /work/shots/h32f] [--players 2 4]

A real game (the service and the web server on 127.0.0.1, AI seats, a fixed seed) is played
from the page to its end; the review (a small budget: the layout is looked at, not the
figures) is opened on a phone (360x740, touch) and a desktop page (1280x800), and its summary
and its first marked decisions (``--pages``) are taken, each as
``review-<players>p-<size>-<page>.png``.
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
from pathlib import Path

from .support import DESKTOP, PHONE, LocalTable, TablePage, chromium_on, open_page

SEED = 7
#: Sampled deals per choice: enough for some marked decisions, quick to make.
DEALS = 4
#: The marked decisions taken after the summary, by default.
PAGES = 2


async def _shoot(player: TablePage, out: Path, stem: str, pages: int) -> list[Path]:
    """Open the review on ``player``'s page and take its summary and first decisions."""
    page = player.page
    written: list[Path] = []
    await player.button("Review my game").click()
    body = page.locator("#review-body")
    await player.expect(body).to_contain_text("Accuracy", timeout=120_000)
    shots = [("summary", None)] + [(f"move{i}", i) for i in range(1, pages + 1)]
    for name, step in shots:
        if step is not None:
            nxt = page.locator("#review-next")
            if await nxt.is_disabled():
                break
            await nxt.click()
            await player.expect(body.locator(".review-felt")).to_be_visible()
        path = out / f"{stem}-{name}.png"
        await page.screenshot(path=str(path))
        written.append(path)
    await page.locator("#review-close").click()
    return written


async def take(out: Path, players: int, seed: int = SEED, pages: int = PAGES) -> list[Path]:
    """Play one game of ``players`` seats and write its review's screenshots into ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    with tempfile.TemporaryDirectory(prefix="durak-review-shots-") as tmp:
        table = LocalTable(Path(tmp) / "shots.sqlite3", players=players, seed=seed)
        async with chromium_on(table) as browser:
            table.service._reviews.deals = DEALS
            url = table.url()
            desktop = await open_page(browser, url, viewport=DESKTOP)
            await desktop.play_to_end()
            phone = await open_page(
                browser, url, viewport=PHONE, device_scale_factor=2, has_touch=True, is_mobile=True
            )
            await phone.expect(phone.page.locator("#game-over")).to_be_visible()
            for player, size in ((desktop, "desktop"), (phone, "phone")):
                written += await _shoot(player, out, f"review-{players}p-{size}", pages)
    return written


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("/work/shots/h32f"), help="folder")
    parser.add_argument("--players", type=int, nargs="+", default=[2, 4], help="seats")
    parser.add_argument("--seed", type=int, default=SEED, help=f"first deal (default {SEED})")
    parser.add_argument("--pages", type=int, default=PAGES, help="decisions taken per review")
    args = parser.parse_args()
    for players in args.players:
        for path in asyncio.run(take(args.out, players, args.seed, args.pages)):
            print(path)


if __name__ == "__main__":
    main()
