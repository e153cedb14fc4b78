"""Replays on the web: a finished match's frames as a page (docs/web.md, "Replays").

The frames come from the service (`TableService.replay_frames`, folded by the game from the
match record); this module only wraps them in the page. `replay_html(frames, inline=True)` is
`gnav-bot replay --html`: one self-contained file (styles, script and frames inlined) that
works offline.
"""

from __future__ import annotations

import base64
import html
from typing import Any

import orjson

from adapters.web.files import static_text


async def table_frames(service: Any, table_id: str) -> dict[str, Any] | None:
    """The replay frames of the finished match of the table `table_id` (None: none)."""
    frames: dict[str, Any] | None = await service.replay_frames(table_id)
    return frames


def _script_json(frames: dict[str, Any]) -> str:
    # Inside <script>: "</" must not close the element, whatever a name holds.
    return orjson.dumps(frames).decode().replace("</", "<\\/")


#: The icon inlined in a self-contained file (the server serves /favicon.ico itself).
def _icon_data() -> str:
    return "data:image/svg+xml;base64," + base64.b64encode(
        static_text("favicon.svg").encode()
    ).decode("ascii")


def replay_html(frames: dict[str, Any], *, inline: bool) -> str:
    """The replay page of `frames`; `inline`: one file with the styles, script and icon in it.
    The frames are a JSON data block (`type="application/json"`, never run), so the served
    page keeps the live page's strict Content-Security-Policy (no inline script)."""
    title = html.escape(str(frames.get("title") or "gnav-bot replay"))
    lang = html.escape(str(frames.get("language") or "en"), quote=True)
    data = f'<script type="application/json" id="replay">{_script_json(frames)}</script>'
    if inline:
        style = f"<style>{static_text('table.css')}</style>"
        script = f'<script type="module">{static_text("table.js")}</script>'
        icon = f'<link rel="icon" href="{_icon_data()}">'
    else:
        style = '<link rel="stylesheet" href="/static/table.css">'
        script = '<script type="module" src="/static/table.js"></script>'
        icon = '<link rel="icon" href="/static/favicon.svg" type="image/svg+xml">'
    return (
        f'<!doctype html>\n<html lang="{lang}">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{title}</title>\n{icon}\n{style}\n{data}\n{script}\n</head>\n"
        '<body>\n<main id="app"></main>\n</body>\n</html>\n'
    )
