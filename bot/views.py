"""Frozen, transport-agnostic views that presenters and adapters render.

The values the storage reads and writes (seats and lobby options: :mod:`bot.seating`; players'
records: :mod:`bot.player_records`) live below both; the views here are built of them.

Everything here is plain data (ints, strings, tuples, frozen dataclasses): safe to hand to
another task, to cache, or to compare.  Hidden information never appears in a public view:
:class:`TableView` shows card *counts* only; a :class:`HandView` is built for one seat and must
be shown only to that seat's ``user_id``.

Times are absolute epoch seconds (``deadline``), so an adapter can render a live countdown
(Discord's ``<t:…:R>``).  ``version`` is the number of actions applied in the game ``game_id``;
an adapter sends both back with an action so a press on an older state is refused as stale.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Literal

from bot.outcome import Outcome
from bot.player_records import AiLevelStats, LeaderboardRow, PrivacyView, ProfileStats
from bot.replay import Replay, TablePair
from bot.seating import FORMER_PLAYER_ID, LobbySeat
from rules_engine.actions import Action, ActionKind
from rules_engine.ai.review import GameReview
from rules_engine.cards import Card, Suit
from rules_engine.messages import Message, Seat
from rules_engine.played import Played
from rules_engine.rules import Rules

__all__ = [
    "ActionChoice",
    "ActionRecord",
    "ForgetRequest",
    "HandCard",
    "HandView",
    "HistoryEntry",
    "HistoryPage",
    "LeaderboardPage",
    "LobbyView",
    "Player",
    "ReplayView",
    "ReviewPosition",
    "ReviewView",
    "Role",
    "SeatView",
    "SeriesEntry",
    "SeriesView",
    "ShownTrump",
    "StatsView",
    "TablePair",
    "TableView",
    "action_message",
]


class Role(StrEnum):
    """A seat's part in the round (``None`` where a seat has no part).

    ``leader`` opened the round; ``attacker`` is the current attacker after a transfer;
    ``defender`` defends; ``out`` has left the game."""

    LEADER = "leader"
    ATTACKER = "attacker"
    DEFENDER = "defender"
    OUT = "out"


@dataclass(frozen=True, slots=True)
class Player:
    """Who sits at a seat, as a message names them: a display name, and the AI level of an
    AI seat (``None`` for a human), so an adapter can present AI seats its own way.
    ``former``: a player who asked to be forgotten (no name: the adapter says "a former
    player")."""

    name: str
    ai_level: str | None = None
    former: bool = False


def action_message(kind: ActionKind, cards: tuple[Card, ...]) -> Message:
    """An action in words, without the player: ``take``, ``attack {cards}``,
    ``cover {attack} with {card}``, ``transfer {cards}``, ``show {cards}``, ``pass``."""
    if kind is ActionKind.DEFEND and len(cards) == 2:
        return Message("cover {attack} with {card}", attack=cards[0], card=cards[1])
    if kind is ActionKind.ATTACK:
        return Message("attack {cards}", cards=cards)
    if kind is ActionKind.TRANSFER:
        return Message("transfer {cards}", cards=cards)
    if kind is ActionKind.SHOW:
        return Message("show {cards}", cards=cards)
    if kind is ActionKind.TAKE:
        return Message("take")
    if kind is ActionKind.PASS:
        return Message("pass")
    return Message("defend {cards}", cards=cards)


LobbyStatus = Literal["open", "started", "closed"]
#: Why an action was played by the service rather than pressed by its player.
AutoKind = Literal["timeout", "autopilot"] | None
#: What the seat to act is expected to do: defend, lead a round, or add cards (or pass).
WaitingFor = Literal["defend", "lead", "add"]


@dataclass(frozen=True, slots=True)
class LobbyView:
    """The lobby message: rules, seats, who may start.

    ``status`` is ``open`` while players gather, ``started`` once the game was dealt (the
    adapter replaces the lobby by the table), ``closed`` when stopped or emptied.
    """

    channel_id: int
    guild_id: int
    host_id: int
    host_name: str
    status: LobbyStatus
    rules: Rules
    profile: str  # the base profile chosen (podkidnoy/perevodnoy/classic)
    turn_timeout: int
    max_seats: int
    seats: tuple[LobbySeat, ...]
    can_start: bool  # 2..max_seats seats taken (in teams: both teams full)
    #: ``none``, ``2x2`` or ``3x3`` (RULES.md §10.3); each seat's ``team`` is 0 or 1 then.
    teams: str = "none"
    #: The players each team has room for (0 without teams).
    team_size: int = 0


@dataclass(frozen=True, slots=True)
class SeatView:
    """One seat as everyone sees it (card count, never the cards)."""

    seat: int
    name: str
    user_id: int | None
    ai_level: str | None
    cards: int
    role: Role | None
    out: bool
    to_act: bool
    autopilot: bool
    losses: int  # in the current series
    forfeited: bool = False  # the player left or was kicked: the AI plays this seat
    #: The seat's team in a team game (its parity: 0 or 1), ``None`` without teams.
    team: int | None = None
    #: The seat whose player plays this seat: itself, or (team games) the partner who took
    #: it over when its own player went out.
    played_by: int | None = None

    @property
    def former(self) -> bool:
        """Never true at a live table (a player in a game cannot be forgotten)."""
        return self.user_id == FORMER_PLAYER_ID


@dataclass(frozen=True, slots=True)
class ActionRecord:
    """An action in the table's recent history: the engine's record of what it did
    (:class:`~rules_engine.played.Played`: the action, the hand cards it used, the round it
    ended, who went out) and ``auto``, why the service played it for its player."""

    played: Played
    auto: AutoKind = None
    #: In a team game, the player who made the move for a partner's seat they took over
    #: (``None``: the seat's own player).
    by: int | None = None

    @property
    def seat(self) -> int:
        """The seat that played the action."""
        return self.played.seat

    @property
    def kind(self) -> ActionKind:
        return self.played.kind

    @property
    def cards(self) -> tuple[Card, ...]:
        """The action's cards (a defence: the attack, then the card beating it)."""
        return self.played.cards

    @property
    def text(self) -> str:
        """Canonical action text without the seat, e.g. ``defend 8♥ 9♥``."""
        return self.played.text

    @property
    def message(self) -> Message:
        """The action with its player, e.g. ``{name} covers {attack} with {card}``."""
        player = Seat(self.seat)
        cards = self.cards
        if self.kind is ActionKind.DEFEND and len(cards) == 2:
            return Message(
                "{name} covers {attack} with {card}",
                name=player,
                attack=cards[0],
                card=cards[1],
            )
        if self.kind is ActionKind.ATTACK:
            return Message("{name} attacks with {cards}", name=player, cards=cards)
        if self.kind is ActionKind.TRANSFER:
            return Message("{name} transfers with {cards}", name=player, cards=cards)
        if self.kind is ActionKind.SHOW:
            return Message("{name} showed {cards}", name=player, cards=cards)
        if self.kind is ActionKind.TAKE:
            return Message("{name} takes the cards", name=player)
        return Message("{player} passes", player=player)


@dataclass(frozen=True, slots=True)
class SeriesEntry:
    seat: int
    user_id: int | None
    name: str
    ai_level: str | None
    losses: int

    @property
    def former(self) -> bool:
        """The seat of a player who asked to be forgotten (see :data:`FORMER_PLAYER_ID`)."""
        return self.user_id == FORMER_PLAYER_ID


@dataclass(frozen=True, slots=True)
class SeriesView:
    """Loss counts of a channel's series (``/durak series``, end of game)."""

    channel_id: int
    series_id: int
    rules: Rules
    games: int  # finished games (losses + draws)
    draws: int
    active: bool
    standings: tuple[SeriesEntry, ...]  # in seat order
    last_loser: int | None = None  # seat of the last game's durak, None after a draw / none yet
    #: Every seat that lost the last game (a team game's losing team), empty if none.
    last_losers: tuple[int, ...] = ()
    #: ``none``, ``2x2`` or ``3x3``: a seat's team is its parity in a team series.
    teams: str = "none"


@dataclass(frozen=True, slots=True)
class ShownTrump:
    """A trump shown to transfer (RULES.md §10.2): by the player of ``seat``, still in their
    hand, public until the round closes."""

    seat: int
    card: Card


@dataclass(frozen=True, slots=True)
class TableView:
    """The public table message.

    ``trump_card`` is the face-up card under the stock while it is there (``None`` once drawn
    or with six players); ``trump`` (the suit symbol) is always set.  ``shown`` lists the cards
    shown to everyone at the deal (lowest trump choosing the leader, 6-player dealer card).
    ``deadline`` is the absolute epoch time at which the turn times out, ``None`` when no
    human is waiting (AI or autopilot to move, or game over).  ``outcome`` is how the game
    ended (``None`` while it runs): a durak, a draw, or stopped, with its forfeits.
    """

    channel_id: int
    guild_id: int
    game_id: int
    series_id: int
    version: int
    rules: Rules
    trump: str
    trump_card: Card | None
    shown: tuple[Card, ...]
    stock: int
    discard: int
    round: int
    limit: int | None
    taking: bool
    pairs: tuple[TablePair, ...]
    seats: tuple[SeatView, ...]
    to_act: int | None
    deadline: float | None
    turn_timeout: int
    recent: tuple[ActionRecord, ...]
    dealer: int | None
    outcome: Outcome | None = None
    series: SeriesView | None = None
    #: Why ``to_act`` is being waited on, for the adapter's prompt.
    waiting_for: WaitingFor | None = None
    #: An open stop vote: ``(agreeing, voters)`` for "Stop? n/m", and when it lapses.
    stop_vote: tuple[int, int] | None = None
    stop_vote_deadline: float | None = None
    #: The pack's size: 24, 36 or 52 cards (``rules.deck``).
    deck: int = 36
    #: The trumps shown this round to transfer (RULES.md §10.2), in order, with who showed.
    round_shown: tuple[ShownTrump, ...] = ()

    @property
    def finished(self) -> bool:
        """Whether the game was played to its end (read by the service's event queue and the
        rooms' change key; an adapter reads :attr:`outcome`)."""
        return self.outcome is not None and self.outcome.finished


@dataclass(frozen=True, slots=True)
class HandCard:
    """A card of a hand.  ``reason`` is why it cannot be played now (``None``: playable)."""

    card: Card
    trump: bool
    reason: Message | None

    @property
    def text(self) -> str:
        """The card's text, e.g. ``10♦``."""
        return str(self.card)

    @property
    def playable(self) -> bool:
        """Whether the card can be played now."""
        return self.reason is None


@dataclass(frozen=True, slots=True)
class ActionChoice:
    """A legal action: ``text`` (without the seat) is what :meth:`GameService.act` accepts;
    ``uses`` are the cards of the player's hand it plays (the engine's
    :attr:`Action.uses <rules_engine.actions.Action.uses>`: a defence's beating card, not
    the attack it covers), by which a hand offers the choice on its cards."""

    kind: ActionKind
    cards: tuple[Card, ...]
    uses: tuple[Card, ...]

    @classmethod
    def of(cls, action: Action) -> ActionChoice:
        """The choice of the engine's legal ``action``."""
        return cls(action.kind, action.cards, action.uses)

    @property
    def text(self) -> str:
        """Canonical action text without the seat, e.g. ``defend 8♥ 9♥``."""
        return " ".join((self.kind.value, *map(str, self.cards)))


@dataclass(frozen=True, slots=True)
class HandView:
    """A seat's private hand: show it to ``user_id`` only.

    ``cards`` are sorted by suit then rank, trumps last.  ``legal`` is empty unless it is this
    seat's turn.  Send ``game_id`` and ``version`` back with the chosen action.
    """

    channel_id: int
    game_id: int
    user_id: int
    seat: int
    name: str
    version: int
    cards: tuple[HandCard, ...]
    legal: tuple[ActionChoice, ...]
    your_turn: bool
    role: Role | None
    trump: str
    deadline: float | None
    autopilot: bool
    finished: bool
    #: The series the game belongs to (a player's web link is valid for its rematches).
    series_id: int = 0
    #: The seat this player acts as on their turn: their own, or in a team game the
    #: partner's seat they took over (``legal`` is written for it); ``None`` off turn.
    acting_seat: int | None = None


@dataclass(frozen=True, slots=True)
class StatsView:
    """One player's record in a guild (``profile`` set: restricted to that profile)."""

    guild_id: int
    user_id: int
    name: str | None  # latest display name seen, None if never played
    profile: str | None
    games: int
    losses: int
    draws: int
    by_profile: tuple[ProfileStats, ...] = field(default=())
    forfeits: int = 0  # games left or kicked from (each also counted as a loss)
    #: Games against each AI level, apart (by level name).
    by_ai_level: tuple[AiLevelStats, ...] = field(default=())
    #: The player's mean accuracy over the games the coach reviewed for them (in every
    #: server: a review is the player's own), and how many (``None``/0: none yet).
    review_accuracy: float | None = None
    reviewed: int = 0

    @property
    def loss_rate(self) -> float:
        return self.losses / self.games if self.games else 0.0


@dataclass(frozen=True, slots=True)
class LeaderboardPage:
    """A page of a guild's leaderboard of one rule profile: highest conservative rating
    estimate (``mu - 3 sigma``) first, among players with at least ``min_games`` rated games.

    Ties rank the player with more rated games first, then by user id.
    ``page`` is 1-based; ``pages`` is at least 1.
    """

    guild_id: int
    profile: str | None
    min_games: int
    page: int
    pages: int
    per_page: int
    total_players: int
    rows: tuple[LeaderboardRow, ...]


@dataclass(frozen=True, slots=True)
class HistoryEntry:
    """One ended game in ``/durak history``: how it ended (``outcome``; the history does not
    read forfeits, so its ``forfeits`` are empty), ``players`` in seat order, ``ended_at``
    epoch seconds."""

    game_id: int
    ended_at: float
    rules: Rules
    profile: str
    players: tuple[Player, ...]
    outcome: Outcome

    @property
    def replayable(self) -> bool:
        """Whether the game was played to its end (a stopped game has nothing to replay)."""
        return self.outcome.finished


@dataclass(frozen=True, slots=True)
class HistoryPage:
    """A page of a guild's (or one player's, ``user_id``) ended games, newest first."""

    guild_id: int
    user_id: int | None
    page: int
    pages: int
    per_page: int
    total: int
    entries: tuple[HistoryEntry, ...]


@dataclass(frozen=True, slots=True)
class ReplayView:
    """A finished game, frame by frame (:class:`bot.replay.Replay`), with who sat where.

    Private to whoever asked: it shows every hand.  ``players`` name the ``Seat`` parameters of
    the frames' messages."""

    game_id: int
    guild_id: int
    rules: Rules
    profile: str
    players: tuple[Player, ...]
    ended_at: float
    replay: Replay


@dataclass(frozen=True, slots=True)
class ReviewPosition:
    """The table as the reviewed player saw it just before one of their decisions (``index``:
    the decision's place in the game's actions), built from that player's own observation:
    their ``hand``, every seat's card count (``cards``) and role, the pairs on the table, the
    stock, the trump suit, the face-up trump card while it lies under the stock, and how many
    cards are out of play.  No other hand is in it (its ``hand`` is the player's own: show it
    to that player only)."""

    index: int
    hand: tuple[Card, ...]
    cards: tuple[int, ...]
    roles: tuple[Role | None, ...]
    table: tuple[TablePair, ...]
    stock: int
    discard: int
    trump: Suit
    trump_card: Card | None
    to_act: int | None


@dataclass(frozen=True, slots=True)
class ReviewView:
    """The coach's review of ``user_id``'s decisions in an ended game (``review.seat`` is
    theirs).  Private to that player: it shows their hand at each decision.  ``stored``:
    read from the store (asked before), not computed now.  ``positions``: the table as the
    player saw it at each reviewed decision, in game order (:meth:`position`)."""

    game_id: int
    guild_id: int
    user_id: int
    rules: Rules
    profile: str
    players: tuple[Player, ...]
    review: GameReview
    stored: bool
    positions: tuple[ReviewPosition, ...] = ()

    def position(self, index: int) -> ReviewPosition | None:
        """The table before the decision at ``index`` (``None`` when none was built)."""
        return next((p for p in self.positions if p.index == index), None)


@dataclass(frozen=True, slots=True)
class ForgetRequest:
    """A ``/durak forget-me`` waiting for its confirmation: only ``user_id`` may confirm it,
    until ``expires_at`` (whole epoch seconds); ``stored`` is what would be erased."""

    user_id: int
    expires_at: int
    stored: PrivacyView
