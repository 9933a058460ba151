"""The JSON contract other tools rely on, plus fields that say where each number comes from."""

from __future__ import annotations

import dataclasses

import pytest

from bot import i18n
from bot.render.json import diagnosis_json, entry_json
from bot.service.knowledge import Knowledge
from tests.conftest import NCCL_ID

MATCH_KEYS = {"id", "how", "score", "span", "line", "signature", "root_cause", "dead_ends", "workarounds",
              "evidence_count", "official_doc_url"}
PASTE = "RuntimeError: [torch.distributed] AllReduce timed out in rank 4 (timeout: 600)"


async def test_diagnosis_json_keeps_every_contract_key(kb):
    with i18n.use_locale("zh-CN"):
        data = diagnosis_json(await Knowledge(kb).diagnose(PASTE))
    assert set(data) == {"locale", "matches"} and data["locale"] == "zh"
    match = data["matches"][0]
    assert set(match) >= MATCH_KEYS and {"headline", "quote", "voters_here"} <= set(match)
    assert {"text", "fail_rate"} <= set(match["dead_ends"][0])
    assert {"index", "text", "success_rate", "votes_up", "votes_down"} <= set(match["workarounds"][0])
    assert match["span"] == [PASTE.index("AllReduce"), len(PASTE)]
    assert match["workarounds"][0]["text"].startswith("使用")


@pytest.mark.parametrize(("locale", "estimate", "voted"), [
    ("en", "estimated ~85% (AI-drafted), no votes here yet", "worked for 3 of 4 people here"),
    ("zh", "估计约 85%（AI 起草），这里还没人投票", "这里 4 人投票，3 人说有效"),
])
async def test_each_rate_says_whether_it_is_an_estimate_or_votes_here(kb, locale, estimate, voted):
    with i18n.use_locale(locale):
        view = await Knowledge(kb).show(NCCL_ID)
        best = view.workarounds[0]
        first = entry_json(view, locale)["workarounds"][0]
        with_votes = dataclasses.replace(view, workarounds=[dataclasses.replace(best, votes_up=3, votes_down=1)])
        second = entry_json(with_votes, locale)["workarounds"][0]
    assert (first["rate_basis"], first["estimated_rate"], first["estimated_by"]) == ("estimate", 0.85,
                                                                                      "ai_generated")
    assert first["evidence"] == estimate
    assert second["rate_basis"] == "estimate_and_votes" and second["evidence"].startswith(voted)


async def test_a_fallback_match_is_marked_and_said_plainly(kb):
    paste = "$ git status\nfatal: detected dubious ownership in repository at /srv/app\n"  # no regex hit
    for locale, start in (("en", "Looks like "), ("zh", "看起来像：")):
        with i18n.use_locale(locale):
            match = diagnosis_json(await Knowledge(kb).diagnose(paste))["matches"][0]
        assert match["how"] == "fuzzy" and match["headline"].startswith(start) and 0.5 <= match["score"] < 1


async def test_related_entries_come_with_titles(kb):
    with i18n.use_locale("en"):
        data = entry_json(await Knowledge(kb).show("pytorch/cuda-out-of-memory"), "en")
    assert "cuda/cuda-error-out-of-memory" in data["related"]["frequently_confused_with"]
    titled = {r["id"]: r["title"] for r in data["related_entries"]}
    assert titled["pytorch/cuda-illegal-memory-access"] == "CUDA error: an illegal memory access was encountered"


async def test_secrets_on_the_matched_line_are_masked_in_json(kb):
    paste = "RuntimeError: [torch.distributed] AllReduce timed out in rank 4 (timeout: 600) AKIAIOSFODNN7EXAMPLE"
    with i18n.use_locale("en"):
        match = diagnosis_json(await Knowledge(kb).diagnose(paste))["matches"][0]
    assert "AKIAIOSFODNN7EXAMPLE" not in match["line"] + match["quote"] and "AKIAIOSF•••••" in match["line"]
