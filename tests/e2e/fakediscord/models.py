"""Data model of the fake Discord server: ids, stored messages, interactions, simulated users."""

from __future__ import annotations

import datetime
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import KW_ONLY, dataclass, field
from typing import TYPE_CHECKING, Any, NamedTuple

if TYPE_CHECKING:
    from .server import FakeDiscord

DISCORD_EPOCH_MS = 1420070400000

# message flags
FLAG_SUPPRESS_EMBEDS = 1 << 2
FLAG_EPHEMERAL = 1 << 6
FLAG_LOADING = 1 << 7
FLAG_COMPONENTS_V2 = 1 << 15

# interaction types
PING, APPLICATION_COMMAND, MESSAGE_COMPONENT, AUTOCOMPLETE, MODAL_SUBMIT = 1, 2, 3, 4, 5

# interaction callback types
CB_PONG = 1
CB_MESSAGE = 4
CB_DEFERRED_MESSAGE = 5
CB_DEFERRED_UPDATE = 6
CB_UPDATE_MESSAGE = 7
CB_AUTOCOMPLETE = 8
CB_MODAL = 9
CB_LAUNCH_ACTIVITY = 12

#: Application command types: an Activity's Entry Point command is type 4.
PRIMARY_ENTRY_POINT = 4

SELECT_TYPES = (3, 5, 6, 7, 8)


# --------------------------------------------------------------------------- errors


class FakeDiscordError(AssertionError):
    """A simulated user tried something the real Discord client would not allow."""


class CommandNotRegisteredError(FakeDiscordError):
    """The slash command (or subcommand/option) was never registered by the bot."""


class NotVisibleError(FakeDiscordError):
    """The user cannot see that message (someone else's ephemeral, or deleted)."""


class ComponentNotFoundError(FakeDiscordError):
    """No component with that custom_id (or it is disabled / of the wrong kind)."""


class NoBotConnectedError(FakeDiscordError):
    """No gateway session exists to deliver an interaction to."""


class ApiError(Exception):
    """Raised inside route handlers; turned into a Discord-style JSON error response."""

    def __init__(self, status: int, code: int, message: str, errors: Any = None) -> None:
        super().__init__(f"{status} {code} {message}")
        self.status = status
        self.code = code
        self.message = message
        self.errors = errors

    def body(self) -> dict[str, Any]:
        data: dict[str, Any] = {"message": self.message, "code": self.code}
        if self.errors is not None:
            data["errors"] = self.errors
        return data


# --------------------------------------------------------------------------- helpers


class SnowflakeGen:
    """Increasing, realistic snowflakes (timestamp part = real time)."""

    def __init__(self) -> None:
        self._last = 0

    def next(self) -> int:
        value = (int(time.time() * 1000) - DISCORD_EPOCH_MS) << 22
        if value <= self._last:
            value = self._last + 1
        self._last = value
        return value


def iso(ts: float) -> str:
    return datetime.datetime.fromtimestamp(ts, tz=datetime.UTC).isoformat()


def user_payload(
    user_id: int, username: str, global_name: str | None, *, bot: bool
) -> dict[str, Any]:
    """A Discord user object."""
    return {
        "id": str(user_id),
        "username": username,
        "global_name": global_name,
        "discriminator": "0",
        "avatar": None,
        "bot": bot,
        "public_flags": 0,
    }


def member_payload(role_ids: Iterable[int], joined_at: float) -> dict[str, Any]:
    """A guild member object, without its ``user``."""
    return {
        "roles": [str(r) for r in role_ids],
        "joined_at": iso(joined_at),
        "flags": 0,
        "deaf": False,
        "mute": False,
        "pending": False,
        "nick": None,
        "avatar": None,
        "premium_since": None,
        "communication_disabled_until": None,
    }


class ComponentInfo(NamedTuple):
    """One interactive component (button or select) of a message."""

    custom_id: str | None
    label: str | None
    disabled: bool
    style: int | None


