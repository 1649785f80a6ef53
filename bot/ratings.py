"""OpenSkill (Plackett-Luce) ratings from finished games: pure functions, no I/O.

README, "Fair play": one rating per player, per server and rule
profile; a finished game ranks its players by the order they went out.

Pieces, in the order the service uses them when a game ends:

1. :func:`finishing_places` replays the stored game through the engine and gives every seat a
   place (1 = best).  :func:`places_from_exits` does the same from an already computed exit
   order, for callers that tracked it live.
2. The caller keeps the human seats only (AI seats are never rated) and maps seats to players.
3. :func:`should_rate` says whether the game counts at all.
4. :func:`rate_game` (or :func:`apply_game` with :class:`RatingKey` keys) gives the new ratings.

:func:`recompute` replays the whole rating history from stored :class:`RatedGame` records, so
ratings can always be rebuilt from the games (and a test can check that they are).

Decisions the README leaves open (tested in ``tests/fairplay/test_ratings.py``):

- **Places** are dense (1, 2, 3, ...): players who went out at the close of the same round share
  a place; the durak takes the place after everyone who went out.  Only the order matters to
  Plackett-Luce, so gaps left by removed AI seats change nothing.
- **Draw**: the last players all leave the table at the close of the final round, so they share
  the last place by the same-round rule ("a draw puts the last two level"; three or more level
  if that many emptied their hands in that round).
- **Forfeits**: every forfeiter shares one place *below* every player who played to the end,
  the durak included.  A forfeit must never rate better than playing on and losing, and a durak
  who finished the game is not rated as low as one who left it.  The forfeited seat's later
  fate (played by the ``casual`` AI) does not matter: if it ends as the durak the forfeiter is
  still placed once, last.  The other players' places are computed among themselves, ignoring
  when the AI took the forfeited seat out.
- **Key shape**: :class:`RatingKey` ``(guild_id, profile, user_id)``; ``profile`` is
  :func:`rating_profile` of the game's rules: the profile name, ``"custom"`` for rules that
  match no profile, or ``"teams"`` (:data:`TEAM_PROFILE`) for every game played in teams
  (the same pooling as the stats in ``bot.service.records``).
- **Team games** (RULES.md §10.3) are rated as teams: the winning team shares place 1, the
  losing team place 2 (a draw: every seat place 1), forfeiters below; openskill rates each
  place's players as one team (:func:`rate_game` with ``teams=True``), so partners rise and
  fall together.  :func:`rate_game` is
  generic and accepts any hashable keys.
- **Which games count**: see :func:`should_rate`.
"""

from __future__ import annotations

from collections.abc import Collection, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TypeVar

from openskill.models import PlackettLuce

from rules_engine.actions import parse_action
from rules_engine.deal import Deal
from rules_engine.game import Game
from rules_engine.rules import Rules

__all__ = [
    "MODEL",
    "TEAM_PROFILE",
    "RatedGame",
    "Rating",
    "RatingKey",
    "apply_game",
    "finishing_places",
    "places_from_exits",
    "rate_game",
    "rating_profile",
    "recompute",
    "should_rate",
    "team_places",
]

#: The rating model: openskill's defaults (mu 25, sigma 25/3, beta 25/6, tau 25/300).
#: ``rate`` is only ever called without ``limit_sigma``, which is the one argument that would
#: change the model object, so sharing it is safe.
MODEL = PlackettLuce()

K = TypeVar("K", bound=Hashable)


@dataclass(frozen=True, slots=True)
class Rating:
    """A player's skill belief: mean ``mu`` and uncertainty ``sigma``."""

    mu: float
    sigma: float

    @classmethod
    def default(cls) -> Rating:
        """The rating of a player with no rated game yet (the model's prior)."""
        return cls(MODEL.mu, MODEL.sigma)

    @property
    def conservative(self) -> float:
        """The conservative estimate ``mu - 3 sigma`` the leaderboard ranks by."""
        return self.mu - 3.0 * self.sigma

    @property
    def display(self) -> int:
        """:attr:`conservative` as the whole number players see (0 for a new player)."""
        return round(self.conservative)


