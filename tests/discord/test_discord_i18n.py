"""Catalogues (built by Babel), message rendering, locale choice and the command translator."""

from __future__ import annotations

import asyncio
import inspect
import random
import re
import shutil
from pathlib import Path

import discord
import pytest
from babel.messages.pofile import read_po
from discord.app_commands import TranslationContext, TranslationContextLocation, locale_str

import bot.errors as errors
from bot.views import ActionRecord, action_message
from cogs.choices import LEVEL_TEXTS
from cogs.i18n import (
    CHOICES,
    COMMANDS,
    OPTIONS,
    Catalog,
    DurakTranslator,
    catalog,
    pick_locale,
    render,
)
from cogs.wording import valid_command_name
from present.locales import __main__ as catalogues
from rules_engine import PROFILES, Action, ActionKind, Game, deal_from_seed
from rules_engine.cards import ALL_CARDS, parse_card
from rules_engine.hints import card_hints
from rules_engine.messages import Message, Seat
from rules_engine.played import Played

LANGS = ("es", "fr")
LOCALEDIR = Path(catalogues.LOCALES)
PO = {lang: LOCALEDIR / lang / "LC_MESSAGES" / "durak.po" for lang in LANGS}
PLACEHOLDER = re.compile(r"\{[a-z_]+\}")
#: Words that are spelled the same in English and the language (so a translation may equal
#: its English source when it is made of these, placeholders and symbols only).
#: Words spelled the same in English and the language ("s": the symbol of the second, "{n} s").
SAME_WORDS = {
    "es": {"durak", "no", "s"},
    "fr": {"durak", "expert", "options", "page", "stats", "table", "s"},
}


def _messages(lang: str):
    with PO[lang].open("rb") as f:
        return [m for m in read_po(f, locale=lang) if m.id]


# ------------------------------------------------------------------------------ locales
@pytest.mark.parametrize(
    ("user", "guild", "expected"),
    [
        ("es-ES", None, "es"),
        ("es-419", "fr", "es"),
        ("fr", "es-ES", "fr"),
        ("en-US", "fr", "en"),
        ("en-GB", "es-ES", "en"),
        ("de", "fr", "fr"),
        ("de", "ja", "en"),
        (None, "es-419", "es"),
        (None, None, "en"),
        ("", "", "en"),
        ("pt-BR", None, "en"),
        ("FR", None, "fr"),
        ("es_ES", None, "es"),
        (discord.Locale.latin_american_spanish, None, "es"),
        (discord.Locale.french, discord.Locale.spain_spanish, "fr"),
        (discord.Locale.german, discord.Locale.spain_spanish, "es"),
    ],
)
def test_pick_locale(user, guild, expected) -> None:
    assert pick_locale(user, guild) == expected


def test_catalog_is_cached_per_language() -> None:
    assert catalog("es") is catalog("es-ES") is catalog("es-419")
    assert catalog("fr").locale == "fr"
    assert catalog("de").locale == "en" and catalog(None) is catalog("en")
    assert isinstance(catalog("fr"), Catalog)


# ------------------------------------------------------------------------------ catalogues
def test_catalogues_are_up_to_date_complete_and_compiled() -> None:
    # Babel's own tools: extract to a temporary template, update --check, compile --statistics
    assert catalogues.main(["--check"]) == 0


def test_check_fails_on_an_untranslated_entry_or_a_stale_mo(tmp_path: Path, monkeypatch) -> None:
    copy = tmp_path / "locales"
    shutil.copytree(LOCALEDIR, copy, ignore=shutil.ignore_patterns("*.py", "__pycache__"))
    monkeypatch.setattr(catalogues, "LOCALES", copy)
    assert catalogues.check() == 0
    mo = copy / "fr" / "LC_MESSAGES" / "durak.mo"
    mo.write_bytes(mo.read_bytes()[:-1] + b"x")
    assert catalogues.check() == 1
    assert catalogues.build() == 0 and catalogues.check() == 0
    po = copy / "es" / "LC_MESSAGES" / "durak.po"
    text = po.read_text(encoding="utf-8")
    po.write_text(text.replace('msgstr "Recoger"', 'msgstr ""'), encoding="utf-8")
    assert catalogues.incomplete(po) == ["Take"]
    assert catalogues.check() == 1


@pytest.mark.parametrize("lang", LANGS)
def test_translations_keep_placeholders_and_markdown(lang: str) -> None:
    for m in _messages(lang):
        sources = [m.id] if isinstance(m.id, str) else list(m.id)
        strings = [m.string] if isinstance(m.string, str) else list(m.string)
        wanted = {p for s in sources for p in PLACEHOLDER.findall(s)}
        for text in strings:
            assert set(PLACEHOLDER.findall(text)) == wanted, (m.id, text)
            for mark in ("**", "⏳", "🤖", "🛑", "📥", "🤝", "🃏"):
                assert (mark in text) == (mark in sources[0]), (m.id, text)


