"""The game state machine: RULES.md §5–§7 and §10 played exactly, one player to act at a time.

:class:`Game` is mutable (like a chess board with ``push``) for speed; every input is checked
against one rule book (:meth:`Game.explain`), and :meth:`Game.legal_codes` enumerates exactly the
actions that pass it.  Cards are bit indices, hands bitmasks (see :mod:`rules_engine.cards`).

Seats and players (RULES.md §10.3): ``hands[p]`` is player ``p``'s own hand, ``played_by[s]``
the player who plays seat ``s`` (``s`` itself, except in a team game once seat ``s``'s player is
out), and every rule about turns is about seats: ``to_act``, ``leader``, ``attacker``,
``defender`` and the seat of an :class:`Action` are seats, whose cards come from
``hands[played_by[seat]]`` (:meth:`Game.seat_hand`).
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import overload

from rules_engine.actions import (
    ATTACK,
    DEFEND,
    PASS_CODE,
    SHOW,
    TAKE,
    TAKE_CODE,
    TRANSFER,
    Action,
    ActionKind,
    code_text,
)
from rules_engine.cards import (
    ALL_CARDS,
    ALL_CARDS_MASK,
    CARD_TEXT,
    N_CARDS,
    PACK_MASK,
    RANK_MASK,
    RANK_OF,
    RANK_SETS,
    RANK_SYMBOLS,
    RANKS_ASCENDING,
    SUIT_MASK,
    SUIT_OF,
    SUIT_SYMBOLS,
    Card,
    beaters_table,
    iter_bits,
    mask_text,
    submasks,
)
from rules_engine.deal import HAND_SIZE, Deal
from rules_engine.errors import IllegalActionError, InvalidPositionError
from rules_engine.messages import N_, Message, Seat
from rules_engine.phase import Phase
from rules_engine.played import Played, RoundEnd
from rules_engine.rules import Rules

__all__ = ["Game", "LegalActions", "Phase"]

_LEAD = Phase.LEAD
_DEFEND_PHASE = Phase.DEFEND
_TAKING = Phase.TAKING


def _subset_table(kind: int) -> dict[int, tuple[tuple[int, ...], ...]]:
    """For every set of cards of one rank: the action codes of its non-empty subsets,
    indexed by the room left under the limit (0..4)."""
    table: dict[int, tuple[tuple[int, ...], ...]] = {}
    for rank_set in RANK_SETS:
        subsets = submasks(rank_set)  # fewest cards first: each room takes a prefix
        codes = tuple(kind | m << 3 for m in subsets)
        counts = [m.bit_count() for m in subsets]
        table[rank_set] = tuple(codes[: bisect_right(counts, room)] for room in range(5))
    return table


_ATTACK_SUBSETS = _subset_table(ATTACK)
# Attackers in priority order per (throw_in, players, teams), keyed by skipped/attacker/defender
# bits.
_ATTACKERS_MEMO: dict[tuple[str, int, str], dict[int, tuple[int, ...]]] = {
    (throw_in, n, teams): {}
    for throw_in in ("neighbours", "all")
    for n in range(2, 7)
    for teams in ("none", "2x2", "3x3")
}


def _next_active_table(n: int) -> tuple[int, ...]:
    """``table[out << 3 | seat]``: the next seat clockwise after ``seat`` not in ``out``."""
    table = []
    for out in range(64):
        for seat in range(8):
            s = (seat + 1) % n
            for _ in range(n):
                if not out >> s & 1:
                    break
                s = (s + 1) % n
            table.append(s)
    return tuple(table)


_NEXT_ACTIVE: dict[int, tuple[int, ...]] = {n: _next_active_table(n) for n in range(2, 7)}


def _draw_order_table(n: int) -> tuple[tuple[int, ...], ...]:
    """``table[leader << 3 | defender]``: who draws in which order (RULES.md §7.2)."""
    table: list[tuple[int, ...]] = []
    for leader in range(8):
        for d in range(8):
            seats = [(leader + i) % n for i in range(n)]
            if d != leader and d in seats:
                seats.remove(d)
                seats.append(d)
            table.append(tuple(seats))
    return tuple(table)


_DRAW_ORDER: dict[int, tuple[tuple[int, ...], ...]] = {n: _draw_order_table(n) for n in range(2, 7)}
#: Every seat played by its own player, per number of seats.
_IDENTITY: dict[int, tuple[int, ...]] = {n: tuple(range(n)) for n in range(2, 7)}
#: Team games: the seats of the even team and of the odd team, as masks, per number of seats.
_TEAM_MASK: dict[int, tuple[int, int]] = {
    n: (sum(1 << s for s in range(0, n, 2)), sum(1 << s for s in range(1, n, 2)))
    for n in range(2, 7)
}
_TRANSFER_SUBSETS = _subset_table(TRANSFER)


class _DefendChunkMemo(dict[int, tuple[int, ...]]):
    """Defence codes of attack ``key & 63`` with the beating cards ``key >> 6``, which lie in
    one chunk of the pack (three ranks of the 36; see ``_CHUNK``), so the memo stays small."""

    def __missing__(self, key: int) -> tuple[int, ...]:
        if len(self) >= _MEMO_MAX:
            self.clear()
        a = key & 63
        ds = key >> 6
        codes = []
        while ds:
            low = ds & -ds
            codes.append(DEFEND | (a | (low.bit_length() - 1) << 6) << 3)
            ds ^= low
        result = self[key] = tuple(codes)
        return result


class _AttackChunkMemo(dict[int, tuple[int, ...]]):
    """Attack codes for the candidate cards of one chunk of a hand (three ranks of the 36),
    keyed by ``chunk_cards << 3 | room``: at most 3 * 4096 * 5 entries for 36 cards."""

    def __missing__(self, key: int) -> tuple[int, ...]:
        if len(self) >= _MEMO_MAX:
            self.clear()
        cands = key >> 3
        room = key & 7
        codes: list[int] = []
        while cands:
            low = cands & -cands
            rank_cards = cands & RANK_MASK[RANK_OF[low.bit_length() - 1]]
            cands ^= rank_cards
            codes.extend(_ATTACK_SUBSETS[rank_cards][room])
        result = self[key] = tuple(codes)
        return result


class _AddMemo(dict[int, tuple[int, ...]]):
    """Additions (attacks after the opening) plus ``pass``, keyed by ``cards << 3 | room``;
    bounded: cleared when full."""

    def add(self, key: int) -> tuple[int, ...]:
        cands = key >> 3
        room = key & 7
        memo = _ATTACK_MEMO
        codes = (
            memo[(cands & _CHUNK) << 3 | room]
            + memo[(cands & _CHUNK1) << 3 | room]
            + memo[(cands & _CHUNK2) << 3 | room]
            + _PASS_ONLY
        )
        if len(self) >= 100_000:
            self.clear()
        self[key] = codes
        return codes


_DEFEND_MEMO = _DefendChunkMemo()
_ATTACK_MEMO = _AttackChunkMemo()
#: The chunks the memos split a set of cards into: 6..8, 9..J, then Q..A with the 52-card
#: pack's 2..5 above them (for 36 cards, three 12-bit chunks).
_CHUNK = 0xFFF
_CHUNK1 = _CHUNK << 12
_CHUNK2 = ALL_CARDS_MASK & ~((1 << 24) - 1)
#: Entries a chunk memo keeps before it starts afresh: 36-card chunks never get near it; the
#: wider chunk of the 52-card pack could grow without end.
_MEMO_MAX = 500_000
_LOW36 = (1 << 36) - 1
_TAKE_ONLY = (TAKE_CODE,)
_PASS_ONLY = (PASS_CODE,)
_ADD_MEMO = _AddMemo()


@dataclass(frozen=True, slots=True)
class _PassOnReasons:
    """Why the defender may not pass the attack on this way (a transfer, or a show)."""

    #: The rules do not allow it.
    forbidden: Message
    #: The round already has a defence.
    late: Message
    #: The next player holds too few cards: the message keys for one card, and for more.
    too_many: tuple[str, str]


_TRANSFER = _PassOnReasons(
    Message("transfers are not allowed in these rules"),
    Message("no transfer after the first defence of a round"),
    (
        N_("{player} holds 1 card: a transfer would make {total} attacks"),
        N_("{player} holds {n} cards: a transfer would make {total} attacks"),
    ),
)
_SHOW = _PassOnReasons(
    Message("showing a trump to transfer is not allowed in these rules"),
    Message("no show after the first defence of a round"),
    (
        N_("{player} holds 1 card: a show would pass on {total} attacks"),
        N_("{player} holds {n} cards: a show would pass on {total} attacks"),
    ),
)


class Game:
    """One game of Durak from a :class:`Deal` under :class:`Rules`.

    Read the state through the properties and :meth:`state_dict`; act through :meth:`apply`
    (checked) or :meth:`apply_code` (unchecked, for search and benchmarks).  The rules'
    options (:class:`Rules`) and the number of seats are checked when the game is made: an
    invalid combination raises :class:`~rules_engine.errors.InvalidRulesError`.
    """

    __slots__ = (
        "_addable",
        "_attackers",
        "_attackers_memo",
        "_beaters",
        "_covered_any",
        "_deal",
        "_history_text",
        "_legal",
        "_next",
        "_passed",
        "_round_shown",
        "_skip",
        "_table",
        "_teams",
        "_uncovered",
        "attacker",
        "defender",
        "discard",
        "draw",
        "finished",
        "first_round",
        "hands",
        "history",
        "leader",
        "limit",
        "loser",
        "losers",
        "n",
        "out",
        "played_by",
        "public_held",
        "round",
        "rules",
        "stock",
        "table_attacks",
        "table_defences",
        "taking",
        "to_act",
        "trump",
    )

    table_attacks: list[int]
    table_defences: list[int]
    to_act: int | None
    _legal: tuple[int, ...] | None
    _attackers: tuple[int, ...]

    def __init__(self, rules: Rules, deal: Deal) -> None:
        self.rules = rules
        self._deal: Deal | None = deal
        self.n = n = len(deal.hands)
        if rules.deck != deal.deck:
            raise InvalidPositionError(
                f"a deal from the {deal.deck}-card pack cannot be played with the rules' "
                f"{rules.deck}-card pack"
            )
        if rules.deck != 36 or rules.teams != "none":
            rules.check_players(n)
        self.hands: list[int] = list(deal.hands)
        #: Stock in reverse drawing order: ``pop()`` draws; ``stock[0]`` is the face-up trump card.
        self.stock: list[int] = list(reversed(deal.stock))
        self.trump = deal.trump
        self._beaters = beaters_table(deal.trump)
        self.discard = deal.discard
        #: Cards everyone knows to be in some hand (shown, picked up, the drawn trump card).
        self.public_held = 0
        for c in deal.shown:
            self.public_held |= 1 << c
        self.out = 0
        if not self.stock:
            for seat, hand in enumerate(self.hands):
                if not hand:
                    self.out |= 1 << seat
        self._teams = teams = rules.teams != "none"
        #: Seats skipped in turn order: the players out in an individual game, none in a team
        #: game (a seat whose player is out is played by a partner, RULES.md §10.3).
        self._skip = 0 if teams else self.out
        #: The player who plays each seat.
        self.played_by: tuple[int, ...] = _IDENTITY[n]
        self._round_shown: tuple[int, ...] = ()
        self.losers: tuple[int, ...] = ()
        if teams:
            _check_teams(self.hands, self.out)
            self._hand_over()
        self._next = _NEXT_ACTIVE[n]
        self._attackers_memo = _ATTACKERS_MEMO[rules.throw_in, n, rules.teams]
        self.round = 1
        self.first_round = deal.first_round
        #: Every action so far, as ``code << 3 | seat``.
        self.history: list[int] = []
        self._history_text: list[str] = []  # canonical texts of ``history``, filled lazily
        self.finished = False
        self.loser: int | None = None
        self.draw = False
        self._start_round(deal.leader)

    # ------------------------------------------------------------------ positions
    @classmethod
    def from_position(
        cls,
        rules: Rules,
        hands: Sequence[int],
        *,
        trump: int,
        leader: int,
        stock: Sequence[int] = (),
        discard: int = 0,
        table: Sequence[tuple[int, int | None]] = (),
        attacker: int | None = None,
        taking: bool = False,
        passed: int = 0,
        out: int | None = None,
        to_act: int | None = None,
        first_round: bool = False,
        round: int = 1,
        public_held: int = 0,
        played_by: Sequence[int] | None = None,
        round_shown: Sequence[int] = (),
        validate: bool = True,
    ) -> Game:
        """A game at an explicit position, in the middle of a round or at its start.

        Cards are indices and sets of cards bitmasks (:mod:`rules_engine.cards`); seats are
        ints.  ``hands``: one card mask per seat.  ``stock``: card indices in drawing order,
        the face-up trump card last (its suit must be ``trump``, a suit 0..3).  ``table``:
        ``(attack, defence)`` pairs in the order played, ``defence`` ``None`` while uncovered.
        ``leader`` opened the round; ``attacker`` is the current attacker (the last seat that
        transferred; default the leader).  ``taking``: the defender has declared a take.
        ``passed``: mask of attackers who passed since the last defend, transfer or take.
        ``out``: mask of seats out of the game (default: every seat without cards once the
        stock is empty).  ``first_round``: the round is the game's first (its cap,
        RULES.md §5).  ``round``: the round's number.  ``public_held``: cards everyone knows
        to be in some hand (shown, picked up).  ``played_by``: the player of each seat (a team
        game; default: every seat its own player, then seats of players who are out handed to
        partners, RULES.md §10.3).  ``round_shown``: the cards shown this round (§10.2).

        Derived, as the rules fix them: the defender (the next active seat after the current
        attacker), the limit (the cap, or the defender's hand when the limit was set: the hand
        now plus the defences on the table), the attackers, the :attr:`phase`, and the seat to
        act (``to_act``, checked when given).

        With ``validate`` (the default) the position is checked like a scenario and a bad one
        raises :class:`InvalidPositionError` quoting the input.  ``validate=False`` trusts the
        caller and skips every check: it is for positions assembled from a real observation
        with guessed hidden cards (the AI's determinizations), which must name ``to_act`` and
        need not be reachable in every hidden detail.  The game has no :attr:`deal` and an
        empty history.
        """
        n = len(hands)
        if validate:
            _check_position(
                rules,
                hands,
                trump,
                leader,
                stock,
                discard,
                table,
                attacker,
                taking,
                passed,
                out,
                round,
                played_by,
                round_shown,
            )
        g = cls.__new__(cls)
        g.rules = rules
        g._deal = None
        g.n = n
        g.hands = list(hands)
        g.stock = list(reversed(stock))
        g.trump = trump
        g._beaters = beaters_table(trump)
        g.discard = discard
        g.public_held = public_held
        if out is None:
            out = 0
            if not stock:
                for seat, hand in enumerate(hands):
                    if not hand:
                        out |= 1 << seat
        g.out = out
        g._teams = teams = rules.teams != "none"
        g._skip = skip = 0 if teams else out
        g.played_by = _IDENTITY[n]
        if played_by is not None:
            g.played_by = tuple(played_by)
        elif teams:
            g._hand_over()
        g._round_shown = tuple(round_shown)
        g.losers = ()
        g._next = next_seat = _NEXT_ACTIVE[n]
        g._attackers_memo = _ATTACKERS_MEMO[rules.throw_in, n, rules.teams]
        g.round = round
        g.first_round = first_round
        g.history = []
        g._history_text = []
        g.finished = False
        g.loser = None
        g.draw = False
        g.leader = leader
        g.attacker = attacker = leader if attacker is None else attacker
        g.defender = defender = next_seat[skip << 3 | attacker]
        attacks: list[int] = []
        defences: list[int] = []
        table_mask = uncovered = addable = n_defences = 0
        for a, d in table:
            attacks.append(a)
            table_mask |= 1 << a
            addable |= RANK_MASK[RANK_OF[a]]
            if d is None or d < 0:
                defences.append(-1)
                uncovered |= 1 << a
            else:
                defences.append(d)
                n_defences += 1
                table_mask |= 1 << d
                addable |= RANK_MASK[RANK_OF[d]]
        g.table_attacks = attacks
        g.table_defences = defences
        g._table = table_mask
        g._uncovered = uncovered
        g._addable = addable
        g._covered_any = n_defences > 0
        g.taking = taking
        g._passed = passed
        cap = rules.first_round_limit if first_round else 6
        size = hands[g.played_by[defender]].bit_count() + n_defences
        g.limit = cap if cap < size else size
        g._set_attackers()
        if validate:
            if len(attacks) > g.limit:
                raise InvalidPositionError(
                    f"{len(attacks)} attacks on the table exceed the limit, {g.limit}"
                )
            stray = passed & ~sum(1 << s for s in g._attackers)
            if stray:
                raise InvalidPositionError(
                    f"seat {stray.bit_length() - 1} has passed but is not an attacker"
                )
        g._legal = None
        rule_to_act = g._rule_to_act()
        if to_act is None:
            if rule_to_act is None:
                raise InvalidPositionError(
                    "nobody can act in this position: no attacker who has not passed holds a "
                    "card to add, so the round is over"
                )
            to_act = rule_to_act
        elif validate and to_act != rule_to_act:
            raise InvalidPositionError(
                f"to_act {to_act!r} is not the seat the rules give the turn to ({rule_to_act})"
            )
        g.to_act = to_act
        return g

    def _rule_to_act(self) -> int | None:
        """The seat to act by RULES.md §6.2 (``None``: the round would be closed)."""
        phase = self.phase
        if phase is _LEAD:
            return self.leader
        if phase is _DEFEND_PHASE:
            return self.defender
        if len(self.table_attacks) < self.limit:
            for seat in self._attackers:
                if not self._passed >> seat & 1 and self.seat_hand(seat) & self._addable:
                    return seat
        return None

    # ------------------------------------------------------------------ copying
    def clone(self, *, keep_history: bool = True) -> Game:
        """An independent copy (cheap: a few list copies).  Search code that never reads the
        log passes ``keep_history=False`` and gets an empty history."""
        g = Game.__new__(Game)
        # Immutable values (ints, tuples, shared tables) are shared; spelled out because a
        # getattr/setattr loop costs twice as much and search clones constantly.
        g._addable = self._addable
        g._attackers = self._attackers
        g._attackers_memo = self._attackers_memo
        g._beaters = self._beaters
        g._covered_any = self._covered_any
        g._legal = self._legal
        g._next = self._next
        g._passed = self._passed
        g._round_shown = self._round_shown
        g._skip = self._skip
        g._table = self._table
        g._teams = self._teams
        g._uncovered = self._uncovered
        g.attacker = self.attacker
        g._deal = self._deal
        g.defender = self.defender
        g.discard = self.discard
        g.draw = self.draw
        g.finished = self.finished
        g.first_round = self.first_round
        g.leader = self.leader
        g.limit = self.limit
        g.loser = self.loser
        g.losers = self.losers
        g.n = self.n
        g.out = self.out
        g.played_by = self.played_by
        g.public_held = self.public_held
        g.round = self.round
        g.rules = self.rules
        g.taking = self.taking
        g.to_act = self.to_act
        g.trump = self.trump
        g.hands = self.hands[:]
        g.stock = self.stock[:]
        g.table_attacks = self.table_attacks[:]
        g.table_defences = self.table_defences[:]
        if keep_history:
            g.history = self.history[:]
            g._history_text = self._history_text[:]
        else:
            g.history = []
            g._history_text = []
        return g

    # ------------------------------------------------------------------ round structure
    @property
    def cap(self) -> int:
        """The cap on attacks this round (RULES.md §5)."""
        return self.rules.first_round_limit if self.first_round else 6

    @property
    def version(self) -> int:
        """The number of actions applied so far; it identifies a state within one game."""
        return len(self.history)

    @property
    def trump_card(self) -> int | None:
        """The face-up trump card while it is still under the stock."""
        return self.stock[0] if self.stock else None

    def next_active(self, seat: int) -> int:
        """The next seat clockwise after ``seat`` that is not out (in a team game simply the
        next seat: no seat is skipped)."""
        return self._next[self._skip << 3 | seat]

    def previous_active(self, seat: int) -> int:
        """The previous seat clockwise before ``seat`` that is not out (see :meth:`next_active`)."""
        n, out = self.n, self._skip
        s = (seat - 1) % n
        while out >> s & 1:
            s = (s - 1) % n
        return s

    def seat_hand(self, seat: int) -> int:
        """The cards ``seat`` plays from: the hand of its player, ``played_by[seat]``."""
        return self.hands[self.played_by[seat]]

    @property
    def player_to_act(self) -> int | None:
        """The player who acts now: ``played_by[to_act]`` (``None`` when the game is over)."""
        to_act = self.to_act
        return None if to_act is None else self.played_by[to_act]

    @property
    def round_shown(self) -> tuple[int, ...]:
        """The cards shown this round by ``show`` (RULES.md §10.2), in order."""
        return self._round_shown

    def _hand_over(self) -> None:
        """Team games: every seat whose player is out passes to that player's first partner
        clockwise (two seats on, then four) who still holds cards (RULES.md §10.3).  A team
        with no such partner keeps its seats as they are: the game is then over."""
        out, n = self.out, self.n
        played_by = list(self.played_by)
        for seat in range(n):
            player = played_by[seat]
            if out >> player & 1:
                for step in range(2, n, 2):
                    partner = (player + step) % n
                    if not out >> partner & 1:
                        played_by[seat] = partner
                        break
        self.played_by = tuple(played_by)

    def _start_round(self, leader: int) -> None:
        self.leader = leader
        self.attacker = leader
        out_key = self._skip << 3
        self.defender = d = self._next[out_key | leader]
        self.table_attacks = []
        self.table_defences = []
        self._table = 0
        self._uncovered = 0
        self._addable = 0
        self._covered_any = False
        self.taking = False
        self._passed = 0
        self._round_shown = ()
        cap = self.rules.first_round_limit if self.first_round else 6
        size = self.hands[self.played_by[d]].bit_count()
        self.limit = cap if cap < size else size
        key = out_key << 3 | leader << 3 | d
        attackers = self._attackers_memo.get(key)
        if attackers is None:
            attackers = self._attackers_memo[key] = self._compute_attackers()
        self._attackers = attackers
        # The leader always holds a card and the limit is at least 1: the leader acts.
        self.to_act = leader
        self._legal = None

    def _set_attackers(self) -> None:
        """Attackers in priority order (RULES.md §6): who may add, and who adds first."""
        key = self._skip << 6 | self.attacker << 3 | self.defender
        attackers = self._attackers_memo.get(key)
        if attackers is None:
            attackers = self._attackers_memo[key] = self._compute_attackers()
        self._attackers = attackers

    def _compute_attackers(self) -> tuple[int, ...]:
        d = self.defender
        if self._teams:
            # RULES.md §10.3: the defender's opponents, the odd distances from the defender;
            # the current attacker (the leader, at d - 1) first, then clockwise.
            n = self.n
            if self.rules.throw_in == "neighbours":
                return ((d - 1) % n, (d + 1) % n)
            return tuple(s for s in ((self.attacker + i) % n for i in range(n)) if (s - d) % 2)
        if self.rules.throw_in == "neighbours":
            prev = self.previous_active(d)
            nxt = self.next_active(d)
            return (prev,) if nxt == prev else (prev, nxt)
        order = []
        s = self.attacker
        while True:
            if s != d and not self._skip >> s & 1:
                order.append(s)
            s = (s + 1) % self.n
            if s == self.attacker:
                break
        return tuple(order)

    @property
    def attackers(self) -> tuple[int, ...]:
        """The seats allowed to add attacks this round, in priority order."""
        return self._attackers

    def _can_add(self, seat: int) -> bool:
        """Whether ``seat`` holds a legal addition now (the opening belongs to the leader)."""
        n_att = len(self.table_attacks)
        if n_att >= self.limit:
            return False
        return bool(self.seat_hand(seat) & (self._addable if n_att else ALL_CARDS_MASK))

    def _close_round(self) -> None:
        """Clear the table, draw, mark players out, and start the next round (RULES.md §7,
        §10.3)."""
        table = self._table
        d = self.defender
        took = self.taking
        hands = self.hands
        if took:
            hands[self.played_by[d]] |= table  # the defending seat's player takes
            self.public_held |= table
        else:
            self.discard |= table
        stock = self.stock
        if stock:
            # Draw up to six: the leader first, the final defender last (RULES.md §7.2).
            # Nobody is out while the stock lasts.
            for seat in _DRAW_ORDER[self.n][self.leader << 3 | d]:
                hand = hands[seat]
                need = HAND_SIZE - hand.bit_count()
                while need > 0:
                    c = stock.pop()
                    hand |= 1 << c
                    need -= 1
                    if not stock:  # the face-up trump card: everyone saw who took it
                        self.public_held |= 1 << c
                        break
                hands[seat] = hand
                if not stock:
                    break
        if not stock and 0 in hands:
            out = self.out
            for seat in range(self.n):
                if not hands[seat]:
                    out |= 1 << seat
            self.out = out
            if self._teams:
                if self._team_game_over():
                    return
                self._hand_over()
            else:
                self._skip = out
                if self.n - out.bit_count() <= 1:
                    active = [s for s in range(self.n) if not out >> s & 1]
                    self._finish(tuple(active))
                    return
        self.round += 1
        self.first_round = False
        skip = self._skip
        if took or skip >> d & 1:
            self._start_round(self._next[skip << 3 | d])
        else:
            self._start_round(d)

    def _team_game_over(self) -> bool:
        """RULES.md §10.3: once every player of a team is out, the other team loses together;
        both teams at once: a draw.  Finishes the game and says whether it ended."""
        out, n = self.out, self.n
        evens = _TEAM_MASK[n][0]
        odds = _TEAM_MASK[n][1]
        evens_out = out & evens == evens
        odds_out = out & odds == odds
        if evens_out and odds_out:
            self._finish((), team=True)
        elif evens_out:
            self._finish(tuple(range(1, n, 2)), team=True)
        elif odds_out:
            self._finish(tuple(range(0, n, 2)), team=True)
        else:
            return False
        return True

    def _finish(self, losers: tuple[int, ...], *, team: bool = False) -> None:
        """End the game with ``losers``: the durak alone in an individual game, the losing
        team's seats in a team game; none for a draw."""
        self.finished = True
        self.losers = losers
        self.loser = losers[0] if losers and not team else None
        self.draw = not losers
        self._round_shown = ()
        self.to_act = None
        self.table_attacks = []
        self.table_defences = []
        self._table = 0
        self._uncovered = 0
        self.taking = False
        self._legal = None

    # ------------------------------------------------------------------ legal actions
    def legal_codes(self) -> tuple[int, ...]:
        """Codes of every legal action of the seat to act, each distinct card set once.

        Cached until the next action.
        """
        cached = self._legal
        if cached is not None:
            return cached
        seat = self.to_act
        if seat is None:
            self._legal = ()
            return ()
        hand = self.hands[seat]
        if not hand:  # a team seat handed over: its own player is out, a partner plays it
            hand = self.hands[self.played_by[seat]]
        n_att = len(self.table_attacks)
        if seat == self.defender:  # the defender acts only in Phase.DEFEND (see Game.phase)
            beaters = self._beaters
            memo = _DEFEND_MEMO
            u = self._uncovered
            legal: tuple[int, ...] = ()
            while u:
                low = u & -u
                a = low.bit_length() - 1
                u ^= low
                ds = hand & beaters[a]
                if ds:
                    legal += (
                        memo[(ds & _CHUNK) << 6 | a]
                        + memo[(ds & _CHUNK1) << 6 | a]
                        + memo[(ds & _CHUNK2) << 6 | a]
                    )
            if self.rules.transfer and not self._covered_any:
                cands = hand & RANK_MASK[RANK_OF[self.table_attacks[0]]]
                if cands:
                    target = self.next_active(seat)
                    room = min(self.cap, self.hands[target].bit_count()) - n_att
                    if room > 0:
                        legal += _TRANSFER_SUBSETS[cands][room if room < 4 else 4]
                    if room >= 0 and self.rules.show_trump:
                        # RULES.md §10.2: the trump of the attacked rank, not yet shown
                        shown = cands & SUIT_MASK[self.trump]
                        if shown and shown.bit_length() - 1 not in self._round_shown:
                            legal += (SHOW | shown << 3,)
            legal += _TAKE_ONLY
        else:
            room = self.limit - n_att
            room = room if room < 4 else 4
            amemo = _ATTACK_MEMO
            if n_att:
                # Additions: few candidate cards, so one memo keyed by all of them.
                key = (hand & self._addable) << 3 | room
                legal = _ADD_MEMO.get(key)  # type: ignore[assignment]
                if legal is None:
                    legal = _ADD_MEMO.add(key)
            else:
                legal = (
                    amemo[(hand & _CHUNK) << 3 | room]
                    + amemo[(hand & _CHUNK1) << 3 | room]
                    + amemo[(hand & _CHUNK2) << 3 | room]
                )
        self._legal = legal
        return legal

    def legal_actions(self) -> LegalActions:
        """A lazy sequence view of the legal actions with a fast ``in`` check."""
        return LegalActions(self)

    def is_legal_code(self, seat: int, code: int) -> bool:
        if seat != self.to_act:
            return False
        return code in self.legal_codes()

    # ------------------------------------------------------------------ the rule book
    def explain(self, action: Action) -> Message | None:
        """Why ``action`` is illegal now, as a message for players; ``None`` when it is legal."""
        seat = action.seat
        if self.finished:
            return Message("the game is over")
        if not 0 <= seat < self.n:
            return Message(
                "{number} is not a seat of this game (seats 0–{last})",
                number=seat,
                last=self.n - 1,
            )
        if self._skip >> seat & 1:
            return Message("{player} is out of this game", player=Seat(seat))
        turn = self._turn_reason(seat)
        if turn:
            return turn
        kind = action.kind
        phase = self.phase
        if phase is _DEFEND_PHASE:  # the seat to act, ``seat``, is the defender
            if kind is ActionKind.DEFEND:
                return self._defend_reason(action)
            if kind is ActionKind.TRANSFER:
                return self._transfer_reason(action)
            if kind is ActionKind.SHOW:
                return self._show_reason(action)
            if kind is ActionKind.TAKE:
                return None
            if self.rules.transfer and not self._covered_any:
                return Message("you are defending: beat an attack, take the cards, or transfer")
            return Message("you are defending: beat an attack or take the cards")
        if kind is ActionKind.ATTACK:
            return self._attack_reason(action)
        if kind is ActionKind.PASS:
            if phase is _LEAD:
                return Message("the round has just begun: the leader must open it with a card")
            return None
        if kind is ActionKind.TAKE and self.taking and seat == self.defender:
            return Message("you have already declared a take")
        return Message(
            "only the defender, {defender}, can {action}",
            defender=Seat(self.defender),
            action=kind,
        )

    def _turn_reason(self, seat: int) -> Message | None:
        to_act = self.to_act
        if seat == to_act:
            return None
        assert to_act is not None  # the game is not over
        played_by = self.played_by
        if played_by[to_act] == played_by[seat]:
            # a team player holding two seats wrote the move for the wrong one (RULES.md §10.3)
            return Message(
                "it is {seat}'s turn, played by {player}: the move is made as {seat}",
                seat=Seat(to_act),
                player=Seat(played_by[to_act]),
            )
        phase = self.phase
        if phase is _DEFEND_PHASE:
            return Message(
                "{defender} is defending: cards are added once everything is covered "
                "or a take is declared",
                defender=Seat(to_act),
            )
        if phase is _LEAD:
            return Message("{leader} leads this round", leader=Seat(to_act))
        if seat == self.defender:
            if phase is _TAKING:
                return Message(
                    "you have declared a take: the attackers may add cards before you pick up"
                )
            return Message(
                "everything is covered: {attacker} may add cards or pass", attacker=Seat(to_act)
            )
        if seat not in self._attackers:
            if self._teams and not (seat - self.defender) % 2:
                return Message(
                    "{player} is the defender's partner: only the defender's opponents add cards",
                    player=Seat(seat),
                )
            return Message(
                "{player} is not a neighbour of the defender: only the neighbours add cards",
                player=Seat(seat),
            )
        if self._passed >> seat & 1:
            return Message(
                "{player} has passed: you may add again after the defender's next move",
                player=Seat(seat),
            )
        if not self._can_add(seat):
            if len(self.table_attacks) >= self.limit:
                return Message("the limit is {limit} attacks this round", limit=self.limit)
            return Message("you hold no card of a rank on the table")
        return Message(
            "{first} adds first: {player} may add after {first} passes",
            first=Seat(to_act),
            player=Seat(seat),
        )

    def _missing_card(self, seat: int, cards: Sequence[Card]) -> Message | None:
        hand = self.seat_hand(seat)
        pack = PACK_MASK[self.rules.deck]
        for card in cards:
            if not pack >> card.index & 1:
                return Message(
                    "there is no {card} in a {deck}-card pack", card=card, deck=self.rules.deck
                )
        for card in cards:
            idx = card.index
            if not hand >> idx & 1:
                if self._on_table(idx):
                    return Message("{card} is on the table", card=card)
                return Message("{card} is not in your hand", card=card)
        return None

    def _on_table(self, idx: int) -> bool:
        return idx in self.table_attacks or idx in self.table_defences

    def _attack_reason(self, action: Action) -> Message | None:
        missing = self._missing_card(action.seat, action.cards)
        if missing:
            return missing
        ranks = {RANK_OF[c.index] for c in action.cards}
        if len(ranks) > 1:
            return Message("cards played together must all be of one rank")
        rank = ranks.pop()
        n_att = len(self.table_attacks)
        if n_att and not self._addable & RANK_MASK[rank]:
            listed = ", ".join(
                RANK_SYMBOLS[r] for r in RANKS_ASCENDING if self._addable & RANK_MASK[r]
            )
            return Message(
                "no {rank} on the table: you may add only ranks already there ({ranks})",
                rank=RANK_SYMBOLS[rank],
                ranks=listed,
            )
        if n_att + len(action.cards) > self.limit:
            left = self.limit - n_att
            if n_att:
                return Message(
                    "the limit is {limit} attacks this round: {left} more at most",
                    limit=self.limit,
                    left=left,
                )
            return Message("the limit is {limit} attacks this round", limit=self.limit)
        return None

    def _defend_reason(self, action: Action) -> Message | None:
        attack, defence = action.cards
        a, d = attack.index, defence.index
        if a not in self.table_attacks:
            return Message("{card} is not an attack on the table", card=attack)
        if not self._uncovered >> a & 1:
            beaten_by = self.table_defences[self.table_attacks.index(a)]
            return Message(
                "{attack} is already covered by {defence}",
                attack=attack,
                defence=ALL_CARDS[beaten_by],
            )
        missing = self._missing_card(action.seat, (defence,))
        if missing:
            return missing
        if self._beaters[a] >> d & 1:
            return None
        trump = self.trump
        if SUIT_OF[a] == trump:
            return Message(
                "{card} does not beat {attack}: a trump is beaten only by a higher trump",
                card=defence,
                attack=attack,
            )
        if SUIT_OF[d] == SUIT_OF[a]:
            return Message(
                "{card} does not beat {attack}: it must be a higher {suit}",
                card=defence,
                attack=attack,
                suit=SUIT_SYMBOLS[SUIT_OF[a]],
            )
        return Message(
            "{card} does not beat {attack}: it takes a higher {suit} or a trump ({trump})",
            card=defence,
            attack=attack,
            suit=SUIT_SYMBOLS[SUIT_OF[a]],
            trump=SUIT_SYMBOLS[trump],
        )

    def _pass_on_open_reason(
        self, action: Action, allowed: bool, reasons: _PassOnReasons
    ) -> Message | None:
        """Why the defender may not pass the attack on by ``action`` (a transfer or a show)
        whatever its cards: the rules forbid it, a defence was made this round, or a card is
        not in the hand."""
        if not allowed:
            return reasons.forbidden
        if self._covered_any:
            return reasons.late
        return self._missing_card(action.seat, action.cards)

    def _transfer_reason(self, action: Action) -> Message | None:
        opening = self._pass_on_open_reason(action, self.rules.transfer, _TRANSFER)
        if opening:
            return opening
        rank = RANK_OF[self.table_attacks[0]]
        for card in action.cards:
            if RANK_OF[card.index] != rank:
                return Message(
                    "a transfer must use the attacked rank, {rank}", rank=RANK_SYMBOLS[rank]
                )
        total = len(self.table_attacks) + len(action.cards)
        if total > self.cap:
            return Message("the limit is {limit} attacks this round", limit=self.cap)
        return self._pass_on_reason(action.seat, total, _TRANSFER.too_many)

    def _show_reason(self, action: Action) -> Message | None:
        """Why the defender may not show this card now (RULES.md §10.2)."""
        opening = self._pass_on_open_reason(action, self.rules.show_trump, _SHOW)
        if opening:
            return opening
        card = action.cards[0]
        rank = RANK_OF[self.table_attacks[0]]
        if SUIT_OF[card.index] != self.trump:
            return Message(
                "{card} is not a trump: only the trump of the attacked rank, {rank}, can be shown",
                card=card,
                rank=RANK_SYMBOLS[rank],
            )
        if RANK_OF[card.index] != rank:
            return Message(
                "only the trump of the attacked rank, {rank}, can be shown", rank=RANK_SYMBOLS[rank]
            )
        if card.index in self._round_shown:
            return Message("{card} has already been shown this round", card=card)
        return self._pass_on_reason(action.seat, len(self.table_attacks), _SHOW.too_many)

    def _pass_on_reason(self, seat: int, total: int, keys: tuple[str, str]) -> Message | None:
        """Why ``seat`` may not pass ``total`` attacks on to the next player (a transfer or a
        show): that player holds fewer cards.  ``keys``: the reason for one card, and for more."""
        target = self.next_active(seat)
        size = self.seat_hand(target).bit_count()
        if total <= size:
            return None
        one, many = keys
        if size == 1:
            return Message(one, player=Seat(target), total=total)
        return Message(many, player=Seat(target), n=size, total=total)

    def can_apply(self, action: Action) -> bool:
        """Whether ``action`` is legal now (the fast check; :meth:`explain` says why not)."""
        return self.is_legal_code(action.seat, action.code)

    def _refuse_illegal(self, action: Action) -> None:
        """Raise :class:`IllegalActionError` (carrying the reason as ``.reason``) unless
        ``action`` is legal now."""
        if not self.is_legal_code(action.seat, action.code):
            reason = self.explain(action) or Message("that action is not legal now")
            raise IllegalActionError(reason, action)

    def push(self, action: Action) -> None:
        """Apply a checked action without a record of what it did, for replaying a stored log
        (a snapshot's) where nobody reads one; an illegal action raises as :meth:`apply`."""
        self._refuse_illegal(action)
        self.apply_code(action.code)

    def apply(self, action: Action) -> Played:
        """Apply a checked action and return what it did (:class:`Played`); an illegal one
        raises :class:`IllegalActionError` (carrying the reason as ``.reason``) and changes
        nothing.  (:meth:`push` is the same without the record, :meth:`apply_code` without
        the check either.)"""
        self._refuse_illegal(action)
        seat, code, kind = action.seat, action.code, action.kind
        round_number, defender, out, taking = self.round, self.defender, self.out, self.taking
        # The table's lists: the action is played into them, and a round's end leaves them
        # as they were and starts new ones (``_start_round``, ``_finish``), so after the
        # action they hold the table as the round ended.
        attacks, defences = self.table_attacks, self.table_defences
        attack = kind is ActionKind.ATTACK
        opening = attack and not attacks
        self.apply_code(code)
        round_end = None
        if self.round != round_number or self.finished:
            took = taking or kind is ActionKind.TAKE
            round_end = RoundEnd(
                round_number,
                defender if took else None,
                tuple(
                    (ALL_CARDS[a], ALL_CARDS[d] if d >= 0 else None)
                    for a, d in zip(attacks, defences, strict=True)
                ),
            )
        gone = self.out & ~out
        return Played(
            seat,
            kind,
            action.cards,
            action.uses,
            opening,
            attack and taking,
            defender
            if attack
            else self.defender
            if kind is ActionKind.TRANSFER or kind is ActionKind.SHOW
            else None,
            round_end,
            tuple(iter_bits(gone)) if gone else (),
            self.finished,
            self.loser,
            self.losers,
        )

    # ------------------------------------------------------------------ applying
    def apply_code(self, code: int) -> None:
        """Apply a legal action code for the seat to act.  Unchecked: callers guarantee legality
        (it came from :meth:`legal_codes`)."""
        seat = self.to_act
        assert seat is not None
        self.history.append(code << 3 | seat)
        self._legal = None
        kind = code & 7
        if kind == DEFEND:
            payload = code >> 3
            a = payload & 63
            d = payload >> 6
            self.hands[self.played_by[seat]] &= ~(1 << d)
            self.table_defences[self.table_attacks.index(a)] = d
            self._table |= 1 << d
            self._addable |= RANK_MASK[RANK_OF[d]]
            self._covered_any = True
            self._passed = 0
            self._uncovered &= ~(1 << a)
            if self._uncovered:  # the defender keeps the turn (RULES.md §6.2 rule 2)
                return
        elif kind == ATTACK or kind == TRANSFER:  # noqa: SIM109 (no tuple build: hot path)
            mask = code >> 3
            self.hands[self.played_by[seat]] &= ~mask
            self._uncovered |= mask
            self._table |= mask
            attacks = self.table_attacks
            if not attacks:  # the opening fixes the first rank; later cards match the table
                self._addable = RANK_MASK[RANK_OF[(mask & -mask).bit_length() - 1]]
            if mask & (mask - 1):
                defences = self.table_defences
                while mask:
                    low = mask & -mask
                    mask ^= low
                    attacks.append(low.bit_length() - 1)
                    defences.append(-1)
            else:
                attacks.append(mask.bit_length() - 1)
                self.table_defences.append(-1)
            if kind == TRANSFER:
                self._pass_attack_on(seat)
                return
            if not self.taking:
                self.to_act = self.defender
                return
        elif kind == TAKE:
            self.taking = True
            self._passed = 0
        elif kind == SHOW:
            self._show(seat, code >> 3)
            return
        else:
            self._passed |= 1 << seat
        # Everything is covered or a take is declared: the first attacker in priority order
        # who has not passed and holds a legal addition acts (RULES.md §6.2 rule 3).
        if len(self.table_attacks) < self.limit:
            passed = self._passed
            addable = self._addable
            # the hand each seat plays from (in a team game a seat may be a partner's)
            hands = self._seat_hands() if self._teams else self.hands
            for seat in self._attackers:
                if not passed >> seat & 1 and hands[seat] & addable:
                    self.to_act = seat
                    return
        self._close_round()

    def _seat_hands(self) -> list[int]:
        """The hand each seat plays from: ``seat_hand`` of every seat."""
        hands = self.hands
        return [hands[p] for p in self.played_by]

    def _show(self, seat: int, mask: int) -> None:
        """RULES.md §10.2: a transfer that adds no card; the shown card stays in the hand and
        is public from now on."""
        self._round_shown += (mask.bit_length() - 1,)
        self.public_held |= mask
        self._pass_attack_on(seat)

    def _pass_attack_on(self, seat: int) -> None:
        """The defender ``seat`` passed the attack on (a transfer or a show): it attacks now,
        and the next player defends and acts."""
        self.attacker = seat
        self.defender = d = self._next[self._skip << 3 | seat]
        cap = self.cap
        size = self.hands[d].bit_count()
        self.limit = cap if cap < size else size
        self._passed = 0
        self._set_attackers()
        self.to_act = d

    # ------------------------------------------------------------------ views
    def hand(self, seat: int) -> list[str]:
        """Player ``seat``'s own hand as card texts, in canonical order."""
        return mask_text(self.hands[seat])

    def role(self, seat: int) -> str | None:
        """``seat``'s part in the current round: ``out``, ``defender``, ``leader`` (opened the
        round), ``attacker`` (the current attacker after a transfer), or ``None``.  In a team
        game a seat is never ``out``: when its player is out a partner plays it
        (:attr:`played_by`)."""
        if self._skip >> seat & 1:
            return "out"
        if self.finished:
            return None
        if seat == self.defender:
            return "defender"
        if seat == self.leader:
            return "leader"
        if seat == self.attacker:
            return "attacker"
        return None

    def known_cards(self, seat: int) -> int:
        """Cards of player ``seat``'s own hand that everyone has seen (bitmask)."""
        return self.public_held & self.hands[seat]

    def table(self) -> list[tuple[str, str | None]]:
        return [
            (CARD_TEXT[a], CARD_TEXT[d] if d >= 0 else None)
            for a, d in zip(self.table_attacks, self.table_defences, strict=True)
        ]

    # ------------------------------------------------------------------ public read-only state
    @property
    def phase(self) -> Phase:
        """The phase of the round (RULES.md §6.2): who acts, and what they may do.

        Computed by :meth:`Phase.of`, the one statement of the rule.  The seat to act is the
        defender exactly in :attr:`Phase.DEFEND` (the state machine gives the defender the turn
        then and only then; the property tests check it), which :meth:`legal_codes` uses as
        its cheap test."""
        return Phase.of(
            finished=self.finished,
            attacks=len(self.table_attacks),
            uncovered=self._uncovered,
            taking=self.taking,
        )

    @property
    def deal(self) -> Deal:
        """The deal this game started from; a game built by :meth:`from_position` has none
        and raises :class:`InvalidPositionError` (so it cannot be snapshotted or replayed)."""
        deal = self._deal
        if deal is None:
            raise InvalidPositionError("a game built from a position has no deal")
        return deal

    @property
    def shown(self) -> tuple[int, ...]:
        """Cards shown to everyone at the deal (empty for a game built from a position)."""
        return self._deal.shown if self._deal is not None else ()

    @property
    def uncovered(self) -> int:
        """Bitmask of the attack cards on the table that are not covered."""
        return self._uncovered

    @property
    def passed(self) -> int:
        """Bitmask of attackers who passed since the last defend, transfer or take."""
        return self._passed

    @property
    def table_mask(self) -> int:
        """Bitmask of every card on the table (attacks and defences)."""
        return self._table

    @property
    def addable(self) -> int:
        """Bitmask of every card of a rank on the table this round: the cards an attacker may
        add (RULES.md §6.1); 0 before the opening attack."""
        return self._addable

    @property
    def covered_any(self) -> bool:
        """Whether some attack has been beaten this round (no transfer after that, §6.4)."""
        return self._covered_any

    @property
    def beaters(self) -> tuple[int, ...]:
        """For each card index, the bitmask of the cards that beat it under this trump."""
        return self._beaters

    @property
    def stock_size(self) -> int:
        """The number of cards left in the stock (the face-up trump card included)."""
        return len(self.stock)

    @property
    def active_players(self) -> int:
        """The number of players not out (in a team game, players who still hold cards or
        have not been checked out yet; every seat still plays)."""
        return self.n - self.out.bit_count()

    def history_text(self) -> list[str]:
        """Every action so far as ``"SEAT ACTION"`` text (a new list; texts are cached)."""
        cache = self._history_text
        history = self.history
        if len(cache) < len(history):
            cache.extend(code_text(h & 7, h >> 3) for h in history[len(cache) :])
        return cache[:]

    def log(self) -> list[Action]:
        """Every action so far as frozen records."""
        return [Action.from_code(h & 7, h >> 3) for h in self.history]

    def state_dict(self) -> dict[str, object]:
        """The state in the trace shape of SCENARIOS.md."""
        fin = self.finished
        return {
            "round": self.round,
            "first_round": self.first_round,
            "trump": SUIT_SYMBOLS[self.trump],
            "trump_card": CARD_TEXT[self.stock[0]] if self.stock else None,
            "stock": len(self.stock),
            "discard": mask_text(self.discard),
            "hands": [mask_text(h) for h in self.hands],
            "out": [s for s in range(self.n) if self.out >> s & 1],
            "leader": None if fin else self.leader,
            "attacker": None if fin else self.attacker,
            "defender": None if fin else self.defender,
            "limit": None if fin else self.limit,
            "table": [] if fin else [list(p) for p in self.table()],
            "taking": False if fin else self.taking,
            "to_act": self.to_act,
            "finished": fin,
            "loser": self.loser,
            "draw": self.draw,
            "played_by": list(self.played_by),
            "shown": [CARD_TEXT[c] for c in self._round_shown],
            "losers": list(self.losers),
        }

    def legal_text(self) -> list[str]:
        seat = self.to_act
        if seat is None:
            return []
        return [code_text(seat, c) for c in self.legal_codes()]


def _check_position(
    rules: Rules,
    hands: Sequence[int],
    trump: int,
    leader: int,
    stock: Sequence[int],
    discard: int,
    table: Sequence[tuple[int, int | None]],
    attacker: int | None,
    taking: bool,
    passed: int,
    out: int | None,
    round_number: int,
    played_by: Sequence[int] | None,
    round_shown: Sequence[int],
) -> None:
    """Raise :class:`InvalidPositionError` (quoting the input) unless the arguments of
    :meth:`Game.from_position` describe a position the rules allow (and
    :class:`~rules_engine.errors.InvalidRulesError` if the rules do not suit the seats)."""
    n = len(hands)
    if not 2 <= n <= 6:
        raise InvalidPositionError(f"a game has 2 to 6 seats, not {n}")
    rules.check_players(n)
    if not isinstance(trump, int) or not 0 <= trump < 4:
        raise InvalidPositionError(f"bad trump suit {trump!r}: a suit is 0..3")
    seen: dict[int, str] = {}
    pack = PACK_MASK[rules.deck]

    def place(card: object, where: str) -> None:
        if not isinstance(card, int) or isinstance(card, bool) or not 0 <= card < N_CARDS:
            raise InvalidPositionError(f"bad card index {card!r} ({where})")
        if not pack >> card & 1:
            raise InvalidPositionError(
                f"card {CARD_TEXT[card]} ({where}) is not in the {rules.deck}-card pack"
            )
        if card in seen:
            raise InvalidPositionError(
                f"card {CARD_TEXT[card]} appears twice ({seen[card]} and {where})"
            )
        seen[card] = where

    for seat, hand in enumerate(hands):
        if not isinstance(hand, int) or not 0 <= hand <= ALL_CARDS_MASK:
            raise InvalidPositionError(f"bad card mask {hand!r} for seat {seat}")
        for card in iter_bits(hand):
            place(card, f"hands[{seat}]")
    for card in stock:
        place(card, "stock")
    if not 0 <= discard <= ALL_CARDS_MASK:
        raise InvalidPositionError(f"bad discard mask {discard!r}")
    for card in iter_bits(discard):
        place(card, "discard")
    for i, pair in enumerate(table):
        attack, defence = pair
        place(attack, f"table[{i}] attack")
        if defence is not None:
            place(defence, f"table[{i}] defence")
            if not beaters_table(trump)[attack] >> defence & 1:
                raise InvalidPositionError(
                    f"table[{i}]: {CARD_TEXT[defence]} does not beat {CARD_TEXT[attack]}"
                )
    if stock and SUIT_OF[stock[-1]] != trump:
        raise InvalidPositionError(
            f"the trump {SUIT_SYMBOLS[trump]} must be the suit of the last stock card "
            f"{CARD_TEXT[stock[-1]]}"
        )
    if out is not None:
        if not 0 <= out < 1 << n:
            raise InvalidPositionError(f"bad out mask {out!r} for {n} seats")
        for seat in iter_bits(out):
            if hands[seat] or stock:
                raise InvalidPositionError(
                    f"seat {seat} is out but holds cards or the stock is not empty"
                )
        active = n - out.bit_count()
    else:
        active = n if stock else sum(1 for hand in hands if hand)
    out_mask = (
        out
        if out is not None
        else 0
        if stock
        else sum(1 << s for s, hand in enumerate(hands) if not hand)
    )
    teams = rules.teams != "none"
    if teams:
        _check_teams(hands, out_mask)
    elif active < 2:
        raise InvalidPositionError("at least two seats must be in the game")
    players = _check_played_by(played_by, n, out_mask) if teams else tuple(range(n))
    named: tuple[tuple[str, int | None], ...] = (("leader", leader), ("attacker", attacker))
    for name, who in named:
        if who is None:
            continue
        if not isinstance(who, int) or not 0 <= who < n:
            raise InvalidPositionError(f"{name} {who!r} is not a seat (0..{n - 1})")
        if out_mask >> who & 1 and not teams:
            raise InvalidPositionError(f"the {name}, seat {who}, is out of the game")
    for card in round_shown:
        if not rules.show_trump:
            raise InvalidPositionError("cards are shown this round, but these rules have no show")
        if not isinstance(card, int) or not 0 <= card < N_CARDS or SUIT_OF[card] != trump:
            raise InvalidPositionError(f"bad shown card {card!r}: a shown card is a trump")
        if not any(hand >> card & 1 for hand in hands) and card not in seen:
            raise InvalidPositionError(f"the shown card {CARD_TEXT[card]} is nowhere")
    if not table:
        if not hands[players[leader]]:
            raise InvalidPositionError(f"the leader, seat {leader}, holds no cards")
        if stock and not all(hands):
            empty = next(s for s, hand in enumerate(hands) if not hand)
            raise InvalidPositionError(
                f"seat {empty} holds no cards while the stock still has cards"
            )
        if taking or passed or (attacker is not None and attacker != leader):
            raise InvalidPositionError(
                "with an empty table nobody can have taken, passed or transferred"
            )
    if attacker is not None and attacker != leader and not rules.transfer:
        raise InvalidPositionError(
            f"attacker {attacker} differs from leader {leader}, but these rules have no transfers"
        )
    if taking and all(d is not None for _, d in table) and table:
        raise InvalidPositionError("a take is declared but every attack is covered")
    if not 0 <= passed < 1 << n:
        raise InvalidPositionError(f"bad passed mask {passed!r} for {n} seats")
    if not isinstance(round_number, int) or round_number < 1:
        raise InvalidPositionError(f"bad round number {round_number!r}")


def _check_teams(hands: Sequence[int], out: int) -> None:
    """A team game needs a player holding cards in each team (RULES.md §10.3)."""
    n = len(hands)
    for team in (0, 1):
        players = range(team, n, 2)
        if all(out >> p & 1 or not hands[p] for p in players):
            seats = ", ".join(str(p) for p in players)
            raise InvalidPositionError(
                f"in a team game each team needs a player holding cards: seats {seats} hold none"
            )


def _check_played_by(played_by: Sequence[int] | None, n: int, out: int) -> tuple[int, ...]:
    """The players of the seats of a team game: ``played_by`` checked, or derived from ``out``
    as the hand-over rule of RULES.md §10.3 gives them."""
    if played_by is None:
        derived = list(range(n))
        for seat in range(n):
            if out >> seat & 1:
                derived[seat] = next(
                    (seat + step) % n for step in range(2, n, 2) if not out >> (seat + step) % n & 1
                )
        return tuple(derived)
    if len(played_by) != n:
        raise InvalidPositionError(f"played_by {list(played_by)!r} must name a player per seat")
    for seat, player in enumerate(played_by):
        if not isinstance(player, int) or not 0 <= player < n or (player - seat) % 2:
            raise InvalidPositionError(
                f"played_by {list(played_by)!r}: seat {seat} must be played by a partner"
            )
        if out >> player & 1 or (player != seat and not out >> seat & 1):
            raise InvalidPositionError(
                f"played_by {list(played_by)!r}: seat {seat} is played by its own player until "
                "that player is out, then by a partner who is not"
            )
    return tuple(played_by)


class LegalActions(Sequence[Action]):
    """The legal actions of a game position: a lazy sequence with an O(1) ``in`` check."""

    __slots__ = ("_codes", "_game", "_seat")

    def __init__(self, game: Game) -> None:
        self._game = game
        self._codes = game.legal_codes()
        self._seat = game.to_act

    def __len__(self) -> int:
        return len(self._codes)

    @overload
    def __getitem__(self, index: int) -> Action: ...
    @overload
    def __getitem__(self, index: slice) -> list[Action]: ...
    def __getitem__(self, index: int | slice) -> Action | list[Action]:
        seat = self._seat
        assert seat is not None or not self._codes
        if isinstance(index, slice):
            return [Action.from_code(seat or 0, c) for c in self._codes[index]]
        return Action.from_code(seat or 0, self._codes[index])

    def __iter__(self) -> Iterator[Action]:
        seat = self._seat or 0
        return (Action.from_code(seat, c) for c in self._codes)

    def __contains__(self, action: object) -> bool:
        if not isinstance(action, Action):
            return False
        return self._game.is_legal_code(action.seat, action.code)

    def __repr__(self) -> str:
        return f"<LegalActions [{', '.join(str(a) for a in self)}]>"
