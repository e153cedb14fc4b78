"""The refusals of a command at a table in the wrong state, or by someone who may not."""

from __future__ import annotations

from bot.service.replies import ServiceError
from bot.service.table import Table, User


def lobby_table(table: Table | None) -> Table:
    """`table` while its lobby is open, else the refusal."""
    if table is None or table.status == "closed":
        raise ServiceError("error.no_table")
    if table.status != "lobby":
        raise ServiceError("error.started")
    return table


def active_table(table: Table | None) -> Table:
    """`table` while it is open (lobby or match), else the refusal."""
    if table is None or table.status == "closed":
        raise ServiceError("error.no_table")
    return table


def playing_table(table: Table | None) -> Table:
    """`table` while its match is under way, else the refusal."""
    if table is None or table.status == "closed" or table.match is None:
        raise ServiceError("error.no_match")
    if table.status != "playing":
        raise ServiceError("error.no_match")
    return table


def authorise(table: Table, user: User) -> None:
    """Refuse `user` unless they host `table` or administer its channel."""
    if user.key != table.host and not user.admin:
        raise ServiceError("error.not_host")
