"""Per-table settings, validated, with the words people type for them.

A table's settings are the service's generic ones (language, turn timeout, bot seats, the
next-round delay and the `game` the table plays) plus the game's own, a pydantic model the game
declares (`GameRules.settings_model`). Each field of either model says in its
`json_schema_extra` the words people type for it (`{"words": ("timeout", "turn")}`, the first
is the one shown); numbers take their range from the field's bounds, choices from its
`Literal`, sets (`variants=a,b`) from a `frozenset[Literal[...]]`. A choice may also name
values that switch the table to another registered game (`{"games": {"<value>": "<game>"}}`).

Settings are kept per channel, so the next table in a channel starts with the last ones used;
each game's own settings are kept under its name, so switching back finds them again.
"""

from __future__ import annotations

import re
import types
import typing
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

Language = Literal["en", "nb", "ru", "pt", "de"]
#: How a table's bot seats play (thinking.py; `normal`: the game's plain bot choice).
Level = Literal["easy", "normal", "strong"]
#: The bot levels a table may choose.
LEVELS: tuple[str, ...] = typing.get_args(Level)


def words(*typed: str, **extra: Any) -> dict[str, Any]:
    """A field's `json_schema_extra`: the words people type for it (the first is shown)."""
    return {"words": typed, **extra}


class TableSettings(BaseModel):
    """A table's settings: the generic ones, the game, and every game's own settings (as
    stored: each game validates its own through its `settings_model`)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    game: str = Field(default="", json_schema_extra=words("game"))  # "": the default game
    turn_timeout: int = Field(
        default=60, ge=10, le=600, json_schema_extra=words("timeout", "turn_timeout", "turn")
    )
    language: Language = Field(default="en", json_schema_extra=words("language", "lang"))
    next_round_delay: int = Field(
        default=10, ge=0, le=300, json_schema_extra=words("delay", "next_round_delay")
    )
    bots: int = Field(default=0, ge=0, le=19, json_schema_extra=words("bots"))
    level: Level = Field(default="normal", json_schema_extra=words("level"))
    #: A Hint button for seated people (issue 33): what `strong` would choose, privately.
    hints: Literal["off", "on"] = Field(default="off", json_schema_extra=words("hints", "hint"))
    games: dict[str, dict[str, Any]] = Field(default_factory=dict)

    def of(self, game: str) -> dict[str, Any]:
        """The stored settings of `game` (empty when none were chosen)."""
        return dict(self.games.get(game, {}))

    def stored(self) -> dict[str, Any]:
        """The JSON form a table's state keeps, equal to `model_dump()` (every field already
        holds its JSON value; a test holds them equal) at a tenth of its cost: every save of
        a table writes it. A copy of the fields as the model holds them, the games' own
        settings shared, not copied: the settings are frozen, and what is written is
        encoded, never changed."""
        return dict(self.__dict__)


#: Generic fields people may type (`games` is not typed: it holds the games' own settings).
GENERIC = ("game", "turn_timeout", "language", "next_round_delay", "bots", "level", "hints")

#: The longest piece of what people typed that an error message repeats.
MAX_ECHO = 40

#: A setting's number: plain ASCII digits (no sign, no `_`, no other scripts' digits), with an
#: optional `s` for seconds.
_NUMBER = re.compile(r"([0-9]{1,9})s?")
#: Values that clear a set (`variants=none`).
_EMPTY = frozenset({"none", "off", "-", "no"})


def echo(text: str, limit: int = MAX_ECHO) -> str:
    """What someone typed, as an error message repeats it: at most `limit` characters."""
    text = "".join(ch for ch in text if ch.isprintable())
    return text if len(text) <= limit else text[: limit - 1] + "…"


@dataclass(frozen=True, slots=True)
class SettingSpec:
    """One setting as people type it: its field, where it belongs (the table or its game), the
    words for it, and what values it takes (for parsing and for error messages)."""

    name: str
    scope: Literal["table", "game"]
    words: tuple[str, ...]
    kind: Literal["number", "choice", "set"]
    low: int = 0
    high: int = 0
    choices: tuple[str, ...] = ()
    switch: Mapping[str, str] = field(default_factory=dict)  # value -> the game it switches to
    default: Any = None

    @property
    def shown(self) -> str:
        """The word the setting is shown by."""
        return self.words[0]


def _literal_args(tp: Any) -> tuple[str, ...] | None:
    if typing.get_origin(tp) is Literal:
        return tuple(str(a) for a in typing.get_args(tp))
    return None


def specs(
    model: type[BaseModel], scope: Literal["table", "game"], games: Sequence[str] = ()
) -> list[SettingSpec]:
    """The typed settings of `model`'s fields that declare words (see the module's doc)."""
    out = []
    for name, info in model.model_fields.items():
        extra = info.json_schema_extra
        if not isinstance(extra, dict) or "words" not in extra:
            continue
        typed = tuple(str(w) for w in extra["words"])  # type: ignore[union-attr]
        switch = {  # only to games hosted here
            str(v): str(g)
            for v, g in dict(extra.get("games", {})).items()  # type: ignore[arg-type]
            if g in games
        }
        default = info.get_default(call_default_factory=True)
        tp = info.annotation
        lit = _literal_args(tp)
        if name == "game" and scope == "table":
            out.append(SettingSpec(name, scope, typed, "choice", choices=tuple(games)))
        elif lit is not None:
            choices = lit + tuple(v for v in switch if v not in lit)
            out.append(SettingSpec(name, scope, typed, "choice", choices=choices, switch=switch))
        elif typing.get_origin(tp) in (frozenset, set, tuple) and typing.get_args(tp):
            inner = _literal_args(typing.get_args(tp)[0]) or ()
            out.append(SettingSpec(name, scope, typed, "set", choices=inner, default=default))
        elif tp is int or (isinstance(tp, types.UnionType) and int in typing.get_args(tp)):
            low, high = _bounds(info.metadata)
            out.append(SettingSpec(name, scope, typed, "number", low, high, default=default))
    return out


def _bounds(metadata: Sequence[Any]) -> tuple[int, int]:
    low, high = 0, 10**9
    for m in metadata:
        if getattr(m, "ge", None) is not None:
            low = int(m.ge)
        if getattr(m, "le", None) is not None:
            high = int(m.le)
    return low, high


@dataclass(frozen=True, slots=True)
class SettingsForm:
    """The settings people may type at a table of one game: the generic ones and the game's."""

    game: str
    model: type[BaseModel]
    fields: tuple[SettingSpec, ...]

    @classmethod
    def of(cls, game: str, model: type[BaseModel], games: Sequence[str]) -> SettingsForm:
        """The form of a table playing `game` (its own settings `model`), `games` registered."""
        return cls(
            game, model, tuple(specs(TableSettings, "table", games) + specs(model, "game", games))
        )

    def find(self, typed: str) -> SettingSpec | None:
        """The setting a typed word names."""
        word = typed.strip().casefold().replace("-", "_")
        # The game's words first: a game may reuse a word for its own setting.
        for spec in sorted(self.fields, key=lambda s: s.scope != "game"):
            if word in spec.words or word == spec.name:
                return spec
        return None

    @property
    def known(self) -> str:
        """The shown words, for an error message."""
        return ", ".join(sorted(s.shown for s in self.fields))


