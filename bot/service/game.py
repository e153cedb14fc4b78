"""The game interface: what the generic table service asks of a game, in two objects.

Tables, lobby, seats (and who left), timers, notifications and storage are the service's.
A game gives the service two objects, registered together as a `Game` (bot/games/registry.py):

- `GameRules`, the rules: about a dozen members a game must write, like OpenSpiel's `State`
  or boardgame.io's `Game`: its `name`, `players` (how many may sit) and `settings_model`;
  `new_match`, `dump`/`load`; `start_round`; `deciders` and their `choices`; `act`;
  `timeout_choice` and `bot_choice`; `forfeit`; `winners`; `record`. Three more have defaults:
  `bot_thinking` (every level plays `bot_choice`), `rejoin` (nobody comes back) and `hint`
  (no hints: a game that gives them sets `gives_hints`).
  A round is under way while someone decides (`deciders`), the match is over once it has
  `winners`.
- `GameView`, the presentation of a match: a base class of defaults (texts from the game's
  `texts_package`, its lines keyed `<game>.lobby.title`, `<game>.rules`,
  `<game>.stats.line`, `<game>.top.line`, no block, picture or web shapes (`web_public`
  for every viewer, `web_own` for a seat)...), so a game writes only what it shows
  differently; `render_status`, `private_text` and `round_number` it always writes.

No member is optional: the service calls every one (none is looked up with `getattr`).
The test-only game tests/games/highcard.py is the worked example (docs/design.md).
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar, Protocol

from pydantic import BaseModel

from bot.service.i18n import Catalog, Template, game_texts
from bot.service.moves import (
    Choice,
    GameRuleError,
    Hint,
    LogLine,
    Outcome,
    PrivateChoice,
    Role,
)
from bot.service.ports import Picture
from bot.service.settings import TableSettings, game_settings


class GameRules(ABC):
    """A game's rules, for the service to host. `match` is the game's own state object: the
    service only passes it back. Abstract members are what every game writes; `bot_thinking`
    and `rejoin` have defaults."""

    #: The game's registered name (a table stores it; catalog keys start with it).
    name: ClassVar[str]
    #: How many seats a match may have (`range(2, 21)`: 2 to 20).
    players: ClassVar[range]
    #: The game's own settings: a pydantic model whose fields declare the words people type
    #: (see bot/service/settings.py); its defaults are a new channel's.
    settings_model: ClassVar[type[BaseModel]]
    #: True when `hint` answers (a table with `hints=on` then shows its Hint button).
    gives_hints: ClassVar[bool] = False

    @abstractmethod
    def new_match(self, names: Sequence[str], settings: Any, rng: random.Random) -> Any:
        """A new match between `names` (seat order) with the game's own settings (an instance
        of `settings_model`); its first round is dealt by `start_round`."""

    @abstractmethod
    def dump(self, match: Any) -> dict[str, Any]:
        """The match as JSON-ready data; its finished rounds, if it keeps them, under `PARTS`
        (bot/service/parts.py: stored once each, not with every move)."""

    @abstractmethod
    def load(self, data: dict[str, Any]) -> Any:
        """A match from `dump`'s data."""

    @abstractmethod
    def start_round(self, match: Any, rng: random.Random) -> Outcome:
        """Shuffle with `rng` and deal the next round (called between rounds only: when
        nobody decides and the match has no winners)."""

    @abstractmethod
    def deciders(self, match: Any) -> Sequence[int]:
        """The seats that may choose now: one, several at once, or none. A round is under way
        exactly while there is one (between rounds and after the match, none)."""

    @abstractmethod
    def choices(self, match: Any, seat: int) -> Sequence[Choice]:
        """Every legal choice of `seat` now (empty when it has none)."""

    @abstractmethod
    def act(self, match: Any, seat: int, action: str, arg: str | None = None) -> Outcome:
        """Apply one of `seat`'s choices; raises `GameRuleError` when it is not allowed."""

    @abstractmethod
    def timeout_choice(self, match: Any, seat: int) -> Choice:
        """What a choice of `seat` that timed out counts as (the game's timeout rule); also
        what a seat that left plays while the rules keep it in the round."""

    @abstractmethod
    def bot_choice(self, match: Any, seat: int, rng: random.Random) -> Choice:
        """A bot seat's choice, from public knowledge and its own cards only."""

    @abstractmethod
    def forfeit(self, match: Any, seat: int) -> Outcome:
        """`seat` leaves the match (the service keeps that it left, and plays its
        `timeout_choice` whenever it is still among the `deciders`)."""

    @abstractmethod
    def winners(self, match: Any) -> list[int]:
        """The winning seats: empty while the match goes on, never empty once it is over."""

    @abstractmethod
    def record(self, match: Any, public: bool = False) -> dict[str, Any]:
        """The match record (MATCH_RECORD.md for Gnav); `public`: without the round under
        way, whose deal is still hidden."""

    def bot_thinking(
        self, match: Any, seat: int, rng: random.Random, level: str, seconds: float | None
    ) -> Choice | Callable[[], Choice] | None:
        """A bot seat's choice at a table's bot level (easy, normal, strong): the choice when
        it is decided at once, else a job holding a snapshot of what the seat may know (never
        the live match; picklable, so it may run in another process) to run away from the
        event loop within `seconds` (None: its own count of work only); None: `bot_choice`.
        See thinking.py. By default every level plays as `bot_choice`."""
        return None

    def hint(self, match: Any, seat: int, rng: random.Random) -> Hint | None:
        """What `strong` would choose for `seat` now and how sure it is, sampled from what the
        seat may know only (never another seat's hidden cards: the same purity as the bots');
        None when the seat has no choice to make (and by default: no hints)."""
        return None

    def rejoin(self, match: Any, seat: int) -> Outcome | None:
        """Give a seat that left back to its player during the match (Karnaval: the bot
        played it after three timeouts); None when it cannot be (the default)."""
        return None


