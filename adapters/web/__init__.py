"""The web table: the bot's own page of every table (docs/web.md), served by aiohttp.

A Telegram Mini App inside Telegram, a plain page anywhere else. Like the chat adapters it only
translates: page views come from `TableService.page_view`, presses go to
`TableService.handle` as `Press` commands.
"""
