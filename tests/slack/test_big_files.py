"""A file or snippet of any size pasted in Slack is read as ``errkb ci`` reads a log: streamed as it downloads,
the windows around its error lines matched, wherever the error sits."""

from __future__ import annotations

from collections.abc import AsyncIterator

from bot.service.knowledge import MAX_PASTE_CHARS
from bot.slack.files import WHOLE_BYTES, read_text
from tests.support import ci_logs
from tests.support import payloads as p


def job_log(info_lines: int, where: float = 0.5) -> bytes:
    lines = ci_logs.github_lines(info_lines, [(where, "", ci_logs.CUDA_OOM)])
    return ("\n".join(lines) + "\n").encode()


async def pieces(data: bytes, size: int = 65_536, taken: list[int] | None = None) -> AsyncIterator[bytes]:
    for start in range(0, len(data), size):
        if taken is not None:
            taken.append(start)
        yield data[start : start + size]


async def test_a_5_mb_log_uploaded_as_a_file_is_answered_from_the_error_in_its_middle(harness):
    log = job_log(40_000)
    assert len(log) > 4_000_000
    file = harness.slack.add_file("F0BIGLOG", log, name="job.log", size=len(log), filetype="text")
    payload = p.file_share("the nightly training job died", [file])
    assert (await harness.send.event(payload)).status == 200
    posts = await harness.slack.wait_for("chat.postMessage", 1)
    assert "CUDA out of memory" in posts[0].text_of_blocks and posts[0]["thread_ts"] == payload["event"]["ts"]
    assert "Tried to allocate 2.00 GiB" in posts[0].text_of_blocks  # the reader's own line, quoted


async def test_a_file_as_long_as_a_paste_is_read_whole():
    text = "INFO starting\nRuntimeError: boom\n" * 100
    assert await read_text(pieces(text.encode(), 7)) == text


async def test_a_long_log_becomes_the_windows_around_its_errors():
    text = await read_text(pieces(job_log(40_000, where=0.3)))
    assert text is not None
    lines = text.split("\n")
    assert any(line.startswith("torch.OutOfMemoryError: CUDA out of memory") for line in lines)
    assert len(lines) < 100 and not any(line.startswith("2026-") for line in lines)  # timestamps stripped


async def test_a_long_binary_file_is_skipped():
    assert await read_text(pieces(b"\x7fELF\x00\x00" + b"RuntimeError: boom\n" * 20_000)) is None


async def test_the_download_stops_once_a_pastes_worth_of_windows_is_read():
    crowded = "".join(f"ValueError: bad value {n} in row {n * 7}\n" + "INFO ok\n" * 60 for n in range(40_000))
    data = crowded.encode()
    taken: list[int] = []
    text = await read_text(pieces(data, taken=taken))
    assert text is not None and len(text) <= MAX_PASTE_CHARS and len(data) > WHOLE_BYTES
    assert len(taken) * 65_536 < len(data) / 2
