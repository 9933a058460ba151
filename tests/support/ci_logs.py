"""Real-shaped CI logs for the tests and the benchmark of ``errkb ci``: a GitHub Actions job log (timestamps,
``##[group]`` steps, the runner's wrapper lines, post-job cleanup) and a GitLab job trace (ANSI, section
markers), written line by line so a log of any size costs no memory."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path

CUDA_OOM = [
    "Traceback (most recent call last):",
    '  File "/home/runner/work/model/model/train.py", line 212, in <module>',
    "    main()",
    '  File "/home/runner/work/model/model/train.py", line 198, in main',
    "    loss = model(batch).loss",
    '  File "/opt/venv/lib/python3.11/site-packages/torch/nn/modules/module.py", line 1511, in _call_impl',
    "    return forward_call(*args, **kwargs)",
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of "
    "23.65 GiB of which 1.12 GiB is free. Of the allocated memory 20.10 GiB is allocated by PyTorch, and "
    "1.31 GiB is reserved by PyTorch but unallocated.",
]
NO_MODULE = [
    "Traceback (most recent call last):",
    '  File "/home/runner/work/model/model/tests/test_data.py", line 3, in <module>',
    "    import pandas as pd",
    "ModuleNotFoundError: No module named 'pandas'",
]
WRAPPER = "##[error]Process completed with exit code 1."


def _stamp(n: int) -> str:
    seconds = n // 1000
    return f"2026-05-01T{10 + seconds // 3600 % 10:02d}:{seconds // 60 % 60:02d}:{seconds % 60:02d}.{n % 10_000_000:07d}Z "


def info(n: int) -> str:
    return (f"INFO epoch {n // 5000} step {n}/200000 loss={(n * 7919) % 10_000 / 10_000:.4f} lr=3.0e-04 "
            f"tokens/s={40_000 + n % 9000} gpu_mem=31.{n % 10}GiB")


def github_lines(info_lines: int, errors: Sequence[tuple[float, str, Sequence[str]]] = (),
                 wrapper: bool = True) -> Iterator[str]:
    """A GitHub Actions job log: set-up, one ``Run`` step per error (``(where 0..1 in the info lines, step
    command, error lines)``) amid ``info_lines`` INFO lines, the runner's exit code, post-job cleanup."""
    head = ["##[group]Runner Image", "Image: ubuntu-22.04", "Version: 20260428.1.0", "##[endgroup]",
            "##[group]Run actions/checkout@v4", "with:", "  repository: acme/model", "##[endgroup]",
            "Syncing repository: acme/model", "##[group]Run python train.py --epochs 40", "python train.py --epochs 40",
            "shell: /usr/bin/bash -e {0}", "##[endgroup]"]
    n = 0
    for line in head:
        yield _stamp(n) + line
        n += 1
    at = sorted((int(where * info_lines), step, lines) for where, step, lines in errors)
    for i in range(info_lines):
        while at and at[0][0] == i:
            _, step, lines = at.pop(0)
            if step:
                for line in (f"##[group]Run {step}", step, "##[endgroup]"):
                    yield _stamp(n) + line
                    n += 1
            for line in lines:
                yield _stamp(n) + line
                n += 1
        yield _stamp(n) + info(i)
        n += 1
    tail = [WRAPPER] if wrapper else []
    tail += ["Post job cleanup.", "[command]/usr/bin/git version", "git version 2.45.1",
             "Temporarily overriding HOME='/home/runner/work/_temp/b2c1' before making global git config changes",
             "[command]/usr/bin/git config --local --name-only --get-regexp core\\.sshCommand",
             "Cleaning up orphan processes"]
    for line in tail:
        yield _stamp(n) + line
        n += 1


def gitlab_lines(errors: Sequence[str], info_lines: int = 300) -> Iterator[str]:
    """A GitLab job trace: ANSI colours, collapsible sections, the error in ``step_script``, then the failure."""
    esc = "\x1b"
    yield f"{esc}[0KRunning with gitlab-runner 17.0.0 (44feccdf){esc}[0;m"
    yield f"{esc}[0Ksection_start:1714557600:prepare_executor\r{esc}[0K{esc}[0K{esc}[36;1mPreparing the \"docker\" executor{esc}[0;m"
    yield f"Using Docker executor with image python:3.11 ...{esc}[0;m"
    yield f"{esc}[0Ksection_end:1714557602:prepare_executor\r{esc}[0K"
    yield f"{esc}[0Ksection_start:1714557602:step_script\r{esc}[0K{esc}[0K{esc}[36;1mExecuting \"step_script\" stage of the job script{esc}[0;m"
    yield f"{esc}[32;1m$ python -m pytest -q{esc}[0;m"
    for i in range(info_lines):
        yield f"{esc}[32m{info(i)}{esc}[0m"
    for line in errors:
        yield f"{esc}[31m{line}{esc}[0m"
    yield f"{esc}[0Ksection_end:1714557700:step_script\r{esc}[0K"
    yield f"{esc}[0Ksection_start:1714557700:cleanup_file_variables\r{esc}[0K{esc}[0K{esc}[36;1mCleaning up project directory and file based variables{esc}[0;m"
    yield f"{esc}[0Ksection_end:1714557701:cleanup_file_variables\r{esc}[0K"
    yield f"{esc}[31;1mERROR: Job failed: exit code 1{esc}[0;m"


def write(path: Path, lines: Iterator[str]) -> Path:
    with path.open("w", encoding="utf-8", newline="\n") as out:
        batch: list[str] = []
        for line in lines:
            batch.append(line)
            if len(batch) >= 10_000:
                out.write("\n".join(batch) + "\n")
                batch.clear()
        if batch:
            out.write("\n".join(batch) + "\n")
    return path
