"""Test-wide settings: the Hypothesis profiles, one throwaway PostgreSQL server, and a guard
that keeps tests off the bot's own database file.

``dev`` (the default) keeps the property tests quick while working; ``ci`` (chosen when the
environment variable ``CI`` is set, as ``.ci/run`` does, or by ``HYPOTHESIS_PROFILE=ci``) runs
more examples.  Either way a failing example is replayed from its seeds.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
from hypothesis import settings

from apps.config import DEFAULT_DATABASE_PATH
from bot.storage.throwaway_pg import (
    PostgresUnavailable,
    ThrowawayPostgres,
    start_throwaway_postgres,
)
from tests.storage_helpers import fresh_database

settings.register_profile("dev", max_examples=40)
settings.register_profile("ci", max_examples=150, print_blob=True)
settings.load_profile(
    os.environ.get("HYPOTHESIS_PROFILE") or ("ci" if os.environ.get("CI") else "dev")
)


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[ThrowawayPostgres]:
    """One PostgreSQL server for the whole test session (storage and end-to-end tests).

    Its files live in a directory of their own in the system's temporary folder, not under
    pytest's temporary root: a second pytest session of the same user resets that root to
    mode 0700, which would lock the server's own user out of its data while it runs.

    If none can be started, the tests that need it fail when ``CI`` is set and are skipped,
    with the reason, otherwise."""
    root = Path(tempfile.mkdtemp(prefix="durak-test-postgres-"))
    try:
        try:
            server = start_throwaway_postgres(root)
        except PostgresUnavailable as exc:
            reason = f"no PostgreSQL server could be started: {exc}"
            if os.environ.get("CI"):
                pytest.fail(f"{reason} (CI is set: the PostgreSQL tests must run)")
            pytest.skip(reason)
        yield server
        server.stop()
    finally:
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture
async def postgres_url(postgres_server: ThrowawayPostgres) -> AsyncIterator[str]:
    """A fresh, empty database on the session's PostgreSQL server, dropped after the test."""
    async with fresh_database(postgres_server) as url:
        yield url


#: The bot's default database (``DATABASE_PATH``'s default, relative to the working directory)
#: and the files SQLite and the bot's lock make beside it.
_DEFAULT_DATABASE_FILES = tuple(
    DEFAULT_DATABASE_PATH + suffix for suffix in ("", "-wal", "-shm", "-journal", ".lock")
)


@pytest.fixture(autouse=True)
def _no_database_in_the_working_directory(request: pytest.FixtureRequest) -> Iterator[None]:
    """Fail a test that makes the bot's default database in the working directory: tests use
    temporary files only (a bot running there holds that file, and would be disturbed or
    would make the test fail).  Files that were there before the test are left alone."""
    cwd = Path.cwd()
    before = {name for name in _DEFAULT_DATABASE_FILES if (cwd / name).exists()}
    yield
    made = [n for n in _DEFAULT_DATABASE_FILES if n not in before and (cwd / n).exists()]
    for name in made:  # so that the tests after this one start clean
        (cwd / name).unlink(missing_ok=True)
    if made:
        pytest.fail(
            f"{request.node.nodeid} made {', '.join(made)} in the working directory {cwd}: "
            "tests must use temporary files (tmp_path) for every database"
        )
