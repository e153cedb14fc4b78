"""Gnav for the table service: its rules (`GnavRules`: engine calls, log lines, statistics,
the bot strategy's choices) and its view (`GnavView`: the table message, your piece, the web).

The engine stays pure; this module turns its events into catalog lines (N25: every public
event announced, the Norwegian call included) and private lines (your piece).
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from bot.games.gnav import search
from bot.games.gnav.engine.errors import RuleError
from bot.games.gnav.engine.events import EVERYONE, Event
from bot.games.gnav.engine.match import NO_PIECE, Match
from bot.games.gnav.engine.pieces import DISPLAY_NAMES, FULL_SET, HEST, NARR
from bot.games.gnav.engine.profiles import get_profile
from bot.games.gnav.engine.record import export_record
from bot.games.gnav.settings import GnavSettings
from bot.games.gnav.strategy import BotView, decide
from bot.service.game import (
    Choice,
    GameRuleError,
    GameRules,
    GameView,
    Hint,
    LogLine,
    Outcome,
)
from bot.service.i18n import Catalog
from bot.service.parts import PARTS, join_parts

#: How often an `easy` bot seat takes the second-best choice.
EASY_SLIP = 0.25

#: Events whose first seat dealt a refusal (statistics: "refusals dealt").
_REFUSALS = frozenset({"forbi", "hugg_av", "kiss", "gjok"})
#: Events whose asker (last seat) loses a life on the spot (N13, N14, N17).
_PENALTIES = frozenset({"hugg_av", "kiss"})
_BAG_PENALTIES = frozenset({"bag_hugg_av", "bag_kiss"})


def piece_name(rank: int) -> str:
    """A piece's name for people (Gjøk with its ø)."""
    return DISPLAY_NAMES[rank]


_STAY = Choice("stay", label=("gnav.button.stay", {}), role="secondary")
_SWAP = Choice("swap", label=("gnav.button.swap", {}), role="primary")
_CHOICES = (_STAY, _SWAP)


