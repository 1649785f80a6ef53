"""The gettext catalogues as both adapters read them, without discord.py.

The Discord adapter (:mod:`cogs.i18n`, which re-exports these names) and the web table
(:mod:`web`) translate from the same catalogues; this module imports nothing of discord.py,
so the web table can use it alone.

- :func:`pick_locale` chooses the language of a reply: the user's locale, else the
  server's (or the browser's), else English.
- :func:`catalog` gives a cached :class:`Catalog` with ``gettext``-style helpers and
  :meth:`Catalog.render`, which translates a :class:`~rules_engine.messages.Message` with
  typed parameters; :func:`render` does the same from a locale name.
"""

from __future__ import annotations

import functools
import gettext
from collections.abc import Sequence
from pathlib import Path

from present.messages import CardText, fill, render_message
from rules_engine.messages import Message

__all__ = [
    "DOMAIN",
    "LOCALEDIR",
    "NC_",
    "SUPPORTED",
    "Catalog",
    "catalog",
    "language",
    "pick_locale",
    "render",
]

SUPPORTED = ("en", "es", "fr")
DOMAIN = "durak"
LOCALEDIR = Path(__file__).parent / "locales"


def NC_(context: str, text: str) -> str:
    """Mark ``text`` for extraction with a message ``context`` (for command strings, translated
    later by :class:`cogs.i18n.DurakTranslator`); returns ``text``."""
    del context
    return text


def language(locale: str | None) -> str | None:
    """The catalogue language of a locale string (``es-ES``/``es-419``/``es_MX`` → ``es``,
    ``fr-CA`` → ``fr``, ``en-US`` → ``en``), ``None`` when unsupported or empty."""
    if locale is None:
        return None
    text = locale.strip()
    if not text:
        return None
    lang = text.replace("_", "-").split("-", 1)[0].lower()
    return lang if lang in SUPPORTED else None


def pick_locale(user_locale: str | None, fallback_locale: str | None) -> str:
    """The language of a reply: the user's locale if supported, else the fallback (the
    server's, or the browser's), else English."""
    return language(user_locale) or language(fallback_locale) or "en"


class Catalog:
    """One language's messages.  English (``en``) returns the msgids themselves."""

    def __init__(self, locale: str, translations: gettext.NullTranslations) -> None:
        self.locale = locale
        self._t = translations

    def __repr__(self) -> str:
        return f"Catalog({self.locale!r})"

    # gettext -------------------------------------------------------------
    def gettext(self, msgid: str) -> str:
        """The translation of ``msgid``."""
        return self._t.gettext(msgid)

    def ngettext(self, singular: str, plural: str, n: int) -> str:
        """The translation of ``singular``/``plural`` for the number ``n``."""
        return self._t.ngettext(singular, plural, n)

    def pgettext(self, context: str, msgid: str) -> str:
        """The translation of ``msgid`` in ``context``."""
        return self._t.pgettext(context, msgid)

    def fill(self, msgid: str, /, **params: object) -> str:
        """Translate ``msgid`` and fill its ``{placeholders}`` with ``params`` (as text)."""
        return fill(self.gettext(msgid), {k: str(v) for k, v in params.items()})

    def nfill(self, singular: str, plural: str, n: int, /, **params: object) -> str:
        """Plural-aware :meth:`fill`; ``{count}`` is ``n`` unless given."""
        params.setdefault("count", n)
        return fill(self.ngettext(singular, plural, n), {k: str(v) for k, v in params.items()})

    # messages ------------------------------------------------------------
    def render(
        self, message: Message, names: Sequence[str] = (), *, card_text: CardText = str
    ) -> str:
        """``message`` in this language (see :func:`present.messages.render_message`): a ``Seat`` is
        ``names[seat]``, cards are written with ``card_text``."""
        return render_message(message, names, translations=self._t, card_text=card_text)


def catalog(locale: str | None) -> Catalog:
    """The cached catalogue of ``locale`` (a supported language or any locale string;
    unsupported or ``None`` → English).  ``catalog("es-ES") is catalog("es")``."""
    return _load(language(locale) or "en")


def render(
    message: Message, locale: str | None, names: Sequence[str] = (), *, card_text: CardText = str
) -> str:
    """``message`` translated into ``locale`` (see :meth:`Catalog.render`)."""
    return catalog(locale).render(message, names, card_text=card_text)


@functools.cache
def _load(lang: str) -> Catalog:
    if lang == "en":
        return Catalog("en", gettext.NullTranslations())
    try:
        translations: gettext.NullTranslations = gettext.translation(
            DOMAIN, localedir=str(LOCALEDIR), languages=[lang]
        )
    except OSError:  # no compiled catalogue: English rather than a crash
        translations = gettext.NullTranslations()
    return Catalog(lang, translations)
