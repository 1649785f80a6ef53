"""History and replay through Discord (issue 10 item 4): a game played to the end by two
people, then ``/durak history``, the Replay button, and the private replay stepped to the end
by move (▶) and by round (⏭); ratings in ``/durak stats`` and ``/durak leaderboard``."""

from __future__ import annotations

import re

import pytest

from cogs.custom_ids import parse_replay_id
from tests import storage_helpers as stored

from .durak_e2e import EPHEMERAL, Harness, MakeHarness, prefer
from .fakediscord import SimUser, StoredMessage

pytestmark = pytest.mark.e2e


def _nav(message: StoredMessage) -> dict[str, tuple[str, bool]]:
    """The replay buttons of a message: nav -> (custom id, disabled)."""
    found = {}
    for c in message.find_components():
        if c.custom_id and c.custom_id.startswith("durak:replay:"):
            found[parse_replay_id(c.custom_id).nav] = (c.custom_id, c.disabled)
    return found


async def _step(h: Harness, user: SimUser, message: StoredMessage, nav: str) -> int:
    """Press ``nav`` on the private replay; the message is edited in place.  The frame shown."""
    custom_id, disabled = _nav(message)[nav]
    assert not disabled
    edits = len(message.history)
    rec = await user.press(message, custom_id)
    assert (await rec.wait_response()).type == 6  # an update of the replay message
    await h.idle()
    assert len(message.history) > edits and not rec.followups, rec.describe()
    return parse_replay_id(custom_id).frame


async def test_history_replay_to_the_end_names_the_durak(harness: MakeHarness) -> None:
    h = harness(seeds=[11])
    alice, pierre = h.user("alice"), h.user("pierre", locale="fr")
    await h.start_with_game(alice, join=[pierre], rules="podkidnoy", seats=2)
    await h.play(prefer("defend", "attack", "transfer", "pass", "take"))
    await h.idle()
    view = await h.table_view()
    assert view.finished
    game_id = view.game_id
    durak = next((view.seats[seat].name for seat in view.outcome.losers), None)
    names = [s.name for s in view.seats]  # the players' display names

    # /durak history: private, the game with its players and a Replay button
    rec = await h.slash(alice, "history")
    await h.answered(rec)
    history = rec.original_message
    assert history is not None and history.ephemeral and history.visible_to == alice.id
    text = history.text()
    assert f"#{game_id}" in text and all(name in text for name in names)
    if durak is not None:
        assert f"**{durak}** is the durak" in text
    replay_button = f"durak:replay:{game_id}:0:open"
    assert replay_button in history.custom_ids

    # Replay: a new private message at the deal, ◀ and ⏮ disabled
    rec = await alice.press(history, replay_button)
    cb = await rec.wait_response()
    assert cb.type == 5 and cb.data.get("flags", 0) & EPHEMERAL
    replay = await rec.wait_original(predicate=lambda m: bool(m.embeds))
    await h.idle()
    assert replay.ephemeral and replay.visible_to == alice.id and replay.id != history.id
    assert "Move 0/" in replay.text()
    nav = _nav(replay)
    assert nav["prev"][1] and nav["prevround"][1] and not nav["next"][1]
    total = int(re.search(r"Move 0/(\d+)", replay.text()).group(1))  # type: ignore[union-attr]
    assert total == view.version

    # ▶ to the end, one move at a time
    frame = 0
    while not _nav(replay)["next"][1]:
        frame = await _step(h, alice, replay, "next")
        assert f"Move {frame}/{total}" in replay.text()
    assert frame == total
    last = replay.text()
    assert _nav(replay)["nextround"][1]
    if durak is not None:
        assert f"**{durak}** is the durak" in last
    else:
        assert "draw" in last
    assert not re.search(r"\bseat \d", last)

    # ⏮ back to the deal by rounds, then ⏭ by rounds to the last round
    rounds_back = 0
    while not _nav(replay)["prevround"][1]:
        frame = await _step(h, alice, replay, "prevround")
        rounds_back += 1
    assert frame == 0 and "Move 0/" in replay.text() and rounds_back >= 2
    rounds = 0
    while not _nav(replay)["nextround"][1]:
        await _step(h, alice, replay, "nextround")
        rounds += 1
    assert rounds >= 1 and f"Round {rounds + 1}" in replay.text()

    # Pierre reads the same replay in French, with names and no seat numbers
    rec = await h.slash(pierre, "history")
    await h.answered(rec)
    history_fr = rec.original_message
    assert history_fr is not None and "Historique de Durak" in history_fr.text()
    rec = await pierre.press(history_fr, replay_button)
    await rec.wait_response()
    replay_fr = await rec.wait_original(predicate=lambda m: bool(m.embeds))
    await h.idle()
    assert "Coup 0/" in replay_fr.text() and all(name in replay_fr.text() for name in names)
    assert replay_fr.visible_to == pierre.id
    english = re.compile(
        r"\b(leads|adds|beats|takes|passes|picks up|is out|is the durak|Move|Round|Trump|Stock"
        r"|Only you see)\b|\bseat \d"
    )
    for _ in range(8):  # the deal and the first moves: French only, players by name
        assert not english.search(replay_fr.text()), replay_fr.text()
        await _step(h, pierre, replay_fr, "next")

    # the game is rated: two humans; stats and leaderboard show the rating
    rec = await h.slash(alice, "stats")
    await h.answered(rec)
    assert rec.original_message is not None and "rating **" in rec.original_message.text()
    rec = await h.slash(alice, "leaderboard", min_games=1)
    await h.answered(rec)
    board = rec.original_message
    assert board is not None and all(name in board.text() for name in names)
    rec = await h.slash(alice, "leaderboard")  # default: at least 5 rated games
    await h.answered(rec)
    assert rec.original_message is not None
    assert "Nobody has 5 rated games yet." in rec.original_message.text()

    # eleven more finished games (copies of this one): the history pages with ◀ ▶
    await stored.copy_game(h.storage, game_id, 11)
    rec = await h.slash(alice, "history")
    await h.answered(rec)
    paged = rec.original_message
    assert paged is not None and "Page 1/2 · 12 games" in paged.text()
    assert f"`#{game_id}`" not in paged.text()
    rec = await alice.press(paged, "durak:history:0:2:next")
    assert (await rec.wait_response()).type == 6
    await h.idle()
    assert not rec.followups and "Page 2/2" in paged.text() and f"`#{game_id}`" in paged.text()
    assert "durak:history:0:1:prev" in paged.custom_ids

    # the replay's buttons still work after a restart (persistent ids, rebuilt from storage)
    await h.restart()
    frame = await _step(h, alice, replay, "prevround")
    assert f"Move {frame}/{total}" in replay.text()

    # a Replay button of a game that belongs to another server now: a private refusal
    await stored.move_game_to_next_guild(h.storage, game_id)
    await h.restart()  # forget the replays built so far
    before = replay.text()
    rec = await alice.press(replay, _nav(replay)["next"][0])
    await rec.wait_response()
    await h.idle()
    (refusal,) = await rec.wait_followups()
    assert refusal.ephemeral and refusal.visible_to == alice.id
    assert f"There is no game #{game_id} in this server" in refusal.text()
    assert replay.text() == before  # the replay itself is left as it was

    # and its Replay button in the history: the refusal alone, no "thinking…" left behind
    rec = await alice.press(history, replay_button)
    await rec.wait_response()
    await h.idle()
    (refusal,) = await rec.wait_followups()
    assert refusal.ephemeral and "There is no game" in refusal.text()
    assert rec.original_message is None or rec.original_message.deleted
