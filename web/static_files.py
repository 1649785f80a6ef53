"""The pages' static files, served from memory, gzip-compressed once.

``web/static/`` is small (JavaScript modules, CSS, card art): each file is read on first use
(every file system call in a thread, never on the event loop), kept with its gzip form and an
ETag (:class:`Served`), and served with ``Cache-Control: no-cache`` (the browser revalidates:
``304 Not Modified`` when the ETag still matches), gzip when the browser accepts it
(:func:`respond`; the HTML pages of :mod:`web.pages` are served the same way).  Paths are
resolved inside the static folder only: ``..``, hidden files, a NUL byte and anything outside
it are 404.
"""

from __future__ import annotations

import asyncio
import gzip
import hashlib
import mimetypes
from dataclasses import dataclass
from pathlib import Path

from aiohttp import web

__all__ = ["STATIC_DIR", "Served", "StaticFiles", "respond", "served"]

#: The pages' files (``web/static/``).
STATIC_DIR = Path(__file__).with_name("static")

_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".mjs": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".svg": "image/svg+xml",
    ".json": "application/json",
    ".png": "image/png",
    ".webp": "image/webp",
    ".woff2": "font/woff2",
    ".txt": "text/plain; charset=utf-8",
    ".md": "text/plain; charset=utf-8",
}
#: Types worth compressing.
_COMPRESS = (".html", ".js", ".mjs", ".css", ".svg", ".json", ".txt", ".md")


@dataclass(frozen=True, slots=True)
class Served:
    """A response body ready to serve: its gzip form (``None``: not worth it), ETag and type;
    ``mtime_ns``: of the file it was read from."""

    body: bytes
    gz: bytes | None
    etag: str
    content_type: str
    mtime_ns: int = 0


def served(body: bytes, content_type: str, *, compress: bool = True, mtime_ns: int = 0) -> Served:
    """``body`` ready to serve (gzip-compressed when ``compress`` and it makes it smaller)."""
    gz = gzip.compress(body, 9, mtime=0) if compress and len(body) > 256 else None
    if gz is not None and len(gz) >= len(body):
        gz = None
    etag = '"' + hashlib.sha256(body).hexdigest()[:20] + '"'
    return Served(body, gz, etag, content_type, mtime_ns)


def respond(request: web.Request, f: Served, vary: str = "Accept-Encoding") -> web.Response:
    """``f`` as the answer to ``request``: ``304`` when its ETag matches, gzip when accepted."""
    headers = {"ETag": f.etag, "Cache-Control": "no-cache", "Vary": vary}
    if request.headers.get("If-None-Match") == f.etag:
        return web.Response(status=304, headers=headers)
    body = f.body
    if f.gz is not None and "gzip" in request.headers.get("Accept-Encoding", ""):
        body = f.gz
        headers["Content-Encoding"] = "gzip"
    headers["Content-Type"] = f.content_type
    return web.Response(body=body, headers=headers)


def _load(path: Path) -> Served:
    suffix = path.suffix.lower()
    content_type = _TYPES.get(suffix) or mimetypes.guess_type(path.name)[0]
    return served(
        path.read_bytes(),
        content_type or "application/octet-stream",
        compress=suffix in _COMPRESS,
        mtime_ns=path.stat().st_mtime_ns,
    )


class StaticFiles:
    """Serves ``/static/{path}`` from ``root`` (see the module docstring)."""

    def __init__(self, root: Path = STATIC_DIR) -> None:
        self.root = root.resolve()
        self._cache: dict[Path, Served] = {}

    def resolve(self, name: str) -> Path | None:
        """The file ``name`` names inside the static folder, or ``None``."""
        parts = name.split("/")
        if not name or "\x00" in name:
            return None
        if any(p in ("", ".", "..") or p.startswith(".") for p in parts):
            return None
        path = (self.root / name).resolve()
        if not path.is_relative_to(self.root) or not path.is_file():
            return None
        return path

    def _lookup(self, name: str) -> Served | None:
        """``name``'s content (``None``: no such file), from the cache while the file is
        unchanged.  File system calls: run it in a thread."""
        path = self.resolve(name)
        if path is None:
            return None
        cached = self._cache.get(path)
        if cached is not None and path.stat().st_mtime_ns == cached.mtime_ns:
            return cached
        loaded = self._cache[path] = _load(path)
        return loaded

    async def file(self, name: str) -> Served | None:
        """``name``'s content, looked up off the event loop."""
        return await asyncio.get_running_loop().run_in_executor(None, self._lookup, name)

    async def static(self, request: web.Request) -> web.StreamResponse:
        """``GET /static/{path}``."""
        f = await self.file(request.match_info["path"])
        if f is None:
            raise web.HTTPNotFound()
        return respond(request, f)

    def compressed_sizes(self, exclude: tuple[str, ...] = ()) -> dict[str, int]:
        """Every file's size as served to a browser that accepts gzip, by path (for the
        first-load figure of the benchmark); names starting with an ``exclude`` prefix are
        left out."""
        sizes: dict[str, int] = {}
        if not self.root.is_dir():
            return sizes
        for path in sorted(self.root.rglob("*")):
            name = path.relative_to(self.root).as_posix()
            if not path.is_file() or name.startswith(exclude) or "/." in "/" + name:
                continue
            f = _load(path)
            sizes[name] = len(f.gz if f.gz is not None else f.body)
        return sizes
