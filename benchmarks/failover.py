"""Failover benchmark: two `gnav-bot run` processes in polling mode on one PostgreSQL.

Real processes against the fake Bot API (tests/fakes/telegram_api.py, which answers a second
concurrent long poll of one token with 409 Conflict, as Telegram does), each reaching it through
a base URL of its own so that the fake's record tells whose each call was. Two measurements:

- `conflicts`: both processes run for `--seconds`; the getUpdates calls, how many were
  answered 409 (to a caller still there), and the traceback lines in the processes' logs.
- `failover`: `--kills` times, the polling process (the one whose getUpdates came last) is
  killed with SIGKILL; from the kill to the other process's first getUpdates (the fake's
  clock: the failover), and to the answer to a private command a person sends at the kill
  (play goes on). The killed process is started again and stands by before the next kill,
  which comes 0.5-1.5 s later (at random in the standby's 0.5 s round of tries).

Printed: each kill's figures, then min / median / max, the 409 count, and one JSON line.

Run: `python benchmarks/failover.py` (about a minute; PostgreSQL from GNAV_TEST_POSTGRES_DSN
or --dsn, a schema of its own, dropped at the end). `--code DIR` runs the bot processes from
another source tree (an older version, for a before/after comparison).
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
import json
import os
import random
import secrets
import statistics
import tempfile
from typing import Any

import asyncpg

from tests.adapters.test_polling_standby import (
    BotProcess,
    bot_token,
    conflicts,
    getupdates_of,
)
from tests.fakes.telegram_api import FakeTelegram

ROOT = Path(__file__).resolve().parents[1]
DSN = os.environ.get("GNAV_TEST_POSTGRES_DSN", "postgresql://postgres@127.0.0.1:5432/test")
#: Bounds on waiting for an event (a loaded machine); a run that hits one fails loudly.
STARTED = 60.0
EVENT = 30.0


def _with_schema(dsn: str, schema: str) -> str:
    return f"{dsn}{'&' if '?' in dsn else '?'}search_path={schema}"


async def _first_poll(tg: FakeTelegram, client: str, since: float) -> float:
    times = await tg.wait_for(
        lambda: getupdates_of(tg, client, since), timeout=EVENT, what=f"{client} polling"
    )
    return times[0]


async def _start(
    name: str, tg: FakeTelegram, url: str, work: Path, code: Path | None
) -> BotProcess:
    env = {"PYTHONPATH": str(code)} if code is not None else {}
    proc = await BotProcess.start(name, tg, url, work / name, **env)
    await proc.wait_log("telegram is running", STARTED)
    return proc


async def measure_conflicts(
    tg: FakeTelegram, url: str, work: Path, code: Path | None, seconds: float
) -> dict[str, Any]:
    """Two processes for `seconds`: getUpdates calls, 409s, traceback lines."""
    loop = asyncio.get_running_loop()
    procs = [await _start("a", tg, url, work, code)]
    procs.append(await _start("b", tg, url, work, code))
    began = loop.time()
    before = conflicts(tg)
    polls_before = len(tg.calls("getUpdates"))
    await asyncio.sleep(seconds)  # the measurement window: both processes left alone
    polls = len(tg.calls("getUpdates")) - polls_before
    refused = conflicts(tg) - before
    for p in procs:
        await p.stop()
    tracebacks = sum(line.startswith("Traceback") for p in procs for line in p.lines)
    return {
        "seconds": round(loop.time() - began, 1),
        "getupdates": polls,
        "conflicts_409": refused,
        "traceback_lines": tracebacks,
        "log_lines": sum(len(p.lines) for p in procs),
    }


async def measure_failover(
    tg: FakeTelegram, url: str, work: Path, code: Path | None, kills: int
) -> dict[str, Any]:
    """`kills` SIGKILLs of the poller; the standby's first poll and a command's answer."""
    loop = asyncio.get_running_loop()
    procs = {"a": await _start("a", tg, url, work, code)}
    await _first_poll(tg, "a", 0)
    procs["b"] = await _start("b", tg, url, work, code)
    alice = tg.add_user("Alice")
    chat = tg.private_chat(alice)
    results: list[dict[str, float]] = []
    before = conflicts(tg)
    try:
        for n in range(kills):
            calls = tg.calls("getUpdates")
            polling = calls[-1].client if calls else None
            assert polling in procs, polling
            other = "b" if polling == "a" else "a"
            # A moment at random in the standby's round of tries (every 0.5 s): killed right
            # after it logged standing by, it would always have just tried (the worst case).
            await asyncio.sleep(random.uniform(0.5, 1.5))
            killed = loop.time()
            procs[polling].kill()
            asked = tg.user_sends(alice, chat, "/gnav_help")
            took_over = await _first_poll(tg, other, killed)
            await tg.wait_for_message(alice, after=asked.message_id, timeout=EVENT)
            replied = loop.time()
            results.append(
                {"failover_s": took_over - killed, "command_answered_s": replied - killed}
            )
            print(
                f"kill {n + 1:2}: {polling} killed; {other} polls after "
                f"{took_over - killed:.3f} s; a command sent at the kill answered after "
                f"{replied - killed:.3f} s",
                flush=True,
            )
            await procs[polling].stop()
            procs[polling] = await _start(polling, tg, url, work, code)
            await procs[polling].wait_log("stands by", EVENT)
    finally:
        for p in procs.values():
            await p.stop()
    failover = [r["failover_s"] for r in results]
    answered = [r["command_answered_s"] for r in results]

    def summary(values: list[float]) -> dict[str, float]:
        return {
            "min": round(min(values), 3),
            "median": round(statistics.median(values), 3),
            "max": round(max(values), 3),
        }

    return {
        "kills": len(results),
        "failover_s": summary(failover),
        "command_answered_s": summary(answered),
        "conflicts_409": conflicts(tg) - before,
        "traceback_lines": sum(
            line.startswith("Traceback") for p in procs.values() for line in p.lines
        ),
    }


async def main(args: argparse.Namespace) -> dict[str, Any]:
    """Run the measurements asked for on a schema of their own; their figures."""
    schema = f"gnav_failover_{secrets.token_hex(4)}"
    admin = await asyncpg.connect(args.dsn)
    await admin.execute(f'CREATE SCHEMA "{schema}"')
    out: dict[str, Any] = {"code": "this tree" if args.code is None else "--code"}
    try:
        url = _with_schema(args.dsn, schema)
        with tempfile.TemporaryDirectory(prefix="gnav-failover-") as tmp:
            work = Path(tmp)
            if "conflicts" in args.only:
                async with FakeTelegram(token=bot_token()) as tg:
                    out["conflicts"] = await measure_conflicts(
                        tg, url, work, args.code, args.seconds
                    )
                print("two processes together:", out["conflicts"], flush=True)
            if "failover" in args.only:
                async with FakeTelegram(token=bot_token()) as tg:
                    out["failover"] = await measure_failover(tg, url, work, args.code, args.kills)
                print("failover:", out["failover"], flush=True)
    finally:
        await admin.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
        await admin.close()
    return out


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kills", type=int, default=10, help="SIGKILLs of the poller")
    parser.add_argument(
        "--seconds", type=float, default=20.0, help="how long two processes run together"
    )
    parser.add_argument("--dsn", default=DSN, help="the PostgreSQL server (a schema is made)")
    parser.add_argument("--code", type=Path, default=None, help="run the bots from this tree")
    parser.add_argument(
        "--only",
        nargs="+",
        choices=["conflicts", "failover"],
        default=["conflicts", "failover"],
    )
    return parser


if __name__ == "__main__":
    figures = asyncio.run(main(_parser().parse_args()))
    print(json.dumps(figures))
