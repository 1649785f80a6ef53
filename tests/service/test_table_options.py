"""The table options through the service (RULES.md §10, issue 30): the pack size, showing a
trump and teams in the lobby, its refusals (the engine's one sentence, nothing changed), the
team a player chooses and switches, the seating of teams, and a team game's end in the series,
the stored records and the ratings."""

from __future__ import annotations

import pytest

from bot.errors import BadOption, LobbyFull, NotEnoughPlayers, NotSeated
from bot.seating import LobbySeat

from .conftest import ALICE, BOB, CAROL, CH, DAVE, GUILD, db_dump, play_out, settle

ERIN = 105


@pytest.mark.parametrize(
    ("options", "sentence"),
    [
        (
            {"rules": "perevodnoy", "teams": "2x2"},
            "teams '2x2' are played without transfers: turn transfer off",
        ),
        (
            {"rules": "podkidnoy", "show_trump": True},
            "show_trump needs transfer on: showing a trump is a way to transfer",
        ),
        ({"deck": 24, "seats": 5}, "a 24-card pack deals six cards to at most 4 players, not 5"),
        ({"teams": "3x3", "seats": 4}, "teams '3x3' need exactly 6 players, not 4"),
        ({"deck": 40}, "deck must be 24, 36 or 52, not 40"),
        ({"deck": True}, "deck must be 24, 36 or 52, not True"),
        ({"teams": "4x4"}, "teams must be none, 2x2 or 3x3, not '4x4'"),
        ({"show_trump": "yes"}, "show_trump must be true or false, not 'yes'"),
    ],
)
async def test_an_invalid_combination_is_refused_with_one_sentence(
    make_service, db_path, options, sentence
):
    svc = await make_service()
    before = db_dump(db_path)
    with pytest.raises(BadOption) as refused:
        await svc.open_lobby(CH, GUILD, ALICE, "Alice", options)
    assert str(refused.value.message) == sentence
    assert db_dump(db_path) == before and svc.state(CH) == "none"


async def test_a_24_card_lobby_seats_four_and_deals_its_own_pack(make_service):
    svc = await make_service()
    lobby = await svc.open_lobby(
        CH, GUILD, ALICE, "Alice", {"rules": "perevodnoy", "deck": 24, "show_trump": True}
    )
    assert lobby.max_seats == 4
    assert (lobby.rules.deck, lobby.rules.show_trump, lobby.rules.teams) == (24, True, "none")
    for level in ("casual", "casual", "casual"):
        await svc.add_ai(CH, ALICE, level)
    with pytest.raises(LobbyFull):
        await svc.join(CH, BOB, "Bob")
    table = await svc.start(CH, ALICE)
    game = svc.game_of(CH)
    assert game is not None and game.deal.deck == 24 and game.rules.show_trump
    assert table.deck == 24 and table.stock == 0  # 4 × 6: the whole pack is dealt
    finished = await play_out(svc)
    assert finished.finished and finished.deck == 24


async def test_a_52_card_lobby_keeps_its_pack_for_the_next_deal(make_service):
    svc = await make_service()
    await svc.open_lobby(CH, GUILD, ALICE, "Alice", {"deck": 52, "seats": 3})
    await svc.add_ai(CH, ALICE, "beginner")
    await svc.add_ai(CH, ALICE, "beginner")
    table = await svc.start(CH, ALICE)
    assert table.deck == 52 and table.stock == 52 - 18
    await play_out(svc)
    table = await svc.rematch(CH, ALICE)
    game = svc.game_of(CH)
    assert game is not None and game.deal.deck == 52 and table.stock == 52 - 18


