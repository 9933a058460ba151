"""Alerts as six integrations post them in Slack, each carrying an error errkb knows.

Each shape is built from the integration's public source or documentation (the URL above each); the
values (projects, pods, links) are made up. Each factory returns the ``message`` event's fields (the
``event_callback`` envelope is ``tests.support.payloads.envelope``): ``alert_event`` wraps one with a
new ts. Integrations that post with an incoming webhook arrive as ``subtype: bot_message``; apps that
post with a bot token carry ``bot_id`` and ``app_id`` and no subtype.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tests.support.payloads import CHANNEL, TEAM, envelope, new_ts

Fields = dict[str, Any]


def _app(bot_id: str, app_id: str, name: str) -> Fields:
    """What Slack adds to a message an app posted with its bot token."""
    return {"bot_id": bot_id, "app_id": app_id, "user": f"U{bot_id[1:]}", "team": TEAM,
            "bot_profile": {"id": bot_id, "app_id": app_id, "name": name, "deleted": False, "team_id": TEAM}}


def _webhook(bot_id: str, username: str) -> Fields:
    """What Slack adds to a message an incoming webhook posted."""
    return {"subtype": "bot_message", "bot_id": bot_id, "username": username}


# Sentry's Slack integration, issue alerts as Block Kit inside one attachment (its colour bar): a title section
# linking the issue, the culprit as context, the message in a code block, the tags, the footer.
# https://github.com/getsentry/sentry/blob/master/src/sentry/integrations/slack/message_builder/issues.py
# https://github.com/getsentry/sentry/blob/master/src/sentry/integrations/slack/message_builder/base/block.py
def sentry_blocks() -> Fields:
    title = "OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 15.78 GiB"
    return {**_app("B0SENTRY", "A011MFBJEUU", "Sentry"), "text": f"[trainer] {title}", "attachments": [{
        "color": "#E03E2F",
        "blocks": [
            {"type": "section", "block_id": '{"issue":4512}', "text": {
                "type": "mrkdwn", "text": f"🔴 <https://acme.sentry.io/issues/4512/?referrer=slack|*{title}*>"}},
            {"type": "context", "elements": [{"type": "mrkdwn", "text": "trainer.loop in train_step"}]},
            {"type": "section", "text": {"type": "mrkdwn", "text": (
                "```torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total "
                "capacity of 15.78 GiB of which 1.20 GiB is free. Of the allocated memory 13.9 GiB is allocated "
                "by PyTorch```")}},
            {"type": "section", "block_id": "tags_issue_4512", "text": {
                "type": "mrkdwn", "text": "environment: `production`  level: `error`  "}},
            {"type": "context", "elements": [{"type": "mrkdwn", "text": "State: *New*   First Seen: *2 minutes ago*"}]},
            {"type": "actions", "elements": [
                {"type": "button", "text": {"type": "plain_text", "text": "Resolve"}, "action_id": "resolve_dialog",
                 "value": "resolve_dialog"},
                {"type": "external_select", "placeholder": {"type": "plain_text", "text": "Select Assignee..."},
                 "action_id": "assign"}]},
            {"type": "context", "elements": [{"type": "mrkdwn", "text": (
                "Project: <https://acme.sentry.io/projects/trainer/|trainer>    Alert: New issue    "
                "Short ID: TRAINER-1A")}]},
            {"type": "divider"}],
    }]}


# Sentry's older issue alerts: a legacy attachment (title linking the issue, the culprit as text, tags as fields,
# a footer naming the rule). The same builders' history, and Slack's attachment fields:
# https://github.com/getsentry/sentry/blob/master/src/sentry/integrations/slack/message_builder/issues.py
# https://api.slack.com/reference/messaging/attachments
def sentry_attachment() -> Fields:
    title = "ModuleNotFoundError: No module named 'requests'"
    return {**_app("B0SENTRY", "A011MFBJEUU", "Sentry"), "text": "", "attachments": [{
        "id": 1, "color": "E03E2F", "fallback": f"[worker] {title}", "title": title,
        "title_link": "https://acme.sentry.io/issues/4513/?referrer=slack", "text": "worker.tasks in <module>",
        "fields": [{"title": "environment", "value": "production", "short": True},
                   {"title": "release", "value": "worker@2.4.1", "short": True}],
        "footer": "<https://acme.sentry.io/issues/4513/|WORKER-3> via <https://acme.sentry.io/alerts/rules/7/|New issue>",
        "ts": 1764856800, "mrkdwn_in": ["text"],
        "actions": [{"id": "1", "name": "status", "text": "Resolve", "type": "button", "value": "resolved"}],
    }]}


# The GitHub app for Slack (`/github subscribe owner/repo workflows`): a workflow run's notification with its
# status, workflow, branch and jobs, and the failed job's annotation. The README describes it and shows it
# (https://github.com/integrations/slack#actions-workflow-notifications); no JSON is published, so the field
# layout here follows its screenshots. The annotation is GitHub's own wording for a step that failed.
def github_workflow() -> Fields:
    return {**_app("B0GITHUB", "A01BP7R4KNY", "GitHub"), "text": "", "attachments": [{
        "color": "#cb2431", "fallback": "Workflow run failed: CI · acme/api · main",
        "blocks": [
            {"type": "section", "text": {"type": "mrkdwn", "text": (
                "*<https://github.com/acme/api/actions/runs/9876543210|Workflow run failed>* · "
                "<https://github.com/acme/api|acme/api>")}},
            {"type": "section", "fields": [
                {"type": "mrkdwn", "text": "*Workflow*\nCI"}, {"type": "mrkdwn", "text": "*Branch*\nmain"},
                {"type": "mrkdwn", "text": "*Event*\npush"}, {"type": "mrkdwn", "text": "*Actor*\nocto"}]},
            {"type": "rich_text", "elements": [
                {"type": "rich_text_list", "style": "bullet", "elements": [
                    {"type": "rich_text_section", "elements": [
                        {"type": "emoji", "name": "x"}, {"type": "text", "text": " build / test: failed in 2m 13s"}]},
                    {"type": "rich_text_section", "elements": [
                        {"type": "emoji", "name": "white_check_mark"}, {"type": "text", "text": " lint: succeeded"}]}]},
                {"type": "rich_text_preformatted", "elements": [
                    {"type": "text", "text": "build / test\nError: Process completed with exit code 1."}]}]},
            {"type": "actions", "elements": [
                {"type": "button", "text": {"type": "plain_text", "text": "Re-run failed jobs"},
                 "action_id": "rerun_failed", "value": "9876543210"}]}],
    }]}


# Prometheus Alertmanager's slack_configs, default templates: one attachment with title, title_link, text,
# fallback, footer, colour and mrkdwn_in, posted through an incoming webhook.
# https://github.com/prometheus/alertmanager/blob/main/notify/slack/slack.go
# https://prometheus.io/docs/alerting/latest/configuration/#slack_config
def alertmanager() -> Fields:
    return {**_webhook("B0ALERTMGR", "Alertmanager"), "text": "", "attachments": [{
        "title": "[FIRING:1] KubePodCrashLooping (prod api-7d9f)",
        "title_link": "http://alertmanager.acme.internal:9093/#/alerts?receiver=slack",
        "text": ("*Alert:* Pod is crash looping. - `critical`\n"
                 "*Description:* Back-off restarting failed container api in pod api-7d9f_prod(8c6d2e5a)\n"
                 "*Details:*\n  • namespace: prod\n  • pod: api-7d9f\n  • container: api\n"),
        "fallback": ("[FIRING:1] KubePodCrashLooping (prod api-7d9f) | "
                     "http://alertmanager.acme.internal:9093/#/alerts?receiver=slack"),
        "callback_id": "", "footer": "", "color": "danger", "mrkdwn_in": ["fallback", "pretext", "text"],
    }]}


# Grafana Alerting's Slack contact point: one attachment with colour, title (also the fallback), title_link, the
# default message text, footer "Grafana v…" with its icon, and an integer ts.
# https://github.com/grafana/alerting/blob/main/receivers/slack/v1/slack.go
def grafana() -> Fields:
    title = "[FIRING:1] ContainerOOMKilled prod (api)"
    return {**_app("B0GRAFANA", "A0GRAFANA1", "Grafana"), "text": "", "attachments": [{
        "color": "#D63232", "title": title, "fallback": title, "title_link": "https://grafana.acme.io/alerting/list",
        "text": ("**Firing**\n\nValue: A=1\nLabels:\n - alertname = ContainerOOMKilled\n - container = api\n"
                 " - namespace = prod\nAnnotations:\n - summary = Container api in pod prod/api-7d9f was "
                 "terminated: Reason: OOMKilled, Exit Code: 137\nSource: https://grafana.acme.io/alerting/grafana/"
                 "d1f3/view\nSilence: https://grafana.acme.io/alerting/silence/new\n"),
        "footer": "Grafana v11.3.0", "footer_icon": "https://grafana.com/static/assets/img/fav32.png",
        "ts": 1764856800,
    }]}


# Datadog's Slack integration, a monitor notification: the monitor's title and status, its message (here quoting
# the log line that triggered it), the tags and the snapshot, as one attachment. What a channel shows (message,
# notified, snapshot, tags) is the integration's per-channel "display" setting.
# https://docs.datadoghq.com/integrations/slack/
# https://docs.datadoghq.com/api/latest/slack-integration/
def datadog() -> Fields:
    return {**_app("B0DATADOG", "A0DATADOG1", "Datadog"), "text": "", "attachments": [{
        "color": "#e0301e", "fallback": "Triggered: [P2] Redis connection errors on web",
        "title": "Triggered: [P2] Redis connection errors on web",
        "title_link": "https://app.datadoghq.com/monitors/123456?group=host%3Aweb-1",
        "text": ("Redis refused connections from web-1:\n"
                 "```redis.exceptions.ConnectionError: Error 111 connecting to localhost:6379. Connection "
                 "refused.```\n@slack-ops-alerts"),
        "fields": [{"title": "Tags", "value": "env:prod, host:web-1, service:web", "short": False}],
        "image_url": "https://p.datadoghq.com/snapshot/view/dd-snapshots-prod/org_1/2026-12-04/abc.png",
        "footer": "Datadog", "mrkdwn_in": ["text"],
    }]}


# PagerDuty's Slack V2 integration, an incident notification: the incident linked with its title, then Status,
# Urgency, Assigned and Service as section fields, the monitoring tool's details, and the actions.
# https://support.pagerduty.com/main/docs/slack-v2-integration-guide
def pagerduty() -> Fields:
    title = "[#1234] psycopg2.OperationalError: FATAL:  sorry, too many clients already"
    return {**_app("B0PAGERDUTY", "A1FKYAUUX", "PagerDuty"), "text": f"Triggered: {title}", "blocks": [
        {"type": "section", "text": {"type": "mrkdwn", "text": (
            f"*<https://acme.pagerduty.com/incidents/Q1W2E3|{title}>*")}},
        {"type": "section", "fields": [
            {"type": "mrkdwn", "text": "*Status:*\n:red_circle: Triggered"},
            {"type": "mrkdwn", "text": "*Urgency:*\nHigh"},
            {"type": "mrkdwn", "text": "*Assigned:*\n<@U0ONCALL>"},
            {"type": "mrkdwn", "text": "*Service:*\nbilling-db"}]},
        {"type": "context", "elements": [
            {"type": "plain_text", "text": "Source: pgbouncer-2 · Component: postgres"}]},
        {"type": "actions", "elements": [
            {"type": "button", "text": {"type": "plain_text", "text": "Acknowledge"}, "action_id": "acknowledge",
             "value": "Q1W2E3"},
            {"type": "button", "text": {"type": "plain_text", "text": "Resolve"}, "action_id": "resolve",
             "value": "Q1W2E3"}]}]}


# Each integration's shape, the entry errkb answers it with, and a line of that error (as the answer quotes it).
SHAPES: dict[str, tuple[Callable[[], Fields], str]] = {
    "sentry_blocks": (sentry_blocks, "pytorch/cuda-out-of-memory"),
    "sentry_attachment": (sentry_attachment, "python/modulenotfounderror-no-module-named"),
    "github": (github_workflow, "github-actions/process-completed-with-exit-code"),
    "alertmanager": (alertmanager, "kubernetes/crashloopbackoff"),
    "grafana": (grafana, "kubernetes/oomkilled"),
    "datadog": (datadog, "redis/connection-refused-6379"),
    "pagerduty": (pagerduty, "postgres/too-many-clients"),
}


def alert_event(fields: Fields, channel: str = CHANNEL, ts: str | None = None, **extra: Any) -> dict[str, Any]:
    """One alert as a ``message`` event in ``channel`` (a new ts unless given)."""
    ts = ts or new_ts()
    return envelope({"type": "message", "channel": channel, "ts": ts, "event_ts": ts, "channel_type": "channel",
                     **fields, **extra})
