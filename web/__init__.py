"""The web table: the game as a page in a browser or a Discord Activity, served by the bot.

An adapter beside the Discord one and the terminal's: an aiohttp application in the
bot's own process and event loop (:mod:`web.app`), so a move on the page and a move with a
Discord button are the same service call under the same lock.  The protocol between the server
and the page is docs/WEB.md.  Modules: :mod:`~web.app` (routes, headers, server),
:mod:`~web.http_server` (its connections capped and timed out, its access log),
:mod:`~web.env` (the server's settings read from the environment),
:mod:`~web.protocol` (what every page socket shares: frames, limits, refusals, language),
:mod:`~web.close_codes` (its close codes), :mod:`~web.sockets` (the table page's WebSocket),
:mod:`~web.connection` (an open page and its frames), :mod:`~web.presenter` (pushes the
service's events to the table pages),
:mod:`~web.serialize` (views to JSON, translated), :mod:`~web.strings` (the pages' own words),
:mod:`~web.pages` (the HTML pages, in the reader's language), :mod:`~web.static_files` (the
pages' files), :mod:`~web.tokens` (signed links), :mod:`~web.links` (the links in Discord
messages), :mod:`~web.activity` (the Discord Activity's sign-in), :mod:`~web.rooms` (rooms
without Discord: home page, invite links, guests).  Their entry points are
:mod:`~apps.play_web` (``durak-bot play --web``), :mod:`~apps.web_rooms` (``durak-bot web``)
and :mod:`~apps.web_bench` (the benchmark).

Nothing here imports discord.py: the Discord adapter is told about links through
:class:`web.links.TableLinks`, and the texts come from :mod:`present.locales`.
"""
