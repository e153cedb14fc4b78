"""The Telegram adapter: python-telegram-bot 22 in front of the table service.

`platform.TelegramPlatform` is what `gnav-bot run` starts; `handlers` translate updates into
service commands, `notifier` translates service screens into Bot API calls, `keyboards`
builds inline keyboards and deep links, `texts` holds the few words only Telegram needs.
"""
