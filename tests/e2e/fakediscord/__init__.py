"""fakediscord -- a fake Discord server that the real, unmodified discord.py 2.7 client logs into.

REST API + gateway websocket (aiohttp) on 127.0.0.1, random free port. The only change to
discord.py is setting ``discord.http.Route.BASE`` and ``DiscordWebSocket.DEFAULT_GATEWAY``
(done by ``start()``/``install()``, restored by ``stop()``). No other network access.

Quick start::

    from fakediscord import FakeDiscord

    async def test_hello():
        async with FakeDiscord() as fake:                 # start() + install(); stop() on exit
            alice = fake.add_user("alice", locale="en-US")
            bot = make_bot()                              # commands.Bot(..., guild_ready_timeout=0.05)
            async with fake.run_bot(bot):                 # bot.start(fake.token), wait for on_ready
                rec = await alice.slash(fake.channel_id, "durak", subcommand="new",
                                        options={"rules": "podkidnoy", "seats": 3})
                cb = await rec.wait_response()            # first callback, within 3 s
                assert cb.type == 4 and rec.original_message.content.startswith("Lobby")
                press = await alice.press(rec.original_message, "durak:join")
                await press.wait_response()
                await fake.settle()
            fake.assert_clean()

Bots must be created with ``guild_ready_timeout=0.05`` (a ``Client``/``Bot`` keyword; the default
2 s delays on_ready), must sync their command tree (``await bot.tree.sync(guild=discord.Object(
fake.guild_id))`` in ``setup_hook``, or a global sync) before users can run slash commands, and
log in with ``fake.token``.

FakeDiscord(guild_id=None, guild_name=..., preferred_locale="en-US", application_id=None,
            bot_name="DurakBot", token="fake-bot-token", channels=("general",), ack_deadline=3.0,
            token_ttl=900.0, heartbeat_interval=41.25, message_events=True,
            old_message_edit_limit=None)

Lifecycle
    await fake.start() / await fake.stop()    listen / shut down (stop also stops bots it started)
    async with FakeDiscord() as fake           same, as a context manager
    fake.install()                             context manager setting Route.BASE/DEFAULT_GATEWAY
    fake.rest_url, fake.gateway_url, fake.token, fake.guild_id, fake.application_id, fake.bot_user_id
    await fake.start_bot(bot) / stop_bot(bot)  run bot.start(token) in a task; wait for on_ready
    async with fake.run_bot(bot)               the same as a context manager

Entities
    fake.add_channel(name) -> FakeChannel      (.id, .name, .mention); fake.channel_id = first channel
    fake.channel(name_or_id), fake.channels    {id: FakeChannel}
    fake.add_user(name, locale=, permissions=, manage_channels=, roles=) -> SimUser
    fake.grant_manage_channels(user)           or user.grant_manage_channels(): Moderator role
    fake.add_role(name, permissions) -> id;    fake.user(name_or_id); fake.users
    fake.commands / fake.command(name)         commands the bot registered (PUT .../commands)

Simulated users (SimUser) -- each returns an InteractionRecord right after dispatch
    await user.slash(channel, "durak", subcommand="new" | "group sub", options={...})
        option types string/integer/number/boolean/user/channel/role; validated against the
        registered schema (unknown command/subcommand/option -> CommandNotRegisteredError,
        bad type/choice/missing required -> FakeDiscordError)
    await user.press(message, custom_id)       button (component_type 2)
    await user.select(message, custom_id, values)   string/user/role/channel select
    await user.modal_submit(record, {custom_id: value})  submit the modal the bot opened
    A user can only act on messages they can see: someone else's ephemeral or a deleted message
    raises NotVisibleError; missing/disabled components raise ComponentNotFoundError.

InteractionRecord
    .id .token .type .user .channel_id .payload .callbacks [CallbackRecord(type, data, latency,
    status, code)] .accepted .answered .response_type .latency .late .modal
    .original_message .followups .messages .ephemeral
    await rec.wait_response(timeout=5) -> CallbackRecord      first callback (accepted or not)
    await rec.wait_original(timeout=5, predicate=None) -> StoredMessage (not "thinking")
    await rec.wait_followups(count=1, timeout=5)

Interaction rules enforced
    callback > ack_deadline (3 s, real monotonic time) after dispatch -> 404 10062 + fake.late_acks
    second callback -> 400 40060 + fake.double_acks; callback type not valid for the interaction
    type -> 400 50035; tokens expire after token_ttl (15 min) of the *fake* clock
    (fake.advance_clock(seconds)) -> 401 50027 on followups/@original (fake.expired_token_uses);
    channel GET/PATCH/DELETE of an ephemeral message -> 404 10008; the first followup after a
    "thinking" defer (type 5) replaces the loading message, as on Discord.
    Message bodies are checked against Discord limits (2000 chars, 5 rows x 5, custom_id 1..100
    and unique, V2 without content/embeds, <= 40 components, ...) -> 400 50035 + fake.invalid_bodies.

Messages (StoredMessage: id, channel_id, content, embeds, components, flags, attachments,
          visible_to (None = everyone or a user id), history [MessageVersion], deleted,
          created_by "channel"|"response"|"followup", .versions, .text(), .find_components())
    fake.messages(channel=None, include_deleted=False)   creation order
    fake.get_message(id); fake.last_message(channel, visible_to=user)
    fake.visible_messages(user) -> [MessageVersion]  every version of everything user could see
    fake.find_components(message) -> [ComponentInfo(custom_id, label, disabled, style)]
    await fake.wait_for_message(channel, predicate, timeout=5, after=0)

Gateway / failures
    await fake.dispatch(event, payload)        DISPATCH to every live session
    await fake.drop_gateway()                  close the socket; waits until the client RESUMEs
    fake.force_429(path_regex, retry_after=0.1, count=1, method=None) -> RateLimitRule(.hits)
    fake.requests, fake.requests_to(path_regex, method=None), fake.gateway_log, fake.resume_count
    Interactions go to the newest connected session (a restarted bot gets them).

Checks
    await fake.settle()       wait until no request is in flight and each interaction answered/late
    fake.assert_clean()       AssertionError listing unknown routes, unanswered interactions, late
                              or double acknowledgements, invalid bodies
    fake.problems(), fake.reset_checks(), await fake.wait_until(predicate, timeout)

pytest: ``fakediscord.pytest_plugin.fake_discord`` -- a started+installed FakeDiscord; at teardown it
settles, stops and calls assert_clean() unless ``fake_discord.check_clean_on_teardown = False``.
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
