"""A second, deliberately plain reading of RULES.md, used as an oracle for the engine.

`reference_outcome(record)` folds a *valid* match record (norsk or tradisjonell, no forfeits)
into its outcome without any of the engine's code: names instead of seat indexes, lists instead
of the engine's structures, one function per rule. It is slow and makes no effort to report
invalid records; differential tests compare it with `replay_record` on random matches, so a
bug has to be made twice, the same way, to go unseen.
"""

from __future__ import annotations

from typing import Any

ORDER = [
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
]
_ARABIC = {str(i): name for i, name in enumerate(ORDER[3:16])}


def _rank(text: str) -> str:
    """The ASCII name of a rank as a record may write it (N1, MATCH_RECORD.md)."""
    if text == "Gjøk":
        return "Gjok"
    return _ARABIC.get(text, text)


def _low(rank: str) -> int:
    return ORDER.index(rank)


class _Round:
    """One round being played (N8-N18), on names."""

    def __init__(self, table: _Table, deal: dict[str, str], bag: list[str]) -> None:
        self.t = table
        self.hands = dict(deal)
        self.top = list(bag)  # the listed top of the bag, first drawn first
        self.complete = len(deal) + len(bag) == len(ORDER) * 2
        self.bottom: list[str] = []  # what went back under the unlisted rest (C4)
        self.exchanges: list[tuple[str, str | None, str]] = []  # (asker, partner|None=bag, gave)
        self.lost_turn: set[str] = set()
        self.order: list[str] = []
        self.events: list[str] = []

    # -- the bag (N17, C4)
    def draw(self) -> str:
        """N17: the top of the bag (C4: a complete bag goes on into what was put back)."""
        if not self.top:
            # Only a complete bag (every piece not dealt is listed) goes on into what was put
            # back; a partial one would reach the pieces the record does not list.
            if self.complete and self.bottom:
                return self.bottom.pop(0)
            raise AssertionError("drawn past the listed bag: not a valid record")
        return self.top.pop(0)

    def take_back(self, rank: str) -> None:
        """C4: the copy nearest the bottom leaves the bag."""
        for pile in (self.bottom, self.top):
            for i in range(len(pile) - 1, -1, -1):
                if pile[i] == rank:
                    del pile[i]
                    return
        raise AssertionError(f"{rank} is not in the bag")

    # -- matadors
    def katt(self) -> None:
        """N14: undo every recorded exchange, newest first."""
        for asker, partner, gave in reversed(self.exchanges):
            if partner is None:
                self.take_back(gave)
                self.bottom.append(self.hands[asker])
                self.hands[asker] = gave
            else:
                self.hands[asker], self.hands[partner] = self.hands[partner], self.hands[asker]
        self.exchanges = []

    def pay_matador(self, player: str) -> None:
        """N13, N14, N17: the asker loses a life to a Dragon or a Katt."""
        self.t.lives[player] -= 1

    def ask_neighbour(self, asker: str, at: int, passed: list[str]) -> str | None:
        """N9-N16, C3, T2. Returns "gjok", "reveal" or None (play goes on after the asker)."""
        asked = self.order[at]
        rank = self.hands[asked]
        last = at == len(self.order) - 1
        if rank in ("Hest", "Hus"):
            self.events.append(f"forbi {asked} {rank}")
            if last:
                return self.ask_bag(asker)
            return self.ask_neighbour(asker, at + 1, [*passed, asked])
        if rank == "Gjok":
            self.events.append(f"gjok {asked}")
            return "gjok"
        if rank == "Dragon":
            self.pay_matador(asker)
            self.events.append(f"hugg_av {asked} {asker}")
            if self.t.profile == "tradisjonell":
                self.lost_turn.update([*passed, asked])
                if last:
                    return "reveal"
            return None
        if rank == "Katt":
            self.pay_matador(asker)
            self.events.append(f"kiss {asked} {asker}")
            self.katt()
            return None
        mine = self.hands[asker]
        self.hands[asker], self.hands[asked] = rank, mine
        self.exchanges.append((asker, asked, mine))
        self.events.append(f"swap {asker} {asked}")
        return None

    def ask_bag(self, asker: str) -> str | None:
        """N17, C3, C4: a request to the bag. Returns "gjok", "reveal" or None."""
        skipped: list[str] = []
        while True:
            rank = self.draw()
            if rank in ("Hest", "Hus"):
                skipped.append(rank)
                self.events.append(f"bag_forbi {asker} {rank}")
                continue
            if rank not in ("Gjok", "Dragon", "Katt"):
                mine = self.hands[asker]
                self.hands[asker] = rank
                self.bottom += [mine, *skipped]
                self.exchanges.append((asker, None, mine))
                self.events.append(f"bag_swap {asker}")
                return None
            self.bottom += [*skipped, rank]
            if rank == "Gjok":
                self.events.append(f"bag_gjok {asker}")
                return "gjok"
            self.pay_matador(asker)
            if rank == "Dragon":
                self.events.append(f"bag_hugg_av {asker}")
                return "reveal" if self.t.profile == "tradisjonell" else None
            self.events.append(f"bag_kiss {asker}")
            self.katt()
            return None


