"""No "seat N" and no untranslated English reaches a French or a Spanish player.

A French server (guild locale ``fr``): a French host and a Spanish guest (Discord locale
``es-ES``) play a whole game with an AI seat, with bad presses on the way (not the host,
already seated, out of turn, grey cards), a turn that times out and
``/durak help``/``config``/``rules``/``series``.  Every version of every message either of
them could see (public: in French; private: in their own language), text, embeds and button
labels, is scanned:

- no seat number in any language (``seat 1``, ``asiento 2``, ``place 0``, …): players are
  named by display name, AI seats by a localised name;
- no English sentence of the catalogue: every English source text (split at its
  placeholders) longer than 12 characters that the French and Spanish translations do not
  keep as it is must not appear verbatim.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator

import pytest
import pytest_asyncio
from babel.messages.pofile import read_po

from cogs.i18n import LOCALEDIR

from .durak_e2e import Harness, buttons, poll, prefer
from .fakediscord import FakeDiscord

pytestmark = pytest.mark.e2e

SEAT_NUMBER = re.compile(
    r"(?i)\b(?:seat|asiento|plaza|place|si[eè]ge|player|jugador|joueur)\s*#?\d"
)
PLACEHOLDER = re.compile(r"\{[^{}]*\}")
#: English names the service gives AI seats; readers must see them localised.
ENGLISH_AI_NAMES = ("Beginner AI", "Casual AI", "Counter AI", "Expert AI")


def english_fragments() -> set[str]:
    """Pieces of English source text that no translation keeps: each msgid (and plural)
    split at its placeholders and markdown, stripped, longer than 12 characters, with at
    least two words, and found in neither the French nor the Spanish entry."""
    entries: dict[tuple[str | None, str], list[str]] = {}
    sources: dict[tuple[str | None, str], list[str]] = {}
    for lang in ("fr", "es"):
        with (LOCALEDIR / lang / "LC_MESSAGES" / "durak.po").open("rb") as f:
            for m in read_po(f, locale=lang):
                if not m.id or m.context == "cmd-name":
                    continue
                ids = [m.id] if isinstance(m.id, str) else list(m.id)
                strings = [m.string] if isinstance(m.string, str) else list(m.string)
                key = (m.context, ids[0])
                sources[key] = ids
                entries.setdefault(key, []).extend(strings)
    fragments: set[str] = set()
    for key, ids in sources.items():
        translated = " ".join(entries[key])
        for source in ids:
            for piece in re.split(r"\{[^{}]*\}|\*\*|`|\n", source):
                piece = piece.strip(" .,:;—–-()·•*_\u200b")
                if (
                    len(piece) > 12
                    and len(re.findall(r"[A-Za-z]+", piece)) >= 2
                    and piece not in translated
                ):
                    fragments.add(piece)
    return fragments


@pytest_asyncio.fixture
async def french_server() -> AsyncIterator[FakeDiscord]:
    fake = FakeDiscord(preferred_locale="fr")
    await fake.start()
    try:
        yield fake
        await fake.settle()
    finally:
        await fake.stop()
    fake.assert_clean()


@pytest.mark.parametrize("seed", [8, 13, 21])
async def test_french_and_spanish_players_see_names_and_their_language(
    french_server: FakeDiscord, tmp_path, seed: int
) -> None:
    fake = french_server
    h = Harness(fake, tmp_path / "durak.sqlite3", seeds=[seed], turn_timeout=30)
    amelie = h.user("Amélie", locale="fr")
    benito = h.user("Benito", locale="es-ES")
    await h.start()
    fragments = english_fragments()
    assert len(fragments) > 150  # the check has teeth: most of the catalogue

    for user in (amelie, benito):
        for command in ("help", "config", "rules"):
            await h.answered(await h.slash(user, command))

    await h.open_lobby(amelie, seats=3)
    await h.lobby_press(benito, "join")
    await h.answered(await h.slash(benito, "join"))  # already seated
    await h.answered(await h.slash(benito, "start"))  # not the host
    await h.lobby_press(amelie, "addai", ["casual"])
    await h.lobby_press(benito, "start")  # not the host, by button
    await h.lobby_press(amelie, "start")
    await h.wait_table()
    for user in (amelie, benito):
        await h.show_hand(user)

    # bad presses: out of turn and grey cards, by whoever is waiting; a stale button
    found = await h.turn()
    assert found is not None
    player, hand = found
    other = benito if player.user is amelie else amelie
    other_hand = h.hand_message(other)
    assert other_hand is not None
    for b in buttons(other_hand)[:3]:
        await h.press(other, other_hand, b)
        await h.idle()
    grey = [b for b in buttons(hand) if b.verb == "why"]
    if grey:
        await h.press(player.user, hand, grey[0])
        await h.idle()
    choice = next(b for b in buttons(hand) if b.is_game_action or b.verb == "pick")
    await h.press(player.user, hand, choice)
    await h.idle()

    # a turn that runs out: a public timeout notice naming the player
    found = await h.turn()
    if found is not None:
        await h.clock.advance(h.turn_timeout + 1)
        await h.idle()

    await h.play(prefer("defend", "attack", "pick", "transfer", "pass", "take"))
    await h.idle()
    assert (await h.table_view()).finished
    for user in (amelie, benito):
        await h.answered(await h.slash(user, "series"))
    await poll(lambda: h.table_message() is not None, what="the game over table")

    refusals = [
        m.content
        for m in fake.messages(h.channel)
        if m.visible_to is not None and m.content.startswith(("⚠️", "🚫"))
    ]
    # the bad presses were answered, and the engine's reasons name players by name
    assert len(refusals) >= 4
    assert any(
        re.search(r"(Amélie|Benito|IA Amateur)", r) for r in refusals if r.startswith("🚫")
    ), refusals
    notices = [m.content for m in fake.messages(h.channel) if m.visible_to is None and m.content]
    assert any(n.startswith("⏰") for n in notices), notices  # the timeout, in French
    checked = 0
    for user in (amelie, benito):
        for version in fake.visible_messages(user):
            for text in version.texts():
                if not text:
                    continue
                checked += 1
                assert not SEAT_NUMBER.search(text), (user.name, text)
                for name in ENGLISH_AI_NAMES:
                    assert name not in text, (user.name, text)
                english = [f for f in fragments if f in text]
                assert not english, (user.name, english, text)
    assert checked > 100
    # both languages were really in play, and both players were named by name
    seen = {
        user.name: "\n".join(t for v in fake.visible_messages(user) for t in v.texts())
        for user in (amelie, benito)
    }
    assert "Voir ma main" in seen["Amélie"] and "Ver mi mano" in seen["Benito"]
    assert "IA Amateur" in seen["Amélie"]  # the AI seat, named in French on the table
    assert "Amélie" in seen["Benito"] and "Benito" in seen["Amélie"]
