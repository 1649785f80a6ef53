"""Just enough Markdown for the docs tests: a page's relative links and the anchors its headings
make, as GitHub renders them."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

__all__ = ["Link", "anchors", "links", "slug", "strip_code"]

_FENCE = re.compile(r"^(```|~~~)")
_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_INLINE_CODE = re.compile(r"`[^`\n]*`")
#: ``[text](target "title")`` and ``![alt](target)``; the text may hold inline code.
_MD_LINK = re.compile(r"!?\[[^\]\n]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
_REF_LINK = re.compile(r"^\s*\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+\"[^\"]*\")?\s*$")
_HTML_LINK = re.compile(r"<(?:a|img)\b[^>]*?\s(?:href|src)=\"([^\"]+)\"", re.I)
_HTML_ANCHOR = re.compile(r"<a\b[^>]*?\s(?:id|name)=\"([^\"]+)\"", re.I)
_SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")


@dataclass(frozen=True)
class Link:
    """A relative link of a page: its ``path`` (empty: the page itself), its ``anchor`` (or
    None) and its line number."""

    path: str
    anchor: str | None
    line: int


def _prose(text: str) -> Iterator[str | None]:
    """The page's lines, ``None`` for each line of a fenced code block (its fences too)."""
    fence: str | None = None
    for line in text.splitlines():
        opening = _FENCE.match(line.lstrip())
        if fence is not None:
            if opening and opening.group(1) == fence:
                fence = None
            yield None
        elif opening:
            fence = opening.group(1)
            yield None
        else:
            yield line


def strip_code(text: str) -> list[str]:
    """The page's lines with fenced code blocks blanked and inline code removed (links and
    headings inside code are not links or headings)."""
    return ["" if line is None else _INLINE_CODE.sub("", line) for line in _prose(text)]


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: its text lower-cased, without markup and punctuation
    (letters, digits, ``_`` and ``-`` stay), spaces turned into ``-``."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link: its text
    text = re.sub(r"<[^>]+>", "", text)  # inline HTML
    text = text.replace("`", "").lower()
    text = "".join(c for c in text if c.isalnum() or c in "_- ")
    return text.replace(" ", "-")


def anchors(text: str) -> set[str]:
    """Every anchor of the page: its headings' slugs (``-1``, ``-2``… for repeats) and
    ``<a id=…>``/``<a name=…>``."""
    found: set[str] = set()
    seen: dict[str, int] = {}
    for line in _prose(text):
        if line is None:
            continue
        heading = _HEADING.match(line)
        if heading:
            base = slug(heading.group(2))
            count = seen.get(base, 0)
            seen[base] = count + 1
            found.add(base if count == 0 else f"{base}-{count}")
        found.update(_HTML_ANCHOR.findall(line))
    return found


def links(text: str) -> list[Link]:
    """Every relative link of the page (not ``https:``, ``mailto:`` and the like)."""
    found: list[Link] = []
    for number, line in enumerate(strip_code(text), start=1):
        targets = _MD_LINK.findall(line) + _HTML_LINK.findall(line)
        ref = _REF_LINK.match(line)
        if ref:
            targets.append(ref.group(1))
        for target in targets:
            if _SCHEME.match(target):
                continue
            path, _, anchor = target.partition("#")
            found.append(Link(path, anchor if "#" in target else None, number))
    return found
