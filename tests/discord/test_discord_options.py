"""The table options on Discord (issue 30): a hand offering "Show 9♦", the table's pack size,
teams and shown trumps, a team lobby with Switch team, a team's loss; within Discord's limits
in every language."""

from __future__ import annotations

import dataclasses

from bot.outcome import Outcome
from bot.replay import build_replay
from bot.seating import LobbySeat
from bot.server_config import ServerConfig
from bot.views import LobbyView, Player, ReplayView, TableView
from cogs.custom_ids import lobby_id, parse_game_id
from cogs.i18n import SUPPORTED, catalog
from cogs.render.hand import render_hand
from cogs.render.info import render_config, render_rules
from cogs.render.lobby import render_lobby
from cogs.render.message import Reply
from cogs.render.records import render_replay
from cogs.render.table import render_table
from cogs.render.text import card_md, seat_names
from rules_engine import Rules
from rules_engine.actions import ActionKind
from rules_engine.phase import Phase

from .dsc_factories import can_show, hand_view, option_game, table_view
from .dsc_limits import check_message

CATS = [catalog(lang) for lang in SUPPORTED]
SHOW_TRUMP = {"profile": "perevodnoy", "show_trump": True}


def test_a_hand_offers_show_when_a_trump_may_be_shown() -> None:
    game = option_game(SHOW_TRUMP, 3, can_show)
    view = hand_view(game, game.player_to_act)
    (show,) = [a for a in view.legal if a.kind is ActionKind.SHOW]
    card = str(show.cards[0])
    en = catalog("en")
    msg = render_hand(view, en)
    # a shortcut on the last row, named by its card, that sends the show
    buttons = {c.label: parse_game_id(c.custom_id) for c in msg.components if c.row == 4}
    assert buttons[f"Show {card}"].action == f"show {card}"
    # the card itself asks (it may also beat or transfer), and its choices include the show
    picked = render_hand(view, en, selected=card)
    labels = {c.label: parse_game_id(c.custom_id).action for c in picked.components}
    assert labels[f"Show {card}"] == f"show {card}"
    for t in CATS:
        check_message(render_hand(view, t))
        check_message(render_hand(view, t, selected=card))


def test_no_show_is_offered_without_the_option() -> None:
    game = option_game({"profile": "perevodnoy"}, 3, lambda g: g.phase is Phase.DEFEND)
    view = hand_view(game, game.player_to_act)
    msg = render_hand(view, catalog("en"))
    assert not [c for c in msg.components if parse_game_id(c.custom_id).verb == "show"]


def _team_table(**over: object) -> TableView:
    game = option_game({"profile": "podkidnoy", "teams": "2x2"}, 4, lambda g: bool(g.table()))
    return dataclasses.replace(table_view(game), **over)  # type: ignore[arg-type]


def test_a_team_table_marks_each_seat_with_its_team_and_names_the_teams() -> None:
    view = _team_table()
    en = catalog("en")
    msg = render_table(view, en)
    embed = msg.embeds[0]
    names = seat_names(view.seats, en)
    assert (
        f"🟦 Team **{names[0]}** & **{names[2]}** · 🟧 Team **{names[1]}** & **{names[3]}**"
        in embed["description"]
    )
    assert "36-card pack · Stock:" in embed["description"]
    players = embed["fields"][0]["value"].splitlines()
    assert [line.split()[1] for line in players] == ["🟦", "🟧", "🟦", "🟧"]
    for t in CATS:
        check_message(render_table(view, t))


def test_a_partner_playing_a_seat_is_named_on_it() -> None:
    view = _team_table()
    seats = list(view.seats)
    seats[2] = dataclasses.replace(seats[2], played_by=0, cards=0, out=True)
    msg = render_table(dataclasses.replace(view, seats=tuple(seats)), catalog("en"))
    names = seat_names(view.seats, catalog("en"))
    line = msg.embeds[0]["fields"][0]["value"].splitlines()[2]
    assert f"played by {names[0]}" in line


def test_the_table_says_who_showed_which_trump() -> None:
    game = option_game(SHOW_TRUMP, 3, lambda g: bool(g.round_shown))
    view = table_view(game)
    (shown,) = view.round_shown
    en = catalog("en")
    desc = render_table(view, en).embeds[0]["description"]
    name = seat_names(view.seats, en)[shown.seat]
    assert f"👁️ **{name}** showed {card_md(shown.card)}" in desc
    assert "36-card pack" in desc
    for t in CATS:
        check_message(render_table(view, t))


def test_a_24_card_table_says_its_pack() -> None:
    game = option_game({"profile": "podkidnoy", "deck": 24}, 4, lambda g: True)
    desc = render_table(table_view(game), catalog("en")).embeds[0]["description"]
    assert "24-card pack" in desc


def test_the_game_over_names_the_losing_team() -> None:
    view = _team_table(outcome=Outcome.durak(1, 3, team=True))
    en = catalog("en")
    names = seat_names(view.seats, en)
    msg = render_table(view, en)
    desc = msg.embeds[0]["description"]
    assert names[1] in desc.splitlines()[0] and names[3] in desc.splitlines()[0]
    for t in CATS:
        check_message(render_table(view, t))


def _team_lobby(seats: tuple[LobbySeat, ...]) -> LobbyView:
    return LobbyView(
        channel_id=5,
        guild_id=1,
        host_id=100,
        host_name="Ann",
        status="open",
        rules=Rules.from_spec({"profile": "podkidnoy", "teams": "2x2"}),
        profile="podkidnoy",
        turn_timeout=60,
        max_seats=4,
        seats=seats,
        can_start=len(seats) == 4,
        teams="2x2",
        team_size=2,
    )


