"""Renderers of ``/durak help``, ``/durak config`` and the bot's permission messages, in every
language: within Discord's limits, translated, naming what they must name."""

from __future__ import annotations

import re

import pytest

from bot.server_config import ServerConfig
from cogs.i18n import COMMANDS, SUPPORTED, catalog
from cogs.render.info import HELP_COMMANDS, render_config, render_help
from cogs.render.message import Reply
from cogs.render.notices import render_hidden, render_missing_permissions

from .dsc_limits import check_message


def _text(reply: Reply) -> str:
    parts = [reply.content or ""]
    for embed in reply.embeds:
        parts += [embed.get("title", ""), embed.get("description", "")]
        parts += [f["name"] + "\n" + f["value"] for f in embed.get("fields", ())]
        parts.append(embed.get("footer", {}).get("text", ""))
    return "\n".join(parts)


@pytest.mark.parametrize("lang", SUPPORTED)
def test_help_lists_every_command_in_the_readers_language(lang: str) -> None:
    t = catalog(lang)
    reply = render_help(t)
    check_message(reply)
    text = _text(reply)
    for name in HELP_COMMANDS:
        assert name in COMMANDS  # help lists only real commands
        localised = t.pgettext("cmd-name", name)
        assert f"/{t.pgettext('cmd-name', 'durak')} {localised}" in text
        assert t.pgettext("cmd", COMMANDS[name]) in text
    assert t.gettext("How a game goes") in text
    if lang != "en":  # translated, not English with translated names
        english = _text(render_help(catalog("en")))
        for line in english.splitlines():
            if len(line) > 12 and not line.startswith("`"):
                assert line not in text, line


def test_help_names_every_command_the_cog_registers() -> None:
    from cogs.durak_commands import DurakCog

    registered = {c.name for c in DurakCog.durak.commands}
    assert set(HELP_COMMANDS) == registered


@pytest.mark.parametrize("lang", SUPPORTED)
def test_config_shows_every_setting(lang: str) -> None:
    t = catalog(lang)
    config = ServerConfig().with_changes(
        profile="perevodnoy",
        transfer="off",
        throw_in="neighbours",
        first_round_limit=5,
        turn_timeout=90,
        channels=[111, 222],
        count_ai_games=True,
    )
    reply = render_config(config, t, saved=True)
    check_message(reply)
    text = _text(reply)
    assert "perevodnoy" in text and "90" in text and "<#111>, <#222>" in text
    assert t.gettext("off") in text and t.gettext("the defender's neighbours") in text
    assert t.gettext("yes") in text and t.gettext("Server settings") in text
    plain = _text(render_config(ServerConfig(), t))
    assert t.gettext("every channel") in plain and t.gettext("the profile's") in plain
    assert t.gettext("no") in plain


@pytest.mark.parametrize("lang", SUPPORTED)
def test_missing_permissions_are_named_in_the_readers_language(lang: str) -> None:
    t = catalog(lang)
    reply = render_missing_permissions(["send_messages", "embed_links"], t)
    check_message(reply)
    assert reply.content is not None
    assert t.gettext("Send Messages") in reply.content
    assert t.gettext("Embed Links") in reply.content
    assert t.gettext("View Channel") not in reply.content
    if lang != "en":
        assert "Send Messages" not in reply.content


@pytest.mark.parametrize("lang", SUPPORTED)
@pytest.mark.parametrize("what", ["lobby", "table"])
@pytest.mark.parametrize("problem", ["permissions", "gone", "refused"])
def test_hidden_warning_names_the_channel(lang: str, what: str, problem: str) -> None:
    reply = render_hidden(what, 4242, problem, catalog(lang))
    check_message(reply)
    assert reply.content is not None and "<#4242>" in reply.content
    assert not re.search(r"\{\w+\}", reply.content)  # every placeholder filled


@pytest.mark.parametrize("lang", ["es", "fr"])
def test_config_option_descriptions_are_translated(lang: str) -> None:
    from cogs.i18n import CONFIG_OPTIONS, OPTIONS, DurakTranslator

    translator = DurakTranslator()
    for name in ("add_channel", "remove_channel", "count_ai_games"):
        text = translator.translate_text(OPTIONS[name], lang, name=False)
        assert text is not None and text != OPTIONS[name] and len(text) <= 100
        assert translator.translate_text(name, lang, name=True) not in (None, name)
    for text in CONFIG_OPTIONS.values():
        out = translator.translate_text(text, lang, name=False)
        assert out is not None and out != text and len(out) <= 100
