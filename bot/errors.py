"""Typed errors of the game service.

Every refusal is a :class:`ServiceError` subclass with a stable machine ``code`` (for adapters
and logs) and a :class:`~rules_engine.messages.Message` for the player who caused it (a key and
typed parameters, translated by the adapter; ``str(error)`` is English, for logs).  A
message that names a command, a permission or a channel carries it as a term
(:mod:`bot.terms`), which each adapter words its own way.  A refused request never changes the
game state or the database.
"""

from __future__ import annotations

from typing import Any, ClassVar

from bot.realm import Realm
from bot.terms import HERE, ChannelList, Command, Permission
from rules_engine.messages import Message

__all__ = [
    "AIOnlyLimit",
    "AlreadySeated",
    "AlreadyStarted",
    "AlreadyVoted",
    "BadAction",
    "BadId",
    "BadOption",
    "ChannelBusy",
    "ChannelElsewhere",
    "ChannelMoved",
    "ChannelNotAllowed",
    "ConfigError",
    "ConfirmForfeit",
    "ConfirmationExpired",
    "Forfeited",
    "GameFinished",
    "GameMoved",
    "IllegalMove",
    "LobbyFull",
    "NoGame",
    "NoLobby",
    "NotEnoughPlayers",
    "NotHost",
    "NotManager",
    "NotSeated",
    "NotVoter",
    "NotYourTurn",
    "NotYours",
    "PlayerInPlay",
    "ReviewBusy",
    "ReviewUnavailable",
    "ServiceError",
    "StaleAction",
    "StorageBusy",
    "StorageFailure",
    "UnknownGame",
    "UnknownLevel",
]


class ServiceError(Exception):
    """Base of every refusal.  ``code`` is stable; ``message`` is for the player."""

    code: ClassVar[str] = "error"
    default_message: ClassVar[Message] = Message("that cannot be done now")

    def __init__(self, message: Message | None = None, **details: Any) -> None:
        self.message: Message = message or self.default_message
        #: Structured facts for adapters (e.g. ``expected``/``got`` for :class:`StaleAction`).
        self.details: dict[str, Any] = details
        super().__init__(str(self.message))

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.message!r})"


class NoLobby(ServiceError):
    """The channel has no open lobby (join/leave/add AI/start need one)."""

    code = "no_lobby"
    default_message = Message(
        "there is no open lobby {here}: open one with {command}", here=HERE, command=Command.NEW
    )


class NoGame(ServiceError):
    """The channel has no game (or no series) to act on or show."""

    code = "no_game"
    default_message = Message("there is no game {here}", here=HERE)


class ChannelBusy(ServiceError):
    """A lobby or a game already runs in this channel (one per channel)."""

    code = "channel_busy"
    default_message = Message("this channel already has a lobby or a game: one per channel")


class ChannelNotAllowed(ServiceError):
    """The server's settings allow games only in other channels; the message names them."""

    code = "channel_not_allowed"
    default_message = Message("games cannot be opened in this channel")


class AlreadyStarted(ServiceError):
    """The request needs a lobby (or a finished game) but a game is running."""

    code = "already_started"
    default_message = Message("the game has already started")


class AIOnlyLimit(ServiceError):
    """The server already runs as many AI-only tables as it may (see ``bot.service``)."""

    code = "ai_only_limit"
    default_message = Message(
        "this server already runs as many tables with only AI players as it may: "
        "stop one, or take a seat yourself"
    )


class AlreadySeated(ServiceError):
    """The player already holds a seat at this table."""

    code = "already_seated"
    default_message = Message("you already have a seat at this table")


class LobbyFull(ServiceError):
    """Every seat of the lobby is taken."""

    code = "lobby_full"
    default_message = Message("the lobby is full")


class NotHost(ServiceError):
    """Only the host (or a moderator, where the realm has them) may do this; the service
    gives the sentence of the channel's realm (:func:`bot.service.channels.need_host`)."""

    code = "not_host"
    default_message = Message("only the host can do that")


