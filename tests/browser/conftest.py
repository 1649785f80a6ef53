"""Fixtures of the browser tests: Debian's Chromium driven by Playwright (no browser is
downloaded: ``executable_path`` points at the system's), and the real web server with the
real game service, both in the test's own event loop.

Without Chromium (or Playwright) these tests skip with the reason; under CI (``CI`` set, as
``.ci/run`` does) they fail instead, so a CI machine without the browser cannot pass them by
skipping.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from .support import (
    CHROMIUM,
    LocalTable,
    TablePage,
    chromium_problem,
    launch_chromium,
    local_webs,
    open_page,
)


@pytest.fixture(autouse=True)
def _need_chromium() -> None:
    problem = chromium_problem()
    if problem is None:
        return
    if os.environ.get("CI"):
        pytest.fail(f"{problem} (CI is set: the browser tests must run; .ci/run installs it)")
    pytest.skip(problem)


@pytest_asyncio.fixture
async def browser() -> AsyncIterator[Any]:
    """A headless Chromium (``/usr/bin/chromium``), closed after the test."""
    from playwright.async_api import async_playwright

    async with async_playwright() as pw:
        browser = await launch_chromium(pw)
        try:
            yield browser
        finally:
            await browser.close()


@pytest_asyncio.fixture
async def local_table(tmp_path: Path) -> AsyncIterator[Callable[..., Awaitable[LocalTable]]]:
    """Makes a :class:`LocalTable`: the service and the web server on 127.0.0.1 (a free
    port), one player against AI seats; every one made is closed after the test."""
    async with local_webs(LocalTable, tmp_path, "web") as make:
        yield make


@pytest_asyncio.fixture
async def table_page(
    browser: Any, local_table: Callable[..., Awaitable[LocalTable]]
) -> Callable[..., Awaitable[tuple[LocalTable, TablePage]]]:
    """``await table_page(**options)``: a :class:`LocalTable` made with ``options`` and its
    player's page, open in the browser at the first table and hand."""

    async def make(**options: Any) -> tuple[LocalTable, TablePage]:
        table = await local_table(**options)
        return table, await open_page(browser, table.url())

    return make


__all__ = ["CHROMIUM"]