class GnavRules(GameRules):
    """Gnav's rules for the table service (profiles `norsk` and `tradisjonell`)."""

    name = "gnav"
    players = range(2, 21)
    settings_model = GnavSettings
    gives_hints = True

    def new_match(self, names: Sequence[str], settings: Any, rng: random.Random) -> Match:
        """A match with the table's profile and lives; the first dealer is drawn by `rng`."""
        return Match(
            list(names),
            profile=get_profile(settings.rules),
            lives=int(settings.lives),
            dealer=rng.randrange(len(names)),
        )

    def dump(self, match: Match) -> dict[str, Any]:
        """The engine's lossless JSON form with only the newest round in its history (the
        rounds before it never change again: the finished parts, stored once each)."""
        data = match.to_dict(history_from=max(0, len(match.history) - 1))
        data[PARTS] = match.finished_rounds()
        return data

    def load(self, data: dict[str, Any]) -> Match:
        """Rebuild from `dump`."""
        return Match.from_dict(join_parts(data, "history", data.get(PARTS)))

    def deciders(self, match: Match) -> tuple[int, ...]:
        """The one seat to act during a round (N8), none between rounds."""
        turn = match.turn if match.phase == "play" else None
        return () if turn is None else (turn,)

    def choices(self, match: Match, seat: int) -> tuple[Choice, ...]:
        """Stay and swap for the seat to act; swap only where the rules forbid staying.

        A Narr holder under `tradisjonell` may not stay (T3), so Stay is not offered to it
        (issue 30: never offer a choice the rules refuse). The buttons are public, and that
        tells no secret: a Narr is knocked for at the deal (N5), and it changes hands only by
        a swap everyone sees.
        """
        if match.phase != "play" or match.turn != seat:
            return ()
        legal = match.legal_actions(seat)
        return tuple(c for c in _CHOICES if c.action in legal)

    def winners(self, match: Match) -> list[int]:
        """The winners (N23), shared when eliminated together."""
        return list(match.winners or [])

    def record(self, match: Match, public: bool = False) -> dict[str, Any]:
        """The match record (MATCH_RECORD.md); `public`: up to the last reveal (during a
        round its deal and bag stay hidden)."""
        record = export_record(match)
        if public and match.phase == "play":
            record["rounds"] = record["rounds"][:-1]
        return record

    def start_round(self, match: Match, rng: random.Random) -> Outcome:
        """Shuffle the 42 pieces with `rng` and deal (N4); void deals are dealt again (C1)."""
        outcome = Outcome()
        while True:
            pieces = list(FULL_SET)
            rng.shuffle(pieces)
            deal, bag = match.deal_from(pieces)
            events = match.start_round(deal, bag)
            self._collect(match, events, outcome)
            if match.phase == "play":
                return outcome

    def act(self, match: Match, seat: int, action: str, arg: str | None = None) -> Outcome:
        """Apply stay/swap; a refusal of the engine (N8, T3...) under a catalog key of its own.

        A request to swap that is not simply granted (a Hest or Hus passes it on, a Gjøk,
        Dragon or Katt refuses it) is announced with the asker's «Jeg bytter» first (N25).
        """
        if arg is not None:
            raise GameRuleError("N9", "gnav.error.unknown_action", {"action": action})
        partner = None
        if action == "swap" and match.phase == "play" and match.turn == seat:
            pos = match.pos
            if pos < len(match.order) - 1:
                partner = match.order[pos + 1]
        try:
            events = match.act(seat, action)
        except RuleError as exc:
            raise _refusal(match, seat, action, exc) from exc
        out = Outcome()
        first = next((e for e in events if e.audience == EVERYONE), None)
        if partner is not None and first is not None and first.kind != "swap":
            names = match.seats
            out.log.append(("gnav.ev.ask", {"p": names[seat], "q": names[partner]}))
        return self._collect(match, events, out, asker=seat)

    def forfeit(self, match: Match, seat: int) -> Outcome:
        """The seat leaves the match (at the reveal if a round is under way)."""
        events = match.forfeit(seat)
        return self._collect(match, events, Outcome())

    def timeout_choice(self, match: Match, seat: int) -> Choice:
        """A timed-out turn stays, except a Narr holder under T3, who must swap."""
        legal = match.legal_actions(seat)
        return _STAY if "stay" in legal else _SWAP

    def bot_choice(self, match: Match, seat: int, rng: random.Random) -> Choice:
        """The bot strategy's choice from public knowledge and its own piece."""
        return _STAY if decide(BotView.from_match(match, seat), rng) == "stay" else _SWAP

    def bot_thinking(
        self, match: Match, seat: int, rng: random.Random, level: str, seconds: float | None
    ) -> Choice:
        """A bot seat's choice at a table's level (issue 22), decided at once (a threshold):
        `easy` now and then (`EASY_SLIP`) takes the other of stay and swap where both are
        legal (a casual player's second-best); `strong` plays as `normal`, because sampling
        has not been shown to beat the tuned thresholds (benchmarks/strategy.py; issue 33:
        not even to reach part of an omniscient seat's small edge, bot/games/gnav/search.py)."""
        pick = self.bot_choice(match, seat, rng)
        if level == "easy" and rng.random() < EASY_SLIP:
            other = _SWAP if pick == _STAY else _STAY
            if other.action in match.legal_actions(seat):
                return other
        return pick

    def hint(self, match: Match, seat: int, rng: random.Random) -> Hint | None:
        """Issue 33: what `strong` would choose for `seat` (bot/games/gnav/search.py, from what
        the seat may know only) and the share of sampled deals on which it loses no life."""
        found = search.hint(match, seat, rng)
        if found is None:
            return None
        action, share, worlds = found
        return Hint(_STAY if action == "stay" else _SWAP, share, worlds)

    def _collect(
        self, match: Match, events: list[Event], out: Outcome, asker: int | None = None
    ) -> Outcome:
        names = match.seats
        for e in events:
            if e.audience != EVERYONE:
                if e.kind == "piece":
                    key = f"gnav.private.{e.detail}"
                    # Told where it happens: what the bag gave (N17) before "Reveal!".
                    out.tell(e.audience, (key, {"piece": piece_name(e.rank)}))
                continue
            if e.kind == "out":  # no lives left, or gone at the reveal after leaving (N22)
                out.out.append(e.seats[0])
            if out.round_over and e.kind in _REVEAL_RESULTS:
                continue  # told by the reveal (render_reveal), once and after the pieces
            line = _event_line(e, names, asker)
            if line is not None:
                out.log.append(line)
            if e.kind == "reveal":
                out.round_over = True
        if out.round_over:
            out.round_stats = _round_stats(match)
        return out


