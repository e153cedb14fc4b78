"""Helpers shared by the storage back-ends: JSON encoding, statistics rows, and turning the
driver's outage errors into the one `StoreUnavailable` the service understands."""

from __future__ import annotations

import base64
import functools
import inspect
from collections.abc import Callable, Iterable, Sequence
from typing import Any, TypeVar

import orjson

from bot.service.ports import (
    Button,
    OutMessage,
    Picture,
    PlayerStats,
    Screen,
    StatDelta,
    StoreUnavailable,
    TablePart,
    TableShot,
)

_OPTIONS = orjson.OPT_NON_STR_KEYS


def dump_json(value: Any) -> str:
    """Compact JSON text for a stored document (state, record, settings).

    orjson encodes a table's state several times faster than the standard library, which
    matters because every accepted command stores its table. It refuses what no store can
    keep: TypeError for what JSON cannot hold, ValueError for a lone surrogate (not UTF-8) and
    for NaN or infinity (orjson would write null; a game state never holds such a number).
    """
    try:
        data = orjson.dumps(value, option=_OPTIONS)
    except orjson.JSONEncodeError as exc:
        if "surrogates" in str(exc) or "UTF-8" in str(exc):
            raise ValueError(str(exc)) from None
        raise TypeError(str(exc)) from None
    return data.decode()


def load_json(text: str) -> Any:
    """Parse stored JSON text."""
    return orjson.loads(text)


def table_parts(value: Any) -> list[TablePart]:
    """A table's finished parts as the stores read them with the row, in one statement: a JSON
    array of `[seq, owner, data]` (SQLite: its text; PostgreSQL: decoded jsonb), in seq order."""
    items = load_json(value) if isinstance(value, str) else value
    ordered = sorted(items or (), key=_seq)
    return [TablePart(int(seq), str(owner), data) for seq, owner, data in ordered]


def _seq(item: Sequence[Any]) -> int:
    return int(item[0])


#: Counters named so keep the highest value given (a best game total), not the sum.
BEST_PREFIX = "best_"


def is_best(counter: str) -> bool:
    """True for a counter that keeps its maximum (`best_...`) instead of adding up."""
    return counter.startswith(BEST_PREFIX)


def combine(counter: str, stored: int | None, value: int) -> int:
    """A counter's new value: the sum, or for a `best_` counter the higher of the two."""
    if stored is None:
        return value
    return max(stored, value) if is_best(counter) else stored + value


#: A player's name under statistics: (chat, game, user, name).
NameRow = tuple[str, str, str, str]
#: One counter's increment: (chat, game, user, counter, increment).
CounterRow = tuple[str, str, str, str, int]


def stat_rows(deltas: Sequence[StatDelta]) -> tuple[list[NameRow], list[CounterRow]]:
    """The rows a save writes for its statistics deltas, summed per key and sorted by key.

    Every delta's player gets a name row (the last name given wins); counters that add up to
    nothing are left out (a `best_` counter is kept: its rows hold maxima, 0 included).
    Sorting makes concurrent transactions lock rows in one order.
    """
    if not deltas:
        return [], []  # most saves: a step that ended no round
    names: dict[tuple[str, str, str], str] = {}
    sums: dict[tuple[str, str, str, str], int] = {}
    for d in deltas:
        names[(d.chat, d.game, d.user)] = d.name
        for counter, value in d.counters.items():
            key = (d.chat, d.game, d.user, counter)
            sums[key] = combine(counter, sums.get(key), value)
    name_rows = [(*key, name) for key, name in sorted(names.items())]
    counter_rows = [
        (*key, value) for key, value in sorted(sums.items()) if value or is_best(key[3])
    ]
    return name_rows, counter_rows


def group_stats(game: str, rows: Iterable[Sequence[Any]]) -> list[PlayerStats]:
    """PlayerStats from (user, name, counter, value) rows (counter None: no counters yet)."""
    found: dict[str, PlayerStats] = {}
    for user, name, counter, value in rows:
        stats = found.get(user)
        if stats is None:
            stats = found[user] = PlayerStats(user=user, name=name, game=game, counters={})
        if counter is not None:
            stats.counters[counter] = int(value)
    return [found[u] for u in sorted(found)]


class DuplicateMatchError(ValueError):
    """A finished match's id is already stored; the save that carried it stored nothing."""


#: Most messages of one table claimed at once per lane (a lease is renewed with every batch):
#: the channel's (posts and the table message) and the private ones (`tell`) are claimed
#: apart, each its oldest, so a private screen never waits behind a batch of the channel's
#: messages, which wait for the group's budget (docs/scaling.md, the lanes).
CLAIM_BATCH = 20


def lane_of(kind: str) -> str:
    """The lane an outbox message of `kind` goes by: "private" (a `tell`) or "channel"."""
    return "private" if kind == "tell" else "channel"


