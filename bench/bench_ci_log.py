"""``errkb ci`` on whole CI logs, as a process, beside grep and an RE2 scan of the same file.

It writes two GitHub-Actions-shaped logs (timestamps, ``##[group]Run`` steps, the runner's exit code and
post-job cleanup): 20 MB (200,000 INFO lines, a CUDA OOM traceback half-way) and 100 MB (1,000,000 lines,
the error at 60%). On each it runs, as fresh processes, ``errkb ci FILE --format json`` (seconds, MB/s, peak
RSS, and whether it found the OOM) and ``grep -E 'Error|error' FILE``, and scans the file from this process
in 4 MiB chunks with RE2 for the same pattern (the baseline ratio: what reading every byte costs here).
"""

from __future__ import annotations

import os
import subprocess
import tempfile
import time
from pathlib import Path

import re2

from bench.harness import ERRKB, SEEDS, make_parser
from tests.support import ci_logs

LOGS = ((200_000, 0.5), (1_000_000, 0.6))  # INFO lines, where the error sits


def run(command: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, float, int, bytes]:
    """Seconds, peak RSS (MiB) and exit code of ``command`` as a child, and its output."""
    start = time.perf_counter()
    proc = subprocess.Popen(command, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    assert proc.stdout is not None
    out = proc.stdout.read()
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    return time.perf_counter() - start, usage.ru_maxrss / 1024, proc.returncode, out


def re2_scan(path: Path) -> tuple[float, int]:
    pattern = re2.compile(rb"Error|error")
    start, hits = time.perf_counter(), 0
    with path.open("rb") as f:
        carry = b""
        while chunk := f.read(4 << 20):
            block = carry + chunk
            cut = block.rfind(b"\n") + 1
            hits += sum(1 for _ in pattern.finditer(block[:cut]))
            carry = block[cut:]
        hits += sum(1 for _ in pattern.finditer(carry))
    return time.perf_counter() - start, hits


def main() -> None:
    parser = make_parser(__doc__ or "")
    parser.add_argument("--runs", type=int, default=3, help="runs of each command; the median is printed")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        env = {**os.environ, "ERRKB_SEEDS": str(SEEDS), "DATABASE_URL": f"sqlite+aiosqlite:///{work}/none.db"}
        for name in ("GITHUB_ACTIONS", "GITLAB_CI", "GITHUB_STEP_SUMMARY"):
            env.pop(name, None)
        subprocess.run([str(ERRKB), "ci", "-", "--format", "json"], input=b"", cwd=work, env=env,
                       capture_output=True, check=False)  # builds the KB snapshot cache once, off the clock
        print(f"bench_ci_log: {args.runs} run(s) each, median; errkb ci as a whole process (no store)")
        for lines, where in LOGS:
            log = ci_logs.write(work / f"job-{lines}.log",
                                ci_logs.github_lines(lines, [(where, "", ci_logs.CUDA_OOM)]))
            size = log.stat().st_size / 1e6
            errkb_runs = [run([str(ERRKB), "ci", str(log), "--format", "json"], work, env) for _ in range(args.runs)]
            grep_runs = [run(["grep", "-E", "Error|error", str(log)], work, env) for _ in range(args.runs)]
            scans = [re2_scan(log) for _ in range(args.runs)]
            seconds = sorted(r[0] for r in errkb_runs)[len(errkb_runs) // 2]
            rss = max(r[1] for r in errkb_runs)
            found = all(r[2] == 0 and b"pytorch/cuda-out-of-memory" in r[3] for r in errkb_runs)
            grep_s = sorted(r[0] for r in grep_runs)[len(grep_runs) // 2]
            scan_s = sorted(s[0] for s in scans)[len(scans) // 2]
            print(f"\n{size:.1f} MB log, {lines:,} INFO lines, CUDA OOM at {where:.0%}:")
            print(f"  errkb ci   {seconds:6.3f} s  {size / seconds:7.1f} MB/s  peak RSS {rss:6.1f} MiB  "
                  f"found the OOM with its step: {'yes' if found else 'NO'}")
            print(f"  grep -E    {grep_s:6.3f} s  {size / grep_s:7.1f} MB/s  peak RSS "
                  f"{max(r[1] for r in grep_runs):6.1f} MiB")
            print(f"  RE2 scan   {scan_s:6.3f} s  {size / scan_s:7.1f} MB/s  (Python, 4 MiB chunks)")
            print(f"  ratio      errkb ci / grep {seconds / grep_s:.1f}×, errkb ci / RE2 scan {seconds / scan_s:.1f}×")
            log.unlink()


if __name__ == "__main__":
    main()
