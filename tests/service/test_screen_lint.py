"""A screen lint (issue 30, points 3, 5 and 6): whole games of every game (Gnav in both
profiles, Gnavspiel, Karnaval) in every language, played through the service by one seated
person (random legal choices, so private screens exist) and two bot seats, every text the
service produces collected and checked as a player would read it.

Collected: every screen the service stages in its outbox, in order (table messages posted and
edited, their frozen versions, other posts, private screens and private lines), with their
button labels; the replies to the person's commands (an alert, a refusal, the "my piece"
popup); and the adapters' renderings where they are cheap: the Telegram keyboards
(adapters/telegram/keyboards.py, with the private-chat link button), the Discord message text
(adapters/discord/buttons.py), the terminal's printed story (adapters/console/notifier.py), the
web page's view at each of the person's turns, at the end and as a spectator sees it
(`page_view`: every string the page draws, `shown_words`) and the finished match's replay
frames (`replay_frames`: every step's lines, seats, hands and sheet).

Checked:

- no rule id in any of it (`RULE_ID`: "(K11)", "T3:", "KC9" as words of their own; a card
  such as "K♣", "10♠" or a Cyrillic "К♥" is not one, nor is "Bot 1": the id is a capital
  letter (or KC) with digits glued to it and no card suit after);
- in a table of another language, no line holding an English sentence of the catalogs (a
  run of 3+ words of an English template, between its placeholders and punctuation) that the
  table language's own catalogs do not also hold (the Norwegian calls are in every language);
- in a table of another language, no lowercase ASCII word the language's catalogs never use
  (an engine's word such as "(high)" or "stay"; the words people type for settings, shown as
  typed, are allowed);
- no public log line naming a piece or card together with its holder's name is staged before,
  in the same step, the private screen that tells the holder of it (cause before effect).

The module also runs as a script that counts instead of asserting, for the figures of
issue 30: `python -m tests.service.test_screen_lint`.
"""

from __future__ import annotations

import asyncio
import io
import random
import re
import sys
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cache
from typing import Any

import pytest
from rich.console import Console

from adapters.console.notifier import ConsoleNotifier
from adapters.discord import texts as discord_texts
from adapters.discord.buttons import render_text
from adapters.telegram import texts as telegram_texts
from adapters.telegram.keyboards import keyboard
from bot.games.gnav.engine.match import Match
from bot.games.gnav.engine.pieces import DISPLAY_NAMES, FULL_SET, NARR
from bot.games.gnav.game import GnavRules
from bot.games.gnavspiel.engine.cards import DECK, card_name
from bot.games.gnavspiel.game import card_text
from bot.games.registry import all_games
from bot.service.commands import Act, Configure, Open, PrivateView, Rules, Start
from bot.service.i18n import LANGUAGES, Catalog, catalog, with_game_messages
from bot.service.ports import Screen, TableShot
from bot.service.settings import TableSettings, specs
from bot.service.table import User
from tests.service.conftest import ALICE, CHANNEL, Harness

#: A rule id as a word of its own: N1, T3, C19, G8, K11, KC9 (not a card: no suit follows).
RULE_ID = re.compile(r"(?<![\w♠♥♦♣])(?:KC|[NTCGK])\d{1,2}(?![\w♠♥♦♣])")
#: Whole games, sized small: (game, its settings) by the name the figures use.
GAMES: dict[str, tuple[str, tuple[str, ...]]] = {
    "gnav-norsk": ("gnav", ("rules=norsk", "lives=1")),
    "gnav-tradisjonell": ("gnav", ("rules=tradisjonell", "lives=1")),
    "gnavspiel": ("gnavspiel", ("chips=2",)),
    "karnaval": ("karnaval", ()),
}
#: Every how many of the person's decisions the time runs out instead (the timeout notes).
TIMED_OUT = 4
#: A link the Telegram keyboard adds beside a button (its own label is checked too).
LINK = "https://t.me/gnav_bot?start=x"
_FRAGMENT_SPLIT = re.compile(r"\{[^{}]*\}|[.!?:;()«»\"“”„\n·—…/\[\]=<>]|[^\w\s',-]")
_WORD = re.compile(r"[A-Za-z]+(?:'[a-z]+)?")
#: A card of a Karnaval hand as the deck prints it in any language (`Q♠`, `10♥`, `Д♣`).
_CARD = re.compile(r"(?<!\w)\w{1,2}[♠♥♦♣]")
#: A row of a preformatted score grid: a short first column, then a bar.
_GRID_ROW = re.compile(r"^\s*\w{1,3}\s*\|")


