"""The shape kept of an unknown error: its decisive line with every value that varies masked."""

from __future__ import annotations

from bot.kb.shape import masked, shape


def test_the_decisive_line_is_the_last_error_raised_with_its_type():
    found = shape("Traceback (most recent call last):\n  File \"/home/ann/x.py\", line 3, in f\n"
                  "KeyError: 'user_id'\n\nDuring handling…\nacme.errors.SyncFailedError: sync 42 failed\n")
    assert found is not None
    assert (found.line, found.error_type) == ("acme.errors.SyncFailedError: sync <n> failed", "SyncFailedError")


def test_values_paths_hosts_people_and_secrets_are_masked():
    line = ("psycopg2.OperationalError: connection to server at \"db.prod.internal\" (10.0.3.4), port 5432 failed "
            "for user bob, see C:\\Users\\bob\\app.log, https://x.example.com/a?b=1 and ann@corp.example.com; "
            "token=ghp_abcdefghijklmnopqrstuvwxyz0123 id 3f2a9c1e-77aa-4bde-9c11-0a1b2c3d4e5f at 0x7f3a2b")
    out = masked(line)
    assert out == ("psycopg2.OperationalError: connection to server at <name> (<host>), port <n> failed "
                   "for user <user>, see <path>, <url> and <email>; token=ghp_<secret> id <hex> at <hex>")


def test_the_same_error_from_different_runs_has_one_digest_and_chat_has_none():
    a = shape("RuntimeError: worker 3 on node-a.acme.io:8080 lost shard '/data/a.bin'")
    b = shape("2026-01-02 10:00:00 RuntimeError: worker 17 on node-b.acme.io:9090 lost shard '/data/b/c.bin'")
    assert a is not None and b is not None and a.digest == b.digest and len(a.digest) == 32
    assert shape("does anyone know why RuntimeError happens here?") is None
    assert shape("") is None


def test_a_huge_line_is_cut_and_binary_junk_does_not_crash():
    found = shape("ValueError: " + "x" * 400)
    assert found is not None and len(found.line) <= 300
    assert shape("\x00\xff\ufffd" * 1000) is None