def test_a_team_lobby_shows_each_team_and_switch_team() -> None:
    view = _team_lobby(
        (
            LobbySeat(100, "Ann", team=0),
            LobbySeat(101, "Bob", team=1),
            LobbySeat(None, "x", "expert", team=0),
        )
    )
    en = catalog("en")
    msg = render_lobby(view, en)
    assert "Host: **Ann**" in msg.embeds[0]["description"]
    assert "Start when both teams are full" in msg.embeds[0]["footer"]["text"]
    fields = msg.embeds[0]["fields"]
    assert [f["name"] for f in fields] == ["🟦 Team 1 (2/2)", "🟧 Team 2 (1/2)"]
    assert "Ann" in fields[0]["value"] and "Bob" in fields[1]["value"]
    assert "free seat" in fields[1]["value"] and "free seat" not in fields[0]["value"]
    switch = [c for c in msg.components if c.custom_id == lobby_id(5, "switch")]
    assert [c.label for c in switch] == ["Switch team"]
    for t in CATS:
        check_message(render_lobby(view, t))
    # without teams: no Switch team
    plain = dataclasses.replace(view, teams="none", team_size=0, rules=Rules.from_spec("podkidnoy"))
    assert not [c for c in render_lobby(plain, en).components if c.custom_id.endswith(":switch")]


def _text(reply: Reply) -> str:
    embed = reply.embeds[0]
    return "\n".join([embed["description"], *(f["value"] for f in embed.get("fields", []))])


def test_config_shows_the_table_options() -> None:
    config = ServerConfig().with_changes(profile="podkidnoy", deck="24", teams="2x2")
    for t in CATS:
        reply = render_config(config, t, saved=True)
        check_message(reply)
        text = _text(reply)
        assert t.fill("{deck}-card pack", deck=24) in text and t.gettext("2 against 2") in text
    plain = _text(render_config(ServerConfig(), catalog("en")))
    assert "Pack: **the profile's**" in plain and "Teams: **the profile's**" in plain


def test_rules_of_a_table_name_its_options() -> None:
    options = {"profile": "perevodnoy", "deck": 52, "show_trump": True}
    text = _text(render_rules(None, Rules.from_spec(options).to_dict(), catalog("en")))
    assert "52-card pack" in text and "A trump of the attacked rank may be shown" in text
    teams = Rules.from_spec({"profile": "podkidnoy", "teams": "3x3"}).to_dict()
    assert "Teams of 3 against 3" in _text(render_rules(None, teams, catalog("en")))


def test_new_and_config_offer_the_table_options() -> None:
    from cogs.durak_commands import DurakCog

    commands = {c.name: c for c in DurakCog.durak.commands}
    for name in ("new", "config"):
        params = {p.name: p for p in commands[name].parameters}
        assert {"deck", "show_trump", "teams"} <= set(params)
        values = {str(c.value) for c in params["deck"].choices}
        assert {"24", "36", "52"} <= values
        assert {"none", "2x2", "3x3"} <= {str(c.value) for c in params["teams"].choices}


def _team_replay(deck: int = 24) -> ReplayView:
    rules = Rules.from_spec({"profile": "podkidnoy", "teams": "2x2", "deck": deck})
    game = option_game(rules.to_dict(), 4, lambda g: g.finished, seed=7)
    return ReplayView(
        game_id=9,
        guild_id=1,
        rules=rules,
        profile="podkidnoy",
        players=tuple(Player(name) for name in ("Ann", "Bob", "Cy", "Dee")),
        ended_at=1_700_000_000.0,
        replay=build_replay(rules, game.deal, game.history_text()),
    )


def test_a_team_replay_marks_the_teams_the_pack_and_handed_over_seats() -> None:
    view = _team_replay()
    en = catalog("en")
    first = render_replay(view, 0, en).embeds[0]
    assert "24-card pack · Stock:" in first["description"]
    heads = [f["name"].split(" · ")[0].removeprefix("▶ ") for f in first["fields"]]
    assert heads == ["🟦 Ann", "🟧 Bob", "🟦 Cy", "🟧 Dee"]
    handed = [
        (frame.index, seat, by)
        for frame in view.replay.frames
        if frame.outcome is None
        for seat, by in enumerate(frame.played_by)
        if by != seat
    ]
    assert handed  # this deal ends with a partner playing a seat: the replay says so
    index, seat, by = handed[0]
    field = render_replay(view, index, en).embeds[0]["fields"][seat]["name"]
    assert f"played by {view.players[by].name}" in field
    for t in CATS:
        for index in (0, view.replay.total - 1):
            check_message(render_replay(view, index, t))
    # a 36-card replay says nothing of its pack, as before the option existed
    plain = render_replay(_team_replay(36), 0, en).embeds[0]["description"]
    assert "card pack" not in plain


def test_a_show_trump_replay_says_what_was_shown_that_round() -> None:
    rules = Rules.from_spec(SHOW_TRUMP)
    game = option_game(SHOW_TRUMP, 3, lambda g: g.finished and "show" in " ".join(g.history_text()))
    view = ReplayView(
        game_id=9,
        guild_id=1,
        rules=rules,
        profile="perevodnoy",
        players=tuple(Player(name) for name in ("Ann", "Bob", "Cy")),
        ended_at=1_700_000_000.0,
        replay=build_replay(rules, game.deal, game.history_text()),
    )
    frame = next(f for f in view.replay.frames if f.shown)
    desc = render_replay(view, frame.index, catalog("en")).embeds[0]["description"]
    assert f"👁️ Shown to transfer: {card_md(frame.shown[0])}" in desc
    for t in CATS:
        check_message(render_replay(view, frame.index, t))