@dataclass(slots=True)
class Staged:
    """One screen the service staged: its kind (`post`, `edit`, `freeze`, `tell`), the
    person it goes to (tells), and the step (outbox batch) it was committed with."""

    kind: str
    user: str | None
    screen: Screen
    step: int


@dataclass(slots=True)
class Transcript:
    """Everything one whole game showed, in order, and the table's language."""

    language: str
    staged: list[Staged] = field(default_factory=list)
    replies: list[str] = field(default_factory=list)
    console: list[str] = field(default_factory=list)
    page: list[str] = field(default_factory=list)  # the web page's words, every view
    replay: list[str] = field(default_factory=list)  # the replay frames' words
    names: dict[str, str] = field(default_factory=dict)  # user key -> seat name
    narr_offers: list[tuple[str, ...]] = field(default_factory=list)  # actions offered

    def texts(self) -> Iterable[str]:
        """Every text a player may read: screens, labels, replies, renderings."""
        for s in self.staged:
            yield s.screen.text
            yield from (b.label for row in s.screen.buttons for b in row)
            markup = keyboard(s.screen, LINK, private=s.kind == "tell")
            if markup is not None:
                yield from (b.text for row in markup.inline_keyboard for b in row)
            yield render_text(s.screen.text, s.screen.blocks)
        yield from self.replies
        yield from self.console
        yield from self.page
        yield from self.replay

    def lines(self) -> set[str]:
        """Every distinct line of `texts`."""
        return {line.strip() for t in self.texts() for line in t.split("\n") if line.strip()}


def _record(harness: Harness, transcript: Transcript) -> None:
    """Record what the service stages in its outbox, in order, each with its step."""
    outbox = harness.service.outbox
    step = [0]
    edit_table, post_table, post, tell, take = (
        outbox.edit_table,
        outbox.post_table,
        outbox.post,
        outbox.tell,
        outbox.take,
    )

    def rendered(screen: Any) -> Screen | None:
        if isinstance(screen, tuple):
            screen = screen[1]
        return None if isinstance(screen, TableShot) else screen

    def add(kind: str, screen: Any, user: str | None = None) -> None:
        shown = rendered(screen)
        if shown is not None:
            transcript.staged.append(Staged(kind, user, shown, step[0]))

    def on_edit(channel: str, screen: Any) -> None:
        add("edit", screen)
        edit_table(channel, screen)

    def on_post_table(channel: str, screen: Any, freeze: Any) -> None:
        if freeze is not None:
            add("freeze", freeze)
        add("post", screen)
        post_table(channel, screen, freeze)

    def on_post(channel: str, screen: Screen) -> None:
        add("post", screen)
        post(channel, screen)

    def on_tell(channel: str, user: str, screen: Screen) -> None:
        add("tell", screen, user)
        tell(channel, user, screen)

    def on_take(channel: str, version: int = 0) -> Any:
        step[0] += 1
        return take(channel, version)

    outbox.edit_table = on_edit  # type: ignore[method-assign]
    outbox.post_table = on_post_table  # type: ignore[method-assign]
    outbox.post = on_post  # type: ignore[method-assign]
    outbox.tell = on_tell  # type: ignore[method-assign]
    outbox.take = on_take  # type: ignore[method-assign]


