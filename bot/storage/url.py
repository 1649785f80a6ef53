"""``DATABASE_URL``: which backend and where (the storage itself is built by
:func:`bot.storage.backends.create_storage`).

Forms: ``sqlite:///relative/path``, ``sqlite:////absolute/path`` (``sqlite:///:memory:`` for
tests), ``postgresql://user:password@host:port/dbname`` (``postgres://`` too).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal
from urllib.parse import urlsplit, urlunsplit

__all__ = [
    "DEFAULT_DATABASE_URL",
    "DatabaseTarget",
    "parse_database_url",
    "redact_url",
    "sqlite_url",
]

DEFAULT_DATABASE_URL = "sqlite:///durak.sqlite3"


@dataclass(frozen=True, slots=True)
class DatabaseTarget:
    """A parsed ``DATABASE_URL``: ``location`` is the SQLite path or the PostgreSQL URL."""

    backend: Literal["sqlite", "postgresql"]
    location: str


def redact_url(url: str) -> str:
    """``url`` with its password replaced by ``***`` (for logs and messages)."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    netloc = parts.netloc.replace(f":{parts.password}@", ":***@", 1)
    return urlunsplit(parts._replace(netloc=netloc))


def sqlite_url(path: str) -> str:
    """The ``DATABASE_URL`` of a SQLite file path (relative or absolute)."""
    return f"sqlite:///{path}"


def parse_database_url(url: str) -> DatabaseTarget:
    """Read a ``DATABASE_URL``; ``ValueError`` with a one-line reason if it is not one."""
    text = url.strip()
    if text.startswith("sqlite:///"):
        path = text[len("sqlite:///") :]
        if not path:
            raise ValueError("a sqlite URL needs a file path: sqlite:///durak.sqlite3")
        return DatabaseTarget("sqlite", path)
    if text.startswith("sqlite:"):
        raise ValueError(
            "a sqlite URL has three slashes before a relative path "
            "(sqlite:///durak.sqlite3) and four before an absolute one "
            "(sqlite:////var/lib/durak/durak.sqlite3)"
        )
    if text.startswith(("postgresql://", "postgres://")):
        return DatabaseTarget("postgresql", text)
    scheme = text.split(":", 1)[0] if ":" in text else text
    raise ValueError(f"unsupported database {scheme!r}: use sqlite:///path or postgresql://…")
