"""The French texts speak to the player in one register, "vous", and write apostrophes the
typographic way (’), in the catalogue (``durak.po``, translations only) and in what the bot
loads (the compiled ``durak.mo``)."""

from __future__ import annotations

import gettext
import re
from pathlib import Path

from babel.messages.pofile import read_po

from present.locales import __main__ as catalogues

PO = Path(catalogues.LOCALES) / "fr" / "LC_MESSAGES" / "durak.po"
MO = PO.with_suffix(".mo")

#: "tu" and its forms (subject, object, stressed, possessives), and an imperative to "tu"
#: the texts once used ("utilise /durak ..."; "L’hôte appuie" is the third person).
TU = re.compile(
    r"(?<![\w’'])(?:(?:tu|te|toi|ton|ta|tes|tien|tienne|tiens|tiennes)(?![\w’'])|t[’'](?=\w))"
    r"|-toi\b|\butilise /",
    re.IGNORECASE,
)


def _translations() -> list[str]:
    """Every French translation (each plural form apart), read from the ``.po``."""
    with PO.open("rb") as f:
        entries = [m for m in read_po(f) if m.id]
    return [s for m in entries for s in (m.string if isinstance(m.string, tuple) else (m.string,))]


def test_the_checks_catch_what_they_look_for() -> None:
    assert TU.search("Tu as quitté la partie") and TU.search("libérer ta place")
    assert TU.search("utilise /durak leave") and TU.search("t’as") and TU.search("assieds-toi")
    assert not TU.search("vous avez quitté la partie : l’IA joue votre place")
    assert not TU.search("la table est vide ; le talon et la défausse ; le statut")


def test_french_msgstrs_say_vous_and_use_typographic_apostrophes() -> None:
    texts = _translations()
    assert len(texts) > 400
    straight = [s for s in texts if "'" in s]
    assert straight == [], f"straight apostrophes: {straight}"
    familiar = [s for s in texts if TU.search(s)]
    assert familiar == [], f"'tu' in: {familiar}"
    assert sum("vous" in s.lower() or "votre" in s.lower() for s in texts) > 20


def test_the_compiled_catalogue_is_the_same_text() -> None:
    with MO.open("rb") as f:
        mo = gettext.GNUTranslations(f)
    loaded = [
        s
        for s in mo._catalog.values()  # type: ignore[attr-defined]
        if isinstance(s, str) and not s.startswith("Project-Id-Version")
    ]
    assert len(loaded) > 400
    assert [s for s in loaded if "'" in s or TU.search(s)] == []
    assert mo.gettext("you left this game (a forfeit): you cannot rejoin it") == (
        "vous avez quitté cette partie (un forfait) : vous ne pouvez pas y revenir"
    )