async def whole_game(name: str, language: str, seed: int = 3) -> Transcript:
    """One whole game of `GAMES[name]` in `language`: Alice and two bots."""
    game, extra = GAMES[name]
    harness = Harness(seed=seed)
    svc = harness.service
    out = Transcript(language)
    _record(harness, out)
    assert (await svc.handle(Open(CHANNEL, ALICE))).ok
    words = [f"game={game}", f"language={language}", "bots=2", *extra]
    reply = await svc.handle(Configure(CHANNEL, ALICE, words))
    assert reply.ok, reply.text
    await harness.settle()
    out.staged.clear()  # the lobby as opened, in English: the table's language is chosen now
    out.replies.append((await svc.handle(Configure(CHANNEL, ALICE, []))).text)  # the settings line
    out.replies.append((await svc.handle(Rules(CHANNEL))).text)
    out.replies.append((await svc.handle(Start(CHANNEL, ALICE))).text)
    rng = random.Random(seed)
    decisions = 0
    for _ in range(5000):
        await harness.settle()
        table = await harness.table()
        if table is None or table.status == "closed":
            break
        rules = svc.game_of(table)
        deciders = rules.deciders(table.match)
        if not deciders:
            harness.clock.advance(table.settings.next_round_delay + 1)
            continue
        seat = deciders[0]
        s = table.seats[seat]
        if s.bot:
            continue
        user = User(s.user, s.name)
        view = await svc.status(CHANNEL, s.user)
        assert view is not None
        decisions += 1
        if decisions % TIMED_OUT == 0:  # now and then the person lets the time run out
            harness.clock.advance(table.settings.turn_timeout + 1)
            continue
        if game == "gnav" and table.match.hands[seat] == NARR:
            out.narr_offers.append(tuple(c.action for c in view.choices))
        out.page += await _page_words(svc, table.table_id, s.user)
        popup = await svc.handle(PrivateView(CHANNEL, user))
        out.replies += [popup.text, *(b.label for row in popup.buttons for b in row)]
        choice = rng.choice(list(view.choices))
        reply = await svc.handle(Act(CHANNEL, user, choice.action, arg=choice.arg))
        out.replies.append(reply.text)
        assert reply.ok, reply.text
    else:
        raise AssertionError(f"{name} in {language}: no end in 5000 steps")
    await harness.settle()
    table = await harness.table()
    out.names = {s.user: s.name for s in table.seats}
    out.page += await _page_words(svc, table.table_id, ALICE.key)  # the match's end
    out.page += await _page_words(svc, table.table_id, None)  # a spectator's
    frames = await svc.replay_frames(table.table_id)
    assert frames is not None and frames["steps"], f"{name}: no replay"
    out.replay = sorted(set(shown_words(frames)))
    out.console = await _console(out)
    return out


#: Keys of the page's and the replay's data that are ids, tokens or kinds, never drawn as text.
_NOT_SHOWN = frozenset(
    {"token", "table", "game", "status", "language", "role", "id", "tone", "arg", "row"}
)
#: A placeholder the page fills in itself (`{seconds}`, `{n}`).
_PLACEHOLDER = re.compile(r"\{\w+\}")


def shown_words(data: Any, key: str = "") -> Iterable[str]:
    """Every string the web page or the replay page draws from `data` (a page view's data or
    the replay's frames): texts, labels, titles, facts, the sheet, the page's own words; ids,
    tokens and kinds (`_NOT_SHOWN`) are left out, and the page's placeholders blanked."""
    if key in _NOT_SHOWN:
        return
    if isinstance(data, str):
        yield _PLACEHOLDER.sub("", data)
    elif isinstance(data, dict):
        for k, v in data.items():
            yield from shown_words(v, k)
    elif isinstance(data, list | tuple):
        for v in data:
            yield from shown_words(v, key)


async def _page_words(svc: Any, table_id: str, viewer: str | None) -> list[str]:
    """The words of the web page of `table_id` as `viewer` sees it now (None: a spectator)."""
    view = await svc.page_view(table_id, viewer)
    assert view is not None
    return list(shown_words(view.data))


