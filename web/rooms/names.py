"""Guest names that would pass for an AI seat: refused, in every language the pages speak.

An AI seat is named after its level in the reader's language ("Casual AI", "IA Casual",
"IA Occasionnelle", numbered from the second one on: :func:`present.names.seat_names`).  A
guest called the same, or the same written with look-alike letters (Cyrillic or Greek ones,
full-width forms, accents, other spacing or punctuation, ``0`` for ``O``, ``1`` or ``I`` for
``l``), would pass for one: :func:`looks_like_ai` compares the names' skeletons
(:func:`skeleton`, after Unicode's confusables skeleton, for the letters that matter here).
"""

from __future__ import annotations

import functools
import re
import unicodedata

from bot.errors import BadOption
from present.catalog import SUPPORTED
from present.names import LEVEL_TEXTS, ai_label
from rules_engine.messages import Message
from web.wording import catalog

__all__ = ["AI_LOOKALIKE", "check_not_ai", "looks_like_ai", "skeleton"]

AI_LOOKALIKE = Message("a name cannot look like an AI player's name: choose another")

#: The number after a second AI seat of a level ("Casual AI 2").
_NUMBER = re.compile(r"[\s\W]*\d+\W*$")

#: Letters that look like Latin ones (after NFKD and without their marks), and the Latin
#: letter they pass for; ``I``, ``l``, ``i``, ``1`` and ``|`` all pass for one another (as
#: ``i``), and ``0`` for ``o``.
_LOOKALIKES = str.maketrans(
    {
        # Cyrillic
        "А": "A",
        "В": "B",
        "Е": "E",
        "К": "K",
        "М": "M",
        "Н": "H",
        "О": "O",
        "Р": "P",
        "С": "C",
        "Т": "T",
        "Х": "X",
        "У": "Y",
        "Ѕ": "S",
        "І": "i",
        "Ј": "J",
        "Ӏ": "i",
        "а": "a",
        "е": "e",
        "о": "o",
        "р": "p",
        "с": "c",
        "у": "y",
        "х": "x",
        "ѕ": "s",
        "і": "i",
        "ј": "j",
        "һ": "h",
        "ԁ": "d",
        "ԛ": "q",
        "ԝ": "w",
        "ӏ": "i",
        "ь": "b",
        "к": "k",
        "м": "m",
        "н": "h",
        "т": "t",
        "в": "b",
        "г": "r",
        "п": "n",
        "л": "n",
        # Greek
        "Α": "A",
        "Β": "B",
        "Ε": "E",
        "Ζ": "Z",
        "Η": "H",
        "Ι": "i",
        "Κ": "K",
        "Μ": "M",
        "Ν": "N",
        "Ο": "O",
        "Ρ": "P",
        "Τ": "T",
        "Υ": "Y",
        "Χ": "X",
        "α": "a",
        "ι": "i",
        "κ": "k",
        "ν": "v",
        "ο": "o",
        "ρ": "p",
        "τ": "t",
        "υ": "u",
        "χ": "x",
        # Latin and others
        "ı": "i",
        "ℓ": "i",
        "ɑ": "a",
        "ɡ": "g",
        # letters and digits that pass for one another: I, l, i, 1 and |; O and 0
        "I": "i",
        "l": "i",
        "1": "i",
        "|": "i",
        "0": "o",
    }
)


def skeleton(name: str) -> str:
    """What ``name`` looks like: its letters and digits without marks, case, spacing or
    punctuation, each look-alike letter as the Latin letter it passes for."""
    text = unicodedata.normalize("NFKD", name)
    text = "".join(c for c in text if not unicodedata.category(c).startswith("M"))
    text = text.translate(_LOOKALIKES).casefold()
    return "".join(c for c in text if c.isalnum())


@functools.cache
def _ai_skeletons() -> frozenset[str]:
    """The skeletons of every AI seat name, in every language."""
    names = set()
    for lang in SUPPORTED:
        cat = catalog(lang)
        for level in LEVEL_TEXTS:
            names.add(skeleton(cat.fill("{level} AI", level=ai_label(level, cat))))
    return frozenset(names)


def looks_like_ai(name: str) -> bool:
    """Whether ``name`` passes for an AI seat's name (numbered or not) in any language."""
    unnumbered = _NUMBER.sub("", unicodedata.normalize("NFKC", name))
    return skeleton(name) in _ai_skeletons() or skeleton(unnumbered) in _ai_skeletons()


def check_not_ai(name: object) -> None:
    """:class:`BadOption` (:data:`AI_LOOKALIKE`) if ``name`` is text that passes for an AI
    seat's name."""
    if isinstance(name, str) and looks_like_ai(name):
        raise BadOption(AI_LOOKALIKE)
