"""``errkb`` sub-commands that run the store or the bot: seed, export, stats, db, serve."""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections import Counter
from dataclasses import asdict
from typing import Any

from bot.config import Settings
from bot.kb.entry import validate_entry
from bot.kb.knowledge import KnowledgeBase
from bot.kb.seeds import SeedError, export_seeds, load_seeds
from bot.render.text import render_stats


def _print_json(data: Any) -> None:
    import json

    print(json.dumps(data, ensure_ascii=False, indent=2, default=str))


async def _open_store(settings: Settings):
    from bot.store import Store

    return await Store.open(settings.database_url)


def cmd_seed(args: argparse.Namespace, settings: Settings) -> int:
    try:
        entries = load_seeds(args.dir or settings.seeds_dir)
    except SeedError as exc:
        print(exc, file=sys.stderr)
        print("errkb: seed refused; the store was left as it was", file=sys.stderr)
        return 1

    async def work():
        store = await _open_store(settings)
        try:
            return await store.sync_entries(entries)
        finally:
            await store.close()

    report = asyncio.run(work())
    print(f"{len(entries)} entries: {len(report.added)} added, {len(report.updated)} updated, "
          f"{len(report.unchanged)} unchanged, {len(report.retired)} retired")
    for retired in (*report.retired, *report.retired_workarounds):
        print(f"  retired (votes kept): {retired}")
    return 0


def cmd_export(args: argparse.Namespace, settings: Settings) -> int:
    entries = load_seeds(settings.seeds_dir)

    async def work():
        store = await _open_store(settings)
        try:
            return await store.export_raws(entries)
        finally:
            await store.close()

    raws = asyncio.run(work())
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

    async def work():
        store = await _open_store(settings)
        try:
            return await store.stats(limit=args.limit)
        finally:
            await store.close()

    usage = asyncio.run(work())
    if args.format == "json":
        _print_json({"entries": len(kb.entries), "domains": dict(sorted(domains.items())), "usage": asdict(usage)})
    else:
        print(render_stats(dict(domains), usage))
    return 0


def cmd_db(args: argparse.Namespace, settings: Settings) -> int:
    async def work():
        store = await _open_store(settings)  # opening applies every pending migration
        try:
            if args.action == "upgrade":
                return []
            if args.action == "repair":
                fixed = await store.repair()
                return [f"{fixed} counter(s) repaired"] if fixed else []
            return await store.check()
        finally:
            await store.close()

    lines = asyncio.run(work())
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
