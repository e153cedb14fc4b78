"""Discord adapter: `/gnav` slash commands, persistent buttons and DMs over discord.py 2.x.

It translates only: interactions become `TableService` commands, service screens become channel
messages with buttons. `platform.DiscordPlatform` is what `gnav-bot run` starts.
"""