class _Table:
    def __init__(self, record: dict[str, Any]) -> None:
        self.profile = record.get("profile", "norsk")
        self.seats: list[str] = list(record["seats"])
        self.lives = {s: 3 for s in self.seats}
        self.lives.update(record.get("lives", {}))
        self.alive = list(self.seats)
        self.dealer: str = record["dealer"]
        self.sit_next: list[str] = []
        self.winners: list[str] | None = None

    def left_of(self, player: str) -> list[str]:
        """Everyone from `player`'s left neighbour round to `player` itself (clockwise)."""
        i = self.seats.index(player)
        n = len(self.seats)
        return [self.seats[(i + k) % n] for k in range(1, n + 1)]

    def play(self, rnd: dict[str, Any]) -> dict[str, Any]:
        """One round of the record: its outcome entry (MATCH_RECORD.md)."""
        deal = {p: _rank(r) for p, r in rnd["deal"].items()}
        r = _Round(self, deal, [_rank(x) for x in rnd.get("bag", [])])
        dealer = self.dealer
        sitting = [s for s in self.seats if s in self.sit_next]  # T4, announced first
        r.events += [f"sit_out {s}" for s in sitting]
        self.sit_next = []
        narr = [s for s in self.seats if deal.get(s) == "Narr"]
        r.events += [f"knock {s}" for s in narr]  # N5
        if self.profile == "norsk" and len(narr) == 2:  # N6
            for s in narr:
                self.lives[s] += 1
            r.events += [f"sit_out {s}" for s in narr]
            sitting += narr
        r.order = [p for p in self.left_of(dealer) if p in self.alive and p not in sitting]
        if len(r.order) < 2:  # N7, C1: same dealer again
            r.events.append("redeal")
            return self.result(dealer, r, "redeal", {}, [])
        actions = list(rnd.get("actions", []))
        at = 0
        end: str | None = None
        while True:
            while at < len(r.order) and r.order[at] in r.lost_turn:
                at += 1
            if at == len(r.order):
                end = "reveal"
                break
            if not actions:
                return self.result(dealer, r, None, {}, [])
            player, verb = actions.pop(0)
            assert player == r.order[at], (player, r.order[at])
            if verb == "stay":
                if self.profile == "tradisjonell":
                    assert r.hands[player] != "Narr", "T3"
                r.events.append(f"stay {player}")
                at += 1
                continue
            if at == len(r.order) - 1:
                stop = r.ask_bag(player)
            else:
                stop = r.ask_neighbour(player, at + 1, [])
            if stop is not None:
                end = stop
                break
            at += 1
        assert not actions, "actions after the end"
        return self.reveal(dealer, r, end, deal)

    def reveal(self, dealer: str, r: _Round, end: str, deal: dict[str, str]) -> dict[str, Any]:
        """N18-N24, T4, C6-C8: who pays, who leaves, the winners or the next dealer."""
        r.events.append("reveal")  # N18
        shown = {p: r.hands[p] for p in r.order}
        narr = [p for p in r.order if shown[p] == "Narr"]
        if len(narr) == 1:  # N20
            rest = [_low(v) for p, v in shown.items() if p not in narr]
            payers = set(narr) | {p for p, v in shown.items() if _low(v) == min(rest)}
        else:  # N19, C6
            low = min(_low(v) for v in shown.values())
            payers = {p for p, v in shown.items() if _low(v) == low}
        for p in self.seats:
            if p in payers:
                self.lives[p] -= 1
                r.events.append(f"pay {p}")
        out = [p for p in self.seats if p in self.alive and self.lives[p] <= 0]  # N22
        r.events += [f"out {p}" for p in out]
        self.alive = [p for p in self.alive if p not in out]
        if len(self.alive) <= 1:  # N23
            self.winners = self.alive or out
            r.events += [f"win {p}" for p in self.winners]
        else:
            if self.profile == "tradisjonell" and list(deal.values()).count("Narr") == 2:
                rights = [p for p in narr if p in self.alive]  # T4, C8
                if len(self.alive) - len(rights) >= 2:
                    self.sit_next = rights
            self.dealer = next(p for p in self.left_of(dealer) if p in self.alive)  # N24, C7
        return self.result(dealer, r, end, shown, out)

    def result(
        self, dealer: str, r: _Round, end: str | None, hands: dict[str, str], out: list[str]
    ) -> dict[str, Any]:
        """The outcome entry of a round."""
        return {
            "dealer": dealer,
            "events": r.events,
            "end": end,
            "hands": hands,
            "lives": dict(self.lives),
            "eliminated": out,
        }


def reference_outcome(record: dict[str, Any]) -> dict[str, Any]:
    """The outcome (MATCH_RECORD.md) of a valid norsk or tradisjonell record, computed plainly."""
    table = _Table(record)
    rounds = [table.play(rnd) for rnd in record["rounds"]]
    return {
        "rounds": rounds,
        "winners": None if table.winners is None else sorted(table.winners, key=table.seats.index),
    }
