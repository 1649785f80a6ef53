"""RULES.md §10, the table options, through the engine's API: ``Rules`` and its refusals, the
seeded deals of each pack, the ``show`` action and its reasons, team games (``played_by``,
``losers``, observations, reasons), positions, snapshots and hints.  The rule sentences
themselves are the ``s10.*`` scenario files."""

from __future__ import annotations

import hashlib
import json
import random

import pytest

from rules_engine import (
    Action,
    ActionKind,
    Deal,
    Game,
    IllegalActionError,
    InvalidNotationError,
    InvalidPositionError,
    Rules,
    deal_from_seed,
    from_snapshot,
    next_dealer_and_leader,
    observation,
    parse_action,
    parse_card,
    snapshot,
)
from rules_engine.cards import CARD_TEXT, PACK_MASK, RANK_OF, SUIT_MASK, iter_bits
from rules_engine.errors import InvalidRulesError
from rules_engine.hints import card_hints
from rules_engine.messages import Message, Seat
from rules_engine.played import Played

from .helpers import mask, position

SHOW = Rules.from_spec({"profile": "perevodnoy", "show_trump": True})
TEAMS = Rules(teams="2x2")


# ------------------------------------------------------------------ Rules
def test_defaults_are_the_traditional_game_and_records_stay_as_they_were() -> None:
    rules = Rules()
    assert (rules.deck, rules.show_trump, rules.teams) == (36, False, "none")
    assert not rules.team_game
    assert rules.to_dict() == {"throw_in": "neighbours", "first_round_limit": 6, "transfer": False}


@pytest.mark.parametrize(
    "spec",
    [
        {"deck": 24},
        {"profile": "classic", "deck": 52},
        {"profile": "perevodnoy", "show_trump": True},
        {"profile": "perevodnoy", "show_trump": True, "deck": 24},
        {"teams": "2x2"},
        {"profile": "classic", "teams": "3x3", "deck": 52},
    ],
)
def test_options_round_trip_through_to_dict(spec: dict[str, object]) -> None:
    rules = Rules.from_spec(spec)
    for key, value in spec.items():
        if key != "profile":
            assert getattr(rules, key) == value
    assert Rules.from_spec(rules.to_dict()) == rules
    assert Rules.from_spec(json.loads(json.dumps(rules.to_dict()))) == rules


def test_names_and_profiles() -> None:
    rules = Rules.from_spec({"profile": "podkidnoy", "deck": 24})
    assert rules.profile is None and rules.base_profile == "podkidnoy"
    assert rules.name == (
        "custom (throw_in=neighbours, first_round_limit=6, transfer=off, deck=24)"
    )
    team = Rules.from_spec({"profile": "classic", "teams": "3x3"})
    assert team.team_game and team.base_profile == "classic"
    assert team.name.endswith("transfer=off, teams=3x3)")
    assert SHOW.base_profile == "perevodnoy" and SHOW.name.endswith("show_trump=on)")
    assert Rules.from_spec({"profile": "classic", "transfer": True}).base_profile is None


@pytest.mark.parametrize(
    ("spec", "quoted"),
    [
        ({"deck": 32}, "32"),
        ({"deck": "36"}, "'36'"),
        ({"deck": True}, "True"),
        ({"teams": "2v2"}, "'2v2'"),
        ({"teams": 4}, "4"),
        ({"profile": "perevodnoy", "show_trump": "yes"}, "'yes'"),
    ],
)
def test_bad_option_values_are_refused_quoting_them(spec: dict[str, object], quoted: str) -> None:
    with pytest.raises(InvalidNotationError) as info:
        Rules.from_spec(spec)
    assert quoted in str(info.value)
    assert not isinstance(info.value, InvalidRulesError)


@pytest.mark.parametrize(
    ("good", "bad"),
    [
        ({"transfer": False}, {"transfer": 0}),
        ({"profile": "perevodnoy", "show_trump": True}, {"profile": "perevodnoy", "show_trump": 1}),
        ({"deck": 36}, {"deck": 36.5}),
        ({"first_round_limit": 5}, {"first_round_limit": 5, "teams": ["2x2"]}),
    ],
)
def test_rules_read_before_do_not_let_a_mistyped_equal_value_through(
    good: dict[str, object], bad: dict[str, object]
) -> None:
    """Rules read from a dict are remembered (tables and AI workers read the same few
    again and again); a value that compares equal but has another type is still refused."""
    assert Rules.from_spec(good) == Rules.from_spec(dict(good))
    assert Rules.from_spec(good) is Rules.from_spec(dict(good))
    with pytest.raises(InvalidNotationError):
        Rules.from_spec(bad)


