"""What the bot is doing, in Prometheus' terms (``GET /metrics``), and one log line per handled event.

The Slack adapter opens an :func:`event` around each request it handles; whatever runs inside it
(the service, the gateway) marks what became of it with :func:`outcome`. When the request is done
the event is counted by type and outcome, its latency observed, and one line logged: type, outcome,
latency, entry id — never the message text.
"""

from __future__ import annotations

import contextlib
import contextvars
import logging
import re
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from prometheus_client import CONTENT_TYPE_LATEST, Counter, Gauge, Histogram, generate_latest

log = logging.getLogger("errkb.events")

# Request types come from the payload: past this many distinct ones (Slack sends a few dozen), or one not
# shaped like Slack's, a request counts as "other", so a stream of made-up types cannot grow the label sets.
TYPE_LIMIT = 64
_TYPE_SHAPE = re.compile(r"[a-z][a-z0-9_]{0,47}")
_types: set[str] = set()
_LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)

EVENTS = Counter("errkb_events", "Slack requests handled, by type and outcome", ["type", "outcome"])
MATCHES = Counter("errkb_matches", "Messages matched against the KB, by how the answer was found", ["how"])
VOTES = Counter("errkb_votes", "Votes received (reactions and buttons), by kind and whether they changed a count",
                ["kind", "changed"])
API_CALLS = Counter("errkb_slack_api_calls", "Slack Web API calls, by method and result", ["method", "result"])
RETRIES = Counter("errkb_slack_api_retries", "Slack Web API calls retried, by method and reason", ["method", "reason"])
ANSWERS = Counter("errkb_answers", "Recorded answers carried out, by result (posted, partial, failed)", ["result"])
DECISIONS = Counter("errkb_decisions", "Recorded decisions by what became of them: done; failed (nothing posted, "
                    "the thread stays answerable); dropped (too old to help); recovered (taken over from a "
                    "process that stopped renewing its lease)", ["result"])
PENDING = Gauge("errkb_pending_decisions", "Recorded decisions (answers, notes) not yet carried out")
ANSWERS_WAITING = Gauge("errkb_answers_waiting", "Recorded decisions Slack could not take yet (5xx past the "
                        "gateway's retries: an outage), waiting in the queue to be tried again")
DECISION_RETRIES = Counter("errkb_decision_retries", "Recorded decisions put back in the queue because Slack could "
                           "not take them, by reason (Slack's error, or http_5xx…)", ["reason"])
ACK_SECONDS = Histogram("errkb_ack_seconds", "Time from receiving a Slack request to its ack", ["type"],
                        buckets=_LATENCY_BUCKETS)
MATCH_SECONDS = Histogram("errkb_match_seconds", "Time to match one message against the KB", buckets=_LATENCY_BUCKETS)
FIRST_REPLY_SECONDS = Histogram("errkb_first_reply_seconds", "Time from a recorded answer to its first post",
                                buckets=_LATENCY_BUCKETS)


@dataclass
class Handled:
    """What became of one request; the last :func:`outcome` inside it wins over ``silent``."""

    type: str
    outcome: str = "silent"
    entry_id: str | None = None


_current: contextvars.ContextVar[Handled | None] = contextvars.ContextVar("errkb_event", default=None)


def outcome(name: str, entry_id: str | None = None) -> None:
    """Mark the request being handled (if any) as ``name``: answered, silent, duplicate or dropped."""
    handled = _current.get()
    if handled is not None:
        handled.outcome = name
        handled.entry_id = entry_id or handled.entry_id


@contextlib.contextmanager
def event(kind: str) -> Iterator[Handled]:
    """Count, time and log one request of type ``kind``; an exception inside marks it ``dropped``."""
    handled = Handled(bounded_type(kind))
    token = _current.set(handled)
    start = time.perf_counter()
    try:
        yield handled
    except BaseException:
        handled.outcome = "dropped"
        raise
    finally:
        _current.reset(token)
        handled_in(handled, time.perf_counter() - start)


def handled_in(handled: Handled, elapsed: float) -> None:
    """Count, time and log one request handled in ``elapsed`` seconds (what :func:`event` does on exit)."""
    EVENTS.labels(handled.type, handled.outcome).inc()
    ACK_SECONDS.labels(handled.type).observe(elapsed)
    # Most traffic is chat errkb stays silent on: counted above, its line only at DEBUG.
    level = logging.DEBUG if handled.outcome == "silent" else logging.INFO
    if log.isEnabledFor(level):
        log.log(level, "event type=%s outcome=%s latency_ms=%.1f entry=%s", handled.type, handled.outcome,
                elapsed * 1000, handled.entry_id or "-",
                extra={"event_type": handled.type, "outcome": handled.outcome,
                       "latency_ms": round(elapsed * 1000, 1), "entry_id": handled.entry_id})


def bounded_type(kind: str) -> str:
    """``kind`` as a label value: itself while fewer than ``TYPE_LIMIT`` types were seen, else ``other``."""
    if kind in _types:
        return kind
    if len(_types) < TYPE_LIMIT and _TYPE_SHAPE.fullmatch(kind):
        _types.add(kind)
        return kind
    return "other"


@contextlib.contextmanager
def timed_match() -> Iterator[Callable[[str], None]]:
    """Time one match; call the yielded function with how it matched (``regex``, ``fuzzy``, ``none``)."""
    start = time.perf_counter()
    found: list[str] = []
    yield found.append
    matched(found[-1] if found else "none", time.perf_counter() - start)


def matched(how: str, seconds: float) -> None:
    """Count one match that took ``seconds`` (what :func:`timed_match` does on exit)."""
    MATCH_SECONDS.observe(seconds)
    MATCHES.labels(how).inc()


def api_result(status: int | None, error: str | None = None) -> str:
    """A Web API call's result label: ``ok``, ``429``, ``5xx`` or ``error``."""
    if status == 429 or error == "ratelimited":
        return "429"
    if status is not None and status >= 500:
        return "5xx"
    return "ok" if error is None else "error"


def exposition() -> tuple[bytes, str]:
    """The current metrics in Prometheus' text format, and its content type."""
    return generate_latest(), CONTENT_TYPE_LATEST