@pytest.mark.parametrize("lang", LANGS)
def test_no_untranslated_english(lang: str) -> None:
    """Every message a reader may see (engine reasons, service errors, notices, the Discord
    texts) reads differently from the English, unless it is only placeholders, symbols and
    words spelled the same in both languages."""
    for m in _messages(lang):
        sources = [m.id] if isinstance(m.id, str) else list(m.id)
        strings = [m.string] if isinstance(m.string, str) else list(m.string)
        for source, text in zip(sources, strings, strict=False):
            if text != source:
                continue
            words = set(re.findall(r"[^\W\d_]+", PLACEHOLDER.sub("", source).lower()))
            assert words <= SAME_WORDS[lang], f"{PO[lang]}: untranslated {source!r}"


def test_spot_checks_of_the_vocabulary() -> None:
    es, fr = catalog("es"), catalog("fr")
    assert es.gettext("Take") == "Recoger" and fr.gettext("Take") == "Ramasser"
    assert es.gettext("Pass") == "Pasar" and fr.gettext("Pass") == "Passer"
    assert es.fill("Transfer {cards}", cards="9♦") == "Transferir 9♦"
    assert fr.fill("Transfer {cards}", cards="9♦") == "Transmettre 9♦"
    assert "Triunfo" in es.gettext("Trump: **{suit}**")
    assert "Atout" in fr.gettext("Trump: **{suit}**")
    assert es.nfill("{count} card", "{count} cards", 1) == "1 carta"
    assert fr.nfill("{count} card", "{count} cards", 0) == "0 carte"  # French: 0 is singular
    assert es.nfill("{count} card", "{count} cards", 0) == "0 cartas"


def test_fill_is_safe() -> None:
    en = catalog("en")
    assert en.fill("Page {page}/{pages}", page=1) == "Page 1/{pages}"
    assert en.fill("Durak — {rules}", rules="{x}") == "Durak — {x}"
    assert en.fill("Take") == "Take"


# ------------------------------------------------------------------------------ messages
def test_render_by_parameter_type() -> None:
    names = ["**Ana**", "**Bob**"]
    eight, nine = parse_card("8♥"), parse_card("9♥")
    record = ActionRecord(Played.of(Action.defend(1, eight, nine)))
    assert render(record.message, "en", names) == "**Bob** covers 8♥ with 9♥"
    assert render(record.message, "es", names) == "**Bob** cubre 8♥ con 9♥"
    assert (
        render(record.message, "fr", names, card_text=lambda c: f"[{c}]")
        == "**Bob** couvre [8♥] avec [9♥]"
    )
    nested = Message(
        "{name} ran out of time: {action}", name=Seat(0), action=action_message(ActionKind.TAKE, ())
    )
    assert render(nested, "es", names) == "a **Ana** se le acabó el tiempo: recoger"
    verb = Message(
        "only the defender, {defender}, can {action}", defender=Seat(1), action=ActionKind.TAKE
    )
    assert render(verb, "fr", names) == "seul le défenseur, **Bob**, peut ramasser"
    # a seat without a name is still named, in the reader's language
    assert render(Message("{name} is back", name=Seat(2)), "es") == "jugador 3 ha vuelto"
    assert (
        render(Message("the lobby is full ({seats} seats)", seats=4), "fr")
        == "la salle est complète (4 places)"
    )
    # a key the catalogue does not know stays English, with its parameters
    assert render(Message("brand new {thing}", thing=Seat(0)), "fr", ["X"]) == "brand new X"


def _reasons_of_real_games(limit: int = 3000) -> list[Message]:
    rng = random.Random(3)
    out: list[Message] = []
    for i in range(12):
        rules = list(PROFILES.values())[i % 3]
        game = Game(rules, deal_from_seed(players=2 + i % 5, seed=i))
        while not game.finished and len(out) < limit:
            for seat in range(game.n):
                out += [r for r in card_hints(game, seat).values() if r is not None]
                # random actions by anyone, mostly illegal
                card = ALL_CARDS[rng.randrange(36)]
                other = ALL_CARDS[rng.randrange(36)]
                for action in (
                    Action.attack(seat, card),
                    Action.defend(seat, other, card),
                    Action.transfer(seat, card),
                    Action.take(seat),
                    Action.pass_(seat),
                ):
                    r = game.explain(action)
                    if r is not None:
                        out.append(r)
            game.apply(rng.choice(list(game.legal_actions())))
        last = game.explain(Action.take(0))
        assert last is not None
        out.append(last)
    return out


