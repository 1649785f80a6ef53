"""An observation (SCENARIOS.md "The agent protocol") parsed into bitmasks and action codes.

Everything here is derived from the observation dict alone, so an AI built on it sees exactly
what its seat may know (RULES.md §8).  ``seat`` is the observing player; in a team game
(RULES.md §10.3) that player may act for another seat, ``to_act``, whose number the legal
actions carry, and ``played_by`` says who plays each seat.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from rules_engine.actions import ATTACK, DEFEND, PASS, TAKE, ActionKind, parse_action
from rules_engine.cards import card_index, parse_suit
from rules_engine.phase import Phase
from rules_engine.rules import Rules

__all__ = ["ParsedObservation", "card_mask", "parse_code"]

_KIND = {kind.value: kind.code for kind in ActionKind}


def card_mask(cards: object) -> int:
    mask = 0
    if isinstance(cards, list | tuple):
        for text in cards:
            mask |= 1 << card_index(str(text))
    return mask


def parse_code(text: str) -> tuple[int, int]:
    """``(seat, code)`` of an action text (fast path for the canonical form).  The texts of
    the actions met lately are remembered: every observation carries the game's whole
    history, so an agent would otherwise read each action again at every move."""
    if type(text) is str:
        return _parse_known(text)
    return _parse_code(text)


def _parse_code(text: str) -> tuple[int, int]:
    parts = text.split()
    seat = int(parts[0])
    kind = _KIND.get(parts[1])
    if kind is None:  # anything unusual: the full parser, which raises on bad text
        action = parse_action(text)
        return action.seat, action.code
    if kind == DEFEND:
        return seat, DEFEND | (card_index(parts[2]) | card_index(parts[3]) << 6) << 3
    if kind in (TAKE, PASS):
        return seat, kind
    mask = 0
    for c in parts[2:]:
        mask |= 1 << card_index(c)
    return seat, kind | mask << 3


#: :func:`_parse_code`, remembering the last texts read (a few thousand: the actions of the
#: games an AI worker plays at a time, and more).  A text that is refused is not remembered.
_parse_known = lru_cache(maxsize=4096)(_parse_code)


class ParsedObservation:
    """The observation of one seat, parsed: cards as bitmasks, actions as codes."""

    __slots__ = (
        "attacker",
        "defender",
        "discard",
        "finished",
        "first_round",
        "hand",
        "hand_sizes",
        "history",
        "known",
        "known_given",
        "leader",
        "legal",
        "legal_text",
        "limit",
        "losers",
        "n",
        "obs",
        "out",
        "played_by",
        "round",
        "round_shown",
        "rules",
        "seat",
        "shown",
        "stock",
        "table_attacks",
        "table_defences",
        "taking",
        "to_act",
        "trump",
        "trump_card",
    )

    def __init__(self, obs: Mapping[str, Any]) -> None:
        self.obs = obs
        self.seat: int = int(obs["seat"])
        self.rules = Rules.from_spec(dict(obs["rules"]))
        self.hand = card_mask(obs["hand"])
        self.hand_sizes: list[int] = [int(x) for x in obs["hand_sizes"]]
        self.n = len(self.hand_sizes)
        self.trump = int(parse_suit(str(obs["trump"])))
        tc = obs.get("trump_card")
        self.trump_card: int | None = None if tc is None else card_index(str(tc))
        self.stock = int(obs.get("stock") or 0)
        self.discard = card_mask(obs.get("discard") or [])
        self.table_attacks: list[int] = []
        self.table_defences: list[int] = []
        for pair in obs.get("table") or []:
            self.table_attacks.append(card_index(str(pair[0])))
            self.table_defences.append(-1 if pair[1] is None else card_index(str(pair[1])))
        out = 0
        for s in obs.get("out") or []:
            out |= 1 << int(s)
        self.out = out
        self.leader = _opt_int(obs.get("leader"))
        self.attacker = _opt_int(obs.get("attacker"))
        self.defender = _opt_int(obs.get("defender"))
        self.limit = int(obs.get("limit") or 0)
        self.taking = bool(obs.get("taking"))
        self.first_round = bool(obs.get("first_round"))
        self.finished = bool(obs.get("finished"))
        self.round = int(obs.get("round") or 0)
        self.shown = [card_index(str(c)) for c in obs.get("shown") or []]
        self.round_shown = [card_index(str(c)) for c in obs.get("round_shown") or []]
        played_by = obs.get("played_by")
        self.played_by: list[int] = (
            [int(s) for s in played_by]
            if isinstance(played_by, list) and len(played_by) == self.n
            else list(range(self.n))
        )
        self.losers: list[int] = [int(s) for s in obs.get("losers") or []]
        known = obs.get("known")
        self.known_given = isinstance(known, list) and len(known) == self.n
        self.known: list[int] = (
            [card_mask(k) for k in known]
            if isinstance(known, list) and self.known_given
            else [0] * self.n
        )
        self.history: list[tuple[int, int]] = [parse_code(t) for t in obs.get("history") or []]
        self.legal_text: list[str] = list(obs.get("legal") or [])
        self.legal: list[int] = [parse_code(t)[1] for t in self.legal_text]
        #: The seat this player acts for now: its own, or (team games) a partner's seat.
        to_act = obs.get("to_act")
        if self.legal_text:
            to_act = parse_code(self.legal_text[0])[0]
        self.to_act: int | None = None if to_act is None else int(to_act)

    @property
    def table_mask(self) -> int:
        """The cards on the table, attacks and defences."""
        covering = [d for d in self.table_defences if d >= 0]
        return sum(1 << c for c in (*self.table_attacks, *covering))

    def table_pairs(self) -> list[tuple[int, int | None]]:
        """The table as ``(attack, defence)`` pairs, ``defence`` ``None`` while uncovered."""
        return [
            (a, d if d >= 0 else None)
            for a, d in zip(self.table_attacks, self.table_defences, strict=True)
        ]

    @property
    def uncovered(self) -> int:
        m = 0
        for a, d in zip(self.table_attacks, self.table_defences, strict=True):
            if d < 0:
                m |= 1 << a
        return m

    @property
    def phase(self) -> Phase:
        """The phase of the round, by the one rule (:meth:`Phase.of`) from the observation."""
        return Phase.of(
            finished=self.finished,
            attacks=len(self.table_attacks),
            uncovered=self.uncovered,
            taking=self.taking,
        )

    def seen_mask(self) -> int:
        """Cards whose place this seat knows: own hand, discard, table, the face-up trump card
        and every card known to be in some hand."""
        m = self.hand | self.discard | self.table_mask
        if self.trump_card is not None:
            m |= 1 << self.trump_card
        for k in self.known:
            m |= k
        return m

    def passed_mask(self) -> int:
        """Attackers who passed since the last defend, transfer or take of this round
        (history's tail; see RULES.md §6.2 rule 3)."""
        if not self.phase.attackers_add:
            return 0
        passed = 0
        for seat, code in reversed(self.history):
            kind = code & 7
            if kind == PASS:
                passed |= 1 << seat
            elif kind != ATTACK:
                break
        return passed

    def text_of(self, code: int) -> str:
        return self.legal_text[self.legal.index(code)]


def _opt_int(x: object) -> int | None:
    return None if x is None else int(x)  # type: ignore[call-overload]
