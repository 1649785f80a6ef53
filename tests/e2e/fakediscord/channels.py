"""Channels and their messages: the message store (create, edit, delete, as the bot's
requests and interaction responses ask), the channel REST routes, and what tests read of
the messages."""

from __future__ import annotations

import copy
import re
from collections.abc import Callable, Mapping
from typing import Any

from .core import INTENT_GUILD_MESSAGES
from .gateway import Gateway
from .models import (
    APPLICATION_COMMAND,
    FLAG_COMPONENTS_V2,
    FLAG_EPHEMERAL,
    FLAG_LOADING,
    FLAG_SUPPRESS_EMBEDS,
    MESSAGE_COMPONENT,
    ApiError,
    ComponentInfo,
    InteractionRecord,
    MessageVersion,
    NotVisibleError,
    SimUser,
    StoredMessage,
    component_infos,
    validate_message,
    walk_components,
)
from .rest import Body, Files, Req, route


class Channels(Gateway):
    """The messages of every channel of the guild, as Discord stores and shows them."""

    # ================================================================= REST: channels

    @route("GET", "/channels/{channel_id}")
    async def h_channel(self, req: Req) -> tuple[int, Any]:
        return 200, self._get_channel(req.params["channel_id"]).payload(self.guild_id)

    @route("POST", "/channels/{channel_id}/typing")
    async def h_typing(self, req: Req) -> tuple[int, Any]:
        self._get_channel(req.params["channel_id"])
        return 204, None

    # ================================================================= the message store

    def _attachments(
        self,
        body: Mapping[str, Any],
        files: Files,
        existing: list[dict[str, Any]],
    ) -> list[dict[str, Any]] | None:
        if "attachments" not in body and not files:
            return None
        out: list[dict[str, Any]] = []
        by_id = {a["id"]: a for a in existing}
        new_files = {
            int(re.sub(r"\D", "", name) or i): (fname, data)
            for i, (name, fname, data) in enumerate(files)
        }
        listed = body.get("attachments")
        if listed is None:
            listed = [{"id": i, "filename": f[0]} for i, f in new_files.items()]
        for att in listed:
            aid = att.get("id")
            if str(aid) in by_id:
                out.append(by_id[str(aid)])
            elif isinstance(aid, int) and aid in new_files:
                fname, data = new_files[aid]
                new_id = self._ids.next()
                url = f"http://{self.host}:{self.port}/attachments/{new_id}/{fname}"
                out.append(
                    {
                        "id": str(new_id),
                        "filename": att.get("filename", fname),
                        "size": len(data),
                        "url": url,
                        "proxy_url": url,
                        "content_type": "application/octet-stream",
                        "description": att.get("description"),
                    }
                )
        return out

    @staticmethod
    def _assign_component_ids(components: list[dict[str, Any]]) -> list[dict[str, Any]]:
        components = copy.deepcopy(components)
        used = {c["id"] for c in walk_components(components) if isinstance(c.get("id"), int)}
        nxt = 1
        for c in walk_components(components):
            if not isinstance(c.get("id"), int):
                while nxt in used:
                    nxt += 1
                c["id"] = nxt  # type: ignore[index]
                used.add(nxt)
        return components

    def _requested(
        self,
        body: Mapping[str, Any],
        files: Files,
        old: StoredMessage | None,
    ) -> tuple[str, list[dict[str, Any]], list[dict[str, Any]], list[dict[str, Any]]]:
        """The content, embeds, components and attachments that a request creating a message
        (``old`` None) or editing ``old`` asks for: a field the body leaves out keeps its
        value, empty on a new message."""
        content, embeds, components, attachments = (
            ("", [], [], [])
            if old is None
            else (old.content, old.embeds, old.components, old.attachments)
        )
        if "content" in body:
            content = body.get("content") or ""
        if "embeds" in body:
            embeds = list(body.get("embeds") or [])
        if "components" in body:
            components = list(body.get("components") or [])
        sent = self._attachments(body, files, attachments)
        return content, embeds, components, attachments if sent is None else sent

    def _create_message(
        self,
        channel_id: int,
        body: Body,
        files: Files,
        *,
        created_by: str,
        visible_to: int | None = None,
        extra_flags: int = 0,
        interaction: InteractionRecord | None = None,
        what: str = "",
    ) -> StoredMessage:
        body = body or {}
        content, embeds, components, attachments = self._requested(body, files, None)
        flags = int(body.get("flags") or 0) & (
            FLAG_SUPPRESS_EMBEDS | FLAG_COMPONENTS_V2 | FLAG_EPHEMERAL
        )
        flags |= extra_flags
        if created_by == "channel":
            flags &= ~FLAG_EPHEMERAL
        if not flags & FLAG_LOADING:
            errors = validate_message(
                content, embeds, components, flags, attachments=attachments, creating=True
            )
            if errors:
                raise self._invalid(what or f"create message in {channel_id}", errors)
        msg = StoredMessage(
            id=self._ids.next(),
            channel_id=channel_id,
            guild_id=self.guild_id,
            author=self.bot_user_payload(),
            content=content,
            embeds=embeds,
            components=self._assign_component_ids(components),
            flags=flags,
            attachments=attachments,
            visible_to=visible_to if flags & FLAG_EPHEMERAL else None,
            created_at=self.now(),
            created_by=created_by,
        )
        if isinstance(body.get("message_reference"), dict):
            msg.message_reference = {
                **body["message_reference"],
                "channel_id": str(channel_id),
                "guild_id": str(self.guild_id),
            }
            msg.type = 19
        if interaction is not None:
            msg.interaction_id = interaction.id
            msg.webhook_id = self.application_id
            msg.application_id = self.application_id
            meta: dict[str, Any] = {
                "id": str(interaction.id),
                "type": interaction.type,
                "user": interaction.user.user_payload(),
                "authorizing_integration_owners": {"0": str(self.guild_id)},
            }
            if interaction.type == MESSAGE_COMPONENT and interaction.source_message_id:
                meta["interacted_message_id"] = str(interaction.source_message_id)
            if created_by == "followup" and interaction.original_message_id:
                meta["original_response_message_id"] = str(interaction.original_message_id)
            msg.interaction_metadata = meta
            if interaction.type == APPLICATION_COMMAND and created_by == "response":
                msg.type = 20
        self._messages[msg.id] = msg
        if msg.visible_to is None:
            self._message_event("MESSAGE_CREATE", msg)
        return msg

    def _edit_message(
        self, msg: StoredMessage, body: Body, files: Files, *, what: str
    ) -> StoredMessage:
        body = body or {}
        now = self.now()
        content, embeds, components, attachments = self._requested(body, files, msg)
        flags = msg.flags & ~FLAG_LOADING
        if body.get("flags") is not None:
            flags = int(body["flags"]) & (FLAG_SUPPRESS_EMBEDS | FLAG_COMPONENTS_V2)
            flags |= msg.flags & (FLAG_EPHEMERAL | FLAG_COMPONENTS_V2)
        errors = validate_message(content, embeds, components, flags, attachments=attachments)
        if not (content or embeds or components or attachments):
            errors.append("Cannot edit a message to be empty")
        if errors:
            raise self._invalid(what, errors)
        if (
            self.old_message_edit_limit is not None
            and not msg.ephemeral
            and now - msg.created_at > 3600
        ):
            recent = [
                t
                for m in self._messages.values()
                if m.channel_id == msg.channel_id
                for t in m.old_edit_times
                if now - t < 3600
            ]
            if len(recent) >= self.old_message_edit_limit:
                raise ApiError(
                    400,
                    30046,
                    "Maximum number of edits to messages older than 1 hour "
                    "reached. Try again later.",
                )
            msg.old_edit_times.append(now)
        msg.history.append(msg.snapshot())
        msg.content, msg.embeds, msg.flags, msg.attachments = content, embeds, flags, attachments
        if "components" in body:
            msg.components = self._assign_component_ids(components)
        msg.edited_at = now
        if msg.visible_to is None:
            self._message_event("MESSAGE_UPDATE", msg)
        return msg

    def _delete_message(self, msg: StoredMessage) -> None:
        msg.deleted = True
        if msg.visible_to is None:
            self._broadcast_soon(
                "MESSAGE_DELETE",
                {
                    "id": str(msg.id),
                    "channel_id": str(msg.channel_id),
                    "guild_id": str(self.guild_id),
                },
                INTENT_GUILD_MESSAGES,
            )

    def _message_event(self, event: str, msg: StoredMessage) -> None:
        if self.message_events:
            self._broadcast_soon(
                event, {**msg.payload(), "guild_id": str(self.guild_id)}, INTENT_GUILD_MESSAGES
            )

    # ================================================================= REST: channel messages

    def _channel_message(self, req: Req) -> StoredMessage:
        self._get_channel(req.params["channel_id"])
        msg = self._messages.get(int(req.params["message_id"]))
        if (
            msg is None
            or msg.deleted
            or msg.ephemeral
            or msg.channel_id != int(req.params["channel_id"])
        ):
            raise ApiError(404, 10008, "Unknown Message")
        return msg

    @route("GET POST", "/channels/{channel_id}/messages")
    async def h_channel_messages(self, req: Req) -> tuple[int, Any]:
        ch = self._get_channel(req.params["channel_id"])
        self._check_bot_may(ch, req.method)
        if req.method == "POST":
            msg = self._create_message(
                ch.id,
                req.json,
                req.files,
                created_by="channel",
                what=f"POST /channels/{ch.id}/messages",
            )
            return 200, msg.payload()
        limit = min(int(req.query.get("limit", 50)), 100)
        msgs = [
            m
            for m in self._messages.values()
            if m.channel_id == ch.id and not m.deleted and not m.ephemeral
        ]
        if "before" in req.query:
            msgs = [m for m in msgs if m.id < int(req.query["before"])]
        if "after" in req.query:
            msgs = [m for m in msgs if m.id > int(req.query["after"])]
            return 200, [m.payload() for m in msgs[:limit]][::-1]
        if "around" in req.query:
            around = int(req.query["around"])
            msgs.sort(key=lambda m: abs(m.id - around))
            msgs = sorted(msgs[:limit], key=lambda m: m.id)
        return 200, [m.payload() for m in msgs[::-1][:limit]]

    @route("GET PATCH DELETE", "/channels/{channel_id}/messages/{message_id}")
    async def h_channel_message(self, req: Req) -> tuple[int, Any]:
        self._check_bot_may(self._get_channel(req.params["channel_id"]), req.method)
        msg = self._channel_message(req)
        if req.method == "GET":
            return 200, msg.payload()
        if req.method == "DELETE":
            self._delete_message(msg)
            return 204, None
        self._edit_message(msg, req.json, req.files, what=f"PATCH {req.path}")
        return 200, msg.payload()

    # ================================================================= queries

    def _resolve_message(self, message: Any) -> StoredMessage:
        if isinstance(message, StoredMessage):
            mid = message.id
        elif isinstance(message, MessageVersion):
            mid = message.message.id
        else:
            mid = int(getattr(message, "id", message))
        msg = self._messages.get(mid)
        if msg is None:
            raise NotVisibleError(f"no message {mid} was ever sent through the fake")
        return msg

    def get_message(self, message_id: int | None) -> StoredMessage | None:
        return self._messages.get(message_id) if message_id is not None else None

    def messages(
        self, channel: Any = None, *, include_deleted: bool = False
    ) -> list[StoredMessage]:
        """Messages in creation order (all channels if channel is None)."""
        cid = None if channel is None else int(getattr(channel, "id", channel))
        return [
            m
            for m in self._messages.values()
            if (cid is None or m.channel_id == cid) and (include_deleted or not m.deleted)
        ]

    def visible_messages(self, user: SimUser) -> list[MessageVersion]:
        """Every version of every message `user` could ever have seen (incl. edited/deleted)."""
        return [
            v
            for m in self._messages.values()
            if m.visible_to in (None, user.id)
            for v in m.versions
        ]

    def last_message(self, channel: Any, visible_to: SimUser | None = None) -> StoredMessage | None:
        """Newest live message in channel: public only, or also `visible_to`'s ephemerals."""
        uid = visible_to.id if visible_to is not None else None
        for m in reversed(self.messages(channel)):
            if m.visible_for(uid):
                return m
        return None

    async def wait_for_message(
        self,
        channel: Any,
        predicate: Callable[[StoredMessage], bool] | None = None,
        *,
        timeout: float = 5.0,
        after: int = 0,
    ) -> StoredMessage:
        """Wait for a message (public or ephemeral) in channel, id > after, matching predicate."""
        found: list[StoredMessage] = []

        def check() -> bool:
            for m in self.messages(channel):
                if m.id > after and (predicate is None or predicate(m)):
                    found.append(m)
                    return True
            return False

        await self.wait_until(check, timeout, f"message in channel {channel}")
        return found[0]

    def find_components(self, message: Any) -> list[ComponentInfo]:
        """Flat (custom_id, label, disabled, style) of every button/select (rows, V2 containers)."""
        if isinstance(message, MessageVersion):
            return message.find_components()
        if isinstance(message, Mapping):
            return component_infos(message.get("components"))
        return self._resolve_message(message).find_components()
