"""Storage as the service uses it: a failed save changes nothing, group commit.

The backend contract (migrations, fencing, both backends) is tests/storage/."""

from __future__ import annotations

import asyncio
import sqlite3

import pytest

from bot.errors import StorageFailure
from tests import storage_helpers as stored

from .conftest import ALICE, BOB, CH, db_dump, open_table


async def test_a_failed_save_changes_nothing_and_is_reported(
    make_service, db_path, monkeypatch, caplog
):
    svc = await make_service()
    table = await open_table(svc, ALICE, BOB)
    user = ALICE if table.to_act == 0 else BOB
    hand = await svc.hand(CH, user)
    before = db_dump(db_path)
    before_table = await svc.table(CH)

    async def broken(*args, **kwargs):
        raise sqlite3.OperationalError("disk I/O error")

    monkeypatch.setattr(svc.storage, "save_live", broken)
    with pytest.raises(StorageFailure) as info:
        await svc.act(CH, user, hand.legal[0].text, hand.version)
    assert isinstance(info.value.__cause__, sqlite3.OperationalError)
    logged = [r for r in caplog.records if r.getMessage() == "storage failure"]
    assert logged and logged[-1].exc_info is not None  # the traceback is in the log
    assert await svc.table(CH) == before_table
    assert db_dump(db_path) == before
    monkeypatch.undo()
    view = await svc.act(CH, user, hand.legal[0].text, hand.version)
    assert view.version == 1


async def test_group_commit_stores_concurrent_games(make_service, db_path):
    svc = await make_service()

    channels = range(CH, CH + 8)
    for ch in channels:
        await open_table(svc, ALICE, BOB, channel=ch)

    async def first_move(ch):
        table = await svc.table(ch)
        user = ALICE if table.to_act == 0 else BOB
        hand = await svc.hand(ch, user)
        return await svc.act(ch, user, hand.legal[0].text, 0)

    views = await asyncio.gather(*(first_move(ch) for ch in channels))
    assert all(v.version == 1 for v in views)
    assert [g.version for g in await stored.live_games(svc.storage)] == [1] * 8
