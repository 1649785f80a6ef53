"""Discord's limits on a message (classic components and embeds), as assertions."""

from __future__ import annotations

import re
from collections import Counter

from cogs.render.message import Button, Reply, Select

CARD = re.compile(r"(?:10|[2-9JQKA])[♠♥♦♣]")


def embed_chars(embed: dict) -> int:
    total = len(embed.get("title", "")) + len(embed.get("description", ""))
    total += len(embed.get("footer", {}).get("text", ""))
    total += len(embed.get("author", {}).get("name", ""))
    total += sum(len(f["name"]) + len(f["value"]) for f in embed.get("fields", ()))
    return total


def check_message(msg: Reply) -> None:
    assert isinstance(msg, Reply)
    if msg.content is not None:
        assert 0 < len(msg.content) <= 2000
    assert len(msg.embeds) <= 10
    assert msg.content or msg.embeds, "an empty message"
    for embed in msg.embeds:
        assert len(embed.get("title", "")) <= 256
        assert len(embed.get("description", "")) <= 4096
        fields = embed.get("fields", [])
        assert len(fields) <= 25
        for f in fields:
            assert 0 < len(f["name"]) <= 256
            assert 0 < len(f["value"]) <= 1024
            assert isinstance(f.get("inline", False), bool)
        assert len(embed.get("footer", {}).get("text", "")) <= 2048
        assert embed_chars(embed) <= 6000
        assert isinstance(embed.get("color", 0), int)
    check_components(msg.components)


def check_components(components: tuple) -> None:
    assert len(components) <= 25
    ids = [c.custom_id for c in components if not (isinstance(c, Button) and c.url)]
    assert len(ids) == len(set(ids)), f"duplicate custom ids: {Counter(ids).most_common(3)}"
    rows: Counter[int] = Counter()
    select_rows = set()
    for c in components:
        assert 0 <= c.row <= 4
        if isinstance(c, Button) and c.url is not None:  # a link: no custom id
            assert c.custom_id == "" and c.style == "link"
            assert 0 < len(c.url) <= 512 and c.url.startswith("https://"), c.url
            assert 0 < len(c.label) <= 80, c.label
            rows[c.row] += 1
            continue
        assert 1 <= len(c.custom_id) <= 100, c.custom_id
        if isinstance(c, Button):
            assert 0 < len(c.label) <= 80, c.label
            assert c.style in ("primary", "secondary", "success", "danger")
            rows[c.row] += 1
        else:
            assert isinstance(c, Select)
            assert 1 <= len(c.options) <= 25
            assert len(c.placeholder) <= 150
            values = [o.value for o in c.options]
            assert len(values) == len(set(values))
            for o in c.options:
                assert 0 < len(o.label) <= 100 and 0 < len(o.value) <= 100
                assert o.description is None or len(o.description) <= 100
            select_rows.add(c.row)
            rows[c.row] += 5
    assert all(n <= 5 for n in rows.values()), rows
    assert all(rows[r] == 5 for r in select_rows), "a select must be alone in its row"


def message_text(msg: Reply) -> str:
    """Everything a user can read in the message."""
    parts = [msg.content or ""]
    for e in msg.embeds:
        parts += [e.get("title", ""), e.get("description", ""), e.get("footer", {}).get("text", "")]
        for f in e.get("fields", ()):
            parts += [f["name"], f["value"]]
    for c in msg.components:
        if isinstance(c, Button):
            parts.append(c.label)
        else:
            parts += [c.placeholder, *(o.label for o in c.options)]
    return "\n".join(parts)


def cards_in(text: str) -> set[str]:
    return set(CARD.findall(text))


def to_discord(msg: Reply) -> None:
    """Build what the adapter sends with discord.py itself: its own checks apply (25 items,
    row widths, a select alone in its row, emoji parsing, embed structure)."""
    import discord

    view = discord.ui.View(timeout=None)
    for c in msg.components:
        if isinstance(c, Button):
            item: discord.ui.Item = discord.ui.Button(  # type: ignore[type-arg]
                custom_id=c.custom_id,
                label=c.label,
                style=getattr(discord.ButtonStyle, c.style),
                emoji=c.emoji,
                row=c.row,
                disabled=c.disabled,
            )
        else:
            item = discord.ui.Select(
                custom_id=c.custom_id,
                placeholder=c.placeholder,
                row=c.row,
                options=[
                    discord.SelectOption(label=o.label, value=o.value, description=o.description)
                    for o in c.options
                ],
            )
        view.add_item(item)  # raises ValueError when a row or the view is full
    payload = view.to_components()
    assert len(payload) <= 5
    for embed in msg.embeds:
        e = discord.Embed.from_dict(dict(embed))
        assert len(e) <= 6000
        assert e.to_dict()["title"] == embed["title"]
