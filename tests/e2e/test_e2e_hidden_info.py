"""Nobody but a card's owner ever sees a hidden card: over a whole game, every message any
user could see (every version, public or private, text and buttons) shows only cards that
were public at some point or were in that user's own hand."""

from __future__ import annotations

import pytest

from .durak_e2e import (
    MakeHarness,
    card_sets,
    card_timeline,
    cards_in,
    is_hand,
    prefer,
    rendered_at,
)

pytestmark = pytest.mark.e2e


async def test_no_message_shows_a_hidden_card(harness: MakeHarness) -> None:
    h = harness(seeds=[21])
    fake = h.fake
    alice, bob, carol = h.user("alice"), h.user("bob"), h.user("carol")
    outsider = h.user("olga")
    await h.start_with_game(alice, join=[bob, carol], ai=["beginner"], rules="perevodnoy", seats=4)
    await h.play(prefer("transfer", "defend", "attack", "pick", "pass", "take"))
    await h.idle()
    view = await h.table_view()
    assert view.finished
    record = await h.finished_game(view.game_id)
    public, held = card_sets(record)
    seat_of = {s.user_id: s.seat for s in view.seats if s.user_id is not None}

    for user in (alice, bob, carol, outsider):
        own = held[seat_of[user.id]] if user.id in seat_of else set()
        seen: set[str] = set()
        for version in fake.visible_messages(user):
            texts = version.texts() + [c.custom_id or "" for c in version.find_components()]
            shown = cards_in(texts)
            leaked = shown - public - own
            assert not leaked, f"{user.name} saw {sorted(leaked)} in message {version.message_id}"
            seen |= shown
        if user.id in seat_of:
            assert own <= seen | public  # their own hand was shown to them

    # hands were only ever sent privately, each to its owner
    for m in fake.messages(h.channel, include_deleted=True):
        if any(is_hand(v) for v in m.versions):
            assert m.visible_to in seat_of and m.ephemeral
    # Stricter, in time: a message rendered at game version v shows only cards public by v
    # or in the viewer's hand at v (hands and tables say which version they show).
    publics, hands = card_timeline(record)
    checked = 0
    for user in (alice, bob, carol, outsider):
        seat = seat_of.get(user.id)
        for version in fake.visible_messages(user):
            at = rendered_at(version)
            if at is None or at[0] != view.game_id:
                continue
            v = at[1]
            allowed = publics[v] | (hands[v][seat] if seat is not None else set())
            shown = cards_in(version.texts())
            assert shown <= allowed, (user.name, v, sorted(shown - allowed))
            if version.message.visible_to is None:
                assert shown <= publics[v], (v, sorted(shown - publics[v]))
            checked += 1
    assert checked > 50