async def test_players_choose_and_switch_teams(make_service, db_path):
    svc = await make_service()
    lobby = await svc.open_lobby(CH, GUILD, ALICE, "Alice", {"teams": "2x2"})
    assert lobby.max_seats == 4 and lobby.teams == "2x2" and lobby.team_size == 2
    assert lobby.seats[0].team == 0
    lobby = await svc.join(CH, BOB, "Bob")  # the team with fewer players
    assert [s.team for s in lobby.seats] == [0, 1]
    lobby = await svc.join(CH, CAROL, "Carol", team=1)
    assert [s.team for s in lobby.seats] == [0, 1, 1]
    before = db_dump(db_path)
    with pytest.raises(LobbyFull) as full:
        await svc.join(CH, DAVE, "Dave", team=1)
    assert str(full.value.message) == "team 2 is full (2 players)"
    with pytest.raises(LobbyFull):
        await svc.switch_team(CH, ALICE)  # team 1 (shown as team 2) is full
    with pytest.raises(BadOption) as same:
        await svc.switch_team(CH, BOB, 1)
    assert str(same.value.message) == "you are already in team 2"
    with pytest.raises(BadOption) as none:
        await svc.switch_team(CH, BOB, 2)  # teams are 0 and 1 (shown as 1 and 2)
    assert str(none.value.message) == "there is no team 3: choose 1 or 2"
    with pytest.raises(NotSeated):
        await svc.switch_team(CH, DAVE)
    assert db_dump(db_path) == before and (await svc.lobby(CH)).seats == lobby.seats
    assert not lobby.can_start
    lobby = await svc.switch_team(CH, CAROL)
    assert [s.team for s in lobby.seats] == [0, 1, 0]
    with pytest.raises(LobbyFull):
        await svc.add_ai(CH, ALICE, "casual", team=0)
    lobby = await svc.add_ai(CH, ALICE, "casual")  # fills team 1's free place
    assert [s.team for s in lobby.seats] == [0, 1, 0, 1] and lobby.can_start
    # the seating alternates the teams, each in lobby order (RULES.md §10.3)
    table = await svc.start(CH, ALICE)
    assert [s.name for s in table.seats] == ["Alice", "Bob", "Carol", "Casual AI"]
    assert [s.team for s in table.seats] == [0, 1, 0, 1]
    assert [s.played_by for s in table.seats] == [0, 1, 2, 3]
    assert table.rules.teams == "2x2" and table.series is not None
    assert table.series.teams == "2x2"


async def test_switching_team_outside_a_team_lobby_is_refused(make_service):
    svc = await make_service()
    await svc.open_lobby(CH, GUILD, ALICE, "Alice")
    with pytest.raises(BadOption) as refused:
        await svc.switch_team(CH, ALICE)
    assert str(refused.value.message) == "this lobby is not played in teams"
    with pytest.raises(BadOption):
        await svc.join(CH, BOB, "Bob", team=0)


async def test_a_team_lobby_starts_only_with_both_teams_full(make_service):
    svc = await make_service()
    await svc.open_lobby(CH, GUILD, ALICE, "Alice", {"teams": "2x2"})
    await svc.join(CH, BOB, "Bob")
    await svc.add_ai(CH, ALICE, "casual")
    with pytest.raises(NotEnoughPlayers) as refused:
        await svc.start(CH, ALICE)
    assert str(refused.value.message) == "teams '2x2' need exactly 4 players, not 3"
    assert svc.state(CH) == "lobby"


async def test_a_team_lobby_and_its_teams_survive_a_restart(make_service):
    a = await make_service()
    await a.open_lobby(CH, GUILD, ALICE, "Alice", {"teams": "3x3", "deck": 52})
    await a.join(CH, BOB, "Bob", team=0)
    await a.close()
    b = await make_service()
    lobby = await b.lobby(CH)
    assert lobby.rules.teams == "3x3" and lobby.rules.deck == 52 and lobby.max_seats == 6
    assert lobby.seats == (LobbySeat(ALICE, "Alice", team=0), LobbySeat(BOB, "Bob", team=0))


async def play_team_game(svc) -> None:
    """A 2×2 game: Alice and Carol (team 0) against two casual AIs (team 1)."""
    await svc.open_lobby(CH, GUILD, ALICE, "Alice", {"teams": "2x2"})
    await svc.join(CH, CAROL, "Carol", team=0)
    await svc.add_ai(CH, ALICE, "casual")
    await svc.add_ai(CH, ALICE, "casual")
    table = await svc.start(CH, ALICE)
    assert [s.user_id for s in table.seats] == [ALICE, None, CAROL, None]


async def test_a_team_game_ends_for_the_whole_team(make_service):
    svc = await make_service(seed=3)
    await play_team_game(svc)
    finished = await play_out(svc)
    outcome = finished.outcome
    assert outcome is not None and outcome.finished
    series = finished.series
    assert series is not None and series.games == 1
    if outcome.losers:  # a team lost together: every member counts a loss
        assert outcome.team and len(outcome.losers) == 2
        assert {s % 2 for s in outcome.losers} == {outcome.losers[0] % 2}
        assert series.last_losers == outcome.losers
        assert [e.losses for e in series.standings] == [
            1 if e.seat in outcome.losers else 0 for e in series.standings
        ]
        # the next deal: the first member of the losing team after the last dealer deals
        table = await svc.rematch(CH, ALICE)
        last = finished.dealer
        assert last is not None
        expected = min(outcome.losers, key=lambda s: (s - last - 1) % 4)
        assert table.dealer == expected
    else:
        assert series.draws == 1 and series.last_losers == ()
    # the history and the replay give the same outcome, losing team included
    history = await svc.history(GUILD, ALICE)
    assert history.entries[0].outcome == outcome
    replay = await svc.replay(GUILD, finished.game_id)
    assert replay.replay.frames[-1].outcome == outcome
    assert replay.rules.teams == "2x2"


