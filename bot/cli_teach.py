"""``errkb unmatched``: the errors errkb could not answer, as it keeps them (masked lines, counts)."""

from __future__ import annotations

import argparse
import datetime as dt
import json

from bot.config import Settings
from bot.i18n import _, fmt_number


def _day(seconds: float) -> str:
    return dt.datetime.fromtimestamp(seconds, dt.UTC).strftime("%Y-%m-%d")


def cmd_unmatched(args: argparse.Namespace, settings: Settings) -> int:
    from bot.cli_ops import _with_store

    rows = _with_store(settings, lambda store: store.unknown_errors(args.workspace, args.limit))
    if args.format == "json":
        print(json.dumps([{"workspace": r.workspace, "line": r.shape, "error_type": r.error_type, "count": r.count,
                           "channel": r.channel, "digest": r.digest, "first_seen": _day(r.first_seen),
                           "last_seen": _day(r.last_seen)} for r in rows], ensure_ascii=False, indent=2))
        return 0
    if not rows:
        print(_("No unknown errors kept."))
        return 0
    print(_("Errors errkb doesn't know yet (masked; most frequent first)"))
    for r in rows:
        seen = _("first {first}, last {last}").format(first=_day(r.first_seen), last=_day(r.last_seen))
        print(f"  {fmt_number(r.count):>6}  {r.shape}\n          {r.workspace or '-'} · {seen}")
    return 0


def add_teach_commands(add) -> None:
    p = add("unmatched", cmd_unmatched, "Errors errkb could not answer: their masked lines, counts, first/last seen.",
            ("text", "json"))
    p.add_argument("--workspace", help="only this workspace (team id T…); default: all")
    p.add_argument("--limit", type=int, default=50)
