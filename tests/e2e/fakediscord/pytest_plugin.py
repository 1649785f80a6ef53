"""pytest fixture for the fake Discord server.

Use from a conftest (tests/e2e/conftest.py)::

    from fakediscord.pytest_plugin import fake_discord  # noqa: F401

or import it in a test module. The fixture yields a started and installed ``FakeDiscord``;
at teardown it waits for pending work (``settle()``), stops every bot started with
``fake.start_bot``/``run_bot``, shuts the server down, restores discord.py, and then calls
``assert_clean()`` -- unless the test set ``fake_discord.check_clean_on_teardown = False`` or
carries ``@pytest.mark.fakediscord_dirty``, or already failed.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator

import pytest
import pytest_asyncio

from .server import FakeDiscord, WaitTimeout


@pytest_asyncio.fixture
async def fake_discord(request: pytest.FixtureRequest) -> AsyncIterator[FakeDiscord]:
    fake = FakeDiscord()
    await fake.start()
    try:
        yield fake
        if fake.check_clean_on_teardown:
            with contextlib.suppress(WaitTimeout):  # assert_clean below reports what is pending
                await fake.settle()
    finally:
        await fake.stop()
    failed = any(
        getattr(request.node, f"rep_{when}", None) is not None
        and getattr(request.node, f"rep_{when}").failed
        for when in ("setup", "call")
    )
    if (
        fake.check_clean_on_teardown
        and not failed
        and request.node.get_closest_marker("fakediscord_dirty") is None
    ):
        fake.assert_clean()


def pytest_configure(config: pytest.Config) -> None:  # used when loaded as a plugin
    config.addinivalue_line(
        "markers", "fakediscord_dirty: skip fake_discord's assert_clean at teardown"
    )


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]):  # type: ignore[no-untyped-def]
    rep = yield
    setattr(item, f"rep_{rep.when}", rep)
    return rep
