"""The pages' words in the browser: a French browser reads the table and a room's page in
French from the first paint, and a table link with another language (a Discord locale)
re-words the page when its socket says hello."""

from __future__ import annotations

from typing import Any

from web.strings import page_strings
from web.wording import catalog

from .rooms_support import create_room, new_page
from .support import open_page


async def test_a_french_browser_reads_the_table_in_french(browser: Any, local_table: Any) -> None:
    table = await local_table(players=2, seed=7)
    fr = page_strings("table", catalog("fr"))
    player = await open_page(browser, table.url(), locale="fr-FR")
    page = player.page
    await player.expect(page.locator("html")).to_have_attribute("lang", "fr")
    await player.expect(page.locator("#hints-label")).to_have_text(fr["hints"])
    await player.expect(page.locator("#four-label")).to_have_text(fr["four_colours"])
    await player.expect(page.locator("#settings-button")).to_have_attribute(
        "aria-label", fr["settings"]
    )
    await player.expect(page.locator("#hand")).to_have_attribute("aria-label", fr["your_hand"])
    await player.expect(page.locator("#stock")).to_contain_text(fr["trump"])
    assert player.errors == []


async def test_a_link_in_another_language_rewords_the_page(browser: Any, local_table: Any) -> None:
    table = await local_table(players=2, seed=7)
    es = page_strings("table", catalog("es"))
    player = await open_page(browser, table.url(locale="es-ES"), locale="fr-FR")
    page = player.page
    await player.expect(page.locator("html")).to_have_attribute("lang", "es")
    await player.expect(page.locator("#hints-label")).to_have_text(es["hints"])
    await player.expect(page.locator("#settings-button")).to_have_attribute(
        "aria-label", es["settings"]
    )
    await player.expect(page.locator("#stock")).to_contain_text(es["trump"])


async def test_a_french_browser_reads_a_room_in_french(browser: Any, pages_server: Any) -> None:
    fr = page_strings("room", catalog("fr"))
    home = page_strings("home", catalog("fr"))
    ann = await new_page(browser, locale="fr-FR")
    await ann.goto(f"{pages_server.base}/")
    await ann.locator("#rules option").first.wait_for(state="attached")
    assert await ann.locator("#create-button").inner_text() == home["create"]
    await create_room(ann, pages_server.base, "Ann")
    assert await ann.locator("#start").inner_text() == fr["start"]
    assert await ann.locator("#level").get_attribute("aria-label") == fr["ai_level"]
    level = await ann.locator("#level option").first.inner_text()
    assert level in {v for k, v in fr.items() if k.startswith("level_")}
    assert ann.errors == []
