"""The HTML pages (:mod:`web.pages`): one head for every page, words written in as text, the
page's strings as inert JSON, and no inline script or style for the CSP to refuse."""

from __future__ import annotations

import json
import re

import pytest

from web.pages import PAGES, SHELL, TEMPLATES_DIR, PageSpec, render

from .conftest import WebTable

SPEC = PageSpec("body.html", "style.css", "app.js")


@pytest.mark.parametrize("path", ["/table", "/", "/room"])
async def test_every_page_has_the_one_head(table: WebTable, path: str) -> None:
    text = await (await table.client.get(path)).text()
    head = text[: text.index("</head>")]
    shell = (TEMPLATES_DIR / SHELL).read_text()
    for line in ('<meta charset="utf-8">', '<link rel="stylesheet" href="/static/base.css">'):
        assert line in shell and line in head
    assert len(re.findall(r'<script type="module" src="/static/[\w.]+\.js"></script>', head)) == 1
    # the only script without src is the strings' data block, which no browser runs
    inline = re.findall(r"<script(?![^>]*\ssrc=)([^>]*)>", text)
    assert inline == [' type="application/json" id="page-strings"']
    assert "<style" not in text and " style=" not in text
    assert not re.search(r"\son\w+=", text)  # no inline event handler


def test_words_are_written_as_text_and_strings_as_inert_json() -> None:
    strings = {"title": "<b>&</b>", "aria": 'a "quote"', "hostile": "</script><script>x()"}
    page = render(
        "<head>{{strings}}</head><body{{body_class}}>{{body}}</body>",
        '<h1 data-s="title"></h1>\n<section data-s-aria="aria"></section>',
        SPEC,
        strings,
        "fr",
    )
    assert '<h1 data-s="title">&lt;b&gt;&amp;&lt;/b&gt;</h1>' in page
    assert 'aria-label="a &quot;quote&quot;"' in page
    assert "</script><script>" not in page
    data = page[page.index("<head>") + 6 : page.index("</head>")]
    assert json.loads(data) == strings


@pytest.mark.parametrize(
    ("body", "problem"),
    [
        ('<p data-s="title">English</p>', "written empty"),
        ('<p data-s="nothing"></p>', "no string 'nothing'"),
        ('<p data-s-aria="nothing"></p>', "no string 'nothing'"),
    ],
)
def test_a_body_with_words_of_its_own_is_refused(body: str, problem: str) -> None:
    with pytest.raises(ValueError, match=problem):
        render("{{body}}", body, SPEC, {"title": "T"}, "en")


def test_every_page_template_has_words_and_none_of_its_own() -> None:
    for spec in PAGES.values():
        body = (TEMPLATES_DIR / spec.body).read_text()
        assert " data-s=" in body
        assert not re.search(r"<(\w+)[^<>]*\sdata-s=\"\w+\"[^<>]*>[^<]+</\1>", body), spec.body
