"""Restarts, expired interaction tokens, rate limits, a dropped gateway, turn timeouts."""

from __future__ import annotations

import pytest

from tests import storage_helpers as stored

from .durak_e2e import Harness, MakeHarness, buttons, poll, prefer
from .fakediscord import SimUser

pytestmark = pytest.mark.e2e

POLICY = prefer("defend", "attack", "pick", "pass", "take")


async def play_moves(h: Harness, count: int) -> None:
    """``count`` human moves with the usual policy."""
    for _ in range(count):
        found = await h.turn()
        assert found is not None, "the game ended too early"
        player, msg = found
        offered = [b for b in buttons(msg) if b.is_game_action or b.verb == "pick"]
        choice = POLICY(player, offered, None)
        await h.press(player.user, msg, choice)
        await h.idle()


async def mid_game(h: Harness, moves: int) -> tuple[SimUser, SimUser]:
    """Alice and Bob against a beginner AI at podkidnoy, their hands open, ``moves`` human
    moves played."""
    alice, bob = h.user("alice"), h.user("bob")
    await h.start_with_game(alice, join=[bob], ai=["beginner"], rules="podkidnoy", seats=3)
    await play_moves(h, moves)
    return alice, bob


async def test_restart_mid_game_resumes_and_old_buttons_work(harness: MakeHarness) -> None:
    h = harness(seeds=[9])
    fake = h.fake
    alice, bob = await mid_game(h, 4)
    found = await h.turn()
    assert found is not None
    player, msg = found  # a private hand sent by the first process, showing current moves
    before = await h.table_view()
    old_table = h.table_message()  # the first process's last table
    assert old_table is not None
    old_tables = {m.id for m in fake.messages(h.channel) if m.visible_to is None}

    await h.restart()
    assert h.bot.restored_games == 1
    await h.idle()
    view = await h.table_view()
    assert (view.game_id, view.version) == (before.game_id, before.version)
    # the table is posted again (with a notice), the first process's messages are left as is
    new_table = await poll(
        lambda: next(
            (
                m
                for m in reversed(fake.messages(h.channel))
                if m.visible_to is None and m.id not in old_tables and m.embeds
            ),
            None,
        ),
        what="the re-posted table",
    )
    assert f"move {view.version}" in new_table.text()
    assert any("restarted" in m.content for m in fake.messages(h.channel) if m.id not in old_tables)

    # a button of the old process's hand message still works
    move = next(b for b in buttons(msg) if b.is_game_action)
    rec = await h.press(player.user, msg, move)
    await h.idle()
    assert not rec.private_followups  # accepted (its token may post the table again)
    assert (await h.table_view()).version > before.version
    # and so does the old table's Show my hand
    other = bob if player.user == alice else alice
    hand_button = next(b for b in buttons(old_table) if b.verb == "hand")
    rec = await other.press(old_table, f"durak:{hand_button.game_id}:{hand_button.version}:hand")
    hand = await rec.wait_original(predicate=lambda m: bool(m.embeds))
    assert hand.visible_to == other.id
    await h.idle()

    await h.play(POLICY)
    await h.idle()
    view = await h.table_view()
    assert view.finished
    assert (await stored.series(h.storage, view.series_id)).games == 1


async def test_expired_token_rate_limit_and_dropped_gateway(harness: MakeHarness) -> None:
    h = harness(seeds=[13])
    fake = h.fake
    alice, bob = await mid_game(h, 2)

    # 15 minutes later every hand token has expired
    fake.advance_clock(15 * 60 + 1)
    found = await h.turn()
    assert found is not None
    player, msg = found
    other = bob if player.user == alice else alice
    stale_hand = h.hand_message(other)
    assert stale_hand is not None
    edits = len(stale_hand.history)
    move = next(b for b in buttons(msg) if b.is_game_action)
    await h.press(player.user, msg, move)  # a fresh token: this player's hand is updated
    await h.idle()
    assert fake.expired_token_uses  # the other hand's push hit 401 50027 ...
    assert len(stale_hand.history) == edits  # ... and was dropped quietly
    assert h.bot.is_ready() and not h.bot.is_closed()
    # the next press on the stale hand brings it back at the current version
    view = await h.table_view()
    rec = await h.press(other, stale_hand, buttons(stale_hand)[0])
    await h.idle()
    assert {b.version for b in buttons(stale_hand)} == {(await h.table_view()).version}
    assert len(stale_hand.history) > edits
    assert rec.response_type == 6 and view.version <= (await h.table_view()).version

    # a 429 on the table edit (with the bot token: the press that posted the table has
    # expired, and a press on a private hand lends none) is retried
    edit = r"^/channels/\d+/messages/\d+$"
    rule = fake.force_429(edit, retry_after=0.05, method="PATCH")
    for _ in range(20):
        await play_moves(h, 1)
        if rule.hits:
            break
    assert rule.hits == 1
    statuses = [r.status for r in fake.requests_to(edit, "PATCH")]
    assert 429 in statuses and statuses[statuses.index(429) + 1] == 200
    view = await h.table_view()
    assert f"move {view.version}" in h.last_table().text()

    # the gateway drops: the client resumes and the game goes on
    await fake.drop_gateway()
    assert fake.resume_count == 1
    await play_moves(h, 2)
    await h.play(POLICY)
    assert (await h.table_view()).finished


async def test_turn_timeout_plays_the_default_and_shows_it(harness: MakeHarness) -> None:
    h = harness(seeds=[17])
    fake = h.fake
    alice, bob = h.user("alice"), h.user("bob")
    await h.start_with_game(alice, join=[bob], rules="podkidnoy", seats=2, turn_timeout=15)
    found = await h.turn()
    assert found is not None
    player, _msg = found
    view = await h.table_view()
    assert view.deadline is not None and view.turn_timeout == 15
    assert f"<t:{int(view.deadline)}:R>" in h.last_table().text()  # the live countdown

    await h.clock.advance(14)
    await h.idle()
    assert (await h.table_view()).version == view.version  # not yet
    await h.clock.advance(2)
    await h.idle()
    after = await h.table_view()
    assert after.version == view.version + 1
    assert after.recent[-1].auto == "timeout" and after.recent[-1].seat == view.to_act
    assert "(time ran out)" in h.last_table().text()
    assert any(
        "ran out of time" in m.content for m in fake.messages(h.channel) if m.visible_to is None
    )
    # the player's hand followed
    hand = h.hand_message(player.user)
    assert hand is not None and all(b.version == after.version for b in buttons(hand))
