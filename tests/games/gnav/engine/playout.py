"""Seeded random play-outs of whole matches, checking the engine's invariants at every step.

Chance and choices come from one `random.Random(seed)`: the deal is the 42 pieces shuffled and
handed to `Match.deal_from` (N4), every decision is a random legal action. The checks are
those docs/architecture.md asks of engine tests: 42 pieces conserved (N1, N24), lives + bank
accounted (N3, N6), no hidden rank in a public event (N16, N25), each private `piece` event for
its own seat and equal to the hand, `to_dict` round trips through JSON, only the player to act
may act (N8).
"""

from __future__ import annotations

import json
import random
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from bot.games.gnav.engine.errors import NotYourTurn, RuleError
from bot.games.gnav.engine.events import EVERYONE, PUBLIC_KINDS, RANKED_PUBLIC_KINDS, Event
from bot.games.gnav.engine.match import NO_PIECE, Match
from bot.games.gnav.engine.pieces import FULL_SET, HEST, HUS, NARR

#: Every rank exactly twice (N1).
FULL_COUNT = Counter(FULL_SET)


@dataclass
class Playout:
    """What a play-out saw: every event in order and the rounds it took."""

    match: Match
    events: list[Event] = field(default_factory=list)
    rounds: int = 0
    steps: int = 0


def normalised(data: Any) -> Any:
    """`data` as it comes back from JSON (tuples become lists)."""
    return json.loads(json.dumps(data))


def check_pieces(match: Match) -> None:
    """N1, N6, N24: hands (sit-outs included) and bag hold the 42 pieces, each rank twice."""
    assert match.pieces_accounted() == len(FULL_SET)
    held = Counter(r for r in match.hands if r != NO_PIECE)
    held.update(match.bag)
    assert held == FULL_COUNT


def check_events(match: Match, events: list[Event], known: dict[int, int]) -> None:
    """Public events carry no hidden rank; private ones go to their own seat (N16, N25)."""
    for e in events:
        if e.audience == EVERYONE:
            assert e.kind in PUBLIC_KINDS, e
            if e.kind in RANKED_PUBLIC_KINDS:
                assert e.rank in (HEST, HUS), e  # N15, N16: only the refusing Hest/Hus shows
            else:
                assert e.rank == -1, e
            if e.kind == "reveal":  # N18: every participant's piece, and only theirs
                assert dict(e.data) == {s: match.hands[s] for s in match.order}, e
            else:
                assert e.data == (), e
        else:
            assert e.kind == "piece", e
            assert e.seats == (e.audience,), e
            assert 0 <= e.rank < len(FULL_COUNT), e
            known[e.audience] = e.rank


def check_known_hands(match: Match, known: dict[int, int]) -> None:
    """Every seat holding a piece was told exactly that piece by its private events."""
    for seat, rank in enumerate(match.hands):
        if rank != NO_PIECE:
            assert known.get(seat) == rank, (seat, rank, known.get(seat))


def check_turns(match: Match) -> None:
    """N8: every seat but the one to act is refused, and the refusal changes nothing."""
    turn = match.turn
    assert turn is not None
    legal = match.legal_actions(turn)
    if match.profile.narr_may_not_stay and match.hands[turn] == NARR:
        assert legal == ("swap",)  # T3
    else:
        assert legal == ("stay", "swap")
    before = (match.pos, list(match.hands), list(match.bag), list(match.lives), match.bank)
    for seat in range(match.n):
        if seat == turn:
            continue
        assert match.legal_actions(seat) == ()
        for action in ("stay", "swap"):
            try:
                match.act(seat, action)
            except NotYourTurn:
                pass
            else:  # pragma: no cover - a failure
                raise AssertionError(f"seat {seat} acted out of turn")
    assert before == (match.pos, list(match.hands), list(match.bag), list(match.lives), match.bank)


def check_round_trip(match: Match) -> Match:
    """`to_dict` -> JSON -> `from_dict` -> `to_dict` is the identity; returns the restored match."""
    text = json.dumps(match.to_dict())
    restored = Match.from_dict(json.loads(text))
    assert json.dumps(restored.to_dict()) == text
    return restored


def play_match(
    seed: int,
    n: int,
    profile: str,
    lives: int,
    *,
    restore_every_step: bool = False,
    check: bool = True,
    forfeit_rate: float = 0.0,
    max_rounds: int = 5000,
) -> Playout:
    """Play a whole match with random deals and random legal actions from `random.Random(seed)`.

    With `restore_every_step` the match is replaced after every step by its JSON round trip, so
    a second play-out with the same seed shows whether a restored match continues identically.
    `forfeit_rate` is the chance per step that a random player still in forfeits (Match.forfeit).
    """
    rng = random.Random(seed)
    names = [f"P{i}" for i in range(n)]
    match = Match(names, profile=profile, lives=lives, dealer=rng.randrange(n))
    out = Playout(match)
    known: dict[int, int] = {}
    while match.phase != "finished":
        assert out.rounds < max_rounds, "the match does not end (N23)"
        if forfeit_rate and match.history and rng.random() < forfeit_rate:
            seat = rng.choice(match.players_left)
            events = match.forfeit(seat)
            out.events.extend(events)
            if check:
                check_events(match, events, known)
                assert match.tokens_accounted()
            if match.phase == "finished":
                break
        pieces = list(FULL_SET)
        rng.shuffle(pieces)
        deal, bag = match.deal_from(pieces)
        known.clear()
        events = match.start_round(deal, bag)
        out.rounds += 1
        out.events.extend(events)
        if check:
            check_events(match, events, known)
            assert match.tokens_accounted()
            if match.phase == "play":
                check_pieces(match)
                check_known_hands(match, known)
        while match.phase == "play":
            if check:
                check_turns(match)
                restored = check_round_trip(match)
                if restore_every_step:
                    match = out.match = restored
            candidates = [s for s in match.players_left if s not in match.leaving]
            if forfeit_rate and candidates and rng.random() < forfeit_rate:
                events = match.forfeit(rng.choice(candidates))
                out.events.extend(events)
                if check:
                    check_events(match, events, known)
            turn = match.turn
            assert turn is not None
            action = rng.choice(match.legal_actions(turn))
            if action == "stay" and check and match.profile.narr_may_not_stay:
                assert match.hands[turn] != NARR
            events = match.act(turn, action)
            out.steps += 1
            out.events.extend(events)
            if check:
                check_events(match, events, known)
                check_pieces(match)
                check_known_hands(match, known)
                assert match.tokens_accounted()
        if check and match.phase != "finished":
            match = _restore_between_rounds(match, restore_every_step)
            out.match = match
    if check:
        assert match.winners, "N23: a finished match has winners"
        assert all(not match.in_match[s] or s in match.winners for s in range(n))
        try:
            match.start_round(*match.deal_from(list(FULL_SET)))
        except RuleError:
            pass
        else:  # pragma: no cover - a failure
            raise AssertionError("a round started after the match was over")
    return out


def _restore_between_rounds(match: Match, restore: bool) -> Match:
    restored = check_round_trip(match)
    return restored if restore else match
