"""Outage benchmark: the service under load while its store goes away and comes back.

Two faults, each on a real store, with tables of bot seats playing through the real main loop
(`TableService.run`: deadlines, claims, sweeps) and a person's commands sent every 50 ms
throughout: in turn the host changes a setting at a lobby table (always a write) and a guest
presses the lobby's Join or Leave button from a private chat (a write; the token names the
table); the lobbies speak Norwegian (`language=nb`), the people say no language:

- PostgreSQL stopped and started: a throwaway cluster of this benchmark's own (initdb and
  pg_ctl from /usr/lib/postgresql/*/bin, a free port, a temporary folder; run as the
  `postgres` user when started as root), stopped with `pg_ctl stop -m fast` for `--outage`
  seconds, then started again. The machine's own server is never touched.
- SQLite on a small disk filled and freed: a tmpfs of `--disk-mb` MB (mounted here, so root
  only; skipped with the reason otherwise) filled to the last byte by a file for `--outage`
  seconds, then the file deleted.

Printed for each: commands sent during the outage, how many were answered with the clear
line and how many applied (goal: none); the clear lines by language, from the group and from
the private chat (goal: all in the lobbies' nb); the table messages sent more than once (an
outbox row's id sent twice; goal: none); log lines per second during the outage (goal: under
1); seconds from the store's return to the first step of play the main loop stored and to the
first applied command (goal: under 2 s); saves after the store's return (goal: play
continues), and for SQLite the WAL's size and `integrity_check`. The last line is one JSON object.

Run: `.venv/bin/python benchmarks/outage.py` (about a minute; `--tables`, `--outage`,
`--only postgres|sqlite`).
"""

from __future__ import annotations

import sys
from pathlib import Path

if __package__ in (None, ""):
    # Run as a script, this folder comes first on sys.path and benchmarks/storage.py would
    # shadow the `storage` package: put the repository root there instead.
    sys.path[0] = str(Path(__file__).resolve().parents[1])

import argparse
import asyncio
import contextlib
import glob
import json
import logging
import os
import shutil
import socket
import sqlite3
import subprocess
import tempfile
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any

from benchmarks.service import NullNotifier
from bot.games.registry import all_games
from bot.service import tokens
from bot.service.commands import Configure, Open, Press, Start
from bot.service.i18n import LANGUAGES, catalog
from bot.service.service import TableService
from bot.service.store import Repository
from bot.service.table import TableKey, User

HOST = User("bench:host", "Host")
#: A guest who presses the lobbies' Join and Leave from a private chat (the host sits at
#: each lobby, so a lobby never empties).
GUEST = User("bench:guest", "Guest")
PRIVATE = TableKey("bench", "private-guest")
#: The lobbies' language; the person's own is not known (the fallback would be English).
LOBBY_LANGUAGE = "nb"
#: The clear line of a command the store could not take, by its text: its language.
CLEAR = {catalog(lang).t("error.store_unavailable"): lang for lang in LANGUAGES}


class LineCounter(logging.Handler):
    """Counts log records (INFO and above) with their times, and keeps the loud ones."""

    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.times: list[float] = []
        self.loud: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        """Count one line (and keep WARNING and above)."""
        self.times.append(time.monotonic())
        if record.levelno >= logging.WARNING:
            cause = ""
            if record.exc_info and record.exc_info[1] is not None:
                cause = f" ({type(record.exc_info[1]).__name__}: {record.exc_info[1]})"
            text = f"{record.levelname} {record.name}: {record.getMessage()}{cause}"
            self.loud.append(text[:240])

    def between(self, start: float, end: float) -> int:
        """Lines logged in [start, end)."""
        return sum(1 for t in self.times if start <= t < end)


@dataclass
class Load:
    """The person's commands and the stores' successful saves, with their times."""

    saves: list[float] = field(default_factory=list)
    #: Saves of the bots' tables (steps of play the main loop made), apart.
    play_saves: list[float] = field(default_factory=list)
    answers: list[tuple[float, str]] = field(default_factory=list)  # (time, "ok"|"clear"|...)
    #: Clear lines: (time, where: "group"|"private", language).
    clear: list[tuple[float, str, str]] = field(default_factory=list)
    #: How often each outbox row (by id) was handed to the platform.
    sends: dict[int, int] = field(default_factory=dict)

    def clear_in_window(self, start: float, end: float) -> dict[str, int]:
        """Clear lines in [start, end), per "where:language"."""
        out: dict[str, int] = {}
        for t, where, lang in self.clear:
            if start <= t < end:
                out[f"{where}:{lang}"] = out.get(f"{where}:{lang}", 0) + 1
        return dict(sorted(out.items()))

    def in_window(self, start: float, end: float) -> dict[str, int]:
        """Answers of each kind in [start, end)."""
        out: dict[str, int] = {}
        for t, kind in self.answers:
            if start <= t < end:
                out[kind] = out.get(kind, 0) + 1
        return out

    def first_after(self, times: list[float], start: float) -> float | None:
        """Seconds from `start` to the first time in `times` after it."""
        later = [t for t in times if t >= start]
        return min(later) - start if later else None


