"""JSON from files nobody vouches for: parsed into plain data or refused with one line.

`json.loads` alone lets hostile input through as Python errors or as data that breaks later:
an integer of more than 4,300 digits raises ValueError (CPython's int conversion limit), JSON
nested about a thousand levels deep raises RecursionError, and a `\\ud800` escape yields a
string with a lone surrogate that cannot be written as UTF-8. `loads` turns each into a
`JsonError` with a short message. JSON is RFC 8259's: `NaN`, `Infinity` and `-Infinity`
(which `json.loads` accepts) and a byte-order mark are refused too. `shown` and `cut` echo a
value in an error message: at most `MAX_SHOWN` characters, a longer value cut to its first
`MAX_SHOWN - 1` characters followed by "…" (docs/MATCH_RECORD.md, docs/KARNAVAL_RECORD.md).

Parsed data is read-only: equal objects whose values are all strings (a Karnaval draw's rounds,
repeated a million times in a hostile record) are one shared dict, so a long run of them costs a
pointer each, not a dict each (tests/games/karnaval/test_record_errors.py).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import Any

#: Deepest nesting accepted (a match record needs five levels).
MAX_DEPTH = 64
#: Most characters of an offending value an error message repeats.
MAX_SHOWN = 80


class JsonError(ValueError):
    """JSON that cannot be used; the message is one short line."""


def _no_constant(name: str) -> Any:
    raise JsonError(f"not valid JSON: {name} is not a JSON value (RFC 8259)")


def loads(text: str) -> Any:
    """Parse `text` into plain data: RFC 8259 JSON (no `NaN`, `Infinity`, byte-order mark),
    no lone surrogates, at most `MAX_DEPTH` levels deep."""
    shared = _Shared()
    try:
        data = json.loads(text, parse_constant=_no_constant, object_pairs_hook=shared)
    except json.JSONDecodeError as exc:
        raise JsonError(
            f"not valid JSON: line {exc.lineno}, column {exc.colno}: {exc.msg}"
        ) from None
    except JsonError:
        raise
    except RecursionError:
        raise JsonError(f"JSON nested more than {MAX_DEPTH} levels deep") from None
    except ValueError as exc:  # e.g. "Exceeds the limit (4300 digits) for integer string ..."
        raise JsonError(f"not usable JSON: {shown(str(exc))}") from None
    # Walk the data only when the text could hold what is refused (most files cannot).
    strings = _may_hold_surrogates(text)
    if strings or text.count("[") + text.count("{") > MAX_DEPTH:
        check(data, strings=strings, flat=shared.memo.values())
    return data


class _Shared:
    """An `object_pairs_hook` giving equal objects of strings one shared dict (per parse)."""

    def __init__(self) -> None:
        self.memo: dict[tuple[tuple[str, Any], ...], dict[str, Any]] = {}

    def __call__(self, pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        if pairs and type(pairs[-1][1]) is not str:
            return dict(pairs)  # not of strings only (the cheap look: most such objects)
        key = tuple(pairs)
        try:
            return self.memo[key]  # a hit equals a stored key, all of whose values are strings
        except TypeError:  # a list or an object among the values: not shared
            return dict(pairs)
        except KeyError:
            made = dict(pairs)
            if all(type(v) is str for v in made.values()):
                self.memo[key] = made
            return made


_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


def _may_hold_surrogates(text: str) -> bool:
    if _SURROGATE_ESCAPE.search(text):
        return True
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def check(data: Any, *, strings: bool = True, flat: Iterable[dict[str, Any]] = ()) -> None:
    """Refuse nesting deeper than `MAX_DEPTH` and (with `strings`) strings with lone
    surrogates; walked without recursion. `flat`: objects known to hold strings only (those
    `loads` shares): each is looked at once, not once per place it appears (a hostile record
    repeats one a million times)."""
    flat_ids = {id(obj) for obj in flat}
    if strings:
        for obj in flat:
            for key, item in obj.items():
                _check_text(key)
                _check_text(item)
    nothing: set[int] = set()
    stack: list[tuple[Any, int]] = [(data, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, str):
            if strings:
                _check_text(value)
            continue
        if not isinstance(value, dict | list):
            continue
        if depth > MAX_DEPTH:
            raise JsonError(f"JSON nested more than {MAX_DEPTH} levels deep")
        if isinstance(value, dict):
            if strings:
                for key in value:
                    _check_text(key)
            value = value.values()
        # One level down a flat object is still within the limit; one more is not.
        skip = flat_ids if depth < MAX_DEPTH else nothing
        if len(value) > 64 and skip and skip.issuperset(map(id, value)):
            continue  # shared objects only (a hostile record's million rounds), passed in C
        deeper = depth + 1
        for item in value:
            if isinstance(item, dict | list):
                if id(item) not in skip:
                    stack.append((item, deeper))
            elif strings and isinstance(item, str):
                stack.append((item, deeper))


def _check_text(text: str) -> None:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        bad = text[exc.start]
        raise JsonError(
            f"a string holds a lone surrogate (\\u{ord(bad):04x}), which is not text: {shown(text)}"
        ) from None


def shown(value: Any, limit: int = MAX_SHOWN) -> str:
    """`value` as an error message shows it: JSON (strings quoted), at most `limit`
    characters of it, never a lone surrogate."""
    if isinstance(value, int) and not isinstance(value, bool) and abs(value).bit_length() > 256:
        text = f"<an integer of about {int(abs(value).bit_length() * 0.30103) + 1} digits>"
    else:
        try:
            text = json.dumps(value, ensure_ascii=False)
        except (RecursionError, TypeError, ValueError):
            text = "<a value>"
    text = text.encode("utf-8", "backslashreplace").decode("utf-8")
    text = text.replace("\n", " ")
    return text if len(text) <= limit else text[: limit - 1] + "…"


def cut(text: str, limit: int = MAX_SHOWN) -> str:
    """A piece of text (a name) as an error message shows it: at most `limit` characters,
    never a lone surrogate."""
    text = text.encode("utf-8", "backslashreplace").decode("utf-8").replace("\n", " ")
    return text if len(text) <= limit else text[: limit - 1] + "…"
