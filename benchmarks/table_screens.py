"""What the group's table message and the private screens look like over whole games (issue
30): for each game and number of players, the table message's largest size (lines and
characters) over the whole game and at the end of the first 12-card deal (Karnaval's fourth
quarter), and how many screens a person got that list a choice twice (a text list above
buttons of the same choices). The games run through the service with one person (random
legal choices, seeded) and bot seats, on the in-memory store and a fake clock.

    PYTHONPATH=. python benchmarks/table_screens.py
    PYTHONPATH=. python benchmarks/table_screens.py --show --language ru
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.service.conftest import Harness
from tests.service.table_walk import repeated_choices, size, walk

#: (label, game, players, more settings)
GAMES = (
    ("karnaval 3", "karnaval", 3, ()),
    ("karnaval 6", "karnaval", 6, ()),
    ("gnav norsk 4", "gnav", 4, ()),
    ("gnav tradisjonell 4", "gnav", 4, ("rules=tradisjonell",)),
    ("gnavspiel 4", "gnavspiel", 4, ()),
)


async def measure(label: str, game: str, players: int, words: tuple[str, ...], args) -> None:
    """Play one whole game and print its figures (and, with `--show`, its screens)."""
    w = await walk(
        Harness(seed=args.seed), game, players, seed=args.seed, language=args.language, words=words
    )
    sizes = [size(s) for _, s in w.table]
    lines = max(n for n, _ in sizes)
    chars = max(c for _, c in sizes)
    screens = w.private + w.views + [s for _, s in w.table]
    repeated = sum(1 for s in screens if repeated_choices(s))
    print(
        f"{label:22} table message max {lines:3} lines {chars:5} chars; "
        f"screens {len(screens):5}, listing a choice twice {repeated:5}"
    )
    if game == "karnaval":
        first12 = 3 * players + 1  # the fourth quarter's first deal: 12 cards each
        during = [s for d, s in w.table if d == first12]
        worst = max(during, key=lambda s: size(s)[1])
        refs = [ref for d, ref in w.messages if d == first12]
        last = w.versions[refs[0]][-1]  # the deal's own message as its last move left it
        reveal = w.versions[refs[1]][0]  # the deal's result, posted after it
        print(
            f"{'':22} deal {first12} (12 cards): largest {size(worst)[0]} lines "
            f"{size(worst)[1]} chars; at its end {size(last)[0]} lines {size(last)[1]} chars;"
            f" its result {size(reveal)[0]} lines {size(reveal)[1]} chars"
        )
        if args.show:
            print(w.versions[refs[0]][len(w.versions[refs[0]]) // 2].text, "\n")
            print(last.text, "\n")
            print(reveal.text, "\n")
    elif args.show:
        # The first round's own message in the middle of the round and at its end, then the
        # round's result posted after it.
        refs = [ref for d, ref in w.messages if d == 1]
        versions = w.versions[refs[1]]  # refs[0] is the lobby's
        print(versions[len(versions) // 2].text, "\n")
        print(versions[-1].text, "\n")
        print(w.versions[refs[2]][0].text, "\n")


async def main() -> None:
    """Every game of `GAMES` (or those named)."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--language", default="en")
    parser.add_argument("--show", action="store_true", help="print some table messages")
    parser.add_argument("--only", nargs="*", default=None, help="labels' first words")
    args = parser.parse_args()
    for label, game, players, words in GAMES:
        if args.only and not any(label.startswith(o) for o in args.only):
            continue
        await measure(label, game, players, words, args)


if __name__ == "__main__":
    asyncio.run(main())