class GnavView(GameView):
    """How a Gnav match looks: Stay and Swap on the table message, each seat's piece
    privately, the reveal, the web page's lives."""

    public_choices = True
    view_label = "gnav.button.piece"
    stat_counters = ("matches", "wins", "rounds", "lives_lost", "times_paid", "refusals")
    texts_package = "bot.games.gnav.i18n"

    def round_number(self, match: Match) -> int:
        """Rounds dealt so far (void deals included)."""
        return len(match.history)

    def render_status(self, match: Match, names: Sequence[str], cat: Catalog) -> list[str]:
        """The round's title, then seats with lives and marks: dealer, turn, sitting out, out,
        dealt a Narr (knocked). One line per seat: the service adds the newest events."""
        words = _status_words(cat)
        # The round's own dealer: after the reveal the engine has already passed the deal on.
        dealer = match.history[-1].dealer if match.history else match.dealer
        profile = words.profiles.get(match.profile.name)
        if profile is None:
            profile = words.profiles[match.profile.name] = cat.t(
                f"gnav.profile.{match.profile.name}"
            )
        key = (len(match.history), names[dealer], profile)
        title = words.titles.get(key)
        if title is None:
            if len(words.titles) >= TITLES_KEPT:
                words.titles.clear()
            title = words.titles[key] = cat.t(
                "gnav.round.title", round=key[0], dealer=key[1], profile=profile
            )
        lines = [title]
        turn = match.turn
        acting = match.acting_dealer
        out = words.out
        sitting = words.sitting
        in_match = match.in_match
        sitting_out = match.sitting_out
        playing = match.phase == "play"
        # Who knocked this round (N5: a Narr dealt is told to all): the state keeps it,
        # the table message showing only the newest events (issue 30).
        events = match.history[-1].events if match.history and playing else []
        knocked = {e.seats[0] for e in events if e.kind == "knock"}
        lives_shown = words.lives  # most seats have as many lives as another
        for seat, name in enumerate(names):
            if seat in (turn, dealer):
                marks = []
                if seat == turn:
                    marks.append("▶")
                if seat == dealer:
                    marks.append(words.dealer_mark)
                text = f"{' '.join(marks)} {name}".strip()
            else:
                text = name.strip()
            if seat != dealer and seat == acting and playing:
                text += f" {words.acting_mark}"
            if not in_match[seat]:
                text += f" · {out}"  # no lives shown: a Dragon may have taken them below 0
            else:
                lives = match.lives[seat]
                shown = lives_shown.get(lives)
                if shown is None:
                    shown = lives_shown[lives] = cat.t("gnav.seat.lives", lives=lives)
                text += f" · {shown}"
                if seat in sitting_out:
                    text += f" · {sitting}"
            if seat in knocked:
                text += f" · {words.knocked}"
            lines.append(text)
        return lines

    def render_reveal(self, match: Match, names: Sequence[str], cat: Catalog) -> list[str]:
        """The last round's reveal: every piece, who pays and why, lives, out, winners."""
        log = match.history[-1] if match.history else None
        if log is None or log.end in (None, "redeal"):
            return []
        lines = [cat.t("gnav.reveal.title", round=len(match.history))]
        for seat, rank in log.hands.items():
            lines.append(cat.t("gnav.reveal.hand", name=names[seat], piece=piece_name(rank)))
        payers = [e for e in log.events if e.kind == "pay"]
        for e in payers:
            seat = e.seats[0]
            rank = log.hands.get(seat, NARR)
            key = "gnav.reveal.pays_narr" if e.detail == "narr" else "gnav.reveal.pays_lowest"
            lines.append(cat.t(key, name=names[seat], piece=piece_name(rank)))
        lives = ", ".join(
            f"{names[s]} {max(0, log.lives[s])}" for s in range(len(names)) if s < len(log.lives)
        )
        lines.append(cat.t("gnav.reveal.lives", lives=lives))
        for seat in log.eliminated:
            lines.append(cat.t("gnav.reveal.out", name=names[seat]))
        if match.phase == "finished" and match.winners is not None:
            winners = ", ".join(names[s] for s in sorted(match.winners))
            key = "gnav.reveal.winner" if len(match.winners) == 1 else "gnav.reveal.winners"
            lines.append(cat.t(key, names=winners))
        return lines

    def render_line(self, line: LogLine, cat: Catalog) -> str:
        """One log line."""
        key, params = line
        if not key.startswith("gnav.") and not cat.has(key):
            key = f"gnav.{key}"  # a line stored before Gnav's keys had their prefix (`ev.stay`)
        return cat.t(key, **params)

    def private_text(self, match: Match, seat: int, cat: Catalog) -> str:
        """What `seat` holds now, or why it holds nothing."""
        if match.phase != "play":
            return cat.t("gnav.piece.between_rounds")
        rank = match.hands[seat]
        if rank == NO_PIECE:
            return cat.t("gnav.piece.none")
        key = "gnav.piece.sitting_out" if seat in match.sitting_out else "gnav.piece.hold"
        return cat.t(key, piece=piece_name(rank), round=len(match.history))

    def web_public(self, match: Match, names: Sequence[str], cat: Catalog) -> dict[str, Any]:
        """The web page's shapes every viewer sees (docs/web.md): every seat's lives and the
        dealer (bot/games/gnav/web.py)."""
        from bot.games.gnav import web

        return web.web_public(match, names, cat)

    def web_own(
        self, match: Match, seat: int, names: Sequence[str], cat: Catalog
    ) -> dict[str, Any]:
        """`seat`'s own piece, for `seat` only (N1: hidden from the others until the
        reveal)."""
        from bot.games.gnav import web

        return web.web_own(match, seat, names, cat.t(self.view_label), piece_name)

    def web_replay(self, record: dict[str, Any], cat: Catalog) -> list[dict[str, Any]]:
        """A finished match's record as the replay page's steps, every piece shown from the
        deal on (bot/games/common/web.py)."""
        from bot.games.common.web import replay_steps
        from bot.games.gnav import web
        from bot.games.gnav.engine.record import replay_record

        return replay_steps(
            record,
            cat,
            self,
            replay_record,
            hands=lambda m: web.gnav_hands(m, piece_name),
            opening=_opening_lines,
        )

    def rules_text(self, cat: Catalog, settings: GnavSettings) -> str:
        """The rules summary of the table's profile, with its lives."""
        text = cat.t("gnav.rules.norsk", lives=cat.t("gnav.rules.lives", count=settings.lives))
        if settings.rules == "tradisjonell":
            text += "\n\n" + cat.t("gnav.rules.tradisjonell")
        return text

    def lobby_title(self, settings: GnavSettings, cat: Catalog) -> str:
        """The lobby's first line: the profile and the lives."""
        profile = cat.t(f"gnav.profile.{settings.rules}")
        return cat.t("gnav.lobby.title", profile=profile, lives=settings.lives)

    def top_key(self, counters: Mapping[str, int]) -> tuple[Any, ...]:
        """Most wins, then fewest lives lost per round, then most matches."""
        rounds = counters.get("rounds", 0)
        per_round = counters.get("lives_lost", 0) / rounds if rounds else 0.0
        return (-counters.get("wins", 0), per_round, -counters.get("matches", 0))


