"""Discord's bot-token budget, end to end: the table's writes are paced per channel (the newest
state wins and is always shown in the end), a human's move still shows within a second, the
table is edited rather than posted again while it is still the channel's newest message, and
a 429 is waited out and followed by the newest table, never a stale one, with nothing a player
did lost."""

from __future__ import annotations

import itertools
from typing import Any

import pytest

from cogs.presenter import TABLE_INTERVAL

from .durak_e2e import FOOTER_RE, Harness, MakeHarness, prefer
from .fakediscord import RequestRecord

pytestmark = pytest.mark.e2e

POLICY = prefer("defend", "attack", "pass", "take")
TABLE_WRITE = r"^/channels/\d+/messages(/\d+)?$"


def table_version(record: RequestRecord) -> int | None:
    """The game version a table post or edit showed (from its footer), None for others."""
    body: Any = record.json
    if not isinstance(body, dict):
        return None
    for embed in body.get("embeds") or []:
        m = FOOTER_RE.search(str(embed.get("footer", {}).get("text", "")))
        if m:
            return int(m[2])
    return None


def table_writes(h: Harness, since: int = 0) -> list[RequestRecord]:
    """The table posts and edits the bot sent from request ``since`` on (429s included), with
    the bot token (in the harness's channel) or through a press's token (its followups)."""
    return [
        r
        for r in h.fake.requests[since:]
        if r.method in ("POST", "PATCH")
        and table_version(r) is not None
        and (
            (r.kind == "bot" and h.fake.channel_id == int(r.path.split("/")[2]))
            or (r.kind == "webhook" and not r.path.endswith("/@original"))
        )
    ]


async def test_paced_table_ends_on_the_final_state(harness: MakeHarness) -> None:
    """A human against two AIs (who answer at once): every burst of moves is written at most
    once per interval, the versions written only go up, and once the bot is idle the table
    shows the game's current state."""
    h = harness(seeds=[5], table_interval=0.3)
    alice = h.user("alice")
    await h.start_with_game(alice, ai=["beginner", "beginner"], rules="podkidnoy", seats=3)
    since = len(h.fake.requests)
    for _ in range(6):
        if await h.move_now(POLICY) is None:
            break
        await h.idle()
        view = await h.table_view()
        assert f"move {view.version}" in h.last_table().text()  # the final state is shown
    writes = table_writes(h, since)
    assert all(r.json["allowed_mentions"]["parse"] == [] for r in writes)  # nobody is pinged
    versions = [table_version(r) for r in writes]
    assert versions == sorted(versions)  # never back to an older state
    gaps = [b.at - a.at for a, b in itertools.pairwise(writes)]
    assert all(gap >= 0.3 - 0.02 for gap in gaps), gaps
    moves = (await h.table_view()).version - table_version(writes[0]) + 1  # type: ignore[operator]
    assert len(writes) < moves  # bursts were coalesced


async def test_a_humans_move_shows_within_a_second(harness: MakeHarness) -> None:
    """With the production interval, each of several quick human moves reaches the table
    within a second of its press, and the table costs fewer writes than moves."""
    h = harness(seeds=[7], table_interval=TABLE_INTERVAL)
    alice, bob = h.user("alice"), h.user("bob")
    await h.start_with_game(alice, join=[bob], ai=["beginner"], rules="podkidnoy", seats=3)
    since = len(h.fake.requests)
    moves = []
    for _ in range(8):
        move = await h.move_now(POLICY)
        if move is None:
            break
        moves.append(move)
    await h.idle()
    shown = {
        # version shown → when it first appeared, on any public table message
        v: at
        for m in reversed(h.fake.messages(h.channel, include_deleted=True))
        if m.visible_to is None
        for version in reversed(m.versions)
        if (found := FOOTER_RE.search(version.text())) is not None
        for v, at in [(int(found[2]), version.at)]
    }
    for pressed, version in moves:
        first = min(at for v, at in shown.items() if v >= version and at >= pressed)
        assert first - pressed < 1.0 + 0.25, (version, first - pressed)  # + a busy machine
    assert len(table_writes(h, since)) < len(moves)