def walk_components(components: Sequence[Mapping[str, Any]] | None) -> Iterator[Mapping[str, Any]]:
    """Every component, depth first: action rows, containers, sections (+accessory), labels."""
    for comp in components or ():
        yield comp
        yield from walk_components(comp.get("components"))
        if isinstance(comp.get("accessory"), Mapping):
            yield from walk_components([comp["accessory"]])
        if isinstance(comp.get("component"), Mapping):
            yield from walk_components([comp["component"]])


def interactive_components(
    components: Sequence[Mapping[str, Any]] | None,
) -> list[Mapping[str, Any]]:
    return [c for c in walk_components(components) if c.get("type") in (2, *SELECT_TYPES)]


def component_infos(components: Sequence[Mapping[str, Any]] | None) -> list[ComponentInfo]:
    """Every button and select of a message's components, flattened."""
    return [
        ComponentInfo(
            c.get("custom_id"),
            c.get("label") or c.get("placeholder"),
            bool(c.get("disabled", False)),
            c.get("style"),
        )
        for c in interactive_components(components)
    ]


def components_text(components: Sequence[Mapping[str, Any]] | None) -> list[str]:
    out: list[str] = []
    for c in walk_components(components):
        for key in ("content", "label", "placeholder", "description", "title", "value"):
            if isinstance(c.get(key), str):
                out.append(c[key])
        emoji = c.get("emoji")
        if isinstance(emoji, Mapping) and emoji.get("name"):
            out.append(str(emoji["name"]))
        for opt in c.get("options") or ():
            for key in ("label", "description", "value"):
                if isinstance(opt.get(key), str):
                    out.append(opt[key])
            if isinstance(opt.get("emoji"), Mapping) and opt["emoji"].get("name"):
                out.append(str(opt["emoji"]["name"]))
    return out


def embeds_text(embeds: Sequence[Mapping[str, Any]] | None) -> list[str]:
    out: list[str] = []
    for e in embeds or ():
        for key in ("title", "description", "url"):
            if isinstance(e.get(key), str):
                out.append(e[key])
        for sub in ("footer", "author"):
            part = e.get(sub)
            if isinstance(part, Mapping):
                out.extend(str(v) for k, v in part.items() if k in ("text", "name"))
        for f in e.get("fields") or ():
            out.append(str(f.get("name", "")))
            out.append(str(f.get("value", "")))
    return out


# --------------------------------------------------------------------------- validation


