"""A message post or edit whose body is the newest state when it actually goes out.

discord.py answers a 429 by waiting ``retry_after`` and sending the same request again.  For
a message that shows a live state (the table), the body it was given may be stale by then.
:class:`LatestBody` is the request's multipart ``payload_json`` part: discord.py reads it again
on every try, so :meth:`LatestBody.update` during the wait changes what the retry sends, and
:attr:`LatestBody.sent` tells which version the last try carried.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from typing import Any, Generic, TypeVar, cast

import discord

__all__ = ["LatestBody", "payload_json", "send_latest"]

T = TypeVar("T")


def payload_json(
    kwargs: Mapping[str, Any], allowed_mentions: discord.AllowedMentions | None
) -> str:
    """The JSON body discord.py would send for a message's ``content``/``embeds``/``view``
    keyword arguments (:func:`cogs.presenter.message_kwargs`), with the client's
    ``allowed_mentions`` (as ``send`` and ``edit`` add them)."""
    params = discord.http.handle_message_parameters(
        **kwargs, previous_allowed_mentions=allowed_mentions
    )
    return json.dumps(params.payload, separators=(",", ":"), ensure_ascii=True)


class LatestBody(Mapping[str, Any], Generic[T]):
    """The ``payload_json`` field of a multipart request, read afresh by every try.

    ``what`` is the caller's record of the state the JSON shows (handed back as
    :attr:`sent`)."""

    def __init__(self, what: T, body: str) -> None:
        self._what, self._body = what, body
        #: The state the last try sent (``None`` before the first try).
        self.sent: T | None = None

    def update(self, what: T, body: str) -> None:
        """Send ``body`` (showing ``what``) from the next try on."""
        self._what, self._body = what, body

    @property
    def current(self) -> T:
        """The state the next try will send."""
        return self._what

    def __getitem__(self, key: str) -> Any:
        if key == "name":
            return "payload_json"
        if key == "content_type":  # makes the form multipart, as Discord wants it
            return "application/json"
        if key == "value":  # read once per try, when discord.py builds the form
            self.sent = self._what
            return self._body
        raise KeyError(key)

    def __iter__(self) -> Iterator[str]:
        return iter(("name", "content_type", "value"))

    def __len__(self) -> int:
        return 3


async def send_latest(
    http: discord.http.HTTPClient, route: discord.http.Route, body: LatestBody[Any]
) -> Any:
    """Send ``route`` with ``body`` as its only form part; discord.py's rate limits and
    retries apply, and each retry sends the body's newest version.  Returns the response's
    JSON (a message)."""
    form = cast(Any, [body])  # discord.py reads each part with ``**part``
    return await http.request(route, form=form)