@pytest.mark.parametrize(
    ("spec", "players", "sentence"),
    [
        (
            {"profile": "perevodnoy", "teams": "2x2"},
            None,
            "teams '2x2' are played without transfers: turn transfer off",
        ),
        (
            {"show_trump": True},
            None,
            "show_trump needs transfer on: showing a trump is a way to transfer",
        ),
        (
            {"profile": "perevodnoy", "show_trump": True, "teams": "3x3"},
            None,
            "teams '3x3' are played without transfers: turn transfer off",
        ),
        ({"deck": 24}, 5, "a 24-card pack deals six cards to at most 4 players, not 5"),
        ({"teams": "3x3"}, 4, "teams '3x3' need exactly 6 players, not 4"),
        ({"teams": "2x2"}, 6, "teams '2x2' need exactly 4 players, not 6"),
        ({"teams": "3x3", "deck": 24}, 6, "a 24-card pack deals six cards to at most 4 players"),
    ],
)
def test_combinations_that_do_not_go_together_are_one_sentence(
    spec: dict[str, object], players: int | None, sentence: str
) -> None:
    with pytest.raises(InvalidRulesError) as info:
        Rules.from_spec(spec, players=players)
    assert str(info.value).startswith(sentence)
    assert "\n" not in str(info.value)
    assert isinstance(info.value, ValueError) and isinstance(info.value, InvalidNotationError)
    assert isinstance(info.value.reason, Message) and str(info.value.reason) == str(info.value)


def test_the_number_of_players_is_checked_wherever_a_game_is_made() -> None:
    assert Rules(deck=24).players_error(4) is None
    assert Rules(teams="2x2").players_error(4) is None
    Rules.from_spec({"deck": 52}, players=6)
    with pytest.raises(InvalidRulesError):
        Rules(teams="2x2").check_players(5)
    # a Game refuses seats the rules cannot seat, with the same sentence
    with pytest.raises(InvalidRulesError, match="need exactly 4 players, not 2"):
        Game(TEAMS, deal_from_seed(2, 1))
    with pytest.raises(InvalidPositionError, match="at most 4 players, not 5"):
        deal_from_seed(5, 1, deck=24)


# ------------------------------------------------------------------ deals
def test_36_card_seeds_deal_exactly_as_before() -> None:
    """The digest of these deals was taken on the engine before the other packs existed."""
    deals = [
        deal_from_seed(p, s, first_of_series=f).to_dict()
        for p in range(2, 7)
        for s in [*range(50), 12345, 2**40 + 3]
        for f in (True, False)
    ]
    text = json.dumps(deals, ensure_ascii=False, sort_keys=True).encode()
    digest = "0709e29e7aee89a3980c325b9cbb5b2ed19172b9165607c74624f0e5dd097003"
    assert hashlib.sha256(text).hexdigest() == digest
    assert all("deck" not in d for d in deals)


@pytest.mark.parametrize(("deck", "players"), [(24, 2), (24, 3), (24, 4), (52, 2), (52, 6)])
def test_seeded_deals_of_the_24_and_52_card_packs(deck: int, players: int) -> None:
    pack = PACK_MASK[deck]
    whole = players * 6 == deck
    firsts = set()
    for seed in range(60):
        deal = deal_from_seed(players, seed, deck=deck)
        assert deal.deck == deck and deal == deal_from_seed(players, seed, deck=deck)
        assert [h.bit_count() for h in deal.hands] == [6] * players
        held = 0
        for h in deal.hands:
            held |= h
        cards = held | sum(1 << c for c in deal.stock)
        assert cards == pack and held.bit_count() + len(deal.stock) == deck
        trump_suit = SUIT_MASK[deal.trump]
        if whole:  # the dealer's sixth card names the trump, is shown and stays
            assert deal.stock == ()
            dealer_card = deal.shown[-1]
            assert deal.hands[deal.dealer] >> dealer_card & 1
            assert trump_suit >> dealer_card & 1
        else:
            assert len(deal.stock) == deck - 6 * players
            assert trump_suit >> deal.stock[-1] & 1
        # the lowest trump held leads and is shown (RANK_OF is rank - 6: a 2 is -4)
        trumps = [(RANK_OF[c], seat, c) for seat, h in enumerate(deal.hands)
                  for c in iter_bits(h & trump_suit)]  # fmt: skip
        if trumps:
            _, seat, card = min(trumps)
            assert deal.leader == seat and deal.shown[0] == card
        else:
            assert deal.leader == (deal.dealer + 1) % players
        firsts.add(CARD_TEXT[min(trumps)[2]][:-1] if trumps else None)
        back = Deal.from_dict(json.loads(json.dumps(deal.to_dict(), ensure_ascii=False)))
        assert back == deal
    if deck == 52 and players == 6:
        assert "2" in firsts  # with 36 of 52 cards dealt, the 2 of trumps often leads