class NotManager(ServiceError):
    """Only a member with Manage Server may change the server's settings."""

    code = "not_manager"
    default_message = Message(
        "only members with {permission} can see or change the server's settings",
        permission=Permission.MANAGE_SERVER,
    )


class NotSeated(ServiceError):
    """The player has no seat at this table."""

    code = "not_seated"
    default_message = Message("you are not seated at this table")


class Forfeited(ServiceError):
    """The player forfeited this game (left or was kicked): the AI plays their seat to the
    end and they cannot come back to it."""

    code = "forfeited"
    default_message = Message("you left this game (a forfeit): you cannot rejoin it")

    @classmethod
    def of(cls, reason: str, realm: Realm, message: Message | None = None) -> Forfeited:
        """The refusal, in a channel of ``realm``, for a player whose forfeit had ``reason``
        (``leave`` or ``kick``): one removed by a moderator is told so, never that they left;
        ``message`` is what a player who left is told (default: :attr:`default_message`)."""
        if reason == "kick":
            if realm.has_moderators:
                removed = Message(
                    "a member with {permission} removed you from this game (a forfeit): "
                    "you cannot rejoin it",
                    permission=Permission.MANAGE_CHANNEL,
                )
            else:
                removed = Message(
                    "you were removed from this game (a forfeit): you cannot rejoin it"
                )
            return cls(removed, reason=reason)
        return cls(message, reason=reason)


class ConfirmForfeit(ServiceError):
    """``leave`` during a running game: leaving is a forfeit, so the player must confirm
    (:meth:`GameService.forfeit`).  ``details['game_id']`` is the game to confirm for."""

    code = "confirm_forfeit"
    default_message = Message(
        "the game is running: leaving now is a forfeit, counted as a loss, and the AI plays "
        "your seat to the end"
    )


class PlayerInPlay(ServiceError):
    """``/durak forget-me`` by someone in a lobby, or in a series or game that has not ended
    (in any server): their seat there still needs their id.  ``details['channels']`` lists
    the channels."""

    code = "in_play"
    default_message = Message(
        "you are in a lobby or a game that has not ended: leave the lobby, or wait for the "
        "game and its series to end, then ask again"
    )

    @classmethod
    def of(cls, channels: tuple[int, ...]) -> PlayerInPlay:
        """The refusal naming the ``channels`` where the player still is."""
        if not channels:
            return cls()
        return cls(
            Message(
                "you are in a lobby or a game that has not ended in {channels}: leave the "
                "lobby, or wait for the game and its series to end, then ask again",
                channels=ChannelList.of(channels),
            ),
            channels=tuple(sorted(set(channels))),
        )


class NotYours(ServiceError):
    """A press on a confirmation that was asked for by someone else."""

    code = "not_yours"
    default_message = Message("only the player who asked can answer this")


class ConfirmationExpired(ServiceError):
    """A confirmation pressed after it expired: nothing was done."""

    code = "expired"
    default_message = Message(
        "this confirmation has expired: nothing was erased. Use {command} again",
        command=Command.FORGET_ME,
    )


class NotVoter(ServiceError):
    """A stop vote press (or the opening of one) by someone who does not vote in it."""

    code = "not_voter"
    default_message = Message("only the players seated at this game can vote to stop it")


class AlreadyVoted(ServiceError):
    """A second Stop press by a voter whose yes is already counted in the open stop vote;
    the vote is unchanged."""

    code = "already_voted"
    default_message = Message("you already voted to stop this game")


class NotEnoughPlayers(ServiceError):
    """A game needs 2 to 6 seats."""

    code = "not_enough_players"
    default_message = Message("a game needs at least 2 players")


class NotYourTurn(ServiceError):
    """It is another seat's turn; ``details['reason']`` says whose and why."""

    code = "not_your_turn"
    default_message = Message("it is not your turn")