def more_in_lanes(kinds: Iterable[str]) -> bool:
    """Whether a claim whose rows have `kinds` stopped at its size in a lane (more may wait
    in the store)."""
    counts = {"channel": 0, "private": 0}
    for kind in kinds:
        counts[lane_of(kind)] += 1
    return max(counts.values()) >= CLAIM_BATCH


def _button_json(b: Button) -> list[str]:
    """A button as stored: label, token, role, then its link and kind when it has them (a
    button stored before kinds is a game's choice; before links, it has none)."""
    if b.kind != "choice":
        return [b.label, b.token, b.role, b.url, b.kind]
    return [b.label, b.token, b.role, *([b.url] if b.url else [])]


def _screen_json(screen: Screen | TableShot) -> dict[str, Any]:
    if isinstance(screen, TableShot):  # rendered at delivery: only what to render is kept
        return {
            "shot": {
                "table_id": screen.table_id,
                "message": screen.message,
                "version": screen.version,
                "note": screen.note,
                "buttons": screen.buttons,
            }
        }
    data: dict[str, Any] = {
        "text": screen.text,
        "buttons": [[_button_json(b) for b in row] for row in screen.buttons],
        "literals": list(screen.literals),
        "blocks": list(screen.blocks),
    }
    if screen.image is not None:
        data["image"] = _picture_json(screen.image)
    if screen.log:
        data["log"] = list(screen.log)
    if screen.language:
        data["language"] = screen.language
    if screen.told:
        data["told"] = list(screen.told)
    return data


def _picture_json(picture: Picture) -> dict[str, str]:
    """A picture in the stored JSON: its bytes in base64 (JSON holds text only)."""
    return {
        "filename": picture.filename,
        "data": base64.b64encode(picture.data).decode("ascii"),
        "alt": picture.alt,
    }


def _screen(data: dict[str, Any]) -> Screen | TableShot:
    shot = data.get("shot")
    if shot is not None:
        return TableShot(
            shot["table_id"], shot["message"], shot["version"], shot["note"], shot["buttons"]
        )
    image = data.get("image")  # stored before pictures existed: none
    return Screen(
        data["text"],
        tuple(tuple(Button(*b) for b in row) for row in data["buttons"]),
        tuple(data["literals"]),
        tuple(data.get("blocks", ())),  # stored before blocks existed: none
        None
        if image is None
        else Picture(image["filename"], base64.b64decode(image["data"]), image.get("alt", "")),
        tuple(data.get("log", ())),  # stored without a log (none, or before logs existed)
        data.get("language", ""),  # stored before screens said their language: none
        tuple(data.get("told", ())),  # stored without lines the log told (none)
    )


def message_payload(message: OutMessage) -> dict[str, Any]:
    """The stored JSON of an outbox message: its screen (and freeze), rendered or a shot of
    the table to render at delivery."""
    payload: dict[str, Any] = {"screen": _screen_json(message.screen)}
    if message.freeze is not None:
        payload["freeze"] = _screen_json(message.freeze)
    return payload


def out_message(
    id: int,
    table_key: str,
    kind: str,
    target: str | None,
    payload: dict[str, Any],
    created_at: float,
    attempts: int,
) -> OutMessage:
    """An outbox message from its stored columns."""
    freeze = payload.get("freeze")
    return OutMessage(
        kind=kind,
        screen=_screen(payload["screen"]),
        user=target,
        freeze=_screen(freeze) if freeze is not None else None,
        id=id,
        table_key=table_key,
        created_at=created_at,
        attempts=attempts,
    )


#: Says why an error of the driver means the store is away now (one line), or None when it
#: is an error of the request itself (a conflict, a bug): raised as it is.
Classify = Callable[[BaseException], str | None]

_Repo = TypeVar("_Repo", bound=type)


def raise_unavailable(classify: Classify, *, skip: Iterable[str] = ()) -> Callable[[_Repo], _Repo]:
    """A class decorator: every public coroutine method (but those in `skip`) raises
    StoreUnavailable, with the reason `classify` gives, for an error that means the store is
    away (connection refused or lost, disk full, I/O error); other errors pass unchanged."""
    skipped = set(skip)

    def decorate(cls: _Repo) -> _Repo:
        for name, member in list(vars(cls).items()):
            if name.startswith("_") or name in skipped:
                continue
            if inspect.iscoroutinefunction(member):
                setattr(cls, name, _translated(member, classify))
        return cls

    return decorate


def _translated(method: Callable[..., Any], classify: Classify) -> Callable[..., Any]:
    @functools.wraps(method)
    async def translated(*args: Any, **kwargs: Any) -> Any:
        try:
            return await method(*args, **kwargs)
        except StoreUnavailable:
            raise
        except Exception as exc:
            reason = classify(exc)
            if reason is None:
                raise
            raise StoreUnavailable(reason) from exc

    return translated


def one_line(exc: BaseException) -> str:
    """An exception as one short line: its type and its words."""
    words = " ".join(str(exc).split())
    text = f"{type(exc).__name__}: {words}" if words else type(exc).__name__
    return text[:300]
