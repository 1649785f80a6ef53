"""The private answers of ``/durak privacy`` (what is stored about the reader) and
``/durak forget-me`` (its confirmation, and what it becomes once pressed)."""

from __future__ import annotations

from collections.abc import Mapping

from bot.player_records import PrivacyView, ServerRecords
from bot.views import ForgetRequest
from cogs.custom_ids import forget_id
from cogs.i18n import Catalog
from cogs.render.message import (
    BLURPLE,
    CONTENT_MAX,
    FIELD_VALUE_MAX,
    FIELDS_MAX,
    Button,
    Reply,
    clip,
    clip_lines,
    embed_field,
    make_embed,
)
from cogs.render.text import esc, when

__all__ = [
    "render_confirm_forget",
    "render_forget_cancelled",
    "render_forgotten",
    "render_privacy",
]

#: Servers listed one field each; the others are counted in the last field.
_SERVER_FIELDS = FIELDS_MAX - 1


def _date(epoch: float) -> str:
    """A date as Discord shows it in the reader's own language and time zone."""
    return f"<t:{int(epoch)}:d>"


def _server_title(server: ServerRecords, names: Mapping[int, str], t: Catalog) -> str:
    name = names.get(server.guild_id)
    if name:
        return t.fill("Server {name}", name=esc(name, 80))
    return t.fill("Server {name}", name=server.guild_id)


def _server_lines(server: ServerRecords, t: Catalog) -> list[str]:
    """What is stored in one server, one line per kind of record it holds."""
    lines = []
    if server.games:
        games = t.nfill("Seated in {count} game", "Seated in {count} games", server.games)
        if server.first_at is not None and server.last_at is not None:
            games += " " + t.fill(
                "(from {first} to {last})", first=_date(server.first_at), last=_date(server.last_at)
            )
        lines.append(games)
    if server.results:
        lines.append(
            t.nfill(
                "{count} finished game counted in your stats",
                "{count} finished games counted in your stats",
                server.results,
            )
        )
    if server.forfeits:
        lines.append(t.nfill("{count} forfeit", "{count} forfeits", server.forfeits))
    if server.series:
        lines.append(
            t.nfill(
                "{count} series you sat in or hosted",
                "{count} series you sat in or hosted",
                server.series,
            )
        )
    for r in server.ratings:
        lines.append(
            t.nfill(
                "Rating in {profile}: **{rating}** ({count} rated game)",
                "Rating in {profile}: **{rating}** ({count} rated games)",
                r.games,
                profile=r.profile,
                rating=r.rating.display,
            )
        )
    if server.rating_changes:
        lines.append(
            t.nfill(
                "{count} rating change (one per rated game)",
                "{count} rating changes (one per rated game)",
                server.rating_changes,
            )
        )
    if server.open_channels:
        lines.append(
            t.fill(
                "Now in a lobby or a game in {channels}",
                channels=", ".join(f"<#{c}>" for c in server.open_channels),
            )
        )
    return lines


def render_privacy(
    view: PrivacyView, t: Catalog, servers: Mapping[int, str] | None = None
) -> Reply:
    """``/durak privacy``: what is stored about the reader, per server (``servers``: the
    names of the servers the bot knows, by id; the others are shown by id)."""
    title = t.gettext("What the Durak bot stores about you")
    footer = t.gettext(
        "Kept until you erase it with /durak forget-me, or until the bot's operator deletes "
        "its database. Only you see this."
    )
    if view.empty:
        text = t.gettext("Nothing: no game, series, result or rating of yours is stored.")
        return Reply(embeds=(make_embed(title, text, color=BLURPLE, footer=footer),))
    lines = [
        t.fill("Your Discord user id: `{id}`", id=view.user_id),
        t.fill(
            "Names stored with it (your display name when you played): {names}",
            names=", ".join(f"**{esc(n)}**" for n in view.names) or "—",
        ),
    ]
    shown, more = view.servers[:_SERVER_FIELDS], view.servers[_SERVER_FIELDS:]
    fields = [
        embed_field(
            _server_title(s, servers or {}, t), clip_lines(_server_lines(s, t), FIELD_VALUE_MAX)
        )
        for s in shown
    ]
    if more:
        fields.append(
            embed_field(
                "…",
                t.nfill("and {count} more server", "and {count} more servers", len(more)),
            )
        )
    return Reply(
        embeds=(make_embed(title, "\n".join(lines), color=BLURPLE, fields=fields, footer=footer),)
    )


def _summary(view: PrivacyView, t: Catalog) -> str:
    """How much is stored: games, servers, ratings."""
    return ", ".join(
        (
            t.nfill("{count} game", "{count} games", view.games),
            t.nfill("{count} server", "{count} servers", len(view.servers)),
            t.nfill("{count} rating", "{count} ratings", view.ratings),
        )
    )


def render_confirm_forget(request: ForgetRequest, t: Catalog) -> Reply:
    """``/durak forget-me``: the private warning, with Erase (danger) and Cancel buttons that
    only the asker may press, until the request expires.  When nothing is stored, it says so
    and offers nothing to press."""
    if request.stored.empty:
        return Reply(
            content="ℹ️ "
            + t.gettext("The Durak bot stores nothing about you: there is nothing to erase.")
        )
    text = "\n".join(
        (
            "⚠️ **" + t.gettext("Erase everything the Durak bot stores about you?") + "**",
            t.gettext(
                "Your name and Discord id will be removed from every game and series, in every "
                "server: your seats in past games will read “a former player”. Your results, "
                "stats and ratings will be deleted. The other players' results stay as they "
                "were. This cannot be undone."
            ),
            t.fill("Stored now: {summary}.", summary=_summary(request.stored, t)),
            t.fill("This confirmation expires {when}.", when=when(request.expires_at)),
        )
    )
    user, expires = request.user_id, request.expires_at
    return Reply(
        content=clip(text, CONTENT_MAX),
        components=(
            Button(forget_id(user, expires, "confirm"), t.gettext("Erase my data"), "danger"),
            Button(forget_id(user, expires, "cancel"), t.gettext("Cancel")),
        ),
    )


def render_forgotten(erased: PrivacyView, t: Catalog) -> Reply:
    """What the confirmation becomes once the erasure is done (no buttons any more)."""
    text = "\n".join(
        (
            "✅ "
            + t.gettext(
                "Done: your name and Discord id were erased from every record. Your seats in "
                "past games now read “a former player”; your results, stats and ratings are "
                "gone."
            ),
            t.fill("Erased: {summary}.", summary=_summary(erased, t)),
            t.gettext("If you play again, your new games are stored as usual."),
        )
    )
    return Reply(content=clip(text, CONTENT_MAX))


def render_forget_cancelled(t: Catalog) -> Reply:
    """What the confirmation becomes after Cancel."""
    return Reply(content="↩️ " + t.gettext("Nothing was erased."))