async def _console(transcript: Transcript) -> list[str]:
    """The terminal's printed story of the game (Alice's), from the staged screens."""
    buffer = io.StringIO()
    notifier = ConsoleNotifier(Console(file=buffer, width=200, color_system=None), ALICE.key)
    ref: str | None = None
    for s in transcript.staged:
        if s.kind == "tell" and s.user is not None:
            await notifier.tell(s.user, s.screen)
        elif s.kind == "post":
            ref = await notifier.post(CHANNEL.key, s.screen)
        elif s.kind == "edit" and ref is not None:
            await notifier.edit(CHANNEL.key, ref, s.screen)
    notifier.show_private()
    return buffer.getvalue().split("\n")


# ------------------------------------------------------------------ what the lint looks for


def rule_ids(lines: Iterable[str]) -> list[str]:
    """The lines that show a rule id. A row of a score grid (`K1 | 42 | 45`) is left out: its
    first column names a quarter, and Norwegian's "K1" is the first kvartal."""
    return sorted(line for line in lines if RULE_ID.search(line) and not _GRID_ROW.match(line))


@cache
def _catalog(language: str) -> Catalog:
    """The service's catalog with every game's own, as the tables of `language` read them."""
    games = all_games()
    return with_game_messages(catalog(language), [g.view.messages for g in games.values()])


def _templates(language: str) -> list[str]:
    """Every text of `language`: the catalogs' templates and the adapters' own words."""
    out = []
    for value in _catalog(language).messages.values():
        out += list(value.values()) if isinstance(value, dict) else [value]
    for adapter in (telegram_texts, discord_texts):
        out += list(adapter._TEXTS.get(language, {}).values())
    return out


@cache
def _typed_words() -> frozenset[str]:
    """The words people type for settings and their values (`rules`, `norsk`, `gnavspiel`):
    a settings line shows them as typed, in every language."""
    games = all_games()
    found = set(games) | {"none"}  # `variants=none` clears a set, and a set shows "none"
    models = [(TableSettings, "table"), *((g.rules.settings_model, "game") for g in games.values())]
    for model, scope in models:
        for spec in specs(model, scope):  # type: ignore[arg-type]
            found |= {*spec.words, *spec.choices}
    return frozenset(found)


@cache
def english_only(language: str) -> frozenset[str]:
    """The English catalogs' sentences of 3+ words that `language`'s catalogs do not hold."""
    own = "\n".join(_templates(language))
    found = set()
    for template in _templates("en"):
        for piece in _FRAGMENT_SPLIT.split(template):
            piece = piece.strip(" ,-'")
            if len(_WORD.findall(piece)) >= 3 and piece not in own:
                found.add(piece)
    return frozenset(found)


def english_lines(language: str, lines: Iterable[str]) -> list[tuple[str, str]]:
    """(line, the English sentence it holds) for the lines of a `language` table."""
    if language == "en":
        return []
    fragments = english_only(language)
    out = []
    for line in lines:
        for f in fragments:
            if f in line and re.search(rf"(?<!\w){re.escape(f)}(?!\w)", line):
                out.append((line, f))
                break
    return sorted(out)


#: A lowercase ASCII word: in a table of another language, an engine's word ("high", "stay")
#: unless the language's own catalogs use it too (a setting's typed word, a Norwegian call).
_ASCII_WORD = re.compile(r"(?<![\w/=.@-])[a-z]{2,}(?![\w=])")
#: A command or a setting as typed (`/gnav new`, `lives=5`): words people type stay as typed.
_TYPED = re.compile(r"/gnav[\w ]*|\w+=\w+|https?://\S+")


@cache
def _own_words(language: str) -> frozenset[str]:
    text = re.sub(r"\{[^{}]*\}", " ", "\n".join(_templates(language)))  # no placeholder
    return frozenset(_ASCII_WORD.findall(text))


