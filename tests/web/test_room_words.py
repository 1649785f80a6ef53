"""A room guest never reads a Discord word: every refusal and notice the service can send to a
room, in the web's wording (:mod:`web.wording`), in every language, names no slash command, no
Discord permission and no channel mention; the Discord wording still says what it said.

Three nets: every message key the service and the web can send (read from their source) and
its translations; every term of the service in the web's words; and the refusals and notices
of rooms played through every command a guest can give, in every phase."""

from __future__ import annotations

import ast
import itertools
from collections.abc import Awaitable, Iterator
from pathlib import Path
from typing import Any

import pytest

from bot.authority import MODERATOR, SystemRule, system
from bot.clock import ManualClock
from bot.errors import (
    ConfirmationExpired,
    Forfeited,
    NoLobby,
    NotManager,
    PlayerInPlay,
    ServiceError,
)
from bot.presenter import Notice, NullPresenter
from bot.realm import GUEST_IDS, ROOM_IDS, WEB_REALM, Realm
from bot.service import GameService
from bot.service.channels import not_host_message
from bot.service.fairplay import stopped_by
from bot.service.lifecycle import UNLOADABLE, UNRESTORABLE_NOTICE
from bot.storage import SqliteStorage
from bot.terms import HERE, ChannelList, Command, Permission, Place
from cogs.i18n import catalog as discord_catalog
from present.catalog import SUPPORTED
from rules_engine.messages import Message, Term
from tests.service.conftest import play_out
from tests.service.support import Services
from web.wording import WEB_WORDING, catalog

ROOT = Path(__file__).resolve().parents[2]
#: What a room guest must never read.
DISCORD_WORDS = ("/durak", "Manage", "<#")
ROOM, ROOM_2, ROOM_3, ROOM_4 = (ROOM_IDS.start + i for i in range(4))
ANN, BEN, CY, DEE, OUT = (GUEST_IDS.start + i for i in range(5))
NAMES = {ANN: "Ann", BEN: "Ben", CY: "Cy", DEE: "Dee", OUT: "Out"}


def rendered(message: Message, names: list[str] | None = None) -> Iterator[tuple[str, str]]:
    """``(language, text)`` of ``message`` in the web's wording, in every language."""
    for lang in SUPPORTED:
        yield lang, catalog(lang).render(message, names or list(NAMES.values()))


def assert_web_clean(message: Message, names: list[str] | None = None) -> None:
    for lang, text in rendered(message, names):
        found = [w for w in DISCORD_WORDS if w in text]
        assert not found, f"{lang}: {text!r} ({message!r})"
        assert "{" not in text, f"{lang}: a placeholder left in {text!r}"


# -- every key the service and the web send ---------------------------------------------
def message_calls(package: str) -> Iterator[tuple[Path, ast.Call]]:
    for path in sorted((ROOT / package).rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id in ("Message", "N_")
                and node.args
                and isinstance(node.args[0], ast.Constant)
                and isinstance(node.args[0].value, str)
            ):
                yield path, node


@pytest.mark.parametrize("package", ["bot", "web"])
def test_no_message_of_the_service_or_the_web_holds_a_discord_word(package: str) -> None:
    keys = 0
    for path, call in message_calls(package):
        key = call.args[0].value  # type: ignore[attr-defined]
        keys += 1
        for lang in SUPPORTED:
            text = catalog(lang).gettext(key)
            assert not [w for w in DISCORD_WORDS if w in text], f"{path.name} ({lang}): {text!r}"
        # nor a parameter built from such words (a mention list, a command's text)
        for keyword in call.keywords:
            for node in ast.walk(keyword.value):
                if isinstance(node, ast.Constant) and isinstance(node.value, str):
                    assert not [w for w in DISCORD_WORDS if w in node.value], (
                        f"{path.name}: {key!r} {keyword.arg}={node.value!r}"
                    )
    assert keys > (100 if package == "bot" else 20)


def test_every_term_in_the_webs_words() -> None:
    terms: list[Term] = [*Command, *Permission, *Place, ChannelList((7, 9)), ChannelList((7,))]
    for term in terms:
        assert_web_clean(Message("{term}", term=term))
    fr = catalog("fr")
    assert fr.render(Message("{c}", c=Command.STOP)) == "« Voter pour arrêter »"
    assert catalog("en").render(Message("{c}", c=Command.NEW)) == "“Create a new room”"
    assert catalog("es").render(Message("x {h}", h=HERE)) == "x aquí"


