"""Rule options and the three named profiles (RULES.md §2), and the table options of §10: the
pack (``deck``), transferring by showing a trump (``show_trump``) and ``teams``."""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any, Literal

from rules_engine.errors import InvalidNotationError, InvalidRulesError
from rules_engine.messages import Message

__all__ = ["PROFILES", "TEAM_SEATS", "Rules", "Teams", "ThrowIn"]

ThrowIn = Literal["neighbours", "all"]
Teams = Literal["none", "2x2", "3x3"]

#: The number of players each team layout needs.
TEAM_SEATS: dict[str, int] = {"2x2": 4, "3x3": 6}
_HAND_SIZE = 6
_OPTIONS = ("throw_in", "first_round_limit", "transfer", "deck", "show_trump", "teams")


@dataclass(frozen=True, slots=True)
class Rules:
    """An immutable rule configuration; every game is made from one.

    The first three options are the traditional ones (RULES.md §2); ``deck`` (24, 36 or 52),
    ``show_trump`` and ``teams`` (``"none"``, ``"2x2"``, ``"3x3"``) are the table options of
    §10.  A value outside an option's range raises :class:`InvalidNotationError`; options that
    do not go together (teams with transfers, showing a trump without them) raise
    :class:`InvalidRulesError`, whose ``reason`` is the same sentence for players.  Options that
    depend on the number of players are checked by :meth:`check_players`.
    """

    throw_in: ThrowIn = "neighbours"
    first_round_limit: int = 6
    transfer: bool = False
    deck: int = 36
    show_trump: bool = False
    teams: Teams = "none"

    def __post_init__(self) -> None:
        if self.throw_in not in ("neighbours", "all"):
            raise InvalidNotationError(
                f"throw_in must be 'neighbours' or 'all', not {self.throw_in!r}"
            )
        if self.first_round_limit not in (5, 6) or isinstance(self.first_round_limit, bool):
            raise InvalidNotationError(
                f"first_round_limit must be 5 or 6, not {self.first_round_limit!r}"
            )
        if not isinstance(self.transfer, bool):
            raise InvalidNotationError(f"transfer must be true or false, not {self.transfer!r}")
        if self.deck not in (24, 36, 52) or isinstance(self.deck, bool):
            raise InvalidNotationError(f"deck must be 24, 36 or 52, not {self.deck!r}")
        if not isinstance(self.show_trump, bool):
            raise InvalidNotationError(f"show_trump must be true or false, not {self.show_trump!r}")
        if self.teams not in ("none", "2x2", "3x3"):
            raise InvalidNotationError(f"teams must be 'none', '2x2' or '3x3', not {self.teams!r}")
        if self.teams != "none" and self.transfer:
            raise InvalidRulesError(
                Message(
                    "teams {teams} are played without transfers: turn transfer off",
                    teams=repr(self.teams),
                )
            )
        if self.show_trump and not self.transfer:
            raise InvalidRulesError(
                Message("show_trump needs transfer on: showing a trump is a way to transfer")
            )

    # ------------------------------------------------------------------ players
    def players_error(self, players: int) -> InvalidRulesError | None:
        """Why these rules cannot be played by ``players`` players, or ``None`` if they can."""
        if self.deck < _HAND_SIZE * players:
            return InvalidRulesError(
                Message(
                    "a {deck}-card pack deals six cards to at most {most} players, not {players}",
                    deck=self.deck,
                    most=self.deck // _HAND_SIZE,
                    players=players,
                )
            )
        seats = TEAM_SEATS.get(self.teams)
        if seats is not None and players != seats:
            return InvalidRulesError(
                Message(
                    "teams {teams} need exactly {seats} players, not {players}",
                    teams=repr(self.teams),
                    seats=seats,
                    players=players,
                )
            )
        return None

    def check_players(self, players: int) -> None:
        """Raise :class:`InvalidRulesError` unless ``players`` players can play these rules:
        six cards each must fit the pack (24 cards: at most 4), and ``2x2`` needs exactly 4
        players, ``3x3`` exactly 6."""
        error = self.players_error(players)
        if error is not None:
            raise error

    # ------------------------------------------------------------------ names
    @property
    def profile(self) -> str | None:
        """The profile name these options match exactly (table options at their defaults)."""
        for name, rules in PROFILES.items():
            if rules == self:
                return name
        return None

    @property
    def base_profile(self) -> str | None:
        """The profile whose three traditional options these are, whatever the table options
        (``deck``, ``show_trump``, ``teams``); ``None`` if none matches."""
        return replace(self, deck=36, show_trump=False, teams="none").profile

    @property
    def team_game(self) -> bool:
        """Whether the players play in two teams (RULES.md §10.3)."""
        return self.teams != "none"

    @property
    def name(self) -> str:
        """The profile name, or ``custom (…)`` listing every option that differs from it."""
        if self.profile:
            return self.profile
        options = (
            f"throw_in={self.throw_in}, first_round_limit={self.first_round_limit}, "
            f"transfer={'on' if self.transfer else 'off'}"
        )
        if self.deck != 36:
            options += f", deck={self.deck}"
        if self.show_trump:
            options += ", show_trump=on"
        if self.teams != "none":
            options += f", teams={self.teams}"
        return f"custom ({options})"

    def to_dict(self) -> dict[str, Any]:
        """The options as a JSON-safe dict: the three traditional ones always, ``deck``,
        ``show_trump`` and ``teams`` only when not at their defaults (so the record of a
        traditional game is what it always was); :meth:`from_spec` reads it back."""
        out: dict[str, Any] = {
            "throw_in": self.throw_in,
            "first_round_limit": self.first_round_limit,
            "transfer": self.transfer,
        }
        if self.deck != 36:
            out["deck"] = self.deck
        if self.show_trump:
            out["show_trump"] = True
        if self.teams != "none":
            out["teams"] = self.teams
        return out

    @classmethod
    def from_spec(cls, spec: object, *, players: int | None = None) -> Rules:
        """Rules from a profile name, or a dict with an optional ``profile`` and overrides.

        Keys given override the profile's; with no profile, ``podkidnoy`` defaults apply.
        With ``players``, the rules must also suit that many players (:meth:`check_players`).
        """
        rules = cls._from_spec(spec)
        if players is not None:
            rules.check_players(players)
        return rules

    @classmethod
    def _from_spec(cls, spec: object) -> Rules:
        if isinstance(spec, Rules):
            return spec
        if isinstance(spec, str):
            try:
                return PROFILES[spec.strip().lower()]
            except KeyError:
                raise InvalidNotationError(
                    f"unknown rules profile {spec!r}: choose podkidnoy, perevodnoy or classic"
                ) from None
        if isinstance(spec, dict):
            try:
                key = tuple((k, type(v), v) for k, v in spec.items())
                hash(key)
            except TypeError:  # a value that is not hashable: read as it is (and refused)
                return cls._from_dict(spec)
            return _from_options(key)
        raise InvalidNotationError(f"rules must be a profile name or an object, not {spec!r}")

    @classmethod
    def _from_dict(cls, spec: dict[str, Any]) -> Rules:
        unknown = set(spec) - {"profile", *_OPTIONS}
        if unknown:
            raise InvalidNotationError(f"unknown rule option(s) {sorted(unknown)!r}")
        base = cls._from_spec(spec.get("profile", "podkidnoy"))
        overrides = {k: v for k, v in spec.items() if k != "profile"}
        return replace(base, **overrides)


@lru_cache(maxsize=256)
def _from_options(key: tuple[tuple[Any, type, Any], ...]) -> Rules:
    """The rules of a dict spec given as its ``(key, type, value)`` items, remembered: the
    same few rule sets are read again and again (every table view, every observation an AI
    worker is sent), and rules are immutable.  Each value's type is part of the key, so that
    ``False`` and ``0`` are told apart as :meth:`Rules.from_spec` tells them."""
    return Rules._from_dict({k: v for k, _, v in key})


PROFILES: dict[str, Rules] = {
    "podkidnoy": Rules(throw_in="neighbours", first_round_limit=6, transfer=False),
    "perevodnoy": Rules(throw_in="all", first_round_limit=6, transfer=True),
    "classic": Rules(throw_in="all", first_round_limit=5, transfer=False),
}
