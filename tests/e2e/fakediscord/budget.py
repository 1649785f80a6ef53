"""Counting the bot's REST requests by the budget Discord charges them to.

Discord limits a bot token to 50 requests a second across all its servers; interaction
responses (``POST /interactions/{id}/{token}/callback``) and the interaction webhooks
(followups and ``@original`` edits under ``/webhooks/{application}/{token}``) are not counted
against it.  :func:`request_kind` tells which budget a request's path falls in, and
:meth:`RequestBudget.request_counts` counts a stretch of the fake's request log."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from .core import FakeCore

if TYPE_CHECKING:
    from .rest import RequestRecord

__all__ = ["RequestBudget", "RequestCounts", "RequestKind", "request_kind"]

#: ``bot``: sent with the bot token (counted by the global limit); ``interaction``: an
#: interaction callback; ``webhook``: a followup or ``@original`` edit of an interaction.
RequestKind = Literal["bot", "interaction", "webhook"]


def request_kind(path: str) -> RequestKind:
    """The budget of a request to ``path`` (without the ``/api/v10`` prefix)."""
    if path.startswith("/interactions/"):
        return "interaction"
    if path.startswith("/webhooks/"):
        return "webhook"
    return "bot"


@dataclass(frozen=True)
class RequestCounts:
    """How many requests of each kind; ``rate_limited``: how many of them were answered 429."""

    bot: int = 0
    interaction: int = 0
    webhook: int = 0
    rate_limited: int = 0

    @property
    def not_bot(self) -> int:
        """Interaction callbacks and webhooks: the requests outside the bot token's limit."""
        return self.interaction + self.webhook

    @classmethod
    def of(cls, records: Iterable[RequestRecord]) -> RequestCounts:
        counts = {"bot": 0, "interaction": 0, "webhook": 0}
        limited = 0
        for r in records:
            counts[r.kind] += 1
            limited += r.status == 429
        return cls(rate_limited=limited, **counts)


class RequestBudget(FakeCore):
    """The fake's request log, counted by budget."""

    def request_counts(self, since: int = 0) -> RequestCounts:
        """Counts of the requests logged from index ``since`` of :attr:`requests` on (take
        ``len(fake.requests)`` before the stretch to count)."""
        return RequestCounts.of(self.requests[since:])
