"""The page and its files: read once from the package data, served from memory, the token written into the page.

There is no build step: ``static/`` holds the HTML, the CSS and the JavaScript
modules as they are served. Only the files found there at start-up are served
(a fixed table, so no request path can reach anything else), each with its content
type stated rather than guessed from the system's MIME table (a module script
served as anything but JavaScript would not run). The run's token is written into
the page's ``<meta name="xo-token">``; the page is never cached, so the token of
an earlier run is never reused.
"""

from __future__ import annotations

from importlib import resources
from importlib.resources.abc import Traversable
from typing import Final, NamedTuple

from aiohttp import web

from xo_web.errors import NOT_FOUND, ApiError

INDEX: Final = "index.html"
TOKEN_PLACEHOLDER: Final = "{{token}}"
CONTENT_TYPES: Final = {
    ".html": "text/html; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".svg": "image/svg+xml",
}


class StaticFile(NamedTuple):
    body: bytes
    content_type: str


def load_static(root: Traversable | None = None) -> dict[str, StaticFile]:
    """Every file of known type under ``static/``, by its path there (``js/main.js``)."""
    found: dict[str, StaticFile] = {}

    def walk(folder: Traversable, prefix: str) -> None:
        for entry in folder.iterdir():
            if entry.is_dir():
                walk(entry, f"{prefix}{entry.name}/")
                continue
            suffix = entry.name[entry.name.rfind(".") :] if "." in entry.name else ""
            if suffix in CONTENT_TYPES:
                found[prefix + entry.name] = StaticFile(entry.read_bytes(), CONTENT_TYPES[suffix])

    walk(root if root is not None else resources.files("xo_web") / "static", "")
    return found


class Page:
    """Serves the page (with ``token``) at ``/`` and the other static files under ``/static/``."""

    def __init__(self, token: str, files: dict[str, StaticFile] | None = None) -> None:
        self.files = files if files is not None else load_static()
        template = self.files[INDEX].body.decode("utf-8")
        if TOKEN_PLACEHOLDER not in template:
            raise ValueError(f"{INDEX} has no {TOKEN_PLACEHOLDER} for the run's token")
        self.index_body = template.replace(TOKEN_PLACEHOLDER, token).encode("utf-8")

    async def index(self, _request: web.Request) -> web.Response:
        return web.Response(
            body=self.index_body,
            content_type="text/html",
            charset="utf-8",
            headers={"Cache-Control": "no-store"},
        )

    async def static(self, request: web.Request) -> web.Response:
        path = request.match_info["path"]
        found = self.files.get(path)
        if found is None or path == INDEX:
            raise ApiError(404, NOT_FOUND, "Not Found", f"there is no file /static/{path}")
        response = web.Response(body=found.body, headers={"Cache-Control": "no-cache"})
        response.headers["Content-Type"] = found.content_type
        return response