async def test_a_player_plays_a_partners_seat_once_out(make_service):
    """Seeds are tried until one of the humans goes out while their partner still plays:
    that partner's hand then acts for the seat it took over (``acting_seat``)."""
    for seed in range(1, 40):
        svc = await make_service(seed=seed)
        await svc.open_lobby(CH, GUILD, ALICE, "Alice", {"teams": "2x2"})
        await svc.join(CH, CAROL, "Carol", team=0)
        await svc.join(CH, BOB, "Bob", team=1)
        await svc.join(CH, DAVE, "Dave", team=1)
        await svc.start(CH, ALICE)
        for _ in range(2000):
            await settle(svc)
            table = await svc.table(CH)
            if table.finished:
                break
            assert table.to_act is not None
            player = table.seats[table.to_act].played_by
            assert player is not None
            user = table.seats[player].user_id
            assert user is not None
            hand = await svc.hand(CH, user)
            assert hand.your_turn and hand.acting_seat == table.to_act
            if player != table.to_act:  # a taken-over seat: its number is the seat's
                assert table.seats[table.to_act].out
                text = hand.legal[0].text
                after = await svc.act(CH, user, text, hand.version, game_id=hand.game_id)
                assert after.version == hand.version + 1
                move = after.recent[-1]
                assert (move.seat, move.by) == (table.to_act, player)
                await svc.close()
                # the move's player is stored with it: a restarted service shows it the same
                again = await make_service(seed=seed)
                assert (await again.table(CH)).recent[-1] == move
                await again.close()
                return
            await svc.act(CH, user, hand.legal[0].text, hand.version, game_id=hand.game_id)
        await svc.close()
    pytest.fail("no seed handed a seat over to a partner")


async def test_the_servers_table_options_fill_a_lobby(make_service):
    svc = await make_service()
    await svc.set_server_config(
        GUILD, ALICE, manage_guild=True, profile="perevodnoy", deck="24", show_trump="on"
    )
    lobby = await svc.open_lobby(CH, GUILD, ALICE, "Alice")
    assert (lobby.rules.deck, lobby.rules.show_trump) == (24, True) and lobby.max_seats == 4
    await svc.stop(CH, ALICE)
    # a lobby of another profile gets that profile's own options
    lobby = await svc.open_lobby(CH, GUILD, ALICE, "Alice", {"rules": "podkidnoy"})
    assert (lobby.rules.deck, lobby.rules.show_trump, lobby.max_seats) == (36, False, 6)


async def test_team_games_are_counted_apart_in_the_stats(make_service):
    svc = await make_service(seed=3)
    await svc.open_lobby(CH, GUILD, ALICE, "Alice", {"teams": "2x2"})
    await svc.join(CH, CAROL, "Carol", team=0)
    await svc.join(CH, BOB, "Bob", team=1)
    await svc.join(CH, DAVE, "Dave", team=1)
    await svc.start(CH, ALICE)
    finished = await play_out(svc)
    stats = await svc.stats(GUILD, ALICE)
    assert [p.profile for p in stats.by_profile] == ["teams"]
    assert stats.games == 1
    only = await svc.stats(GUILD, ALICE, "teams")
    assert only.games == 1 and (await svc.stats(GUILD, ALICE, "podkidnoy")).games == 0
    outcome = finished.outcome
    assert outcome is not None
    lost = ALICE in {finished.seats[s].user_id for s in outcome.losers}
    assert stats.losses == (1 if lost else 0)
    board = await svc.leaderboard(GUILD, "teams", min_games=1)
    assert {row.user_id for row in board.rows} == {ALICE, BOB, CAROL, DAVE}


async def test_a_room_played_in_teams_seats_guests_by_team(make_service):
    from bot.realm import WEB_REALM
    from bot.rooms import RoomDirectory

    svc = await make_service()
    rooms = RoomDirectory(svc)
    room = await rooms.create("Ann", {"rules": "podkidnoy", "teams": "2x2"})
    lobby = await svc.lobby(room.channel_id)
    assert lobby.guild_id == WEB_REALM and lobby.teams == "2x2" and lobby.max_seats == 4
    await rooms.join(room.slug, "Bob")  # the team with fewer players: team 2 (1)
    await rooms.join(room.slug, "Cid", team=1)
    with pytest.raises(LobbyFull):
        await rooms.join(room.slug, "Dee", team=1)
    lobby = await svc.lobby(room.channel_id)
    assert [(s.name, s.team) for s in lobby.seats] == [("Ann", 0), ("Bob", 1), ("Cid", 1)]
    joined = await rooms.join(room.slug, "Dee")
    lobby = await svc.lobby(room.channel_id)
    assert lobby.seats[-1] == LobbySeat(joined.user_id, "Dee", team=0) and lobby.can_start
