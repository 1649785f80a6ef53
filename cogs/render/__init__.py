"""Pure rendering of the service's views into Discord message data (no I/O, no discord objects).

Every function returns plain data that the adapter converts:
:class:`~cogs.render.message.Reply` with embeds as Discord embed JSON dicts
(``discord.Embed.from_dict``) and components as :class:`~cogs.render.message.Button` /
:class:`~cogs.render.message.Select` (classic ``ui.View`` layout: rows 0–4, ≤ 5 buttons per
row, a select fills a row).  Every user-visible string goes through the
:class:`~cogs.i18n.Catalog`.

Card colours: on buttons, playable red cards (♥ ♦) are ``danger`` (red) and playable black cards
(♠ ♣) ``primary``; cards that cannot be played now are ``secondary`` (grey) but stay enabled,
since pressing one explains why.  In embed text, red suits carry the emoji variation selector
(``10♦️`` shows a red diamond) and black suits stay text glyphs; the card text itself is always
rank then suit, e.g. ``10♦``.

The words are the presentation layer's (:mod:`present`: seat names, the status line, the
outcome, the last moves, action labels, rules summaries, standings); these modules add
Discord's markdown, emoji and components to them.

Modules: :mod:`~cogs.render.message` (the message shape and Discord's limits),
:mod:`~cogs.render.text` (Discord's style: cards, escaped and bold names, times),
:mod:`~cogs.render.deck` (the trump, stock and round heading a table or a replay frame), and
one module per message:
:mod:`~cogs.render.lobby`, :mod:`~cogs.render.table`, :mod:`~cogs.render.hand`,
:mod:`~cogs.render.records` (series, stats, leaderboard, history, replay),
:mod:`~cogs.render.info` (rules, config, help), :mod:`~cogs.render.notices`.
"""
