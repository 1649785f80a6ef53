"""The coach: a player's review of their own decisions in an ended game (issue 32).

The review itself is the engine's (:mod:`rules_engine.ai.review`); here it is asked for,
computed in the AI workers below the live moves (:meth:`bot.ai_pool.AIRunner.review`, never
on the event loop), and stored (:meth:`bot.storage.Storage.save_review`) so that asking again,
in this process or after a restart, is instant.  A player runs one review at a time, the
process at most ``max_running`` at once; beyond, :class:`~bot.errors.ReviewBusy` says to try
again.  A review shows the player's own hand at each decision: adapters show it to that
player only, and with it the table as that player saw it before each decision
(:func:`bot.review_positions.review_positions`: their own observation, replayed from the
record on the event loop, a few milliseconds).  ``/durak forget-me`` erases a player's
reviews with the rest of their data.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from dataclasses import dataclass, field

from bot.ai_pool import AIPool, AIPoolClosed, ReviewFailed, ThreadAI
from bot.clock import Clock
from bot.errors import ReviewBusy, ReviewUnavailable, UnknownGame
from bot.review_positions import review_positions
from bot.service.commit import storage_errors
from bot.service.options import need_id, profile_of
from bot.service.records import ended_game, need_game_id, players_of
from bot.storage import ReviewRecord, Storage
from bot.views import ReviewView
from rules_engine import DurakError, Rules
from rules_engine.ai.review import DEFAULT_DEALS, GameRecord, GameReview, ReviewError
from rules_engine.messages import N_, Message

__all__ = ["MAX_RUNNING_REVIEWS", "REVIEW_SEED", "Progress", "Reviews"]

log = logging.getLogger(__name__)

#: Reviews the process computes at once by default (each a decision at a time in the AI
#: workers, below every live move); more are refused with :class:`ReviewBusy`.
MAX_RUNNING_REVIEWS = 2
#: The seed of every review the bot makes: the same game gives the same review everywhere.
REVIEW_SEED = 0

#: ``progress(done, total)``: decisions reviewed so far, of how many.
Progress = Callable[[int, int], object]


@dataclass(eq=False)
class Reviews:
    """The review commands (see the module docstring)."""

    storage: Storage
    ai: AIPool | ThreadAI
    clock: Clock
    deals: int = DEFAULT_DEALS
    max_running: int = MAX_RUNNING_REVIEWS
    #: The player of each review being computed, and its game.
    _running: dict[int, int] = field(default_factory=dict, init=False)

    async def review(
        self,
        guild_id: int,
        user_id: int,
        game_id: int | None = None,
        *,
        progress: Progress | None = None,
    ) -> ReviewView:
        """``user_id``'s review of game ``game_id`` of this guild (default: their last ended
        game here).  Stored: returned at once; else computed (``progress(done, total)`` after
        each decision, on the event loop) and stored.

        Refusals, each changing nothing: :class:`UnknownGame` (no such game here, still
        being played, the player did not play in it, or none played yet),
        :class:`ReviewBusy` (their review already runs, or the process runs
        ``max_running``), :class:`ReviewUnavailable` (the workers failed on it)."""
        need_id(guild_id)
        need_id(user_id)
        if game_id is None:
            game_id = await self._last_game(guild_id, user_id)
        need_game_id(game_id)
        rec = await ended_game(
            self.storage,
            guild_id,
            game_id,
            N_("game #{value} is still being played: ask for its review once it ends"),
        )
        seat = next((i for i, s in enumerate(rec.seats) if s.user_id == user_id), None)
        if seat is None:
            raise UnknownGame(
                Message(
                    "you did not play in game #{value}: a review is of your own decisions",
                    value=game_id,
                )
            )
        try:
            rules = Rules.from_spec(rec.rules)
        except DurakError as exc:
            raise UnknownGame(
                Message("game #{value} cannot be reviewed from what was stored", value=game_id)
            ) from exc

        record = {"rules": rec.rules, "deal": rec.deal, "actions": rec.actions}

        def view(review: GameReview, stored: bool) -> ReviewView:
            try:
                positions = review_positions(
                    GameRecord.from_dict(record), seat, (d.index for d in review.decisions)
                )
            except DurakError:  # reviewed all the same; the pages go without their table
                log.exception("the positions of game %d cannot be replayed", game_id)
                positions = ()
            return ReviewView(
                game_id=game_id,
                guild_id=guild_id,
                user_id=user_id,
                rules=rules,
                profile=profile_of(rules),
                players=players_of(rec.seats),
                review=review,
                stored=stored,
                positions=positions,
            )

        with storage_errors():
            kept = await self.storage.load_review(game_id, user_id, self.deals, REVIEW_SEED)
        if kept is not None:
            try:
                return view(GameReview.from_dict(json.loads(kept)), True)
            except (ReviewError, ValueError):  # an unreadable row: made again below
                log.exception("the stored review of game %d is unreadable", game_id)
        if user_id in self._running:
            raise ReviewBusy(
                Message(
                    "your review of game #{value} is still being made: one at a time",
                    value=self._running[user_id],
                )
            )
        if len(self._running) >= self.max_running:
            raise ReviewBusy()
        self._running[user_id] = game_id
        try:
            review = await self.ai.review(
                record, seat, deals=self.deals, seed=REVIEW_SEED, progress=progress
            )
        except ReviewError as exc:
            log.error("game %d cannot be reviewed: %s", game_id, exc)
            raise UnknownGame(
                Message("game #{value} cannot be reviewed from what was stored", value=game_id)
            ) from exc
        except (ReviewFailed, AIPoolClosed) as exc:
            log.warning("the review of game %d failed: %s", game_id, exc)
            raise ReviewUnavailable() from exc
        finally:
            del self._running[user_id]
        with storage_errors():
            await self.storage.save_review(
                ReviewRecord(
                    game_id=game_id,
                    user_id=user_id,
                    seat=seat,
                    deals=self.deals,
                    seed=REVIEW_SEED,
                    accuracy=review.accuracy,
                    data=json.dumps(review.to_dict(), ensure_ascii=False),
                    created_at=self.clock.now(),
                )
            )
        return view(review, False)

    async def _last_game(self, guild_id: int, user_id: int) -> int:
        """The player's last ended game in this guild (:class:`UnknownGame` if none)."""
        with storage_errors():
            _, records = await self.storage.history(guild_id, user_id, 1, 0)
        if not records:
            raise UnknownGame(Message("you have no ended game in this server to review yet"))
        return records[0].game_id
