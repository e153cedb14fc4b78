"""The 42 Gnav pieces: 21 ranks, two of each (N1), and the matadors (N2)."""

from __future__ import annotations

from enum import IntEnum

from bot.games.common.engine.safejson import cut, shown


class Rank(IntEnum):
    """A Gnav rank; a higher value is a higher rank (N1)."""

    NARR = 0
    UGLE = 1
    POTTE = 2
    ZERO = 3
    I = 4  # noqa: E741 - the piece is called "I"
    II = 5
    III = 6
    IV = 7
    V = 8
    VI = 9
    VII = 10
    VIII = 11
    IX = 12
    X = 13
    XI = 14
    XII = 15
    HUS = 16
    HEST = 17
    KATT = 18
    DRAGON = 19
    GJOK = 20

    @property
    def label(self) -> str:
        """The ASCII name used in match records and outcomes (`Gjok`, `XII`, `0`...)."""
        return RANK_NAMES[self]

    @property
    def is_matador(self) -> bool:
        """True for the five named top ranks (N2)."""
        return self >= Rank.HUS


#: ASCII names, indexed by rank value (outcomes always use these, MATCH_RECORD.md).
RANK_NAMES: tuple[str, ...] = (
    "Narr",
    "Ugle",
    "Potte",
    "0",
    "I",
    "II",
    "III",
    "IV",
    "V",
    "VI",
    "VII",
    "VIII",
    "IX",
    "X",
    "XI",
    "XII",
    "Hus",
    "Hest",
    "Katt",
    "Dragon",
    "Gjok",
)

#: Display names with the Norwegian letter, for people.
DISPLAY_NAMES: tuple[str, ...] = (*RANK_NAMES[:20], "Gjøk")

NARR = int(Rank.NARR)
HUS = int(Rank.HUS)
HEST = int(Rank.HEST)
KATT = int(Rank.KATT)
DRAGON = int(Rank.DRAGON)
GJOK = int(Rank.GJOK)
FIRST_MATADOR = HUS

#: The full set: two of each of the 21 ranks (N1). Never drop the zero.
FULL_SET: tuple[int, ...] = tuple(r for r in range(21) for _ in range(2))
COPIES_PER_RANK = 2

_ROMAN = ("0", "I", "II", "III", "IV", "V", "VI", "VII", "VIII", "IX", "X", "XI", "XII")
_ALIASES: dict[str, int] = {name.casefold(): value for value, name in enumerate(RANK_NAMES)}
_ALIASES["gjøk"] = GJOK
for _number, _roman in enumerate(_ROMAN):
    _ALIASES[str(_number)] = _ALIASES[_roman.casefold()]


#: Ranks by their exact record spellings (`Gjok`, `Gjøk`, `XII`, `12`...), for fast lookups.
RANK_BY_TEXT: dict[str, int] = {name: value for value, name in enumerate(RANK_NAMES)}
RANK_BY_TEXT["Gjøk"] = GJOK
RANK_BY_TEXT.update({str(number): RANK_BY_TEXT[roman] for number, roman in enumerate(_ROMAN)})


def parse_rank(text: object) -> int:
    """Read a rank written as in a match record (`Gjok`/`Gjøk`, `XII`...`I`, `12`...`1`, `0`).

    Raises ValueError naming the text when it is not a Gnav rank.
    """
    if isinstance(text, str):
        value = _ALIASES.get(text.strip().casefold())
        if value is not None:
            return value
    if isinstance(text, int) and not isinstance(text, bool):
        raise ValueError(
            f'rank {shown(text)} is not a Gnav rank: write ranks as strings ("XII" or "12")'
        )
    raise ValueError(f"rank {_quote(text)} is not a Gnav rank")


def _quote(value: object) -> str:
    if isinstance(value, str):
        return shown(value)
    if isinstance(value, list | dict | int | float):
        return shown(value)
    return cut(repr(value))
