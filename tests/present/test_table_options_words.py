"""The table options in words (RULES.md §10): the rules summary's pack, show and teams lines,
the "Show 9♦" label, "Ann showed 9♦", a lobby's teams, a losing team's outcome and the series
note, in English, Spanish and French."""

from __future__ import annotations

import dataclasses
import random

from bot.outcome import Outcome
from bot.seating import LobbySeat
from bot.views import ActionChoice, LobbyView, SeriesEntry, SeriesView
from present.actions import action_label
from present.catalog import catalog
from present.outcome import outcome_summary, outcome_text
from present.rules import rules_lines
from present.standings import standings
from present.status import status
from present.teams import lobby_teams, pack_text, shown_texts, team_label, team_name
from rules_engine import Action, ActionKind, Game, Rules, deal_from_seed
from rules_engine.cards import parse_card
from tests.discord.dsc_factories import table_view
from web.wording import WEB_WORDING

EN, ES, FR = (catalog(lang, WEB_WORDING) for lang in ("en", "es", "fr"))
NAMES = ["Ann", "Bob", "Cid", "Dee"]


def test_the_rules_lines_name_every_table_option_that_is_not_the_default() -> None:
    plain = Rules.from_spec("perevodnoy")
    options = Rules.from_spec({"profile": "perevodnoy", "deck": 24, "show_trump": True})
    teams = Rules.from_spec({"profile": "podkidnoy", "teams": "2x2", "deck": 52})
    assert len(rules_lines(plain, EN)) == 3  # a traditional table reads as it always did
    assert rules_lines(options, EN)[3:] == [
        "24-card pack",
        "A trump of the attacked rank may be shown to transfer",
    ]
    assert rules_lines(teams, EN)[3:] == ["52-card pack", "Teams of 2 against 2"]
    assert rules_lines(teams, FR)[3:] == ["jeu de 52 cartes", "Équipes de 2 contre 2"]
    assert rules_lines(teams, ES)[3:] == ["baraja de 52 cartas", "Equipos de 2 contra 2"]
    assert pack_text(36, EN) == "36-card pack"


def test_a_show_is_labelled_show_in_every_language() -> None:
    choice = ActionChoice.of(Action(1, ActionKind.SHOW, (parse_card("9♦"),)))
    assert action_label(choice, EN) == "Show 9♦"
    assert action_label(choice, ES) == "Mostrar 9♦"
    assert action_label(choice, FR) == "Montrer 9♦"


def _shown_game() -> Game:
    """A perevodnoy game with show_trump in which a trump was just shown."""
    rules = Rules.from_spec({"profile": "perevodnoy", "show_trump": True})
    for seed in range(1, 500):
        game = Game(rules, deal_from_seed(3, seed))
        rng = random.Random(seed)
        for _ in range(200):
            if game.finished:
                break
            legal = list(game.legal_actions())
            shows = [a for a in legal if a.kind is ActionKind.SHOW]
            if shows:
                game.apply(shows[0])
                return game
            game.apply(rng.choice(legal))
    raise AssertionError("no seed offered a show")


def test_the_table_says_who_showed_which_trump() -> None:
    game = _shown_game()
    view = table_view(game)
    (shown,) = view.round_shown
    assert shown.card.index == game.round_shown[0] and shown.card.suit == game.trump
    names = NAMES[:3]
    text = f"{names[shown.seat]} showed {shown.card}"
    assert shown_texts(view, names, EN) == [text]
    assert shown_texts(view, names, FR) == [f"{names[shown.seat]} a montré {shown.card}"]
    line = status(view, names, EN)
    assert line is not None and text in line.parts


def test_a_lobby_lists_its_teams() -> None:
    view = LobbyView(
        channel_id=1,
        guild_id=2,
        host_id=3,
        host_name="Ann",
        status="open",
        rules=Rules.from_spec({"teams": "2x2"}),
        profile="podkidnoy",
        turn_timeout=60,
        max_seats=4,
        seats=(LobbySeat(3, "Ann", team=0), LobbySeat(4, "Bob", team=0)),
        can_start=False,
        teams="2x2",
        team_size=2,
    )
    assert lobby_teams(view, EN) == ["Team 1: Ann, Bob", "Team 2: nobody yet"]
    assert lobby_teams(view, ES) == ["Equipo 1: Ann, Bob", "Equipo 2: nadie aún"]
    assert lobby_teams(dataclasses.replace(view, teams="none"), EN) == []
    assert team_label(1, FR) == "Équipe 2"
    assert team_name((2, 0), NAMES, EN) == "Team Ann & Cid"


def test_a_losing_team_is_named_in_the_outcome_and_the_standings() -> None:
    lost = Outcome.durak(1, 3, team=True)
    assert outcome_text(lost, NAMES, EN) == "Team Bob & Dee lost!"
    assert outcome_text(lost, NAMES, FR) == "L’équipe Bob & Dee a perdu !"
    assert outcome_summary(lost, NAMES, ES) == "¡El equipo Bob & Dee perdió!"
    assert outcome_text(Outcome.durak(1, 3), NAMES, EN) == "Bob, Dee are the durak!"
    assert Outcome.of_result("loss", 1, teams=4) == lost
    assert (
        Outcome.of_game((1, 3), team=True) == lost
        and Outcome.of_game((), team=True).ending == "draw"
    )
    series = SeriesView(
        channel_id=1,
        series_id=2,
        rules=Rules.from_spec({"teams": "2x2"}),
        games=1,
        draws=0,
        active=True,
        standings=tuple(
            SeriesEntry(i, 10 + i, n, None, 1 if i % 2 else 0) for i, n in enumerate(NAMES)
        ),
        last_loser=1,
        last_losers=(1, 3),
        teams="2x2",
    )
    notes = {s.name: s.note for s in standings(series, EN)}
    assert notes == {
        "Ann": None,
        "Bob": "in the team that lost the last game",
        "Cid": None,
        "Dee": "in the team that lost the last game",
    }


def test_a_move_made_for_a_partners_seat_names_both() -> None:
    from bot.views import ActionRecord
    from present.moves import move_text
    from rules_engine.played import Played

    attack = Played.of(Action(0, ActionKind.ATTACK, (parse_card("Q♥"),)))
    assert move_text(ActionRecord(attack), NAMES, EN) == "Ann attacks with Q♥"
    assert move_text(ActionRecord(attack, by=2), NAMES, EN) == "Cid for Ann attacks with Q♥"
    assert move_text(ActionRecord(attack, by=2), NAMES, FR).startswith("Cid pour Ann ")
