"""Bolt's global error handler: a request whose handling failed gets one log line and a clear status.

A payload Slack would never send (a field of the wrong type, a missing key) is the sender's
mistake: 400, so no retry. Anything else (the store down) is ours: 500, so Slack retries the event.
The line names the request type and where it failed, never the error's text (it may quote the
payload, and a payload holds message text)."""

from __future__ import annotations

import logging
import re
import traceback
from typing import Any

from slack_bolt.response import BoltResponse

log = logging.getLogger(__name__)

MALFORMED = (KeyError, IndexError, TypeError, ValueError, AttributeError, UnicodeError)
_ERROR_CODE = re.compile(r"[a-z0-9_.]{1,64}")


def api_error(data: Any, status: int) -> str:
    """A Web API error response's code (``channel_not_found``…), or the HTTP status; Slack's codes
    are short identifiers, so anything else (a proxy or a fake echoing what was sent) is
    ``unexpected_error`` rather than text that would reach a log line."""
    error = str((data.get("error") if isinstance(data, dict) else None) or status)
    return error if _ERROR_CODE.fullmatch(error) else "unexpected_error"


def origin(error: BaseException) -> str:
    """``module.py:line`` of the innermost frame: enough to find the bug, nothing of the payload."""
    frames = traceback.extract_tb(error.__traceback__)
    if not frames:
        return "?"
    last = frames[-1]
    return f"{last.filename.rsplit('/', 1)[-1]}:{last.lineno}"


def failure(error: Exception, kind: str) -> BoltResponse:
    """The one line and the response for a request of type ``kind`` whose handling raised ``error``."""
    status = 400 if isinstance(error, MALFORMED) else 500
    log.warning("errkb: %s request failed (%s at %s): %d", kind, type(error).__name__, origin(error), status)
    return BoltResponse(status=status, body="")