class GameView(ABC):
    """How a game's match looks: the table message, private screens, rules and lobby texts,
    statistics lines and the web table's shapes. Every member has a default but
    `render_status`, `private_text` and `round_number`; a game overrides only what it shows
    differently. `rules` is the game's `GameRules` (a view may ask it, e.g. for choices)."""

    #: True when the deciding seat's choices are buttons of the public table message (Gnav's
    #: Stay/Swap); false when they are private (a hand of cards) and the table message offers
    #: only the button that shows a seat its private screen.
    public_choices: ClassVar[bool] = False
    #: The statistics counters, in display order. The service counts "matches" and "wins"
    #: itself at each match's end; `Outcome.round_stats` adds the game's own.
    stat_counters: ClassVar[tuple[str, ...]] = ("matches", "wins")
    #: The package of the game's catalogs (`<package>/<language>.json`); None: `messages`.
    texts_package: ClassVar[str | None] = None
    #: How many of the round's newest log entries the table message shows under the state
    #: (`render_status`): the state says what happened, these only the last moves (issue 30).
    recent_events: ClassVar[int] = 3

    def __init__(self, rules: GameRules) -> None:
        self.rules = rules
        self.name = rules.name

    @property
    def view_label(self) -> str:
        """The catalog key of the button that shows a seat its private screen."""
        return f"{self.name}.button.view"

    def messages(self, language: str) -> Mapping[str, Template]:
        """The game's own catalog entries in `language` (keys under the game's name), merged
        into the service's catalogs: its `texts_package`'s file (none without one)."""
        return {} if self.texts_package is None else game_texts(self.texts_package, language)

    @abstractmethod
    def round_number(self, match: Any) -> int:
        """The number of the round dealt last, as the game counts rounds."""

    @abstractmethod
    def render_status(self, match: Any, names: Sequence[str], cat: Catalog) -> list[str]:
        """Lines for the table message during a round (and, frozen, at its end): the state,
        compact: a header, one line per seat with what all may know (lives, chips, bid and
        tricks taken), what lies on the table, the last completed trick or exchange. Not the
        round's story: the service adds only its newest `recent_events` entries."""

    @abstractmethod
    def private_text(self, match: Any, seat: int, cat: Catalog) -> str:
        """A short private text: what `seat` holds now (at most 200 characters)."""

    def render_reveal(self, match: Any, names: Sequence[str], cat: Catalog) -> list[str]:
        """Lines of the reveal of the round that just ended: `render_status` by default."""
        return self.render_status(match, names, cat)

    def told_lines(self, match: Any, names: Sequence[str], cat: Catalog) -> list[str]:
        """The lines of `render_reveal` that repeat what the round's log told as it happened
        (Gnavspiel logs its reveal and payments before a loan is asked): a terminal, which
        printed that log, leaves them out of the reveal (`Screen.told`). None by default."""
        return []

    def render_block(self, match: Any, names: Sequence[str], cat: Catalog) -> str | None:
        """A preformatted block for the table message after a round (a score grid), shown in
        monospace with its columns kept and never cut; None (the default) when none."""
        return None

    def render_sheet(self, match: Any, names: Sequence[str], cat: Catalog) -> str | None:
        """The match's whole score sheet now, as the game decides what whole is (a
        preformatted block, shown on request: the `sheet` command); None when the game keeps
        none (the default)."""
        return None

    def render_picture(self, match: Any, names: Sequence[str], cat: Catalog) -> Picture | None:
        """A picture that goes with the message showing a round's end (Karnaval's score sheet
        at the end of a quarter and of the game), carried by that message (never a message
        of its own); None when this round's end has none (the default). The picture's `alt`
        is what a platform without pictures shows, so the game leaves that grid out of
        `render_block` then."""
        return None

    def result_lines(self, match: Any, names: Sequence[str], cat: Catalog) -> list[str]:
        """The game's own account of a finished match (standings, payments), added to the
        result when bots finish a match; none by default."""
        return []

    def render_line(self, line: LogLine, cat: Catalog) -> str:
        """One log line, or a choice's label, in a language: its catalog key filled with its
        parameters."""
        key, params = line
        return cat.t(key, **params)

    def rules_text(self, cat: Catalog, settings: Any) -> str:
        """The rules summary for help, for the game's own `settings`: `<game>.rules`."""
        return cat.t(f"{self.name}.rules")

    def lobby_title(self, settings: Any, cat: Catalog) -> str:
        """The first line of an open table's lobby: `<game>.lobby.title`."""
        return cat.t(f"{self.name}.lobby.title")

    def top_key(self, counters: Mapping[str, int]) -> tuple[Any, ...]:
        """Sort key of the chat's top list, best first (ascending; absent counters are 0):
        most wins, then most matches."""
        return (-counters.get("wins", 0), -counters.get("matches", 0))

    def render_stats(self, name: str, counters: Mapping[str, int], cat: Catalog) -> str:
        """A player's statistics line: `<game>.stats.line` with every counter (absent: 0)."""
        values = {c: counters.get(c, 0) for c in self.stat_counters}
        return cat.t(f"{self.name}.stats.line", name=name, **values)

    def render_top_line(self, n: int, name: str, counters: Mapping[str, int], cat: Catalog) -> str:
        """Line `n` (from 1) of the chat's top list: `<game>.top.line` with every counter."""
        values = {c: counters.get(c, 0) for c in self.stat_counters}
        return cat.t(f"{self.name}.top.line", n=n, name=name, **values)

    def web_public(self, match: Any, names: Sequence[str], cat: Catalog) -> dict[str, Any]:
        """The web table's generic shapes every viewer of the match sees alike (docs/web.md:
        `middle`, `facts`, `seats`, `sheet`...): built once per commit and shared by all its
        pages, so nothing hidden from anyone may be in it. None by default: the page shows the
        table message's text."""
        return {}

    def web_own(self, match: Any, seat: int, names: Sequence[str], cat: Catalog) -> dict[str, Any]:
        """The shapes only `seat` sees (its own hand: `own`), beside `web_public`'s; nothing by
        default."""
        return {}

    def web_view(
        self, match: Any, seat: int | None, names: Sequence[str], cat: Catalog
    ) -> dict[str, Any]:
        """The web table's generic shapes of the match as `seat` may see it: `web_public`'s
        and `seat`'s own (`web_own`); `seat` is None for a spectator, who gets the public
        ones alone."""
        public = self.web_public(match, names, cat)
        return public if seat is None else with_own(public, self.web_own(match, seat, names, cat))

    def web_replay(self, record: dict[str, Any], cat: Catalog) -> list[dict[str, Any]] | None:
        """A finished match's record as the web replay's steps; None when the game has no
        replay page (the default)."""
        return None