def test_a_deal_must_come_from_the_rules_pack() -> None:
    with pytest.raises(InvalidPositionError, match=r"24-card pack .* 36-card pack"):
        Game(Rules(), deal_from_seed(2, 1, deck=24))
    with pytest.raises(InvalidPositionError, match="card 6♠ is not in the 24-card pack"):
        Deal(hands=(mask("6♠ 9♠"), mask("10♠")), stock=(), trump=0, leader=0, deck=24)
    with pytest.raises(InvalidPositionError, match="card 2♣ is not in the 36-card pack"):
        Deal(hands=(mask("2♣"), mask("10♠")), stock=(), trump=0, leader=0)


def test_next_deal_after_a_team_loss_or_a_draw() -> None:
    # the losing team's first seat clockwise after the previous dealer deals
    assert next_dealer_and_leader(4, 0, None, losers=(1, 3)) == (1, 2)
    assert next_dealer_and_leader(4, 1, None, losers=(1, 3)) == (3, 0)
    assert next_dealer_and_leader(6, 3, None, losers=(0, 2, 4)) == (4, 5)
    assert next_dealer_and_leader(4, 2, None, losers=()) == (2, 3)  # a draw
    assert next_dealer_and_leader(3, 0, 2) == (2, 0)  # an individual game as before


# ------------------------------------------------------------------ show
def _shown_game(**kw: object) -> Game:
    """Three players, trump ♦: 0 has led 9♣ against 1, who holds the trump nine."""
    hands = kw.pop("hands", ["9♣ K♠", "9♦ 9♥ 7♣", "J♣ 6♠ A♥"])
    rules = kw.pop("rules", SHOW)
    return position(hands, trump="♦", rules=rules, actions=["0 attack 9♣"], **kw)  # type: ignore[arg-type]


def test_show_is_an_action_with_one_card() -> None:
    action = parse_action("1 show 9♦")
    assert action == Action.show(1, parse_card("9♦"))
    assert action.kind is ActionKind.SHOW and str(action) == "1 show 9♦"
    assert Action.from_code(1, action.code) == action
    for text in ("1 show", "1 show 9♦ 9♥"):
        with pytest.raises(InvalidNotationError, match="show takes exactly one card"):
            parse_action(text)


def test_a_show_passes_the_attack_on_and_the_card_stays_public() -> None:
    game = _shown_game()
    assert "1 show 9♦" in game.legal_text()
    game.apply(parse_action("1 show 9♦"))
    assert (game.attacker, game.defender, game.to_act) == (1, 2, 2)
    assert game.table() == [("9♣", None)] and game.limit == 3
    assert game.round_shown == (parse_card("9♦").index,)
    assert "9♦" in game.hand(1)
    assert CARD_TEXT[parse_card("9♦").index] in observation(game, 2)["known"][1]
    assert observation(game, 0)["round_shown"] == ["9♦"]
    assert game.state_dict()["shown"] == ["9♦"]


