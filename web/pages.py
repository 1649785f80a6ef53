"""The HTML pages (``/table``, ``/``, ``/room``), written in the reader's language.

Every page is one shell (``web/templates/page.html``: the one ``<head>``, the shared and the
page's stylesheet, its script module) around the page's body (``web/templates/<page>.html``).
The body has no words of its own: an element ``data-s="key"`` (written empty) gets the text of
the page's string ``key`` (:mod:`web.strings`), and ``data-s-aria="key"`` its ``aria-label``.
All of the page's strings also go into the page, as JSON in ``<script type="application/json"
id="page-strings">`` (data, not a script: the Content-Security-Policy allows no inline
script), for its scripts' ``t(key)``.

The language is the request's ``Accept-Language`` (the page may learn another later, as the
table's from a token: its scripts then re-word it).  Each page is made once per language and
kept, served as a static file is (gzip, ETag, ``Cache-Control: no-cache``), and made again
when its templates change.  Without the table's template, ``/table`` is :data:`PLACEHOLDER`.
"""

from __future__ import annotations

import asyncio
import html
import json
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path

from aiohttp import web

from present.catalog import Catalog
from web.protocol import browser_language
from web.static_files import Served, respond, served
from web.strings import Page, page_strings
from web.wording import catalog

__all__ = ["PAGES", "PLACEHOLDER", "TEMPLATES_DIR", "PageSpec", "Pages"]

#: The pages' templates.
TEMPLATES_DIR = Path(__file__).with_name("templates")
#: The shell every page is written into.
SHELL = "page.html"
#: ``/table`` when its template is missing: no script, no style (the CSP allows neither
#: inline).
PLACEHOLDER = (
    b'<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Durak</title>'
    b"</head><body><p>The web table's page is not installed.</p></body></html>"
)

_WORDED = re.compile(r'<(\w+)([^<>]*\sdata-s="([a-z0-9_]+)"[^<>]*)></\1>')
_ARIA = re.compile(r'\sdata-s-aria="([a-z0-9_]+)"')
_FIELD = re.compile(r"\{\{(\w+)\}\}")


@dataclass(frozen=True, slots=True)
class PageSpec:
    """A page: its body's template, its stylesheet and script module (in ``/static/``), and
    the class of its ``<body>``."""

    body: str
    style: str
    script: str
    body_class: str = ""


#: The pages, by the name of their strings (:data:`web.strings.PAGE_STRINGS`).
PAGES: dict[Page, PageSpec] = {
    "table": PageSpec("table.html", "style.css", "app.js"),
    "home": PageSpec("home.html", "rooms.css", "home.js", "rooms"),
    "room": PageSpec("room.html", "rooms.css", "room.js", "rooms"),
}


def render(shell: str, body: str, spec: PageSpec, strings: dict[str, str], lang: str) -> str:
    """The page: ``body`` worded with ``strings`` (:class:`ValueError` for a ``data-s``
    element that is not empty or a key without a string), in ``shell``."""

    def word(key: str) -> str:
        if key not in strings:
            raise ValueError(f"{spec.body}: no string {key!r}")
        return html.escape(strings[key])

    worded, count = _WORDED.subn(lambda m: f"<{m[1]}{m[2]}>{word(m[3])}</{m[1]}>", body.strip("\n"))
    if count != body.count(" data-s="):
        raise ValueError(f"{spec.body}: a data-s element must be written empty")
    worded = _ARIA.sub(lambda m: f'{m[0]} aria-label="{word(m[1])}"', worded)
    data = json.dumps(strings, ensure_ascii=False, sort_keys=True).replace("<", "\\u003c")
    fields = {
        "lang": lang,
        "style": spec.style,
        "script": spec.script,
        "strings": data,
        "body_class": f' class="{spec.body_class}"' if spec.body_class else "",
        "body": worded,
    }
    return _FIELD.sub(lambda m: fields[m[1]], shell)


class Pages:
    """Serves the pages from the templates in ``root`` (see the module docstring)."""

    def __init__(self, root: Path = TEMPLATES_DIR) -> None:
        self.root = root
        self._made: dict[tuple[Page, str], tuple[tuple[int, int], Served]] = {}

    def _page(self, name: Page, cat: Catalog) -> Served | None:
        """``name`` in ``cat``'s language (``None``: no template); file system calls: run it
        in a thread."""
        spec = PAGES[name]
        shell, body = self.root / SHELL, self.root / spec.body
        try:
            stamp = (shell.stat().st_mtime_ns, body.stat().st_mtime_ns)
        except FileNotFoundError:
            return None
        made = self._made.get((name, cat.locale))
        if made is not None and made[0] == stamp:
            return made[1]
        text = render(
            shell.read_text("utf-8"),
            body.read_text("utf-8"),
            spec,
            page_strings(name, cat),
            cat.locale,
        )
        page = served(text.encode("utf-8"), "text/html; charset=utf-8")
        self._made[(name, cat.locale)] = (stamp, page)
        return page

    async def page(self, name: Page, cat: Catalog) -> Served | None:
        """``name`` in ``cat``'s language, made off the event loop."""
        return await asyncio.get_running_loop().run_in_executor(None, self._page, name, cat)

    def handler(self, name: Page) -> Callable[[web.Request], Awaitable[web.StreamResponse]]:
        """The route of page ``name`` (404 without its template; ``/table``: the
        placeholder)."""

        async def serve(request: web.Request) -> web.StreamResponse:
            cat = catalog(browser_language(request))
            page = await self.page(name, cat)
            if page is None:
                if name == "table":
                    return web.Response(body=PLACEHOLDER, content_type="text/html", charset="utf-8")
                raise web.HTTPNotFound()
            response = respond(request, page, vary="Accept-Encoding, Accept-Language")
            response.headers["Content-Language"] = cat.locale
            return response

        return serve
