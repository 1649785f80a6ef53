"""The coach: a review of one seat's decisions in a game (PRODUCT.md "The coach").

Every decision where the seat had more than one legal choice is valued **from that seat's
observation at that moment only** (never the hidden hands the record knows): each legal choice
gets the estimated chance that the seat ends as the durak (:mod:`rules_engine.ai.choices`:
exact where the solver settles it, else sampled deals and playouts with common random numbers).
Per decision: the choice made, the best, the chance lost and a :class:`Label`; per game: an
accuracy figure (0–100) and the biggest mistakes first.  The thresholds and the accuracy formula
are explained in docs/AI.md ("The review").

The entry point for the service and the adapters::

    record = GameRecord.from_dict({"rules": ..., "deal": ..., "actions": [...]})  # as stored
    review = review_game(record, seat, deals=DEFAULT_DEALS, seed=0, progress=callback)
    data = review.to_dict()            # JSON-ready (docs/SCENARIOS.md, "Reviewing a game")
    assert GameReview.from_dict(data) == review

:func:`review_game` is pure and deterministic: the same record, seat, budget and seed give the
same review on every machine (no clock is read).  Everything it takes and returns is picklable,
so it can run in a worker process; ``progress(done, total)`` is called after each decision.
A record whose actions stop before the game's end is reviewed all the same: its decisions are
valued by playing on to the end (``finished`` is then false).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from rules_engine.actions import parse_action
from rules_engine.ai.choices import DEFAULT_NODE_CAP, ChoiceEstimate, estimate_choices
from rules_engine.ai.parsed import parse_code
from rules_engine.cards import CARD_TEXT, PACK_MASK, iter_bits
from rules_engine.deal import Deal
from rules_engine.errors import DurakError
from rules_engine.game import Game
from rules_engine.observation import observation
from rules_engine.rules import Rules

__all__ = [
    "DEFAULT_DEALS",
    "LABEL_LIMITS",
    "DecisionPoints",
    "DecisionReview",
    "GameRecord",
    "GameReview",
    "Label",
    "Progress",
    "ReviewError",
    "ReviewStep",
    "assemble_review",
    "decision_accuracy",
    "decision_points",
    "game_accuracy",
    "label_for",
    "review_decision",
    "review_game",
    "review_step",
]

#: Sampled deals per choice of a review, by default (docs/AI.md, "The review": how stable and
#: how long it is).
DEFAULT_DEALS = 300
#: Digits kept of chances and standard errors (a review is compared and stored exactly).
_DIGITS = 4

#: ``progress(done, total)``: decisions valued so far, of how many.
Progress = Callable[[int, int], None]


class ReviewError(DurakError):
    """A record or a seat that cannot be reviewed (the message says why)."""


class Label(StrEnum):
    """How much a decision cost, by the chance of being the durak it lost."""

    BEST = "best"
    GOOD = "good"
    INACCURACY = "inaccuracy"
    MISTAKE = "mistake"
    BLUNDER = "blunder"


#: ``(upper bound of the chance lost, label)``, in order: a decision gets the first label whose
#: bound its loss is below (a loss of 0.20 or more is a blunder).  A chance of not being the
#: durak is an expected score, as in chess, so these are chess's bands of expected points lost;
#: docs/AI.md gives the reasons.
LABEL_LIMITS: tuple[tuple[float, Label], ...] = (
    (0.02, Label.BEST),
    (0.05, Label.GOOD),
    (0.10, Label.INACCURACY),
    (0.20, Label.MISTAKE),
    (math.inf, Label.BLUNDER),
)


def label_for(lost: float) -> Label:
    """The label of a decision that lost ``lost`` of chance of not being the durak."""
    for bound, label in LABEL_LIMITS:
        if lost < bound:
            return label
    return Label.BLUNDER


def decision_accuracy(lost: float) -> float:
    """One decision's accuracy, 0–100, from the chance lost (0–1): the curve lichess uses for
    a chess move's accuracy from the winning chance lost, ``103.1668·e^(−0.04354·x) − 3.1668``
    with ``x`` the loss in percentage points (100 for no loss, ≈80 for 5 points, ≈64 for 10,
    ≈40 for 20), clamped to 0–100."""
    x = 100.0 * lost
    return min(100.0, max(0.0, round(103.1668 * math.exp(-0.04354 * x) - 3.1668, 6)))


@dataclass(frozen=True, slots=True)
class GameRecord:
    """What a review needs of a game: its rules, its deal and its actions (``"SEAT ACTION"``
    texts, in order; they may stop before the end).  ``to_dict``/``from_dict`` use the shapes
    the game store keeps (``Rules.to_dict``, ``Deal.to_dict``, a list of texts)."""

    rules: Rules
    deal: Deal
    actions: tuple[str, ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "rules": self.rules.to_dict(),
            "deal": self.deal.to_dict(),
            "actions": list(self.actions),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> GameRecord:
        try:
            return cls(
                Rules.from_spec(data["rules"]),
                Deal.from_dict(dict(data["deal"])),
                tuple(str(a) for a in data["actions"]),
            )
        except (KeyError, TypeError) as exc:
            raise ReviewError(f"not a game record: {exc}") from None


@dataclass(frozen=True, slots=True)
class DecisionReview:
    """One decision of the seat: ``index`` is its place in the record's actions; ``action``
    the choice made and ``best`` the best (itself when it is the best, or tied with it);
    ``lost`` the chance of being the durak the choice added over the best (0–1); ``hand`` the
    seat's hand then; ``choices`` every legal choice valued, in the engine's legal order."""

    index: int
    action: str
    best: str
    label: Label
    lost: float
    hand: tuple[str, ...]
    choices: tuple[ChoiceEstimate, ...]

    @property
    def chosen(self) -> ChoiceEstimate:
        """The estimate of the choice made."""
        return next(c for c in self.choices if c.action == self.action)

    @property
    def best_choice(self) -> ChoiceEstimate:
        """The estimate of the best choice (the choice made when it is as good)."""
        return next(c for c in self.choices if c.action == self.best)

    @property
    def exact(self) -> bool:
        """Whether the solver settled every choice of this decision."""
        return all(c.exact for c in self.choices)

    def to_dict(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "action": self.action,
            "best": self.best,
            "label": self.label.value,
            "lost": self.lost,
            "hand": list(self.hand),
            "choices": [
                {
                    "action": c.action,
                    "durak": c.durak,
                    "stderr": c.stderr,
                    "exact": c.exact,
                    "deals": c.deals,
                }
                for c in self.choices
            ],
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> DecisionReview:
        return cls(
            index=int(data["index"]),
            action=str(data["action"]),
            best=str(data["best"]),
            label=Label(data["label"]),
            lost=float(data["lost"]),
            hand=tuple(str(c) for c in data.get("hand", ())),
            choices=tuple(
                ChoiceEstimate(
                    action=str(c["action"]),
                    durak=float(c["durak"]),
                    stderr=float(c["stderr"]),
                    exact=bool(c["exact"]),
                    deals=int(c.get("deals", 0)),
                )
                for c in data["choices"]
            ),
        )


@dataclass(frozen=True, slots=True)
class GameReview:
    """The review of one seat's game.

    ``decisions``: every decision with a choice, in game order; ``accuracy``: the mean of
    their :func:`decision_accuracy`, 0–100 to one decimal (``None`` when the seat never had a
    choice); ``deals``/``seed``: the budget and seed it was made with; ``finished``: whether
    the record reaches the game's end; ``loser``: the durak then (``None`` for a draw, a team
    game or an unfinished record); ``losers``: the durak alone, or the losing team's seats in a
    team game (empty for a draw or an unfinished record).  In a team game ``seat`` is the
    player reviewed, with the seats it played for a partner who went out, and its chance of
    "being the durak" is its team's chance of losing.
    """

    seat: int
    accuracy: float | None
    decisions: tuple[DecisionReview, ...]
    deals: int
    seed: int
    finished: bool
    loser: int | None
    losers: tuple[int, ...] = ()

    def worst(self, limit: int | None = None) -> tuple[DecisionReview, ...]:
        """The decisions that lost anything, biggest loss first (ties: earlier first)."""
        lossy = sorted((d for d in self.decisions if d.lost > 0), key=lambda d: -d.lost)
        return tuple(lossy if limit is None else lossy[:limit])

    def curve(self) -> tuple[tuple[int, float], ...]:
        """The seat's chance of *not* being the durak after each of its decisions, as the
        review estimates it: ``(index, chance)`` in game order (the chart of the game)."""
        return tuple((d.index, round(1.0 - d.chosen.durak, _DIGITS)) for d in self.decisions)

    def counts(self) -> dict[Label, int]:
        """How many decisions got each label (every label present, in order)."""
        out = {label: 0 for _, label in LABEL_LIMITS}
        for d in self.decisions:
            out[d.label] += 1
        return out

    def to_dict(self) -> dict[str, Any]:
        """The review as JSON-ready data (docs/SCENARIOS.md, "Reviewing a game")."""
        return {
            "seat": self.seat,
            "accuracy": self.accuracy,
            "deals": self.deals,
            "seed": self.seed,
            "finished": self.finished,
            "loser": self.loser,
            "losers": list(self.losers),
            "counts": {label.value: n for label, n in self.counts().items()},
            "worst": [d.index for d in self.worst()],
            "decisions": [d.to_dict() for d in self.decisions],
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> GameReview:
        """The inverse of :meth:`to_dict` (``counts`` and ``worst`` are derived, not read)."""
        try:
            accuracy = data["accuracy"]
            loser = data.get("loser")
            return cls(
                seat=int(data["seat"]),
                accuracy=None if accuracy is None else float(accuracy),
                decisions=tuple(DecisionReview.from_dict(d) for d in data["decisions"]),
                deals=int(data["deals"]),
                seed=int(data["seed"]),
                finished=bool(data["finished"]),
                loser=None if loser is None else int(loser),
                losers=tuple(int(s) for s in data.get("losers", () if loser is None else (loser,))),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise ReviewError(f"not a stored review: {exc!r}") from None


def review_decision(
    obs: Mapping[str, Any],
    action: str,
    *,
    index: int,
    deals: int = DEFAULT_DEALS,
    seed: int = 0,
    trump_card: int | None = None,
    node_cap: int = DEFAULT_NODE_CAP,
) -> DecisionReview:
    """The review of one decision: ``obs`` is the seat's observation before it acted (its
    ``legal`` must hold ``action``, the choice made), ``index`` the action's place in the game
    (it seeds the sampling with ``seed``); ``trump_card`` the face-up trump card of the deal
    (public) once it has left the stock."""
    try:
        seat, code = parse_code(action)
    except (DurakError, ValueError, IndexError):
        raise ReviewError(f"{action!r} is not an action") from None
    # the legal texts name the seat to act: the player's own, or one it plays for a partner
    legal = [parse_code(t) for t in obs["legal"]]
    if (seat, code) not in legal:
        raise ReviewError(f"{action!r} is not one of the legal choices {obs['legal']}")
    chosen_text = obs["legal"][legal.index((seat, code))]
    raw = estimate_choices(
        obs,
        deals=deals,
        seed=_decision_seed(seed, index),
        keep=chosen_text,
        trump_card=trump_card,
        node_cap=node_cap,
    )
    choices = tuple(
        ChoiceEstimate(
            c.action, round(c.durak, _DIGITS), round(c.stderr, _DIGITS), c.exact, c.deals
        )
        for c in raw
    )
    chosen = next(c for c in choices if c.action == chosen_text)
    low = min(c.durak for c in choices)
    best = chosen if chosen.durak == low else next(c for c in choices if c.durak == low)
    lost = round(chosen.durak - best.durak, _DIGITS)
    return DecisionReview(
        index=index,
        action=chosen_text,
        best=best.action,
        label=label_for(lost),
        lost=lost,
        hand=tuple(obs["hand"]),
        choices=choices,
    )


def review_game(
    record: GameRecord,
    seat: int,
    *,
    deals: int = DEFAULT_DEALS,
    seed: int = 0,
    progress: Progress | None = None,
    node_cap: int = DEFAULT_NODE_CAP,
) -> GameReview:
    """The review of ``seat``'s decisions in ``record`` with ``deals`` sampled deals per choice
    and the random ``seed``; ``progress(done, total)`` after each decision.  A record that is
    not a game (an illegal action, a bad seat) raises :class:`ReviewError` before any work."""
    if deals < 2:
        raise ReviewError(f"the budget must be at least 2 sampled deals, not {deals}")
    points = decision_points(record, seat)
    game = Game(record.rules, record.deal)
    trump_card = game.trump_card
    reviews: list[DecisionReview] = []
    for done, (index, obs, action) in enumerate(points.decisions, start=1):
        reviews.append(
            review_decision(
                obs,
                action,
                index=index,
                deals=deals,
                seed=seed,
                trump_card=trump_card,
                node_cap=node_cap,
            )
        )
        if progress is not None:
            progress(done, len(points.decisions))
    return assemble_review(seat, deals, seed, points.finished, points.losers, reviews, points.loser)


@dataclass(frozen=True, slots=True)
class ReviewStep:
    """One piece of a review run in steps (:func:`review_step`): how many decisions the seat
    has (``total``), how the record ends, and the review of one decision (``None`` when the
    step asked for is past the last decision)."""

    total: int
    finished: bool
    loser: int | None
    losers: tuple[int, ...]
    decision: DecisionReview | None


def review_step(
    record: GameRecord,
    seat: int,
    step: int,
    *,
    deals: int = DEFAULT_DEALS,
    seed: int = 0,
    node_cap: int = DEFAULT_NODE_CAP,
) -> ReviewStep:
    """The review of the seat's decision number ``step`` (0-based, in game order), for a
    caller that runs a review a decision at a time (the bot's AI workers, between live
    moves).  The steps ``0 … total − 1`` give the decisions :func:`review_game` gives, and
    :func:`assemble_review` makes the same review of them.  Raises :class:`ReviewError` as
    :func:`review_game` does."""
    if deals < 2:
        raise ReviewError(f"the budget must be at least 2 sampled deals, not {deals}")
    points = decision_points(record, seat)
    decision = None
    if 0 <= step < len(points.decisions):
        index, obs, action = points.decisions[step]
        decision = review_decision(
            obs,
            action,
            index=index,
            deals=deals,
            seed=seed,
            trump_card=Game(record.rules, record.deal).trump_card,
            node_cap=node_cap,
        )
    return ReviewStep(len(points.decisions), points.finished, points.loser, points.losers, decision)


def assemble_review(
    seat: int,
    deals: int,
    seed: int,
    finished: bool,
    losers: tuple[int, ...],
    decisions: Iterable[DecisionReview],
    loser: int | None = None,
) -> GameReview:
    """The review of ``seat`` from its decisions' reviews, in game order (the accuracy
    computed from them)."""
    reviews = tuple(decisions)
    return GameReview(
        seat=seat,
        accuracy=game_accuracy(d.lost for d in reviews),
        decisions=reviews,
        deals=deals,
        seed=seed,
        finished=finished,
        loser=loser,
        losers=losers,
    )


def game_accuracy(losses: Iterable[float]) -> float | None:
    """The mean :func:`decision_accuracy` of the losses, to one decimal (``None``: none)."""
    values = [decision_accuracy(x) for x in losses]
    if not values:
        return None
    return round(sum(values) / len(values), 1)


@dataclass(frozen=True, slots=True)
class DecisionPoints:
    """The seat's decisions of a record, found by replaying it: ``(index, observation before
    the action, action text)`` for every action of the seat that had more than one legal
    choice; and how the record ends."""

    decisions: tuple[tuple[int, Mapping[str, Any], str], ...]
    finished: bool
    loser: int | None
    losers: tuple[int, ...] = ()


def decision_points(record: GameRecord, seat: int) -> DecisionPoints:
    """Replay ``record`` and collect ``seat``'s decisions (:class:`ReviewError` for a seat
    that is not in the game or an action the rules refuse, naming its index).  Cards the deal
    does not place are added to each observation's discard (:func:`_absent_cards`)."""
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < record.deal.players:
        raise ReviewError(
            f"there is no seat {seat!r} in this game (seats 0 to {record.deal.players - 1})"
        )
    game = Game(record.rules, record.deal)
    absent = _absent_cards(record.deal, record.rules.deck)
    found: list[tuple[int, Mapping[str, Any], str]] = []
    for index, text in enumerate(record.actions):
        if game.finished:
            raise ReviewError(f"action {index} {text!r} comes after the end of the game")
        try:
            action = parse_action(text)
        except DurakError as exc:
            raise ReviewError(f"action {index} {text!r} is not an action: {exc}") from None
        # the player's decisions: for its own seat, and in a team game for the seats it
        # plays for a partner who went out (the action then names that seat)
        if game.player_to_act == seat and len(game.legal_codes()) > 1:
            obs = observation(game, seat)
            if absent:
                obs["discard"] = [*obs["discard"], *absent]
            found.append((index, obs, text))
        try:
            game.apply(action)
        except DurakError as exc:
            raise ReviewError(f"action {index} {text!r} is illegal: {exc}") from None
    return DecisionPoints(
        tuple(found),
        game.finished,
        game.loser if game.finished else None,
        game.losers if game.finished else (),
    )


def _absent_cards(deal: Deal, deck: int) -> list[str]:
    """The cards of the game's pack (``deck`` cards) a deal does not place (a scenario's
    position may leave some out): the review counts them out of play, as every seat knows
    from the setup."""
    placed = deal.discard
    for hand in deal.hands:
        placed |= hand
    for card in deal.stock:
        placed |= 1 << card
    return [CARD_TEXT[c] for c in iter_bits(PACK_MASK[deck] & ~placed)]


def _decision_seed(seed: int, index: int) -> int:
    """The sampling seed of the decision at ``index`` (one stream per decision: a decision's
    review does not depend on which other decisions were reviewed)."""
    return seed * 1_000_003 + index
