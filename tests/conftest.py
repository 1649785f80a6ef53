"""Test-wide settings: the Hypothesis profiles, and one throwaway PostgreSQL server.

``dev`` (the default) keeps the property tests quick while working; ``ci`` (chosen when the
environment variable ``CI`` is set, as ``.ci/run`` does, or by ``HYPOTHESIS_PROFILE=ci``) runs
more examples.  Either way a failing example is replayed from its seeds.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest
from hypothesis import settings

from bot.storage.throwaway_pg import (
    PostgresUnavailable,
    ThrowawayPostgres,
    start_throwaway_postgres,
)

settings.register_profile("dev", max_examples=40)
settings.register_profile("ci", max_examples=150, print_blob=True)
settings.load_profile(
    os.environ.get("HYPOTHESIS_PROFILE") or ("ci" if os.environ.get("CI") else "dev")
)


@pytest.fixture(scope="session")
def postgres_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ThrowawayPostgres]:
    """One PostgreSQL server for the whole test session (storage and end-to-end tests).

    If none can be started, the tests that need it fail when ``CI`` is set and are skipped,
    with the reason, otherwise."""
    try:
        server = start_throwaway_postgres(tmp_path_factory.mktemp("postgres"))
    except PostgresUnavailable as exc:
        reason = f"no PostgreSQL server could be started: {exc}"
        if os.environ.get("CI"):
            pytest.fail(f"{reason} (CI is set: the PostgreSQL tests must run)")
        pytest.skip(reason)
    yield server
    server.stop()
