"""fakediscord -- a fake Discord server that the real, unmodified discord.py 2.7 client logs into.

REST API + gateway websocket (aiohttp) on 127.0.0.1, random free port. The only change to
discord.py is setting ``discord.http.Route.BASE`` and ``DiscordWebSocket.DEFAULT_GATEWAY``
(done by ``start()``/``install()``, restored by ``stop()``). No other network access.

Quick start::

    from fakediscord import FakeDiscord

    async def test_lobby():
        async with FakeDiscord() as fake:               # start() + install(); stop() on exit
            alice = fake.add_user("alice", locale="en-US")
            async with fake.run_bot(make_bot()):        # bot.start(fake.token), waits for on_ready
                rec = await alice.slash(fake.channel_id, "durak", subcommand="new",
                                        options={"rules": "podkidnoy", "seats": 3})
                cb = await rec.wait_response()          # first callback (or: cb = await rec)
                assert cb.type == 4 and cb.latency < 3
                lobby = rec.original_message
                press = await alice.press(lobby, "durak:join")
                await press.wait_response()
                await fake.settle()
            fake.assert_clean()

Bots must be built with ``guild_ready_timeout=0.05`` (a ``Client``/``Bot`` keyword; the 2 s
default delays on_ready), log in with ``fake.token``, and sync their command tree (e.g.
``await bot.tree.sync(guild=discord.Object(fake.guild_id))`` in ``setup_hook``, or a global
sync) before users can run slash commands.

FakeDiscord(guild_id=None, guild_name="Durak Test Guild", preferred_locale="en-US",
            application_id=None, bot_name="DurakBot", token="fake-bot-token",
            channels=("general",), ack_deadline=3.0, token_ttl=900.0,
            heartbeat_interval=41.25, message_events=True, old_message_edit_limit=None)

Lifecycle
    await fake.start() / fake.stop()   listen / shut down (stop also stops bots it started)
    async with FakeDiscord() as fake    the same as a context manager
    with fake.install():                set Route.BASE + DEFAULT_GATEWAY (start() already does)
    fake.rest_url, fake.gateway_url, fake.token, fake.guild_id, fake.application_id,
    fake.bot_user_id
    await fake.start_bot(bot) / await fake.stop_bot(bot)   run bot.start(token) in a task
    async with fake.run_bot(bot):       start_bot ... stop_bot

Entities
    fake.add_channel(name) -> FakeChannel (.id .name .mention); fake.channel_id (first channel)
    fake.channel(name_or_id); fake.channels {id: FakeChannel}
    fake.add_user(name, locale=, permissions=, manage_channels=, roles=) -> SimUser
    fake.grant_manage_channels(user) / user.grant_manage_channels()   the Moderator role
    fake.deny_bot(channel, send_messages=True, ...) / fake.allow_bot(channel)   a channel
        overwrite against the bot: missing from app_permissions there; the bot's posts
        (Send Messages, View Channel) and edits (View Channel) get 403
    fake.add_role(name, permissions) -> id; fake.user(name_or_id); fake.users
    fake.commands, fake.command(name)   what the bot registered via PUT .../commands
    fake.enable_activities()            Activities on: a global Entry Point command (type 4)
                                        that a global bulk overwrite must keep (else 400
                                        50240), and LAUNCH_ACTIVITY (12) callbacks allowed
    fake.start_activity(channel, [users]) -> instance id   an Activity instance running there
                                        (GET /applications/{app}/activity-instances/{id})
    fake.oauth_code(user_or_id) -> code  a user's OAuth2 code (POST /oauth2/token with client
                                        id = application id, secret "s3cret"; the access
                                        token answers GET /users/@me as that user)
    fake.set_overwrite(channel, user_or_role_id, allow=, deny=)   a channel permission
                                        overwrite (CHANNEL_UPDATE to the bots)

Simulated users (SimUser); each action returns an InteractionRecord right after dispatch
    await user.slash(channel, "durak", subcommand="new" | "group sub", options={...})
        string/integer/number/boolean/user/channel/role options, checked against the registered
        schema: unknown command/subcommand/option -> CommandNotRegisteredError; wrong type,
        choice, range or missing required option -> FakeDiscordError
    await user.press(message, custom_id)              button (component_type 2)
    await user.select(message, custom_id, values)     string/user/role/channel select
    await user.modal_submit(record, {custom_id: text})   the modal the bot opened for record
    Users act only on messages they can see: someone else's ephemeral or a deleted message
    raises NotVisibleError; a missing/disabled component raises ComponentNotFoundError.

InteractionRecord
    .id .token .type .user .channel_id .payload .session_id .late .modal
    .callbacks [CallbackRecord(type, data, latency, status, code)] .accepted .answered
    .response_type .latency .original_message .followups .messages .ephemeral
    await rec.wait_response(timeout=5) -> CallbackRecord   (also: await rec)
    await rec.wait_original(timeout=5, predicate=None) -> StoredMessage, not "thinking"
    await rec.wait_followups(count=1, timeout=5)

Rules enforced
    * LAUNCH_ACTIVITY (12) without enable_activities() -> 400 50234
    * callback later than ack_deadline (3 s real time) -> 404 10062, in fake.late_acks
    * second callback -> 400 40060 (fake.double_acks); wrong callback type -> 400 50035
    * tokens live token_ttl (15 min) of the *fake* clock (fake.advance_clock(s)); after that
      followups and @original give 401 50027 (fake.expired_token_uses)
    * channel GET/PATCH/DELETE of an ephemeral message -> 404 10008
    * the first followup after a "thinking" defer (type 5) replaces the loading message
    * bodies are checked against Discord limits (2000 chars, 5x5 rows, custom_id 1..100 and
      unique, V2 without content/embeds, <= 40 components ...) -> 400 50035, fake.invalid_bodies

Messages -- StoredMessage: id channel_id content embeds components flags attachments
            visible_to (None = everyone, else a user id) history [MessageVersion] deleted
            created_by ("channel" | "response" | "followup") .versions .text() .custom_ids
    fake.messages(channel=None, include_deleted=False)   in creation order
    fake.get_message(id); fake.last_message(channel, visible_to=user)
    fake.visible_messages(user) -> [MessageVersion]   every version of all user could see
    fake.find_components(message) -> [ComponentInfo(custom_id, label, disabled, style)]
    await fake.wait_for_message(channel, predicate=None, timeout=5, after=0)

Gateway and failures
    await fake.dispatch(event, payload)    DISPATCH to every live session
    await fake.gateway_barrier()           a heartbeat request answered after every event
                                           sent so far: the bot has read them all
    await fake.drop_gateway()              close the socket, wait until the client RESUMEs
    fake.force_429(path_regex, retry_after=0.1, count=1, method=None) -> RateLimitRule(.hits)
    fake.requests, fake.requests_to(path_regex, method=None), fake.gateway_log,
    fake.resume_count, fake.sessions
    Interactions go to the newest connected session, so a restarted bot receives them.

Checks
    await fake.settle()    no request in flight; every interaction answered or past 3 s
    fake.assert_clean()    AssertionError listing unknown routes (fake.unknown_routes),
                           unanswered interactions, late/double acks, invalid bodies
    fake.problems(), fake.reset_checks(), await fake.wait_until(predicate, timeout, what)

Layout: one module per Discord resource, each a layer of ``FakeDiscord`` (see ``core``):
``rest`` (routing, request log, rate limits), ``guilds`` (guilds, channels, members, roles,
permissions), ``gateway``, ``channels`` (channels' REST and messages), ``commands``,
``interactions``, ``webhooks``, ``activities`` (Activity instances, OAuth2 sign-in, channel
overwrites); ``server`` ties them; ``models`` holds the records tests read.

pytest: ``fakediscord.pytest_plugin.fake_discord`` yields a started, installed FakeDiscord;
at teardown it settles, stops, and calls assert_clean() unless
``fake_discord.check_clean_on_teardown = False``.
"""

from .models import (
    CallbackRecord,
    CommandNotRegisteredError,
    ComponentInfo,
    ComponentNotFoundError,
    FakeChannel,
    FakeDiscordError,
    InteractionRecord,
    MessageVersion,
    NoBotConnectedError,
    NotVisibleError,
    SimUser,
    StoredMessage,
)
from .server import FakeDiscord, GatewaySession, RateLimitRule, RequestRecord, WaitTimeout

__all__ = [
    "CallbackRecord",
    "CommandNotRegisteredError",
    "ComponentInfo",
    "ComponentNotFoundError",
    "FakeChannel",
    "FakeDiscord",
    "FakeDiscordError",
    "GatewaySession",
    "InteractionRecord",
    "MessageVersion",
    "NoBotConnectedError",
    "NotVisibleError",
    "RateLimitRule",
    "RequestRecord",
    "SimUser",
    "StoredMessage",
    "WaitTimeout",
]
