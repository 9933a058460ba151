"""``errkb`` sub-commands that run the store or the bot: seed, export, stats, db, serve."""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import asdict
from typing import Any, TypeVar

from bot.config import Settings
from bot.kb.entry import validate_entry
from bot.kb.knowledge import KnowledgeBase
from bot.kb.seeds import SeedError, export_seeds, load_seeds
from bot.render.text import render_stats

T = TypeVar("T")


def _print_json(data: Any) -> None:
    import json

    print(json.dumps(data, ensure_ascii=False, indent=2, default=str))


def _with_store(settings: Settings, work: Callable[[Any], Awaitable[T]]) -> T:
    """Open the configured store, run ``work(store)``, close it."""
    from bot.store import Store

    async def run() -> T:
        async with await Store.open(settings.database_url) as store:
            return await work(store)

    return asyncio.run(run())


def cmd_seed(args: argparse.Namespace, settings: Settings) -> int:
    try:
        entries = load_seeds(args.dir or settings.seeds_dir)
    except SeedError as exc:
        print(exc, file=sys.stderr)
        print("errkb: seed refused; the store was left as it was", file=sys.stderr)
        return 1

    report = _with_store(settings, lambda store: store.sync_entries(entries))
    print(f"{len(entries)} entries: {len(report.added)} added, {len(report.updated)} updated, "
          f"{len(report.unchanged)} unchanged, {len(report.retired)} retired")
    for retired in (*report.retired, *report.retired_workarounds):
        print(f"  retired (votes kept): {retired}")
    return 0


def cmd_export(args: argparse.Namespace, settings: Settings) -> int:
    entries = load_seeds(settings.seeds_dir)

    raws = _with_store(settings, lambda store: store.export_raws(entries))
    problems = [p for raw in raws for p in validate_entry(raw, raw.get("id", "?"))]
    if problems:
        for p in problems:
            print(p, file=sys.stderr)
        return 1
    translations = {e.id: e.translations for e in entries.values() if e.translations}
    written = export_seeds(raws, args.out, translations)
    print(f"{len(written)} entries written to {args.out}")
    return 0


def cmd_stats(args: argparse.Namespace, settings: Settings) -> int:
    kb = KnowledgeBase.load(settings.seeds_dir)
    domains = Counter(e.domain for e in kb.entries.values())

    usage = _with_store(settings, lambda store: store.stats(limit=args.limit))
    if args.format == "json":
        _print_json({"entries": len(kb.entries), "domains": dict(sorted(domains.items())), "usage": asdict(usage)})
    else:
        print(render_stats(dict(domains), usage))
    return 0


def cmd_db(args: argparse.Namespace, settings: Settings) -> int:
    async def work(store) -> list[str]:  # opening the store applies every pending migration
        if args.action == "upgrade":
            return []
        if args.action == "repair":
            fixed = await store.repair()
            return [f"{fixed} counter(s) repaired"] if fixed else []
        return await store.check()

    lines = _with_store(settings, work)
    for line in lines:
        print(line)
    if args.action == "upgrade":
        print(f"database at {settings.database_url.split('@')[-1]} is up to date")
        return 0
    if args.action == "check" and not lines:
        print("every counter agrees with the vote rows")
    return 1 if args.action == "check" and lines else 0


def cmd_serve(args: argparse.Namespace, settings: Settings) -> int:
    from bot.slack.app import serve

    serve(settings)
    return 0


def add_ops_commands(add) -> None:
    p = add("seed", cmd_seed, "Load the seeds into the store (idempotent; votes are kept).")
    p.add_argument("dir", nargs="?")
    p = add("export", cmd_export, "Write seeds carrying the crowd-updated rates.")
    p.add_argument("--out", required=True)
    p = add("stats", cmd_stats, "Entries per domain, most-matched entries, most-voted workarounds.", ("text", "json"))
    p.add_argument("--limit", type=int, default=10)
    p = add("db", cmd_db, "Database maintenance: upgrade (migrations), check or repair counters.")
    p.add_argument("action", choices=("upgrade", "check", "repair"))
    add("serve", cmd_serve, "Run the Slack bot (HTTP on $PORT, or Socket Mode when SLACK_APP_TOKEN is set).")
