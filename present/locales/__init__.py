"""The gettext catalogues of the bot (``<lang>/LC_MESSAGES/durak.po`` and ``.mo``); build
or check them with ``python -m present.locales`` (see ``__main__``)."""