def count_saves(repo: Any, load: Load) -> None:
    """Record the time of every save the store acknowledged (the benchmark may look inside
    what it measures: the store's own method, wrapped)."""
    save = repo.save_table

    async def timed(*args: Any, **kwargs: Any) -> Any:
        result = await save(*args, **kwargs)
        now = time.monotonic()
        load.saves.append(now)
        if not args[0].key.startswith("bench:lobby"):
            load.play_saves.append(now)
        return result

    repo.save_table = timed


def count_sends(service: TableService, load: Load) -> None:
    """Count how often each stored table message (an outbox row's id) is sent: the outbox's
    table-message policy's send, wrapped."""
    policy = service.outbox.policy
    send = policy.send

    async def counted(channel: str, view: Any, m: Any) -> bool:
        if m.id:
            load.sends[m.id] = load.sends.get(m.id, 0) + 1
        return await send(channel, view, m)

    policy.send = counted  # type: ignore[method-assign]


async def start_tables(service: TableService, tables: int, lobbies: int) -> None:
    """`tables` tables of bot seats playing, and `lobbies` open lobbies for the person."""
    for i in range(tables):
        key = TableKey("bench", f"t{i}")
        await service.handle(Open(key, HOST, sit=False))
        reply = await service.handle(Configure(key, HOST, ["bots=4", "lives=9", "delay=0"]))
        assert reply.ok, reply.text
        assert (await service.handle(Start(key, HOST))).ok
    for i in range(lobbies):
        key = TableKey("bench", f"lobby{i}")
        assert (await service.handle(Open(key, HOST))).ok
        reply = await service.handle(Configure(key, HOST, [f"language={LOBBY_LANGUAGE}"]))
        assert reply.ok, reply.text


async def person(service: TableService, lobbies: int, load: Load, stop: asyncio.Event) -> None:
    """Every 50 ms, in turn: the host of the lobbies changes a setting at one of them (each
    time to a new value: always a write), and the guest presses its Join or Leave button from
    a private chat (the token as the newest table message showed it: the table's id and
    version, which the benchmark reads from the service's cache); each answer's kind kept."""
    n = 0
    seated: set[str] = set()
    shown: dict[str, tuple[str, int]] = {}  # lobby key -> (table id, version) last shown
    while not stop.is_set():
        key = TableKey("bench", f"lobby{(n // 2) % lobbies}")
        cached = service.uow.cached.get(key.key)
        if cached is not None:
            shown[key.key] = (cached.table_id, cached.seq)
        if n % 2 == 0 or key.key not in shown:
            lives = 3 + (n // (2 * lobbies)) % 4
            reply = await service.handle(Configure(key, HOST, [f"lives={lives}"]))
            where = "group"
        else:
            action = "leave" if key.key in seated else "join"
            table_id, seq = shown[key.key]
            reply = await service.handle(
                Press(PRIVATE, GUEST, tokens.encode(table_id, seq, action))
            )
            where = "private"
            if reply.ok:
                seated.symmetric_difference_update({key.key})
        now = time.monotonic()
        lang = CLEAR.get(reply.text)
        kind = "clear" if lang is not None else "ok" if reply.ok else "refused"
        if lang is not None:
            load.clear.append((now, where, lang))
        load.answers.append((now, kind))
        n += 1
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), 0.05)


@contextlib.asynccontextmanager
async def running(service: TableService, lobbies: int, load: Load) -> AsyncIterator[asyncio.Event]:
    """The main loop and the person's commands, until the block ends."""
    stop = asyncio.Event()
    loop_task = asyncio.create_task(service.run())
    person_task = asyncio.create_task(person(service, lobbies, load, stop))
    try:
        yield stop
    finally:
        stop.set()
        await person_task
        loop_task.cancel()
        await asyncio.gather(loop_task, return_exceptions=True)


