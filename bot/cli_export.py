"""``errkb export --team T…``: a workspace's own knowledge as files for an upstream pull request.

Under ``--out`` it writes ``seeds/<domain>/<slug>.json`` (each team entry; each KB entry that got
suggested fixes, its file's own text with them appended, so the pull request's diff is those fixes) and
``pastes/<domain>/<slug>/1.txt`` (a team entry's example line, masked as stored), laid out like the
repository's seeds and pastes (``ERRKB_SEEDS``, ``ERRKB_PASTES``): copy the tree over a checkout and open
the pull request.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from bot.i18n import _, fmt_number
from bot.kb.knowledge import KnowledgeBase
from bot.kb.seeds import export_seeds
from bot.service.catalog import TeamExport


def export_team(args: argparse.Namespace, kb: KnowledgeBase, found: TeamExport) -> int:
    if found.problems:
        for p in found.problems:
            print(p, file=sys.stderr)
        return 1
    out = Path(args.out)
    written = export_seeds(found.raws, out / "seeds", found.translations, kb.entries)
    fixtures = []
    for entry_id, line in found.fixtures.items():
        path = out / "pastes" / entry_id / "1.txt"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(line.rstrip("\n") + "\n", encoding="utf-8")
        fixtures.append(path)
    team = [raw["id"] for raw in found.raws if raw["id"] in found.fixtures]
    amended = [raw["id"] for raw in found.raws if raw["id"] in kb.entries]
    if args.format == "json":
        print(json.dumps({"team_entries": team, "amended_entries": amended, "suggested_fixes": found.fixes,
                          "files": [str(p) for p in (*written, *fixtures)]}, ensure_ascii=False, indent=2))
        return 0
    print(_("{team} team entries and {fixes} suggested fixes ({amended} KB entries amended) written to {seeds} "
            "and {fixtures}").format(team=fmt_number(len(team)), fixes=fmt_number(found.fixes),
                                     amended=fmt_number(len(amended)), seeds=out / "seeds",
                                     fixtures=out / "pastes"))
    return 0