def test_the_service_chooses_a_rooms_sentence_where_discords_would_name_moderators() -> None:
    room_messages = [
        not_host_message(Realm.ROOMS),
        Forfeited.of("kick", Realm.ROOMS).message,
        Forfeited.of("leave", Realm.ROOMS).message,
        stopped_by(system(SystemRule.IDLE)),
        stopped_by(system(SystemRule.OPERATOR)),
        UNLOADABLE,
        UNRESTORABLE_NOTICE,
        NoLobby().message,
        ConfirmationExpired().message,
        PlayerInPlay.of((ROOM,)).message,
        *(cls().message for cls in all_errors()),
    ]
    for message in room_messages:
        assert_web_clean(message)
    assert catalog("en").render(not_host_message(Realm.ROOMS)) == "only the host can do that"
    for realm in Realm:
        assert ("permission" in not_host_message(realm).as_dict()) is realm.has_moderators


def all_errors() -> Iterator[type[ServiceError]]:
    """Every refusal the service has that can be made without arguments."""
    seen = set()
    todo = [ServiceError]
    while todo:
        cls = todo.pop()
        for sub in cls.__subclasses__():
            if sub not in seen:
                seen.add(sub)
                todo.append(sub)
                if sub.__init__ is ServiceError.__init__:
                    yield sub


# -- rooms played through every command -----------------------------------------------
class Collected(NullPresenter):
    """Every refusal a room's commands met, and every notice of the rooms (it is the rooms'
    presenter)."""

    realms = frozenset({Realm.ROOMS})

    def __init__(self) -> None:
        self.refusals: list[ServiceError] = []
        self.notices: list[Notice] = []

    async def notice(self, notice: Notice) -> None:
        self.notices.append(notice)

    async def attempt(self, call: Awaitable[Any]) -> None:
        try:
            await call
        except ServiceError as exc:
            self.refusals.append(exc)

    def messages(self) -> list[Message]:
        return [e.message for e in self.refusals] + [n.message for n in self.notices]


async def every_command(svc: GameService, room: int, user: int, got: Collected) -> None:
    """Every command of the room and table pages, by ``user``, collecting the refusals."""
    await got.attempt(svc.join(room, user, NAMES[user]))
    await got.attempt(svc.add_ai(room, user, "beginner"))
    await got.attempt(svc.add_ai(room, user, "nonsense"))
    await got.attempt(svc.remove_seat(room, user, 9))
    await got.attempt(svc.start(room, user))
    await got.attempt(svc.keep_playing(room, user))
    await got.attempt(svc.act(room, user, "take", 0))
    await got.attempt(svc.act(room, user, "not an action", None))
    await got.attempt(svc.hand(room, user))
    await got.attempt(svc.table(room))
    await got.attempt(svc.rematch(room, user))
    await got.attempt(svc.end_series(room, user))
    await got.attempt(svc.kick(room, user, ANN))
    await got.attempt(svc.kick(room, user, seat=1))
    await got.attempt(svc.leave(room, user))


async def test_every_refusal_and_notice_of_a_room_is_said_in_the_webs_words(
    tmp_path: Path,
) -> None:
    services = Services()
    got = Collected()
    seeds = itertools.count(1)
    svc = await services.make(
        SqliteStorage(tmp_path / "rooms.sqlite3"),
        clock=ManualClock(),
        presenters=[got],
        seed_source=lambda: next(seeds),
    )
    try:
        # nothing open yet
        await every_command(svc, ROOM, OUT, got)
        await got.attempt(svc.stop(ROOM, OUT))
        # a lobby: guests, outsiders, a full table
        await svc.open_lobby(ROOM, WEB_REALM, ANN, "Ann", {"seats": 3})
        await svc.join(ROOM, BEN, "Ben")
        await every_command(svc, ROOM, BEN, got)  # Ben leaves at the end
        await svc.join(ROOM, BEN, "Ben")
        await svc.join(ROOM, CY, "Cy")
        await got.attempt(svc.join(ROOM, DEE, "Dee"))  # full
        await got.attempt(svc.join(ROOM, CY, "Cy"))  # seated already
        await got.attempt(svc.stop(ROOM, BEN))  # only the host closes the lobby
        await svc.start(ROOM, ANN)
        # a running game: every command by a player, by an outsider
        await got.attempt(svc.stop(ROOM, OUT))
        await every_command(svc, ROOM, OUT, got)
        await every_command(svc, ROOM, CY, got)  # Cy's leave asks to confirm a forfeit
        await svc.stop(ROOM, ANN)  # a stop vote opens
        await got.attempt(svc.stop(ROOM, ANN))  # voted already
        await svc.keep_playing(ROOM, BEN)  # and fails
        await svc.forfeit(ROOM, CY)
        await every_command(svc, ROOM, CY, got)  # Cy left for good
        await got.attempt(svc.forfeit(ROOM, CY))
        await svc.stop(ROOM, ANN)
        await svc.stop(ROOM, BEN)  # every player agreed: stopped
        # a game played to its end, then the series
        await svc.open_lobby(ROOM_2, WEB_REALM, ANN, "Ann", {"seats": 2})
        await svc.join(ROOM_2, BEN, "Ben")
        await svc.start(ROOM_2, ANN)
        await play_out(svc, ROOM_2)
        await every_command(svc, ROOM_2, OUT, got)
        await got.attempt(svc.stop(ROOM_2, BEN))  # only the host ends a finished series
        await svc.rematch(ROOM_2, BEN)
        await svc.stop(ROOM_2, BEN)
        await svc.forfeit(ROOM_2, ANN)  # the last voter leaves: the vote passes
        # an idle room's game and an idle lobby, stopped by the system
        await svc.open_lobby(ROOM_3, WEB_REALM, ANN, "Ann", {"seats": 2})
        await svc.join(ROOM_3, BEN, "Ben")
        await svc.start(ROOM_3, ANN)
        await svc.system_stop(ROOM_3, SystemRule.IDLE)
        await svc.open_lobby(ROOM_4, WEB_REALM, ANN, "Ann")
        await svc.join(ROOM_4, BEN, "Ben")
        await svc.leave(ROOM_4, ANN)  # the host leaves: Ben hosts now
        await svc.system_stop(ROOM_4, SystemRule.IDLE)
        # a moderator does not exist in a room: whoever says so is a player
        await svc.open_lobby(ROOM_4, WEB_REALM, ANN, "Ann")
        await got.attempt(svc.add_ai(ROOM_4, BEN, authority=MODERATOR))
        await svc.wait_idle()
    finally:
        await services.close()
    messages = got.messages()
    keys = {m.key for m in messages}
    assert len(keys) >= 25, sorted(keys)
    for must in (
        "only the host can do that",
        "nobody played for too long: the game was stopped, no result is recorded, except forfeits",
        "a game is running: finish it, or vote to stop it with {command}",
        "there is no open lobby {here}: open one with {command}",
    ):
        assert must in keys
    for message in messages:
        assert_web_clean(message)
        assert not list(permissions_in(message)), message  # a room has no moderators
    # the same refusal in Discord's words, as Discord said it
    ended = next(m for m in messages if m.key.startswith("a game is running"))
    assert discord_catalog("en").render(ended) == (
        "a game is running: finish it, or vote to stop it with /durak stop"
    )
    assert catalog("en").render(ended) == (
        "a game is running: finish it, or vote to stop it with “Vote to stop”"
    )


