"""The JSON contract other tools rely on."""

from __future__ import annotations

from bot import i18n
from bot.diagnose import ErrkbService
from bot.render.json import diagnosis_json

MATCH_KEYS = {"id", "how", "score", "span", "line", "signature", "root_cause", "dead_ends", "workarounds",
              "evidence_count", "official_doc_url"}


async def test_diagnosis_json_has_exactly_the_contract_keys(kb):
    paste = "RuntimeError: [torch.distributed] AllReduce timed out in rank 4 (timeout: 600)"
    with i18n.use_locale("zh-CN"):
        data = diagnosis_json(await ErrkbService(kb).diagnose(paste))
    assert set(data) == {"locale", "matches"} and data["locale"] == "zh"
    match = data["matches"][0]
    assert set(match) == MATCH_KEYS
    assert set(match["dead_ends"][0]) == {"text", "fail_rate"}
    assert set(match["workarounds"][0]) == {"index", "text", "success_rate", "votes_up", "votes_down"}
    assert match["span"] == [paste.index("AllReduce"), len(paste)]
    assert match["workarounds"][0]["text"].startswith("使用")
