"""Activities: the running instances of the application's Activity, a user's OAuth2 sign-in
(the code the Embedded App SDK's ``authorize`` gives the page, traded for an access token),
and channel permission overwrites (who can see a private channel)."""

from __future__ import annotations

import itertools
from typing import Any
from urllib.parse import parse_qs

import discord

from .core import INTENT_GUILDS
from .models import ApiError, SimUser, user_payload
from .rest import Req, route
from .webhooks import Webhooks

#: The OAuth2 client secret the fake expects with ``DISCORD_CLIENT_ID`` = the application id.
CLIENT_SECRET = "s3cret"
_serial = itertools.count(1)


class Activities(Webhooks):
    """Activity instances, OAuth2 codes and tokens, channel overwrites."""

    # ================================================================= entities

    def start_activity(
        self, channel: Any, users: list[SimUser | int], *, guild_id: int | None = None
    ) -> str:
        """An Activity instance running in ``channel`` (of ``guild_id``: this guild unless
        said) with ``users`` in it; its instance id."""
        instance_id = f"i-{next(_serial)}-gc-{self.guild_id}-{getattr(channel, 'id', channel)}"
        self.activity_instances[instance_id] = {
            "application_id": str(self.application_id),
            "instance_id": instance_id,
            "launch_id": str(self._ids.next()),
            "location": {
                "id": f"gc-{guild_id or self.guild_id}-{getattr(channel, 'id', channel)}",
                "kind": "gc",
                "channel_id": str(getattr(channel, "id", channel)),
                "guild_id": str(guild_id or self.guild_id),
            },
            "users": [str(getattr(u, "id", u)) for u in users],
        }
        return instance_id

    def oauth_code(self, user: SimUser | int) -> str:
        """An OAuth2 code for ``user`` (a member, or any user id), as the SDK's ``authorize``
        hands the page."""
        code = f"code-{next(_serial)}"
        self._oauth_codes[code] = getattr(user, "id", user)
        return code

    def oauth_user_payload(self, user_id: int) -> dict[str, Any]:
        """``/users/@me`` for a user's access token: a member's user (with their locale), or
        an outsider's."""
        member = self.users.get(user_id)
        if member is not None:
            return {**member.user_payload(), "locale": member.locale}
        return user_payload(user_id, f"outsider{user_id}", None, bot=False)

    def set_overwrite(
        self,
        channel: Any,
        target: SimUser | int,
        *,
        allow: discord.Permissions | None = None,
        deny: discord.Permissions | None = None,
    ) -> None:
        """Set the overwrite of ``target`` (a member, or a role id: the guild id is
        @everyone) in ``channel`` and tell the bots (CHANNEL_UPDATE)."""
        ch = self._resolve_channel(channel)
        target_id = getattr(target, "id", target)
        overwrite = {
            "id": str(target_id),
            "type": 1 if isinstance(target, SimUser) else 0,
            "allow": str(allow.value if allow else 0),
            "deny": str(deny.value if deny else 0),
        }
        ch.overwrites = [o for o in ch.overwrites if o["id"] != str(target_id)] + [overwrite]
        self._broadcast_soon("CHANNEL_UPDATE", ch.payload(self.guild_id), INTENT_GUILDS)

    # ================================================================= REST

    @route("GET", "/applications/{application_id}/activity-instances/{instance_id:[^/]+}")
    async def h_activity_instance(self, req: Req) -> tuple[int, Any]:
        self._check_app(req.params["application_id"])
        instance = self.activity_instances.get(req.params["instance_id"])
        if instance is None:
            raise ApiError(404, 10089, "Unknown Activity Instance")
        return 200, instance

    @route("POST", "/oauth2/token")
    async def h_oauth_token(self, req: Req) -> tuple[int, Any]:
        form = {k: v[0] for k, v in parse_qs(str(req.json or "")).items()}
        user_id = self._oauth_codes.pop(form.get("code", ""), None)
        ok = (
            form.get("client_id") == str(self.application_id)
            and form.get("client_secret") == CLIENT_SECRET
            and form.get("grant_type") == "authorization_code"
        )
        if not ok or user_id is None:
            raise ApiError(400, 0, "invalid_grant")
        token = f"at-{next(_serial)}"
        self._oauth_tokens[token] = user_id
        return 200, {"access_token": token, "token_type": "Bearer", "scope": "identify"}