def permissions_in(message: Message) -> Iterator[Permission]:
    """The permissions ``message`` names (in nested messages too)."""
    for _, value in message.items():
        if isinstance(value, Permission):
            yield value
        elif isinstance(value, Message):
            yield from permissions_in(value)


# -- Discord's wording says what it said --------------------------------------------------
DISCORD_SENTENCES = {
    "en": [
        (NoLobby().message, "there is no open lobby in this channel: open one with /durak new"),
        (
            not_host_message(Realm.DISCORD),
            "only the host or someone with Manage Channel can do that",
        ),
        (
            Forfeited.of("kick", Realm.DISCORD).message,
            "a member with Manage Channel removed you from this game (a forfeit): you cannot "
            "rejoin it",
        ),
        (
            stopped_by(MODERATOR),
            "a member with Manage Channel stopped the game: no result is recorded, except forfeits",
        ),
        (
            NotManager().message,
            "only members with Manage Server can see or change the server's settings",
        ),
        (
            ConfirmationExpired().message,
            "this confirmation has expired: nothing was erased. Use /durak forget-me again",
        ),
        (
            PlayerInPlay.of((9 << 22, 8 << 22)).message,
            f"you are in a lobby or a game that has not ended in <#{8 << 22}>, <#{9 << 22}>: "
            "leave the lobby, or wait for the game and its series to end, then ask again",
        ),
    ],
    "es": [
        (NoLobby().message, "no hay ninguna sala abierta en este canal: abre una con /durak nueva"),
        (
            ConfirmationExpired().message,
            "esta confirmación ha caducado: no se borró nada. Usa /durak olvídame otra vez",
        ),
    ],
    "fr": [
        (
            NoLobby().message,
            "aucune salle ouverte dans ce salon : ouvrez-en une avec /durak nouvelle",
        ),
        (
            stopped_by(MODERATOR),
            "un membre avec Gérer les salons a arrêté la partie : aucun résultat n’est "
            "enregistré, sauf les forfaits",
        ),
    ],
}


@pytest.mark.parametrize("lang", sorted(DISCORD_SENTENCES))
def test_discords_wording_says_the_sentences_discord_said(lang: str) -> None:
    for message, sentence in DISCORD_SENTENCES[lang]:
        assert discord_catalog(lang).render(message) == sentence


def test_a_catalogue_is_bound_to_its_adapters_wording() -> None:
    assert catalog("es").wording is WEB_WORDING
    assert catalog("es-ES") is catalog("es")
    assert discord_catalog("es") is not catalog("es")
    with pytest.raises(TypeError):
        catalog("en").render(Message("{x}", x=_Unknown()))


class _Unknown(Term):
    """A term no adapter knows."""