async def test_a_table_still_at_the_bottom_is_edited_not_posted_again(
    harness: MakeHarness,
) -> None:
    """A new round edits the table while it is the channel's newest message; once someone
    writes below it, the next round posts it again at the bottom (the old one deleted)."""
    h = harness(seeds=[3])
    alice, bob = h.user("alice"), h.user("bob")
    table = await h.start_with_game(alice, join=[bob], rules="podkidnoy", seats=2)
    start_round = (await h.table_view()).round
    while (await h.table_view()).round == start_round:
        await h.move_now(POLICY)
    await h.idle()
    assert h.table_message() is table and not table.deleted  # edited in place
    assert f"move {(await h.table_view()).version}" in table.text()

    await h.fake.gateway_barrier()
    h.fake.user_posts(h.channel, bob, "nice move")  # someone chats below the table
    await h.fake.gateway_barrier()
    next_round = (await h.table_view()).round
    while (await h.table_view()).round == next_round:
        await h.move_now(POLICY)
    await h.idle()
    newest = h.table_message()
    assert newest is not None and newest is not table and table.deleted
    assert h.fake.messages(h.channel)[-1] is newest


@pytest.mark.parametrize(
    ("path", "is_global"),
    [("webhook", False), ("bot", False), ("bot", True)],
    ids=["webhook", "bot-route", "bot-global"],
)
async def test_a_429_is_waited_out_and_the_newest_table_sent(
    harness: MakeHarness, path: str, is_global: bool
) -> None:
    """The table's edit gets a 429 (through the token of the press that posted it, or with
    the bot token once that token has expired); while the bot waits, another human move is
    played. The bot sends nothing before ``retry_after``, then the newest table (never the
    refused one's state); both moves are stored and the game goes on to its end."""
    h = harness(seeds=[11])
    alice, bob = h.user("alice"), h.user("bob")
    await h.start_with_game(alice, join=[bob], ai=["beginner"], rules="podkidnoy", seats=3)
    await h.idle()
    fake = h.fake
    if path == "bot":
        fake.advance_clock(16 * 60)  # the Start press's token is refused: the bot token edits
        for user in (alice, bob):
            await h.show_hand(user)  # hands come back through fresh presses
        await h.idle()
        pattern = r"^/channels/\d+/messages/\d+$"
    else:
        pattern = r"^/webhooks/\d+/[^/]+/messages/\d+$"
    rule = fake.force_429(pattern, retry_after=1.0, method="PATCH", is_global=is_global)
    since = len(fake.requests)
    first = await h.move_now(POLICY)
    assert first is not None
    await fake.wait_until(lambda: rule.hits == 1, 5, "the 429")
    refused = next(r for r in fake.requests[since:] if r.status == 429)
    refused_version = table_version(refused)
    second = await h.move_now(POLICY)  # played while the table's edit waits
    assert second is not None and second[1] > first[1]
    await h.idle()

    after = [r for r in table_writes(h, since) if r.at > refused.at]
    assert after, "the table was never written after the 429"
    assert after[0].at - refused.at >= 1.0 - 0.05  # retry_after was respected
    assert refused_version == first[1]
    # the retry carried the second move (applied during the wait), not the refused state
    assert table_version(after[0]) >= second[1] > refused_version
    versions = [table_version(r) for r in after]
    assert versions == sorted(versions) and refused_version not in versions
    final = (await h.table_view()).version
    assert versions[-1] == final and f"move {final}" in h.last_table().text()
    # nothing a player did was lost
    assert final >= second[1]
    assert await h.play(POLICY) > 0
    view = await h.table_view()
    record = await h.finished_game(view.game_id)
    assert len(record["actions"]) == view.version


