"""The web's words for the service's terms (:mod:`bot.terms`), for rooms and table pages: a
command is the name of the page's button that gives it, the reader's channel is "here", and
nothing names Discord's commands, permissions or channel mentions.  Every catalogue of the web
adapter renders with it (:func:`catalog`).
"""

from __future__ import annotations

from bot.terms import ChannelList, Command, Permission, Place
from present import catalog as catalogs
from present.catalog import Catalog
from present.messages import fill
from present.wording import Translations, Wording
from rules_engine.messages import N_
from web.strings import ROOM_STRINGS

__all__ = ["WEB_WORDING", "WebWording", "catalog"]

#: The button of the pages that gives each command (``None``: the web has none).
_BUTTONS: dict[Command, str] = {
    Command.NEW: ROOM_STRINGS["new_room"],
    Command.LEAVE: ROOM_STRINGS["leave"],
    Command.STOP: ROOM_STRINGS["stop"],
}
#: A command the pages have no button for, in words.
_ELSEWHERE: dict[Command, str] = {
    Command.FORGET_ME: N_("the Discord bot's command to forget you"),
}
_PERMISSIONS: dict[Permission, str] = {
    Permission.MANAGE_CHANNEL: N_("moderator rights"),
    Permission.MANAGE_SERVER: N_("server administrator rights"),
}
_PLACES: dict[Place, str] = {Place.HERE: N_("here")}


class WebWording(Wording):
    """The terms as the web pages word them (see the module)."""

    def command(self, command: Command, t: Translations) -> str:
        button = _BUTTONS.get(command)
        if button is None:
            return t.gettext(_ELSEWHERE[command])
        return fill(t.gettext(N_("“{button}”")), {"button": t.gettext(button)})

    def permission(self, permission: Permission, t: Translations) -> str:
        return t.gettext(_PERMISSIONS[permission])

    def place(self, place: Place, t: Translations) -> str:
        return t.gettext(_PLACES[place])

    def channels(self, channels: ChannelList, t: Translations) -> str:
        n = len(channels.ids)
        template = t.ngettext("{count} channel of the server", "{count} channels of the server", n)
        return fill(template, {"count": str(n)})


#: The web adapter's wording.
WEB_WORDING = WebWording()


def catalog(locale: str | None) -> Catalog:
    """The catalogue of ``locale`` in the web's wording (:func:`present.catalog.catalog`)."""
    return catalogs.catalog(locale, WEB_WORDING)
