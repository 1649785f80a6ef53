"""The web table: the game as a page in a browser or a Discord Activity, served by the bot.

An adapter beside the Discord one and the terminal's: an aiohttp application in the
bot's own process and event loop (:mod:`web.app`), so a move on the page and a move with a
Discord button are the same service call under the same lock.  The protocol between the server
and the page is docs/WEB.md.  Modules: :mod:`~web.app` (routes, headers, server),
:mod:`~web.sockets` (the page's WebSocket), :mod:`~web.presenter` (pushes the service's events
to the pages), :mod:`~web.serialize` (views to JSON, translated), :mod:`~web.tokens` (signed
links), :mod:`~web.links` (the links in Discord messages), :mod:`~web.activity` (the Discord
Activity's sign-in), :mod:`~web.static_files` (the page's files), :mod:`~apps.play_web`
(``durak-bot play --web``), :mod:`~apps.web_bench` (the benchmark), :mod:`~web.rooms` and
:mod:`~web.room_limits` (rooms without Discord: home page, invite links, guests),
:mod:`~apps.web_rooms` (``durak-bot web``).

Nothing here imports discord.py: the Discord adapter is told about links through
:class:`web.links.TableLinks`, and the texts come from :mod:`present.locales`.
"""
