"""``errkb serve`` under tracemalloc, for ``bench.soak_long --trace`` (bench only, never in production).

At each SIGUSR1 (the soak sends one with every sample) a thread writes ``N.snap`` (a tracemalloc
snapshot; none with ``ERRKB_TRACE_FRAMES=0``, which costs the bot nothing but the ``gc`` count) and
``N.json`` (RSS, the Python heap tracemalloc sees, glibc's mallinfo2 arena figures, the number of live
objects by type from ``gc``, and asyncio's live tasks) into ``ERRKB_TRACE_DIR``. RSS minus the traced heap is
native memory (RE2's compiled programs, SQLite, OpenSSL) plus what glibc holds but does not return;
with ``ERRKB_TRACE_TRIM=1`` each snapshot then calls ``malloc_trim(0)`` and notes the RSS after it.

    .venv/bin/python -m bench.traced_serve serve     # same arguments and environment as ``errkb serve``
"""

from __future__ import annotations

import asyncio
import ctypes
import gc
import json
import os
import signal
import sys
import threading
import time
import tracemalloc
from collections import Counter
from pathlib import Path


class _MallInfo2(ctypes.Structure):
    _fields_ = [(name, ctypes.c_size_t) for name in
                ("arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks", "uordblks", "fordblks",
                 "keepcost")]


def mallinfo() -> dict[str, int]:
    """glibc's heap: ``arena`` bytes from sbrk/arenas, ``uordblks`` in use, ``fordblks`` free but kept,
    ``hblkhd`` in mmap'd blocks."""
    try:
        libc = ctypes.CDLL("libc.so.6")
        libc.mallinfo2.restype = _MallInfo2
        info = libc.mallinfo2()
    except (OSError, AttributeError):
        return {}
    return {name: getattr(info, name) for name, _ in _MallInfo2._fields_}


def rss_bytes() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    return 0


def live_tasks(loop: asyncio.AbstractEventLoop | None) -> int:
    if loop is None:
        return -1
    try:
        return len(asyncio.all_tasks(loop))
    except RuntimeError:
        return -1


def dump_forever(folder: Path, asked: threading.Event) -> None:
    n = 0
    while True:
        asked.wait()
        asked.clear()
        n += 1
        started = time.monotonic()
        if tracemalloc.is_tracing():
            tracemalloc.take_snapshot().dump(str(folder / f"{n}.snap"))
        counts = Counter(type(o).__qualname__ for o in gc.get_objects())
        figures = {"n": n, "rss": rss_bytes(), "traced": tracemalloc.get_traced_memory()[0], "malloc": mallinfo(),
                   "tasks": live_tasks(_LOOP[0]), "threads": threading.active_count(),
                   "objects": dict(counts.most_common(60)),
                   "took": time.monotonic() - started}
        if os.environ.get("ERRKB_TRACE_TRIM"):  # how much of glibc's free-but-kept memory goes back to the OS
            ctypes.CDLL("libc.so.6").malloc_trim(0)
            figures["rss_trimmed"] = rss_bytes()
        (folder / f"{n}.json").write_text(json.dumps(figures))


_LOOP: list[asyncio.AbstractEventLoop | None] = [None]


def main() -> None:
    folder = Path(os.environ["ERRKB_TRACE_DIR"])
    folder.mkdir(parents=True, exist_ok=True)
    if frames := int(os.environ.get("ERRKB_TRACE_FRAMES", "8")):
        tracemalloc.start(frames)
    original = asyncio.BaseEventLoop.run_forever

    def run_forever(self: asyncio.BaseEventLoop) -> None:  # note the serving loop for the task count
        _LOOP[0] = self
        original(self)

    asyncio.BaseEventLoop.run_forever = run_forever  # type: ignore[method-assign]
    asked = threading.Event()
    signal.signal(signal.SIGUSR1, lambda *_: asked.set())
    threading.Thread(target=dump_forever, args=(folder, asked), daemon=True).start()
    from bot.cli import main as errkb

    sys.exit(errkb(sys.argv[1:]))


def report(folder: Path, first: int, last: int, top: int = 15) -> str:
    """What grew between snapshot ``first`` and ``last``: RSS against the traced heap and glibc's
    free-but-kept bytes, the allocation sites that grew most, the object types whose count grew most."""
    a, b = (json.loads((folder / f"{n}.json").read_text()) for n in (first, last))
    mib = 2**20
    lines = [f"trace {first} → {last}: RSS {a['rss'] / mib:.0f} → {b['rss'] / mib:.0f} MiB; Python heap (traced) "
             f"{a['traced'] / mib:.0f} → {b['traced'] / mib:.0f} MiB; glibc free-but-kept "
             f"{a['malloc'].get('fordblks', 0) / mib:.0f} → {b['malloc'].get('fordblks', 0) / mib:.0f} MiB, in use "
             f"{a['malloc'].get('uordblks', 0) / mib:.0f} → {b['malloc'].get('uordblks', 0) / mib:.0f} MiB, mmap "
             f"{a['malloc'].get('hblkhd', 0) / mib:.0f} → {b['malloc'].get('hblkhd', 0) / mib:.0f} MiB; "
             f"asyncio tasks {a['tasks']} → {b['tasks']}"]
    if (folder / f"{last}.snap").exists():
        old, new = (tracemalloc.Snapshot.load(str(folder / f"{n}.snap")) for n in (first, last))
        lines.append("allocation sites that grew most (KiB, blocks):")
        for stat in new.compare_to(old, "traceback")[:top]:
            frames = " < ".join(f"{Path(f.filename).name}:{f.lineno}" for f in reversed(stat.traceback[-5:]))
            lines.append(f"  {stat.size_diff / 1024:+9.0f} KiB {stat.count_diff:+8d}  {frames}")
    grown = Counter(b["objects"]) - Counter(a["objects"])
    lines.append("object types whose count grew most: " +
                 ", ".join(f"{name} +{count}" for name, count in grown.most_common(top)))
    return "\n".join(lines)


if __name__ == "__main__":
    main()
