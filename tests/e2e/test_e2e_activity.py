"""The Discord Activity against the fake Discord: who may open a channel's table through it
(the bot asks Discord for the Activity instance and the member, and computes the channel's
permissions), and ``/durak play`` with the Activity on in a channel without a game.

The sign-in goes through the bot's own web server, as the Activity's page does: the OAuth2
code is traded at the fake Discord, the user read with their access token, and the gate asks
with the bot's token."""

from __future__ import annotations

from typing import Any

import aiohttp
import discord
import pytest

from present.catalog import catalog
from present.wording import Wording
from web.strings import ACTIVITY_REFUSALS
from web.wording import WEB_WORDING

from .durak_e2e import Harness, MakeHarness
from .fakediscord import SimUser
from .fakediscord.activities import CLIENT_SECRET
from .fakediscord.models import ApiError

pytestmark = pytest.mark.e2e

PUBLIC = "https://durak.example"


def activity_harness(harness: MakeHarness) -> Harness:
    """The bot with the web table and the Activity on (its client id the application's)."""
    h: Harness = harness()
    h.settings_extra = {
        "public_url": PUBLIC,
        "web_host": "127.0.0.1",
        "web_port": 0,
        "discord_client_id": str(h.fake.application_id),
        "discord_client_secret": CLIENT_SECRET,
    }
    h.fake.enable_activities()
    return h


async def sign_in(
    h: Harness,
    user: SimUser | int,
    instance_id: str,
    *,
    channel: int | None = None,
    lang: str = "en",
) -> tuple[int, dict[str, Any]]:
    """The Activity's page of ``user`` signs in: status and JSON answer."""
    body = {
        "code": h.fake.oauth_code(user),
        "instance_id": instance_id,
        "channel_id": str(channel or h.channel),
        "guild_id": str(h.fake.guild_id),
        "lang": lang,
    }
    origin = f"https://{h.fake.application_id}.discordsays.com"
    url = f"http://127.0.0.1:{h.bot.web.port}/api/activity/session"
    async with (
        aiohttp.ClientSession() as http,
        http.post(url, json=body, headers={"Origin": origin}) as resp,
    ):
        return resp.status, await resp.json()


def words(reason: str, locale: str = "en") -> str:
    wording: Wording = WEB_WORDING
    return catalog(locale, wording).gettext(ACTIVITY_REFUSALS[reason])


async def test_a_player_in_the_activity_gets_their_seat(harness: MakeHarness) -> None:
    h = activity_harness(harness)
    alice, bob, olga = h.user("alice"), h.user("bob"), h.user("olga")
    await h.start_with_game(alice, join=[bob], seats=2)
    instance = h.fake.start_activity(h.channel, [alice, olga])
    status, body = await sign_in(h, alice, instance)
    assert status == 200, body
    assert (body["role"], body["user_id"]) == ("player", str(alice.id))
    status, body = await sign_in(h, olga, instance)
    assert (status, body["role"]) == (200, "watcher")
    # both page loads asked Discord for the instance once (answers are kept a few seconds)
    assert len(h.fake.requests_to(r"/activity-instances/", "GET")) == 1
    assert len(h.fake.requests_to(rf"/members/{alice.id}$", "GET")) == 1


async def test_a_player_who_joins_the_instance_just_after_another_is_let_in(
    harness: MakeHarness,
) -> None:
    h = activity_harness(harness)
    alice, bob = h.user("alice"), h.user("bob")
    await h.start_with_game(alice, join=[bob], seats=2)
    instance = h.fake.start_activity(h.channel, [alice])
    assert (await sign_in(h, alice, instance))[0] == 200
    # Bob joins the running instance within the seconds Alice's answer is kept
    h.fake.activity_instances[instance]["users"].append(str(bob.id))
    status, body = await sign_in(h, bob, instance)
    assert (status, body.get("role")) == (200, "player"), body
    assert len(h.fake.requests_to(r"/activity-instances/", "GET")) == 2


