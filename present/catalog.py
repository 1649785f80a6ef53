"""The gettext catalogues as every adapter reads them, without discord.py.

The Discord adapter (:mod:`cogs.i18n`), the web (:mod:`web`) and the terminal translate from
the same catalogues; this module imports nothing of discord.py.

- :func:`pick_locale` chooses the language of a reply: the user's locale, else the
  server's (or the browser's), else English.
- :func:`catalog` gives a cached :class:`Catalog` of one language in one adapter's
  :class:`~present.wording.Wording` (required: each adapter binds its own), with
  ``gettext``-style helpers and :meth:`Catalog.render`, which translates a
  :class:`~rules_engine.messages.Message` with typed parameters; :func:`render` does the same
  from a locale name.
"""

from __future__ import annotations

import functools
import gettext
from collections.abc import Sequence
from pathlib import Path

from present.messages import CardText, fill, render_message
from present.wording import Wording
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
    """One language's messages, in one adapter's wording of the service's terms.  English
    (``en``) returns the msgids themselves."""

    def __init__(
        self, locale: str, translations: gettext.NullTranslations, wording: Wording
    ) -> None:
        self.locale = locale
        self.wording = wording
        self._t = translations

    def __repr__(self) -> str:
        return f"Catalog({self.locale!r}, {type(self.wording).__name__})"

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
        """``message`` in this language (see :func:`present.messages.render_message`): a
        ``Seat`` is ``names[seat]``, cards are written with ``card_text``, the service's terms
        in this catalogue's wording."""
        return render_message(
            message, names, wording=self.wording, translations=self._t, card_text=card_text
        )


def catalog(locale: str | None, wording: Wording) -> Catalog:
    """The cached catalogue of ``locale`` (a supported language or any locale string;
    unsupported or ``None`` → English) in ``wording`` (the adapter's).
    ``catalog("es-ES", w) is catalog("es", w)``."""
    return _catalog(language(locale) or "en", wording)


def render(
    message: Message,
    locale: str | None,
    wording: Wording,
    names: Sequence[str] = (),
    *,
    card_text: CardText = str,
) -> str:
    """``message`` translated into ``locale`` in ``wording`` (see :meth:`Catalog.render`)."""
    return catalog(locale, wording).render(message, names, card_text=card_text)


@functools.cache
def _catalog(lang: str, wording: Wording) -> Catalog:
    return Catalog(lang, _translations(lang), wording)


@functools.cache
def _translations(lang: str) -> gettext.NullTranslations:
    if lang == "en":
        return gettext.NullTranslations()
    try:
        return gettext.translation(DOMAIN, localedir=str(LOCALEDIR), languages=[lang])
    except OSError:  # no compiled catalogue: English rather than a crash
        return gettext.NullTranslations()
