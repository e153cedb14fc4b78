"""One terminal per saved match: `gnav-bot play` holds its store file while it runs.

The lock is the operating system's (`flock` on the SQLite file itself, the same lock `gnav-bot
run` takes on its store): it goes with the process, so a terminal that crashed or was killed
never leaves it behind, and a second terminal on the same match (or a terminal on the bot's
store while the bot runs) refuses at once instead of both playing one table. SQLite's own
locks are POSIX record locks, which a `flock` does not touch on Linux.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import IO


class StoreBusy(Exception):
    """Another process holds the store."""


def hold_store(path: str | os.PathLike[str]) -> IO[bytes] | None:
    """Lock the store file at `path` (created empty when missing: SQLite takes an empty file
    as a new database) for as long as the returned handle is open. StoreBusy when another
    process holds it; None where the system has no `flock` (Windows) or the file cannot be
    opened (the store's own opening then says why, in one line)."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows
        return None
    file = Path(path)
    try:
        file.parent.mkdir(parents=True, exist_ok=True)
        handle = open(file, "ab")  # noqa: SIM115 - held open while the terminal runs
    except OSError:
        return None
    try:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        handle.close()
        raise StoreBusy(str(file)) from None
    except OSError:
        handle.close()
        return None
    return handle
