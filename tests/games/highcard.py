"""High card: a tiny second game that lives only in the tests, to prove the service hosts any game.

Each seat is dealt three cards privately from the cards 1..3n; then every seat plays one card,
all at once (several seats decide at the same time); the highest card wins the round, and the
first to win `TARGET` rounds wins the match. A seat that leaves keeps its place: the service
plays its timeout choice (its lowest card) for it. Its texts are its own (`messages`), and its
view writes only what the defaults of `GameView` do not show, so no line of the service, the
storage or an adapter is written for it. docs/design.md walks through it.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from pydantic import BaseModel, ConfigDict

from bot.service.game import Choice, Game, GameRuleError, GameRules, GameView, Outcome
from bot.service.i18n import Catalog

#: Rounds won to win the match.
TARGET = 2

MESSAGES_EN = {
    "highcard.button.view": "My cards",
    "highcard.play": "Play {card}",
    "highcard.title": "High card, round {round}",
    "highcard.lobby.title": "High card: a new table",
    "highcard.seat": "{name}: {points} won{played}",
    "highcard.played": " · has played",
    "highcard.dealt": "Round {round}: three cards each, dealt privately.",
    "highcard.plays": "{p} has played a card.",
    "highcard.reveal": "Cards: {cards}. {p} wins the round.",
    "highcard.winner": "🏆 {p} wins the match.",
    "highcard.forfeit": "{p} leaves: their lowest card is played for them.",
    "highcard.hand": "Your cards: {cards}",
    "highcard.no_hand": "You hold no cards now.",
    "highcard.rules": "High card: everyone plays one of three cards at once; highest wins.",
    "highcard.stats.line": "{name}: {matches} matches, {wins} wins, {rounds_won} rounds won",
    "highcard.top.line": "{n}. {name}: {wins} wins, {rounds_won} rounds won",
    "highcard.error.not_yours": "You do not hold that card.",
}


class HighCardSettings(BaseModel):
    """No settings of its own."""

    model_config = ConfigDict(extra="ignore", frozen=True)


@dataclass
class HighMatch:
    """A match: hands, the cards played this round (seat -> card), rounds won, every round."""

    names: list[str]
    points: list[int]
    hands: list[list[int]] = field(default_factory=list)
    played: dict[int, int] = field(default_factory=dict)
    rounds: list[dict[str, Any]] = field(default_factory=list)
    phase: str = "between"  # "play", "between", "finished"
    winners: list[int] = field(default_factory=list)


class HighCardRules(GameRules):
    """The rules: deal three cards each, everyone plays one at once, the highest wins."""

    name = "highcard"
    players = range(2, 7)
    settings_model = HighCardSettings

    def new_match(self, names: Sequence[str], settings: Any, rng: random.Random) -> HighMatch:
        """A match between `names`."""
        return HighMatch(list(names), points=[0] * len(names))

    def dump(self, match: HighMatch) -> dict[str, Any]:
        """JSON form (seat keys as strings)."""
        return {**asdict(match), "played": {str(k): v for k, v in match.played.items()}}

    def load(self, data: dict[str, Any]) -> HighMatch:
        """From `dump`."""
        return HighMatch(**{**data, "played": {int(k): v for k, v in data["played"].items()}})

    def start_round(self, match: HighMatch, rng: random.Random) -> Outcome:
        """Deal three cards to each seat (from 1..3n, shuffled with `rng`), privately."""
        deck = list(range(1, 3 * len(match.names) + 1))
        rng.shuffle(deck)
        match.hands = [sorted(deck[3 * s : 3 * s + 3]) for s in range(len(match.names))]
        match.played, match.phase = {}, "play"
        match.rounds.append({"hands": [list(h) for h in match.hands], "played": {}})
        out = Outcome(log=[("highcard.dealt", {"round": len(match.rounds)})])
        for seat, hand in enumerate(match.hands):
            out.private.append((seat, ("highcard.hand", {"cards": ", ".join(map(str, hand))})))
        return out

    def deciders(self, match: HighMatch) -> list[int]:
        """Every seat that has not played yet: all of them at once."""
        if match.phase != "play":
            return []
        return [s for s in range(len(match.names)) if s not in match.played]

    def choices(self, match: HighMatch, seat: int) -> list[Choice]:
        """One choice per card in hand, lowest first."""
        if seat not in self.deciders(match):
            return []
        return [Choice("play", str(c), ("highcard.play", {"card": c})) for c in match.hands[seat]]

    def act(self, match: HighMatch, seat: int, action: str, arg: str | None = None) -> Outcome:
        """Play a card (the service offers only the seat's choices); once everyone has, the
        highest wins the round, and `TARGET` rounds won win the match."""
        card = int(arg or 0)
        if card not in match.hands[seat]:
            raise GameRuleError("H1", "highcard.error.not_yours")
        match.hands[seat].remove(card)
        match.played[seat] = match.rounds[-1]["played"][str(seat)] = card
        out = Outcome(log=[("highcard.plays", {"p": match.names[seat]})])
        if self.deciders(match):
            return out
        best = max(match.played, key=match.played.__getitem__)
        match.points[best] += 1
        cards = ", ".join(f"{match.names[s]} {c}" for s, c in sorted(match.played.items()))
        out.log.append(("highcard.reveal", {"cards": cards, "p": match.names[best]}))
        out.round_over, match.phase = True, "between"
        out.round_stats = {s: {"rounds_won": int(s == best)} for s in match.played}
        if match.points[best] >= TARGET:
            match.phase, match.winners = "finished", [best]
            out.log.append(("highcard.winner", {"p": match.names[best]}))
        return out

    def timeout_choice(self, match: HighMatch, seat: int) -> Choice:
        """A seat that does not choose (or has left) plays its lowest card."""
        return self.choices(match, seat)[0]

    def bot_choice(self, match: HighMatch, seat: int, rng: random.Random) -> Choice:
        """A bot plays its highest card."""
        return self.choices(match, seat)[-1]

    def forfeit(self, match: HighMatch, seat: int) -> Outcome:
        """`seat` leaves: it keeps its place, and the service plays its timeout choice."""
        return Outcome(log=[("highcard.forfeit", {"p": match.names[seat]})])

    def winners(self, match: HighMatch) -> list[int]:
        """The winner once finished."""
        return list(match.winners)

    def record(self, match: HighMatch, public: bool = False) -> dict[str, Any]:
        """Every round's deal and plays; `public`: without the round under way."""
        rounds = match.rounds[:-1] if public and match.phase == "play" else match.rounds
        return {"game": self.name, "seats": match.names, "rounds": rounds}


class HighCardView(GameView):
    """What high card shows of its own: the seats' state and the seat's cards. The rest (its
    texts' keys, the lobby, rules and statistics lines, a private view button) are defaults."""

    stat_counters = ("matches", "wins", "rounds_won")

    def messages(self, language: str) -> Mapping[str, str]:
        """English only: other languages fall back to it."""
        return MESSAGES_EN if language == "en" else {}

    def round_number(self, match: HighMatch) -> int:
        """Rounds dealt."""
        return len(match.rounds)

    def render_status(self, match: HighMatch, names: Sequence[str], cat: Catalog) -> list[str]:
        """Title and one line per seat: rounds won, and whether it has played (never the card)."""
        lines = [cat.t("highcard.title", round=len(match.rounds))]
        for seat, name in enumerate(names):
            played = cat.t("highcard.played") if seat in match.played else ""
            points = match.points[seat]
            lines.append(cat.t("highcard.seat", name=name, points=points, played=played))
        return lines

    def private_text(self, match: HighMatch, seat: int, cat: Catalog) -> str:
        """The seat's cards."""
        if match.phase != "play" or not match.hands[seat]:
            return cat.t("highcard.no_hand")
        return cat.t("highcard.hand", cards=", ".join(map(str, match.hands[seat])))


def high_card() -> Game:
    """The game as the service's registry holds one: its rules and its view."""
    return Game(HighCardRules(), HighCardView)
