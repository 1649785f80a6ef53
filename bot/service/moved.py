"""Commands that survive another process's write: retried on a fresh copy.

A command whose fenced write lost (:class:`~bot.errors.ChannelMoved`: another bot process
wrote the channel since this one read it) changed nothing, and the transaction dropped this
process's copy of the channel (:meth:`bot.service.channels.Channels.edit`).  Running the
command once more reads the channel again and decides on what is stored now: a join pressed
in one process while another process changed the lobby is applied on the other's seats, not
lost.  After :data:`ATTEMPTS` losses in a row (processes racing on one channel) the refusal
is the answer: nothing was applied, and the player presses again.

Each command that writes a channel says so where it is defined, with :func:`retry_moved` on
its method (:mod:`bot.service.lobby`, :mod:`~bot.service.fairplay`, :mod:`~bot.service.play`).
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Awaitable, Callable
from typing import ParamSpec, TypeVar

from bot.errors import ChannelMoved

__all__ = ["ATTEMPTS", "retry_moved"]

#: How many times a command runs before a lost fence is the answer.  A channel's commands run
#: one at a time in a process, so a command loses once per write that another process made
#: to the channel while it ran: five runs outlast a burst of presses from two or three
#: processes (each of the others writing the channel in turn), and still end a livelock.
ATTEMPTS = 5

log = logging.getLogger(__name__)

_P = ParamSpec("_P")
_R = TypeVar("_R")


def retry_moved(command: Callable[_P, Awaitable[_R]]) -> Callable[_P, Awaitable[_R]]:
    """``command``, run again (on a fresh copy of its channel) when its write lost."""

    @functools.wraps(command)
    async def run(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        for _ in range(ATTEMPTS - 1):
            try:
                return await command(*args, **kwargs)
            except ChannelMoved as exc:
                log.info("%s: %s; reading the channel again", command.__name__, exc)
        return await command(*args, **kwargs)

    return run
