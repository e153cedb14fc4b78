"""The few texts only the Telegram adapter shows (deep links, private chat, command menu).

Everything about the game comes from the service's catalogs (bot/i18n); these are the
Telegram-specific words around them, in the same five languages, English as the fallback.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any

from bot.service.i18n import DEFAULT_LANGUAGE, LANGUAGE_NAMES, LANGUAGES

_TEXTS: dict[str, dict[str, str]] = {
    "en": {
        "link_button": "📬 Privately by DM",
        "inline_hint": "To choose here, type @{bot} and pick from the list.",
        "join_link": "{text} Tap «📬 Privately by DM» once to get what you hold privately (until "
        "then, the table's own button shows it).",
        "join_link_many": "{names}: tap «📬 Privately by DM» once to get what you hold privately "
        "(until then, the table's own button shows it).",
        "welcome": "Hi! I host table games in Telegram groups: add me to a group and send /gnav "
        "there to open a table. What you hold comes to this chat, privately.",
        "linked": "✅ Linked: what you hold at the table in «{title}» comes to this chat.",
        "linked_untitled": "✅ Linked: what you hold at your table comes to this chat.",
        "not_linked": "What you hold comes to this chat once you sit at a table: press Join on a "
        "table in your group.",
        "group_only": "The games are played in a group: add me to a group and send /gnav there. "
        "This private chat is where what you hold arrives.",
        "anonymous": "Please write as yourself: anonymous admins and channels cannot sit at a "
        "table.",
        "kick_usage": "Usage: /gnav_kick NAME, or reply to one of the player's messages with "
        "/gnav_kick.",
        "languages": "Languages: {choices}. For example: /gnav_language nb",
        "failed": "Something went wrong; please try again.",
        "old_button": "That message is too old: send /gnav to show the table again.",
        "cmd.gnav": "Open a table here (or show it)",
        "cmd.gnav_new": "Open a new table (or show the current one)",
        "cmd.gnav_join": "Sit down at the table",
        "cmd.gnav_leave": "Leave the table (forfeit during a match)",
        "cmd.gnav_start": "Start the match (host or admin)",
        "cmd.gnav_stop": "Stop the table (host or admin)",
        "cmd.gnav_kick": "Remove a player: NAME, or reply to them",
        "cmd.gnav_settings": "Show or change settings: timeout=90 bots=2",
        "cmd.gnav_rules": "The rules of the table's game",
        "cmd.gnav_stats": "Your statistics in this chat",
        "cmd.gnav_top": "The best players of this chat",
        "cmd.gnav_export": "The match record as a file",
        "cmd.gnav_sheet": "The whole score sheet of the table's game",
        "cmd.gnav_log": "The whole log of the round under way",
        "cmd.gnav_language": "Announcement language: en, nb, ru, pt, de",
        "cmd.gnav_help": "How to play here",
        "cmd.start": "Get what you hold in this chat",
        "cmd.game": "Open a {game} table here (or show it)",
    },
    "nb": {
        "link_button": "📬 Privat på DM",
        "inline_hint": "For å velge her: skriv @{bot} og velg fra lista.",
        "join_link": "{text} Trykk «📬 Privat på DM» én gang for å få det du har på hånden privat "
        "(til da viser bordets egen knapp det).",
        "join_link_many": "{names}: trykk «📬 Privat på DM» én gang for å få det dere har på "
        "hånden privat (til da viser bordets egen knapp det).",
        "welcome": "Hei! Jeg holder bordspill i Telegram-grupper: legg meg til i en gruppe og send "
        "/gnav der for å åpne et bord. Det du har på hånden kommer hit, privat.",
        "linked": "✅ Koblet: det du har på hånden ved bordet i «{title}» kommer hit.",
        "linked_untitled": "✅ Koblet: det du har på hånden ved bordet ditt kommer hit.",
        "not_linked": "Det du har på hånden ved et bord kommer hit når du har satt deg: trykk Bli "
        "med ved et bord i gruppen din.",
        "group_only": "Spillene spilles i en gruppe: legg meg til i en gruppe og send /gnav der. "
        "Her i privatchatten kommer det du har på hånden.",
        "anonymous": "Skriv som deg selv: anonyme administratorer og kanaler kan ikke sitte ved et "
        "bord.",
        "kick_usage": "Bruk: /gnav_kick NAVN, eller svar på en melding fra spilleren med "
        "/gnav_kick.",
        "languages": "Språk: {choices}. For eksempel: /gnav_language nb",
        "failed": "Noe gikk galt; prøv igjen.",
        "old_button": "Meldingen er for gammel: send /gnav for å vise bordet igjen.",
        "cmd.gnav": "Åpne et bord her (eller vis det)",
        "cmd.gnav_new": "Åpne et nytt bord (eller vis det som er åpent)",
        "cmd.gnav_join": "Sett deg ved bordet",
        "cmd.gnav_leave": "Forlat bordet (gir opp under en kamp)",
        "cmd.gnav_start": "Start kampen (vert eller admin)",
        "cmd.gnav_stop": "Stopp bordet (vert eller admin)",
        "cmd.gnav_kick": "Fjern en spiller: NAVN, eller svar på meldingen",
        "cmd.gnav_settings": "Vis eller endre innstillinger: timeout=90 bots=2",
        "cmd.gnav_rules": "Reglene for bordets spill",
        "cmd.gnav_stats": "Din statistikk i denne chatten",
        "cmd.gnav_top": "De beste spillerne i denne chatten",
        "cmd.gnav_export": "Kampprotokollen som fil",
        "cmd.gnav_sheet": "Hele poenglisten for bordets spill",
        "cmd.gnav_log": "Hele loggen for runden som pågår",
        "cmd.gnav_language": "Språk for kunngjøringer: en, nb, ru, pt, de",
        "cmd.gnav_help": "Slik spiller du her",
        "cmd.start": "Få det du har på hånden i denne chatten",
        "cmd.game": "Åpne et {game}-bord her (eller vis det)",
    },
    "ru": {
        "link_button": "📬 Лично в личку",
        "inline_hint": "Чтобы выбрать здесь, наберите @{bot} и выберите из списка.",
        "join_link": "{text} Нажмите «📬 Лично в личку» один раз, чтобы получать то, что у вас на "
        "руках, лично (пока что это показывает кнопка стола).",
        "join_link_many": "{names}: нажмите «📬 Лично в личку» один раз, чтобы получать то, что у "
        "вас на руках, лично (пока что это показывает кнопка стола).",
        "welcome": "Привет! Я веду настольные игры в группах Telegram: добавьте меня в группу и "
        "отправьте там /gnav, чтобы открыть стол. То, что у вас на руках, будет приходить сюда, "
        "лично.",
        "linked": "✅ Готово: то, что у вас на руках за столом в «{title}», будет приходить сюда.",
        "linked_untitled": "✅ Готово: то, что у вас на руках за вашим столом, будет приходить "
        "сюда.",
        "not_linked": "То, что у вас на руках, будет приходить сюда, когда вы сядете за стол: "
        "нажмите «Сесть» у стола в вашей группе.",
        "group_only": "В игры играют в группе: добавьте меня в группу и отправьте там /gnav. В "
        "этот личный чат приходит то, что у вас на руках.",
        "anonymous": "Пишите от своего имени: анонимные администраторы и каналы не могут сесть за "
        "стол.",
        "kick_usage": "Использование: /gnav_kick ИМЯ или ответьте на сообщение игрока командой "
        "/gnav_kick.",
        "languages": "Языки: {choices}. Например: /gnav_language ru",
        "failed": "Что-то пошло не так; попробуйте ещё раз.",
        "old_button": "Сообщение слишком старое: отправьте /gnav, чтобы снова показать стол.",
        "cmd.gnav": "Открыть стол здесь (или показать его)",
        "cmd.gnav_new": "Открыть новый стол (или показать текущий)",
        "cmd.gnav_join": "Сесть за стол",
        "cmd.gnav_leave": "Выйти из-за стола (сдаться во время партии)",
        "cmd.gnav_start": "Начать партию (хозяин стола или админ)",
        "cmd.gnav_stop": "Остановить стол (хозяин стола или админ)",
        "cmd.gnav_kick": "Убрать игрока: ИМЯ или ответом на его сообщение",
        "cmd.gnav_settings": "Показать или изменить настройки: timeout=90 bots=2",
        "cmd.gnav_rules": "Правила игры этого стола",
        "cmd.gnav_stats": "Ваша статистика в этом чате",
        "cmd.gnav_top": "Лучшие игроки этого чата",
        "cmd.gnav_export": "Запись партии файлом",
        "cmd.gnav_sheet": "Вся таблица очков игры этого стола",
        "cmd.gnav_log": "Весь журнал текущего раунда",
        "cmd.gnav_language": "Язык объявлений: en, nb, ru, pt, de",
        "cmd.gnav_help": "Как здесь играть",
        "cmd.start": "Получать то, что у вас на руках, в этом чате",
        "cmd.game": "Открыть стол {game} здесь (или показать его)",
    },
    "pt": {
        "link_button": "📬 Em privado por DM",
        "inline_hint": "Para escolher aqui, escreva @{bot} e escolha na lista.",
        "join_link": "{text} Toque uma vez em «📬 Em privado por DM» para receber o que tem na mão "
        "em privado (até lá, o botão da mesa mostra-o).",
        "join_link_many": "{names}: toquem uma vez em «📬 Em privado por DM» para receber o que "
        "têm na mão em privado (até lá, o botão da mesa mostra-o).",
        "welcome": "Olá! Organizo jogos de mesa em grupos do Telegram: adicione-me a um grupo e "
        "envie /gnav lá para abrir uma mesa. O que tem na mão chega a esta conversa, em privado.",
        "linked": "✅ Ligado: o que tem na mão na mesa em «{title}» chega a esta conversa.",
        "linked_untitled": "✅ Ligado: o que tem na mão na sua mesa chega a esta conversa.",
        "not_linked": "O que tem na mão chega a esta conversa quando se sentar a uma mesa: toque "
        "em Entrar numa mesa do seu grupo.",
        "group_only": "Os jogos jogam-se num grupo: adicione-me a um grupo e envie /gnav lá. É "
        "nesta conversa privada que chega o que tem na mão.",
        "anonymous": "Escreva em seu nome: administradores anónimos e canais não se podem sentar a "
        "uma mesa.",
        "kick_usage": "Uso: /gnav_kick NOME, ou responda a uma mensagem do jogador com /gnav_kick.",
        "languages": "Línguas: {choices}. Por exemplo: /gnav_language pt",
        "failed": "Algo correu mal; tente outra vez.",
        "old_button": "Essa mensagem é demasiado antiga: envie /gnav para mostrar a mesa.",
        "cmd.gnav": "Abrir uma mesa aqui (ou mostrá-la)",
        "cmd.gnav_new": "Abrir uma mesa nova (ou mostrar a atual)",
        "cmd.gnav_join": "Sentar-se à mesa",
        "cmd.gnav_leave": "Sair da mesa (desistir durante uma partida)",
        "cmd.gnav_start": "Começar a partida (anfitrião ou admin)",
        "cmd.gnav_stop": "Parar a mesa (anfitrião ou admin)",
        "cmd.gnav_kick": "Retirar um jogador: NOME, ou em resposta a ele",
        "cmd.gnav_settings": "Ver ou mudar definições: timeout=90 bots=2",
        "cmd.gnav_rules": "As regras do jogo da mesa",
        "cmd.gnav_stats": "As suas estatísticas nesta conversa",
        "cmd.gnav_top": "Os melhores jogadores desta conversa",
        "cmd.gnav_export": "O registo da partida num ficheiro",
        "cmd.gnav_sheet": "A folha de pontos inteira do jogo da mesa",
        "cmd.gnav_log": "O registo inteiro da ronda em curso",
        "cmd.gnav_language": "Língua dos anúncios: en, nb, ru, pt, de",
        "cmd.gnav_help": "Como jogar aqui",
        "cmd.start": "Receber o que tem na mão nesta conversa",
        "cmd.game": "Abrir uma mesa de {game} aqui (ou mostrá-la)",
    },
    "de": {
        "link_button": "📬 Privat per DM",
        "inline_hint": "Um hier zu wählen, tippe @{bot} und wähle aus der Liste.",
        "join_link": "{text} Tippe einmal auf «📬 Privat per DM», um privat zu bekommen, was du in "
        "der Hand hast (bis dahin zeigt es der Knopf am Tisch).",
        "join_link_many": "{names}: Tippt einmal auf «📬 Privat per DM», um privat zu bekommen, "
        "was ihr in der Hand habt (bis dahin zeigt es der Knopf am Tisch).",
        "welcome": "Hallo! Ich leite Tischspiele in Telegram-Gruppen: Füge mich einer Gruppe hinzu "
        "und sende dort /gnav, um einen Tisch zu öffnen. Was du in der Hand hast, kommt privat in "
        "diesen Chat.",
        "linked": "✅ Verbunden: Was du am Tisch in «{title}» in der Hand hast, kommt in diesen "
        "Chat.",
        "linked_untitled": "✅ Verbunden: Was du an deinem Tisch in der Hand hast, kommt in diesen "
        "Chat.",
        "not_linked": "Was du an einem Tisch in der Hand hast, kommt in diesen Chat, sobald du "
        "sitzt: Drück Mitspielen an einem Tisch in deiner Gruppe.",
        "group_only": "Die Spiele werden in einer Gruppe gespielt: Füge mich einer Gruppe hinzu "
        "und sende dort /gnav. In diesem privaten Chat kommt an, was du in der Hand hast.",
        "anonymous": "Bitte schreib als du selbst: Anonyme Admins und Kanäle können nicht an einem "
        "Tisch sitzen.",
        "kick_usage": "So geht's: /gnav_kick NAME, oder antworte auf eine Nachricht des Spielers "
        "mit /gnav_kick.",
        "languages": "Sprachen: {choices}. Zum Beispiel: /gnav_language de",
        "failed": "Da ist etwas schiefgegangen; bitte versuch es noch einmal.",
        "old_button": "Diese Nachricht ist zu alt: Sende /gnav, um den Tisch wieder zu zeigen.",
        "cmd.gnav": "Hier einen Tisch öffnen (oder zeigen)",
        "cmd.gnav_new": "Einen neuen Tisch öffnen (oder den offenen zeigen)",
        "cmd.gnav_join": "Sich an den Tisch setzen",
        "cmd.gnav_leave": "Den Tisch verlassen (während einer Partie: aufgeben)",
        "cmd.gnav_start": "Die Partie starten (Gastgeber oder Admin)",
        "cmd.gnav_stop": "Den Tisch stoppen (Gastgeber oder Admin)",
        "cmd.gnav_kick": "Einen Spieler entfernen: NAME, oder als Antwort an ihn",
        "cmd.gnav_settings": "Einstellungen zeigen oder ändern: timeout=90 bots=2",
        "cmd.gnav_rules": "Die Regeln des Spiels am Tisch",
        "cmd.gnav_stats": "Deine Statistik in diesem Chat",
        "cmd.gnav_top": "Die besten Spieler dieses Chats",
        "cmd.gnav_export": "Das Protokoll der Partie als Datei",
        "cmd.gnav_sheet": "Die ganze Spielliste des Spiels am Tisch",
        "cmd.gnav_log": "Das ganze Protokoll der laufenden Runde",
        "cmd.gnav_language": "Sprache der Ansagen: en, nb, ru, pt, de",
        "cmd.gnav_help": "So spielt man hier",
        "cmd.start": "Bekommen, was du in der Hand hast, in diesem Chat",
        "cmd.game": "Hier einen {game}-Tisch öffnen (oder zeigen)",
    },
}

#: Commands shown in group chats' menus, in menu order (each hosted game's own follow).
GROUP_COMMANDS: tuple[str, ...] = (
    "gnav",
    "gnav_join",
    "gnav_start",
    "gnav_leave",
    "gnav_stop",
    "gnav_kick",
    "gnav_settings",
    "gnav_language",
    "gnav_rules",
    "gnav_stats",
    "gnav_top",
    "gnav_export",
    "gnav_sheet",
    "gnav_log",
    "gnav_help",
    "gnav_new",
)


def game_commands(games: Iterable[str]) -> tuple[tuple[str, str], ...]:
    """The commands that open a table of one hosted game, (command, game), from the games the
    service hosts: `/<game>` for each, except a game whose name is already a command (`/gnav`
    opens the channel's own game)."""
    taken = {*GROUP_COMMANDS, *PRIVATE_COMMANDS}
    return tuple((g, g) for g in games if g not in taken and _COMMAND_NAME.fullmatch(g))


def command_text(language: str, command: str, games: Iterable[str] = ()) -> str:
    """A command's description in the menu: its own text, or a game's command's."""
    if command in games:
        return text(language, "cmd.game", game=command.capitalize())
    return text(language, f"cmd.{command}")


#: Commands shown in the private chat's menu.
PRIVATE_COMMANDS: tuple[str, ...] = ("start", "gnav_help", "gnav_rules")
#: What Telegram takes as a command name.
_COMMAND_NAME = re.compile(r"[a-z0-9_]{1,32}")


def language_of(code: str | None) -> str:
    """One of the supported languages for a Telegram language code ("nb-NO", "no", "ru"...)."""
    if not code:
        return DEFAULT_LANGUAGE
    base = code.lower().replace("_", "-").split("-")[0]
    if base in ("no", "nn"):
        base = "nb"  # Norwegian speakers read bokmål
    return base if base in LANGUAGES else DEFAULT_LANGUAGE


def text(language: str, key: str, /, **params: Any) -> str:
    """The adapter text `key` in `language` (English when missing)."""
    template = _TEXTS.get(language, {}).get(key) or _TEXTS[DEFAULT_LANGUAGE][key]
    return template.format(**params)


def languages_line(language: str) -> str:
    """The list of table languages with their names."""
    choices = ", ".join(f"{code} ({LANGUAGE_NAMES[code]})" for code in LANGUAGES)
    return text(language, "languages", choices=choices)


def join_link_many(language: str, names: Sequence[str]) -> str:
    """One "pieces by DM" hint for several players who joined while replies waited."""
    return text(language, "join_link_many", names=", ".join(names))