#: Results the reveal tells: not repeated as log lines of the round that ends with it.
_REVEAL_RESULTS = frozenset({"pay", "out", "win"})


#: Round titles kept per catalog (`_StatusWords.titles`) before they are forgotten.
TITLES_KEPT = 1024


@dataclass(slots=True)
class _StatusWords:
    """The words of the table message's seat lines in one catalog (`_status_words`)."""

    out: str
    sitting: str
    dealer_mark: str
    acting_mark: str
    knocked: str
    #: A count of lives as the seat lines say it, by count (filled as they come).
    lives: dict[int, str] = field(default_factory=dict)
    #: A profile's name, by the profile's (filled as they come).
    profiles: dict[str, str] = field(default_factory=dict)
    #: A round's title line by what it says (round, dealer, profile): the same at every
    #: step of a round (bounded: `TITLES_KEPT`).
    titles: dict[tuple[int, str, str], str] = field(default_factory=dict)


def _status_words(cat: Catalog) -> _StatusWords:
    """The seat lines' words in `cat`, looked up once per catalog (`Catalog.kept`): every
    table message has them, most of them on several seats."""
    words: _StatusWords | None = cat.kept.get("gnav.status")
    if words is None:
        words = cat.kept["gnav.status"] = _StatusWords(
            out=cat.t("gnav.seat.out"),
            sitting=cat.t("gnav.seat.sitting_out"),
            dealer_mark=cat.t("gnav.seat.dealer_mark"),
            acting_mark=cat.t("gnav.seat.acting_dealer_mark"),
            knocked=cat.t("gnav.seat.knocked"),
        )
    return words