def engine_words(language: str, lines: Iterable[str]) -> list[tuple[str, str]]:
    """(line, word) for the lines of a `language` table showing a lowercase ASCII word its
    catalogs never use: an engine's word ("(high)", "Bot 3: stay") that reached the text."""
    if language == "en":
        return []
    own = _own_words(language) | _typed_words()
    out = []
    for line in lines:
        if "|" in line:
            continue  # a row of a score grid: its headers are cut to the column's width
        for word in _ASCII_WORD.findall(_TYPED.sub(" ", line)):
            if word not in own:
                out.append((line, word))
                break
    return sorted(out)


def _terms(game: str, language: str) -> re.Pattern[str]:
    """What names a piece or a card in a text of `game`."""
    if game == "gnav":
        names = [n for n in DISPLAY_NAMES if len(n) > 1] + ["Narr", "Ugle", "Potte"]
    elif game == "gnavspiel":
        cat = _catalog(language)
        names = [card_text(cat, card_name(c)) for c in set(DECK)]
        names = [n for n in names if not n.isdigit()]  # a bare number is a count as often
    else:
        return _CARD
    words = "|".join(re.escape(n) for n in sorted(set(names), key=len, reverse=True))
    return re.compile(rf"(?<!\w)(?:{words})(?!\w)")


def told_late(game: str, transcript: Transcript) -> list[str]:
    """Public log lines naming a piece or card with its holder's name, staged before the
    private screen that tells the holder of it within the same step."""
    terms = _terms(game, transcript.language)
    seen: set[str] = set()  # log lines already shown
    fresh: list[tuple[int, str]] = []  # (step, line) shown first in that step
    told: set[tuple[str, str]] = set()  # (user, term) the user was told of
    late = []
    for s in transcript.staged:
        if s.kind in ("post", "edit", "freeze"):
            for line in s.screen.log:
                if line not in seen:
                    seen.add(line)
                    fresh.append((s.step, line))
            continue
        if s.kind != "tell" or s.user is None:
            continue
        name = transcript.names.get(s.user, "")
        body = s.screen.text.split("\n", 1)[-1]
        for term in set(terms.findall(body)):
            if (s.user, term) in told:
                continue
            told.add((s.user, term))
            for step, line in fresh:
                if step == s.step and name in line and term in terms.findall(line):
                    late.append(f"{line!r} before {name}'s {body!r}")
        fresh = [(step, line) for step, line in fresh if step == s.step]
    return late


# ------------------------------------------------------------------ the tests


def _run(name: str, language: str) -> Transcript:
    return asyncio.run(whole_game(name, language))


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("name", sorted(GAMES))
def test_a_whole_game_reads_as_a_players_text(name: str, language: str) -> None:
    transcript = _run(name, language)
    lines = transcript.lines()
    assert len(lines) > 20 and transcript.console  # the game was played and printed
    assert rule_ids(lines) == [], "rule ids in player text"
    assert english_lines(language, lines) == [], "English sentences in a non-English table"
    assert engine_words(language, lines) == [], "engine words in a non-English table"
    assert told_late(GAMES[name][0], transcript) == [], "a public line before the private one"


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_settings_line_has_no_empty_field_and_no_wait_of_0_s(language: str) -> None:
    """Karnaval has no settings of its own, and `delay=0` deals the next deal at once."""

    async def settings_line() -> str:
        svc = Harness().service
        assert (await svc.handle(Open(CHANNEL, ALICE))).ok
        words = ["game=karnaval", f"language={language}", "delay=0"]
        assert (await svc.handle(Configure(CHANNEL, ALICE, words))).ok
        return (await svc.handle(Configure(CHANNEL, ALICE, []))).text

    text = asyncio.run(settings_line())
    cat = _catalog(language)
    assert ":  ·" not in text and "(karnaval): ·" not in text, text
    assert " 0 s" not in text and " 0 с" not in text, text
    assert cat.t("karnaval.settings.next_now") in text, text


