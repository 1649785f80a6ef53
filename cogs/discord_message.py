"""A rendered :class:`cogs.render.message.Reply` as discord.py objects: its components as a
``ui.View`` (:func:`build_view`) and the whole message as the keyword arguments of a send or
an edit (:func:`message_kwargs`)."""

from __future__ import annotations

import io
from typing import Any

import discord

from cogs.render.message import Button, Reply, Select

__all__ = ["build_view", "message_kwargs"]


def _item(component: Button | Select) -> discord.ui.Item[discord.ui.View]:
    if isinstance(component, Select):
        return discord.ui.Select(
            custom_id=component.custom_id,
            placeholder=component.placeholder or None,
            options=[
                discord.SelectOption(
                    label=o.label, value=o.value, description=o.description or None
                )
                for o in component.options
            ],
            row=component.row,
        )
    if component.url is not None:
        return discord.ui.Button(
            url=component.url,
            label=component.label or None,
            style=discord.ButtonStyle.link,
            emoji=component.emoji or None,
            row=component.row,
        )
    return discord.ui.Button(
        custom_id=component.custom_id,
        label=component.label or None,
        style=discord.ButtonStyle[component.style],
        disabled=component.disabled,
        emoji=component.emoji or None,
        row=component.row,
    )


def build_view(components: tuple[Button | Select, ...]) -> discord.ui.View | None:
    """A ``ui.View`` of the rendered components, already stopped: discord.py sends it but never
    stores it, so presses are routed by the registered ``DynamicItem`` templates only (no
    per-message memory, no 15-minute expiry of ephemeral views)."""
    if not components:
        return None
    view = discord.ui.View(timeout=None)
    for component in components:
        view.add_item(_item(component))
    view.stop()
    return view


def message_kwargs(message: Reply | str, *, edit: bool = False) -> dict[str, Any]:
    """``content``/``embeds``/``view`` (and ``files``/``attachments``) keyword arguments for a
    rendered :class:`Reply`.

    With ``edit=True`` every part is given, so that stale content, embeds or buttons of the
    previous version are removed."""
    if isinstance(message, str):
        message = Reply(content=message)
    content = message.content or None
    embeds = [discord.Embed.from_dict(dict(e)) for e in message.embeds]
    view = build_view(message.components)
    kwargs: dict[str, Any] = {}
    files = (
        None
        if message.files is None
        else [discord.File(io.BytesIO(data), filename=name) for name, data in message.files]
    )
    if edit:
        kwargs.update(content=content, embeds=embeds, view=view)
        if files is not None:
            kwargs["attachments"] = files
        return kwargs
    if files:
        kwargs["files"] = files
    if content is not None:
        kwargs["content"] = content
    if embeds:
        kwargs["embeds"] = embeds
    if view is not None:
        kwargs["view"] = view
    return kwargs