@dataclass(frozen=True, slots=True)
class Change:
    """One setting as typed: the word used for it (`timeout`, `turn`...) and the value."""

    typed: str
    value: str


class SettingsError(ValueError):
    """A setting people typed that cannot be used; `code` names the catalog message."""

    def __init__(self, code: str, **params: Any) -> None:
        super().__init__(code)
        self.code = code
        self.params = params


def parse_changes(words_: list[str]) -> list[Change]:
    """Read `name=value` words (or `name value` pairs) in order, each with the word typed for
    it (error messages speak the user's words)."""
    changes: list[Change] = []
    pending: str | None = None
    for word in words_:
        if "=" in word:
            name, _, value = word.partition("=")
            changes.append(Change(name.strip(), value.strip()))
            pending = None
        elif pending is None:
            pending = word.strip()
        else:
            changes.append(Change(pending, word.strip()))
            pending = None
    if pending is not None:
        raise SettingsError("settings.error.no_value", name=echo(pending))
    return changes


def parse_value(spec: SettingSpec, change: Change) -> Any:
    """The value of one typed change, or a SettingsError that names the word typed."""
    shown, text = echo(change.typed), change.value
    if spec.kind == "number":
        m = _NUMBER.fullmatch(text)
        if m is None:
            raise SettingsError("settings.error.number", name=shown, value=echo(text))
        value = int(m.group(1))
        if not spec.low <= value <= spec.high:
            raise SettingsError(
                "settings.error.range", name=shown, value=value, low=spec.low, high=spec.high
            )
        return value
    if spec.kind == "choice":
        value_text = text.strip().casefold()
        if value_text not in spec.choices:
            raise SettingsError(
                "settings.error.choice",
                name=shown,
                value=echo(text),
                choices=", ".join(spec.choices),
            )
        return value_text
    items = [w.strip().casefold() for w in text.split(",") if w.strip()]
    if len(items) == 1 and items[0] in _EMPTY:
        return []
    for item in items:
        if item not in spec.choices:
            raise SettingsError(
                "settings.error.choice",
                name=shown,
                value=echo(item),
                choices=", ".join((*spec.choices, "none")),
            )
    return sorted(set(items))


