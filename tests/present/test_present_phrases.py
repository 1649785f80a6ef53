"""The presentation layer's phrases, each made once from the service's views: seat names, the
status line, the outcome, action labels, the last moves, the rules summary, the deal's opening
and a series' standings, in the reader's language and in an adapter's style."""

from __future__ import annotations

import dataclasses

import pytest

from bot.outcome import Ending, Outcome
from bot.seating import LobbySeat
from bot.views import ActionChoice, ActionRecord, AutoKind, Player, Role, SeriesEntry
from present.actions import action_label
from present.catalog import catalog
from present.moves import move_text, round_end_text, throw_in_text
from present.names import NAME_MAX, clip_name, seat_name, seat_names
from present.opening import opening_lines
from present.outcome import outcome_summary, outcome_text
from present.rules import rules_lines, rules_summary, rules_title
from present.standings import standings, standings_title
from present.status import status
from present.style import PLAIN, Style
from rules_engine import PROFILES, Action, ActionKind, Game, Rules, deal_from_seed
from rules_engine.cards import parse_card
from rules_engine.played import Played
from tests.discord.dsc_factories import series_view, table_view
from web.wording import WEB_WORDING

EN, ES, FR = (catalog(lang, WEB_WORDING) for lang in ("en", "es", "fr"))
#: A style that shows where it was applied: names in brackets, cards in angle brackets.
MARKED = Style(
    escape=lambda s: s.replace("*", "\\*"), name=lambda s: f"[{s}]", card=lambda c: f"<{c}>"
)


def _cards(text: str) -> tuple:
    return tuple(parse_card(c) for c in text.split())


# ------------------------------------------------------------------------------ the Outcome
def test_an_outcome_is_one_of_three_endings_with_its_forfeits() -> None:
    lost = Outcome.durak(2, forfeits=(3, 1, 3))
    assert (lost.ending, lost.losers, lost.forfeits, lost.finished) == (
        Ending.DURAK,
        (2,),
        (1, 3),
        True,
    )
    assert Outcome.durak(4, 1).losers == (1, 4)  # several seats may lose together
    assert Outcome.draw().finished and not Outcome.stopped((0,)).finished
    assert Outcome.of_result("loss", 1) == Outcome.durak(1)
    assert Outcome.of_result("draw", None) == Outcome.draw()
    assert Outcome.of_result("aborted", None, (0,)) == Outcome.stopped((0,))
    for bad in (
        lambda: Outcome.durak(),
        lambda: Outcome(Ending.DRAW, (1,)),
        lambda: Outcome(Ending.STOPPED, (0,)),
        lambda: Outcome.draw((-1,)),
        lambda: Outcome.durak(True),
        lambda: Outcome("won"),  # type: ignore[arg-type]
    ):
        with pytest.raises(ValueError):
            bad()


# ------------------------------------------------------------------------------ names
def test_seat_names_for_humans_ais_and_forgotten_players() -> None:
    seats = [
        LobbySeat(1, "  Ann   Lee "),
        LobbySeat(None, "AI", "casual"),
        LobbySeat(0, "Gone"),  # a forgotten player's seat
        LobbySeat(None, "AI", "casual"),
        LobbySeat(None, "AI", "expert"),
        LobbySeat(2, "x" * 64),
    ]
    assert seat_names(seats, EN) == [
        "Ann Lee",
        "Casual AI",
        "a former player",
        "Casual AI 2",
        "Expert AI",
        "x" * (NAME_MAX - 1) + "…",
    ]
    assert seat_names(seats, FR)[1:5] == [
        "IA Amateur",
        "un ancien joueur",
        "IA Amateur 2",
        "IA Expert",
    ]
    # the series' entries and a stored game's players are named the same way
    entries = [SeriesEntry(i, s.user_id, s.name, s.ai_level, 0) for i, s in enumerate(seats)]
    players = [Player(s.name, s.ai_level, s.former) for s in seats]
    assert seat_names(entries, ES) == seat_names(players, ES) == seat_names(seats, ES)
    # the adapter's escape comes after the cut, once
    assert seat_names([Player("*" * 50)], EN, MARKED) == ["\\*" * 39 + "…"]
    # the names are a fresh list each time (the cache is not handed out)
    names = seat_names(seats, EN)
    names[0] = "changed"
    assert seat_names(seats, EN)[0] == "Ann Lee"
    assert seat_name(["A"], 0, EN) == "A" and seat_name(["A"], 3, ES) == "jugador 4"
    assert clip_name("") == "?" and clip_name("ab cd", 4) == "ab…"


