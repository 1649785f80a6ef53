"""Every bad input (a command or button the rules of README.md "Commands" refuse) gets a short
private answer and changes nothing."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from tests import storage_helpers as stored

from .durak_e2e import EPHEMERAL, Harness, MakeHarness, buttons, prefer
from .fakediscord import InteractionRecord

pytestmark = pytest.mark.e2e


def public_state(h: Harness) -> list[tuple[Any, ...]]:
    return [
        (m.id, len(m.versions), m.text(), tuple(m.custom_ids), m.deleted)
        for m in h.fake.messages(h.channel, include_deleted=True)
        if m.visible_to is None
    ]


async def refused(h: Harness, rec: InteractionRecord, before: tuple[Any, ...]) -> str:
    """The private refusal of ``rec``; asserts that the database and every public message
    are as ``before``."""
    cb = await rec.wait_response()
    assert cb.accepted and cb.latency < 3.0
    await h.idle()
    # the answer: the response itself (slash: deferred privately), or followups (buttons:
    # the press acknowledged as an update of the message it sits on)
    msgs = rec.messages if rec.response_type in (4, 5) else rec.followups
    answers = [m for m in msgs if m.content.startswith(("⚠️", "🚫"))]
    assert answers, f"no refusal for {rec.describe()}: {[m.text() for m in msgs]}"
    for m in msgs:
        assert m.flags & EPHEMERAL and m.visible_to == rec.user.id, m
    assert (await h.db_state(), public_state(h)) == before, f"state changed by {rec.describe()}"
    return answers[-1].content


async def snapshot(h: Harness) -> tuple[Any, ...]:
    return await h.db_state(), public_state(h)


async def test_bad_inputs_are_answered_privately_and_change_nothing(harness: MakeHarness) -> None:
    h = harness(seeds=[5])
    fake = h.fake
    alice, bob, carol = h.user("alice"), h.user("bob"), h.user("carol", locale="es-ES")
    dave = h.user("dave")
    await h.start()
    ch = h.channel
    lobby = await h.open_lobby(alice, seats=2)

    before = await snapshot(h)
    text = await refused(h, await h.slash(carol, "leave"), before)  # not seated (lobby)
    await h.lobby_press(bob, "join")
    lobby = h.lobby_message()
    assert lobby is not None
    assert next(
        c for c in fake.find_components(lobby) if c.custom_id == f"durak:lobby:{ch}:join"
    ).disabled  # full: Join greyed

    before = await snapshot(h)
    full = await refused(h, await h.slash(carol, "join"), before)  # lobby full
    assert full != text
    for rec in (
        await h.slash(bob, "start"),  # missing permission (not the host)
        await bob.press(lobby, f"durak:lobby:{ch}:start"),
        await h.slash(bob, "stop"),
        await bob.press(lobby, f"durak:lobby:{ch}:stop"),
        await h.slash(bob, "addbot", level="beginner"),
        await h.slash(bob, "join"),  # already seated
        await h.slash(bob, "hand"),  # no game yet
    ):
        await refused(h, rec, before)

    await h.lobby_press(alice, "start")
    table = await h.wait_table()
    before = await snapshot(h)
    for rec in (
        await h.slash(carol, "new"),  # one game per channel
        await h.slash(carol, "join"),  # the game already runs
        await carol.press(
            table,
            next(f"durak:{b.game_id}:{b.version}:hand" for b in buttons(table) if b.verb == "hand"),
        ),
        await h.slash(carol, "hand"),  # not seated
        await h.slash(carol, "stop"),  # not seated: no vote (a seated player may open one)
        await h.slash(carol, "leave"),  # not seated: nothing to forfeit
    ):
        await refused(h, rec, before)
    rules = await h.slash(carol, "rules")  # anyone may ask, privately
    await h.answered(rules)
    assert rules.ephemeral and rules.original_message is not None
    assert (await h.db_state(), public_state(h)) == before

    for user in (alice, bob):
        await h.show_hand(user)

    # A turn where the player to act can play a card directly and holds a greyed card too.
    policy = prefer("defend", "attack", "pick", "pass", "take")
    while True:
        found = await h.turn()
        assert found is not None, "the game ended before every case was seen"
        player, msg = found
        offered = buttons(msg)
        direct = [b for b in offered if b.verb in ("attack", "defend", "transfer")]
        greyed = [b for b in offered if b.verb == "why"]
        if direct and greyed:
            break
        choice = policy(player, [b for b in offered if b.is_game_action or b.verb == "pick"], None)
        await h.press(player.user, msg, choice)
        await h.idle()
    user = player.user
    other = bob if user == alice else alice
    view = await h.table_view()

    # illegal move: a greyed card explains itself (the engine's reason)
    before = await snapshot(h)
    why = await refused(h, await h.press(user, msg, greyed[0]), before)
    assert why.startswith("🚫") and greyed[0].argument in why
    # not your turn: the other player's cards are all greyed, with the reason
    other_hand = h.hand_message(other)
    assert other_hand is not None
    assert not any(b.is_game_action for b in buttons(other_hand))
    wait = await refused(h, await h.press(other, other_hand, buttons(other_hand)[0]), before)
    assert wait.startswith("🚫")

    # three private hands at the same version; play from the newest
    old1 = h.hand_message(user)
    old2 = await h.show_hand(user)
    newest = await h.show_hand(user)
    assert old1 is not None and old1.id < old2.id < newest.id
    played = direct[0]
    rec = await h.press(user, newest, played)
    await h.idle()
    assert not rec.followups, [m.text() for m in rec.followups]  # accepted
    assert (await h.table_view()).version > view.version

    # card no longer in hand: the same button on an older copy of the hand
    before = await snapshot(h)
    gone = await refused(h, await h.press(user, old1, played), before)
    card = played.argument.split()[-1] if played.verb == "defend" else played.argument.split()[0]
    assert card in gone and "not in your hand" in gone
    # stale button from an earlier state: another button of the other old copy
    other_button = next(
        b
        for b in buttons(old2)
        if b.action != played.action
        and b.verb in ("attack", "defend", "transfer", "take", "pass", "pick")
        and (b.argument is None or card not in b.argument)
    )
    stale = await refused(h, await h.press(user, old2, other_button), before)
    assert "changed" in stale

    # two presses at once apply once
    found = await h.turn()
    assert found is not None
    player, msg = found
    twin = await h.show_hand(player.user)
    move = next(b for b in buttons(msg) if b.is_game_action)
    version = (await h.table_view()).version
    recs = await asyncio.gather(h.press(player.user, msg, move), h.press(player.user, twin, move))
    await h.idle()
    refusals = [r for r in recs if r.followups]
    assert len(refusals) == 1, [[m.text() for m in r.followups] for r in recs]
    (live,) = await stored.live_games(h.storage)
    actions = live.snapshot["actions"]
    assert actions[version] == f"{h.service.seat_of(ch, player.user.id)} {move.action}"

    # Manage Channel may stop someone else's game; an unfinished game records no loss
    before = await snapshot(h)
    await refused(h, await h.slash(dave, "stop"), before)
    fake.grant_manage_channels(dave)
    rec = await h.slash(dave, "stop")
    await h.answered(rec)
    assert not rec.followups
    assert [r for r, _ in await stored.results(h.storage, fake.guild_id)] == ["aborted"]
    assert (await stored.series(h.storage, live.series_id)).losses == [0, 0]
    assert h.service.state(ch) == "none"
    assert "stopped" in h.last_table().text()
