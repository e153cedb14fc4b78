"""Seeded random Karnaval play-outs (choosing uniformly among `choices`), sized by `seeds(base)`.

At every step (tests/games/karnaval/playout.py): the 76 cards conserved (K1), tricks per deal =
cards per hand (K3, KC9), scores recomputed from the sheet (K17-K20, KC12), no hidden card in a
public event, only deciders have choices, `to_dict` round trips. Per match: the exported record
replays to the same outcome, in progress and finished; a match restored at every step plays on
identically; `choices` offers exactly the plays `play` accepts (K7, K9-K16, KC6, KC8-KC11).
"""

from __future__ import annotations

import copy
import json
import random
from collections import Counter

from bot.games.karnaval.engine import Karnaval, RuleError
from bot.games.karnaval.engine.cards import JOKER, full_deck
from bot.games.karnaval.engine.game import needs_place
from bot.games.karnaval.engine.record import export_record, outcome, replay_record
from tests.games.karnaval.playout import play_match, random_draw
from tests.playouts import seeds


def _same_outcome_after_export(k: Karnaval) -> None:
    record = json.loads(json.dumps(export_record(k), ensure_ascii=False))
    replayed, result = replay_record(record)
    assert result == outcome(k)
    assert export_record(replayed) == record


def test_k1_k3_kc9_k20_invariants_at_every_step() -> None:
    """Partial matches of 3-6 players (a quarter and a deal): every invariant at every step."""
    for seed in seeds(6):
        n = 3 + seed % 4
        played = play_match(1000 + seed, n, max_deals=n + 1)
        _same_outcome_after_export(played.match)


def test_k20_kc12_whole_matches_end_with_winners_and_replay_identically() -> None:
    """Whole matches: four quarters, totals, winners; the record replays to the same outcome."""
    for seed in seeds(3):
        n = 3 + seed % 4
        k = play_match(2000 + seed, n, check=seed == 0).match
        assert k.phase == "over" and len(k.deals) == 4 * n
        assert k.winners
        _same_outcome_after_export(k)
        out = outcome(k)
        assert out["next"] is None and len(out["quarters"]) == 4
        assert set(out["winners"]) <= set(out["order"])


def test_records_in_progress_replay_identically() -> None:
    """A match exported at random moments (mid-bid, mid-trick) replays to the same outcome."""
    for seed in seeds(4):
        rng = random.Random(3000 + seed)
        n = 3 + seed % 4
        k = Karnaval([f"P{i + 1}" for i in range(n)], random_draw(rng, n))
        for _ in range(rng.randrange(1, 60 * n)):
            if k.phase == "deal":
                deck = full_deck()
                rng.shuffle(deck)
                k.start_deal(*k.deal_from(deck))
                continue
            (seat,) = k.deciders()
            c = rng.choice(k.choices(seat))
            k.act(seat, c.action, c.arg)
        _same_outcome_after_export(k)


def test_restored_match_continues_identically() -> None:
    """A match replaced by its JSON round trip at every step plays exactly as the original."""
    for seed in seeds(2):
        n = 3 + seed % 4
        plain = play_match(4000 + seed, n, max_deals=n, check=False)
        restored = play_match(4000 + seed, n, max_deals=n, check=False, restore_every_step=True)
        assert restored.events == plain.events
        assert restored.match.to_dict() == plain.match.to_dict()


def _accepts(k: Karnaval, seat: int, cards: tuple[str, ...], choice: str | None) -> bool:
    probe = Karnaval.from_dict(k.to_dict())
    try:
        probe.play(seat, cards, choice)
    except RuleError:
        return False
    return True


def test_k7_k15_k16_choices_are_exactly_the_plays_the_rules_accept() -> None:
    """At every first step of a play, `choices` offers a card or pair iff `play` accepts it."""
    for seed in seeds(3):
        rng = random.Random(5000 + seed)
        n = 3 + seed % 4
        k = Karnaval([f"P{i + 1}" for i in range(n)])
        checked = 0
        while len(k.deals) <= n and k.phase != "over":
            if k.phase == "deal":
                deck = full_deck()
                rng.shuffle(deck)
                k.start_deal(*k.deal_from(deck))
                continue
            (seat,) = k.deciders()
            d = k.current
            assert d is not None
            if k.phase == "play" and k.pending is None:
                tokens = {c.token for c in k.choices(seat)}
                hand = d.held[seat]
                if not d.trick:  # a lead: single cards and Karnavals
                    for card in set(hand):
                        choice = "high" if card == JOKER else None
                        assert _accepts(k, seat, (card,), choice) == (f"play:{card}" in tokens)
                    count = Counter(hand)
                    cards = sorted(count)
                    for i, a in enumerate(cards):
                        for b in cards[i:]:
                            if a == b and count[a] < 2:
                                continue
                            pair = (a, b) if a == JOKER or b != JOKER else (b, a)
                            offered = f"karnaval:{pair[0]} {pair[1]}" in tokens
                            assert _accepts(k, seat, pair, None) == offered, (pair, tokens)
                elif len(d.trick[0].cards) == 1:  # following a single card
                    for card in set(hand):
                        place = needs_place(card, d.trick, d.trump)
                        choice = "top" if place else None
                        assert _accepts(k, seat, (card,), choice) == (f"play:{card}" in tokens)
                else:  # giving to a Karnaval: any card first
                    assert tokens == {f"give:{c}" for c in set(hand)}
                checked += 1
            c = rng.choice(k.choices(seat))
            k.act(seat, c.action, c.arg)
        assert checked > 0


def test_no_hidden_card_in_public_events_of_a_whole_match() -> None:
    """Across a whole match, public events name only the trump card and cards played."""
    played = play_match(6000, 4, check=False)
    for e in played.events:
        if e.kind == "hand":
            assert not e.public
        else:
            assert e.public
    played_cards = Counter(c for e in played.events if e.kind != "hand" for c in e.cards)
    trump_cards = Counter(c for e in played.events if e.kind == "dealt" for c in e.cards)
    k = played.match
    on_table = Counter(c for d in k.deals for p in d.plays for c in p.cards)
    assert played_cards - trump_cards == on_table
    assert copy.deepcopy(k.to_dict()) == k.to_dict()