async def test_a_press_on_the_lobby_updates_it_through_its_own_token(
    harness: MakeHarness,
) -> None:
    """Joining, adding an AI and starting edit the lobby message through the press's
    interaction (a webhook, outside the bot token's budget), never with the bot token."""
    h = harness(seeds=[3])
    alice, bob = h.user("alice"), h.user("bob")
    await h.start()
    lobby = await h.open_lobby(alice, rules="podkidnoy", seats=3)
    since = len(h.fake.requests)
    await h.lobby_press(bob, "join")
    assert "bob" in lobby.text().lower()
    await h.lobby_press(alice, "addai", ["beginner"])
    await h.lobby_press(alice, "start")
    assert not any(c.custom_id for c in lobby.find_components())  # started: no buttons
    lobby_edits = [r for r in h.fake.requests[since:] if r.path.endswith(f"/{lobby.id}")]
    assert lobby_edits == []  # no bot-token edit of the lobby message
    assert len(lobby.history) >= 3  # yet it was edited after each press
    counts = h.fake.request_counts(since)
    assert counts.bot == 0  # the table too was posted through the Start press's token
    table = await h.wait_table()
    assert table.visible_to is None and table.created_by == "followup"


async def test_a_game_at_a_persons_pace_costs_at_most_half_a_bot_request_per_action(
    harness: MakeHarness,
) -> None:
    """Two people and an AI, each human move pressed once the bot is idle (so that every one
    is written on its own, as at a person's pace): the table is posted and edited through
    the tokens of the presses, and the whole game, lobby included, costs at most 0.5
    bot-token requests per stored action; the table shows the final state."""
    h = harness(seeds=[5], table_interval=TABLE_INTERVAL)
    alice, bob = h.user("alice"), h.user("bob")
    await h.start()
    since = len(h.fake.requests)
    await h.start_game(alice, join=[bob], ai=["beginner"], rules="podkidnoy", seats=3)
    for user in (alice, bob):
        await h.show_hand(user)
    assert await h.play(POLICY) > 0
    await h.idle()
    view = await h.table_view()
    actions = len((await h.finished_game(view.game_id))["actions"])
    counts = h.fake.request_counts(since)
    assert counts.bot / actions <= 0.5, (counts, actions)
    assert len(table_writes(h, since)) > actions / 3  # the table was written all along
    assert f"move {view.version}" in h.last_table().text()


async def test_an_expired_token_falls_back_to_the_bot_token(harness: MakeHarness) -> None:
    """Discord refuses the token that posted the table (expired): the edit goes with the bot
    token (the channel is not taken for hidden, the game goes on), and, a press on a private
    hand lending no token, the bot token keeps writing that same message to the game's end."""
    h = harness(seeds=[11])
    alice, bob = h.user("alice"), h.user("bob")
    table = await h.start_with_game(alice, join=[bob], ai=["beginner"], rules="podkidnoy", seats=3)
    await h.idle()
    assert table.created_by == "followup"
    fake = h.fake
    fake.advance_clock(16 * 60)
    for user in (alice, bob):
        await h.show_hand(user)
    since = len(fake.requests)
    assert await h.move_now(POLICY) is not None
    await h.idle()
    refused = [r for r in fake.requests[since:] if r.kind == "webhook" and r.status == 401]
    assert any(r.path.endswith(f"/messages/{table.id}") for r in refused)
    edits = [r for r in table_writes(h, since) if r.kind == "bot"]
    assert edits and edits[0].path.endswith(f"/{table.id}")  # the fallback
    assert not h.presenter.is_hidden(h.channel)
    since = len(fake.requests)
    assert await h.move_now(POLICY) is not None
    await h.idle()
    assert h.table_message() is table and not table.deleted
    later = table_writes(h, since)
    assert later and all(r.kind == "bot" and r.path.endswith(f"/{table.id}") for r in later)
    assert await h.play(POLICY) > 0
    view = await h.table_view()
    assert view.finished and f"move {view.version}" in h.last_table().text()
    record = await h.finished_game(view.game_id)
    assert len(record["actions"]) == (await h.table_view()).version
