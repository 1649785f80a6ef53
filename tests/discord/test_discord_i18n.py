"""Catalogues, locale choice, reason/error translation and the command translator."""

from __future__ import annotations

import ast
import asyncio
import inspect
import random
import re
from pathlib import Path

import discord
import pytest
from discord.app_commands import TranslationContext, TranslationContextLocation, locale_str
from dsc_msgids import ROOT, used_msgids

import bot.errors as errors
from cogs.i18n import (
    CHOICES,
    COMMANDS,
    ERROR_DEFAULTS,
    KNOWN_TEXTS,
    OPTIONS,
    REASON_TEMPLATES,
    Catalog,
    DurakTranslator,
    catalog,
    match_template,
    pick_locale,
    placeholders,
    valid_command_name,
)
from cogs.locales.compile import compile_po, parse_po, po_files
from cogs.locales.compile import main as compile_main
from rules_engine import PROFILES, Action, Game, deal_from_seed
from rules_engine.cards import ALL_CARDS
from rules_engine.hints import card_hints
from rules_engine.reasons import Reason

LANGS = ("es", "fr")
PO = {lang: ROOT / "cogs" / "locales" / lang / "LC_MESSAGES" / "durak.po" for lang in LANGS}


def _entries(lang: str):
    return parse_po(PO[lang].read_text(encoding="utf-8"), str(PO[lang]))


