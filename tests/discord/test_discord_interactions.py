"""The cog's map of users' latest interactions stays bounded: expired interactions go, the
oldest go past the cap, and a channel's go when its lobby or series ends."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from types import SimpleNamespace
from typing import Any

from cogs.durak_commands import DurakCog
from cogs.interactions import TOKEN_LIFETIME, LatestInteractions

T0 = datetime(2026, 1, 1, tzinfo=UTC)


class Clock:
    def __init__(self) -> None:
        self.now = T0

    def __call__(self) -> datetime:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += timedelta(seconds=seconds)


def interaction(channel_id: int | None, user_id: int, at: datetime) -> Any:
    return SimpleNamespace(channel_id=channel_id, user=SimpleNamespace(id=user_id), created_at=at)


def test_the_latest_interaction_of_a_user_in_a_channel_is_kept_until_it_expires() -> None:
    clock = Clock()
    latest = LatestInteractions(now=clock)
    first = interaction(1, 10, clock.now)
    latest.remember(first)
    clock.advance(60)
    second = interaction(1, 10, clock.now)
    latest.remember(second)
    latest.remember(interaction(2, 10, clock.now))  # another channel: another entry
    assert latest.get(1, 10) is second and len(latest) == 2
    assert latest.get(1, 11) is None
    clock.advance(TOKEN_LIFETIME - 1)
    assert latest.get(1, 10) is second
    clock.advance(1)  # Discord would refuse a followup through it now
    assert latest.get(1, 10) is None
    assert len(latest) == 0  # and it is gone, not only hidden


def test_expired_interactions_are_dropped_as_new_ones_arrive() -> None:
    clock = Clock()
    latest = LatestInteractions(now=clock)
    for user in range(100):
        latest.remember(interaction(1, user, clock.now))
    clock.advance(TOKEN_LIFETIME)
    latest.remember(interaction(2, 1, clock.now))
    assert len(latest) == 1


def test_the_cap_drops_the_oldest_first() -> None:
    clock = Clock()
    latest = LatestInteractions(now=clock, limit=3)
    for user in range(5):
        latest.remember(interaction(1, user, clock.now))
        clock.advance(1)
    assert len(latest) == 3
    assert latest.get(1, 0) is None and latest.get(1, 1) is None
    assert latest.get(1, 4) is not None
    # remembering again makes an entry the newest: the next to go is user 3
    latest.remember(interaction(1, 2, clock.now))
    latest.remember(interaction(1, 5, clock.now))
    assert latest.get(1, 3) is None and latest.get(1, 2) is not None


def test_an_interaction_outside_a_channel_is_not_kept() -> None:
    latest = LatestInteractions()
    latest.remember(interaction(None, 10, T0))
    assert len(latest) == 0


def test_a_channel_whose_lobby_or_series_ends_forgets_its_users() -> None:
    bot: Any = SimpleNamespace()
    cog = DurakCog(bot, service=SimpleNamespace())  # type: ignore[arg-type]
    now = datetime.now(UTC)
    cog.latest.remember(interaction(1, 10, now))
    cog.latest.remember(interaction(1, 11, now))
    cog.latest.remember(interaction(2, 10, now))
    # the presenter forgets a channel's hands on a "stopped" or "series_ended" notice
    cog.presenter._forget_hands(1)
    assert cog.latest.get(1, 10) is None and cog.latest.get(1, 11) is None
    assert cog.latest.get(2, 10) is not None
