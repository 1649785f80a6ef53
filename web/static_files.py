"""The page and its static files, served from memory, gzip-compressed once.

``web/static/`` is small (HTML, JavaScript modules, CSS, card art): each file is read on first
use (every file system call in a thread, never on the event loop), kept with its gzip form and
an ETag, and served with ``Cache-Control: no-cache`` (the browser revalidates: ``304 Not
Modified`` when the ETag still matches), gzip when the browser accepts it.  Paths are resolved
inside the static folder only: ``..``, hidden files and anything outside it are 404.

Until the page's own ``table.html`` exists, ``/table`` serves :data:`PLACEHOLDER`, a page
without any script that says so.
"""

from __future__ import annotations

import asyncio
import gzip
import hashlib
import mimetypes
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path

from aiohttp import web

__all__ = ["PLACEHOLDER", "STATIC_DIR", "StaticFiles"]

#: The page's files (``web/static/``, written by the page's own tests and art).
STATIC_DIR = Path(__file__).with_name("static")
#: ``/table`` when there is no ``table.html``: no script, no style (the CSP allows neither
#: inline).
PLACEHOLDER = (
    b'<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Durak</title>'
    b"</head><body><p>The web table's page is not installed.</p></body></html>"
)

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
class _File:
    body: bytes
    gz: bytes | None
    etag: str
    content_type: str
    mtime_ns: int


def _load(path: Path) -> _File:
    body = path.read_bytes()
    suffix = path.suffix.lower()
    gz = gzip.compress(body, 9, mtime=0) if suffix in _COMPRESS and len(body) > 256 else None
    if gz is not None and len(gz) >= len(body):
        gz = None
    content_type = _TYPES.get(suffix) or mimetypes.guess_type(path.name)[0]
    return _File(
        body,
        gz,
        '"' + hashlib.sha256(body).hexdigest()[:20] + '"',
        content_type or "application/octet-stream",
        path.stat().st_mtime_ns,
    )


class StaticFiles:
    """Serves ``/table`` and ``/static/{path}`` from ``root`` (see the module docstring)."""

    def __init__(self, root: Path = STATIC_DIR) -> None:
        self.root = root.resolve()
        self._cache: dict[Path, _File] = {}

    def resolve(self, name: str) -> Path | None:
        """The file ``name`` names inside the static folder, or ``None``."""
        parts = name.split("/")
        if not name or any(p in ("", ".", "..") or p.startswith(".") for p in parts):
            return None
        path = (self.root / name).resolve()
        if not path.is_relative_to(self.root) or not path.is_file():
            return None
        return path

    def _lookup(self, name: str) -> _File | None:
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

    async def file(self, name: str) -> _File | None:
        """``name``'s content, looked up off the event loop."""
        return await asyncio.get_running_loop().run_in_executor(None, self._lookup, name)

    async def static(self, request: web.Request) -> web.StreamResponse:
        """``GET /static/{path}``."""
        f = await self.file(request.match_info["path"])
        if f is None:
            raise web.HTTPNotFound()
        return self._respond(request, f)

    async def table(self, request: web.Request) -> web.StreamResponse:
        """``GET /table``: the page (its token is in the URL fragment, never sent here)."""
        f = await self.file("table.html")
        if f is None:
            return web.Response(body=PLACEHOLDER, content_type="text/html", charset="utf-8")
        return self._respond(request, f)

    def page(self, name: str) -> Callable[[web.Request], Awaitable[web.StreamResponse]]:
        """The handler of the HTML page ``name`` (404 without it)."""

        async def handler(request: web.Request) -> web.StreamResponse:
            f = await self.file(name)
            if f is None:
                raise web.HTTPNotFound()
            return self._respond(request, f)

        return handler

    @staticmethod
    def _respond(request: web.Request, f: _File) -> web.StreamResponse:
        headers = {"ETag": f.etag, "Cache-Control": "no-cache", "Vary": "Accept-Encoding"}
        if request.headers.get("If-None-Match") == f.etag:
            return web.Response(status=304, headers=headers)
        body = f.body
        if f.gz is not None and "gzip" in request.headers.get("Accept-Encoding", ""):
            body = f.gz
            headers["Content-Encoding"] = "gzip"
        headers["Content-Type"] = f.content_type
        return web.Response(body=body, headers=headers)

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