# ------------------------------------------------------------------------------ status
def _running():
    game = Game(PROFILES["podkidnoy"], deal_from_seed(3, 5))
    view = table_view(game)
    assert view.outcome is None and view.to_act is not None
    return view


def test_the_status_line_names_whose_turn_and_what_they_must_do() -> None:
    view = _running()
    names = seat_names(view.seats, EN)
    leader = names[view.to_act]
    assert status(view, names, EN).parts == (f"{leader} to lead the round",)
    for waiting, text in (
        ("defend", "to defend"),
        ("add", "may add cards or pass"),
        (None, "to play"),
    ):
        now = status(dataclasses.replace(view, waiting_for=waiting), names, EN)
        assert now is not None and now.turn == f"{leader} {text}"
    defender = next(s.seat for s in view.seats if s.role is Role.DEFENDER)
    taking = dataclasses.replace(view, taking=True, waiting_for="add", stop_vote=(1, 2))
    now = status(taking, names, EN, MARKED)
    assert now is not None
    assert now.taking == f"[{names[defender]}] takes: the attackers may still add cards"
    assert now.turn == f"[{leader}] may add cards or pass"
    assert now.stop_vote == "Stop? 1/2"
    assert status(taking, names, ES).parts[1] == f"{leader} puede añadir cartas o pasar"
    assert status(dataclasses.replace(view, outcome=Outcome.draw()), names, EN) is None


# ------------------------------------------------------------------------------ outcome
def test_the_outcome_in_one_sentence_in_each_language() -> None:
    names = ["Ann", "Bob", "Cy"]
    assert outcome_text(Outcome.durak(1), names, EN) == "Bob is the durak!"
    assert outcome_text(Outcome.durak(1), names, ES) == "¡Bob es el durak!"
    assert outcome_text(Outcome.durak(1), names, FR, MARKED) == "[Bob] est le durak !"
    assert outcome_text(Outcome.durak(0, 2), names, EN) == "Ann, Cy are the durak!"
    assert outcome_text(Outcome.durak(5), names, EN) == "player 6 is the durak!"
    assert outcome_text(Outcome.draw((1,)), names, EN) == "A draw: nobody is the durak."
    assert outcome_text(Outcome.stopped(), names, EN) == (
        "The game was stopped: no loss is recorded."
    )
    assert outcome_text(Outcome.stopped((1,)), names, FR) == (
        "La partie a été arrêtée : aucun résultat n’est enregistré, sauf les forfaits."
    )
    # a line of the history: who lost, or the short form
    assert outcome_summary(Outcome.durak(0), names, EN, MARKED) == "[Ann] is the durak!"
    assert outcome_summary(Outcome.draw(), names, ES) == "empate"
    assert outcome_summary(Outcome.stopped((0,)), names, EN) == "stopped: no result"


# ------------------------------------------------------------------------------ actions
def test_action_labels() -> None:
    cases = [
        (ActionKind.ATTACK, "8♥ 8♠", "Attack 8♥ 8♠", "Atacar <8♥> <8♠>"),
        (ActionKind.DEFEND, "9♠ 10♠", "Cover 9♠ with 10♠", "Cubrir <9♠> con <10♠>"),
        (ActionKind.TRANSFER, "9♦", "Transfer 9♦", "Transferir <9♦>"),
        (ActionKind.TAKE, "", "Take", "Recoger"),
        (ActionKind.PASS, "", "Pass", "Pasar"),
    ]
    for kind, cards, en, es in cases:
        choice = ActionChoice(kind, _cards(cards), ())  # labels read kind and cards only
        assert action_label(choice, EN) == en
        assert action_label(choice, ES, MARKED) == es
    lone_defence = ActionChoice(ActionKind.DEFEND, _cards("9♠"), _cards("9♠"))
    assert action_label(lone_defence, EN) == "defend 9♠"


# ------------------------------------------------------------------------------ moves
def _record(seat: int, kind: ActionKind, cards: str, auto: AutoKind = None) -> ActionRecord:
    return ActionRecord(Played.of(Action(seat, kind, _cards(cards))), auto)


