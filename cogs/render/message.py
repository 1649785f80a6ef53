"""The shape of a Discord message as the renderers build it: :class:`Reply` with embed dicts and
:class:`Button` / :class:`Select` components, Discord's size limits, and the helpers that keep
an embed within them."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

__all__ = [
    "BLURPLE",
    "BUTTONS_PER_ROW",
    "CONTENT_MAX",
    "DESCRIPTION_MAX",
    "EMBED_MAX",
    "FIELDS_MAX",
    "FIELD_NAME_MAX",
    "FIELD_VALUE_MAX",
    "FOOTER_MAX",
    "GOLD",
    "GREEN",
    "GREY",
    "LABEL_MAX",
    "RED",
    "TITLE_MAX",
    "URL_MAX",
    "Button",
    "Reply",
    "Select",
    "SelectOption",
    "Style",
    "clip",
    "clip_lines",
    "embed_field",
    "link_button",
    "make_embed",
]


Style = Literal["primary", "secondary", "success", "danger", "link"]


@dataclass(frozen=True, slots=True)
class Button:
    """A button: its custom id, label, style (colour), and row (0–4).  A link button has a
    ``url`` (≤ :data:`URL_MAX` characters), the ``link`` style and no custom id (``""``)."""

    custom_id: str
    label: str
    style: Style = "secondary"
    disabled: bool = False
    emoji: str | None = None
    row: int = 0
    url: str | None = None


def link_button(url: str, label: str, *, emoji: str | None = None, row: int = 0) -> Button:
    """A button that opens ``url`` (Discord asks before opening another site)."""
    if len(url) > URL_MAX:
        raise ValueError(f"a link button's URL is {len(url)} > {URL_MAX} characters")
    return Button("", label, "link", emoji=emoji, row=row, url=url)


@dataclass(frozen=True, slots=True)
class SelectOption:
    """One option of a :class:`Select`."""

    label: str
    value: str
    description: str | None = None


@dataclass(frozen=True, slots=True)
class Select:
    """A string select; it fills its row."""

    custom_id: str
    placeholder: str
    options: tuple[SelectOption, ...]
    row: int = 0


@dataclass(frozen=True, slots=True)
class Reply:
    """A Discord message to send or edit: text, embed dicts and components; ``files``: the
    attachments ``(file name, bytes)`` (``None``: an edit leaves the message's attachments as
    they are; ``()``: it removes them)."""

    content: str | None = None
    embeds: tuple[dict[str, Any], ...] = ()
    components: tuple[Button | Select, ...] = ()
    files: tuple[tuple[str, bytes], ...] | None = None


# Discord limits
LABEL_MAX, CONTENT_MAX, TITLE_MAX, DESCRIPTION_MAX = 80, 2000, 256, 4096
FIELD_NAME_MAX, FIELD_VALUE_MAX, FOOTER_MAX, FIELDS_MAX, EMBED_MAX = 256, 1024, 2048, 25, 6000
#: Buttons in one action row of a message.
BUTTONS_PER_ROW = 5
#: The longest URL of a link button.
URL_MAX = 512


GREEN, RED, GREY, BLURPLE, GOLD = 0x2E7D32, 0xDD2E44, 0x4F545C, 0x5865F2, 0xF1C40F


# ------------------------------------------------------------------------------ helpers
def clip(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters, ending with "…" when cut."""
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def clip_lines(lines: Sequence[str], limit: int, more: str = "…") -> str:
    """Join lines, dropping the last ones (replaced by ``more``) to stay within ``limit``."""
    text = "\n".join(lines)
    if len(text) <= limit:
        return text
    kept: list[str] = []
    size = len(more)
    for line in lines:
        if size + len(line) + 1 > limit:
            break
        kept.append(line)
        size += len(line) + 1
    return clip("\n".join([*kept, more]), limit)


def embed_field(name: str, value: str, inline: bool = False) -> dict[str, Any]:
    """An embed field dict; empty parts become a zero-width space (Discord refuses empty ones)."""
    return {
        "name": clip(name, FIELD_NAME_MAX) or "\u200b",
        "value": clip(value, FIELD_VALUE_MAX) or "\u200b",
        "inline": inline,
    }


def make_embed(
    title: str,
    description: str = "",
    *,
    color: int = GREEN,
    fields: Sequence[dict[str, Any]] = (),
    footer: str | None = None,
) -> dict[str, Any]:
    """An embed dict within Discord's limits (each part clipped, total ≤ 6000)."""
    embed: dict[str, Any] = {"title": clip(title, TITLE_MAX), "color": color, "type": "rich"}
    fields = list(fields)[:FIELDS_MAX]
    footer = clip(footer, FOOTER_MAX) if footer else None
    used = len(embed["title"]) + (len(footer) if footer else 0)
    used += sum(len(f["name"]) + len(f["value"]) for f in fields)
    while fields and used > EMBED_MAX - 200:  # keep room for a description
        dropped = fields.pop()
        used -= len(dropped["name"]) + len(dropped["value"])
    room = min(DESCRIPTION_MAX, EMBED_MAX - used)
    if description:
        embed["description"] = clip_lines(description.split("\n"), room)
    if fields:
        embed["fields"] = fields
    if footer:
        embed["footer"] = {"text": footer}
    return embed
