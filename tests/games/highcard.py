"""High card: a tiny second game that lives only in the tests, to prove the service hosts any game.

Each seat is dealt three cards privately from the cards 1..3n; then every seat plays one card,
all at once (several seats decide at the same time); the highest card wins the round, and the
first to win `TARGET` rounds wins the match. Its texts are its own (`messages`), so no line of
the service, the storage or an adapter is written for it.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ConfigDict

from bot.service.game import Choice, GameDefaults, GameRuleError, LogLine, Outcome
from bot.service.i18n import Catalog

#: Rounds won to win the match.
TARGET = 2

MESSAGES_EN = {
    "highcard.view": "My cards",
    "highcard.play": "Play {card}",
    "highcard.title": "High card, round {round}",
    "highcard.lobby": "High card: a new table",
    "highcard.seat": "{name}: {points} won · {state}",
    "highcard.thinking": "choosing",
    "highcard.played": "has played",
    "highcard.out": "out",
    "highcard.dealt": "Round {round}: three cards each, dealt privately.",
    "highcard.plays": "{p} has played a card.",
    "highcard.reveal": "Cards: {cards}. {p} wins the round.",
    "highcard.winner": "🏆 {p} wins the match.",
    "highcard.forfeit": "{p} leaves the match.",
    "highcard.hand": "Your cards: {cards}",
    "highcard.no_hand": "You hold no cards now.",
    "highcard.rules": "High card: everyone plays one of three cards at once; highest wins.",
    "highcard.stats": "{name}: {matches} matches, {wins} wins, {rounds_won} rounds won",
    "highcard.top": "{n}. {name}: {wins} wins, {rounds_won} rounds won",
    "highcard.error.not_yours": "You do not hold that card.",
    "highcard.error.played": "You have played this round already.",
}


class HighCardSettings(BaseModel):
    """No settings of its own."""

    model_config = ConfigDict(extra="ignore", frozen=True)


@dataclass
class HighMatch:
    """A match: hands, the cards played this round, rounds won, who is out."""

    names: list[str]
    hands: list[list[int]] = field(default_factory=list)
    played: dict[int, int] = field(default_factory=dict)
    points: list[int] = field(default_factory=list)
    rounds: list[dict[str, Any]] = field(default_factory=list)
    out: list[int] = field(default_factory=list)
    phase: str = "between"  # "play", "between", "finished"
    winners: list[int] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """JSON form (seat keys as strings)."""
        return {
            "names": self.names,
            "hands": self.hands,
            "played": {str(k): v for k, v in self.played.items()},
            "points": self.points,
            "rounds": self.rounds,
            "out": self.out,
            "phase": self.phase,
            "winners": self.winners,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> HighMatch:
        """The inverse of `to_dict`."""
        return cls(
            names=list(data["names"]),
            hands=[list(h) for h in data["hands"]],
            played={int(k): v for k, v in data["played"].items()},
            points=list(data["points"]),
            rounds=list(data["rounds"]),
            out=list(data["out"]),
            phase=data["phase"],
            winners=list(data["winners"]),
        )

    def live(self) -> list[int]:
        """Seats still in the match."""
        return [s for s in range(len(self.names)) if s not in self.out]


class HighCard(GameDefaults):
    """The high-card game behind the service's game interface."""

    name = "highcard"
    min_players = 2
    max_players = 6
    public_choices = False
    view_label = "highcard.view"
    stat_counters = ("matches", "wins", "rounds", "rounds_won")
    settings_model = HighCardSettings

    def messages(self, language: str) -> Mapping[str, str]:
        """English only: other languages fall back to it."""
        return MESSAGES_EN if language == "en" else {}

    # ------------------------------------------------------------------ state
    def new_match(self, names: Sequence[str], settings: Any, rng: random.Random) -> HighMatch:
        """A match between `names`."""
        return HighMatch(list(names), points=[0] * len(names))

    def dump(self, match: HighMatch) -> dict[str, Any]:
        """JSON form."""
        return match.to_dict()

    def load(self, data: dict[str, Any]) -> HighMatch:
        """From `dump`."""
        return HighMatch.from_dict(data)

    def in_round(self, match: HighMatch) -> bool:
        """Cards are being chosen."""
        return match.phase == "play"

    def finished(self, match: HighMatch) -> bool:
        """The match has its winner."""
        return match.phase == "finished"

    def start_round(self, match: HighMatch, rng: random.Random) -> Outcome:
        """Deal three cards to each seat still in (from 1..3n, shuffled with `rng`)."""
        deck = list(range(1, 3 * len(match.names) + 1))
        rng.shuffle(deck)
        match.hands = [sorted(deck[3 * s : 3 * s + 3]) for s in range(len(match.names))]
        match.played = {}
        match.phase = "play"
        number = len(match.rounds) + 1
        match.rounds.append({"hands": [list(h) for h in match.hands], "played": {}})
        out = Outcome(log=[("highcard.dealt", {"round": number})])
        for seat in match.live():
            cards = ", ".join(map(str, match.hands[seat]))
            out.private.append((seat, ("highcard.hand", {"cards": cards})))
        return out

    # ------------------------------------------------------------------ choices
    def deciders(self, match: HighMatch) -> list[int]:
        """Every seat still in that has not played yet: all of them at once."""
        if match.phase != "play":
            return []
        return [s for s in match.live() if s not in match.played]

    def choices(self, match: HighMatch, seat: int) -> list[Choice]:
        """One choice per card in hand."""
        if seat not in self.deciders(match):
            return []
        return [
            Choice("play", str(c), ("highcard.play", {"card": c}), "primary")
            for c in match.hands[seat]
        ]

    def act(self, match: HighMatch, seat: int, action: str, arg: str | None = None) -> Outcome:
        """Play a card; once everyone has, the round is revealed."""
        if seat not in self.deciders(match):
            raise GameRuleError("H1", "highcard.error.played")
        if action != "play" or arg is None or not arg.isdigit():
            raise GameRuleError("H1", "error.unknown_action", {"action": action})
        card = int(arg)
        if card not in match.hands[seat]:
            raise GameRuleError("H1", "highcard.error.not_yours")
        match.hands[seat].remove(card)
        match.played[seat] = card
        match.rounds[-1]["played"][str(seat)] = card
        out = Outcome(log=[("highcard.plays", {"p": match.names[seat]})])
        if not self.deciders(match):
            self._reveal(match, out)
        return out

    def _reveal(self, match: HighMatch, out: Outcome) -> None:
        best = max(match.played, key=lambda s: match.played[s])
        match.points[best] += 1
        cards = ", ".join(f"{match.names[s]} {c}" for s, c in sorted(match.played.items()))
        out.log.append(("highcard.reveal", {"cards": cards, "p": match.names[best]}))
        out.round_over = True
        out.round_stats = {
            s: {"rounds": 1, "rounds_won": 1 if s == best else 0} for s in match.played
        }
        match.phase = "between"
        live = match.live()
        if match.points[best] >= TARGET or len(live) < 2:
            match.phase = "finished"
            match.winners = [best] if match.points[best] >= TARGET else live
            out.log.append(("highcard.winner", {"p": match.names[match.winners[0]]}))

    def timeout_choice(self, match: HighMatch, seat: int) -> Choice:
        """A seat that does not choose plays its lowest card."""
        return self.choices(match, seat)[0]

    def bot_choice(self, match: HighMatch, seat: int, rng: random.Random) -> Choice:
        """A bot plays its highest card."""
        return self.choices(match, seat)[-1]

    def forfeit(self, match: HighMatch, seat: int) -> Outcome:
        """`seat` leaves; with one seat left, it wins."""
        out = Outcome(log=[("highcard.forfeit", {"p": match.names[seat]})])
        if seat not in match.out:
            match.out.append(seat)
        match.played.pop(seat, None)
        live = match.live()
        if len(live) < 2 and match.phase != "finished":
            match.phase = "finished"
            match.winners = live
            out.round_over = True
            out.log.append(("highcard.winner", {"p": match.names[live[0]]}))
        elif match.phase == "play" and not self.deciders(match):
            self._reveal(match, out)
        return out

    def leaving(self, match: HighMatch, seat: int) -> bool:
        """A seat leaves at once: it never waits for the round's end."""
        return False

    def in_match(self, match: HighMatch, seat: int) -> bool:
        """Not out."""
        return seat not in match.out

    def winners(self, match: HighMatch) -> list[int]:
        """The winner once finished."""
        return list(match.winners)

    def record(self, match: HighMatch) -> dict[str, Any]:
        """Every round's deal and plays."""
        return {"game": self.name, "seats": match.names, "rounds": match.rounds}

    def public_record(self, match: HighMatch) -> dict[str, Any]:
        """The record without the round under way (its hands are hidden)."""
        rounds = match.rounds[:-1] if match.phase == "play" else match.rounds
        return {"game": self.name, "seats": match.names, "rounds": rounds}

    def round_number(self, match: HighMatch) -> int:
        """Rounds dealt."""
        return len(match.rounds)

    # ------------------------------------------------------------------ screens
    def render_status(self, match: HighMatch, names: Sequence[str], cat: Catalog) -> list[str]:
        """Title and one line per seat: rounds won, choosing or played (never the card)."""
        lines = [cat.t("highcard.title", round=len(match.rounds))]
        for seat, name in enumerate(names):
            if seat in match.out:
                state = cat.t("highcard.out")
            elif seat in match.played:
                state = cat.t("highcard.played")
            else:
                state = cat.t("highcard.thinking")
            lines.append(cat.t("highcard.seat", name=name, points=match.points[seat], state=state))
        return lines

    def render_reveal(self, match: HighMatch, names: Sequence[str], cat: Catalog) -> list[str]:
        """The last round's cards (they are in the log already)."""
        return self.render_status(match, names, cat)

    def render_line(self, line: LogLine, cat: Catalog) -> str:
        """A log line."""
        key, params = line
        return cat.t(key, **params)

    def private_text(self, match: HighMatch, seat: int, cat: Catalog) -> str:
        """The seat's cards."""
        if match.phase != "play" or not match.hands or not match.hands[seat]:
            return cat.t("highcard.no_hand")
        return cat.t("highcard.hand", cards=", ".join(map(str, match.hands[seat])))

    def lobby_title(self, settings: Any, cat: Catalog) -> str:
        """The lobby's first line."""
        return cat.t("highcard.lobby")

    def rules_text(self, cat: Catalog, settings: Any) -> str:
        """One line of rules."""
        return cat.t("highcard.rules")

    # ------------------------------------------------------------------ statistics
    def top_key(self, counters: Mapping[str, int]) -> tuple[Any, ...]:
        """Most wins, then most rounds won."""
        return (-counters.get("wins", 0), -counters.get("rounds_won", 0))

    def render_stats(self, name: str, counters: Mapping[str, int], cat: Catalog) -> str:
        """A player's line."""
        values = {k: counters.get(k, 0) for k in self.stat_counters}
        return cat.t("highcard.stats", name=name, **values)

    def render_top_line(self, n: int, name: str, counters: Mapping[str, int], cat: Catalog) -> str:
        """A line of the top list."""
        values = {k: counters.get(k, 0) for k in self.stat_counters}
        return cat.t("highcard.top", n=n, name=name, **values)