def apply_changes(
    current: TableSettings,
    changes: Sequence[Change],
    *,
    game: str,
    models: Mapping[str, type[BaseModel]],
) -> TableSettings:
    """`current` with `changes` applied at a table of `game` (`models`: every registered game's
    settings model, by name), or a SettingsError.

    A change of the game (`game=<name>`, or a choice that switches to another game) is
    applied first; the other words are then read as the new game's. Numbers are plain ASCII
    whole numbers (`timeout=90s`): `1_0`, `+5` or full-width `５` are refused,
    although Python's `int` would take them.
    """
    names = tuple(models)
    form = SettingsForm.of(game, models[game], names)
    table: dict[str, Any] = current.model_dump()
    own: dict[str, dict[str, Any]] = {g: dict(v) for g, v in current.games.items()}
    rest: list[Change] = []
    for change in changes:  # the game first: the other words are the new game's
        spec = form.find(change.typed)
        if spec is None:  # maybe the new game's word: read below
            rest.append(change)
        elif spec.name == "game" and spec.scope == "table":
            game = parse_value(spec, change)
        elif spec.kind == "choice" and change.value.strip().casefold() in spec.switch:
            game = spec.switch[change.value.strip().casefold()]
            rest.append(change)  # the new game may take the value too
        else:
            rest.append(change)
    table["game"] = game
    form = SettingsForm.of(game, models[game], names)
    mine = own.setdefault(game, {})
    for change in rest:
        spec = form.find(change.typed)
        if spec is None:
            raise SettingsError(
                "settings.error.unknown", name=echo(change.typed.strip()), known=form.known
            )
        value = parse_value(spec, change)
        if spec.kind == "choice" and value in spec.switch:
            if spec.switch[value] != game:
                raise SettingsError(
                    "settings.error.choice",
                    name=echo(change.typed),
                    value=echo(change.value),
                    choices=", ".join(c for c in spec.choices if c not in spec.switch),
                )
            continue
        if spec.scope == "table":
            table[spec.name] = value
        else:
            mine[spec.name] = value
    try:
        checked = models[game](**mine)
    except ValidationError as exc:
        raise SettingsError("settings.error.invalid", detail=echo(str(exc), 200)) from None
    own[game] = checked.model_dump(mode="json")
    table["games"] = own
    try:
        return TableSettings(**table)
    except ValidationError as exc:  # pragma: no cover - checked above
        raise SettingsError("settings.error.invalid", detail=echo(str(exc), 200)) from None


def game_settings(settings: TableSettings, game: str, model: type[BaseModel]) -> BaseModel:
    """`game`'s own settings at a table: stored values, defaults for the rest (a stored value
    that is no longer valid falls back to its default)."""
    data = settings.of(game)  # the model ignores what it does not know (and reads old words)
    try:
        return model(**data)
    except ValidationError:
        good: dict[str, Any] = {}
        for k, v in data.items():
            try:
                model(**{**good, k: v})
            except ValidationError:
                continue
            good[k] = v
        return model(**good)


def settings_lines(
    settings: TableSettings, game: str, model: type[BaseModel]
) -> list[tuple[str, str]]:
    """(word, value) of `game`'s own settings at a table, as shown."""
    own = game_settings(settings, game, model)
    out: list[tuple[str, str]] = []
    for spec in specs(model, "game"):
        value = getattr(own, spec.name)
        text = (",".join(sorted(value)) or "none") if spec.kind == "set" else str(value)
        out.append((spec.shown, text))
    return out


def load_settings(data: dict[str, Any] | None, default_game: str = "") -> TableSettings:
    """Settings from storage; unknown or invalid stored values fall back to the defaults.

    Settings stored before games had their own kept the game's fields at the top: any field
    that is not a generic one becomes `default_game`'s own (its model reads its old words).
    """
    if not data:
        return TableSettings()
    data = dict(data)
    # Still needed by channel settings and table states stored before per-game settings (their
    # `profile` and `lives` at the top): no schema step rewrites those rows.
    legacy = {k: data.pop(k) for k in list(data) if k not in TableSettings.model_fields}
    if legacy and default_game:
        games = dict(data.get("games") or {})
        games[default_game] = {**legacy, **dict(games.get(default_game) or {})}
        data["games"] = games
    known = {k: v for k, v in data.items() if k in TableSettings.model_fields}
    try:
        return TableSettings(**known)
    except ValidationError:
        good: dict[str, Any] = {}
        for k, v in known.items():
            try:
                TableSettings(**{**good, k: v})
            except ValidationError:
                continue
            good[k] = v
        return TableSettings(**good)


#: Ranges of the generic numbers (what adapters offer as option bounds).
RANGES: dict[str, tuple[int, int]] = {
    s.name: (s.low, s.high) for s in specs(TableSettings, "table") if s.kind == "number"
}