def _refusal(match: Match, seat: int, action: str, exc: RuleError) -> GameRuleError:
    """The engine's refusal (English) as a catalog key with parameters, its rule id once."""
    rule = exc.rule
    names = match.seats
    params: dict[str, Any] = {}
    if rule == "T3":
        key = "gnav.rule.T3.narr_must_swap"
    elif rule == "N8" and match.turn is not None:
        key = "gnav.rule.N8.not_your_turn"
        params = {"name": names[match.turn]}
    elif rule == "N9" and action not in ("stay", "swap"):
        key = "gnav.rule.N9.unknown_action"
        params = {"action": action[:40]}
    elif rule == "N23":
        key = "gnav.rule.N23.match_over"
    elif rule == "N24":
        key = "gnav.rule.N24.round_over"
    elif rule == "N22":
        key = "gnav.rule.N22.not_in_match"
    else:
        key = "gnav.rule.other"
    return GameRuleError(rule, key, params, exc.message)


def _opening_lines(match: Match) -> list[LogLine]:
    """The round's public lines so far (for a replay cut at the deal: the Narr's knock, N5,
    and who sits out), as the table logged them."""
    log = match.log
    if log is None:
        return []
    names = match.seats
    return [line for e in log.events if (line := _event_line(e, names)) is not None]


def _event_line(e: Event, names: Sequence[str], asker: int | None = None) -> LogLine | None:
    kind = e.kind
    s = e.seats
    who = names[asker] if asker is not None else "?"
    if kind in ("knock", "sit_out", "stay", "forfeit", "win"):
        return (f"gnav.ev.{kind}", {"p": names[s[0]]})
    if kind == "gjok":
        return ("gnav.ev.gjok", {"q": names[s[0]], "p": who})
    if kind == "swap":
        return ("gnav.ev.swap", {"p": names[s[0]], "q": names[s[1]]})
    if kind == "forbi":
        key = "gnav.ev.forbi_hest" if e.rank == HEST else "gnav.ev.forbi_hus"
        return (key, {"q": names[s[0]], "p": who})
    if kind in ("hugg_av", "kiss"):
        return (f"gnav.ev.{kind}", {"q": names[s[0]], "p": names[s[1]]})
    if kind in ("bag_swap", "bag_hugg_av", "bag_kiss", "bag_gjok"):
        return (f"gnav.ev.{kind}", {"p": names[s[0]]})
    if kind == "bag_forbi":
        key = "gnav.ev.bag_forbi_hest" if e.rank == HEST else "gnav.ev.bag_forbi_hus"
        return (key, {"p": names[s[0]]})
    if kind == "redeal":
        return ("gnav.ev.redeal", {})
    if kind == "reveal":
        return ("gnav.ev.reveal", {})
    if kind == "pay":
        return ("gnav.ev.pay", {"p": names[s[0]]})
    if kind == "out":
        key = "gnav.ev.out_forfeit" if e.detail == "forfeit" else "gnav.ev.out"
        return (key, {"p": names[s[0]]})
    return None


def _round_stats(match: Match) -> dict[int, dict[str, int]]:
    """Per seat counters of the round that just ended: rounds, lives lost, paid, refusals."""
    log = match.history[-1]
    stats: dict[int, dict[str, int]] = {}

    def bump(seat: int, name: str) -> None:
        counters = stats.setdefault(
            seat, {"rounds": 0, "lives_lost": 0, "times_paid": 0, "refusals": 0}
        )
        counters[name] += 1

    for seat in log.hands:
        bump(seat, "rounds")
    for e in log.events:
        if e.kind == "pay":
            bump(e.seats[0], "times_paid")
            bump(e.seats[0], "lives_lost")
        elif e.kind in _PENALTIES:
            bump(e.seats[1], "lives_lost")
        elif e.kind in _BAG_PENALTIES:
            bump(e.seats[0], "lives_lost")
        if e.kind in _REFUSALS:
            bump(e.seats[0], "refusals")
    return stats
