"""The omniscient seat of the strategy benchmarks (issue 33): a measuring tool, never a level.

An oracle seat sees every hidden piece or card and the bag or stock, and chooses by exact
look-ahead: it tries each of its legal actions on a copy of the live match and plays the rest
of the round (Gnav) or deal (Gnavspiel) out with every other seat on `normal` (the tuned
thresholds, `strategy.decide` / `strategy.choose`, which are deterministic) and itself on the
oracle again wherever it decides later, so the chosen action is the exact best response to
the `normal` seats for the round or deal under way. Ties keep `normal`'s own choice, so the
oracle differs from `normal` only where looking changes the outcome.

Since it reads the real hands it lives here, in benchmarks/, and no table can be set to it
(bot/service/settings.py knows the levels easy, normal and strong only; a test checks that).
The benchmark scripts use it with `--level oracle`: `benchmarks/strategy.py` (Gnav, duplicate
rounds, lives lost per round) and `benchmarks/gnavspiel_strategy.py` (Gnavspiel, duplicate
matches, the balance at the end). Its duplicate win rate above 0.5 is the most any honest bot
playing against `normal` seats could win in that format.
"""

from __future__ import annotations

import copy

from bot.games.gnav.engine.match import Match as GnavMatch
from bot.games.gnav.strategy import BotView, decide
from bot.games.gnavspiel.engine.match import Choice
from bot.games.gnavspiel.engine.match import Match as SpielMatch
from bot.games.gnavspiel.search import pays_after
from bot.games.gnavspiel.strategy import choose


# --------------------------------------------------------------------------- Gnav
def _gnav_loss(match: GnavMatch, seat: int, action: str) -> int:
    """Lives `seat` loses this round when it takes `action` now (a copy is played)."""
    m = copy.deepcopy(match)
    start = m.lives[seat]
    m.act(seat, action)
    while m.phase == "play":
        turn = m.turn
        assert turn is not None
        a = gnav_oracle(m, turn) if turn == seat else decide(BotView.from_match(m, turn))
        m.act(turn, a)
    return start - m.lives[seat]


def gnav_oracle(match: GnavMatch, seat: int) -> str:
    """The exact best stay/swap of `seat` against `normal` seats, seeing every piece."""
    legal = match.legal_actions(seat)
    normal = decide(BotView.from_match(match, seat))
    if len(legal) < 2:
        return normal
    losses = {a: _gnav_loss(match, seat, a) for a in legal}
    return min(legal, key=lambda a: (losses[a], a != normal))


# --------------------------------------------------------------------------- Gnavspiel
def _spiel_pays(match: SpielMatch, seat: int, first: Choice) -> int:
    """Chips `seat` pays at this deal's reveal (G7) after `first`, the others on `choose`
    and `seat` on the oracle (a copy is played)."""

    def play(m: SpielMatch, who: int) -> Choice:
        return gnavspiel_oracle(m, who) if who == seat else choose(m, who)

    return pays_after(copy.deepcopy(match), seat, first, play)


def gnavspiel_oracle(match: SpielMatch, seat: int) -> Choice:
    """The choice of `seat` with the fewest chips paid this deal against `normal` seats,
    seeing every card and the stock (a loan is always taken, as `normal` does, G8)."""
    choices = match.choices(seat)
    normal = choose(match, seat)
    if len(choices) < 2 or normal.action == "borrow" or match.phase != "play":
        return normal
    pays = {c: _spiel_pays(match, seat, c) for c in choices}
    return min(choices, key=lambda c: (pays[c], c != normal))
