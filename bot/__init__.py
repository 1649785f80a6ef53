"""durak-bot's transport-agnostic game service.

Nothing in this package imports discord.py except the startup module ``apps.discord_bot``
(written separately).  Adapters (Discord cogs, the terminal mode, tests) talk to
:class:`bot.service.GameService` with plain ints and strings, receive frozen views
(:mod:`bot.views`) and typed errors (:mod:`bot.errors`), and render events pushed to a
:class:`bot.presenter.Presenter`.
"""

from bot.errors import ServiceError
from bot.service import GameService

__all__ = ["GameService", "ServiceError"]