@dataclass(frozen=True, slots=True)
class RatingKey:
    """Whose rating: one player, in one server (``guild_id``), under one rule profile."""

    guild_id: int
    profile: str
    user_id: int


#: The profile every game played in teams is counted and rated under, whatever its options.
TEAM_PROFILE = "teams"


def rating_profile(rules: Rules) -> str:
    """The profile a game's ratings belong to: :data:`TEAM_PROFILE` for a team game, else its
    profile name, or ``"custom"``."""
    if rules.team_game:
        return TEAM_PROFILE
    return rules.profile or "custom"


def should_rate(
    human_count: int, has_ai: bool, count_ai_games: bool, *, kicked: bool = False
) -> bool:
    """Whether a finished game changes ratings.

    Only humans are rated, so a game needs at least two humans to compare.  A game with AI seats
    counts only when the server's ``count_ai_games`` setting is on (default off), and then rates
    its humans against each other (the AI seats are left out of the ranking).

    A game from which a member with Manage Channel kicked a player (``kicked``) is not rated at
    all: no member may move someone else's rating by their own action alone (the kicked
    player's forfeit still counts in the series and the stats).

    ``human_count`` counts every human seated at the deal, forfeiters included; ``has_ai`` means
    an AI seat from the deal: a seat the AI took over after a forfeit does not make the game an
    AI game.
    """
    if human_count < 2 or kicked:
        return False
    return count_ai_games or not has_ai


def places_from_exits(
    exits: Sequence[int | None], forfeits: Collection[int] = ()
) -> tuple[int, ...]:
    """Places (1 = best) per seat from when each seat went out.

    ``exits[seat]`` is any number that orders the moments seats went out (the action count, or
    the round number, when the seat's hand emptied), equal for seats that went out together;
    ``None`` for a seat that never went out (the durak).  Seats in ``forfeits`` share the place
    below everyone else, whatever their exit says.
    """
    n = len(exits)
    for seat in forfeits:
        if not 0 <= seat < n:
            raise ValueError(f"forfeit of seat {seat}, but the game has seats 0..{n - 1}")
    stayed = [s for s in range(n) if s not in forfeits]
    moments = sorted({e for s in stayed if (e := exits[s]) is not None})
    place_of = {moment: i + 1 for i, moment in enumerate(moments)}
    last = len(moments) + 1  # the durak's place, after everyone who went out
    places = [0] * n
    for s in stayed:
        e = exits[s]
        places[s] = last if e is None else place_of[e]
    bottom = max((places[s] for s in stayed), default=0) + 1
    for s in forfeits:
        places[s] = bottom
    return tuple(places)


def finishing_places(
    rules: Rules, deal: Deal, actions: Iterable[str], forfeits: Collection[int] = ()
) -> tuple[int, ...]:
    """Places (1 = best) per seat of a finished game, replayed from its stored action log.

    The game is replayed through the engine one action at a time; the engine's record of
    each action (:class:`~rules_engine.played.Played`) names the seats it put out.  The
    engine marks seats out only when a round closes, so seats that go out together went out
    in the same round.  Raises
    :class:`~rules_engine.errors.DurakError` if an action is illegal, and :class:`ValueError`
    if the log does not finish the game.  See :func:`places_from_exits` for ``forfeits``.
    """
    game = Game(rules, deal)
    exits: list[int | None] = [None] * len(deal.hands)
    out = game.state_dict()["out"]  # out at the deal
    assert isinstance(out, list)
    for seat in out:
        exits[seat] = 0
    for step, text in enumerate(actions, start=1):
        for seat in game.apply(parse_action(text)).out:
            exits[seat] = step
    if not game.finished:
        raise ValueError("the action log does not finish the game: nothing to rank")
    if rules.team_game:
        return team_places(len(deal.hands), game.losers, forfeits)
    return places_from_exits(exits, forfeits)


def team_places(
    players: int, losers: Collection[int], forfeits: Collection[int] = ()
) -> tuple[int, ...]:
    """Places per seat of a finished team game: the winning team 1, the losing team
    (``losers``) 2, every seat 1 after a draw (no losers); forfeiters share the place below."""
    places = [2 if s in losers else 1 for s in range(players)]
    stayed = [places[s] for s in range(players) if s not in forfeits]
    bottom = max(stayed, default=0) + 1
    for s in forfeits:
        places[s] = bottom
    return tuple(places)


