"""The permissions the bot asks for: the invitation in docs/OPERATING.md lists exactly the
ones a game checks, its URL's permissions integer is theirs, and a thread's refusal names Send
Messages in Threads."""

from __future__ import annotations

import re
from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast
from unittest.mock import Mock

import discord
import pytest

from cogs.cog_core import CogCore
from cogs.i18n import SUPPORTED, catalog
from cogs.render.notices import NEEDED_PERMISSIONS, THREAD_PERMISSIONS, render_missing_permissions

OPERATING = Path(__file__).resolve().parents[2] / "docs" / "OPERATING.md"
#: The permissions' names as the Developer Portal's URL generator shows them.
PORTAL_NAMES = {
    "View Channels": "view_channel",
    "Send Messages": "send_messages",
    "Send Messages in Threads": "send_messages_in_threads",
    "Embed Links": "embed_links",
    "Read Message History": "read_message_history",
}


def _invite_step() -> str:
    text = OPERATING.read_text(encoding="utf-8")
    start = text.index("**OAuth2 → URL Generator**")
    return text[start : text.index("\n3. ", start)]


def test_the_docs_invitation_lists_what_a_game_checks_and_its_integer() -> None:
    step = _invite_step()
    listed = re.search(r"bot permissions\s+(.+?)\s+\(", step, re.S)
    assert listed is not None, step
    names = [" ".join(n.split()) for n in re.findall(r"\*([^*]+)\*", listed.group(1))]
    flags = {PORTAL_NAMES[name] for name in names}
    checked = {name for name, _ in NEEDED_PERMISSIONS + THREAD_PERMISSIONS}
    assert flags == checked
    url = re.search(r"https://discord\.com/oauth2/authorize\?\S+", step)
    assert url is not None, step
    assert "scope=bot+applications.commands" in url.group(0)
    integer = re.search(r"[?&]permissions=(\d+)", url.group(0))
    assert integer is not None
    assert int(integer.group(1)) == discord.Permissions(**dict.fromkeys(flags, True)).value


def _interaction(channel: object, **denied: bool) -> discord.Interaction[Any]:
    perms = discord.Permissions.all()
    perms.update(**denied)
    return cast("discord.Interaction[Any]", SimpleNamespace(app_permissions=perms, channel=channel))


@pytest.mark.parametrize("lang", SUPPORTED)
def test_a_thread_refusal_names_send_messages_in_threads(lang: str) -> None:
    thread = Mock(spec=discord.Thread)
    missing = CogCore.missing_permissions(_interaction(thread, send_messages_in_threads=False))
    assert missing == ["send_messages_in_threads"]
    t = catalog(lang)
    reply = render_missing_permissions(missing, t)
    assert reply.content is not None
    assert f"**{t.gettext('Send Messages in Threads')}**" in reply.content
    assert f"**{t.gettext('Send Messages')}**" not in reply.content
    if lang != "en":
        assert "Send Messages in Threads" not in reply.content  # translated
    # in a thread, Send Messages alone is not what posting needs
    assert CogCore.missing_permissions(_interaction(thread, send_messages=False)) == []


def test_a_channel_refusal_still_names_send_messages() -> None:
    channel = Mock(spec=discord.TextChannel)
    assert CogCore.missing_permissions(_interaction(channel, send_messages=False)) == [
        "send_messages"
    ]
    assert CogCore.missing_permissions(_interaction(channel, send_messages_in_threads=False)) == []
