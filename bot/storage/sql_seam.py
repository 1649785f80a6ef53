"""The driver seam of the SQL store: a connection inside one transaction, its rows, and the
part every SQL backend and every group of queries shares (:class:`SqlSeam`)."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from contextlib import AbstractAsyncContextManager
from typing import Any, Protocol

__all__ = ["Row", "SqlConnection", "SqlSeam", "number"]

#: One result row, as a tuple of column values.
Row = tuple[Any, ...]


class SqlConnection(Protocol):
    """A connection inside one transaction; statements use ``?`` placeholders."""

    async def execute(self, statement: str, *params: Any) -> int:
        """Run one statement; the number of rows it changed."""

    async def execute_many(self, statement: str, rows: Sequence[Sequence[Any]]) -> None:
        """Run one statement once per parameter row."""

    async def fetch(self, statement: str, *params: Any) -> list[Row]:
        """Every row of a query."""

    async def fetch_one(self, statement: str, *params: Any) -> Row | None:
        """The first row of a query, or ``None``."""

    async def insert(self, statement: str, *params: Any) -> int:
        """Run one ``INSERT`` of a table with an ``id`` key; the new row's id."""


class SqlSeam(ABC):
    """What a group of queries needs from the store: read and write transactions, and the
    row-lock clause (see :class:`bot.storage.sql_store.SqlStore`)."""

    @abstractmethod
    def read(self) -> AbstractAsyncContextManager[SqlConnection]:
        """A transaction that reads committed rows only and writes nothing."""

    @abstractmethod
    def write(self) -> AbstractAsyncContextManager[SqlConnection]:
        """A write transaction: committed when the block ends, rolled back if it raises."""

    def for_update(self, table: str | None = None) -> str:
        """The clause that locks the rows a query reads (of ``table``, an alias of the
        query) until the write transaction ends; empty where a write transaction already
        holds the whole database."""
        return ""


async def number(con: SqlConnection, query: str, *params: Any) -> int:
    """The integer a one-value query returns (0 if it returns no row or NULL)."""
    row = await con.fetch_one(query, *params)
    return int(row[0] or 0) if row else 0
