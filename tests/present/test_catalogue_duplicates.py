"""No sentence is in the catalogue twice.

A phrase players read is written once (in :mod:`present`), and each adapter adds its own
formatting around it or to its parameters: Discord its markdown and emoji, the web its JSON,
the terminal its plain lines.  So no two entries of the extracted messages may say the same
sentence once their formatting is set aside."""

from __future__ import annotations

import collections
import re
import tempfile
import unicodedata
from pathlib import Path

from present.locales.__main__ import entries, extract

#: Markdown marks and escapes (bold, italics, code, strike-through).
_MARKDOWN = re.compile(r"[*_`~\\]")
#: A placeholder, whatever its name: ``{name}`` and ``{player}`` fill the same slot.
_PLACEHOLDER = re.compile(r"\{[A-Za-z_][A-Za-z0-9_]*\}")
#: What may surround a sentence without changing it: spaces, end punctuation, dashes.
_SURROUNDING = " .:;!¡?¿…—–-"
_SUITS = frozenset("♠♣♥♦")


def sentence(msgid: str) -> str:
    """What ``msgid`` says without its formatting: no markdown, no emoji or symbols (card suits
    kept), placeholders without their names, single spaces, and no punctuation or spaces
    around it.  Letter case is kept: a button's label ("Take") and a fragment that goes
    inside another sentence ("take") are translated apart."""
    text = _PLACEHOLDER.sub("{}", msgid)
    text = _MARKDOWN.sub("", text)
    text = "".join(
        ch
        for ch in text
        if ch in _SUITS or unicodedata.category(ch) not in ("So", "Sk", "Mn", "Me", "Cf")
    )
    return " ".join(text.replace("\xa0", " ").split()).strip(_SURROUNDING)


def duplicates(msgids: list[tuple[str | None, str]]) -> list[list[str]]:
    """The groups of ``(context, msgid)`` entries that say the same sentence in one context."""
    groups: dict[tuple[str | None, str], list[str]] = collections.defaultdict(list)
    for context, msgid in msgids:
        groups[context, sentence(msgid)].append(msgid)
    return sorted(sorted(group) for group in groups.values() if len(group) > 1)


def _extracted() -> list[tuple[str | None, str]]:
    """Every message of the source, as ``python -m present.locales`` extracts it."""
    with tempfile.TemporaryDirectory() as tmp:
        template = Path(tmp) / "durak.pot"
        assert extract(template) == 0
        messages = entries(template)
    return [
        (message.context, str(message.id[0] if isinstance(message.id, tuple) else message.id))
        for message in messages
    ]


def test_a_sentence_is_the_same_with_or_without_its_formatting() -> None:
    same = [
        ("⏳ **{name}** to defend", "{name} to defend"),
        (
            "🛑 **The game was stopped: no loss is recorded.**",
            "The game was stopped: no loss is recorded.",
        ),
        ("*The table is empty.*", "The table is empty."),
        ("🃏 **{name}** is the durak", "{player} is the durak!"),
        ("Égalité\xa0: personne", "Égalité : personne"),
        ("Add an AI player…", "Add an AI player"),
    ]
    for a, b in same:
        assert sentence(a) == sentence(b), (a, b)
    different = [("Take", "take"), ("Trump: {suit}", "Trump: {suit} — {card}"), ("8♥", "8♠")]
    for a, b in different:
        assert sentence(a) != sentence(b), (a, b)
    assert duplicates([(None, "Pass"), ("cmd", "Pass"), (None, "**Pass**")]) == [
        ["**Pass**", "Pass"]
    ]


def test_no_two_catalogue_entries_are_the_same_sentence() -> None:
    entries = _extracted()
    assert len(entries) > 400
    assert duplicates(entries) == []