@pytest.mark.parametrize(
    ("hands", "rules", "before", "action", "reason"),
    [
        (None, "perevodnoy", [], "1 show 9♦", "showing a trump to transfer is not allowed"),
        (None, None, [], "1 show 9♥", "9♥ is not a trump: only the trump of the attacked rank"),
        (["9♣ K♠", "10♦ 7♣", "J♣ 6♠"], None, [], "1 show 10♦", "attacked rank, 9, can be shown"),
        (["9♣ K♠", "9♥ 7♣", "9♦ J♣"], None, [], "1 show 9♦", "9♦ is not in your hand"),
        (None, None, [], "1 show 2♦", "there is no 2♦ in a 36-card pack"),
        (None, None, [], "2 show 9♦", "seat 1 is defending"),
        (["9♣ 9♠ K♠", "9♦ 7♥", "J♣"], None, ["1 take"], "1 show 9♦", "declared a take"),
        (
            ["9♣ 9♠ K♠", "9♦ 10♣ 7♥", "J♣"],
            None,
            ["+9♠", "1 defend 9♣ 10♣"],
            "1 show 9♦",
            "no show after the first defence",
        ),
        (["9♣ K♠", "9♦ 7♣", "J♣"], None, [], "1 show 9♦", None),
        (
            ["9♣ 9♠", "9♦ 7♣ 8♠", "J♣"],
            None,
            ["+9♠"],
            "1 show 9♦",
            "seat 2 holds 1 card: a show",
        ),
        (
            ["9♣ 9♠ 9♥", "9♦ 7♣ 8♠", "J♣ Q♣"],
            None,
            ["+9♠ 9♥"],
            "1 show 9♦",
            "seat 2 holds 2 cards: a show would pass on 3 attacks",
        ),
    ],
)
def test_every_refusal_of_a_show_has_its_reason(
    hands: list[str] | None,
    rules: str | None,
    before: list[str],
    action: str,
    reason: str | None,
) -> None:
    """Seat 0 has led 9♣ (with the cards of a ``+…`` first entry of ``before``), then the
    moves of ``before``."""
    opening = "0 attack 9♣"
    if before and before[0].startswith("+"):
        opening += " " + before[0][1:]
        before = before[1:]
    game = position(
        hands or ["9♣ K♠", "9♦ 9♥ 7♣", "J♣ 6♠ A♥"],
        trump="♦",
        rules=rules or SHOW,
        actions=[opening, *before],
    )
    parsed = parse_action(action)
    explained = game.explain(parsed)
    if reason is None:
        assert explained is None and game.can_apply(parsed)
        return
    assert explained is not None and reason in str(explained), str(explained)
    with pytest.raises(IllegalActionError):
        game.apply(parsed)


def test_a_second_show_of_the_same_card_is_refused_but_it_may_be_played() -> None:
    game = position(
        ["9♣ 9♠ K♥ A♥ 6♠", "9♦ 7♣ 8♠"],
        trump="♦",
        rules=SHOW,
        actions=["0 attack 9♣", "1 show 9♦", "0 transfer 9♠"],
    )
    reason = game.explain(parse_action("1 show 9♦"))
    assert reason is not None and str(reason) == "9♦ has already been shown this round"
    assert reason.key == "{card} has already been shown this round"
    assert "1 transfer 9♦" in game.legal_text()


# ------------------------------------------------------------------ teams
def _team_game() -> Game:
    """2x2, no stock: seat 2's player went out, so seat 0's player plays seats 0 and 2."""
    return position(["7♠ 7♦ 9♣ A♣", "8♠ 9♥ 10♣ J♥", "", "K♦ 6♥"], trump="♥", rules=TEAMS)


def test_a_team_game_says_who_plays_each_seat() -> None:
    game = _team_game()
    assert game.out == 0b0100 and game.played_by == (0, 1, 0, 3)
    assert game.seat_hand(2) == game.hands[0] and game.hands[2] == 0
    game.apply(parse_action("0 attack 7♠"))
    game.apply(parse_action("1 defend 7♠ 8♠"))
    game.apply(parse_action("0 pass"))
    assert game.to_act == 2 and game.player_to_act == 0
    assert game.legal_text() == ["2 attack 7♦", "2 pass"]
    # seat 0's player acts for seat 2: the observation of player 0 lists seat 2's actions
    obs = observation(game, 0)
    assert obs["legal"] == ["2 attack 7♦", "2 pass"] and obs["played_by"] == [0, 1, 0, 3]
    assert observation(game, 2)["legal"] == [] and observation(game, 2)["hand"] == []
    # each player sees only their own hand, never their partner's
    partner = observation(game, 1)
    assert partner["hand"] == game.hand(1)
    assert not set(partner["hand"]) & set(game.hand(3))
    assert all(c not in json.dumps(partner, ensure_ascii=False) for c in ("K♦", "6♥"))


def test_team_refusals_have_their_reasons() -> None:
    game = _team_game()
    game.apply(parse_action("0 attack 7♠"))
    game.apply(parse_action("1 defend 7♠ 8♠"))
    partner = game.explain(parse_action("3 attack 7♦"))
    assert partner is not None
    assert str(partner) == (
        "seat 3 is the defender's partner: only the defender's opponents add cards"
    )
    game.apply(parse_action("0 pass"))
    own_number = game.explain(parse_action("0 attack 7♦"))
    assert own_number is not None
    assert str(own_number) == ("it is seat 2's turn, played by seat 0: the move is made as seat 2")
    assert own_number["seat"] == Seat(2) and own_number["player"] == Seat(0)


