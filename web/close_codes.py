"""The WebSocket close codes the pages' protocol sends (what each means to the page, whether it
may reconnect: docs/WEB.md).  Here, apart, so that the socket plumbing
(:mod:`web.connection`) and the protocol (:mod:`web.protocol`) both read them without
importing each other."""

#: Close codes, each after an ``error`` frame that says why (docs/WEB.md): a bad, expired or
#: missing token, or no hello; no game (a table) or a closed room; too many frames; a frame
#: too big; a room closed for being idle; too many sockets from one address.  A socket from
#: another origin is refused before it opens (HTTP 403), and so are sockets past the ones an
#: address is being told it has too many of (HTTP 429: :func:`web.rooms.limits.limit_sockets`).
CLOSE_AUTH, CLOSE_GONE = 4001, 4004
CLOSE_RATE, CLOSE_TOO_BIG, CLOSE_IDLE, CLOSE_SOCKETS = 4008, 4009, 4010, 4029
#: The close code of a page that does not read its frames (no ``error`` frame: try again).
CLOSE_SLOW = 1013