def test_the_rule_id_pattern_finds_ids_and_leaves_cards_alone() -> None:
    hits = ["on top or underneath (K11)?", "now the second card (KC9)", "Ikke lov (T3): nei"]
    misses = ["Alice plays K♣", "Д♠ 10♥ К♦ 7♣", "Bot 1 · ♥2", "KC ♠", "round 10", "Г8"]
    assert all(RULE_ID.search(t) for t in hits)
    assert not any(RULE_ID.search(t) for t in misses)


def test_the_english_checks_find_english_in_a_norwegian_line() -> None:
    english = _catalog("en").t("error.not_seated")  # "You are not seated at this table."
    assert english_lines("nb", [f"Alice: {english}"]) != []
    assert english_lines("nb", [_catalog("nb").t("error.not_seated")]) == []
    assert english_lines("en", [english]) == []
    assert engine_words("ru", ["На столе: Бот 1 🃏 (high)"]) != []
    assert engine_words("ru", ["Настройки: rules norsk · lives 1", "/gnav new", "Бот 1 10♥"]) == []


def test_tradisjonell_never_offers_stay_to_a_narr_holder() -> None:
    """T3: a Narr holder at its turn must swap, so Stay is never offered to it."""
    rules = GnavRules()
    for holder in range(3):
        hands = {0: 5, 1: 6, 2: 7}
        hands[holder] = NARR
        bag = list(FULL_SET)
        for rank in hands.values():
            bag.remove(rank)
        match = Match(["A", "B", "C"], lives=3, dealer=2, profile="tradisjonell")
        match.start_round(hands, bag)
        while match.phase == "play":
            seat = match.turn
            assert seat is not None
            actions = {c.action for c in rules.choices(match, seat)}
            assert actions == ({"swap"} if match.hands[seat] == NARR else {"stay", "swap"})
            rules.act(match, seat, "stay" if "stay" in actions else "swap")
    # And in whole games, whenever Alice held a Narr at her turn.
    offers = [o for lang in ("en", "nb") for o in _run("gnav-tradisjonell", lang).narr_offers]
    assert all("stay" not in o for o in offers), offers


@pytest.mark.parametrize("language", ["en", "ru"])
def test_gnavspiel_asks_for_a_loan_after_the_chips_line(language: str) -> None:
    """G8/C19: a broke player's loan question follows the line saying the chips after the
    reveal's payments (the reveal's own chips line came only after the loans)."""
    transcript = _run("gnavspiel", language)
    cat = _catalog(language)
    borrow = cat.t("gnavspiel.button.borrow")
    chips = cat.t("gnavspiel.reveal.chips", chips="", pot=0).split(" ")[0]
    pays = {
        cat.t(f"gnavspiel.ev.pay_{kind}", p=name)
        for kind in ("lowest", "joker")
        for name in transcript.names.values()
    }
    asked = [s for s in transcript.staged if borrow in _labels(s.screen)]
    assert asked, "no loan was asked: choose another seed"
    for s in asked:
        log = list(s.screen.log)
        paid = max(i for i, line in enumerate(log) if line in pays)
        assert any(line.startswith(chips) for line in log[paid + 1 :]), log


@pytest.mark.parametrize("language", [lang for lang in LANGUAGES if lang != "en"])
def test_a_card_is_named_in_the_tables_language(language: str) -> None:
    """Gnavspiel's cards on a Russian table read «Дама», not "Q" or "Joker" (the page's tile and
    the reveal show the name alone); in Norwegian and Portuguese the faces are their own words,
    not the English letters."""
    cat = _catalog(language)
    faces = {name: card_text(cat, name) for name in ("Joker", "A", "J", "Q", "K")}
    if language == "ru":
        assert not any(re.search("[A-Za-z]", n) for n in faces.values()), faces
    assert all(faces[f] != f for f in ("A", "J", "Q", "K")), faces
    # And the page's score sheet spells a quarter out ("K1" reads as a rule's number).
    from bot.games.karnaval.web import page_sheet_words

    quarter = page_sheet_words(cat)["quarter"].format(n=1)
    assert not RULE_ID.search(quarter) and len(quarter) > 3, quarter
    # The rules and the lines name the cards as the cards themselves are named (German says
    # Joker too, and Portuguese's "A" is an article).
    english = {"nb": "[AJQK]", "ru": "[AJQK]|Joker", "pt": "[JQK]|Joker"}.get(language)
    if english is None:
        return
    letters = re.compile(rf"(?<![\w{{])(?:{english})(?![\w}}])")
    for key, value in all_games()["gnavspiel"].view.messages(language).items():
        texts = value.values() if isinstance(value, dict) else [value]
        if key.startswith(("gnavspiel.card.", "_")):
            continue
        assert not any(letters.search(t) for t in texts), (key, value)