def validate_message(
    content: str | None,
    embeds: Sequence[Mapping[str, Any]] | None,
    components: Sequence[Mapping[str, Any]] | None,
    flags: int,
    *,
    attachments: Sequence[Any] | None = None,
    creating: bool = False,
) -> list[str]:
    """The subset of Discord's message limits we are sure about. Returns error strings."""
    errors: list[str] = []
    content = content or ""
    embeds = embeds or []
    components = components or []
    if len(content) > 2000:
        errors.append(f"content: {len(content)} > 2000 characters")
    if len(embeds) > 10:
        errors.append(f"embeds: {len(embeds)} > 10")
    total_embed = 0
    for i, e in enumerate(embeds):
        text = embeds_text([e])
        total_embed += sum(len(t) for t in text) - len(e.get("url") or "")
        if len(e.get("title") or "") > 256:
            errors.append(f"embeds[{i}].title > 256")
        if len(e.get("description") or "") > 4096:
            errors.append(f"embeds[{i}].description > 4096")
        if len(e.get("fields") or []) > 25:
            errors.append(f"embeds[{i}].fields > 25")
    if total_embed > 6000:
        errors.append(f"embeds: {total_embed} > 6000 characters in total")

    v2 = bool(flags & FLAG_COMPONENTS_V2)
    custom_ids: list[str] = []
    for comp in walk_components(components):
        ctype = comp.get("type")
        cid = comp.get("custom_id")
        if ctype == 2:
            style = comp.get("style")
            if style in (5, 6):
                pass
            elif not cid:
                errors.append("button without custom_id")
            label = comp.get("label") or ""
            if len(label) > 80:
                errors.append(f"button label > 80 characters: {label[:20]!r}...")
        if ctype in SELECT_TYPES and ctype == 3:
            n = len(comp.get("options") or [])
            if not 1 <= n <= 25:
                errors.append(f"select {cid!r}: {n} options (must be 1..25)")
        if cid is not None:
            if not 1 <= len(cid) <= 100:
                errors.append(f"custom_id length {len(cid)} not in 1..100: {cid!r}")
            custom_ids.append(cid)
    dupes = sorted({c for c in custom_ids if custom_ids.count(c) > 1})
    if dupes:
        errors.append(f"duplicate custom_id(s) in one message: {dupes}")

    if v2:
        if content:
            errors.append("IS_COMPONENTS_V2 message cannot have content")
        if embeds:
            errors.append("IS_COMPONENTS_V2 message cannot have embeds")
        count = sum(1 for _ in walk_components(components))
        if count > 40:
            errors.append(f"{count} components > 40")
        text_len = sum(
            len(c.get("content") or "") for c in walk_components(components) if c.get("type") == 10
        )
        if text_len > 4000:
            errors.append(f"text displays hold {text_len} > 4000 characters")
    else:
        if len(components) > 5:
            errors.append(f"{len(components)} action rows > 5")
        for i, row in enumerate(components):
            if row.get("type") != 1:
                errors.append(
                    f"components[{i}] is type {row.get('type')}, not an action row "
                    "(set IS_COMPONENTS_V2 for layout components)"
                )
                continue
            children = row.get("components") or []
            kinds = [c.get("type") for c in children]
            if any(k in SELECT_TYPES for k in kinds) and len(children) != 1:
                errors.append(f"action row {i}: a select must be alone in its row")
            if len(children) > 5:
                errors.append(f"action row {i}: {len(children)} items > 5")
            if not children:
                errors.append(f"action row {i} is empty")
    if creating and not (content or embeds or components or attachments):
        errors.append("Cannot send an empty message")
    return errors


# --------------------------------------------------------------------------- guild entities


@dataclass(eq=False)
class FakeChannel:
    """A text channel of the fake guild."""

    id: int
    name: str
    position: int
    topic: str | None = None
    type: int = 0
    #: Permission bits denied to the bot in this channel (a channel overwrite): they are
    #: missing from ``app_permissions`` of interactions here, and the REST API refuses the
    #: bot's posts (no Send Messages or View Channel: 403) and edits (no View Channel: 403).
    bot_deny: int = 0
    #: The channel's permission overwrites, as Discord describes them (``id``, ``type``: 0 a
    #: role, 1 a member, ``allow``, ``deny``), set by ``FakeDiscord.set_overwrite``.
    overwrites: list[dict[str, Any]] = field(default_factory=list)

    @property
    def mention(self) -> str:
        return f"<#{self.id}>"

    def payload(self, guild_id: int) -> dict[str, Any]:
        return {
            "id": str(self.id),
            "type": self.type,
            "guild_id": str(guild_id),
            "name": self.name,
            "position": self.position,
            "permission_overwrites": [dict(o) for o in self.overwrites],
            "parent_id": None,
            "topic": self.topic,
            "nsfw": False,
            "rate_limit_per_user": 0,
            "last_message_id": None,
            "flags": 0,
            "default_auto_archive_duration": 1440,
        }


# --------------------------------------------------------------------------- messages


@dataclass(eq=False)
class MessageVersion:
    """One version (as originally sent, or after an edit) of a stored message."""

    message: StoredMessage = field(repr=False)
    content: str
    embeds: list[dict[str, Any]]
    components: list[dict[str, Any]]
    flags: int
    attachments: list[dict[str, Any]]
    at: float  # fake-clock time this version appeared

    @property
    def message_id(self) -> int:
        return self.message.id

    @property
    def channel_id(self) -> int:
        return self.message.channel_id

    def texts(self) -> list[str]:
        """Every human-visible string: content, embeds, labels, select options, text displays."""
        return [
            self.content,
            *embeds_text(self.embeds),
            *components_text(self.components),
            *(a.get("filename", "") for a in self.attachments),
        ]

    def text(self) -> str:
        return "\n".join(t for t in self.texts() if t)

    def find_components(self) -> list[ComponentInfo]:
        return component_infos(self.components)


