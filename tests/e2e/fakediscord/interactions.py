"""Interactions: what simulated users do (run a slash command, press a button, pick in a
select menu, submit a modal) delivered to the bot as INTERACTION_CREATE, and the bot's
callbacks to them, held to Discord's rules (the 3 s deadline, one callback, allowed
types)."""

from __future__ import annotations

import asyncio
import secrets
import time
from collections.abc import Mapping
from typing import Any, ClassVar

from .commands import Commands
from .models import (
    APPLICATION_COMMAND,
    AUTOCOMPLETE,
    CB_AUTOCOMPLETE,
    CB_DEFERRED_MESSAGE,
    CB_DEFERRED_UPDATE,
    CB_LAUNCH_ACTIVITY,
    CB_MESSAGE,
    CB_MODAL,
    CB_UPDATE_MESSAGE,
    FLAG_LOADING,
    MESSAGE_COMPONENT,
    MODAL_SUBMIT,
    SELECT_TYPES,
    ApiError,
    CallbackRecord,
    ComponentNotFoundError,
    FakeChannel,
    FakeDiscordError,
    InteractionRecord,
    NotVisibleError,
    SimUser,
    StoredMessage,
)
from .rest import Body, Files, Req, route


class Interactions(Commands):
    """Every interaction of the guild: made by simulated users, answered by the bot."""

    # ================================================================= simulated users

    def _new_interaction(
        self,
        user: SimUser,
        channel: FakeChannel,
        itype: int,
        data: dict[str, Any],
        message: StoredMessage | None,
    ) -> InteractionRecord:
        iid = self._ids.next()
        token = "fake." + secrets.token_urlsafe(40)
        payload: dict[str, Any] = {
            "id": str(iid),
            "application_id": str(self.application_id),
            "type": itype,
            "token": token,
            "version": 1,
            "guild_id": str(self.guild_id),
            "guild": {"id": str(self.guild_id), "locale": self.preferred_locale, "features": []},
            "channel_id": str(channel.id),
            "channel": self._channel_payload_for_interaction(channel, user),
            "member": user.member_payload(with_permissions=True),
            "app_permissions": str(self.member_permissions(None) & ~channel.bot_deny),
            "locale": user.locale,
            "guild_locale": self.preferred_locale,
            "entitlements": [],
            "entitlement_sku_ids": [],
            "authorizing_integration_owners": {"0": str(self.guild_id)},
            "context": 0,
            "attachment_size_limit": 10 * 1024 * 1024,
            "data": data,
        }
        if message is not None:
            payload["message"] = message.payload()
        return InteractionRecord(
            self._whole,
            id=iid,
            token=token,
            type=itype,
            user=user,
            channel_id=channel.id,
            payload=payload,
            source_message_id=message.id if message else None,
        )

    async def _deliver(self, rec: InteractionRecord) -> InteractionRecord:
        if self._tasks:  # let queued GUILD_MEMBER_ADD / ROLE_CREATE ... reach the bot first
            await asyncio.gather(*list(self._tasks), return_exceptions=True)
        session = self._interaction_session()
        self.interactions.append(rec)
        self._interactions[rec.id] = rec
        self._by_token[rec.token] = rec
        rec.session_id = session.id
        rec.dispatched_mono = time.monotonic()
        await self._send_dispatch(session, "INTERACTION_CREATE", rec.payload)
        self._notify()
        return rec

    async def _slash(
        self,
        user: SimUser,
        channel: Any,
        command: str,
        subcommand: str | None,
        options: dict[str, Any],
    ) -> InteractionRecord:
        ch = self._resolve_channel(channel)
        cmd = self._find_command(command)
        resolved: dict[str, Any] = {}
        path = subcommand.split() if subcommand else []
        data: dict[str, Any] = {
            "id": cmd["id"],
            "name": cmd["name"],
            "type": cmd.get("type", 1),
            "options": self._build_options(
                cmd.get("options") or [], path, options, resolved, f"/{command}"
            ),
        }
        if cmd.get("guild_id"):
            data["guild_id"] = cmd["guild_id"]
        if resolved:
            data["resolved"] = resolved
        return await self._deliver(self._new_interaction(user, ch, APPLICATION_COMMAND, data, None))

    async def _component(
        self, user: SimUser, message: Any, custom_id: str, values: list[Any] | None
    ) -> InteractionRecord:
        msg = self._resolve_message(message)
        if msg.deleted:
            raise NotVisibleError(f"message {msg.id} was deleted")
        if not msg.visible_for(user.id):
            raise NotVisibleError(
                f"{user.name} cannot see message {msg.id} (ephemeral for user {msg.visible_to})"
            )
        comp = msg.component(custom_id)
        if comp is None:
            raise ComponentNotFoundError(
                f"no component {custom_id!r} on message {msg.id}; has {msg.custom_ids}"
            )
        if comp.get("disabled"):
            raise ComponentNotFoundError(f"component {custom_id!r} on message {msg.id} is disabled")
        ctype = comp["type"]
        data: dict[str, Any] = {"custom_id": custom_id, "component_type": ctype}
        if values is None:
            if ctype != 2 or comp.get("style") in (5, 6):
                raise ComponentNotFoundError(
                    f"{custom_id!r} is not a pressable button (type {ctype})"
                )
        else:
            if ctype not in SELECT_TYPES:
                raise ComponentNotFoundError(f"{custom_id!r} is not a select menu (type {ctype})")
            lo, hi = comp.get("min_values", 1), comp.get("max_values", 1)
            if not lo <= len(values) <= hi:
                raise FakeDiscordError(
                    f"select {custom_id!r} takes {lo}..{hi} values, got {len(values)}"
                )
            resolved: dict[str, Any] = {}
            if ctype == 3:
                allowed = [o["value"] for o in comp.get("options") or []]
                bad = [v for v in values if v not in allowed]
                if bad:
                    raise FakeDiscordError(
                        f"select {custom_id!r}: {bad} not among options {allowed}"
                    )
                data["values"] = [str(v) for v in values]
            else:
                kind = {5: 6, 6: 8, 7: 9, 8: 7}[ctype]
                data["values"] = [
                    self._resolve_value(
                        {"type": kind, "name": custom_id}, v, resolved, f"select {custom_id!r}"
                    )
                    for v in values
                ]
                data["resolved"] = resolved
        ch = self.channels[msg.channel_id]
        return await self._deliver(self._new_interaction(user, ch, MESSAGE_COMPONENT, data, msg))

    async def _modal_submit(
        self, user: SimUser, record: InteractionRecord, values: dict[str, Any]
    ) -> InteractionRecord:
        modal = record.modal
        if modal is None:
            raise FakeDiscordError(f"the bot did not open a modal for {record.describe()}")
        if record.user != user:
            raise NotVisibleError(f"the modal was shown to {record.user.name}, not {user.name}")
        seen: set[str] = set()

        def submit(comp: Mapping[str, Any]) -> dict[str, Any]:
            cid = comp.get("custom_id")
            out: dict[str, Any] = {"type": comp["type"], "id": comp.get("id", 0)}
            if cid is None:
                if comp["type"] == 10:
                    out["content"] = comp.get("content", "")
                return out
            seen.add(cid)
            out["custom_id"] = cid
            if comp["type"] == 4:
                val = values.get(cid, comp.get("value") or "")
                if comp.get("required", True) and not val:
                    raise FakeDiscordError(f"modal text input {cid!r} is required")
                out["value"] = str(val)
            else:
                out["values"] = [str(v) for v in values.get(cid, [])]
            return out

        comps: list[dict[str, Any]] = []
        for top in modal.get("components") or []:
            if top.get("type") == 1:
                comps.append(
                    {
                        "type": 1,
                        "id": top.get("id", 0),
                        "components": [submit(c) for c in top.get("components") or []],
                    }
                )
            elif top.get("type") == 18:
                comps.append(
                    {"type": 18, "id": top.get("id", 0), "component": submit(top["component"])}
                )
            elif top.get("type") == 10:
                comps.append(submit(top))
        unknown = sorted(set(values) - seen)
        if unknown:
            raise ComponentNotFoundError(
                f"modal {modal.get('custom_id')!r} has no input(s) {unknown}"
            )
        data = {"custom_id": modal["custom_id"], "components": comps}
        src = self.get_message(record.source_message_id) if record.source_message_id else None
        ch = self.channels[record.channel_id]
        return await self._deliver(self._new_interaction(user, ch, MODAL_SUBMIT, data, src))

    # ================================================================= REST: callbacks

    _ALLOWED_CALLBACKS: ClassVar[dict[int, set[int]]] = {
        APPLICATION_COMMAND: {CB_MESSAGE, CB_DEFERRED_MESSAGE, CB_MODAL, CB_LAUNCH_ACTIVITY},
        MESSAGE_COMPONENT: {
            CB_MESSAGE,
            CB_DEFERRED_MESSAGE,
            CB_DEFERRED_UPDATE,
            CB_UPDATE_MESSAGE,
            CB_MODAL,
            CB_LAUNCH_ACTIVITY,
        },
        AUTOCOMPLETE: {CB_AUTOCOMPLETE},
        MODAL_SUBMIT: {CB_MESSAGE, CB_DEFERRED_MESSAGE, CB_DEFERRED_UPDATE, CB_UPDATE_MESSAGE},
    }

    @route("POST", "/interactions/{interaction_id}/{token:[^/]+}/callback")
    async def h_callback(self, req: Req) -> tuple[int, Any]:
        rec = self._interactions.get(int(req.params["interaction_id"]))
        if rec is None or rec.token != req.params["token"]:
            raise ApiError(404, 10062, "Unknown interaction")
        latency = time.monotonic() - (rec.dispatched_mono or time.monotonic())
        body = req.json if isinstance(req.json, dict) else {}
        ctype = int(body.get("type") or 0)
        data = body.get("data") or {}

        def reject(status: int, code: int, message: str) -> ApiError:
            rec.callbacks.append(CallbackRecord(ctype, data, latency, status, code))
            return ApiError(status, code, message)

        if rec.late or latency > self.ack_deadline:
            if not rec.late:
                rec.late = True
                self.late_acks.append(rec)
            raise reject(404, 10062, "Unknown interaction")
        if rec.accepted is not None:
            self.double_acks.append(rec)
            raise reject(400, 40060, "Interaction has already been acknowledged.")
        allowed = set(self._ALLOWED_CALLBACKS.get(rec.type, set()))
        if rec.type == MODAL_SUBMIT and rec.source_message_id is None:
            allowed -= {CB_DEFERRED_UPDATE, CB_UPDATE_MESSAGE}
        if ctype not in allowed:
            self.invalid_bodies.append(f"callback type {ctype} not allowed for {rec.describe()}")
            raise reject(400, 50035, "Invalid Form Body")
        if ctype == CB_LAUNCH_ACTIVITY and not self.activities_enabled:
            raise reject(400, 50234, "The application does not have Activities enabled")

        message: StoredMessage | None = None
        try:
            if ctype == CB_MESSAGE:
                message = self._interaction_message(
                    rec, "response", data, req.files, what=f"callback type 4 for {rec.describe()}"
                )
            elif ctype == CB_DEFERRED_MESSAGE:
                message = self._interaction_message(
                    rec, "response", {"flags": data.get("flags", 0)}, [], extra_flags=FLAG_LOADING
                )
            elif ctype in (CB_DEFERRED_UPDATE, CB_UPDATE_MESSAGE):
                message = self.get_message(rec.source_message_id)
                if message is None or message.deleted:
                    raise ApiError(404, 10008, "Unknown Message")
                if ctype == CB_UPDATE_MESSAGE:
                    self._edit_message(
                        message, data, req.files, what=f"callback type 7 for {rec.describe()}"
                    )
            elif ctype == CB_MODAL:
                if not data.get("custom_id") or not data.get("title"):
                    raise self._invalid(
                        f"modal for {rec.describe()}", ["modal needs custom_id and title"]
                    )
                rec.modal = data
            elif ctype == CB_AUTOCOMPLETE:
                rec.autocomplete_choices = list(data.get("choices") or [])
        except ApiError as exc:
            raise reject(exc.status, exc.code, exc.message) from None
        if message is not None:
            rec.original_message_id = message.id
        with_response = req.query.get("with_response", "0") not in ("0", "false", "False")
        rec.callbacks.append(CallbackRecord(ctype, data, latency, 200 if with_response else 204))
        self._notify()
        if not with_response:
            return 204, None
        interaction: dict[str, Any] = {"id": str(rec.id), "type": rec.type}
        resource: dict[str, Any] = {"type": ctype}
        if message is not None and ctype != CB_DEFERRED_UPDATE:
            interaction.update(
                {
                    "response_message_id": str(message.id),
                    "response_message_loading": ctype == CB_DEFERRED_MESSAGE,
                    "response_message_ephemeral": message.ephemeral,
                }
            )
            resource["message"] = message.payload()
        return 200, {"interaction": interaction, "resource": resource}

    def _interaction_message(
        self,
        rec: InteractionRecord,
        created_by: str,
        body: Body,
        files: Files,
        *,
        extra_flags: int = 0,
        what: str = "",
    ) -> StoredMessage:
        """A response or followup (``created_by``) to ``rec``, in its channel; only its user
        sees it if it is ephemeral."""
        return self._create_message(
            rec.channel_id,
            body,
            files,
            created_by=created_by,
            visible_to=rec.user.id,
            extra_flags=extra_flags,
            interaction=rec,
            what=what,
        )