@pytest.mark.parametrize("language", LANGUAGES)
def test_gnavs_headers_name_its_rules_in_words(language: str) -> None:
    """The lobby's title and each round's header say "Norwegian rules", «традиционные
    правила», not the word typed for the setting (`rules=norsk`)."""
    from bot.games.gnav.game import GnavSettings, GnavView

    cat, view = _catalog(language), GnavView(GnavRules())
    for profile in ("norsk", "tradisjonell"):
        match = Match(["Ann", "Bo", "Cy"], lives=3, dealer=0, profile=profile)
        hands = {0: 5, 1: 6, 2: 7}
        bag = list(FULL_SET)
        for rank in hands.values():
            bag.remove(rank)
        match.start_round(hands, bag)
        header = view.render_status(match, ["Ann", "Bo", "Cy"], cat)[0]
        title = view.lobby_title(GnavSettings(rules=profile), cat)
        for text in (header, title):
            assert not re.search(rf"(?<!\w){profile}(?!\w)", text), text
            assert cat.t(f"gnav.profile.{profile}") in text, text


@pytest.mark.parametrize("language", ["en", "pt"])
def test_a_hand_explains_the_trump_mark_only_when_it_holds_a_trump(language: str) -> None:
    """A hand "Your hand (* trump): Q♠ · 8♣" explained a mark it does not show: a hand with
    no trump reads "Your hand: Q♠ · 8♣"."""
    legend = _catalog(language).t("karnaval.piece.hand", cards="")
    plain = _catalog(language).t("karnaval.piece.hand_plain", cards="")
    hands = [
        line
        for t in _run("karnaval", language).texts()
        for line in t.split("\n")
        if line.startswith((legend, plain))
    ]
    assert any(line.startswith(legend) for line in hands)
    assert any(line.startswith(plain) and not line.startswith(legend) for line in hands)
    for line in hands:
        assert ("*" in line.removeprefix(legend)) == line.startswith(legend), line


def _labels(screen: Screen) -> list[str]:
    return [b.label for row in screen.buttons for b in row]


def _counts(names: Iterable[str], languages: Iterable[str]) -> None:
    """Print, per game and language, the lines with rule ids and the English lines."""
    for name in names:
        for language in languages:
            transcript = _run(name, language)
            lines = transcript.lines()
            ids = rule_ids(lines)
            english = english_lines(language, lines) + engine_words(language, lines)
            late = told_late(GAMES[name][0], transcript)
            web = {x.strip() for t in (*transcript.page, *transcript.replay) for x in t.split("\n")}
            web.discard("")
            web_bad = len(rule_ids(web)) + len(english_lines(language, web))
            web_bad += len(engine_words(language, web))
            print(
                f"{name:18} {language}  rule ids {len(ids):3}  English {len(english):3}  "
                f"told late {len(late):2}  page+replay lines {len(web):4}, flagged {web_bad:3}"
            )
            for line in [*ids[:3], *(f"{e} ← {f!r}" for e, f in english[:3]), *late[:2]]:
                print("      ", line)


if __name__ == "__main__":
    _counts(sys.argv[1:2] or sorted(GAMES), sys.argv[2:] or LANGUAGES)
