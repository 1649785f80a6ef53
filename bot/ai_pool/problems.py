"""A recurring problem logged at most once a period, with how often it happened since."""

from __future__ import annotations

import logging

from bot.clock import Clock

__all__ = ["ProblemLog"]


class ProblemLog:
    """Logs each recurring problem (named by a key) at most once per ``every`` seconds of
    ``clock``, saying how often it happened since it was last logged."""

    def __init__(self, clock: Clock, every: float, log: logging.Logger) -> None:
        self._clock = clock
        self._every = every
        self._log = log
        self._reported: dict[tuple[object, ...], tuple[float, int]] = {}

    def note(
        self,
        key: tuple[object, ...],
        msg: str,
        *args: object,
        level: int = logging.ERROR,
        trace: bool = False,
    ) -> None:
        """Log ``msg`` % ``args`` for the problem ``key`` unless it was logged within the
        period (``trace``: with the traceback of the exception being handled)."""
        now = self._clock.now()
        last, since = self._reported.get(key, (None, 0))
        if last is not None and now - last < self._every:
            self._reported[key] = (last, since + 1)
            return
        if len(self._reported) > 1024:  # keep only the problems of the last period
            self._reported = {k: v for k, v in self._reported.items() if now - v[0] < self._every}
        self._reported[key] = (now, 0)
        if since:
            msg += " (%d more times since it was last logged)"
            args = (*args, since)
        self._log.log(level, msg, *args, exc_info=trace)
