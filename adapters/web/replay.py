"""Replays on the web: a finished match's frames as a page (docs/web.md, "Replays").

The frames come from the service (`TableService.replay_frames`, folded by the game from the
match record); this module only wraps them in the page. `replay_html(frames, inline=True)` is
`gnav-bot replay --html`: one self-contained file (styles, script and frames inlined) that
works offline.
"""

from __future__ import annotations

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


def replay_html(frames: dict[str, Any], *, inline: bool) -> str:
    """The replay page of `frames`; `inline`: one file with the styles and script in it."""
    title = html.escape(str(frames.get("title") or "gnav-bot replay"))
    data = f"<script>window.GNAV_REPLAY = {_script_json(frames)};</script>"
    if inline:
        style = f"<style>{static_text('table.css')}</style>"
        script = f'<script type="module">{static_text("table.js")}</script>'
    else:
        style = '<link rel="stylesheet" href="/static/table.css">'
        script = '<script type="module" src="/static/table.js"></script>'
    return (
        '<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{title}</title>\n{style}\n{data}\n{script}\n</head>\n"
        '<body>\n<main id="app"></main>\n</body>\n</html>\n'
    )
