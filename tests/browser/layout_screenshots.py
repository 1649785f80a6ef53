"""Regenerates the table's screenshots at each tested screen size in ``docs/layout/``:

    python -m tests.browser.layout_screenshots [--out docs/layout] [--later]

The crowded table of the layout test (:mod:`tests.browser.layout_support`: a 12-card hand,
six pairs, the cards shown at the deal) with 2 and 6 seats, on the channel's table page and
inside a room's page, at every size of :data:`~tests.browser.layout_support.VIEWPORTS`; a
file is named by where, seats and size: ``room-6-seats-1366x768.jpg``.  ``--later``: a later
round (a discard pile, nothing shown) instead, named ``…-later.jpg``.
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
from pathlib import Path

from playwright.async_api import async_playwright

from .layout_support import VIEWPORTS, Crowd, open_crowded
from .rooms_support import RoomServer
from .support import launch_chromium


async def take(out: Path, later: bool = False) -> list[Path]:
    """Write the screenshots into ``out``; the files written."""
    out.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    with tempfile.TemporaryDirectory(prefix="durak-layout-") as tmp:
        server = RoomServer(Path(tmp) / "pages.sqlite3")
        await server.start()
        try:
            async with async_playwright() as pw:
                browser = await launch_chromium(pw)
                for in_room in (False, True):
                    for seats in (2, 6):
                        for width, height in VIEWPORTS:
                            page, table, fake = await open_crowded(
                                browser, server.base, Crowd(seats), (width, height), in_room=in_room
                            )
                            if later:
                                fake.push(Crowd(seats, shown=False))
                                await table.locator("#shown").wait_for(state="hidden")
                            await page.wait_for_timeout(300)  # the fan settles
                            where = "room" if in_room else "table"
                            tail = "-later" if later else ""
                            path = out / f"{where}-{seats}-seats-{width}x{height}{tail}.jpg"
                            await page.screenshot(path=str(path), type="jpeg", quality=78)
                            written.append(path)
                            await page.context.close()
                await browser.close()
        finally:
            await server.close()
    return written


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("docs/layout"))
    parser.add_argument("--later", action="store_true", help="a later round (a discard pile)")
    args = parser.parse_args()
    for path in asyncio.run(take(args.out, args.later)):
        print(path)


if __name__ == "__main__":
    main()