# ------------------------------------------------------------------------------ locales
@pytest.mark.parametrize(
    ("user", "guild", "expected"),
    [
        ("es-ES", None, "es"), ("es-419", "fr", "es"), ("fr", "es-ES", "fr"),
        ("en-US", "fr", "en"), ("en-GB", "es-ES", "en"), ("de", "fr", "fr"),
        ("de", "ja", "en"), (None, "es-419", "es"), (None, None, "en"), ("", "", "en"),
        ("pt-BR", None, "en"), ("FR", None, "fr"), ("es_ES", None, "es"),
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
def test_mo_files_are_up_to_date() -> None:
    assert {p.parent.parent.name for p in po_files()} == set(LANGS)
    for po in po_files():
        mo = po.with_suffix(".mo")
        assert mo.exists(), f"missing {mo}: run python cogs/locales/compile.py"
        assert mo.read_bytes() == compile_po(po.read_text(encoding="utf-8")), (
            f"{mo} is out of date: run python cogs/locales/compile.py")
    assert compile_main(["--check"]) == 0


@pytest.mark.parametrize("lang", LANGS)
def test_po_entries_complete_and_unique(lang: str) -> None:
    entries = _entries(lang)
    header = entries[0]
    assert header.msgid == "" and "Plural-Forms: nplurals=2" in header.msgstr[0]
    keys = [e.key for e in entries[1:]]
    assert len(keys) == len(set(keys)), "duplicate msgids"
    for e in entries[1:]:
        assert e.translated, f"{PO[lang]}:{e.line}: untranslated or fuzzy {e.msgid!r}"
        assert "#~" not in e.msgid


@pytest.mark.parametrize("lang", LANGS)
def test_every_msgid_used_is_translated(lang: str) -> None:
    cat = catalog(lang)
    missing = [
        (ctx, msgid) for (ctx, msgid), plural in used_msgids().items()
        if not cat.translates(msgid, ctx) and plural is None
    ]
    missing += [
        (ctx, msgid) for (ctx, msgid), plural in used_msgids().items()
        if plural is not None and cat.ngettext(msgid, plural, 5) == plural
    ]
    assert not missing, f"add these to {PO[lang]}: {missing}"


@pytest.mark.parametrize("lang", LANGS)
def test_no_stale_entries(lang: str) -> None:
    used = {(ctx, m) for ctx, m in used_msgids()}
    stale = [(e.msgctxt, e.msgid) for e in _entries(lang)[1:]
             if (e.msgctxt, e.msgid) not in used]
    assert not stale, f"entries no longer used in {PO[lang]}: {stale}"


@pytest.mark.parametrize("lang", LANGS)
def test_placeholders_kept(lang: str) -> None:
    for e in _entries(lang)[1:]:
        sources = [e.msgid] + ([e.msgid_plural] if e.msgid_plural else [])
        wanted = {p for s in sources for p in placeholders(s)}
        for i, text in e.msgstr.items():
            got = set(placeholders(text))
            assert got == wanted, f"{PO[lang]}:{e.line} form {i}: {got} != {wanted}"
            # the translation must format: no stray braces
            text.format(**dict.fromkeys(got, "x"))
            # markdown and emoji of the source stay
            for mark in ("**", "⏳", "🤖", "🛑", "📥", "🤝", "🃏"):
                assert (mark in text) == (mark in e.msgid), (e.msgid, text)


def test_translations_differ_from_english() -> None:
    # A few spot checks of the vocabulary of the rule documents.
    es, fr = catalog("es"), catalog("fr")
    assert es.gettext("Take") == "Recoger" and fr.gettext("Take") == "Ramasser"
    assert es.gettext("Pass") == "Pasar" and fr.gettext("Pass") == "Passer"
    assert es.format("Transfer {cards}", cards="9♦") == "Transferir 9♦"
    assert fr.format("Transfer {cards}", cards="9♦") == "Transmettre 9♦"
    assert "Triunfo" in es.gettext("Trump: **{suit}**")
    assert "Atout" in fr.gettext("Trump: **{suit}**")
    assert "Mazo" in es.gettext("Stock: {stock} · Discard: {discard} · Round {round}")
    assert "Talon" in fr.gettext("Stock: {stock} · Discard: {discard} · Round {round}")
    assert es.nformat("{count} card", "{count} cards", 1) == "1 carta"
    assert fr.nformat("{count} card", "{count} cards", 0) == "0 carte"  # French: 0 is singular
    assert es.nformat("{count} card", "{count} cards", 0) == "0 cartas"


def test_format_is_safe() -> None:
    en = catalog("en")
    assert en.format("Page {page}/{pages}", page=1) == "Page 1/{pages}"
    assert en.format("Durak — {rules}", rules="{x}") == "Durak — {x}"
    assert en.format("Take") == "Take"


# ------------------------------------------------------------------------------ engine reasons
def _engine_templates() -> set[str]:
    found: set[str] = set()
    for path in (ROOT / "rules_engine").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (isinstance(node, ast.Call) and node.args
                    and getattr(node.func, "id", None) == "Reason"
                    and isinstance(node.args[0], ast.Constant)):
                found.add(node.args[0].value)
    return found


def test_engine_reason_templates_are_in_the_catalogues() -> None:
    engine = _engine_templates()
    assert len(engine) > 25
    missing = engine - set(REASON_TEMPLATES)
    assert not missing, f"engine templates unknown to cogs/i18n.py: {missing}"
    for lang in LANGS:
        cat = catalog(lang)
        assert all(cat.translates(t) for t in engine)


def _reasons_of_real_games(limit: int = 3000) -> list[Reason]:
    rng = random.Random(3)
    out: list[Reason] = []
    for i in range(12):
        rules = list(PROFILES.values())[i % 3]
        game = Game(rules, deal_from_seed(players=2 + i % 5, seed=i))
        while not game.finished and len(out) < limit:
            for seat in range(game.n):
                out += [r for r in card_hints(game, seat).values() if r is not None]
                # random actions by anyone, mostly illegal
                card = ALL_CARDS[rng.randrange(36)]
                other = ALL_CARDS[rng.randrange(36)]
                for action in (Action.attack(seat, card), Action.defend(seat, other, card),
                               Action.transfer(seat, card), Action.take(seat),
                               Action.pass_(seat)):
                    r = game.explain(action)
                    if r is not None:
                        out.append(r)
            game.apply(rng.choice(list(game.legal_actions())))
        out.append(game.explain(Action.take(0)))
    return out


def test_real_engine_reasons_translate_both_ways() -> None:
    reasons = _reasons_of_real_games()
    seen = {r.template for r in reasons}
    assert len(seen) >= 15
    for lang in LANGS:
        cat = catalog(lang)
        for r in reasons:
            translated = cat.reason(r)
            assert translated != str(r), r
            assert "{" not in translated
            # the same reason as a plain English string is recognised by its template
            assert cat.reason(str(r)) == translated, (str(r), match_template(str(r)))
    en = catalog("en")
    assert all(en.reason(r) == str(r) for r in reasons)


def test_reason_params_and_fallbacks() -> None:
    es, fr = catalog("es"), catalog("fr")
    r = Reason("only the defender, seat {defender}, can {action}", defender=2, action="take")
    assert es.reason(r) == "solo el defensor, el asiento 2, puede recoger"
    assert fr.reason(r) == "seul le défenseur, la place 2, peut ramasser"
    r = Reason("seat {first} adds first: seat {seat} may add after seat {first} passes",
               first=0, seat=3)
    assert "asiento 0" in es.reason(r) and "asiento 3" in es.reason(r)
    assert es.reason("something the engine never said") == "something the engine never said"
    assert es.reason("7♠ is not in your hand") == "7♠ no está en tu mano"

    class Odd(str):  # a Reason-like object whose template the catalogue does not know
        template = "brand new {thing}"
        params = {"thing": "x"}  # noqa: RUF012

    assert fr.reason(Odd("brand new x")) == "brand new x"


# ------------------------------------------------------------------------------ service errors
def _error_classes() -> list[type[errors.ServiceError]]:
    return [c for _, c in inspect.getmembers(errors, inspect.isclass)
            if issubclass(c, errors.ServiceError)]


def test_error_defaults_match_bot_errors() -> None:
    for cls in _error_classes():
        assert ERROR_DEFAULTS.get(cls.code) == cls.default_message or cls is errors.IllegalMove, (
            cls, "update ERROR_DEFAULTS and the catalogues")


@pytest.mark.parametrize("lang", LANGS)
def test_every_error_translates(lang: str) -> None:
    cat = catalog(lang)
    for cls in _error_classes():
        err = cls(Reason("you hold no card of a rank on the table")) if cls is errors.IllegalMove \
            else cls()
        text = cat.error(err)
        assert text and text != err.message, cls
        assert catalog("en").error(err) == err.message


def test_error_messages_and_details() -> None:
    es, fr, en = catalog("es"), catalog("fr"), catalog("en")
    assert es.error(errors.LobbyFull("the lobby is full (4 seats)")) == \
        "la sala está completa (4 asientos)"
    assert fr.error(errors.NoGame("the game has not started yet")) == \
        "la partie n’a pas encore commencé"
    # unknown specific message: the code's generic text (with the detail for options)
    assert es.error(errors.NotSeated("who are you?")) == "no tienes asiento en esta mesa"
    assert es.error(errors.BadOption("frobnicate must be on")) == \
        "opción no válida: frobnicate must be on"
    assert en.error(errors.BadOption("frobnicate must be on")) == "frobnicate must be on"
    # engine reasons inside errors
    r = Reason("{card} is on the table", card="9♥")
    assert fr.error(errors.IllegalMove(r, action="attack 9♥")) == "9♥ est sur la table"
    assert es.error(errors.NotYourTurn(Reason("seat {leader} leads this round", leader=1),
                                       to_act=1)) == "el asiento 1 abre esta ronda"
    assert es.error(errors.IllegalMove("seat 1 leads this round")) == \
        "el asiento 1 abre esta ronda"
    assert es.error(errors.StaleAction(expected=3, got=2, game_id=1)).startswith("la mesa")
    # anything else: its English message
    assert es.error(ValueError("boom")) == "boom"


#: Programming errors of callers, never shown to players.
INTERNAL = {"options must be LobbyOptions or a mapping"}


def test_known_literal_service_messages_translate() -> None:
    """Constant messages the service raises are in the catalogues (f-strings are covered by
    the templates of KNOWN_TEXTS when they match; others fall back to the code's text)."""
    source = (ROOT / "bot" / "service.py").read_text(encoding="utf-8")
    names = {c.__name__ for c in _error_classes()}
    literals = set()
    for node in ast.walk(ast.parse(source)):
        if (isinstance(node, ast.Call) and getattr(node.func, "id", None) in names
                and node.args and isinstance(node.args[0], ast.Constant)
                and isinstance(node.args[0].value, str)):
            literals.add(node.args[0].value)
    notices = re.findall(r'_notice\([^,]+, "[a-z_]+",\s*"([^"]+)"', source)
    literals |= set(notices)
    literals -= INTERNAL
    es = catalog("es")
    missing = {m for m in literals if es.known(m) is None}
    assert not missing, f"add to KNOWN_TEXTS and the catalogues: {missing}"


def test_known_text_templates() -> None:
    es, fr = catalog("es"), catalog("fr")
    assert es.known("Ana is back") == "Ana ha vuelto"
    assert fr.known("Ana ran out of time: take") == "Ana a dépassé le temps\u00a0: ramasser"
    assert es.known("Ana ran out of time: attack 6♠") == "a Ana se le acabó el tiempo: atacar 6♠"
    assert es.known("turn_timeout must be 15–600 seconds, not 9") == \
        "turn_timeout debe estar entre 15 y 600 segundos, no 9"
    assert es.known("a game needs 2 to 6 players, not 1") == \
        "una partida necesita de 2 a 6 jugadores, no 1"
    assert fr.error(errors.BadOption("there is no seat 7 in this lobby")) == \
        "il n’y a pas de place 7 dans cette salle"
    assert es.known("no idea") is None
    for text in (*KNOWN_TEXTS, *REASON_TEMPLATES):
        if placeholders(text):
            filled = text.format(**{p: f"<{p}>" for p in placeholders(text)})
            found = match_template(filled)
            assert found is not None and found[0] == text, (text, found)


# ------------------------------------------------------------------------------ commands
LOCALES = [discord.Locale.spain_spanish, discord.Locale.latin_american_spanish,
           discord.Locale.french]
NAME_RE = re.compile(r"^[-_\w]{1,32}$")


def _translate(string: str, locale: discord.Locale, where: TranslationContextLocation):
    ctx = TranslationContext(location=where, data=None)
    return asyncio.run(DurakTranslator().translate(locale_str(string), locale, ctx))


def test_translator_names_follow_discord_rules() -> None:
    names = set(COMMANDS) | set(OPTIONS)
    for locale in LOCALES:
        translated = {}
        for name in names:
            where = (TranslationContextLocation.group_name if name == "durak"
                     else TranslationContextLocation.command_name if name in COMMANDS
                     else TranslationContextLocation.parameter_name)
            text = _translate(name, locale, where) or name  # None: the same as in English
            assert valid_command_name(text) and NAME_RE.match(text) and text == text.lower()
            assert " " not in text and 1 <= len(text) <= 32
            translated[name] = text
        # subcommand names stay distinct within the group, option names within a command
        subs = [translated[n] for n in COMMANDS if n != "durak"]
        assert len(subs) == len(set(subs))
    assert _translate("hand", discord.Locale.french, TranslationContextLocation.command_name) \
        == "main"
    assert _translate("leaderboard", discord.Locale.spain_spanish,
                      TranslationContextLocation.command_name) == "clasificación"


def test_translator_descriptions_and_choices() -> None:
    for locale in LOCALES:
        for text in (*COMMANDS.values(), *OPTIONS.values()):
            where = TranslationContextLocation.command_description
            out = _translate(text, locale, where)
            assert out is not None and 1 <= len(out) <= 100 and out != text
        for text in CHOICES.values():
            out = _translate(text, locale, TranslationContextLocation.choice_name) or text
            assert 1 <= len(out) <= 100
    for english in (discord.Locale.american_english, discord.Locale.british_english):
        assert _translate("hand", english, TranslationContextLocation.command_name) is None
    assert _translate("hand", discord.Locale.german,
                      TranslationContextLocation.command_name) is None
    assert _translate("not a known string", discord.Locale.french,
                      TranslationContextLocation.command_description) is None
    assert _translate("5", discord.Locale.french, TranslationContextLocation.choice_name) is None


def test_valid_command_name() -> None:
    assert valid_command_name("añadir-ia") and valid_command_name("límite_primera_ronda")
    for bad in ("", "Upper", "two words", "x" * 33, "a.b", "é!"):
        assert not valid_command_name(bad)


def test_translator_ignores_invalid_catalogue_names(monkeypatch) -> None:
    fr = catalog("fr")
    monkeypatch.setattr(fr, "pgettext", lambda ctx, msg: "Not Valid")
    assert DurakTranslator().translate_text("hand", "fr", name=True) is None


# ------------------------------------------------------------------------------ compile.py
def test_po_parser_and_compiler_round_trip(tmp_path: Path) -> None:
    import gettext

    po = '''# comment
msgid ""
msgstr ""
"Language: xx\\n"
"Content-Type: text/plain; charset=UTF-8\\n"
"Plural-Forms: nplurals=2; plural=(n != 1);\\n"

msgctxt "cmd"
msgid "hand"
msgstr "mano"

#, fuzzy
msgid "skip me"
msgstr "saltado"

msgid "multi "
"line"
msgstr "varias "
"líneas \\"ok\\""

msgid "{count} card"
msgid_plural "{count} cards"
msgstr[0] "{count} carta"
msgstr[1] "{count} cartas"
'''
    entries = parse_po(po)
    assert [e.msgid for e in entries] == ["", "hand", "skip me", "multi line", "{count} card"]
    assert entries[2].fuzzy and not entries[2].translated
    mo = tmp_path / "xx" / "LC_MESSAGES"
    mo.mkdir(parents=True)
    (mo / "t.mo").write_bytes(compile_po(po))
    t = gettext.translation("t", localedir=str(tmp_path), languages=["xx"])
    assert t.pgettext("cmd", "hand") == "mano"
    assert t.gettext("hand") == "hand"
    assert t.gettext("skip me") == "skip me"
    assert t.gettext("multi line") == 'varias líneas "ok"'
    assert t.ngettext("{count} card", "{count} cards", 1) == "{count} carta"
    assert t.ngettext("{count} card", "{count} cards", 3) == "{count} cartas"
    with pytest.raises(ValueError):
        parse_po('msgid "a"\nmsgstr b\n')