def report(
    name: str,
    load: Load,
    lines: LineCounter,
    down: float,
    up: float,
    end: float,
    extra: dict[str, Any],
) -> dict[str, Any]:
    """The figures of one outage, printed and returned."""
    during = load.in_window(down, up)
    sent = sum(during.values())
    log_lines = lines.between(down, up)
    ok_after = [t for t, kind in load.answers if kind == "ok"]
    out = {
        "outage_s": round(up - down, 1),
        "commands_during": sent,
        "answered_clearly": during.get("clear", 0),
        "clear_by_language": load.clear_in_window(down, up),
        "table_messages_sent_twice": sum(1 for c in load.sends.values() if c > 1),
        "table_messages_sent": len(load.sends),
        "applied_during": during.get("ok", 0),
        "refused_without_a_write": during.get("refused", 0),
        "log_lines_during": log_lines,
        "log_lines_per_s": round(log_lines / max(up - down, 1e-9), 2),
        "back_to_play_s": _round(load.first_after(load.play_saves, up)),
        "first_command_applied_s": _round(load.first_after(ok_after, up)),
        "saves_after_return": sum(1 for t in load.saves if up <= t < end),
        "saves_before": sum(1 for t in load.saves if t < down),
        **extra,
    }
    print(f"\n{name}:")
    for k, v in out.items():
        print(f"  {k:26} {v}")
    return out


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 2)


# ------------------------------------------------------------------------------ PostgreSQL
def _pg_bin() -> Path | None:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"))
    return Path(found[-1]).parent if found else None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Cluster:
    """A throwaway PostgreSQL cluster in a temporary folder, on a free port."""

    def __init__(self, bindir: Path, folder: Path) -> None:
        self.bindir = bindir
        self.folder = folder
        self.data = folder / "data"
        self.port = _free_port()
        self.as_user = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []

    def _run(self, *args: str) -> None:
        subprocess.run([*self.as_user, *args], check=True, capture_output=True, text=True)

    def init(self) -> None:
        """initdb (trust authentication, user postgres)."""
        if self.as_user:
            shutil.chown(self.folder, "postgres")
        self._run(
            str(self.bindir / "initdb"), "-D", str(self.data), "-A", "trust", "-U", "postgres"
        )

    def start(self) -> None:
        """Start and wait until it accepts connections."""
        options = f"-p {self.port} -k {self.folder} -c listen_addresses=127.0.0.1"
        self._run(
            str(self.bindir / "pg_ctl"), "-D", str(self.data), "-o", options,
            "-l", str(self.folder / "log"), "-w", "start",
        )  # fmt: skip

    def stop(self) -> None:
        """Stop fast (sessions are cut, as in a restart of the server)."""
        self._run(str(self.bindir / "pg_ctl"), "-D", str(self.data), "-m", "fast", "-w", "stop")

    @property
    def dsn(self) -> str:
        """Where it listens."""
        return f"postgresql://postgres@127.0.0.1:{self.port}/postgres"


async def postgres_outage(args: argparse.Namespace, lines: LineCounter) -> dict[str, Any]:
    """PostgreSQL stopped for `args.outage` seconds under load, then started again."""
    bindir = _pg_bin()
    if bindir is None:
        return {"skipped": "no PostgreSQL server binaries under /usr/lib/postgresql"}
    try:
        from storage.postgres import PostgresRepository
    except ImportError as exc:
        return {"skipped": f"asyncpg is not installed: {exc}"}
    folder = Path(tempfile.mkdtemp(prefix="gnav-outage-pg-"))
    cluster = Cluster(bindir, folder)
    try:
        try:
            cluster.init()
            cluster.start()
        except (OSError, subprocess.CalledProcessError) as exc:
            detail = getattr(exc, "stderr", "") or str(exc)
            return {"skipped": f"cannot start a throwaway cluster: {detail.strip()[:200]}"}
        repo = await PostgresRepository.open(cluster.dsn, connect_timeout=2.0)
        try:
            return await _measure(
                "PostgreSQL stopped and started",
                repo,
                args,
                lines,
                fault=cluster.stop,
                repair=cluster.start,
            )
        finally:
            await repo.close()
    finally:
        with contextlib.suppress(Exception):
            cluster.stop()
        shutil.rmtree(folder, ignore_errors=True)