def test_engine_reasons_of_real_games_are_translated() -> None:
    reasons = _reasons_of_real_games()
    assert len({r.key for r in reasons}) >= 15
    names = ["Ana", "Bob", "Cy", "Dee", "Eve", "Fay"]
    for lang in LANGS:
        for r in reasons:
            english, translated = render(r, "en", names), render(r, lang, names)
            assert translated != english, (lang, r)
            assert "{" not in translated and "}" not in translated


def _error_classes() -> list[type[errors.ServiceError]]:
    return [
        c
        for _, c in inspect.getmembers(errors, inspect.isclass)
        if issubclass(c, errors.ServiceError)
    ]


@pytest.mark.parametrize("lang", LANGS)
def test_every_service_error_is_translated(lang: str) -> None:
    classes = _error_classes()
    assert len(classes) >= 17
    for cls in classes:
        english = render(cls.default_message, "en")
        assert render(cls.default_message, lang) != english, cls
    err = errors.IllegalMove(Message("{card} is not in your hand", card=parse_card("7♠")))
    assert err.message == err.reason and str(err) == "7♠ is not in your hand"
    assert render(err.message, "es") == "7♠ no está en tu mano"
    assert errors.StaleAction(expected=3, got=2).details == {"expected": 3, "got": 2}


def test_catalog_render_matches_module_render() -> None:
    message = Message("{player} passes", player=Seat(0))
    assert isinstance(catalog("fr"), Catalog)
    assert catalog("fr").render(message, ["Zoé"]) == render(message, "fr-FR", ["Zoé"])


# ------------------------------------------------------------------------------ commands
LOCALES = [
    discord.Locale.spain_spanish,
    discord.Locale.latin_american_spanish,
    discord.Locale.french,
]
NAME_RE = re.compile(r"^[-_\w]{1,32}$")


def _translate(string: str, locale: discord.Locale, where: TranslationContextLocation):
    ctx = TranslationContext(location=where, data=None)
    return asyncio.run(DurakTranslator().translate(locale_str(string), locale, ctx))


def test_translator_names_follow_discord_rules() -> None:
    names = set(COMMANDS) | set(OPTIONS)
    for locale in LOCALES:
        translated = {}
        for name in names:
            where = (
                TranslationContextLocation.group_name
                if name == "durak"
                else TranslationContextLocation.command_name
                if name in COMMANDS
                else TranslationContextLocation.parameter_name
            )
            text = _translate(name, locale, where) or name  # None: the same as in English
            assert valid_command_name(text) and NAME_RE.match(text) and text == text.lower()
            assert " " not in text and 1 <= len(text) <= 32
            translated[name] = text
        # subcommand names stay distinct within the group, option names within a command
        subs = [translated[n] for n in COMMANDS if n != "durak"]
        assert len(subs) == len(set(subs))
    assert (
        _translate("hand", discord.Locale.french, TranslationContextLocation.command_name) == "main"
    )
    assert (
        _translate(
            "leaderboard", discord.Locale.spain_spanish, TranslationContextLocation.command_name
        )
        == "clasificación"
    )


def test_translator_descriptions_and_choices() -> None:
    for locale in LOCALES:
        for text in (*COMMANDS.values(), *OPTIONS.values()):
            where = TranslationContextLocation.command_description
            out = _translate(text, locale, where)
            assert out is not None and 1 <= len(out) <= 100 and out != text
        for text in (*CHOICES.values(), *(level.choice for level in LEVEL_TEXTS.values())):
            out = _translate(text, locale, TranslationContextLocation.choice_name) or text
            assert 1 <= len(out) <= 100
    for english in (discord.Locale.american_english, discord.Locale.british_english):
        assert _translate("hand", english, TranslationContextLocation.command_name) is None
    assert (
        _translate("hand", discord.Locale.german, TranslationContextLocation.command_name) is None
    )
    assert (
        _translate(
            "not a known string",
            discord.Locale.french,
            TranslationContextLocation.command_description,
        )
        is None
    )
    assert _translate("5", discord.Locale.french, TranslationContextLocation.choice_name) is None


def test_valid_command_name() -> None:
    assert valid_command_name("añadir-ia") and valid_command_name("límite_primera_ronda")
    for bad in ("", "Upper", "two words", "x" * 33, "a.b", "é!"):
        assert not valid_command_name(bad)


def test_translator_ignores_invalid_catalogue_names(monkeypatch) -> None:
    fr = catalog("fr")
    monkeypatch.setattr(fr, "pgettext", lambda ctx, msg: "Not Valid")
    assert DurakTranslator().translate_text("hand", "fr", name=True) is None
