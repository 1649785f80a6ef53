"""The pages' words: every string key a page looks up (read from its HTML and the scripts it
loads) is sent to it in every language, translated (no English on a French or Spanish page),
and no key is sent that the page never looks up.

A page's lookups are its HTML's ``data-s="key"`` (the element's text) and
``data-s-aria="key"`` (its ``aria-label``), and its scripts' ``t("key")`` (``t(`prefix_${…}`)``
stands for every key sent with that prefix, as ``level_<name>``), in the modules its HTML loads
and every module they import (comments aside; ``strings.js``, which defines ``t`` and words the
``data-s`` elements with it, aside).  Any other call of ``t`` is a lookup this test cannot
read, and fails it.  What is sent is what the server gives each page: the strings written into the
page's HTML, and those of the protocol's frames (the table's ``welcome``,
``/api/rooms/setup``, the room socket's ``welcome``).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

import web

from .conftest import ALICE, BOB, ORIGIN, WebTable

STATIC = Path(web.__file__).with_name("static")
LANGUAGES = ("en", "es", "fr")
#: Keys whose translation is the English word itself in that language.
SAME_AS_ENGLISH = {
    ("es", "seconds"),  # "{n} s": the SI symbol
    ("fr", "seconds"),
    ("fr", "level_expert"),  # "Expert"
}

_DATA_S = re.compile(r'\sdata-s(?:-aria)?="([^"]*)"')
_MODULE = re.compile(r'<script type="module" src="/static/([^"]+)"')
_IMPORT = re.compile(r'(?:\bfrom\s*|\bimport\s*\(\s*)"\./([^"]+)"')
_CALL = re.compile(r"(?<![\w.$])(?<!function )t\(")
_COMMENT = re.compile(r"/\*.*?\*/|^\s*//.*?$|\s//\s.*?$", re.DOTALL | re.MULTILINE)
#: The module that defines ``t`` (its own calls look up the HTML's ``data-s`` keys).
_STRINGS_MODULE = "strings.js"
_KEY = re.compile(r"""t\(\s*(?:"([a-z0-9_]+)"|'([a-z0-9_]+)'|`([a-z0-9_]+)\$\{)""")


@dataclass
class Lookups:
    """What a page looks up: keys, key prefixes, and calls of ``t`` that name no key."""

    keys: set[str] = field(default_factory=set)
    prefixes: set[str] = field(default_factory=set)
    unreadable: list[str] = field(default_factory=list)

    def uses(self, key: str) -> bool:
        return key in self.keys or any(key.startswith(p) for p in self.prefixes)


def lookups_of(html: str) -> Lookups:
    """The lookups of a page, from its HTML and every script module it loads."""
    found = Lookups(keys=set(_DATA_S.findall(html)))
    todo, seen = list(_MODULE.findall(html)), set()
    while todo:
        name = todo.pop()
        if name in seen or name.startswith("vendor/"):  # others' code: no lookups of ours
            continue
        seen.add(name)
        source = _COMMENT.sub("", (STATIC / name).read_text(encoding="utf-8"))
        base = name.rsplit("/", 1)[0] + "/" if "/" in name else ""
        todo.extend(base + imported for imported in _IMPORT.findall(source))
        if name == _STRINGS_MODULE:
            continue
        for call in _CALL.finditer(source):
            key = _KEY.match(source, call.start())
            if key is None:
                found.unreadable.append(f"{name}: {source[call.start() : call.start() + 30]}")
            elif key.group(3) is not None:
                found.prefixes.add(key.group(3))
            else:
                found.keys.add(key.group(1) or key.group(2))
    assert seen, "the page loads no script module"
    return found


class _Strings(HTMLParser):
    """The page's embedded strings (``#page-strings``), its ``data-s`` elements' texts, and
    every other text a reader sees or hears (text nodes, ``aria-label``, ``title``)."""

    def __init__(self) -> None:
        super().__init__()
        self.embedded: dict[str, str] = {}
        self.worded: dict[str, str] = {}
        self.visible: list[str] = []
        self._open: list[tuple[str, str | None]] = []
        self._json = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        self._json = tag == "script" and a.get("id") == "page-strings"
        if a.get("data-s-aria"):
            self.worded[str(a["data-s-aria"])] = str(a.get("aria-label"))
        for name in ("aria-label", "title", "placeholder", "alt"):
            if a.get(name) and not a.get("data-s-aria"):
                self.visible.append(str(a[name]))
        if tag not in ("meta", "link", "input", "br", "img"):
            self._open.append((tag, a.get("data-s")))

    def handle_endtag(self, tag: str) -> None:
        while self._open and self._open.pop()[0] != tag:
            pass
        self._json = False

    def handle_data(self, data: str) -> None:
        if self._json:
            self.embedded = json.loads(data)
            return
        if not data.strip() or (self._open and self._open[-1][0] in ("script", "style")):
            return
        key = self._open[-1][1] if self._open else None
        if key:
            self.worded[key] = data
        else:
            self.visible.append(data.strip())


@dataclass
class Sent:
    """What the server sent a page, by language: one dict of strings per source."""

    by_source: dict[str, dict[str, dict[str, str]]] = field(default_factory=dict)
    html: dict[str, _Strings] = field(default_factory=dict)

    def add(self, source: str, lang: str, strings: dict[str, str]) -> None:
        self.by_source.setdefault(source, {})[lang] = strings


async def _html(table: WebTable, path: str, lang: str) -> _Strings:
    resp = await table.client.get(path, headers={"Accept-Language": f"{lang},en;q=0.5"})
    assert resp.status == 200, path
    page = _Strings()
    page.feed(await resp.text())
    page.close()
    return page


async def _sent_to_table(table: WebTable) -> Sent:
    await table.game(ALICE, BOB)
    sent = Sent()
    for lang in LANGUAGES:
        page = await table.page(table.watcher(), lang=lang)
        sent.add("welcome", lang, (await page.next("welcome"))["strings"])
        sent.html[lang] = await _html(table, "/table", lang)
        sent.add("page", lang, sent.html[lang].embedded)
    return sent


async def _sent_to_home(table: WebTable) -> Sent:
    sent = Sent()
    for lang in LANGUAGES:
        setup = await (await table.client.get(f"/api/rooms/setup?lang={lang}")).json()
        sent.add("setup", lang, setup["strings"])
        sent.html[lang] = await _html(table, "/", lang)
        sent.add("page", lang, sent.html[lang].embedded)
    return sent


async def _sent_to_room(table: WebTable) -> Sent:
    made = await table.client.post(
        "/api/rooms", json={"name": "Ann", "lang": "en"}, headers={"Origin": ORIGIN}
    )
    token = (await made.json())["token"]
    sent = Sent()
    for lang in LANGUAGES:
        ws = await table.client.ws_connect("/ws/room", headers={"Origin": ORIGIN})
        await ws.send_json({"t": "hello", "token": token, "lang": lang})
        welcome: dict[str, Any] = await ws.receive_json()
        assert welcome["t"] == "welcome", welcome
        sent.add("welcome", lang, welcome["strings"])
        await ws.close()
        sent.html[lang] = await _html(table, "/room", lang)
        sent.add("page", lang, sent.html[lang].embedded)
    return sent


SENDERS = {"table": _sent_to_table, "home": _sent_to_home, "room": _sent_to_room}
PATHS = {"table": "/table", "home": "/", "room": "/room"}


@pytest.mark.parametrize("name", ["table", "home", "room"])
async def test_every_word_a_page_looks_up_is_sent_translated_and_none_unused(
    table: WebTable, name: str
) -> None:
    page_html = await (await table.client.get(PATHS[name])).text()
    used = lookups_of(page_html)
    sent = await SENDERS[name](table)
    problems: list[str] = []
    if used.unreadable:
        problems.append(f"{name}: lookups this test cannot read: {used.unreadable}")
    for source, by_lang in sent.by_source.items():
        english = by_lang["en"]
        for lang in LANGUAGES:
            strings = by_lang[lang]
            missing = sorted(k for k in used.keys if k not in strings)
            unused = sorted(k for k in strings if not used.uses(k))
            if missing:
                problems.append(f"{name} {source} {lang}: looked up, not sent: {missing}")
            if unused:
                problems.append(f"{name} {source} {lang}: sent, never looked up: {unused}")
            if lang != "en":
                same = sorted(
                    k
                    for k, v in strings.items()
                    if v == english.get(k) and (lang, k) not in SAME_AS_ENGLISH
                )
                if same:
                    problems.append(f"{name} {source} {lang}: English on the page: {same}")
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("name", ["table", "home", "room"])
@pytest.mark.parametrize("lang", ["es", "fr"])
async def test_the_page_is_written_in_the_readers_language(
    table: WebTable, name: str, lang: str
) -> None:
    page = await _html(table, PATHS[name], lang)
    english = (await _html(table, PATHS[name], "en")).embedded
    assert page.worded, "the page has no data-s words"
    for key, text in page.worded.items():
        assert text == page.embedded[key], (key, text)
        assert text != english[key] or (lang, key) in SAME_AS_ENGLISH, (key, text)
    # nothing else in the HTML is a word (symbols and the game's name only)
    words = [v for v in page.visible if re.search(r"[A-Za-z]", v) and v != "Durak"]
    assert not words, words