@dataclass(eq=False)
class StoredMessage:
    """A message the bot created (channel send, interaction response or followup)."""

    id: int
    channel_id: int
    guild_id: int
    author: dict[str, Any]
    content: str = ""
    embeds: list[dict[str, Any]] = field(default_factory=list)
    components: list[dict[str, Any]] = field(default_factory=list)
    flags: int = 0
    attachments: list[dict[str, Any]] = field(default_factory=list)
    visible_to: int | None = None  # None = everyone, else the only user id that can see it
    created_at: float = 0.0  # fake clock
    edited_at: float | None = None
    deleted: bool = False
    history: list[MessageVersion] = field(default_factory=list)  # previous versions, oldest first
    type: int = 0
    interaction_id: int | None = None  # interaction that created it (response or followup)
    interaction_metadata: dict[str, Any] | None = None
    webhook_id: int | None = None
    application_id: int | None = None
    message_reference: dict[str, Any] | None = None
    created_by: str = "channel"  # "channel" | "response" | "followup"
    old_edit_times: list[float] = field(default_factory=list, repr=False)

    # -- views
    @property
    def ephemeral(self) -> bool:
        return bool(self.flags & FLAG_EPHEMERAL)

    @property
    def loading(self) -> bool:
        return bool(self.flags & FLAG_LOADING)

    @property
    def components_v2(self) -> bool:
        return bool(self.flags & FLAG_COMPONENTS_V2)

    def snapshot(self) -> MessageVersion:
        import copy

        return MessageVersion(
            self,
            self.content,
            copy.deepcopy(self.embeds),
            copy.deepcopy(self.components),
            self.flags,
            copy.deepcopy(self.attachments),
            self.edited_at if self.edited_at is not None else self.created_at,
        )

    @property
    def current(self) -> MessageVersion:
        return self.snapshot()

    @property
    def versions(self) -> list[MessageVersion]:
        """All versions, oldest first, the current one last."""
        return [*self.history, self.snapshot()]

    def visible_for(self, user_id: int | None) -> bool:
        """Whether that user can see the message now (None = anyone, i.e. public)."""
        if self.deleted:
            return False
        return self.visible_to is None or self.visible_to == user_id

    def text(self) -> str:
        return self.snapshot().text()

    def find_components(self) -> list[ComponentInfo]:
        return self.snapshot().find_components()

    def component(self, custom_id: str) -> dict[str, Any] | None:
        for c in interactive_components(self.components):
            if c.get("custom_id") == custom_id:
                return dict(c)
        return None

    @property
    def custom_ids(self) -> list[str]:
        return [c.custom_id for c in self.find_components() if c.custom_id]

    def payload(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "id": str(self.id),
            "channel_id": str(self.channel_id),
            "type": self.type,
            "author": dict(self.author),
            "content": self.content,
            "timestamp": iso(self.created_at),
            "edited_timestamp": iso(self.edited_at) if self.edited_at is not None else None,
            "tts": False,
            "mention_everyone": False,
            "mentions": [],
            "mention_roles": [],
            "attachments": [dict(a) for a in self.attachments],
            "embeds": [dict(e) for e in self.embeds],
            "components": [dict(c) for c in self.components],
            "pinned": False,
            "flags": self.flags,
        }
        if self.webhook_id is not None:
            data["webhook_id"] = str(self.webhook_id)
        if self.application_id is not None:
            data["application_id"] = str(self.application_id)
        if self.interaction_metadata is not None:
            data["interaction_metadata"] = dict(self.interaction_metadata)
        if self.message_reference is not None:
            data["message_reference"] = dict(self.message_reference)
        return data

    def __repr__(self) -> str:
        vis = "everyone" if self.visible_to is None else f"user {self.visible_to}"
        return (
            f"<StoredMessage id={self.id} channel={self.channel_id} by={self.created_by} "
            f"visible_to={vis} deleted={self.deleted} edits={len(self.history)} "
            f"content={self.content[:40]!r}>"
        )