def with_own(public: dict[str, Any], own: dict[str, Any]) -> dict[str, Any]:
    """A viewer's shapes: the public ones (left as they are: every viewer shares them) with
    the viewer's own put in before the score sheet (`sheet` comes last in the page's JSON)."""
    if not own:
        return public
    if "sheet" not in public:
        return {**public, **own}
    shapes = {k: v for k, v in public.items() if k != "sheet"}
    shapes.update(own)
    shapes["sheet"] = public["sheet"]
    return shapes


class Game:
    """A hosted game: its rules and its view of them, registered together under its name."""

    __slots__ = ("rules", "view")

    def __init__(self, rules: GameRules, view: type[GameView]) -> None:
        self.rules = rules
        self.view = view(rules)

    @property
    def name(self) -> str:
        """The game's registered name (its rules')."""
        return self.rules.name


class _Playing(Protocol):
    """A table, or a view of one: the name of the game it plays."""

    @property
    def game(self) -> str: ...


class Games:
    """The games tables may play, by name: their rules (a table's stored `game` picks them)
    and their views (how a match looks); the first registered is the default."""

    def __init__(self, games: Mapping[str, Game]) -> None:
        if not games:
            raise ValueError("the service needs at least one game")
        self.rules: dict[str, GameRules] = {name: g.rules for name, g in games.items()}
        self.views: dict[str, GameView] = {name: g.view for name, g in games.items()}
        #: The game of a new table when the channel chose none: the first registered.
        self.default = next(iter(self.rules))

    def rules_of(self, table: _Playing) -> GameRules:
        """The rules of the game `table` plays."""
        return self.rules[table.game]

    def view_of(self, table: _Playing) -> GameView:
        """The view of the game `table` plays (how its match looks)."""
        return self.views[table.game]

    def named(self, settings: TableSettings) -> str:
        """The registered game `settings` choose (the default when none or an unknown one)."""
        return settings.game if settings.game in self.rules else self.default

    def own_settings(self, game: str, settings: TableSettings) -> Any:
        """`game`'s own settings (its `settings_model`) at a table with `settings`."""
        return game_settings(settings, game, self.rules[game].settings_model)

    def settings_models(self) -> dict[str, Any]:
        """Every registered game's own settings model, by name."""
        return {name: g.settings_model for name, g in self.rules.items()}


__all__ = [
    "Choice",
    "Game",
    "GameRuleError",
    "GameRules",
    "GameView",
    "Games",
    "Hint",
    "LogLine",
    "Outcome",
    "PrivateChoice",
    "Role",
]