# ------------------------------------------------------------------------------ SQLite
async def sqlite_full_disk(args: argparse.Namespace, lines: LineCounter) -> dict[str, Any]:
    """SQLite on a small tmpfs filled to the last byte for `args.outage` seconds, then freed."""
    from storage.sqlite import SqliteRepository

    folder = Path(tempfile.mkdtemp(prefix="gnav-outage-sqlite-"))
    disk = folder / "disk"
    disk.mkdir()
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={args.disk_mb}m", "tmpfs", str(disk)],
        capture_output=True,
        text=True,
        check=False,
    )
    if mounted.returncode != 0:
        shutil.rmtree(folder, ignore_errors=True)
        reason = mounted.stderr.strip() or "mount failed"
        return {"skipped": f"cannot mount a {args.disk_mb} MB tmpfs here: {reason}"}
    path = disk / "gnav.sqlite3"
    filler = disk / "filler"
    try:
        repo = await SqliteRepository.open(path, synchronous="NORMAL")
        try:
            figures = await _measure(
                f"SQLite on a {args.disk_mb} MB disk filled and freed",
                repo,
                args,
                lines,
                fault=lambda: fill(filler),
                repair=filler.unlink,
            )
        finally:
            await repo.close()
        wal = Path(f"{path}-wal")
        with contextlib.closing(sqlite3.connect(path)) as conn:
            figures["integrity_check"] = conn.execute("PRAGMA integrity_check").fetchone()[0]
        figures["db_kb_after"] = path.stat().st_size // 1024
        figures["wal_kb_after"] = wal.stat().st_size // 1024 if wal.exists() else 0
        print(f"  {'integrity_check':26} {figures['integrity_check']}")
        print(f"  {'db_kb_after':26} {figures['db_kb_after']}")
        return figures
    finally:
        subprocess.run(["umount", "-l", str(disk)], check=False)
        shutil.rmtree(folder, ignore_errors=True)


def fill(filler: Path) -> None:
    """Write `filler` until the disk has no byte left."""
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT, 0o600)
    try:
        for size in (1 << 16, 512, 1):
            with contextlib.suppress(OSError):
                while True:
                    os.write(fd, b"\0" * size)
    finally:
        os.close(fd)


# ------------------------------------------------------------------------------ the run
async def _measure(
    name: str,
    repo: Repository,
    args: argparse.Namespace,
    lines: LineCounter,
    *,
    fault: Callable[[], object],
    repair: Callable[[], object],
) -> dict[str, Any]:
    """Play, break the store for `args.outage` s, repair it, play on; the figures."""
    load = Load()
    service = TableService(
        repo, NullNotifier(), games=all_games(), bot_delay=args.bot_delay, lobby_idle=3600
    )
    await start_tables(service, args.tables, args.lobbies)
    count_saves(repo, load)
    count_sends(service, load)
    loop = asyncio.get_running_loop()
    async with running(service, args.lobbies, load):
        await asyncio.sleep(args.before)
        down = time.monotonic()  # the window begins as the fault does (a stop takes time)
        await loop.run_in_executor(None, fault)
        await asyncio.sleep(args.outage)
        up_begin = time.monotonic()
        await loop.run_in_executor(None, repair)
        up = time.monotonic()
        await asyncio.sleep(args.after)
        end = time.monotonic()
    loud = [line for line in lines.loud]
    lines.loud.clear()
    extra = {
        "repair_took_s": round(up - up_begin, 2),
        "health_after": service.health.snapshot()["store"],
        "outages_seen": service.health.outages,
        "loud_lines": loud[:5],
    }
    if os.environ.get("GNAV_OUTAGE_TRACE"):
        print([(round(t - up, 2), k) for t, k in load.answers if up - 0.2 <= t < up + 3])
        print([round(t - up, 2) for t in load.play_saves if up - 0.2 <= t < up + 1.5][:10])
    figures = report(name, load, lines, down, up, end, extra)
    await service.shutdown()
    return figures


async def main() -> None:
    """Run the outages asked for and print their figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=100, help="tables of bots playing")
    parser.add_argument("--lobbies", type=int, default=10, help="lobbies the person uses")
    parser.add_argument("--outage", type=float, default=15.0, help="seconds the store is away")
    parser.add_argument("--before", type=float, default=3.0, help="seconds of play before")
    parser.add_argument("--after", type=float, default=5.0, help="seconds of play after")
    parser.add_argument("--bot-delay", type=float, default=0.2, help="seconds a bot waits")
    parser.add_argument("--disk-mb", type=int, default=3, help="the SQLite disk's size")
    parser.add_argument("--only", choices=("postgres", "sqlite"), default=None)
    args = parser.parse_args()
    lines = LineCounter()
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    root = logging.getLogger()
    root.addHandler(lines)
    root.setLevel(logging.INFO)
    for handler in root.handlers:
        if handler is not lines:
            handler.setLevel(logging.WARNING)  # the lines are counted, not all shown
    results: dict[str, Any] = {}
    if args.only in (None, "postgres"):
        results["postgres"] = await postgres_outage(args, lines)
        if "skipped" in results["postgres"]:
            print(f"\nPostgreSQL: skipped: {results['postgres']['skipped']}")
    if args.only in (None, "sqlite"):
        results["sqlite"] = await sqlite_full_disk(args, lines)
        if "skipped" in results["sqlite"]:
            print(f"\nSQLite: skipped: {results['sqlite']['skipped']}")
    print(json.dumps(results))


if __name__ == "__main__":
    asyncio.run(main())
