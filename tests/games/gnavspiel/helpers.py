"""Small builders for Gnavspiel tests: matches from card names, replay through actions."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from bot.games.gnavspiel.engine import CARD_BY_NAME, CARD_NAMES, Event, Match, event_text

NAMES = ("Ann", "Bob", "Cid", "Dot", "Eve", "Fay")


def cards(names: Iterable[str]) -> list[int]:
    """Card names -> cards."""
    return [CARD_BY_NAME[c] for c in names]


def full_stock(deal: Mapping[str, str], top: Sequence[str] = ()) -> list[int]:
    """`top` first, then every other card not dealt, lowest first (G3: the stock is the rest)."""
    used = set(deal.values()) | set(top)
    rest = [c for c in CARD_NAMES if c not in used]
    return cards([*top, *rest])


def new_match(
    deal: Mapping[str, str],
    top: Sequence[str] = (),
    *,
    dealer: str | None = None,
    chips: int = 5,
    deals: int = 0,
    variants: Sequence[str] = (),
    seats: Sequence[str] | None = None,
) -> Match:
    """A match whose first deal is `deal` (name -> card) over the stock `top` + the rest."""
    names = list(seats) if seats is not None else list(NAMES[: len(deal)])
    m = Match(
        names,
        chips=chips,
        deals=deals,
        variants=variants,
        dealer=names.index(dealer) if dealer else len(names) - 1,
    )
    start(m, deal, top)
    return m


def start(m: Match, deal: Mapping[str, str], top: Sequence[str] = ()) -> list[Event]:
    """Start the next deal of `m` with `deal` (name -> card) and the stock `top` + the rest."""
    per_seat = [-1] * m.n
    for name, card in deal.items():
        per_seat[m.seats.index(name)] = CARD_BY_NAME[card]
    return m.start_deal(per_seat, full_stock(deal, top))


def play(m: Match, *steps: str) -> list[Event]:
    """Play "Name verb" steps; returns every event they caused."""
    out: list[Event] = []
    for step in steps:
        name, verb = step.split()
        out += m.act(m.seats.index(name), verb)
    return out


def texts(m: Match, events: Iterable[Event]) -> list[str]:
    """The public events' record strings."""
    return [event_text(e, m.seats) for e in events if e.public]


def log_texts(m: Match) -> list[str]:
    """The public events of the newest deal so far."""
    log = m.log
    assert log is not None
    return [event_text(e, m.seats) for e in log.events]


def hand(m: Match, name: str) -> str:
    """The card a player holds now."""
    return CARD_NAMES[m.hands[m.seats.index(name)]]