class StaleAction(ServiceError):
    """The action was chosen on an older state (another move happened since)."""

    code = "stale"
    default_message = Message("the table has changed since you looked: here is the current state")


class IllegalMove(ServiceError):
    """The rules forbid the action now; ``reason`` is the engine's explanation."""

    code = "illegal_move"

    def __init__(self, reason: Message, **details: Any) -> None:
        self.reason = reason
        super().__init__(reason, reason=reason, **details)


class BadAction(ServiceError):
    """The action text could not be read at all (not a card, not an action)."""

    code = "bad_action"
    default_message = Message(
        "that is not an action: try 'attack 8♥', 'defend 8♥ 9♥', 'take' or 'pass'"
    )


class GameFinished(ServiceError):
    """The game is over: only rematch, end series or stop remain."""

    code = "game_finished"
    default_message = Message("the game is over")


class BadOption(ServiceError):
    """A lobby option, rule option or parameter is out of range; the message names it."""

    code = "bad_option"
    default_message = Message("invalid option")


class BadId(BadOption):
    """An id (channel, server, user, game) that cannot be a Discord id: not a whole number
    from 1 to 2^63 - 1 (:data:`bot.service.options.MAX_ID`)."""

    code = "bad_id"
    default_message = Message("that is not a valid id")


class UnknownLevel(BadOption):
    """An AI level that the engine does not provide (yet)."""

    code = "unknown_level"
    default_message = Message("unknown AI level")


class UnknownGame(ServiceError):
    """No ended game of that id in this server (or one that cannot be replayed); the message
    says which."""

    code = "unknown_game"
    default_message = Message("there is no such game in this server")


class ReviewBusy(ServiceError):
    """A review cannot start now: the player's own is still being made (the message says
    which game), or the bot makes as many as it may at once."""

    code = "review_busy"
    default_message = Message("the coach is busy with other reviews: try again in a minute")


class ReviewUnavailable(ServiceError):
    """The review could not be computed (its AI worker failed): nothing was stored."""

    code = "review_unavailable"
    default_message = Message("the review could not be made: try again later")


class StorageFailure(ServiceError):
    """The database refused the write; nothing was applied.  Try again."""

    code = "storage_failure"
    default_message = Message("the game could not be saved: nothing was changed, please try again")


class StorageBusy(StorageFailure):
    """The database did not answer in time (it hangs or is overloaded): the request was given
    up.  A move given up this way is not shown as played; if it reached the database after
    all, the game shows it at the next move (see :mod:`bot.service.commit`)."""

    code = "storage_busy"
    default_message = Message("the database is busy: please try again in a few seconds")


class ChannelMoved(StorageFailure):
    """A fenced write lost: another bot process wrote this channel (its lobby, series or
    game) since this process read it.  Nothing was written; this process drops its copy of
    the channel and reads it again before the next command (the service retries the command
    once on the fresh copy before it answers with this)."""

    code = "channel_moved"
    default_message = Message("this table was changed by another bot process: press again")


class ChannelElsewhere(ServiceError):
    """The channel's lobby or game belongs to a server this process does not serve (another
    process holds its gateway shard)."""

    code = "channel_elsewhere"
    default_message = Message(
        "this channel's game is served by another bot process: try again in a moment"
    )


class GameMoved(ChannelMoved):
    """A fenced write lost: the game's row moved on, so another bot process serves this game
    now.  Nothing was written; this process has dropped its copy of the game."""

    code = "game_moved"
    default_message = Message("this game is now served by another bot process: press again")


class ConfigError(Exception):
    """Invalid settings: one line per problem in the message."""

    def __init__(self, problems: list[str]) -> None:
        self.problems = list(problems)
        if len(self.problems) == 1:  # the common case reads as one line
            message = f"invalid configuration: {self.problems[0]}"
        else:
            message = "invalid configuration:\n" + "\n".join(f"- {p}" for p in problems)
        super().__init__(message)
