"""DATABASE_URL and DATABASE_PATH, and the startup check of the database."""

from __future__ import annotations

import asyncio
from pathlib import Path

import asyncpg
import pytest

from apps.config import Settings
from bot.errors import ConfigError
from bot.storage import (
    DatabaseUnavailable,
    SqliteStorage,
    create_storage,
    parse_database_url,
    storage_problem,
)
from bot.storage.postgres import PostgresStorage
from bot.storage.url import redact_url

from .conftest import Backend


@pytest.mark.parametrize(
    ("url", "backend", "location"),
    [
        ("sqlite:///durak.sqlite3", "sqlite", "durak.sqlite3"),
        ("sqlite:///data/durak.sqlite3", "sqlite", "data/durak.sqlite3"),
        ("sqlite:////var/lib/durak/durak.sqlite3", "sqlite", "/var/lib/durak/durak.sqlite3"),
        (
            "postgresql://durak:pw@db:5432/durak",
            "postgresql",
            "postgresql://durak:pw@db:5432/durak",
        ),
        ("postgres://durak@db/durak", "postgresql", "postgres://durak@db/durak"),
    ],
)
def test_database_url_forms(url: str, backend: str, location: str) -> None:
    target = parse_database_url(url)
    assert (target.backend, target.location) == (backend, location)
    storage = create_storage(url)
    assert isinstance(storage, SqliteStorage if backend == "sqlite" else PostgresStorage)


@pytest.mark.parametrize("url", ["sqlite://durak.sqlite3", "sqlite:///", "mysql://x/y", "x"])
def test_bad_database_urls_are_one_config_line(url: str) -> None:
    with pytest.raises(ConfigError) as info:
        Settings.from_env({"DATABASE_URL": url}, dotenv_path=None)
    assert len(str(info.value).splitlines()) == 1 and "DATABASE_URL" in str(info.value)


def test_database_url_wins_and_database_path_still_works(tmp_path: Path) -> None:
    assert Settings.from_env({}, dotenv_path=None).storage_url == "sqlite:///durak.sqlite3"
    env_file = tmp_path / ".env"
    env_file.write_text("DATABASE_PATH=/srv/old.sqlite3\n")  # an existing .env file
    settings = Settings.from_env({}, dotenv_path=env_file)
    assert settings.storage_url == "sqlite:////srv/old.sqlite3"
    settings = Settings.from_env(
        {"DATABASE_URL": "postgresql://u:pw-4711@h/db"}, dotenv_path=env_file
    )
    assert settings.storage_url == "postgresql://u:pw-4711@h/db"
    assert "pw-4711" not in repr(settings)  # (the repr names web_secret: another needle)
    settings = Settings.from_env({"DATABASE_URL": "sqlite:///new.sqlite3"}, dotenv_path=env_file)
    assert settings.storage_url == "sqlite:///new.sqlite3"
    assert settings.database_path == "new.sqlite3"
    # a Settings built in code with only database_path (as tests and older code do)
    assert Settings(database_path="x.sqlite3").storage_url == "sqlite:///x.sqlite3"


def test_redact_url() -> None:
    assert redact_url("postgresql://u:pw@h:1/db?x=1") == "postgresql://u:***@h:1/db?x=1"
    assert redact_url("postgresql://u@h/db") == "postgresql://u@h/db"


def test_storage_problem_accepts_a_usable_database_and_migrates_it(tmp_path: Path) -> None:
    assert storage_problem(f"sqlite:///{tmp_path}/new/durak.sqlite3") is None
    assert (tmp_path / "new" / "durak.sqlite3").is_file()


def test_storage_problem_names_an_unreachable_server(tmp_path: Path) -> None:
    problem = storage_problem(f"postgresql://durak:secret@/durak?host={tmp_path}")
    assert problem is not None and "\n" not in problem
    assert "cannot be reached" in problem and "secret" not in problem


async def test_a_read_only_postgresql_database_is_refused(postgres_backend: Backend) -> None:
    """(tests/service/test_faults.py makes a read-only SQLite file.)"""
    backend = postgres_backend
    st = backend.storage()
    await st.open()  # migrated while writable
    await st.close()
    location = parse_database_url(backend.url).location
    con = await asyncpg.connect(location)
    try:
        name = await con.fetchval("SELECT current_database()")
        await con.execute(f'ALTER DATABASE "{name}" SET default_transaction_read_only = on')
    finally:
        await con.close()
    with pytest.raises(DatabaseUnavailable) as info:
        await backend.storage().open()
    assert "read-only" in str(info.value) and "\n" not in str(info.value)
    problem = await asyncio.to_thread(storage_problem, backend.url)  # the startup check
    assert problem is not None and "read-only" in problem
