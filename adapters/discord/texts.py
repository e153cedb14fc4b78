"""The few texts only the Discord adapter shows, in the languages of the catalogs.

Everything about the game comes from the service's catalogs (bot/i18n). These answers go to
one person only (ephemeral), so they follow that person's Discord language, English otherwise.
"""

from __future__ import annotations

from typing import Any

import discord

_TEXTS: dict[str, dict[str, str]] = {
    "en": {
        "cannot_post": "I cannot post in this channel: give my role View Channel and Send "
        "Messages here (Send Messages in Threads in a thread), then try again.",
        "failed": "Something went wrong; please try again.",
        "kick_usage": "Name the player to remove: /gnav kick player:NAME, or member:@someone.",
    },
    "nb": {
        "cannot_post": "Jeg kan ikke skrive i denne kanalen: gi rollen min «Se kanal» og "
        "«Send meldinger» her («Send meldinger i tråder» i en tråd), og prøv igjen.",
        "failed": "Noe gikk galt; prøv igjen.",
        "kick_usage": "Si hvem som skal fjernes: /gnav kick player:NAVN, eller member:@noen.",
    },
    "ru": {
        "cannot_post": "Я не могу писать в этом канале: дайте моей роли права «Просматривать "
        "канал» и «Отправлять сообщения» (в ветке — «Отправлять сообщения в ветках») и "
        "попробуйте снова.",
        "failed": "Что-то пошло не так; попробуйте ещё раз.",
        "kick_usage": "Укажите, кого убрать: /gnav kick player:ИМЯ или member:@участник.",
    },
    "pt": {
        "cannot_post": "Não consigo escrever neste canal: dê ao meu cargo as permissões «Ver "
        "canal» e «Enviar mensagens» aqui («Enviar mensagens em tópicos» num tópico) e tente "
        "de novo.",
        "failed": "Algo correu mal; tente de novo.",
        "kick_usage": "Diga quem retirar: /gnav kick player:NOME, ou member:@alguém.",
    },
    "de": {
        "cannot_post": "Ich kann in diesem Kanal nicht schreiben: Gib meiner Rolle hier «Kanal "
        "ansehen» und «Nachrichten senden» («Nachrichten in Threads senden» in einem Thread) und "
        "versuch es noch einmal.",
        "failed": "Da ist etwas schiefgegangen; bitte versuch es noch einmal.",
        "kick_usage": "Nenne, wen du entfernen willst: /gnav kick player:NAME, oder "
        "member:@jemand.",
    },
}

#: Discord client languages that have a catalog of ours (Discord has no European Portuguese).
_BY_LOCALE: dict[str, str] = {"no": "nb", "ru": "ru", "pt-BR": "pt", "de": "de"}


def language_of(locale: discord.Locale | str | None) -> str:
    """Our language for a Discord locale (English when we have none closer)."""
    return _BY_LOCALE.get(str(locale), "en")


def catalog_language(locale: discord.Locale | str | None) -> str | None:
    """The catalog language a Discord locale is, if it is one of ours (for the service)."""
    name = str(locale)
    return "en" if name.startswith("en-") else _BY_LOCALE.get(name)


def text(key: str, locale: discord.Locale | str | None, **params: Any) -> str:
    """The adapter's text `key` in the language of `locale`."""
    messages = _TEXTS[language_of(locale)]
    return messages.get(key, _TEXTS["en"][key]).format(**params)
