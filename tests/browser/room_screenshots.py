"""Regenerates the rooms' screenshots in ``docs/`` (shown in the README):

    python -m tests.browser.room_screenshots [--out docs]

The home page, and a room's lobby with its host, a guest and an AI seat, on a phone
(360x740) and a desktop (1280x800).
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
from pathlib import Path

from .rooms_support import RoomServer, create_room, join_room, new_page
from .support import DESKTOP, PHONE, chromium_on


async def take(out: Path) -> list[Path]:
    """Write the screenshots into ``out``; the files written."""
    out.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    with tempfile.TemporaryDirectory(prefix="durak-rooms-") as tmp:
        server = RoomServer(Path(tmp) / "rooms.sqlite3")
        async with chromium_on(server) as browser:
            for label, viewport in (("phone", PHONE), ("desktop", DESKTOP)):
                home = await new_page(browser, viewport=viewport)
                await home.goto(f"{server.base}/")
                await home.locator("#rules option").first.wait_for(state="attached")
                await home.fill("#name", "Anna")
                path = out / f"rooms-home-{label}.png"
                await home.screenshot(path=str(path), full_page=True)
                written.append(path)
                invite = await create_room(home, server.base, "Anna", seats=4)
                guest = await new_page(browser)
                await join_room(guest, invite, "Boris")
                await home.locator("#seats .seat-name").nth(1).wait_for()
                await home.select_option("#level", "expert")
                await home.click("#add-ai")
                await home.locator("#seats .seat-name").nth(2).wait_for()
                path = out / f"rooms-lobby-{label}.png"
                await home.screenshot(path=str(path), full_page=True)
                written.append(path)
    return written


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", type=Path, default=Path("docs"))
    for path in asyncio.run(take(parser.parse_args().out)):
        print(path)


if __name__ == "__main__":
    main()
