"""``durak-bot forget USER_ID``, run as an operator runs it (a subprocess): the erasure of
``/durak forget-me`` for a user who asks by other means, refused (one line, exit 2, nothing
erased) for a bad id, a player still in a game, or a database a running bot holds."""

from __future__ import annotations

from pathlib import Path

from bot.seating import FORMER_PLAYER_ID
from bot.storage import SqliteStorage

from .conftest import CH, ServiceFactory, db_dump, open_table, play_out
from .support import ALICE, BOB, CAROL
from .test_cli import durak_bot, held


async def _played(make_service: ServiceFactory, db: Path) -> int:
    """Alice and Bob play one game and end the series; Carol joins a lobby.  The game's id;
    the service is closed (the file is free)."""
    svc = await make_service(db)
    await open_table(svc, ALICE, BOB, seats=2)
    game_id = (await play_out(svc)).game_id
    await svc.end_series(CH, ALICE)
    await svc.open_lobby(CH + 1, 10, CAROL, "Carol")
    await svc.close()
    return game_id


async def test_forget_erases_a_user_by_id(make_service: ServiceFactory, tmp_path: Path) -> None:
    db = tmp_path / "durak.sqlite3"  # the default database of the working directory
    game_id = await _played(make_service, db)

    done = durak_bot(tmp_path, "forget", str(ALICE))
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == (
        f"erased user {ALICE}: 1 name(s), 1 game(s) in 1 server(s), 1 rating(s)"
    )
    storage = SqliteStorage(db)
    await storage.open()
    try:
        assert (await storage.player_data(ALICE)).empty
        seats = await storage.game_seats(game_id)
        assert seats is not None and [s.user_id for s in seats] == [FORMER_PLAYER_ID, BOB]
    finally:
        await storage.close()

    again = durak_bot(tmp_path, "forget", str(ALICE))
    assert again.returncode == 0
    assert again.stdout.strip() == f"nothing is stored about user {ALICE}: nothing to erase"


async def test_forget_refuses_and_erases_nothing(
    make_service: ServiceFactory, tmp_path: Path
) -> None:
    db = tmp_path / "durak.sqlite3"
    await _played(make_service, db)
    before = db_dump(db)

    for bad in ("0", "-5", str(2**63)):
        done = durak_bot(tmp_path, "forget", bad)
        assert done.returncode == 2 and "is not a Discord user id" in done.stderr
    done = durak_bot(tmp_path, "forget", "alice")
    assert done.returncode == 2 and "invalid int value" in done.stderr

    done = durak_bot(tmp_path, "forget", str(CAROL))  # she sits in an open lobby
    assert done.returncode == 2
    assert done.stderr.strip() == (
        f"user {CAROL} is in a lobby, or a series or game that has not ended "
        f"(channel {CH + 1}): nothing was erased; try again once it has ended"
    )
    assert db_dump(db) == before

    with held(db, tmp_path):
        done = durak_bot(tmp_path, "forget", str(ALICE))  # a running bot holds the file
        assert done.returncode == 2 and "in use by another durak-bot process" in done.stderr
        assert len(done.stderr.strip().splitlines()) == 1
    assert db_dump(db) == before
