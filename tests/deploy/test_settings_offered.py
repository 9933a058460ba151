"""Every setting that compose.yaml, the Helm chart and the docs name is one errkb reads, and every setting
``errkb serve`` reads is offered by compose and the chart and documented in docs/configuration.md.

What errkb reads is found in its code (``ast``): ``os.environ.get("X")``, ``os.environ["X"]``, ``os.getenv("X")``,
the same through a module constant (``os.environ.get(CACHE_ENV)``) or a parameter (``_days("X", …)`` whose body
reads ``os.environ.get(variable)``).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

yaml = pytest.importorskip("yaml", reason="PyYAML is not installed (pip install -e '.[dev]')")

REPO = Path(__file__).resolve().parents[2]
CHART = REPO / "deploy" / "helm" / "errkb"
# What looks like one of errkb's settings in prose, YAML or templates.
SETTING = re.compile(r"\b(SLACK_[A-Z0-9_]*[A-Z0-9]|ERRKB_[A-Z0-9_]*[A-Z0-9]|DATABASE_URL|PORT|LOG_[A-Z0-9_]*[A-Z0-9])\b")
# Read by errkb, but not by `errkb serve`: nothing a deployment of the bot sets.
NOT_FOR_SERVE = {
    "ERRKB_MCP_TOKEN": "`errkb mcp --http`, a server of its own",
    "ERRKB_CHROMIUM": "`errkb preview --png`",
    "NO_COLOR": "the command line's text output",
    "GITHUB_ACTIONS": "`errkb ci`'s default format, set by the CI system",
    "GITLAB_CI": "`errkb ci`'s default format, set by the CI system",
    "XDG_CACHE_HOME": "the base of ERRKB_CACHE's default, a desktop convention",
    "MALLOC_MMAP_THRESHOLD_": "glibc's own setting",
    "ERRKB_SERVE_URL": "`errkb ci`: where it finds `errkb serve` for vote buttons",
}
SET_BY_CI = re.compile(r"GITHUB_[A-Z_]+|GITLAB_[A-Z_]+")  # read by `errkb ci`, set by the CI system


def _environ_reads(tree: ast.Module) -> set[str]:
    """The names a module reads from the environment."""
    constants = {t.id: n.value.value for n in tree.body if isinstance(n, ast.Assign)
                 and isinstance(n.value, ast.Constant) and isinstance(n.value.value, str)
                 for t in n.targets if isinstance(t, ast.Name)}
    functions = {f.name: f for f in ast.walk(tree) if isinstance(f, ast.FunctionDef)}

    def is_environ(node: ast.expr) -> bool:
        return (isinstance(node, ast.Attribute) and node.attr == "environ") or \
            (isinstance(node, ast.Name) and node.id in ("environ", "env"))

    def read_arg(node: ast.AST) -> ast.expr | None:
        if isinstance(node, ast.Call) and node.args:
            func = node.func
            if isinstance(func, ast.Attribute) and func.attr == "get" and is_environ(func.value):
                return node.args[0]
            if isinstance(func, ast.Attribute) and func.attr == "getenv":
                return node.args[0]
        if isinstance(node, ast.Subscript) and is_environ(node.value):
            return node.slice
        return None

    names: set[str] = set()
    for function in [*functions.values(), tree]:
        params = [a.arg for a in function.args.args] if isinstance(function, ast.FunctionDef) else []
        for node in ast.walk(function):
            arg = read_arg(node)
            if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                names.add(arg.value)
            elif isinstance(arg, ast.Name) and arg.id in constants:
                names.add(constants[arg.id])
            elif isinstance(arg, ast.Name) and arg.id in params:  # a parameter: what the module's calls pass
                assert isinstance(function, ast.FunctionDef)
                at = params.index(arg.id)
                for call in ast.walk(tree):
                    if isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id == function.name:
                        given = call.args[at] if len(call.args) > at else next(
                            (k.value for k in call.keywords if k.arg == arg.id), None)
                        if isinstance(given, ast.Constant) and isinstance(given.value, str):
                            names.add(given.value)
    return names


def _reads(*folders: str) -> set[str]:
    names: set[str] = set()
    for folder in folders:
        for path in sorted((REPO / folder).rglob("*.py")):
            names |= _environ_reads(ast.parse(path.read_text(encoding="utf-8")))
    return names


def _mentioned(text: str) -> set[str]:
    return set(SETTING.findall(text))


def _compose_offers() -> set[str]:
    errkb = yaml.safe_load((REPO / "compose.yaml").read_text(encoding="utf-8"))["services"]["errkb"]
    offered = set(errkb.get("environment") or {})
    offered |= {m for p in errkb.get("ports", []) for m in re.findall(r"\$\{([A-Z0-9_]+)", str(p))}
    return offered


def _chart_offers() -> set[str]:
    values = yaml.safe_load((CHART / "values.yaml").read_text(encoding="utf-8"))
    deployment = (CHART / "templates" / "deployment.yaml").read_text(encoding="utf-8")
    return set(re.findall(r"- name: ([A-Z][A-Z0-9_]+)", deployment)) | set(values["secrets"])


def _chart_text() -> str:
    files = [CHART / "values.yaml", *(p for p in sorted((CHART / "templates").iterdir())
                                      if p.suffix in (".yaml", ".tpl", ".txt"))]
    return "\n".join(f.read_text(encoding="utf-8") for f in files)


def test_the_reader_finds_settings_read_directly_through_a_constant_and_through_a_parameter():
    reads = _reads("bot")
    assert {"SLACK_BOT_TOKEN", "DATABASE_URL", "PORT", "LOG_LEVEL"} <= reads  # os.environ.get("…")
    assert "ERRKB_CACHE" in reads  # os.environ.get(CACHE_ENV)
    assert {"ERRKB_SEEDS", "ERRKB_PASTES", "ERRKB_RETAIN_POSTED_DAYS", "ERRKB_RETAIN_HITS_DAYS"} <= reads  # parameters
    assert "SLACK_STATE_SECRET" not in reads


@pytest.mark.parametrize("where", ["compose.yaml", "chart", "docs/configuration.md", "docs/deploy.md",
                                   "docs/slack.md", "README.md", "Dockerfile"])
def test_every_setting_named_for_operators_is_one_errkb_reads(where):
    text = _chart_text() if where == "chart" else (REPO / where).read_text(encoding="utf-8")
    stale = _mentioned(text) - _reads("bot", "tests", "bench")
    assert not stale, f"{where} names settings nothing reads: {sorted(stale)}"


def test_serve_settings_are_offered_by_compose_and_the_chart_and_documented():
    serve = {name for name in _reads("bot") - set(NOT_FOR_SERVE) if not SET_BY_CI.fullmatch(name)}
    assert serve, "found no settings"
    documented = _mentioned((REPO / "docs" / "configuration.md").read_text(encoding="utf-8"))
    for offered_by, offered in (("compose.yaml", _compose_offers()), ("the Helm chart", _chart_offers()),
                                ("docs/configuration.md", documented)):
        missing = serve - offered
        assert not missing, f"{offered_by} does not offer {sorted(missing)}"

