"""The page's first load, as Chromium fetched it: at most 300 KB over the wire, card art
included (drawn by code), the Discord SDK not fetched outside Discord, and the review's
script not fetched before a review is asked for."""

from __future__ import annotations

from typing import Any

from .support import PHONE

LIMIT = 300 * 1024


async def test_the_first_load_is_small_and_skips_the_discord_sdk(
    browser: Any, local_table: Any
) -> None:
    table = await local_table(players=2, seed=7)
    context = await browser.new_context(viewport=PHONE)
    page = await context.new_page()
    cdp = await context.new_cdp_session(page)
    await cdp.send("Network.enable")
    urls: dict[str, str] = {}
    sizes: dict[str, int] = {}
    cdp.on(
        "Network.requestWillBeSent", lambda e: urls.update({e["requestId"]: e["request"]["url"]})
    )
    cdp.on(
        "Network.loadingFinished",
        lambda e: sizes.update({e["requestId"]: int(e["encodedDataLength"])}),
    )
    await page.goto(table.url())
    await page.get_by_role("button", name="Take").or_(page.locator("#hand button")).first.wait_for()
    await page.wait_for_load_state("networkidle")

    fetched = {urls[r]: n for r, n in sizes.items() if r in urls}
    names = sorted(url.rsplit("/", 1)[-1].split("#")[0] for url in fetched)
    assert "table" in names and "app.js" in names and "cards.js" in names
    assert not [n for n in names if "discord" in n or n == "activity.js"], names
    # the coach's review is loaded when the player asks for it, after a game
    assert "review.js" not in names, names
    total = sum(fetched.values())
    print(f"first load: {len(fetched)} files, {total} bytes over the wire")
    assert total <= LIMIT, fetched
