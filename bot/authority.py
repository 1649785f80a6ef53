"""Who acts on a table: a player, a moderator, or the system.

Every command that a host may give (add an AI seat, remove a seat, start, close, end a series,
kick) or that ends a game at once (stop) takes an :class:`Authority` besides the requester's
id:

- :data:`PLAYER`: the requester acts for themselves; the host is recognised by their id;
- :data:`MODERATOR`: the requester may act on any table of the channel, as its host would, and
  stop or remove players from a running game at once (Discord: a member with Manage Channel;
  only a realm with moderators has them, :attr:`bot.realm.Realm.has_moderators`);
- :func:`system`: the service's own rules or an operator, not a person at the table: a room
  idle for too long, a lobby that cannot be shown, a benchmark (:class:`SystemRule` says
  which, and a notice of what it did says so).

The adapter decides who acts (Discord reads the member's permissions, the web knows only
players); the service decides what that authority may do.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from bot.realm import Realm

__all__ = ["MODERATOR", "PLAYER", "Authority", "Role", "SystemRule", "system"]


class Role(enum.StrEnum):
    """The kind of authority (see the module)."""

    PLAYER = "player"
    MODERATOR = "moderator"
    SYSTEM = "system"


class SystemRule(enum.StrEnum):
    """Why the system acts on a table."""

    #: A room without a move for too long is closed (the rooms' idle sweep).
    IDLE = "idle"
    #: A lobby that cannot be shown where it was opened is closed.
    UNSHOWABLE = "unshowable"
    #: An operator's tool (benchmarks, drills).
    OPERATOR = "operator"


@dataclass(frozen=True, slots=True)
class Authority:
    """Who acts (see the module): ``role``, and for the system the ``rule`` it follows."""

    role: Role
    rule: SystemRule | None = None

    def __post_init__(self) -> None:
        if (self.role is Role.SYSTEM) != (self.rule is not None):
            raise ValueError("the system acts by a rule, and only the system does")

    def over_host(self, realm: Realm) -> bool:
        """Whether it may do in ``realm`` what only a table's host may: the system, or a
        moderator where the realm has moderators (a moderator of a realm without any, such as
        a room, counts as the player they are)."""
        if self.role is Role.MODERATOR:
            return realm.has_moderators
        return self.role is Role.SYSTEM

    @property
    def is_system(self) -> bool:
        return self.role is Role.SYSTEM


#: A player acting for themselves (the host, when their id is the table's host's).
PLAYER = Authority(Role.PLAYER)
#: A member who may act on any table of the channel (Discord: Manage Channel).
MODERATOR = Authority(Role.MODERATOR)


def system(rule: SystemRule) -> Authority:
    """The system, acting by ``rule``."""
    return Authority(Role.SYSTEM, rule)
