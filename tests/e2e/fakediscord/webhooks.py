"""Webhooks: what the bot does with an interaction's token after its callback (followups,
and reading, editing or deleting its response and followups), within the token's life."""

from __future__ import annotations

from typing import Any

from .interactions import Interactions
from .models import CB_DEFERRED_MESSAGE, ApiError, InteractionRecord
from .rest import Req, route


class Webhooks(Interactions):
    """The interaction webhooks of the application."""

    def _token_record(self, req: Req) -> InteractionRecord:
        rec = self._by_token.get(req.params["token"])
        if rec is None or int(req.params["app_id"]) != self.application_id:
            raise ApiError(404, 10015, "Unknown Webhook")
        if self.now() - rec.created_fake > self.token_ttl:
            self.expired_token_uses.append(f"{req.method} {req.path} ({rec.describe()})")
            raise ApiError(401, 50027, "Invalid Webhook Token")
        return rec

    @route("POST", "/webhooks/{app_id}/{token:[^/]+}")
    async def h_followup(self, req: Req) -> tuple[int, Any]:
        rec = self._token_record(req)
        if rec.accepted is None:
            raise ApiError(404, 10015, "Unknown Webhook")
        body = req.json if isinstance(req.json, dict) else {}
        orig = rec.original_message
        if (
            rec.accepted.type == CB_DEFERRED_MESSAGE
            and orig is not None
            and orig.loading
            and not orig.deleted
        ):
            # Discord: the first followup after a "thinking" defer replaces the loading message.
            msg = self._edit_message(
                orig, body, req.files, what=f"first followup for {rec.describe()}"
            )
        else:
            msg = self._interaction_message(
                rec, "followup", body, req.files, what=f"followup for {rec.describe()}"
            )
            rec.followup_ids.append(msg.id)
        if req.query.get("wait") in ("1", "true", "True"):
            return 200, msg.payload()
        return 204, None

    @route(
        "GET PATCH DELETE", r"/webhooks/{app_id}/{token:[^/]+}/messages/{message_id:@original|\d+}"
    )
    async def h_webhook_message(self, req: Req) -> tuple[int, Any]:
        rec = self._token_record(req)
        mid = req.params["message_id"]
        msg_id = rec.original_message_id if mid == "@original" else int(mid)
        allowed = {rec.original_message_id, *rec.followup_ids}
        msg = self.get_message(msg_id) if msg_id in allowed and msg_id is not None else None
        if msg is None or msg.deleted:
            raise ApiError(404, 10008, "Unknown Message")
        if req.method == "GET":
            return 200, msg.payload()
        if req.method == "DELETE":
            self._delete_message(msg)
            return 204, None
        self._edit_message(
            msg,
            req.json if isinstance(req.json, dict) else {},
            req.files,
            what=f"PATCH webhook message {mid} for {rec.describe()}",
        )
        return 200, msg.payload()
