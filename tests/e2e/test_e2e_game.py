"""A whole game through Discord: slash commands, lobby buttons, and every move pressed in the
players' private hands."""

from __future__ import annotations

import pytest

from tests import storage_helpers as stored

from .durak_e2e import EPHEMERAL, MakeHarness, buttons, prefer

pytestmark = pytest.mark.e2e


async def test_complete_game_two_users_and_a_beginner_ai(harness: MakeHarness) -> None:
    h = harness(seeds=[7])
    fake = h.fake
    alice, bob = h.user("alice"), h.user("bob")
    table = await h.start_with_game(alice, join=[bob], ai=["beginner"], rules="podkidnoy", seats=3)
    assert fake.command("durak") is not None  # synced to DEV_GUILD_ID on start
    assert "Show my hand" in table.text()
    for user in (alice, bob):
        hand = h.hand_message(user)
        assert hand is not None and hand.flags & EPHEMERAL

    # a card with several moves: Pick shows them (and Back), Back shows the hand again
    policy = prefer("defend", "attack", "pick", "pass", "take")
    while True:
        found = await h.turn()
        assert found is not None
        player, msg = found
        picks = [b for b in buttons(msg) if b.verb == "pick"]
        if picks:
            break
        await h.press(
            player.user,
            msg,
            policy(player, [b for b in buttons(msg) if b.is_game_action or b.verb == "pick"], None),
        )
    rec = await h.press(player.user, msg, picks[0])
    await h.idle()
    assert rec.response_type == 6 and not rec.followups
    selected = buttons(msg)
    card = picks[0].argument
    assert all(
        card in (b.argument or "") for b in selected if b.verb in ("attack", "defend", "transfer")
    )
    back = next(b for b in selected if b.verb == "page")
    await h.press(player.user, msg, back)
    await h.idle()
    assert any(b.verb == "pick" and b.argument == card for b in buttons(msg))

    presses = await h.play(policy)
    assert presses > 5
    await h.idle()

    view = await h.table_view()
    assert view.finished
    final = h.table_message()
    assert final is not None
    text = final.text()
    assert ("is the durak" in text) or ("draw" in text)
    series = await stored.series(h.storage, view.series_id)
    assert series.games == 1
    for loser in view.outcome.losers:
        assert series.last_loser == loser
        assert series.losses == [int(i == loser) for i in range(3)]
    ids = {b.custom_id for b in fake.find_components(final)}
    assert any(i.endswith(":rematch") for i in ids) and any(i.endswith(":endseries") for i in ids)

    # the public table was edited through the token of the press that posted it (a
    # followup), at most once per action, never with the bot token
    tables = {
        m.id
        for m in fake.messages(h.channel, include_deleted=True)
        if any("Game " in str(e.get("footer", {})) for e in m.embeds)
    }
    edits = [
        r
        for r in fake.requests_to(r"^/webhooks/\d+/[^/]+/messages/\d+$", "PATCH")
        if int(r.path.rsplit("/", 1)[1]) in tables
    ]
    assert 0 < len(edits) <= view.version
    assert not [
        r
        for r in fake.requests_to(r"^/channels/\d+/messages/\d+$", "PATCH")
        if int(r.path.rsplit("/", 1)[1]) in tables
    ]

    # the read-only commands answer privately
    for sub, options, expect in (
        ("series", {}, "Series: 1 game"),
        ("stats", {"user": bob}, "1 game"),
        ("leaderboard", {"min_games": 1}, "Durak leaderboard"),
        ("rules", {"profile": "perevodnoy"}, "Rules — perevodnoy"),
        ("rules", {}, "Rules — podkidnoy"),  # the table's rules
    ):
        rec = await h.slash(alice, sub, **options)
        await h.answered(rec)
        answer = rec.original_message
        assert answer is not None and answer.ephemeral and answer.visible_to == alice.id
        assert expect in answer.text(), (sub, answer.text())
    # /durak table posts the table again at the bottom (the older copy goes away)
    rec = await h.slash(bob, "table")
    await h.answered(rec)
    again = h.table_message()
    assert again is not None and again.id > final.id and final.deleted
    final = again

    # Rematch: the loser deals the next game; the finished table keeps no buttons
    rec = await bob.press(final, next(i for i in ids if i.endswith(":rematch")))
    assert (await rec.wait_response()).type == 6
    await h.idle()
    assert not rec.private_followups  # accepted (its followup is the new game's table)
    assert [m.id for m in rec.followups] == [h.table_message().id]  # type: ignore[union-attr]
    nxt = await h.table_view()
    assert nxt.game_id != view.game_id and not nxt.finished
    assert nxt.dealer in view.outcome.losers or not view.outcome.losers
    assert final.components == [] and h.table_message() is not final
    # the series has two games: the ended one and the live one
    assert nxt.series_id == view.series_id
    ended = await stored.ended_games(h.storage, fake.guild_id)
    assert [g.game_id for g in ended] == [view.game_id]
    live = await stored.live_games(h.storage)
    assert [g.game_id for g in live if g.series_id == view.series_id] == [nxt.game_id]
