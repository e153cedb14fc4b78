"""Per-table settings, validated, with the names people type for them.

Settings are kept per channel, so the next table in a channel starts with the last ones used.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from bot.service.i18n import LANGUAGES

Profile = Literal["norsk", "tradisjonell"]
Language = Literal["en", "nb", "ru", "pt"]


class TableSettings(BaseModel):
    """A table's settings (issue: profile, lives 1-10, turn timeout 10-600 s, language...)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    profile: Profile = "norsk"
    lives: int = Field(default=3, ge=1, le=10)
    turn_timeout: int = Field(default=60, ge=10, le=600)
    language: Language = "en"
    next_round_delay: int = Field(default=10, ge=0, le=300)
    bots: int = Field(default=0, ge=0, le=19)


#: What people may type for each setting (`/gnav settings lives=5 timeout=90`).
ALIASES: dict[str, str] = {
    "profile": "profile",
    "rules": "profile",
    "lives": "lives",
    "life": "lives",
    "timeout": "turn_timeout",
    "turn_timeout": "turn_timeout",
    "turn": "turn_timeout",
    "language": "language",
    "lang": "language",
    "delay": "next_round_delay",
    "next_round_delay": "next_round_delay",
    "bots": "bots",
}

#: Ranges shown in error messages.
RANGES: dict[str, tuple[int, int]] = {
    "lives": (1, 10),
    "turn_timeout": (10, 600),
    "next_round_delay": (0, 300),
    "bots": (0, 19),
}

CHOICES: dict[str, tuple[str, ...]] = {
    "profile": ("norsk", "tradisjonell"),
    "language": LANGUAGES,
}


#: The name each setting is shown by when people did not type one (their own word otherwise).
SHOWN: dict[str, str] = {
    "profile": "rules",
    "lives": "lives",
    "turn_timeout": "timeout",
    "language": "language",
    "next_round_delay": "delay",
    "bots": "bots",
}

#: The longest piece of what people typed that an error message repeats.
MAX_ECHO = 40

#: A setting's number: plain ASCII digits (no sign, no `_`, no other scripts' digits), with an
#: optional `s` for seconds.
_NUMBER = re.compile(r"([0-9]{1,9})s?")


def echo(text: str, limit: int = MAX_ECHO) -> str:
    """What someone typed, as an error message repeats it: at most `limit` characters."""
    text = "".join(ch for ch in text if ch.isprintable())
    return text if len(text) <= limit else text[: limit - 1] + "…"


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


def parse_changes(words: list[str]) -> dict[str, Change]:
    """Read `name=value` words (or `name value` pairs) into a mapping of setting names, each
    with the word typed for it (error messages speak the user's words)."""
    changes: dict[str, Change] = {}
    pending: tuple[str, str] | None = None
    for word in words:
        if "=" in word:
            name, _, value = word.partition("=")
            changes[_field(name)] = Change(_typed(name), value.strip())
            pending = None
        elif pending is None:
            pending = (_field(word), _typed(word))
        else:
            changes[pending[0]] = Change(pending[1], word.strip())
            pending = None
    if pending is not None:
        raise SettingsError("settings.error.no_value", name=pending[1])
    return changes


def _typed(name: str) -> str:
    return echo(name.strip())


def _field(name: str) -> str:
    key = ALIASES.get(name.strip().casefold().replace("-", "_"))
    if key is None:
        raise SettingsError(
            "settings.error.unknown", name=_typed(name), known=", ".join(sorted(SHOWN.values()))
        )
    return key


def apply_changes(current: TableSettings, changes: Mapping[str, Change | str]) -> TableSettings:
    """`current` with `changes` (field -> typed change, or its text) applied, or SettingsError.

    Numbers are plain ASCII whole numbers (`lives=5`, `timeout=90s`): `1_0`, `+5` or
    full-width `５` are refused, although Python's `int` would take them.
    """
    data: dict[str, Any] = current.model_dump()
    for name, change in changes.items():
        if isinstance(change, str):
            change = Change(SHOWN.get(name, name), change)
        shown, text = change.typed, change.value
        if name in RANGES:
            low, high = RANGES[name]
            m = _NUMBER.fullmatch(text)
            if m is None:
                raise SettingsError("settings.error.number", name=shown, value=echo(text))
            value = int(m.group(1))
            if not low <= value <= high:
                raise SettingsError(
                    "settings.error.range", name=shown, value=value, low=low, high=high
                )
            data[name] = value
        elif name in CHOICES:
            value_text = text.strip().casefold()
            if value_text not in CHOICES[name]:
                raise SettingsError(
                    "settings.error.choice",
                    name=shown,
                    value=echo(text),
                    choices=", ".join(CHOICES[name]),
                )
            data[name] = value_text
        else:  # pragma: no cover - _field only yields known names
            raise SettingsError("settings.error.unknown", name=name, known="")
    try:
        return TableSettings(**data)
    except ValidationError as exc:  # pragma: no cover - checked above
        raise SettingsError("settings.error.invalid", detail=str(exc)) from None


def load_settings(data: dict[str, Any] | None) -> TableSettings:
    """Settings from storage; unknown or invalid stored values fall back to the defaults."""
    if not data:
        return TableSettings()
    known = {k: v for k, v in data.items() if k in TableSettings.model_fields}
    try:
        return TableSettings(**known)
    except ValidationError:
        return TableSettings()
