"""``errkb seed``: bring the stored entries and their vote targets in line with the seeds.

Every start of ``errkb serve`` syncs too, and comparing 50,000 entries one by one takes seconds, so a
sync of validated seeds (:class:`~bot.kb.seeds.Seeds`, which carry their files' hash) remembers what
it left in the ``meta`` table: that hash, the sync code's own, and a summary of the ``entries`` table
(rows, latest seeded and retired times). While all three are unchanged the next sync has nothing to
do; anything else that writes an entry (a team entry, another version's sync) changes the summary,
and the next sync compares every entry again.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from sqlalchemy import delete, func, or_, select, text, update
from sqlalchemy.ext.asyncio import AsyncConnection

from bot.errors import SeedError
from bot.kb import feedback
from bot.kb.entry import Entry, Problem
from bot.kb.feedback import SUGGESTED_BASE
from bot.kb.seeds import Seeds
from bot.kb.team_entry import is_team_id
from bot.kb.validate import validate_entry
from bot.store import identity, team_fixes
from bot.store.models import DIAGNOSIS, WORKAROUND, EntryRow, MetaRow, Target
from bot.store.records import SyncReport


def canonical_json(raw: dict[str, Any]) -> str:
    """The stored form of an entry: key order and whitespace do not change its hash."""
    return json.dumps(raw, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def refuse_invalid(entries: Mapping[str, Entry]) -> None:
    """Raise :class:`SeedError` with every problem, before anything is written."""
    problems: list[Problem] = []
    if not entries:
        problems.append(Problem("seeds", "", "no entries to seed"))
    if isinstance(entries, Seeds):
        entries = {}  # load_seeds validated them, each under its own id: 50,000 need not be unpacked again
    for entry_id, entry in entries.items():
        file = entry.source or entry_id
        problems += validate_entry(entry.raw, file)
        if entry.raw.get("id") != entry_id:
            problems.append(Problem(file, "id", f"is {entry.raw.get('id')!r} but the entry was given as {entry_id!r}"))
    if problems:
        raise SeedError(problems)


# Processes seeding one PostgreSQL database at once take turns (SQLite's write lock does this already).
_PG_SEED_LOCK = 0x6572726B63
_SEEDS = "seeds"  # the meta row of what the last sync left
_CODE = hashlib.sha256(Path(__file__).read_bytes() + Path(identity.__file__).read_bytes()).hexdigest()


async def sync(conn: AsyncConnection, entries: Mapping[str, Entry], now: float) -> SyncReport:
    """Store ``entries`` (the whole KB); entries missing from it are retired, not deleted (team-written
    entries, which the seeds do not hold, excepted)."""
    if conn.dialect.name == "postgresql":
        await conn.execute(text("SELECT pg_advisory_xact_lock(:id)"), {"id": _PG_SEED_LOCK})
    remembered = await _remembered(conn, entries)
    if remembered is not None and remembered == (await conn.execute(
            select(MetaRow.value).where(MetaRow.key == _SEEDS))).scalar():
        return SyncReport(unchanged=sorted(entries))
    report = SyncReport()
    rows = await conn.execute(select(EntryRow.id, EntryRow.content_hash, EntryRow.retired_at))
    stored = {row.id: row for row in rows}
    new_entries: list[dict[str, Any]] = []
    new_targets: list[dict[str, Any]] = []
    for entry_id in sorted(entries):
        entry = entries[entry_id]
        content = canonical_json(entry.raw)
        digest = hashlib.sha256(content.encode("utf-8")).hexdigest()
        row = stored.get(entry_id)
        values = {"content": content, "content_hash": digest, "seeded_at": now, "retired_at": None}
        if row is None:
            new_entries.append({"id": entry_id, **values})
            new_targets.extend(_new_targets(entry))
            report.added.append(entry_id)
        elif row.content_hash == digest and row.retired_at is None:
            report.unchanged.append(entry_id)
        else:
            await conn.execute(update(EntryRow).where(EntryRow.id == entry_id).values(**values))
            await conn.execute(update(Target).where(Target.entry_id == entry_id, Target.kind == DIAGNOSIS)
                               .values(prior=entry.confidence))
            retired = await _sync_workarounds(conn, entry, now)
            report.updated.append(entry_id)
            report.retired_workarounds.extend(f"{entry_id} workarounds[{i}]" for i in retired)
    if new_entries:
        await conn.execute(EntryRow.__table__.insert(), new_entries)
        await conn.execute(Target.__table__.insert(), new_targets)
    for entry_id, row in sorted(stored.items()):
        if entry_id not in entries and not is_team_id(entry_id) and row.retired_at is None:
            await conn.execute(update(EntryRow).where(EntryRow.id == entry_id).values(retired_at=now))
            report.retired.append(entry_id)
    if remembered is not None:
        await conn.execute(delete(MetaRow).where(MetaRow.key == _SEEDS))
        await conn.execute(MetaRow.__table__.insert(), [{"key": _SEEDS, "value": await _remembered(conn, entries)}])
    return report


async def _remembered(conn: AsyncConnection, entries: Mapping[str, Entry]) -> str | None:
    """What a sync of ``entries`` leaves in ``meta`` (None for entries without a hash of their files)."""
    digest = entries.digest if isinstance(entries, Seeds) else None
    if digest is None:
        return None
    summary = (await conn.execute(select(func.count(), func.max(EntryRow.seeded_at), func.max(EntryRow.retired_at))
                                  .select_from(EntryRow))).one()
    return " ".join([digest, _CODE, *(repr(value) for value in summary)])


async def put_entry(conn: AsyncConnection, entry: Entry, now: float, retired: bool = False) -> None:
    """Store one entry (added, or updated keeping its workarounds' votes), leaving every other entry alone."""
    content = canonical_json(entry.raw)
    digest = hashlib.sha256(content.encode("utf-8")).hexdigest()
    values = {"content": content, "content_hash": digest, "seeded_at": now, "retired_at": now if retired else None}
    if (await conn.execute(select(EntryRow.id).where(EntryRow.id == entry.id))).first() is None:
        await conn.execute(EntryRow.__table__.insert(), [{"id": entry.id, **values}])
        await conn.execute(Target.__table__.insert(), _new_targets(entry))
        return
    await conn.execute(update(EntryRow).where(EntryRow.id == entry.id).values(**values))
    await conn.execute(update(Target).where(Target.entry_id == entry.id, Target.kind == DIAGNOSIS)
                       .values(prior=entry.confidence))
    await _sync_workarounds(conn, entry, now)


def _new_targets(entry: Entry) -> list[dict[str, Any]]:
    """The target rows of an entry seen for the first time: its diagnosis and each workaround."""
    rows = [{"entry_id": entry.id, "kind": DIAGNOSIS, "key": "", "position": None, "text": "", "text_hash": "",
             "prior": entry.confidence, "up": 0, "down": 0, "retired_at": None}]
    taken: set[str] = set()
    for i, want in enumerate(_wanted(entry)):
        key = identity.new_key(want, taken)
        taken.add(key)
        rows.append({"entry_id": entry.id, "kind": WORKAROUND, "key": key, "up": 0, "down": 0,
                     **_placement(entry, i, want)})
    return rows


def _wanted(entry: Entry) -> list[identity.Wanted]:
    return [identity.Wanted(identity.explicit_key(w), identity.identity_text(w)) for w in entry.raw["workarounds"]]


def _placement(entry: Entry, i: int, want: identity.Wanted) -> dict[str, Any]:
    """A live workaround's seed-derived columns: where it is now, its text and the prior its rate starts
    from (the authors' estimate; the weak prior for an unrated fix)."""
    prior = entry.workarounds[i].prior
    return {"position": i, "text": want.text, "text_hash": identity.text_hash(want.text),
            "prior": feedback.WEAK_PRIOR if prior is None else prior, "retired_at": None}


async def _sync_workarounds(conn: AsyncConnection, entry: Entry, now: float) -> list[int]:
    """Match the entry's workarounds to stored identities; returns the old indexes retired.

    A team's live suggested fixes (``bot.store.team_fixes``, at their high indexes) are not the seed's,
    unless a seed workaround claims one by its key; one claimed before is a seed workaround from then on."""
    wanted = _wanted(entry)
    seeds = or_(Target.key.not_like(f"{team_fixes.KEY_PREFIX}%"), Target.key.in_([w.key for w in wanted if w.key]),
                Target.position < SUGGESTED_BASE)
    rows = (await conn.execute(
        select(Target.id, Target.key, Target.text, Target.position)
        .where(Target.entry_id == entry.id, Target.kind == WORKAROUND, seeds)
    )).all()
    matched = identity.match([identity.Known(r.key, r.text, r.position) for r in rows], wanted)
    by_key = {r.key: r for r in rows}
    taken = set(by_key)
    # Positions are unique per entry: clear them all, then hand them out again.
    await conn.execute(update(Target).where(Target.entry_id == entry.id, Target.kind == WORKAROUND, seeds)
                       .values(position=None))
    for i, (want, key) in enumerate(zip(wanted, matched, strict=True)):
        if key is None:
            new = identity.new_key(want, taken)
            taken.add(new)
            await conn.execute(Target.__table__.insert().values(
                entry_id=entry.id, kind=WORKAROUND, key=new, up=0, down=0, **_placement(entry, i, want)))
        else:
            await conn.execute(update(Target).where(Target.id == by_key[key].id)
                               .values(key=want.key or key, **_placement(entry, i, want)))
    continuing = set(matched)
    gone = [r for r in rows if r.key not in continuing]
    for r in gone:
        if r.position is not None:
            await conn.execute(update(Target).where(Target.id == r.id).values(retired_at=now))
    return sorted(r.position for r in gone if r.position is not None)