def test_a_team_game_ends_with_the_losing_team_or_a_draw() -> None:
    end = position(["9♠", "10♠ J♦", "", "Q♣"], trump="♥", rules=TEAMS,
                   actions=["0 attack 9♠", "1 defend 9♠ 10♠"])  # fmt: skip
    assert end.finished and end.losers == (1, 3) and end.loser is None and not end.draw
    draw = position(["9♠", "10♠", "", ""], trump="♥", rules=TEAMS,
                    actions=["0 attack 9♠", "1 defend 9♠ 10♠"])  # fmt: skip
    assert draw.finished and draw.losers == () and draw.draw
    moves = ["0 attack 9♠", "1 defend 9♠ 10♠", "1 attack 6♥", "2 take"]
    single = position(["9♠", "10♠ 6♥", "7♦"], trump="♣", actions=moves)
    assert single.losers == (2,) and single.loser == 2


def test_team_positions_and_their_checks() -> None:
    hands = [mask("9♠"), mask("10♠ A♣"), 0, mask("J♦")]
    game = Game.from_position(TEAMS, hands, trump=3, leader=0)
    assert game.played_by == (0, 1, 0, 3) and game.defender == 1
    given = Game.from_position(TEAMS, hands, trump=3, leader=0, played_by=(0, 1, 0, 3))
    assert given.state_dict() == game.state_dict()
    with pytest.raises(InvalidPositionError, match="must be played by a partner"):
        Game.from_position(TEAMS, hands, trump=3, leader=0, played_by=(0, 1, 1, 3))
    with pytest.raises(InvalidPositionError, match="each team needs a player holding cards"):
        Game.from_position(TEAMS, [mask("9♠"), 0, mask("J♠"), 0], trump=3, leader=0)
    with pytest.raises(InvalidPositionError, match="no show"):
        Game.from_position(Rules(), hands[:2], trump=3, leader=0, round_shown=(0,))


def test_snapshots_of_option_games_restore_and_old_snapshots_still_do() -> None:
    tables = [(Rules(deck=24), 4), (Rules(deck=52), 5), (SHOW, 3), (TEAMS, 4),
              (Rules.from_spec({"profile": "classic", "teams": "3x3"}), 6)]  # fmt: skip
    for rules, players in tables:
        game = Game(rules, deal_from_seed(players, 7, deck=rules.deck))
        rng = random.Random(3)
        for _ in range(60):
            if game.finished:
                break
            game.apply_code(rng.choice(game.legal_codes()))
        back = from_snapshot(json.loads(json.dumps(snapshot(game), ensure_ascii=False)))
        assert back.state_dict() == game.state_dict() and back.rules == rules
    old = snapshot(Game(Rules(), deal_from_seed(2, 1)))
    for key in ("played_by", "shown", "losers"):
        del old["state"][key]
    assert from_snapshot(old).version == 0


def test_hints_mark_a_showable_trump_and_speak_for_the_seat_played() -> None:
    game = _shown_game()
    hints = card_hints(game, 1)
    assert hints[parse_card("9♦")] is None  # it can be shown (or played to transfer)
    team = _team_game()
    team.apply(parse_action("0 attack 7♠"))
    team.apply(parse_action("1 defend 7♠ 8♠"))
    team.apply(parse_action("0 pass"))
    own = card_hints(team, 0)  # player 0 now acts for seat 2
    assert own[parse_card("7♦")] is None
    assert own[parse_card("A♣")] is not None


def test_the_record_of_a_show_and_of_a_team_end() -> None:
    game = _shown_game()
    played = game.apply(parse_action("1 show 9♦"))
    assert played.kind is ActionKind.SHOW and played.target == 2
    assert [str(c) for c in played.uses] == ["9♦"] and "9♦" in game.hand(1)
    assert Played.from_dict(json.loads(json.dumps(played.to_dict()))) == played
    end = position(["9♠", "10♠ J♦", "", "Q♣"], trump="♥", rules=TEAMS, actions=["0 attack 9♠"])
    last = end.apply(parse_action("1 defend 9♠ 10♠"))
    assert last.game_over and last.loser is None and last.losers == (1, 3)
    record = last.to_dict()
    assert record["losers"] == [1, 3]
    assert Played.from_dict(json.loads(json.dumps(record))).losers == (1, 3)
    single = position(["9♠", "10♠ 6♥", "7♦"], trump="♣",
                      actions=["0 attack 9♠", "1 defend 9♠ 10♠", "1 attack 6♥"])  # fmt: skip
    durak = single.apply(parse_action("2 take"))
    assert durak.losers == (2,) and "losers" not in durak.to_dict()
    assert Played.from_dict(durak.to_dict()).losers == (2,)
