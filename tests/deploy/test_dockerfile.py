"""The Dockerfile, read as text (no Docker daemon needed): two stages, a runtime stage that runs as a non-root user,
has a HEALTHCHECK on /livez, and gets only the builder's virtualenv and the KB data, never tests/ or bench/."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def _instructions(text: str) -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) for each line of the Dockerfile, continuations joined and comments dropped."""
    joined = re.sub(r"\\\n", " ", "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("#")))
    out = []
    for line in joined.splitlines():
        if line.strip():
            keyword, _, rest = line.strip().partition(" ")
            out.append((keyword.upper(), rest.strip()))
    return out


def _stages() -> list[list[tuple[str, str]]]:
    stages: list[list[tuple[str, str]]] = []
    for instruction in _instructions((REPO / "Dockerfile").read_text(encoding="utf-8")):
        if instruction[0] == "FROM":
            stages.append([])
        if stages:
            stages[-1].append(instruction)
    return stages


def _runtime() -> list[tuple[str, str]]:
    return _stages()[-1]


def test_the_image_is_built_in_stages_and_the_runtime_stage_is_slim():
    stages = _stages()
    assert len(stages) >= 2, "a builder stage and a runtime stage"
    assert "slim" in _runtime()[0][1]
    runs = " ".join(args for keyword, args in _runtime() if keyword == "RUN")
    for tool in ("apt-get install", "gcc", "build-essential", "pip install"):
        assert tool not in runs, f"the runtime stage installs with {tool!r}"


def test_the_runtime_stage_runs_as_a_numeric_non_root_user():
    users = [args for keyword, args in _runtime() if keyword == "USER"]
    assert users, "no USER in the runtime stage: it would run as root"
    user = users[-1].split(":")[0]
    assert user.isdigit(), f"USER {user}: numeric, so Kubernetes' runAsNonRoot can check it"
    assert int(user) != 0


def test_the_healthcheck_asks_livez_with_python():
    checks = [args for keyword, args in _runtime() if keyword == "HEALTHCHECK"]
    assert checks, "no HEALTHCHECK"
    assert "/livez" in checks[-1]
    assert "curl" not in checks[-1] and "wget" not in checks[-1], "slim images have neither"
    assert "python" in checks[-1]


def test_the_runtime_stage_copies_only_from_the_builder_and_never_tests():
    copies = [args for keyword, args in _runtime() if keyword in ("COPY", "ADD")]
    assert copies
    for args in copies:
        words = shlex.split(args)
        assert any(w.startswith("--from=") for w in words), f"COPY {args}: the runtime stage takes the builder's files"
        assert not any(re.match(r"(\./)?(tests|bench)(/|$)", w) for w in words), f"COPY {args}"
    everywhere = [args for stage in _stages() for keyword, args in stage if keyword in ("COPY", "ADD")]
    assert not any(re.search(r"(^|\s)(\./)?(tests|bench)(/|\s|$)", args) for args in everywhere)
    assert not any(re.match(r"\.\s", args) or args.startswith(". ") for args in everywhere), "COPY . copies tests/"


def test_dockerignore_keeps_tests_and_bench_out_of_the_context():
    ignored = {line.strip().rstrip("/") for line in (REPO / ".dockerignore").read_text(encoding="utf-8").splitlines()}
    assert {"tests", "bench", ".git", ".venv"} <= ignored


def test_the_runtime_stage_keeps_what_errkb_serve_needs():
    env = " ".join(args for keyword, args in _runtime() if keyword == "ENV")
    for setting in ("ERRKB_SEEDS=", "ERRKB_PASTES=", "PORT="):
        assert setting in env
    builder_copies = " ".join(args for stage in _stages()[:-1] for keyword, args in stage if keyword == "COPY")
    for folder in ("bot", "seeds", "pastes", "locales"):
        assert re.search(rf"(^|\s){folder}(\s|$)", builder_copies), f"the builder does not copy {folder}/"
    assert any(keyword == "CMD" and "serve" in args for keyword, args in _runtime())
    assert any(keyword == "EXPOSE" for keyword, _ in _runtime())