def test_the_last_moves_say_why_the_service_played() -> None:
    names = ["Ann", "Bob"]
    cover = _record(1, ActionKind.DEFEND, "8♥ 9♥")
    assert move_text(cover, names, EN) == "Bob covers 8♥ with 9♥"
    assert move_text(cover, names, FR, MARKED) == "[Bob] couvre <8♥> avec <9♥>"
    timed_out = _record(1, ActionKind.TAKE, "", "timeout")
    assert move_text(timed_out, names, EN) == "Bob takes the cards (time ran out)"
    autopilot = _record(0, ActionKind.PASS, "", "autopilot")
    assert move_text(autopilot, names, EN) == "Ann passes (autopilot)"
    assert move_text(autopilot, names, ES).endswith("(piloto automático)")
    thrown = throw_in_text("Ann", _cards("7♠ 7♦"), "Bob", EN, MARKED)
    assert thrown == "[Ann] throws in <7♠> <7♦> for [Bob] to take"
    assert round_end_text(3, None, EN) == "Round 3 over: beaten off."
    assert round_end_text(3, "Bob", EN) == "Round 3 over: Bob took the cards."
    assert round_end_text(3, "Bob", ES) != round_end_text(3, "Bob", EN)


# ------------------------------------------------------------------------------ rules
def test_the_rules_summary() -> None:
    assert rules_summary(PROFILES["podkidnoy"], EN) == (
        "podkidnoy · Only the defender's neighbours may add cards · "
        "First round: at most 6 attacks · No transfers"
    )
    custom = Rules(throw_in="all", first_round_limit=5, transfer=True)
    assert rules_title(custom, EN) == "custom rules"
    assert rules_lines(custom, EN) == [
        "Everyone may add cards to an attack",
        "First round: at most 5 attacks",
        "The defender may transfer the attack",
    ]
    assert rules_summary(custom, FR).startswith(FR.gettext("custom rules") + " · ")


# ------------------------------------------------------------------------------ opening
def _first_table(players: int, seed: int, *, first_of_series: bool = True):
    deal = deal_from_seed(players, seed, first_of_series=first_of_series)
    view = table_view(Game(PROFILES["podkidnoy"], deal))
    return view, seat_names(view.seats, EN), deal


def test_the_deal_explains_who_leads_and_why() -> None:
    view, names, deal = _first_table(3, 1)
    assert view.shown  # the lowest trump chose the leader
    lead = names[deal.leader]
    assert opening_lines(view, names, EN) == [
        f"The lowest trump, {view.shown[0]}, is {lead}'s: {lead} leads."
    ]
    assert opening_lines(view, names, EN, MARKED) == [
        f"The lowest trump, <{view.shown[0]}>, is [{lead}]'s: [{lead}] leads."
    ]
    later, names, deal = _first_table(3, 1, first_of_series=False)
    assert not later.shown and deal.dealer is not None
    assert opening_lines(later, names, EN) == [
        f"{names[deal.dealer]} deals; {names[deal.leader]}, on the dealer's left, leads."
    ]
    assert opening_lines(later, names, FR) != opening_lines(later, names, EN)
    # six players: the dealer's last card is shown, and names the trump
    for seed in range(20):
        six, names, deal = _first_table(6, seed)
        lines = opening_lines(six, names, EN)
        assert lines is not None and deal.dealer is not None
        assert lines[0] == (
            f"Shown at the deal: {six.shown[-1]}, the last card dealt to "
            f"{names[deal.dealer]} (the dealer), names the trump."
        )
        assert lines[-1].endswith(f"{names[deal.leader]} leads.")
    assert opening_lines(dataclasses.replace(view, round=2), names, EN) is None


# ------------------------------------------------------------------------------ standings
def test_the_standings_fewest_losses_first_with_the_last_durak() -> None:
    series = series_view(3)  # losses 0, 7, 14; the last seat an expert AI, the last durak
    assert standings_title(series, EN) == "Series: 3 games · 1 draw"
    assert standings_title(dataclasses.replace(series, draws=0, games=1), ES) == "Serie: 1 partida"
    rows = standings(series, EN)
    assert [(r.seat, r.name, r.losses_text, r.note) for r in rows] == [
        (0, "Player 0", "0 losses", None),
        (1, "Player 1", "7 losses", None),
        (2, "Expert AI", "14 losses", "durak of the last game"),
    ]
    assert [r.ai for r in rows] == [False, False, True]
    worst_first = dataclasses.replace(
        series, standings=tuple(dataclasses.replace(e, losses=9 - e.seat) for e in series.standings)
    )
    assert [r.seat for r in standings(worst_first, EN)] == [2, 1, 0]
    assert standings(series, FR)[2].name == "IA Expert"
    assert standings(series, EN, MARKED)[0].name == "Player 0"
    assert PLAIN.cards(_cards("6♠ 10♦")) == "6♠ 10♦"
