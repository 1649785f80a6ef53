"""The private answers of ``/durak play`` that are not an Activity: the web table's link, or
why there is none."""

from __future__ import annotations

from cogs.i18n import Catalog
from cogs.render.message import Reply, link_button

__all__ = ["render_no_web_table", "render_table_link"]


def render_table_link(url: str, t: Catalog, *, player: bool) -> Reply:
    """The channel's web table as a link button: the player's own (their hand, ``player``) or
    the Watch link."""
    text = (
        t.gettext("Your table in the browser, with your hand: this link is yours alone.")
        if player
        else t.gettext("This channel's table in the browser (you watch: you have no seat).")
    )
    return Reply(
        content="🌐 " + text,
        components=(link_button(url, t.gettext("Open the table"), emoji="🌐"),),
    )


def render_no_web_table(t: Catalog) -> Reply:
    """``/durak play`` on a bot without a web table."""
    return Reply(
        content="ℹ️ "
        + t.gettext(
            "The web table is not enabled on this bot (its owner sets PUBLIC_URL to turn it "
            "on). Play with the buttons of the table and of your hand."
        )
    )