async def test_an_outsider_is_refused(harness: MakeHarness) -> None:
    h = activity_harness(harness)
    alice, bob = h.user("alice"), h.user("bob")
    await h.start_with_game(alice, join=[bob], seats=2)
    outsider = 987654321987654321  # not a member of the server, though in the instance
    instance = h.fake.start_activity(h.channel, [alice, outsider])
    status, body = await sign_in(h, outsider, instance, lang="fr")
    assert status == 403, body
    assert body["reason"] == "not_member"
    assert body["error"] == words("not_member", "fr") and "token" not in body


async def test_a_member_who_cannot_see_the_channel_is_refused(harness: MakeHarness) -> None:
    h = activity_harness(harness)
    alice, bob = h.user("alice"), h.user("bob")
    olga = h.user("olga", locale="es-ES")
    root = h.user("root", permissions=discord.Permissions(administrator=True))
    await h.start_with_game(alice, join=[bob], seats=2)
    # a private channel: @everyone may not view it, Alice and Bob may
    hidden = discord.Permissions(view_channel=True)
    h.fake.set_overwrite(h.channel, h.fake.guild_id, deny=hidden)
    for player in (alice, bob):
        h.fake.set_overwrite(h.channel, player, allow=hidden)
    await h.fake.gateway_barrier()
    instance = h.fake.start_activity(h.channel, [alice, olga, root])
    status, body = await sign_in(h, olga, instance)
    assert status == 403, body
    assert body["reason"] == "cannot_view"
    assert body["error"] == words("cannot_view", "es")  # Olga's Discord language
    assert (await sign_in(h, alice, instance))[0] == 200
    status, body = await sign_in(h, root, instance)  # an administrator sees every channel
    assert (status, body.get("role")) == (200, "watcher")


async def test_a_user_not_in_the_instance_is_refused(harness: MakeHarness) -> None:
    h = activity_harness(harness)
    alice, bob = h.user("alice"), h.user("bob")
    await h.start_with_game(alice, join=[bob], seats=2)
    instance = h.fake.start_activity(h.channel, [alice])
    status, body = await sign_in(h, bob, instance)
    assert status == 403, body
    assert body["reason"] == "not_in_instance"
    status, body = await sign_in(h, alice, "i-0-gc-unknown")
    assert status == 403, body
    assert body["reason"] == "not_in_instance"


async def test_an_instance_in_another_channel_is_refused(harness: MakeHarness) -> None:
    h = activity_harness(harness)
    alice, bob = h.user("alice"), h.user("bob")
    other = h.fake.add_channel("other")
    await h.start_with_game(alice, join=[bob], seats=2)
    # Bob runs the Activity in another channel, and his page asks for the game's channel
    instance = h.fake.start_activity(other, [bob])
    status, body = await sign_in(h, bob, instance, channel=h.channel)
    assert status == 403, body
    assert body["reason"] == "elsewhere"
    assert "token" not in body


async def test_discord_down_is_said(harness: MakeHarness) -> None:
    h = activity_harness(harness)
    alice, bob = h.user("alice"), h.user("bob")
    await h.start_with_game(alice, join=[bob], seats=2)
    instance = h.fake.start_activity(h.channel, [alice])

    async def down(req: Any) -> tuple[int, Any]:
        raise ApiError(503, 0, "Service Unavailable")

    h.fake.h_activity_instance = down  # type: ignore[method-assign]
    status, body = await sign_in(h, alice, instance)
    assert status == 502, body
    assert body["reason"] == "discord_down"


@pytest.mark.parametrize(("lobby", "said"), [(False, "no game"), (True, "not started yet")])
async def test_durak_play_without_a_game_answers_privately(
    harness: MakeHarness, lobby: bool, said: str
) -> None:
    """With the Activity on, a channel with a lobby alone or nothing gets the private answer
    it gets without the Activity, not an Activity that could only fail."""
    h = activity_harness(harness)
    alice = h.user("alice")
    await h.start()
    if lobby:
        await h.open_lobby(alice)
    rec = await h.slash(alice, "play")
    await h.answered(rec)
    assert [cb.type for cb in rec.callbacks] == [5]  # deferred privately, no LAUNCH_ACTIVITY
    answer = rec.original_message
    assert answer is not None and answer.ephemeral and answer.visible_to == alice.id
    assert said in answer.text().lower()
    h.fake.assert_clean()
