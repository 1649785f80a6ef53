import functools
from pathlib import Path

import pytest

from .durak_e2e import Harness, MakeHarness
from .fakediscord import FakeDiscord
from .fakediscord.pytest_plugin import fake_discord, pytest_configure, pytest_runtest_makereport  # noqa: F401


@pytest.fixture
def harness(fake_discord: FakeDiscord, tmp_path: Path) -> MakeHarness:  # noqa: F811
    """Makes the test's :class:`Harness`: the bot on a fresh SQLite file in ``tmp_path``,
    against ``fake_discord``; keyword arguments set the harness's fields (``seeds``, ...)."""
    return functools.partial(Harness, fake_discord, tmp_path / "durak.sqlite3")
