"""Short messages: private refusals and warnings (missing permissions, a hidden lobby or table),
the forfeit confirmation, and the public one-line notices."""

from __future__ import annotations

from collections.abc import Sequence

from cogs.custom_ids import game_id
from cogs.i18n import Catalog
from cogs.render.message import CONTENT_MAX, Button, Reply, clip
from cogs.render.text import card_md
from rules_engine.messages import N_, Message

__all__ = [
    "NEEDED_PERMISSIONS",
    "THREAD_PERMISSIONS",
    "render_confirm_forfeit",
    "render_error",
    "render_forfeited",
    "render_hidden",
    "render_missing_permissions",
    "render_notice",
]


def render_error(message: Message, t: Catalog, names: Sequence[str] = ()) -> Reply:
    """A private refusal (a service error's or engine reason's message); ``names`` name its
    ``Seat`` parameters."""
    body = t.render(message, names, card_text=card_md)
    return Reply(content=clip("⚠️ " + body[:1].upper() + body[1:], CONTENT_MAX))


_NOTICE_EMOJI = {
    "timeout": "⏰",
    "autopilot_on": "🤖",
    "autopilot_off": "👋",
    "stopped": "🛑",
    "series_ended": "🏁",
    "restored": "🔄",
    "forfeit": "🏳️",
    "kicked": "👢",
    "host": "👑",
    "stop_vote": "🗳️",
    "error": "⚠️",
}


def render_confirm_forfeit(game: int, message: Message, t: Catalog) -> Reply:
    """The private confirmation of leaving a running game (``message`` says what it means),
    with a "Leave and forfeit" button for game ``game``."""
    body = t.render(message, (), card_text=card_md)
    return Reply(
        content=clip("⚠️ " + body[:1].upper() + body[1:], CONTENT_MAX),
        components=(Button(game_id(game, 0, "forfeit"), t.gettext("Leave and forfeit"), "danger"),),
    )


def render_forfeited(t: Catalog) -> Reply:
    """What the confirmation becomes once the player has left: no buttons any more."""
    return Reply(content="🏳️ " + t.gettext("You left the game: the AI plays your seat to the end."))


def render_notice(kind: str, message: Message, t: Catalog, names: Sequence[str] = ()) -> str:
    """A public one-line notice; ``names`` name its ``Seat`` parameters.  Mentions are
    neutralised: send it with ``allowed_mentions=none`` all the same."""
    body = t.render(message, names, card_text=card_md)
    body = body.replace("@", "@\u200b")
    body = body[:1].upper() + body[1:]
    emoji = _NOTICE_EMOJI.get(kind, "ℹ️")
    return clip(f"{emoji} {body}", CONTENT_MAX)


#: The bot's channel permissions a game needs, with their names as Discord shows them.
NEEDED_PERMISSIONS = (
    ("view_channel", N_("View Channel")),
    ("send_messages", N_("Send Messages")),
    ("embed_links", N_("Embed Links")),
    ("read_message_history", N_("Read Message History")),
)
#: The same in a thread, where posting is a permission of its own: Send Messages in Threads
#: (Send Messages alone does not let the bot post there).
THREAD_PERMISSIONS = (
    ("view_channel", N_("View Channel")),
    ("send_messages_in_threads", N_("Send Messages in Threads")),
    ("embed_links", N_("Embed Links")),
    ("read_message_history", N_("Read Message History")),
)


def render_missing_permissions(missing: Sequence[str], t: Catalog) -> Reply:
    """The private refusal of ``/durak new`` when the bot lacks channel permissions
    (``missing``: names of :data:`NEEDED_PERMISSIONS` or :data:`THREAD_PERMISSIONS`)."""
    labels = dict(NEEDED_PERMISSIONS + THREAD_PERMISSIONS)
    names = ", ".join(f"**{t.gettext(labels[m])}**" for m in missing if m in labels)
    text = t.fill(
        "I cannot run a game in this channel: I am missing the permission(s) {permissions}. "
        "Ask a moderator to grant them to me here; nothing was opened.",
        permissions=names,
    )
    return Reply(content=clip("⚠️ " + text, CONTENT_MAX))


def render_hidden(what: str, channel_id: int, problem: str, t: Catalog) -> Reply:
    """The host's private warning that a public message could not be posted or edited:
    ``what`` is ``lobby`` (the lobby was closed) or ``table`` (the game is paused);
    ``problem`` is ``permissions``, ``gone`` or ``refused``."""
    reasons = {
        "permissions": N_("I am missing permissions there"),
        "gone": N_("the channel or the message is gone"),
        "refused": N_("Discord refused the message"),
    }
    reason = t.gettext(reasons.get(problem, reasons["refused"]))
    channel = "<#" + str(channel_id) + ">"
    if what == "lobby":
        text = t.fill(
            "I could not post the lobby in {channel} ({reason}), so I closed it. Check my "
            "permissions there (View Channel, Send Messages, Embed Links, Read Message "
            "History) and open it again.",
            channel=channel,
            reason=reason,
        )
    else:
        text = t.fill(
            "I could not show the table in {channel} ({reason}). The game is paused: no "
            "turn runs out and no AI moves until /durak table works there again, or the "
            "game is stopped.",
            channel=channel,
            reason=reason,
        )
    return Reply(content=clip("⚠️ " + text, CONTENT_MAX))
