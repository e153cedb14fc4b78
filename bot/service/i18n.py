"""Message catalogs: every text shown to people, per language (N25).

Catalogs are JSON files in `bot/i18n/<lang>.json` mapping keys to `str.format` templates. The
Norwegian calls ("Jeg står", "Hest forbi!"...) stay in Norwegian in every language.

A template that depends on a number is a plural entry: an object of CLDR plural categories
(`{"one": "{count} life", "other": "{count} lives"}`; Russian also has "few" and "many"), every
language giving its own categories and always "other". `t(key, count=n)` picks the form by the
language's CLDR rule (Babel) and fills `{count}` too.

A platform may have its own wording of a message: the key `<platform>:<key>` (e.g.
`console:turn.now`), used by `for_platform(platform)` views and by nothing else.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from functools import cache
from importlib import resources
from string import Formatter
from typing import Any

from babel import Locale

#: CLDR plural categories a plural entry may give ("other" is required).
PLURAL_FORMS: tuple[str, ...] = ("zero", "one", "two", "few", "many", "other")

#: A catalog value: a template, or a plural entry (CLDR category -> template).
Template = str | dict[str, str]

#: Languages a table may choose: English, Norwegian bokmål, Russian, Portuguese, German.
LANGUAGES: tuple[str, ...] = ("en", "nb", "ru", "pt", "de")
DEFAULT_LANGUAGE = "en"
LANGUAGE_NAMES: dict[str, str] = {
    "en": "English",
    "nb": "Norsk bokmål",
    "ru": "Русский",
    "pt": "Português",
    "de": "Deutsch",
}


class Catalog:
    """One language's messages, falling back to English for a missing key.

    `bind` gives a view that also fills fixed parameters (the platform's command prefix...).
    """

    def __init__(
        self,
        language: str,
        messages: dict[str, Template],
        fallback: Catalog | None,
        defaults: dict[str, Any] | None = None,
        platform: str = "",
    ) -> None:
        self.language = language
        self.messages = messages
        self.fallback = fallback
        self.defaults = defaults or {}
        self.platform = platform
        #: Templates already looked up (the platform's own, the language's or English): a
        #: table message takes dozens of lookups, each up to four dictionary probes.
        self._resolved: dict[str, Template] = {}
        self._default_use: dict[str, bool] = {}
        #: A message that is one template (not a plural entry), and whether it may name a
        #: bound parameter: `t`'s whole lookup in one probe (a table message takes dozens).
        self._plain: dict[str, tuple[str, bool]] = {}
        #: What a game or the screens derive from this catalog's texts and keep, made once
        #: per catalog (a card's name, a seat's marks): a key each, prefixed by its user
        #: (`karnaval.cards`). Never stored; a catalog's texts never change, so neither may
        #: what is kept here (a `bind` or `for_platform` view starts its own).
        self.kept: dict[str, Any] = {}

    def _lookup(self, key: str) -> Template:
        found = self._resolved.get(key)
        if found is not None:
            return found
        if self.platform:
            found = self._find(f"{self.platform}:{key}")
        if found is None:
            found = self._find(key)
        if found is None:
            raise KeyError(f"no message {key!r}")
        self._resolved[key] = found
        return found

    def _find(self, key: str) -> Template | None:
        found = self.messages.get(key)
        if found is None and self.fallback is not None:
            return self.fallback._find(key)
        return found

    def template(self, key: str, count: float | None = None) -> str:
        """The raw template of `key` (of `count`'s plural form); KeyError when none has it."""
        found = self._lookup(key)
        if isinstance(found, dict):
            return found.get(self.plural_form(count), found["other"])
        return found

    def plural_form(self, count: float | None) -> str:
        """The CLDR plural category of `count` in this language ("other" without a count)."""
        if count is None:
            return "other"
        return _plural_form(self.language, count)

    def t(self, key: str, /, count: float | None = None, **params: Any) -> str:
        """The message `key` filled with `params` (and the bound parameters); a plural entry
        takes the form of `count`, which fills `{count}` too."""
        plain = self._plain.get(key)  # the usual case: one probe, no call
        if plain is not None:
            template, uses = plain
        else:
            found = self._resolved.get(key)
            if found is None:
                found = self._lookup(key)
            template = found if isinstance(found, str) else self.template(key, count)
            uses = False
            if self.defaults:
                known = self._default_use.get(template)
                uses = self._uses_defaults(template) if known is None else known
            if isinstance(found, str):
                self._plain[key] = (template, uses)
        if count is not None:
            params["count"] = count
        if uses:
            return template.format_map({**self.defaults, **params})
        return template.format_map(params)

    def _uses_defaults(self, template: str) -> bool:
        """Whether `template` may name a bound parameter (a field starting with its name:
        never a miss, at worst a needless merge), remembered per template."""
        uses = self._default_use[template] = any("{" + name in template for name in self.defaults)
        return uses

    def bind(self, **defaults: Any) -> Catalog:
        """This catalog with parameters every message may use (e.g. the command prefix)."""
        return Catalog(
            self.language,
            self.messages,
            self.fallback,
            {**self.defaults, **defaults},
            self.platform,
        )

    def for_platform(self, platform: str) -> Catalog:
        """This catalog preferring a platform's own wording (`<platform>:<key>`) where it has
        one."""
        return Catalog(self.language, self.messages, self.fallback, self.defaults, platform)

    def has(self, key: str) -> bool:
        """True when this catalog (or its fallback) has `key`."""
        return key in self.messages or (self.fallback is not None and self.fallback.has(key))


#: The CLDR locale whose plural rule a catalog language follows: the Portuguese catalogs are
#: written in European Portuguese ("ficheiro", "carrega"), where 0 takes the plural ("0
#: pontos"); Babel's plain "pt" is Brazil's rule ("0 ponto").
_PLURAL_LOCALE = {"pt": "pt_PT"}


@cache
def _plural_form(language: str, count: float) -> str:
    return str(Locale.parse(_PLURAL_LOCALE.get(language, language)).plural_form(abs(count)))


def game_texts(package: str, language: str) -> dict[str, Template]:
    """A catalog file `<package>/<language>.json` (a game's own texts, or the service's):
    its messages, or none when the package has no file for that language."""
    path = resources.files(package).joinpath(f"{language}.json")
    if not path.is_file():
        return {}  # every message then comes from the English fallback
    data = json.loads(path.read_text(encoding="utf-8"))
    return {k: v for k, v in data.items() if not k.startswith("_")}


def _load(language: str) -> dict[str, Template]:
    return game_texts("bot.i18n", language)


@cache
def catalog(language: str) -> Catalog:
    """The catalog of `language` (English when the language is not known)."""
    if language not in LANGUAGES:
        language = DEFAULT_LANGUAGE
    english = None if language == DEFAULT_LANGUAGE else catalog(DEFAULT_LANGUAGE)
    return Catalog(language, _load(language), english)


def with_game_messages(
    base: Catalog, sources: Sequence[Callable[[str], Mapping[str, Template]]]
) -> Catalog:
    """`base` with the messages of hosted games added (each game's `messages(language)`), and
    the same for its English fallback. A game's keys are its own (`karnaval.*`): one that
    would replace a service message is refused, so no game can change another's texts."""
    fallback = None if base.fallback is None else with_game_messages(base.fallback, sources)
    messages = dict(base.messages)
    for source in sources:
        for key, template in source(base.language).items():
            if key in base.messages and base.messages[key] != template:
                raise ValueError(f"a game may not replace the message {key!r}")
            messages[key] = template
    return Catalog(base.language, messages, fallback, dict(base.defaults), base.platform)


def placeholders(template: Template) -> set[str]:
    """The named fields of a template, of every form of a plural entry (for checking
    translations)."""
    if isinstance(template, dict):
        return set().union(*(placeholders(form) for form in template.values()))
    return {name for _, name, _, _ in Formatter().parse(template) if name}


def plural_forms(language: str) -> set[str]:
    """The CLDR plural categories `language` uses (what its plural entries must give)."""
    return set(Locale.parse(_PLURAL_LOCALE.get(language, language)).plural_form.tags) | {"other"}