def rate_game(
    ratings_before: Mapping[K, Rating], places: Mapping[K, int], *, teams: bool = False
) -> dict[K, Rating]:
    """New ratings of the players of one game from their places (lower is better, equal ties).

    ``teams``: a team game: the players sharing a place are rated as one openskill team (else
    each player is a team of their own, and equal places are ties).

    ``places`` holds the rated players only (humans; the caller drops AI seats); a player absent
    from ``ratings_before`` starts at :meth:`Rating.default`.  Returns a rating for every key of
    ``places``; with fewer than two players nothing can be compared and the ratings are returned
    unchanged.  The result does not depend on the order of ``places``.
    """
    # A canonical order (place, then the key's repr): openskill's float sums depend on the
    # order of the teams, and the result must not depend on how the caller built the dict.
    players = sorted(places, key=lambda p: (places[p], repr(p)))
    default = Rating.default()
    before = [ratings_before.get(p, default) for p in players]
    if len(players) < 2:
        return dict(zip(players, before, strict=True))
    if teams:
        return _rate_teams(players, before, places)
    solo = [[MODEL.rating(mu=r.mu, sigma=r.sigma)] for r in before]
    rated = MODEL.rate(solo, ranks=[float(places[p]) for p in players])
    return {p: Rating(team[0].mu, team[0].sigma) for p, team in zip(players, rated, strict=True)}


def _rate_teams(
    players: Sequence[K], before: Sequence[Rating], places: Mapping[K, int]
) -> dict[K, Rating]:
    """:func:`rate_game` of a team game: ``players`` (in canonical order) grouped by place."""
    order = sorted({places[p] for p in players})
    if len(order) < 2:  # every rated player on one side: nothing to compare
        return dict(zip(players, before, strict=True))
    groups: list[list[int]] = [[i for i, p in enumerate(players) if places[p] == k] for k in order]
    teams = [[MODEL.rating(mu=before[i].mu, sigma=before[i].sigma) for i in g] for g in groups]
    rated = MODEL.rate(teams, ranks=[float(k) for k in order])
    out: dict[K, Rating] = {}
    for group, team in zip(groups, rated, strict=True):
        for i, r in zip(group, team, strict=True):
            out[players[i]] = Rating(r.mu, r.sigma)
    return out


@dataclass(frozen=True, slots=True)
class RatedGame:
    """What the rating history stores of one rated game.

    ``places`` pairs each rated human's ``user_id`` with their place (from
    :func:`finishing_places`), sorted by user id.  ``ended_at`` (then ``game_id``) orders the
    games for :func:`recompute`.
    """

    game_id: int
    guild_id: int
    profile: str
    ended_at: float
    places: tuple[tuple[int, int], ...]

    @classmethod
    def of(
        cls, game_id: int, guild_id: int, profile: str, ended_at: float, places: Mapping[int, int]
    ) -> RatedGame:
        """A record with ``places`` given as ``{user_id: place}``."""
        return cls(game_id, guild_id, profile, ended_at, tuple(sorted(places.items())))

    def key(self, user_id: int) -> RatingKey:
        return RatingKey(self.guild_id, self.profile, user_id)


def apply_game(ratings: Mapping[RatingKey, Rating], game: RatedGame) -> dict[RatingKey, Rating]:
    """The new ratings of ``game``'s players, from ``ratings`` before it (the rating history row
    the service stores for this game)."""
    places = {game.key(user): place for user, place in game.places}
    return rate_game(ratings, places, teams=game.profile == TEAM_PROFILE)


def recompute(games: Iterable[RatedGame]) -> dict[RatingKey, Rating]:
    """Every rating rebuilt from scratch: the games applied in order of (``ended_at``,
    ``game_id``), each from the ratings the earlier games left."""
    ratings: dict[RatingKey, Rating] = {}
    for game in sorted(games, key=lambda g: (g.ended_at, g.game_id)):
        ratings.update(apply_game(ratings, game))
    return ratings
