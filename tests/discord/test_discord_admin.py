"""The owner's ``sync`` mention command refuses what it does not understand."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from cogs import admin
from cogs.admin import AdminCog, refusal


class _Tree:
    def __init__(self) -> None:
        self.calls: list[str] = []

    async def sync(self, *, guild: object = None) -> list[object]:
        self.calls.append("sync" if guild is None else "sync guild")
        return []

    def copy_global_to(self, *, guild: object) -> None:
        self.calls.append("copy")

    def clear_commands(self, *, guild: object) -> None:
        self.calls.append("clear")


class _Context:
    def __init__(self, guild: object | None) -> None:
        self.guild = guild
        self.author = "owner"
        self.replies: list[str] = []

    async def reply(self, text: str, **_: Any) -> None:
        self.replies.append(text)


@pytest.mark.parametrize("scope", ["here", "clear", "guild"])
async def test_server_scopes_in_a_direct_message_are_refused(scope: str) -> None:
    tree = _Tree()
    cog = AdminCog(SimpleNamespace(tree=tree))  # type: ignore[arg-type]
    ctx = _Context(guild=None)
    await AdminCog.sync.callback(cog, ctx, scope)  # type: ignore[arg-type]
    assert tree.calls == []  # in particular no global sync
    assert ctx.replies == [f"`sync {scope}` works only in a server channel: nothing was synced."]


@pytest.mark.parametrize("guild", [None, object()])
async def test_a_typo_is_refused_anywhere(guild: object | None) -> None:
    tree = _Tree()
    cog = AdminCog(SimpleNamespace(tree=tree))  # type: ignore[arg-type]
    ctx = _Context(guild=guild)
    await AdminCog.sync.callback(cog, ctx, "globl")  # type: ignore[arg-type]
    assert tree.calls == []
    assert len(ctx.replies) == 1 and ctx.replies[0].startswith("Unknown sync scope 'globl'")


async def test_known_scopes_still_sync(monkeypatch: pytest.MonkeyPatch) -> None:
    tree = _Tree()

    async def sync_global(
        bot: Any,
    ) -> list[object]:  # keeps the Entry Point: see test_e2e_web_links
        return await bot.tree.sync()

    monkeypatch.setattr(admin, "sync_global", sync_global)
    cog = AdminCog(SimpleNamespace(tree=tree))  # type: ignore[arg-type]
    await AdminCog.sync.callback(cog, _Context(guild=None), "global")  # type: ignore[arg-type]
    await AdminCog.sync.callback(cog, _Context(guild=object()), "HERE")  # type: ignore[arg-type]
    await AdminCog.sync.callback(cog, _Context(guild=object()), "clear")  # type: ignore[arg-type]
    assert tree.calls == ["sync", "copy", "sync guild", "clear", "sync guild"]
    assert refusal("global", in_guild=False) is None
