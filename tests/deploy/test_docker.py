"""``docker compose up`` brings errkb and PostgreSQL up and ``/readyz`` answers 200; the image runs as a non-root
user, turns healthy through its HEALTHCHECK on ``/livez`` and holds no tests, pip or compiler.

Runs where Docker is usable: a daemon answers and the base images are present or can be pulled.
Elsewhere it skips and says which of those is missing.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import time
import urllib.error
import urllib.request
import uuid
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
BASE_IMAGES = ("python:3.11-slim", "postgres:16-alpine")


def _docker(*args: str, timeout: float = 60, **kwargs) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["docker", *args], capture_output=True, text=True, timeout=timeout, **kwargs)


def _usable_docker() -> str | None:
    """None when Docker can build and run here; otherwise why not."""
    if shutil.which("docker") is None:
        return "no docker command on this machine"
    try:
        if _docker("info", timeout=15).returncode != 0:
            return "no Docker daemon answers (docker info failed)"
        if _docker("compose", "version", timeout=15).returncode != 0:
            return "docker compose is not installed"
        for image in BASE_IMAGES:
            if _docker("image", "inspect", image, timeout=15).returncode != 0 and \
                    _docker("pull", image, timeout=300).returncode != 0:
                return f"base image {image} is neither present nor pullable"
    except subprocess.TimeoutExpired as exc:
        return f"docker did not answer in time ({' '.join(exc.cmd)})"
    return None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _status(url: str) -> int | None:
    try:
        with urllib.request.urlopen(url, timeout=2) as response:
            return response.status
    except urllib.error.HTTPError as exc:
        return exc.code
    except OSError:
        return None


@pytest.mark.skipif(os.environ.get("ERRKB_SKIP_DOCKER") == "1", reason="ERRKB_SKIP_DOCKER=1")
def test_compose_up_brings_errkb_and_postgres_up_and_readyz_answers():
    why_not = _usable_docker()
    if why_not:
        pytest.skip(why_not)
    project, port = f"errkb-test-{uuid.uuid4().hex[:8]}", _free_port()
    env = os.environ | {"PORT": str(port), "SLACK_BOT_TOKEN": "xoxb-docker-test", "SLACK_SIGNING_SECRET": "docker-test",
                        "SLACK_API_URL": "http://127.0.0.1:9/api/"}  # never slack.com
    compose = ("compose", "-p", project, "-f", str(REPO / "compose.yaml"))
    try:
        up = _docker(*compose, "up", "-d", "--build", cwd=REPO, env=env, timeout=900)
        assert up.returncode == 0, up.stderr[-2000:]
        deadline, status = time.monotonic() + 180, None
        while time.monotonic() < deadline and status != 200:
            status = _status(f"http://127.0.0.1:{port}/readyz")
            time.sleep(1)
        logs = _docker(*compose, "logs", "errkb", cwd=REPO, env=env).stdout[-3000:]
        assert status == 200, f"/readyz answered {status}; logs:\n{logs}"
        user = _docker(*compose, "exec", "-T", "errkb", "id", "-u", cwd=REPO, env=env).stdout.strip()
        assert user not in ("", "0"), "the image runs as root"
        container = _docker(*compose, "ps", "-q", "errkb", cwd=REPO, env=env).stdout.strip()
        config = json.loads(_docker("inspect", "--format", "{{json .Config}}", container).stdout)
        assert config["User"].split(":")[0] not in ("", "0", "root"), config["User"]
        assert "/livez" in " ".join((config.get("Healthcheck") or {}).get("Test") or []), "no HEALTHCHECK on /livez"
        deadline, health = time.monotonic() + 120, None
        while time.monotonic() < deadline and health != "healthy":
            health = _docker("inspect", "--format", "{{.State.Health.Status}}", container).stdout.strip()
            time.sleep(2)
        assert health == "healthy", f"the container's health is {health!r}"
        absent = _docker(*compose, "exec", "-T", "errkb", "python", "-c",
                         "import os, shutil, sys; sys.exit(any(os.path.exists(p) for p in ('/app/tests', '/app/bench'))"
                         " or bool(shutil.which('pip')) or bool(shutil.which('gcc')))", cwd=REPO, env=env)
        assert absent.returncode == 0, "the image holds tests/, bench/, pip or gcc"
    finally:
        _docker(*compose, "down", "-v", "--remove-orphans", cwd=REPO, env=env, timeout=300)
