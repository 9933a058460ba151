"""``errkb export``: crowd numbers in the seeds, valid, and re-seeded without counting votes twice."""

from __future__ import annotations

import datetime as dt

import pytest

from bot.kb import feedback as fb
from bot.kb.entry import Entry
from bot.kb.feedback import Tally
from bot.kb.seeds import export_seeds, load_seeds
from bot.kb.validate import validate_entry
from bot.store import EntryFeedback
from bot.store.export import crowd_raw

NCCL = "pytorch/nccl-timeout-during-allreduce"
T0 = 1_717_200_000.0  # 2024-06-01 UTC


class TestCrowdRaw:
    def test_an_entry_nobody_voted_on_is_written_back_unchanged(self, nccl):
        entry = Entry(raw=nccl)
        assert crowd_raw(entry, EntryFeedback()) == nccl

    def test_the_copy_is_deep_and_keeps_unknown_keys(self, nccl):
        nccl["team_notes"] = {"owner": "infra"}
        entry = Entry(raw=nccl)
        out = crowd_raw(entry, EntryFeedback(workarounds={0: Tally(3, 0)}, distinct_voters=3))
        assert out["team_notes"] == {"owner": "infra"}
        out["workarounds"][0]["action"] = "changed"
        out["team_notes"]["owner"] = "changed"
        assert entry.raw["workarounds"][0]["action"] != "changed" and entry.raw["team_notes"]["owner"] == "infra"

    def test_votes_move_rates_evidence_fix_rate_and_last_confirmed(self, nccl):
        entry = Entry(raw=nccl)
        live = EntryFeedback(workarounds={0: Tally(0, 4), 1: Tally(5, 0), 2: Tally()}, distinct_voters=9,
                             last_confirmed=dt.date(2024, 7, 2))
        out = crowd_raw(entry, live)
        n0 = fb.prior_weight(0.82)
        rates = [(0.85 * n0) / (n0 + 4), (0.75 * n0 + 5) / (n0 + 5), 0.8]
        assert [w["success_rate"] for w in out["workarounds"]] == [round(rates[0], 3), round(rates[1], 3), 0.8]
        assert [w.get("seed_success_rate") for w in out["workarounds"]] == [0.85, 0.75, None]
        # the entry's fix rate pools every fix's votes (5 up, 4 down) on the authors' estimate of 0.8
        assert out["fix_success_rate"] == round((0.8 * n0 + 5) / (n0 + 9), 3)
        assert out["seed_fix_success_rate"] == nccl["fix_success_rate"] == 0.8
        assert (out["evidence_count"], out["seed_evidence_count"]) == (10, 1)
        assert out["last_confirmed"] == "2024-07-02"
        assert validate_entry(out, "export.json", expected_id=NCCL) == []

    def test_last_confirmed_never_moves_back(self, nccl):
        out = crowd_raw(Entry(raw=nccl), EntryFeedback(last_confirmed=dt.date(2023, 1, 1)))
        assert out["last_confirmed"] == "2024-06-01"

    def test_an_exported_entry_reads_its_priors_back(self, nccl):
        out = crowd_raw(Entry(raw=nccl), EntryFeedback(workarounds={0: Tally(9, 0)}, distinct_voters=9))
        again = Entry(raw=out)
        assert again.workarounds[0].prior == 0.85 and again.evidence_count == 1
        assert crowd_raw(again, EntryFeedback(workarounds={0: Tally(9, 0)}, distinct_voters=9)) == out

    def test_after_votes_are_withdrawn_the_rate_returns_to_the_prior(self, nccl):
        voted = crowd_raw(Entry(raw=nccl), EntryFeedback(workarounds={0: Tally(9, 0)}, distinct_voters=9))
        withdrawn = crowd_raw(Entry(raw=voted), EntryFeedback())
        assert withdrawn["workarounds"][0]["success_rate"] == 0.85
        assert withdrawn["evidence_count"] == 1


async def test_export_validate_seed_round_trip_counts_nothing_twice(seeded, make_kb, nccl, other, tmp_path):
    for i in range(6):
        await seeded.record_vote("T1", f"U{i}", NCCL, 1, "+1", True, T0 + i)
    await seeded.record_vote("T1", "U9", NCCL, 0, "-1", True, T0)
    kb = make_kb(nccl, other)
    before = await seeded.feedback(kb)

    written = export_seeds(await seeded.export_raws(kb), tmp_path / "out")
    assert len(written) == 2
    reloaded = load_seeds(tmp_path / "out")  # validates every file; raises on any problem
    exported = reloaded[NCCL].raw
    assert exported["workarounds"][1]["success_rate"] > 0.75
    assert exported["evidence_count"] == 1 + 7

    report = await seeded.sync_entries(reloaded)
    assert report.updated == [NCCL] and report.unchanged == ["pytorch/other-error"]
    assert report.retired_workarounds == []
    assert await seeded.feedback(kb) == before
    # What readers see did not move, and a second export is the same file.
    assert await seeded.export_raws(reloaded) == [reloaded[k].raw for k in reloaded]


@pytest.mark.parametrize("votes", [0, 3])
async def test_exported_numbers_match_what_readers_are_shown(seeded, make_kb, nccl, other, votes):
    for i in range(votes):
        await seeded.record_vote("T1", f"U{i}", NCCL, 2, "+1", True, T0)
    kb = make_kb(nccl, other)
    live = (await seeded.feedback([NCCL]))[NCCL]
    exported = (await seeded.export_raws(kb))[0]
    shown = fb.success_rate(0.8, 0.82, live.workarounds[2])
    assert exported["workarounds"][2]["success_rate"] == pytest.approx(shown, abs=0.0005)