# --------------------------------------------------------------------------- interactions


@dataclass(eq=False)
class CallbackRecord:
    """One POST /interactions/{id}/{token}/callback."""

    type: int
    data: dict[str, Any] | None
    latency: float  # seconds from INTERACTION_CREATE dispatch to this request (real time)
    status: int  # HTTP status the fake answered
    code: int | None = None  # Discord error code when rejected (10062 late, 40060 already acked)

    @property
    def accepted(self) -> bool:
        return 200 <= self.status < 300


@dataclass(eq=False)
class InteractionRecord:
    """An interaction a simulated user triggered, and everything the bot did with it."""

    _fake: FakeDiscord = field(repr=False)
    _: KW_ONLY
    id: int
    token: str
    type: int
    user: SimUser
    channel_id: int
    payload: dict[str, Any]
    source_message_id: int | None  # the message a component sat on
    dispatched_mono: float | None = field(default=None, init=False)
    created_fake: float = field(init=False)
    callbacks: list[CallbackRecord] = field(default_factory=list, init=False)
    original_message_id: int | None = field(default=None, init=False)
    followup_ids: list[int] = field(default_factory=list, init=False)
    modal: dict[str, Any] | None = field(default=None, init=False)
    autocomplete_choices: list[dict[str, Any]] | None = field(default=None, init=False)
    late: bool = field(default=False, init=False)
    session_id: str | None = field(default=None, init=False)

    def __post_init__(self) -> None:
        self.created_fake = self._fake.now()

    # -- state
    @property
    def data(self) -> dict[str, Any]:
        data: dict[str, Any] = self.payload.get("data", {})
        return data

    @property
    def custom_id(self) -> str | None:
        return self.data.get("custom_id")

    @property
    def accepted(self) -> CallbackRecord | None:
        """The accepted initial response, if any."""
        return next((c for c in self.callbacks if c.accepted), None)

    @property
    def answered(self) -> bool:
        return self.accepted is not None

    @property
    def response_type(self) -> int | None:
        cb = self.accepted
        return cb.type if cb else None

    @property
    def latency(self) -> float | None:
        """Seconds between dispatch and the first callback request (accepted or not)."""
        return self.callbacks[0].latency if self.callbacks else None

    @property
    def original_message(self) -> StoredMessage | None:
        if self.original_message_id is None:
            return None
        return self._fake.get_message(self.original_message_id)

    @property
    def followups(self) -> list[StoredMessage]:
        return [m for mid in self.followup_ids if (m := self._fake.get_message(mid)) is not None]

    @property
    def private_followups(self) -> list[StoredMessage]:
        """The followups only the interaction's user sees (answers, refusals), not the public
        ones (the bot may post a channel's table as a followup of a press)."""
        return [m for m in self.followups if m.visible_to is not None]

    @property
    def messages(self) -> list[StoredMessage]:
        """The response message (if any) followed by the followups."""
        orig = self.original_message
        return ([orig] if orig is not None else []) + self.followups

    @property
    def ephemeral(self) -> bool:
        orig = self.original_message
        return bool(orig and orig.ephemeral)

    # -- waiting
    def __await__(self) -> Any:
        """`await record` is `await record.wait_response()`."""
        return self.wait_response().__await__()

    async def wait_response(self, timeout: float = 5.0) -> CallbackRecord:
        """Wait for the first callback request (accepted or rejected) and return it."""
        await self._fake.wait_until(
            lambda: bool(self.callbacks), timeout, f"no response to interaction {self.describe()}"
        )
        return self.callbacks[0]

    async def wait_original(
        self, timeout: float = 5.0, predicate: Callable[[StoredMessage], bool] | None = None
    ) -> StoredMessage:
        """Wait until the response message exists, is no longer 'thinking' and matches predicate."""

        def ready() -> bool:
            m = self.original_message
            return m is not None and not m.loading and (predicate is None or predicate(m))

        await self._fake.wait_until(ready, timeout, f"no original response for {self.describe()}")
        msg = self.original_message
        assert msg is not None
        return msg

    async def wait_followups(self, count: int = 1, timeout: float = 5.0) -> list[StoredMessage]:
        await self._fake.wait_until(
            lambda: len(self.followup_ids) >= count,
            timeout,
            f"fewer than {count} followups for {self.describe()}",
        )
        return self.followups

    def describe(self) -> str:
        what = {
            APPLICATION_COMMAND: "command",
            MESSAGE_COMPONENT: "component",
            MODAL_SUBMIT: "modal",
            AUTOCOMPLETE: "autocomplete",
        }.get(self.type, str(self.type))
        detail = self.data.get("custom_id") or self.data.get("name") or ""
        if self.type == APPLICATION_COMMAND:
            opts = self.data.get("options") or []
            while opts and opts[0].get("type") in (1, 2):
                detail += " " + opts[0]["name"]
                opts = opts[0].get("options") or []
        return f"{what} {detail!r} by {self.user.name} (id {self.id})"

    def __repr__(self) -> str:
        return (
            f"<InteractionRecord {self.describe()} callbacks="
            f"{[(c.type, c.status) for c in self.callbacks]}>"
        )


