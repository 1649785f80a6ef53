"""Guilds, their channels, members, roles and permissions: the entities a test creates,
the objects Discord describes them with (guild, member, user, application), and their REST
routes."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import discord

from .core import ADMINISTRATOR, ALL_PERMISSIONS, INTENT_GUILD_MEMBERS, INTENT_GUILDS
from .models import (
    ApiError,
    FakeChannel,
    FakeDiscordError,
    SimUser,
    iso,
    member_payload,
    user_payload,
)
from .rest import Req, RestApi, route


class Guilds(RestApi):
    """The guild: its roles (@everyone, Moderator, the bot's), text channels and members."""

    # ================================================================= entities

    def add_role(self, name: str, permissions: int | discord.Permissions = 0) -> int:
        """Create a role; returns its id."""
        perms = (
            permissions.value if isinstance(permissions, discord.Permissions) else int(permissions)
        )
        role_id = self._add_role_raw(self._ids.next(), name, perms, len(self.roles))
        self._broadcast_soon(
            "GUILD_ROLE_CREATE",
            {"guild_id": str(self.guild_id), "role": self.roles[role_id]},
            INTENT_GUILDS,
        )
        return role_id

    def add_channel(self, name: str, *, topic: str | None = None) -> FakeChannel:
        """Create a text channel (announced with CHANNEL_CREATE if a bot is connected)."""
        channel = self._new_channel(name, topic)
        self._broadcast_soon("CHANNEL_CREATE", channel.payload(self.guild_id), INTENT_GUILDS)
        return channel

    @property
    def channel_id(self) -> int:
        """Id of the first channel (default: #general)."""
        return next(iter(self.channels))

    def channel(self, name_or_id: str | int) -> FakeChannel:
        for ch in self.channels.values():
            if name_or_id in (ch.name, ch.id):
                return ch
        raise KeyError(f"no channel {name_or_id!r}")

    def _resolve_channel(self, channel: Any) -> FakeChannel:
        cid = getattr(channel, "id", channel)
        ch = self.channels.get(int(cid))
        if ch is None:
            raise FakeDiscordError(f"unknown channel {channel!r}")
        return ch

    def _get_channel(self, channel_id: str) -> FakeChannel:
        ch = self.channels.get(int(channel_id))
        if ch is None:
            raise ApiError(404, 10003, "Unknown Channel")
        return ch

    def add_user(
        self,
        name: str,
        *,
        locale: str = "en-US",
        permissions: int | discord.Permissions | None = None,
        manage_channels: bool = False,
        roles: Sequence[int] = (),
    ) -> SimUser:
        """Add a simulated member. `permissions` are granted through a personal role."""
        role_ids = list(roles)
        if manage_channels:
            role_ids.append(self.moderator_role_id)
        if permissions is not None:
            role_ids.append(self.add_role(f"{name}-perms", permissions))
        user = SimUser(
            self._whole,
            id=self._ids.next(),
            name=name,
            locale=locale,
            role_ids=role_ids,
            joined_at=self.now(),
        )
        self.users[user.id] = user
        self._broadcast_soon(
            "GUILD_MEMBER_ADD",
            {**user.member_payload(), "guild_id": str(self.guild_id)},
            INTENT_GUILD_MEMBERS,
        )
        return user

    def user(self, name_or_id: str | int) -> SimUser:
        for u in self.users.values():
            if name_or_id in (u.name, u.id):
                return u
        raise KeyError(f"no user {name_or_id!r}")

    def deny_bot(self, channel: Any, **perms: bool) -> None:
        """Deny the bot permissions in `channel` (e.g. ``send_messages=True``), like a
        channel overwrite; ``allow_bot`` lifts them.  See ``FakeChannel.bot_deny``."""
        self._resolve_channel(channel).bot_deny |= discord.Permissions(**perms).value

    def allow_bot(self, channel: Any) -> None:
        """Lift every permission denied to the bot in `channel`."""
        self._resolve_channel(channel).bot_deny = 0

    def _check_bot_may(self, ch: FakeChannel, method: str) -> None:
        """Refuse the bot's channel-message request as Discord would under ``bot_deny``."""
        deny = discord.Permissions(ch.bot_deny)
        if deny.view_channel:
            raise ApiError(403, 50001, "Missing Access")
        if method == "POST" and deny.send_messages:
            raise ApiError(403, 50013, "Missing Permissions")

    def grant_manage_channels(self, user: SimUser) -> None:
        """Give `user` the Moderator role (Manage Channels + Manage Messages)."""
        if self.moderator_role_id not in user.role_ids:
            user.role_ids.append(self.moderator_role_id)
            self._broadcast_soon(
                "GUILD_MEMBER_UPDATE",
                {**user.member_payload(), "guild_id": str(self.guild_id)},
                INTENT_GUILD_MEMBERS,
            )

    def member_permissions(self, user: SimUser | None) -> int:
        """Guild-level permissions of a member (None = the bot)."""
        role_ids = [self.bot_role_id] if user is None else user.role_ids
        perms = int(self.roles[self.guild_id]["permissions"])
        for rid in role_ids:
            if rid in self.roles:
                perms |= int(self.roles[rid]["permissions"])
        return ALL_PERMISSIONS if perms & ADMINISTRATOR else perms

    # ================================================================= payloads

    def bot_user_payload(self) -> dict[str, Any]:
        return user_payload(self.bot_user_id, self.bot_name, None, bot=True)

    def bot_member_payload(self) -> dict[str, Any]:
        return {
            "user": self.bot_user_payload(),
            **member_payload([self.bot_role_id], self.created_at),
        }

    def guild_payload(self, *, full: bool = True) -> dict[str, Any]:
        data: dict[str, Any] = {
            "id": str(self.guild_id),
            "name": self.guild_name,
            "icon": None,
            "splash": None,
            "discovery_splash": None,
            "banner": None,
            "description": None,
            "owner_id": str(self.owner_id),
            "afk_channel_id": None,
            "afk_timeout": 300,
            "verification_level": 0,
            "default_message_notifications": 0,
            "explicit_content_filter": 0,
            "roles": [dict(r) for r in self.roles.values()],
            "emojis": [],
            "stickers": [],
            "features": [],
            "mfa_level": 0,
            "application_id": None,
            "system_channel_id": None,
            "system_channel_flags": 0,
            "rules_channel_id": None,
            "public_updates_channel_id": None,
            "safety_alerts_channel_id": None,
            "vanity_url_code": None,
            "premium_tier": 0,
            "premium_subscription_count": 0,
            "preferred_locale": self.preferred_locale,
            "nsfw_level": 0,
            "premium_progress_bar_enabled": False,
            "max_members": 500000,
        }
        if full:
            members = [self.bot_member_payload()] + [
                u.member_payload() for u in self.users.values()
            ]
            data.update(
                {
                    "joined_at": iso(self.created_at),
                    "large": False,
                    "unavailable": False,
                    "member_count": len(members),
                    "members": members,
                    "voice_states": [],
                    "channels": [c.payload(self.guild_id) for c in self.channels.values()],
                    "threads": [],
                    "presences": [],
                    "stage_instances": [],
                    "guild_scheduled_events": [],
                    "soundboard_sounds": [],
                }
            )
        return data

    def _channel_payload_for_interaction(
        self, channel: FakeChannel, user: SimUser
    ) -> dict[str, Any]:
        return {**channel.payload(self.guild_id), "permissions": str(self.member_permissions(user))}

    # ========================================================= REST: users, application, guild

    @route("GET", "/users/@me")
    async def h_users_me(self, req: Req) -> tuple[int, Any]:
        if req.authorization.startswith("Bearer "):  # a user's OAuth2 access token
            user_id = self._oauth_tokens.get(req.authorization.removeprefix("Bearer "))
            if user_id is None:
                raise ApiError(401, 0, "401: Unauthorized")
            return 200, self.oauth_user_payload(user_id)
        return 200, {
            **self.bot_user_payload(),
            "verified": True,
            "mfa_enabled": False,
            "flags": 0,
            "email": None,
            "locale": "en-US",
            "banner": None,
            "accent_color": None,
        }

    def _person(self, user_id: int, *, member: bool) -> dict[str, Any]:
        """The user (or, with ``member``, guild member) object of the bot or a simulated user;
        Discord's 404 for anyone else."""
        if user_id == self.bot_user_id:
            return self.bot_member_payload() if member else self.bot_user_payload()
        if user_id in self.users:
            user = self.users[user_id]
            return user.member_payload() if member else user.user_payload()
        if member:
            raise ApiError(404, 10007, "Unknown Member")
        raise ApiError(404, 10013, "Unknown User")

    @route("GET", "/users/{user_id}")
    async def h_user(self, req: Req) -> tuple[int, Any]:
        return 200, self._person(int(req.params["user_id"]), member=False)

    @route("GET", "/oauth2/applications/@me")
    @route("GET", "/applications/@me")
    async def h_app_me(self, req: Req) -> tuple[int, Any]:
        return 200, {
            "id": str(self.application_id),
            "name": self.bot_name,
            "description": "",
            "icon": None,
            "bot_public": True,
            "bot_require_code_grant": False,
            "verify_key": "0" * 64,
            "owner": {
                "id": str(self.owner_id),
                "username": "owner",
                "discriminator": "0",
                "avatar": None,
                "global_name": None,
                "public_flags": 0,
            },
            "team": None,
            "flags": 0,
            "summary": "",
            "rpc_origins": [],
            "tags": [],
            "interactions_endpoint_url": None,
            "redirect_uris": [],
            "bot": self.bot_user_payload(),
            "approximate_guild_count": 1,
        }

    @route("GET", "/guilds/{guild_id}")
    async def h_guild(self, req: Req) -> tuple[int, Any]:
        self._check_guild(req.params["guild_id"])
        return 200, self.guild_payload(full=False)

    @route("GET", "/guilds/{guild_id}/channels")
    async def h_guild_channels(self, req: Req) -> tuple[int, Any]:
        self._check_guild(req.params["guild_id"])
        return 200, [c.payload(self.guild_id) for c in self.channels.values()]

    @route("GET", "/guilds/{guild_id}/roles")
    async def h_guild_roles(self, req: Req) -> tuple[int, Any]:
        self._check_guild(req.params["guild_id"])
        return 200, list(self.roles.values())

    @route("GET", "/guilds/{guild_id}/members/{user_id}")
    async def h_guild_member(self, req: Req) -> tuple[int, Any]:
        self._check_guild(req.params["guild_id"])
        return 200, self._person(int(req.params["user_id"]), member=True)

    @route("GET", "/guilds/{guild_id}/members")
    async def h_guild_members(self, req: Req) -> tuple[int, Any]:
        self._check_guild(req.params["guild_id"])
        limit = int(req.query.get("limit", 1))
        return 200, self.guild_payload()["members"][:limit]
