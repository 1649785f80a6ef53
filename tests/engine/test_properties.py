"""Property tests: random deals (2–6 players), every profile with random option overrides,
and moves chosen by a ``random.Random`` seeded from a hypothesis-drawn seed.

Invariants: the 36 cards are conserved and never duplicated; exactly one player is to act until
the game ends; every listed action is legal by `explain` and applies; unlisted actions are refused
with a reason and change nothing; every game ends; snapshots and replays rebuild the same state;
an observation never reveals a card its seat has not seen.
"""

from __future__ import annotations

import json
import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rules_engine import (
    ALL_CARDS,
    Action,
    ActionKind,
    Game,
    IllegalActionError,
    Rules,
    deal_from_seed,
    from_snapshot,
    observation,
    parse_action,
    replay,
    snapshot,
)
from rules_engine.cards import CARD_TEXT, FULL_DECK_MASK, Card
from rules_engine.messages import Message
from rules_engine.phase import Phase

from .helpers import hidden_from, position, public_cards

MAX_MOVES = 2000
PROFILES = ("podkidnoy", "perevodnoy", "classic")
#: Examples come from the active Hypothesis profile (tests/conftest.py: ``dev`` or ``ci``).
SETTINGS = settings(
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


@st.composite
def rule_sets(draw: st.DrawFn) -> Rules:
    profile = draw(st.sampled_from(PROFILES))
    overrides = draw(
        st.fixed_dictionaries(
            {},
            optional={
                "throw_in": st.sampled_from(["neighbours", "all"]),
                "first_round_limit": st.sampled_from([5, 6]),
                "transfer": st.booleans(),
            },
        )
    )
    return Rules.from_spec({"profile": profile, **overrides})


def check_state(game: Game) -> None:
    # the table's kept mask holds exactly the cards of its attacks and defences
    on_table = [*game.table_attacks, *(d for d in game.table_defences if d >= 0)]
    assert game.table_mask == sum(1 << c for c in on_table)
    # 36 cards, each exactly once: hands + stock + table + discard
    parts = [*game.hands, sum(1 << c for c in game.stock), game.table_mask, game.discard]
    assert sum(p.bit_count() for p in parts) == 36
    union = 0
    for p in parts:
        assert not union & p, "a card is in two places"
        union |= p
    assert union == FULL_DECK_MASK
    assert len(set(game.stock)) == len(game.stock)
    # exactly one player to act until the game ends
    if game.finished:
        assert game.to_act is None and game.legal_codes() == ()
        assert game.table_attacks == [] and not game.taking
        active = [s for s in range(game.n) if not game.out >> s & 1]
        if game.draw:
            assert game.loser is None and active == []
        else:
            assert active == [game.loser]
        assert game.stock == []
        assert game.phase is Phase.OVER
        return
    seat = game.to_act
    assert seat is not None and 0 <= seat < game.n
    assert not game.out >> seat & 1
    assert game.legal_codes(), "the seat to act always has a legal action"
    assert not game.out >> game.defender & 1 and not game.out >> game.leader & 1
    assert game.defender != game.attacker or game.n - game.out.bit_count() == 2
    cap = game.rules.first_round_limit if game.first_round else 6
    assert 1 <= game.limit <= cap
    assert len(game.table_attacks) <= game.limit
    uncovered = sum(1 for d in game.table_defences if d < 0)
    # the phase is the rule written once in Phase.of, and it names who acts: legal_codes
    # relies on "the defender is to act exactly in Phase.DEFEND"
    phase = Phase.of(
        finished=False, attacks=len(game.table_attacks), uncovered=uncovered, taking=game.taking
    )
    assert game.phase is phase
    assert (seat == game.defender) == (phase is Phase.DEFEND)
    assert (seat == game.leader and not game.table_attacks) == (phase is Phase.LEAD)
    if seat == game.defender:
        assert uncovered and not game.taking
    else:
        assert seat in game.attackers
        assert not uncovered or game.taking
    if game.stock:
        assert game.out == 0, "nobody is out while cards can be drawn"
    if not game.table_attacks:
        # RULES.md §5: at the start of a round the limit is min(cap, the defender's hand)
        assert seat == game.leader
        assert game.limit == min(cap, game.hands[game.defender].bit_count())
    assert game.attackers == expected_attackers(game)


def expected_attackers(game: Game) -> tuple[int, ...]:
    """RULES.md §6 "Attackers" and "Priority order", written out independently."""
    n, d = game.n, game.defender
    active = [s for s in range(n) if not game.out >> s & 1]
    if game.rules.throw_in == "neighbours":
        prev = next(s for s in ((d - i) % n for i in range(1, n)) if s in active)
        nxt = next(s for s in ((d + i) % n for i in range(1, n)) if s in active)
        return (prev,) if prev == nxt else (game.attacker, nxt if prev == game.attacker else prev)
    order = [(game.attacker + i) % n for i in range(n)]
    return tuple(s for s in order if s in active and s != d)


def check_observations(game: Game) -> None:
    seen = public_cards(game)
    assert game.public_held & ~seen == 0, "the engine calls a card public that nobody saw"
    for seat in range(game.n):
        obs = observation(game, seat)
        text = json.dumps(obs, ensure_ascii=False)
        hidden = hidden_from(game, seat)
        for c in range(52):
            if hidden >> c & 1:
                assert CARD_TEXT[c] not in text, f"seat {seat} sees {CARD_TEXT[c]}"
        assert (obs["legal"] != []) == (seat == game.to_act)


def check_round_trips(game: Game) -> None:
    snap = json.loads(json.dumps(snapshot(game), ensure_ascii=False))
    back = from_snapshot(snap)
    assert back.state_dict() == game.state_dict()
    assert back.legal_codes() == game.legal_codes()
    again = replay(game.rules, game.deal, game.history_text())
    assert again.state_dict() == game.state_dict()
    assert again.history == game.history


def check_listed(game: Game) -> None:
    legal = game.legal_actions()
    texts = game.legal_text()
    assert len(set(texts)) == len(texts), "each action listed once"
    assert [str(a) for a in legal] == texts
    for action in legal:
        assert action.seat == game.to_act
        assert game.explain(action) is None, str(action)
        child = game.clone()
        child.apply(action)
        assert child.version == game.version + 1


def refuse_unchanged(game: Game, action: Action) -> None:
    before, version, codes = game.state_dict(), game.version, game.legal_codes()
    reason = game.explain(action)
    assert isinstance(reason, Message) and str(reason).strip(), str(action)
    try:
        game.apply(action)
    except IllegalActionError as exc:
        assert exc.reason == reason
    else:
        raise AssertionError(f"{action} was applied but is not listed")
    assert game.state_dict() == before
    assert game.version == version and game.legal_codes() == codes


def _random_action(rng: random.Random, game: Game) -> Action:
    seat = rng.randint(-1, game.n)
    # cards near the game: the hands and the table, sometimes any card
    pool = sorted(
        {c for h in game.hands for c in range(36) if h >> c & 1} | set(game.table_attacks)
    )

    def card() -> Card:
        return ALL_CARDS[rng.choice(pool) if pool and rng.random() < 0.5 else rng.randrange(36)]

    kind = rng.choice(list(ActionKind))
    if kind in (ActionKind.ATTACK, ActionKind.TRANSFER):
        cards = {card() for _ in range(rng.randint(1, 4))}
        return Action(seat, kind, tuple(cards))
    if kind is ActionKind.DEFEND:
        return Action.defend(seat, card(), card())
    if kind is ActionKind.SHOW:
        return Action.show(seat, card())
    return Action(seat, kind)


def _mutated(rng: random.Random, game: Game) -> Action:
    """A listed action with its seat, kind or cards changed: often just barely illegal."""
    listed = game.legal_actions()
    base = listed[rng.randrange(len(listed))]
    how = rng.choice(["seat", "kind", "card"])
    if how == "seat":
        return Action(rng.randrange(game.n), base.kind, base.cards)
    if how == "kind" or not base.cards:
        kind = rng.choice(list(ActionKind))
        if kind is ActionKind.DEFEND:
            cards = (base.cards * 2)[:2] if base.cards else (ALL_CARDS[0], ALL_CARDS[1])
            return Action(base.seat, kind, cards)
        if kind in (ActionKind.ATTACK, ActionKind.TRANSFER):
            return Action(base.seat, kind, base.cards or (ALL_CARDS[0],))
        if kind is ActionKind.SHOW:
            return Action.show(base.seat, base.cards[-1] if base.cards else ALL_CARDS[0])
        return Action(base.seat, kind)
    extra = ALL_CARDS[rng.randrange(36)]
    if base.kind is ActionKind.DEFEND:
        return Action.defend(base.seat, base.cards[0], extra)
    if base.kind is ActionKind.SHOW:
        return Action.show(base.seat, extra)
    return Action(base.seat, base.kind, tuple({*base.cards, extra}))


def _round_start_key(game: Game) -> str | None:
    """With the stock empty, a round start is fixed by its state (round number aside)."""
    if game.finished or game.stock or game.table_attacks:
        return None
    state = game.state_dict()
    del state["round"], state["first_round"]
    return json.dumps(state, sort_keys=True)


@SETTINGS
@given(
    players=st.integers(2, 6),
    seed=st.integers(0, 2**40),
    rules=rule_sets(),
    moves_seed=st.integers(0, 2**32),
)
def test_random_games_keep_every_invariant(
    players: int, seed: int, rules: Rules, moves_seed: int
) -> None:
    """Hypothesis draws the table and two seeds; the moves (and the illegal probes) come from
    ``random.Random(moves_seed)``, which is far cheaper than drawing every move and still
    replays exactly from the failing example."""
    game = Game(rules, deal_from_seed(players, seed))
    rng = random.Random(moves_seed)
    moves = 0
    round_starts: set[str] = set()
    while True:
        check_state(game)
        if moves % 7 == 0:
            check_observations(game)
        if moves % 29 == 0:
            check_round_trips(game)
        if game.finished:
            break
        key = _round_start_key(game)
        if key in round_starts:
            # RULES.md has no rule against repetition: these choices loop for ever (see
            # test_rules_allow_an_endless_game); the rest of the game adds nothing new.
            break
        if key:
            round_starts.add(key)
        check_listed(game)
        for make in (_random_action, _mutated):
            action = make(rng, game)
            if not game.is_legal_code(action.seat, action.code):
                refuse_unchanged(game, action)
        legal = game.legal_actions()
        game.apply(legal[rng.randrange(len(legal))])
        moves += 1
        assert moves <= MAX_MOVES, "the game must end or repeat a position"
    check_observations(game)
    check_round_trips(game)
    assert len(game.history) == moves
    if game.finished:
        assert game.legal_text() == []


@settings(deadline=None)
@given(players=st.integers(2, 6), seed=st.integers(0, 2**40), rules=rule_sets())
def test_games_end_under_random_play(players: int, seed: int, rules: Rules) -> None:
    """Every game ends within MAX_MOVES when each move is drawn uniformly at random (20,000
    such games took at most 520 moves).  Only the cheap invariants are checked here."""
    game = Game(rules, deal_from_seed(players, seed))
    rng = random.Random(seed)
    for _ in range(MAX_MOVES):
        check_state(game)
        if game.finished:
            break
        codes = game.legal_codes()
        game.apply_code(codes[rng.randrange(len(codes))])
    assert game.finished, "the game must end"


def test_rules_allow_an_endless_game() -> None:
    """RULES.md has no repetition or move-count rule, so legal play can loop for ever.  Found
    by playing the first legal action after a random prefix: classic, stock empty, seats 1 and
    3 out; neither 0 nor 2 can ever beat an eight, 4 beats one and takes the next."""
    discard = (
        "6♠ 6♥ 6♦ 6♣ 7♠ 7♥ 7♦ 7♣ 8♥ 9♠ 9♥ 9♦ 9♣ 10♠ 10♥ 10♦ 10♣ J♠ J♥ J♦ J♣ Q♠ Q♥ Q♦ Q♣ K♥ A♠ A♥"
    )
    game = position(
        ["K♦ K♣", "", "8♣ K♠", "", "8♠ 8♦ A♦ A♣"],
        trump="♥",
        rules="classic",
        leader=4,
        discard=discard,
    )
    start = _round_start_key(game)
    loop = [
        "4 attack 8♠", "0 take", "4 attack 8♦", "2 attack 8♣", "4 defend 8♣ A♣", "0 attack 8♠",
        "4 take", "0 attack 8♦", "2 take", "4 attack 8♠", "0 take", "4 attack 8♣",
        "2 attack 8♦", "4 defend 8♦ A♦", "0 attack 8♠", "4 take", "0 attack 8♣", "2 take",
    ]  # fmt: skip
    for _ in range(3):
        round_before = game.round
        for text in loop:
            game.apply(parse_action(text))
        assert _round_start_key(game) == start
        assert game.round == round_before + 6
    assert not game.finished