# --------------------------------------------------------------------------- users


@dataclass(eq=False, repr=False)
class SimUser:
    """A simulated human member of the fake guild; two are equal when their ids are."""

    _fake: FakeDiscord
    _: KW_ONLY
    id: int
    name: str
    locale: str
    role_ids: list[int]
    joined_at: float

    def __repr__(self) -> str:
        return f"<SimUser {self.name} id={self.id}>"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, SimUser) and other.id == self.id

    def __hash__(self) -> int:
        return hash(self.id)

    @property
    def mention(self) -> str:
        return f"<@{self.id}>"

    @property
    def permissions(self) -> int:
        return self._fake.member_permissions(self)

    def user_payload(self) -> dict[str, Any]:
        return user_payload(self.id, self.name, self.name.title(), bot=False)

    def member_payload(
        self, *, with_user: bool = True, with_permissions: bool = False
    ) -> dict[str, Any]:
        data = member_payload(self.role_ids, self.joined_at)
        if with_user:
            data["user"] = self.user_payload()
        if with_permissions:
            data["permissions"] = str(self.permissions)
        return data

    # -- permissions
    def grant_manage_channels(self) -> None:
        """Give this user the guild's 'Moderator' role (Manage Channels)."""
        self._fake.grant_manage_channels(self)

    # -- actions
    async def slash(
        self,
        channel: Any,
        command: str,
        subcommand: str | None = None,
        options: Mapping[str, Any] | None = None,
    ) -> InteractionRecord:
        """Invoke `/command [subcommand] options...` (subcommand may be 'group sub')."""
        return await self._fake._slash(self, channel, command, subcommand, dict(options or {}))

    async def press(self, message: Any, custom_id: str) -> InteractionRecord:
        """Press the button `custom_id` on a message this user can see."""
        return await self._fake._component(self, message, custom_id, None)

    async def select(
        self, message: Any, custom_id: str, values: Sequence[Any]
    ) -> InteractionRecord:
        """Choose `values` in the select menu `custom_id`."""
        return await self._fake._component(self, message, custom_id, list(values))

    async def modal_submit(
        self, record: InteractionRecord, values: Mapping[str, Any] | None = None
    ) -> InteractionRecord:
        """Submit the modal the bot opened in answer to `record` (custom_id -> text value)."""
        return await self._fake._modal_submit(self, record, dict(values or {}))

    def visible_messages(self) -> list[MessageVersion]:
        return self._fake.visible_messages(self)
