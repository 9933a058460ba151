"""The Helm chart in deploy/helm/errkb.

``helm lint`` and ``helm template`` run where ``helm`` is on PATH (it is never downloaded here); elsewhere they skip
and say so. The checks below them need only PyYAML: the values every template uses exist, the probes, the port, the
user and the stop timeouts agree with the image and with errkb.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

yaml = pytest.importorskip("yaml", reason="PyYAML is not installed (pip install -e '.[dev]')")

REPO = Path(__file__).resolve().parents[2]
CHART = REPO / "deploy" / "helm" / "errkb"
TEST_VALUES = CHART / "ci" / "test-values.yaml"
HELM = shutil.which("helm")
needs_helm = pytest.mark.skipif(HELM is None, reason="helm is not installed on this machine (it is not downloaded "
                                                     "by the tests); the chart's static checks still run")


def _values() -> dict:
    return yaml.safe_load((CHART / "values.yaml").read_text(encoding="utf-8"))


def _templates() -> dict[str, str]:
    return {p.name: p.read_text(encoding="utf-8") for p in sorted((CHART / "templates").iterdir())
            if p.suffix in (".yaml", ".tpl", ".txt")}


def _helm(*args: str) -> subprocess.CompletedProcess[str]:
    assert HELM is not None
    return subprocess.run([HELM, *args], capture_output=True, text=True, timeout=120)


def _render(*args: str) -> list[dict]:
    done = _helm("template", "errkb", str(CHART), "-f", str(TEST_VALUES), *args)
    assert done.returncode == 0, done.stderr
    return [d for d in yaml.safe_load_all(done.stdout) if d]


@needs_helm
def test_helm_lint():
    done = _helm("lint", str(CHART), "-f", str(TEST_VALUES))
    assert done.returncode == 0, done.stdout + done.stderr


@needs_helm
def test_helm_template_renders_a_deployment_with_probes_a_service_a_secret_and_a_servicemonitor():
    kinds = {d["kind"]: d for d in _render()}
    assert {"Deployment", "Service", "Secret", "ServiceMonitor", "PodDisruptionBudget"} <= set(kinds)
    deployment = kinds["Deployment"]
    assert deployment["spec"]["replicas"] >= 2
    pod = deployment["spec"]["template"]["spec"]
    container = pod["containers"][0]
    assert container["livenessProbe"]["httpGet"]["path"] == "/livez"
    assert container["readinessProbe"]["httpGet"]["path"] == "/readyz"
    assert container["resources"]["requests"]
    assert pod["securityContext"]["runAsNonRoot"] is True
    env = {e["name"]: e for e in container["env"]}
    assert env["DATABASE_URL"]["valueFrom"]["secretKeyRef"]["key"] == "DATABASE_URL"
    assert float(env["ERRKB_SHUTDOWN_GRACE"]["value"]) < pod["terminationGracePeriodSeconds"]
    assert kinds["Secret"]["stringData"]["DATABASE_URL"].startswith("postgresql")
    assert kinds["ServiceMonitor"]["spec"]["endpoints"][0]["path"] == "/metrics"


@needs_helm
def test_helm_template_with_an_existing_secret_creates_none():
    kinds = {d["kind"] for d in _render("--set", "existingSecret=errkb", "--set", "database.url=",
                                        "--set", "secrets.SLACK_BOT_TOKEN=")}
    assert "Secret" not in kinds and "Deployment" in kinds


@needs_helm
@pytest.mark.parametrize(("values", "message"), [
    (["--set", "database.url="], "PostgreSQL"),
    (["--set", "shutdownGraceSeconds=30"], "terminationGracePeriodSeconds"),
])
def test_helm_template_refuses_settings_that_cannot_work(values, message):
    done = _helm("template", "errkb", str(CHART), "-f", str(TEST_VALUES), *values)
    assert done.returncode != 0 and message in done.stderr


def test_the_chart_is_helm_v2_and_its_values_parse():
    chart = yaml.safe_load((CHART / "Chart.yaml").read_text(encoding="utf-8"))
    assert chart["apiVersion"] == "v2" and chart["name"] == "errkb"
    assert yaml.safe_load(TEST_VALUES.read_text(encoding="utf-8"))
    values = _values()
    assert values["replicaCount"] >= 2, "errkb is safe with replicas on one PostgreSQL (docs/slack.md)"
    assert values["resources"]["requests"] and values["resources"]["limits"]


def test_every_value_a_template_uses_exists_in_values_yaml():
    values = _values()
    for name, text in _templates().items():
        for path in re.findall(r"\$?\.Values((?:\.[A-Za-z_][A-Za-z0-9_]*)+)", text):
            node = values
            for key in path.strip(".").split("."):
                assert isinstance(node, dict) and key in node, f"{name}: .Values{path} is not in values.yaml"
                node = node[key]


def test_probes_port_and_servicemonitor_are_where_errkb_serves_them():
    templates = _templates()
    deployment = templates["deployment.yaml"]
    assert re.search(r"livenessProbe:\s+httpGet:\s+path: /livez", deployment)
    assert re.search(r"readinessProbe:\s+httpGet:\s+path: /readyz", deployment)
    assert "containerPort: {{ .Values.containerPort }}" in deployment
    assert _values()["containerPort"] == 3000  # errkb's default PORT, also set by the chart
    monitor = templates["servicemonitor.yaml"]
    assert monitor.startswith("{{- if .Values.metrics.serviceMonitor.enabled }}")
    assert "path: /metrics" in monitor and "kind: ServiceMonitor" in monitor
    assert "secretKeyRef" in deployment and "DATABASE_URL" in deployment


def test_the_pod_runs_as_the_images_user_and_stops_within_its_grace():
    values = _values()
    dockerfile = (REPO / "Dockerfile").read_text(encoding="utf-8")
    image_user = re.findall(r"^USER (\d+)", dockerfile, re.M)[-1]
    assert values["podSecurityContext"]["runAsNonRoot"] is True
    assert str(values["podSecurityContext"]["runAsUser"]) == image_user
    assert values["securityContext"]["allowPrivilegeEscalation"] is False
    # errkb finishes answers in flight within ERRKB_SHUTDOWN_GRACE, then hands the rest over: before the kill.
    assert 0 < values["shutdownGraceSeconds"] <= values["terminationGracePeriodSeconds"] - 2
