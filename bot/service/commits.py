"""Who hears of each table's commit: the service's own listener, handed in when this is made
(the bots' thinking ahead, `timers.Ahead`), then the adapters' listeners, which register
through `subscribe` (`TableService.subscribe`: the web table's hub, adapters/web/hub.py, made
after the service). The service makes it before the unit of work, which calls it after each
table's commit (uow.py); no part of the service subscribes after it is built.
"""

from __future__ import annotations

from collections.abc import Callable

from bot.service.table import Table

#: An adapter's listener: (table key, table id, version committed).
Listener = Callable[[str, str, int], None]


class Commits:
    """The listeners of tables' commits, told in order; none may block."""

    def __init__(self, own: Callable[[Table], None]) -> None:
        self._own = own
        self._listeners: list[Listener] = []

    def subscribe(self, listener: Listener) -> None:
        """Run `listener(table key, table id, version)` after each table's commit, from now
        on (after the service's own listener)."""
        self._listeners.append(listener)

    def told(self, table: Table) -> None:
        """`table` was committed (its `row_version` is the version stored)."""
        self._own(table)
        if self._listeners:
            key, table_id, version = table.key.key, table.table_id, table.row_version or 0
            for listener in self._listeners:
                listener(key, table_id, version)
