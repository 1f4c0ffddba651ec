"""The OpenAPI document describing this API, served at /openapi.yaml and /openapi.json.

The YAML file shipped with the package is the single source; a test walks the
running server's routes and answers against it, so the two cannot drift apart.
"""

from __future__ import annotations

import functools
import json
from importlib import resources
from typing import Any

import yaml
from aiohttp import web


@functools.cache
def openapi_text() -> str:
    return resources.files("xo_devnet.rest").joinpath("openapi.yaml").read_text(encoding="utf-8")


@functools.cache
def openapi_document() -> dict[str, Any]:
    return yaml.safe_load(openapi_text())


async def get_openapi_yaml(_request: web.Request) -> web.Response:
    return web.Response(text=openapi_text(), content_type="application/yaml", charset="utf-8")


async def get_openapi_json(_request: web.Request) -> web.Response:
    return web.Response(text=json.dumps(openapi_document(), indent=2), content_type="application/json", charset="utf-8")
