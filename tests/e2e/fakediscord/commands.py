"""Application commands: what the bot registers (bulk overwrite, create, edit, delete;
global and per guild; an Activity's Entry Point), and the options of a slash command a
simulated user runs, checked against what was registered."""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from .channels import Channels
from .core import ALL_PERMISSIONS
from .models import (
    PRIMARY_ENTRY_POINT,
    ApiError,
    CommandNotRegisteredError,
    FakeDiscordError,
    SimUser,
)
from .rest import Req, route


class Commands(Channels):
    """The application's commands, global and of this guild."""

    def _cmd_store(self, req: Req) -> tuple[str | None, dict[tuple[str, int], dict[str, Any]]]:
        """The commands a request is about, once its application (and guild) are checked: the
        guild id (None: global) and those commands by (name, type)."""
        self._check_app(req.params["app_id"])
        guild_id = req.params.get("guild_id")
        if guild_id is None:
            return None, self._global_commands
        self._check_guild(guild_id)
        return guild_id, self._guild_commands

    def _make_command(self, body: dict[str, Any], guild_id: str | None) -> dict[str, Any]:
        if not isinstance(body, dict) or not body.get("name"):
            raise self._invalid("application command", ["command without a name"])
        ctype = int(body.get("type", 1))
        key = (guild_id, body["name"], ctype)
        cid = self._command_ids.setdefault(key, self._ids.next())
        cmd = copy.deepcopy(body)
        cmd.update(
            {
                "id": str(cid),
                "application_id": str(self.application_id),
                "type": ctype,
                "version": str(self._ids.next()),
                "description": body.get("description", ""),
            }
        )
        cmd.setdefault("default_member_permissions", None)
        cmd.setdefault("nsfw", False)
        if guild_id is not None:
            cmd["guild_id"] = str(guild_id)
        return cmd

    def enable_activities(self, name: str = "launch") -> dict[str, Any]:
        """Turn Activities on for the application, as the Developer Portal does: Discord makes
        a global Entry Point command (type 4) that a bulk overwrite must keep (else 400
        50240), and interactions may answer with LAUNCH_ACTIVITY (12)."""
        self.activities_enabled = True
        cmd = self._make_command(
            {"name": name, "type": PRIMARY_ENTRY_POINT, "handler": 2, "description": ""}, None
        )
        self._global_commands[(name, PRIMARY_ENTRY_POINT)] = cmd
        return cmd

    @property
    def commands(self) -> list[dict[str, Any]]:
        """Every registered command (guild commands carry 'guild_id')."""
        return list(self._guild_commands.values()) + list(self._global_commands.values())

    def command(self, name: str) -> dict[str, Any] | None:
        """Registered top-level command by name (guild commands first, like Discord's client)."""
        for store in (self._guild_commands, self._global_commands):
            for (n, t), cmd in store.items():
                if n == name and t == 1:
                    return cmd
        return None

    @route("GET", "/applications/{app_id}/commands")
    @route("GET", "/applications/{app_id}/guilds/{guild_id}/commands")
    async def h_commands_get(self, req: Req) -> tuple[int, Any]:
        return 200, list(self._cmd_store(req)[1].values())

    @route("PUT", "/applications/{app_id}/commands")
    @route("PUT", "/applications/{app_id}/guilds/{guild_id}/commands")
    async def h_commands_put(self, req: Req) -> tuple[int, Any]:
        guild_id, store = self._cmd_store(req)
        body = req.json or []
        if not isinstance(body, list):
            raise self._invalid("bulk overwrite commands", ["body must be a list"])
        new = [self._make_command(c, guild_id) for c in body]
        keeps_entry = any(c["type"] == PRIMARY_ENTRY_POINT for c in new)
        had_entry = any(c["type"] == PRIMARY_ENTRY_POINT for c in store.values())
        if guild_id is None and had_entry and not keeps_entry:
            raise ApiError(400, 50240, "You cannot remove this app's Primary Entry Point command.")
        names = [(c["name"], c["type"]) for c in new]
        if len(set(names)) != len(names):
            raise self._invalid("bulk overwrite commands", [f"duplicate command names {names}"])
        store.clear()
        for c in new:
            store[(c["name"], c["type"])] = c
        return 200, new

    @route("POST", "/applications/{app_id}/commands")
    @route("POST", "/applications/{app_id}/guilds/{guild_id}/commands")
    async def h_commands_post(self, req: Req) -> tuple[int, Any]:
        guild_id, store = self._cmd_store(req)
        cmd = self._make_command(req.json, guild_id)
        existed = (cmd["name"], cmd["type"]) in store
        store[(cmd["name"], cmd["type"])] = cmd
        return (200 if existed else 201), cmd

    @route("GET PATCH DELETE", "/applications/{app_id}/commands/{command_id}")
    @route("GET PATCH DELETE", "/applications/{app_id}/guilds/{guild_id}/commands/{command_id}")
    async def h_command_one(self, req: Req) -> tuple[int, Any]:
        _guild_id, store = self._cmd_store(req)
        key = next((k for k, c in store.items() if c["id"] == req.params["command_id"]), None)
        if key is None:
            raise ApiError(404, 10063, "Unknown application command")
        if req.method == "DELETE":
            del store[key]
            return 204, None
        if req.method == "PATCH":
            store[key].update(req.json or {})
        return 200, store[key]

    # ================================================================= invoking a command

    def _find_command(self, name: str) -> dict[str, Any]:
        cmd = self.command(name)
        if cmd is None:
            known = sorted({c["name"] for c in self.commands}) or "none"
            raise CommandNotRegisteredError(
                f"/{name} is not registered (did the bot sync its command tree?); known: {known}"
            )
        return cmd

    def _resolve_value(
        self, opt: Mapping[str, Any], value: Any, resolved: dict[str, Any], where: str
    ) -> Any:
        otype = opt["type"]
        if otype == 3:
            if not isinstance(value, str):
                raise FakeDiscordError(f"{where}: expected a string, got {value!r}")
            if opt.get("min_length") is not None and len(value) < opt["min_length"]:
                raise FakeDiscordError(f"{where}: shorter than min_length {opt['min_length']}")
            if opt.get("max_length") is not None and len(value) > opt["max_length"]:
                raise FakeDiscordError(f"{where}: longer than max_length {opt['max_length']}")
        elif otype == 4:
            if isinstance(value, bool) or not isinstance(value, int):
                raise FakeDiscordError(f"{where}: expected an integer, got {value!r}")
        elif otype == 10:
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise FakeDiscordError(f"{where}: expected a number, got {value!r}")
        elif otype == 5:
            if not isinstance(value, bool):
                raise FakeDiscordError(f"{where}: expected a boolean, got {value!r}")
        elif otype in (6, 9) and (
            isinstance(value, SimUser)
            or int(getattr(value, "id", value)) in self.users
            or int(getattr(value, "id", value)) == self.bot_user_id
        ):
            uid = int(getattr(value, "id", value))
            if uid == self.bot_user_id:
                udata, mdata = self.bot_user_payload(), self.bot_member_payload()
            else:
                u = self.users[uid]
                udata, mdata = u.user_payload(), u.member_payload(with_permissions=True)
            mdata = {k: v for k, v in mdata.items() if k != "user"}
            resolved.setdefault("users", {})[str(uid)] = udata
            resolved.setdefault("members", {})[str(uid)] = mdata
            value = str(uid)
        elif otype == 7:
            ch = self._resolve_channel(value)
            resolved.setdefault("channels", {})[str(ch.id)] = {
                "id": str(ch.id),
                "name": ch.name,
                "type": ch.type,
                "permissions": str(ALL_PERMISSIONS),
                "parent_id": None,
                "position": ch.position,
                "nsfw": False,
                "flags": 0,
                "rate_limit_per_user": 0,
                "last_message_id": None,
                "topic": ch.topic,
            }
            value = str(ch.id)
        elif otype in (8, 9):
            rid = int(getattr(value, "id", value))
            if rid not in self.roles:
                raise FakeDiscordError(f"{where}: unknown user/role {value!r}")
            resolved.setdefault("roles", {})[str(rid)] = self.roles[rid]
            value = str(rid)
        elif otype == 6:
            raise FakeDiscordError(f"{where}: unknown user {value!r}")
        else:
            raise FakeDiscordError(f"{where}: option type {otype} is not supported by the fake")
        choices = opt.get("choices")
        if choices and value not in [c["value"] for c in choices]:
            raise FakeDiscordError(
                f"{where}: {value!r} is not one of the choices {[c['value'] for c in choices]}"
            )
        if otype in (4, 10):
            if opt.get("min_value") is not None and value < opt["min_value"]:
                raise FakeDiscordError(f"{where}: {value} < min_value {opt['min_value']}")
            if opt.get("max_value") is not None and value > opt["max_value"]:
                raise FakeDiscordError(f"{where}: {value} > max_value {opt['max_value']}")
        return value

    def _build_options(
        self,
        schema: list[dict[str, Any]],
        path: list[str],
        values: dict[str, Any],
        resolved: dict[str, Any],
        where: str,
    ) -> list[dict[str, Any]]:
        subs = [o for o in schema if o.get("type") in (1, 2)]
        if path:
            sub = next((o for o in subs if o["name"] == path[0]), None)
            if sub is None:
                raise CommandNotRegisteredError(
                    f"{where} has no subcommand {path[0]!r}; has {[o['name'] for o in subs]}"
                )
            return [
                {
                    "type": sub["type"],
                    "name": sub["name"],
                    "options": self._build_options(
                        sub.get("options") or [],
                        path[1:],
                        values,
                        resolved,
                        f"{where} {sub['name']}",
                    ),
                }
            ]
        if subs:
            raise FakeDiscordError(
                f"{where} needs a subcommand: one of {[o['name'] for o in subs]}"
            )
        by_name = {o["name"]: o for o in schema}
        unknown = sorted(set(values) - set(by_name))
        if unknown:
            raise CommandNotRegisteredError(
                f"{where} has no option(s) {unknown}; registered: {sorted(by_name)}"
            )
        missing = [o["name"] for o in schema if o.get("required") and o["name"] not in values]
        if missing:
            raise FakeDiscordError(f"{where}: required option(s) missing: {missing}")
        out = []
        for o in schema:  # Discord sends options in the registered order
            if o["name"] in values:
                value = self._resolve_value(o, values[o["name"]], resolved, f"{where} {o['name']}")
                out.append({"type": o["type"], "name": o["name"], "value": value})
        return out
