"""``errkb ci`` on whole CI logs, as a process, beside grep and an RE2 scan of the same file, in the same run.

It writes GitHub-Actions-shaped logs (timestamps, ``##[group]Run`` steps, the runner's exit code and
post-job cleanup): 20 MB (200,000 INFO lines) with a CUDA OOM traceback half-way, the same near its start,
and 100 MB (1,000,000 lines, the error at 60%). On each it runs, round after round so that the machine's
load weighs on all alike: ``errkb ci FILE --format json`` as a fresh process (wall seconds, MB/s, CPU
seconds user+sys, peak RSS, and whether it found the OOM with its step), ``grep -E 'Error|error' FILE``, and
a scan of the file from this process in 4 MiB chunks with RE2 for the same pattern (what reading every byte
costs from Python here). Each round also times ``errkb ci`` on an empty log: start-up, imports and the KB
snapshot, the fixed cost every log pays; what a log costs beyond it is the cost of its bytes (MB/s too).

The children run as an installed errkb does: with its modules' bytecode compiled (into a cache in the
run's temporary folder, filled by a first run off the clock), whatever ``PYTHONDONTWRITEBYTECODE`` says
here, on a copy of the seeds with a KB snapshot cache of their own. Peak RSS is read by ``/usr/bin/time``
(``wait4``'s figure would count this process's own memory, which a child holds until it execs).
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import re2

from bench.harness import ERRKB, SEEDS, make_parser
from tests.support import ci_logs

LOGS = ((200_000, 0.5), (200_000, 0.02), (1_000_000, 0.6))  # INFO lines, where the error sits
TIME = Path("/usr/bin/time")  # GNU time: the child's own peak RSS


@dataclass(frozen=True)
class Run:
    seconds: float
    cpu: float  # user + sys
    rss_mib: float
    code: int
    out: bytes
    said: str  # the last line it wrote to stderr, if any


def run(command: list[str], cwd: Path, env: dict[str, str]) -> Run:
    """``command`` as a child: wall seconds, CPU seconds, peak RSS (when GNU time is there), exit code, output."""
    timed = TIME is not None and TIME.exists()
    start = time.perf_counter()
    proc = subprocess.Popen([str(TIME), "-f", "%M", *command] if timed else command, cwd=cwd, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout is not None and proc.stderr is not None
    out, err = proc.stdout.read(), proc.stderr.read()  # the output is small: no pipe fills while the other waits
    _, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    lines = err.decode(errors="replace").strip().splitlines() or [""]
    rss = int(lines[-1]) / 1024 if timed and lines[-1].isdigit() else float("nan")
    said = (lines[:-1] if timed else lines) or [""]
    return Run(seconds, usage.ru_utime + usage.ru_stime, rss, proc.returncode, out, said[-1])


def re2_scan(path: Path) -> tuple[float, float, int]:
    """Wall and CPU seconds of one RE2 scan of ``path`` for ``Error|error`` in 4 MiB chunks, and its hits."""
    pattern = re2.compile(rb"Error|error")
    start, cpu, hits = time.perf_counter(), time.process_time(), 0
    with path.open("rb") as f:
        carry = b""
        while chunk := f.read(4 << 20):
            block = carry + chunk
            cut = block.rfind(b"\n") + 1
            hits += sum(1 for _ in pattern.finditer(block[:cut]))
            carry = block[cut:]
        hits += sum(1 for _ in pattern.finditer(carry))
    return time.perf_counter() - start, time.process_time() - cpu, hits


def median(values: list[float]) -> float:
    return statistics.median(values)


def main() -> None:
    parser = make_parser(__doc__ or "")
    parser.add_argument("--runs", type=int, default=5, help="rounds; the median of each figure is printed")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        seeds = shutil.copytree(SEEDS, work / "seeds")  # the seeds as they are now, whatever is edited meanwhile
        env = {**os.environ, "ERRKB_SEEDS": str(seeds), "DATABASE_URL": f"sqlite+aiosqlite:///{work}/none.db",
               "ERRKB_CACHE": str(work / "cache"), "PYTHONPYCACHEPREFIX": str(work / "pycache")}
        for name in ("GITHUB_ACTIONS", "GITLAB_CI", "GITHUB_STEP_SUMMARY", "PYTHONDONTWRITEBYTECODE"):
            env.pop(name, None)
        empty = work / "empty.log"
        empty.write_bytes(b"")
        errkb = [str(ERRKB), "ci", "--format", "json"]
        warm = ci_logs.write(work / "warm.log", ci_logs.github_lines(10, [(0.5, "", ci_logs.CUDA_OOM)]))
        run([*errkb, str(warm)], work, env)  # compiles the bytecode and the KB snapshot cache, off the clock
        print(f"bench_ci_log: {args.runs} round(s), median; errkb ci as a whole process (no store)")
        for lines, where in LOGS:
            log = ci_logs.write(work / f"job-{lines}.log",
                                ci_logs.github_lines(lines, [(where, "", ci_logs.CUDA_OOM)]))
            size = log.stat().st_size / 1e6
            ours, fixed, greps, scans = [], [], [], []
            for _ in range(args.runs):  # interleaved: a burst of load falls on all of them
                ours.append(run([*errkb, str(log)], work, env))
                fixed.append(run([*errkb, str(empty)], work, env))
                greps.append(run(["grep", "-E", "Error|error", str(log)], work, env))
                scans.append(re2_scan(log))
            seconds, grep_s = median([r.seconds for r in ours]), median([r.seconds for r in greps])
            cpu = median([r.cpu for r in ours])
            fixed_s, fixed_cpu = median([r.seconds for r in fixed]), median([r.cpu for r in fixed])
            scan_s, scan_cpu = median([s[0] for s in scans]), median([s[1] for s in scans])
            right = [r.code == 0 and b"pytorch/cuda-out-of-memory" in r.out and b"Run python train.py" in r.out
                     for r in ours]
            found = sum(right)
            per_byte = seconds - fixed_s
            print(f"\n{size:.1f} MB log, {lines:,} INFO lines, CUDA OOM at {where:.0%}:")
            print(f"  errkb ci   {seconds:6.3f} s  {size / seconds:7.1f} MB/s  CPU {cpu:.3f} s  peak RSS "
                  f"{max(r.rss_mib for r in ours):6.1f} MiB  found the OOM with its step: {found}/{len(ours)}")
            for r, ok in zip(ours, right, strict=True):
                if not ok:
                    print(f"             a run that did not: exit {r.code}, {r.said[:200]!r}")
                    break
            print(f"  empty log  {fixed_s:6.3f} s  {'':12}CPU {fixed_cpu:.3f} s  (start-up, imports, KB snapshot)")
            print(f"  the bytes  {per_byte:6.3f} s  {size / per_byte if per_byte > 0 else float('nan'):7.1f} MB/s  "
                  f"CPU {cpu - fixed_cpu:.3f} s  (errkb ci beyond the empty log)")
            print(f"  grep -E    {grep_s:6.3f} s  {size / grep_s:7.1f} MB/s  peak RSS "
                  f"{max(r.rss_mib for r in greps):6.1f} MiB")
            print(f"  RE2 scan   {scan_s:6.3f} s  {size / scan_s:7.1f} MB/s  CPU {scan_cpu:.3f} s  "
                  "(Python, 4 MiB chunks)")
            print(f"  ratio      errkb ci / grep {seconds / grep_s:.1f}×, errkb ci / RE2 scan {seconds / scan_s:.1f}× "
                  f"(CPU {cpu / scan_cpu:.1f}×), the bytes / RE2 scan {per_byte / scan_s:.1f}× "
                  f"(CPU {(cpu - fixed_cpu) / scan_cpu:.1f}×)")
            log.unlink()


if __name__ == "__main__":
    main()
