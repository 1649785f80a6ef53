"""No hidden card ever reaches a page that may not see it: over every frame sent to every page
of whole games (two humans playing on their pages, AI seats, a watcher, an outsider), a frame
made at game version v shows only cards public by v or, for a player's page, in that player's
own hand at v; hands go to their owner's pages only."""

from __future__ import annotations

import asyncio
import random
import re
from pathlib import Path
from typing import Any

import pytest

from rules_engine import Deal, Game, Rules, parse_action
from rules_engine.cards import CARD_TEXT, iter_bits
from tests import storage_helpers as stored
from web import protocol

from .conftest import ALICE, BOB, CAROL, CH, Page, make_table

#: A card as the protocol writes it (any deck: ranks 2–10, J, Q, K, A).
CARD_RE = re.compile(r"(?:10|[2-9JQKA])[♠♥♦♣]")


def timeline(record: Any) -> tuple[list[set[str]], list[list[set[str]]]]:
    """Per game version v: the cards public by then, and each seat's hand."""
    deal = Deal.from_dict(record.deal)
    public = {CARD_TEXT[c] for c in deal.shown}
    if deal.trump_card is not None:
        public.add(CARD_TEXT[deal.trump_card])
    game = Game(Rules.from_spec(record.rules), deal)
    publics = [set(public)]
    hands = [[{CARD_TEXT[c] for c in iter_bits(m)} for m in game.hands]]
    for text in record.actions:
        public.update(CARD_RE.findall(text))
        game.apply(parse_action(text))
        publics.append(set(public))
        hands.append([{CARD_TEXT[c] for c in iter_bits(m)} for m in game.hands])
    return publics, hands


async def drive(page: Page, rng: random.Random) -> None:
    """Play every turn the page's hand offers (a random legal action) until the game ends."""
    seq = 0
    while True:
        frame = await page.next(timeout=30)
        if frame["t"] == "table" and frame["table"]["finished"]:
            return
        if frame["t"] != "hand":
            continue
        hand = frame["hand"]
        if hand["your_turn"] and hand["legal"] and not hand["finished"]:
            seq += 1
            action = rng.choice(hand["legal"])
            await page.act(seq, hand, action["text"])


def version_of(frame: dict[str, Any]) -> int | None:
    body = frame.get("table") or frame.get("hand")
    return None if body is None else int(body["version"])


@pytest.mark.parametrize("seed", [3, 8, 21])
async def test_no_frame_shows_a_hidden_card(
    tmp_path: Path, seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(protocol, "RATE", 10_000.0)  # the pages play as fast as frames come
    monkeypatch.setattr(protocol, "BURST", 10_000)
    table = await make_table(tmp_path, seed=seed)
    try:
        await table.game(ALICE, BOB, ais=("casual", "beginner"), rules="perevodnoy", seats=4)
        alice = await table.page(table.player(ALICE))
        bob = await table.page(table.player(BOB), lang="fr")
        watcher = await table.page(table.watcher(), lang="es")
        outsider = await table.page(table.player(CAROL))  # not seated: watches
        rng = random.Random(seed)
        await asyncio.gather(drive(alice, rng), drive(bob, rng))
        await table.service.wait_idle()
        final = await table.service.table(CH)
        assert final.finished
        for page in (watcher, outsider):
            while not page.of("table") or not page.of("table")[-1]["table"]["finished"]:
                await page.next("table")
        for page in (alice, bob, watcher, outsider):
            await page.barrier()  # every frame sent to the page is checked below
        record = await stored.game(table.service.storage, final.game_id)
        publics, hands = timeline(record)
        pages = {
            "alice": (alice, 0),
            "bob": (bob, 1),
            "watcher": (watcher, None),
            "olga": (outsider, None),
        }
        checked = 0
        for name, (page, seat) in pages.items():
            ever_public = publics[-1]
            ever_held = set().union(*(h[seat] for h in hands)) if seat is not None else set()
            current: int | None = None
            for frame, text in zip(page.frames, page.texts, strict=True):
                if frame["t"] == "hand":
                    assert seat is not None, f"{name}, a watcher, got a hand"
                    assert frame["hand"]["seat"] == seat, f"{name} got another seat's hand"
                v = version_of(frame)
                if v is not None and (frame.get("table") or frame["hand"])["game"] == final.game_id:
                    current = v
                shown = set(CARD_RE.findall(text))
                if current is None or v is None:
                    allowed = ever_public | ever_held  # welcome, result, notice
                else:
                    allowed = publics[current] | (
                        hands[current][seat] if seat is not None else set()
                    )
                leaked = shown - allowed
                assert not leaked, f"{name} saw {sorted(leaked)} at version {current}: {text[:200]}"
                checked += 1
            if seat is not None:
                own_first = {c["card"] for c in page.of("hand")[0]["hand"]["cards"]}
                assert own_first == hands[0][seat]
        assert checked > 100
        assert len(alice.of("hand")) > 5 and len(bob.of("hand")) > 5
        assert not watcher.of("hand") and not outsider.of("hand")
    finally:
        await table.close()
