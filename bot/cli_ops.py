"""``errkb`` sub-commands that run the store or the bot: seed, export, stats, db, serve — each through the
catalog use case (``bot.service.catalog.Catalog``), like every other command."""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Awaitable, Callable
from dataclasses import asdict
from typing import TYPE_CHECKING, Any, TypeVar

from bot.config import Settings
from bot.errors import UsageError
from bot.kb.knowledge import KnowledgeBase
from bot.kb.seeds import export_seeds

if TYPE_CHECKING:  # the store (SQLAlchemy) is imported by the commands that open it, not by every errkb command
    from bot.service.catalog import Catalog

T = TypeVar("T")


def _print_json(data: Any) -> None:
    import json

    print(json.dumps(data, ensure_ascii=False, indent=2, default=str))


def _with_catalog(kb: KnowledgeBase, settings: Settings, work: Callable[[Catalog], Awaitable[T]]) -> T:
    """Open the configured store, run ``work`` on the catalog over ``kb`` and it, close it."""
    from bot.service.catalog import Catalog
    from bot.store import Store

    async def run() -> T:
        async with await Store.open(settings.database_url) as store:
            return await work(Catalog(kb, store))

    return asyncio.run(run())


def cmd_seed(args: argparse.Namespace, settings: Settings) -> int:
    kb = KnowledgeBase.load(args.dir or settings.seeds_dir)  # invalid seeds: refused before the store is opened
    report = _with_catalog(kb, settings, lambda catalog: catalog.seed())
    print(f"{len(kb.entries)} entries: {len(report.added)} added, {len(report.updated)} updated, "
          f"{len(report.unchanged)} unchanged, {len(report.retired)} retired")
    for retired in (*report.retired, *report.retired_workarounds):
        print(f"  retired (votes kept): {retired}")
    return 0


def cmd_export(args: argparse.Namespace, settings: Settings) -> int:
    kb = KnowledgeBase.load(settings.seeds_dir)
    if args.team:
        from bot.cli_export import export_team

        return export_team(args, kb, _with_catalog(kb, settings, lambda catalog: catalog.export_team(args.team)))
    raws, problems = _with_catalog(kb, settings, lambda catalog: catalog.export())
    if problems:
        for p in problems:
            print(p, file=sys.stderr)
        return 1
    translations = {e.id: e.translations for e in kb.entries.values() if e.translations}
    written = export_seeds(raws, args.out, translations)
    print(f"{len(written)} entries written to {args.out}")
    return 0


def cmd_stats(args: argparse.Namespace, settings: Settings) -> int:
    kb = KnowledgeBase.load(settings.seeds_dir)
    domains, usage = _with_catalog(kb, settings, lambda catalog: catalog.stats(limit=args.limit))
    if args.format == "json":
        _print_json({"entries": len(kb.entries), "domains": domains, "usage": asdict(usage)})
    else:
        from bot.render.text import render_stats

        print(render_stats(domains, usage))
    return 0


def cmd_db(args: argparse.Namespace, settings: Settings) -> int:
    if args.action == "prune":
        removed = _with_store(settings, lambda store: store.prune(settings.retention))
        keep = settings.retention
        print(f"pruned {removed.total} rows (posted messages and answered threads older than {keep.posted_days} days, "
              f"hit counts older than {keep.hits_days} days; 0 = kept for ever)"
              + "".join(f"\n  {table}: {n}" for table, n in sorted(removed.rows.items())))
        return 0
    if args.action in ("encrypt", "rotate-key"):
        return _seal(settings, rotate=args.action == "rotate-key")

    async def work(catalog: Catalog) -> list[str]:  # opening the store applies every pending migration
        return [] if args.action == "upgrade" else await catalog.check(repair=args.action == "repair")

    lines = _with_catalog(KnowledgeBase({}), settings, work)
    for line in lines:
        print(line)
    if args.action == "upgrade":
        print(f"database at {settings.database_url.split('@')[-1]} is up to date")
        return 0
    if args.action == "check" and not lines:
        print("every counter agrees with the vote rows")
    return 1 if args.action == "check" and lines else 0


def _seal(settings: Settings, rotate: bool) -> int:
    """``errkb db encrypt``: encrypt the Slack tokens stored in plain text (``errkb serve`` does it at start too);
    ``errkb db rotate-key``: re-encrypt every one with the first key of ``ERRKB_ENCRYPTION_KEY``."""
    from bot.store.secrets import Cipher, seal_tokens

    cipher = Cipher.from_setting(settings.encryption_key)  # missing or malformed: exit 2 before the store opens
    done = _with_store(settings, lambda store: seal_tokens(store.engine, cipher, rotate=rotate))
    if rotate:
        print(f"{done.rotated + done.encrypted} Slack tokens encrypted with the first key of ERRKB_ENCRYPTION_KEY "
              f"({done.encrypted} of them were plain text); the keys after it may now be removed")
    else:
        print(f"{done.encrypted} Slack tokens encrypted, {done.checked} were encrypted already")
    return 0


def cmd_workspace(args: argparse.Namespace, settings: Settings) -> int:
    team = args.team_id.strip()
    if not team:
        raise UsageError("workspace delete: give the workspace's team id (T…)")
    removed = _with_store(settings, lambda store: store.delete_workspace(team))
    if not removed.total:
        print(f"nothing stored for workspace {team}")
        return 0
    print(f"workspace {team}: {removed.total} rows deleted (its votes stay as anonymous counts)"
          + "".join(f"\n  {table}: {n}" for table, n in sorted(removed.rows.items())))
    return 0


def _with_store(settings: Settings, work: Callable[[Any], Awaitable[T]]) -> T:
    from bot.store import Store

    async def run() -> T:
        async with await Store.open(settings.database_url) as store:
            return await work(store)

    return asyncio.run(run())


def cmd_serve(args: argparse.Namespace, settings: Settings) -> int:
    from bot.slack.app import serve

    serve(settings)
    return 0


def add_ops_commands(add) -> None:
    p = add("seed", cmd_seed, "Load the seeds into the store (idempotent; votes are kept).")
    p.add_argument("dir", nargs="?")
    p = add("export", cmd_export, "Write seeds carrying the crowd-updated rates (--team: a workspace's own entries "
            "and suggested fixes, for an upstream pull request).", ("text", "json"))
    p.add_argument("--out", required=True)
    p.add_argument("--team", metavar="TEAM_ID", help="write this workspace's team entries and suggested fixes as "
                   "seeds/ and pastes/ under --out")
    p = add("stats", cmd_stats, "Entries per domain, most-matched entries, most-voted workarounds.", ("text", "json"))
    p.add_argument("--limit", type=int, default=10)
    p = add("db", cmd_db, "Database maintenance: upgrade (migrations), check or repair counters, prune old rows, "
            "encrypt the stored Slack tokens or re-encrypt them with a new key (rotate-key).")
    p.add_argument("action", choices=("upgrade", "check", "repair", "prune", "encrypt", "rotate-key"))
    p = add("workspace", cmd_workspace, "Remove one workspace's data and installation (its votes stay as counts).")
    p.add_argument("verb", choices=("delete",))
    p.add_argument("team_id", metavar="TEAM_ID")
    add("serve", cmd_serve, "Run the Slack bot (HTTP on $PORT, or Socket Mode when SLACK_APP_TOKEN is set).")
