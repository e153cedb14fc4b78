"""The table service: one facade over the jobs that run a channel's table.

Every command runs under its table's lock: load -> authorise -> game -> commit (state, record
and statistics in one transaction) -> then, and only then, queue what people are told. Tables
are independent and proceed in parallel. Deadlines are stored with the table, so a restart
re-arms them (with a fresh turn: nobody pays for time the bot was down).

The jobs live in modules of their own, one each; `TableService` only puts them together:

- `core.py`: shared state, table cache and locks, load and commit, catalogs, players;
- `screens.py`: the table message;
- `lobby.py`: open, join, leave, kick, settings, start, stop;
- `play.py`: choices, presses, the steps after them, private messages, statistics;
- `timers.py`: deadlines and the main loop;
- `queries.py`: status, stats, top, export, rules, help;
- `lifecycle.py`: resume after a start, chat migration, shutdown.
"""

from __future__ import annotations

from bot.service.core import MAX_ALERT, MAX_TEXT, Reply, ServiceCore, ServiceError
from bot.service.lifecycle import Lifecycle
from bot.service.lobby import Lobby
from bot.service.play import Play
from bot.service.queries import Queries
from bot.service.screens import Screens
from bot.service.timers import Timers

__all__ = ["MAX_ALERT", "MAX_TEXT", "Reply", "ServiceError", "TableService"]


class TableService(Lobby, Play, Queries, Timers, Lifecycle, Screens, ServiceCore):
    """The platform-neutral game manager: one table per channel."""
