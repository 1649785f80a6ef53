"""Fixtures of the browser tests: Debian's Chromium driven by Playwright (no browser is
downloaded: ``executable_path`` points at the system's), and the real web server with the
real game service, both in the test's own event loop.

Without Chromium (or Playwright) these tests skip with the reason; under CI (``CI`` set, as
``.ci/run`` does) they fail instead, so a CI machine without the browser cannot pass them by
skipping.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from .support import CHROMIUM, LocalTable, chromium_problem, launch_chromium


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
async def local_table(tmp_path: Path) -> AsyncIterator[Callable[..., Any]]:
    """Makes a :class:`LocalTable`: the service and the web server on 127.0.0.1 (a free
    port), one player against AI seats; every one made is closed after the test."""
    made: list[LocalTable] = []

    async def make(**kwargs: Any) -> LocalTable:
        table = LocalTable(tmp_path / f"web{len(made)}.sqlite3", **kwargs)
        made.append(table)
        await table.start()
        return table

    try:
        yield make
    finally:
        for table in reversed(made):
            await table.close()


__all__ = ["CHROMIUM"]
