"""The few texts only the Telegram adapter shows (deep links, private chat, command menu).

Everything about the game comes from the service's catalogs (bot/i18n); these are the
Telegram-specific words around them, in the same five languages, English as the fallback.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bot.service.i18n import DEFAULT_LANGUAGE, LANGUAGE_NAMES, LANGUAGES

_TEXTS: dict[str, dict[str, str]] = {
    "en": {
        "link_button": "📬 Pieces by DM",
        "inline_hint": "To choose here, type @{bot} and pick from the list.",
        "join_link": "{text} Tap «📬 Pieces by DM» once to get your pieces privately "
        "(until then, My piece shows them).",
        "join_link_many": "{names}: tap «📬 Pieces by DM» once to get your pieces privately "
        "(until then, My piece shows them).",
        "welcome": "Hi! I deal Gnav in Telegram groups: add me to a group and send /gnav "
        "there to open a table. Your pieces come to this chat, privately.",
        "linked": "✅ Linked: your pieces for the Gnav table in «{title}» come to this chat.",
        "linked_untitled": "✅ Linked: your Gnav pieces come to this chat.",
        "not_linked": "Your Gnav pieces come to this chat once you sit at a table: press "
        "Join on a table in your group.",
        "group_only": "Gnav is played in a group: add me to a group and send /gnav there. "
        "This private chat is where your pieces arrive.",
        "anonymous": "Please write as yourself: anonymous admins and channels cannot sit "
        "at a Gnav table.",
        "kick_usage": "Usage: /gnav_kick NAME, or reply to one of the player's messages "
        "with /gnav_kick.",
        "languages": "Languages: {choices}. For example: /gnav_language nb",
        "failed": "Something went wrong; please try again.",
        "old_button": "That message is too old: send /gnav to show the table again.",
        "cmd.gnav": "Open a Gnav table here (or show it)",
        "cmd.karnaval": "Open a Karnaval table here (or show it)",
        "cmd.gnav_new": "Open a new table (or show the current one)",
        "cmd.gnav_join": "Sit down at the table",
        "cmd.gnav_leave": "Leave the table (forfeit during a match)",
        "cmd.gnav_start": "Start the match (host or admin)",
        "cmd.gnav_stop": "Stop the table (host or admin)",
        "cmd.gnav_kick": "Remove a player: NAME, or reply to them",
        "cmd.gnav_settings": "Show or change settings: lives=5 timeout=90",
        "cmd.gnav_rules": "The rules of Gnav",
        "cmd.gnav_stats": "Your Gnav statistics in this chat",
        "cmd.gnav_top": "The best players of this chat",
        "cmd.gnav_export": "The match record as a file",
        "cmd.gnav_language": "Announcement language: en, nb, ru, pt, de",
        "cmd.gnav_help": "How to play Gnav here",
        "cmd.start": "Get your pieces in this chat",
    },
    "nb": {
        "link_button": "📬 Brikker privat",
        "inline_hint": "For å velge her: skriv @{bot} og velg fra lista.",
        "join_link": "{text} Trykk «📬 Brikker privat» én gang for å få brikkene dine privat "
        "(til da viser Min brikke dem).",
        "join_link_many": "{names}: trykk «📬 Brikker privat» én gang for å få brikkene dine "
        "privat (til da viser Min brikke dem).",
        "welcome": "Hei! Jeg deler ut Gnav i Telegram-grupper: legg meg til i en gruppe og "
        "send /gnav der for å åpne et bord. Brikkene dine kommer hit, privat.",
        "linked": "✅ Koblet: brikkene dine ved Gnav-bordet i «{title}» kommer hit.",
        "linked_untitled": "✅ Koblet: Gnav-brikkene dine kommer hit.",
        "not_linked": "Gnav-brikkene dine kommer hit når du sitter ved et bord: trykk "
        "Bli med ved et bord i gruppen din.",
        "group_only": "Gnav spilles i en gruppe: legg meg til i en gruppe og send /gnav der. "
        "Her i privatchatten kommer brikkene dine.",
        "anonymous": "Skriv som deg selv: anonyme administratorer og kanaler kan ikke sitte "
        "ved et Gnav-bord.",
        "kick_usage": "Bruk: /gnav_kick NAVN, eller svar på en melding fra spilleren med "
        "/gnav_kick.",
        "languages": "Språk: {choices}. For eksempel: /gnav_language nb",
        "failed": "Noe gikk galt; prøv igjen.",
        "old_button": "Meldingen er for gammel: send /gnav for å vise bordet igjen.",
        "cmd.gnav": "Åpne et Gnav-bord her (eller vis det)",
        "cmd.karnaval": "Åpne et Karnaval-bord her (eller vis det)",
        "cmd.gnav_new": "Åpne et nytt bord (eller vis det som er åpent)",
        "cmd.gnav_join": "Sett deg ved bordet",
        "cmd.gnav_leave": "Forlat bordet (gir opp under en kamp)",
        "cmd.gnav_start": "Start kampen (vert eller admin)",
        "cmd.gnav_stop": "Stopp bordet (vert eller admin)",
        "cmd.gnav_kick": "Fjern en spiller: NAVN, eller svar på meldingen",
        "cmd.gnav_settings": "Vis eller endre innstillinger: lives=5 timeout=90",
        "cmd.gnav_rules": "Reglene for Gnav",
        "cmd.gnav_stats": "Din Gnav-statistikk i denne chatten",
        "cmd.gnav_top": "De beste spillerne i denne chatten",
        "cmd.gnav_export": "Kampprotokollen som fil",
        "cmd.gnav_language": "Språk for kunngjøringer: en, nb, ru, pt, de",
        "cmd.gnav_help": "Slik spiller du Gnav her",
        "cmd.start": "Få brikkene dine i denne chatten",
    },
    "ru": {
        "link_button": "📬 Фишки в личку",
        "inline_hint": "Чтобы выбрать здесь, наберите @{bot} и выберите из списка.",
        "join_link": "{text} Нажмите «📬 Фишки в личку» один раз, чтобы получать свои фишки "
        "лично (пока что их показывает «Моя фишка»).",
        "join_link_many": "{names}: нажмите «📬 Фишки в личку» один раз, чтобы получать свои "
        "фишки лично (пока что их показывает «Моя фишка»).",
        "welcome": "Привет! Я раздаю Gnav в группах Telegram: добавьте меня в группу и "
        "отправьте там /gnav, чтобы открыть стол. Ваши фишки будут приходить сюда, лично.",
        "linked": "✅ Готово: ваши фишки за столом Gnav в «{title}» будут приходить сюда.",
        "linked_untitled": "✅ Готово: ваши фишки Gnav будут приходить сюда.",
        "not_linked": "Ваши фишки Gnav будут приходить сюда, когда вы сядете за стол: "
        "нажмите «Сесть» у стола в вашей группе.",
        "group_only": "В Gnav играют в группе: добавьте меня в группу и отправьте там /gnav. "
        "В этот личный чат приходят ваши фишки.",
        "anonymous": "Пишите от своего имени: анонимные администраторы и каналы не могут "
        "сесть за стол Gnav.",
        "kick_usage": "Использование: /gnav_kick ИМЯ или ответьте на сообщение игрока "
        "командой /gnav_kick.",
        "languages": "Языки: {choices}. Например: /gnav_language ru",
        "failed": "Что-то пошло не так; попробуйте ещё раз.",
        "old_button": "Сообщение слишком старое: отправьте /gnav, чтобы снова показать стол.",
        "cmd.gnav": "Открыть стол Gnav здесь (или показать его)",
        "cmd.karnaval": "Открыть стол Karnaval здесь (или показать его)",
        "cmd.gnav_new": "Открыть новый стол (или показать текущий)",
        "cmd.gnav_join": "Сесть за стол",
        "cmd.gnav_leave": "Выйти из-за стола (сдаться во время партии)",
        "cmd.gnav_start": "Начать партию (хозяин стола или админ)",
        "cmd.gnav_stop": "Остановить стол (хозяин стола или админ)",
        "cmd.gnav_kick": "Убрать игрока: ИМЯ или ответом на его сообщение",
        "cmd.gnav_settings": "Показать или изменить настройки: lives=5 timeout=90",
        "cmd.gnav_rules": "Правила Gnav",
        "cmd.gnav_stats": "Ваша статистика Gnav в этом чате",
        "cmd.gnav_top": "Лучшие игроки этого чата",
        "cmd.gnav_export": "Запись партии файлом",
        "cmd.gnav_language": "Язык объявлений: en, nb, ru, pt, de",
        "cmd.gnav_help": "Как играть в Gnav здесь",
        "cmd.start": "Получать свои фишки в этом чате",
    },
    "pt": {
        "link_button": "📬 Peças em privado",
        "inline_hint": "Para escolher aqui, escreva @{bot} e escolha na lista.",
        "join_link": "{text} Toque uma vez em «📬 Peças em privado» para receber as suas "
        "peças em privado (até lá, A minha peça mostra-as).",
        "join_link_many": "{names}: toquem uma vez em «📬 Peças em privado» para receber as "
        "vossas peças em privado (até lá, A minha peça mostra-as).",
        "welcome": "Olá! Dou as cartas de Gnav em grupos do Telegram: adicione-me a um grupo "
        "e envie /gnav lá para abrir uma mesa. As suas peças chegam a esta conversa, em privado.",
        "linked": "✅ Ligado: as suas peças da mesa de Gnav em «{title}» chegam a esta conversa.",
        "linked_untitled": "✅ Ligado: as suas peças de Gnav chegam a esta conversa.",
        "not_linked": "As suas peças de Gnav chegam a esta conversa quando se sentar a uma "
        "mesa: toque em Entrar numa mesa do seu grupo.",
        "group_only": "O Gnav joga-se num grupo: adicione-me a um grupo e envie /gnav lá. "
        "É nesta conversa privada que chegam as suas peças.",
        "anonymous": "Escreva em seu nome: administradores anónimos e canais não se podem "
        "sentar a uma mesa de Gnav.",
        "kick_usage": "Uso: /gnav_kick NOME, ou responda a uma mensagem do jogador com /gnav_kick.",
        "languages": "Línguas: {choices}. Por exemplo: /gnav_language pt",
        "failed": "Algo correu mal; tente outra vez.",
        "old_button": "Essa mensagem é demasiado antiga: envie /gnav para mostrar a mesa.",
        "cmd.gnav": "Abrir uma mesa de Gnav aqui (ou mostrá-la)",
        "cmd.karnaval": "Abrir uma mesa de Karnaval aqui (ou mostrá-la)",
        "cmd.gnav_new": "Abrir uma mesa nova (ou mostrar a atual)",
        "cmd.gnav_join": "Sentar-se à mesa",
        "cmd.gnav_leave": "Sair da mesa (desistir durante uma partida)",
        "cmd.gnav_start": "Começar a partida (anfitrião ou admin)",
        "cmd.gnav_stop": "Parar a mesa (anfitrião ou admin)",
        "cmd.gnav_kick": "Retirar um jogador: NOME, ou em resposta a ele",
        "cmd.gnav_settings": "Ver ou mudar definições: lives=5 timeout=90",
        "cmd.gnav_rules": "As regras do Gnav",
        "cmd.gnav_stats": "As suas estatísticas de Gnav nesta conversa",
        "cmd.gnav_top": "Os melhores jogadores desta conversa",
        "cmd.gnav_export": "O registo da partida num ficheiro",
        "cmd.gnav_language": "Língua dos anúncios: en, nb, ru, pt, de",
        "cmd.gnav_help": "Como jogar Gnav aqui",
        "cmd.start": "Receber as suas peças nesta conversa",
    },
    "de": {
        "link_button": "📬 Steine privat",
        "inline_hint": "Um hier zu wählen, tippe @{bot} und wähle aus der Liste.",
        "join_link": "{text} Tippe einmal auf «📬 Steine privat», um deine Steine privat zu "
        "bekommen (bis dahin zeigt Mein Stein sie).",
        "join_link_many": "{names}: Tippt einmal auf «📬 Steine privat», um eure Steine privat "
        "zu bekommen (bis dahin zeigt Mein Stein sie).",
        "welcome": "Hallo! Ich gebe Gnav in Telegram-Gruppen: Füge mich einer Gruppe hinzu und "
        "sende dort /gnav, um einen Tisch zu öffnen. Deine Steine kommen privat in diesen Chat.",
        "linked": "✅ Verbunden: Deine Steine vom Gnav-Tisch in «{title}» kommen in diesen Chat.",
        "linked_untitled": "✅ Verbunden: Deine Gnav-Steine kommen in diesen Chat.",
        "not_linked": "Deine Gnav-Steine kommen in diesen Chat, sobald du an einem Tisch sitzt: "
        "Drück Mitspielen an einem Tisch in deiner Gruppe.",
        "group_only": "Gnav wird in einer Gruppe gespielt: Füge mich einer Gruppe hinzu und sende "
        "dort /gnav. In diesem privaten Chat kommen deine Steine an.",
        "anonymous": "Bitte schreib als du selbst: Anonyme Admins und Kanäle können nicht an "
        "einem Gnav-Tisch sitzen.",
        "kick_usage": "So geht's: /gnav_kick NAME, oder antworte auf eine Nachricht des Spielers "
        "mit /gnav_kick.",
        "languages": "Sprachen: {choices}. Zum Beispiel: /gnav_language de",
        "failed": "Da ist etwas schiefgegangen; bitte versuch es noch einmal.",
        "old_button": "Diese Nachricht ist zu alt: Sende /gnav, um den Tisch wieder zu zeigen.",
        "cmd.gnav": "Hier einen Gnav-Tisch öffnen (oder zeigen)",
        "cmd.karnaval": "Hier einen Karnaval-Tisch öffnen (oder zeigen)",
        "cmd.gnav_new": "Einen neuen Tisch öffnen (oder den offenen zeigen)",
        "cmd.gnav_join": "Sich an den Tisch setzen",
        "cmd.gnav_leave": "Den Tisch verlassen (während einer Partie: aufgeben)",
        "cmd.gnav_start": "Die Partie starten (Gastgeber oder Admin)",
        "cmd.gnav_stop": "Den Tisch stoppen (Gastgeber oder Admin)",
        "cmd.gnav_kick": "Einen Spieler entfernen: NAME, oder als Antwort an ihn",
        "cmd.gnav_settings": "Einstellungen zeigen oder ändern: lives=5 timeout=90",
        "cmd.gnav_rules": "Die Regeln von Gnav",
        "cmd.gnav_stats": "Deine Gnav-Statistik in diesem Chat",
        "cmd.gnav_top": "Die besten Spieler dieses Chats",
        "cmd.gnav_export": "Das Protokoll der Partie als Datei",
        "cmd.gnav_language": "Sprache der Ansagen: en, nb, ru, pt, de",
        "cmd.gnav_help": "So spielt man hier Gnav",
        "cmd.start": "Deine Steine in diesem Chat bekommen",
    },
}

#: Commands shown in group chats' menus, in menu order.
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
    "gnav_help",
    "gnav_new",
    "karnaval",
)
#: Commands that open a table of one registered game: (command, game).
GAME_COMMANDS: tuple[tuple[str, str], ...] = (("karnaval", "karnaval"),)
#: Commands shown in the private chat's menu.
PRIVATE_COMMANDS: tuple[str, ...] = ("start", "gnav_help", "gnav_rules")


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
