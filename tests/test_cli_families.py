"""``errkb diagnose`` on a coded error no entry knows: the family answer, labelled, in text and JSON; and
``errkb validate`` names a broken families file."""

from __future__ import annotations

import json

import pytest

from bot.cli import main
from tests.conftest import REPO
from tests.support.kbs import families_beside_nccl

CODED = ("   Compiling demo v0.1.0 (/home/dev/demo)\n"
         "error[E0275]: overflow evaluating the requirement `Wrapper<Wrapper<T>>: Sized`\n"
         "  |\n"
         "  = help: consider increasing the recursion limit by adding a `#![recursion_limit = \"256\"]` attribute\n\n"
         "error: aborting due to 1 previous error\n\n"
         "For more information about this error, try `rustc --explain E0275`.\n"
         "error: could not compile `demo` (lib) due to 1 previous error\n")
MYSQL = ("mysql> CREATE FUNCTION f() RETURNS INT RETURN 1;\n"
         "ERROR 1419 (HY000): You do not have the SUPER privilege and binary logging is enabled (you *might* want to "
         "use the less safe log_bin_trust_function_creators variable)\n")


@pytest.fixture(autouse=True)
def small_kb(tmp_path, monkeypatch, nccl_raw):
    """The KB's families beside one entry that knows none of the coded errors below (the real KB grows an entry
    for any error sooner or later; the family answer is for the errors it has none for)."""
    return families_beside_nccl(tmp_path, monkeypatch, nccl_raw)


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_json_answers_at_the_family_level_with_the_codes_page(capsys, tmp_path):
    paste = tmp_path / "rustc.txt"
    paste.write_text(CODED, encoding="utf-8")
    code, out, _ = run(capsys, "diagnose", str(paste), "--format", "json")
    data = json.loads(out)
    assert code == 1  # no entry matched: no known fix
    [answer] = data["matches"]
    assert answer["how"] == "family" and answer["id"] is None and answer["known_fix"] is False
    assert (answer["family"], answer["code"]) == ("rustc", "E0275")
    assert answer["official_doc_url"] == "https://doc.rust-lang.org/error_codes/E0275.html"
    assert answer["line"] == "error[E0275]: overflow evaluating the requirement `Wrapper<Wrapper<T>>: Sized`"
    assert answer["headline"] == "No fix known yet · rustc error E0275" and answer["workarounds"] == []


def test_text_is_labelled_no_fix_in_chinese(capsys, tmp_path):
    paste = tmp_path / "mysql.txt"
    paste.write_text(MYSQL, encoding="utf-8")
    code, out, _ = run(capsys, "diagnose", str(paste), "--locale", "zh")
    assert code == 1
    assert out.startswith("尚无已知修复 · MySQL 错误 1419\n")
    assert ("1419 (ER_BINLOG_CREATE_ROUTINE_NEED_SUPER) 的官方文档页：https://dev.mysql.com/doc/mysql-errors/8.0/en/"
            "server-error-reference.html#error_er_binlog_create_routine_need_super") in out
    assert "并不是诊断" in out


def test_an_error_without_a_code_is_still_unknown(capsys, tmp_path):
    paste = tmp_path / "plain.txt"
    paste.write_text("AcmeWidgetError: frobnicator rejected shard 9\n", encoding="utf-8")
    code, out, _ = run(capsys, "diagnose", str(paste), "--format", "json")
    assert code == 1 and json.loads(out)["matches"] == []


def test_validate_names_a_broken_families_file(capsys, small_kb):
    seeds = small_kb
    raw = json.loads((REPO / "seeds" / "_families.json").read_text(encoding="utf-8"))
    raw["families"][0]["about_zh"] = ""
    (seeds / "_families.json").write_text(json.dumps(raw, ensure_ascii=False), encoding="utf-8")
    code, out, _ = run(capsys, "validate", str(seeds))
    assert code == 1
    assert f"{seeds / '_families.json'}: families[0].about_zh: must be a non-empty string" in out
