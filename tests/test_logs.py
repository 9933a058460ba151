"""Log lines never carry tokens, secrets or passwords, and the Slack libraries' chatter stays out."""

from __future__ import annotations

import logging

from bot.logs import Redact


def _record(name: str, level: int, msg: str, *args: object) -> logging.LogRecord:
    return logging.LogRecord(name, level, __file__, 1, msg, args, None)


def test_tokens_urls_and_configured_secrets_are_masked():
    redact = Redact(["s1gning-s3cret-value"])
    record = _record("bot.service", logging.INFO, "token %s url %s secret %s auth %s",
                     "xoxb-1234-5678-abcdefgh", "postgresql+asyncpg://app:hunter2@db/errkb",
                     "s1gning-s3cret-value", "Bearer abcdefghijklmnop")
    assert redact.filter(record)
    assert record.getMessage() == ("token *** url postgresql+asyncpg://app:***@db/errkb secret *** "
                                   "auth Bearer ***")


def test_an_exception_text_is_masked_too():
    redact = Redact()
    try:
        raise RuntimeError("could not connect with xapp-1-A0B1C2-123456-abcdef")
    except RuntimeError:
        import sys

        record = logging.LogRecord("bot", logging.ERROR, __file__, 1, "failed", (), sys.exc_info())
    assert redact.filter(record)
    assert "xapp-1-A0B1C2" not in record.exc_text and "***" in record.exc_text


def test_slack_library_debug_lines_are_dropped_but_their_warnings_kept():
    redact = Redact()
    assert not redact.filter(_record("slack_sdk.web.async_base_client", logging.DEBUG, "Sending a request - body: x"))
    assert not redact.filter(_record("slack_bolt.App", logging.INFO, "request body: x"))
    assert redact.filter(_record("slack_bolt.App", logging.WARNING, "Unhandled request"))
    assert redact.filter(_record("bot.slack.front", logging.DEBUG, "refused"))


PLANTED = "marker zebra-unicorn-7731 at postgresql://app:hunter2@db/prod"


def _formatted(record: logging.LogRecord, redact: Redact | None = None) -> str:
    assert (redact or Redact()).filter(record)
    return logging.Formatter("%(levelname)s %(name)s: %(message)s").format(record)


def test_bolts_unhandled_request_warning_keeps_the_types_not_what_was_typed():
    from slack_bolt.logger.messages import warning_unhandled_request
    from slack_bolt.request.async_request import AsyncBoltRequest

    for body, kept in (
        ({"type": "dialog_submission", "callback_id": "report", "submission": {"details": PLANTED}},
         "Unhandled request [type=dialog_submission callback_id=report]"),
        ({"type": "block_suggestion", "action_id": "lookup", "value": PLANTED},
         "Unhandled request [type=block_suggestion action_id=lookup]"),
        ({"type": "interactive_message", "callback_id": "x", "actions": [{"value": PLANTED}]},
         "Unhandled request [type=interactive_message callback_id=x]"),
    ):
        message = warning_unhandled_request(AsyncBoltRequest(body=body, mode="socket_mode"))
        assert PLANTED in message  # what Bolt itself would print
        line = _formatted(_record("slack_bolt.AsyncApp", logging.WARNING, message))
        assert line == f"WARNING slack_bolt.AsyncApp: {kept}"


def test_a_slack_library_error_keeps_its_error_code_and_nothing_it_quotes():
    message = ("Failed to authorize with the given token (The request to the Slack API failed. (url: x/auth.test)\n"
               f"The server responded with: {{'ok': False, 'error': 'invalid_auth', 'echo': '{PLANTED}'}})")
    line = _formatted(_record("slack_bolt.AsyncApp", logging.ERROR, message))
    assert line == "ERROR slack_bolt.AsyncApp: Failed to authorize with the given token [error=invalid_auth]"
    line = _formatted(_record("slack_bolt.AsyncApp", logging.ERROR, "Failed to run listener function (error: %s)",
                              PLANTED))
    assert line.endswith("Failed to run listener function [details withheld]")


def test_a_traceback_shows_where_and_what_kind_not_the_text_of_a_payload_or_response():
    import sys

    from slack_sdk.errors import SlackApiError
    from slack_sdk.web.async_slack_response import AsyncSlackResponse

    response = AsyncSlackResponse(client=None, http_verb="POST", api_url="x/chat.postMessage", req_args={},
                                  data={"ok": False, "error": "invalid_blocks", "text": PLANTED}, headers={},
                                  status_code=200)
    try:
        try:
            raise SlackApiError("The request to the Slack API failed.", response)
        except SlackApiError as exc:
            raise KeyError(PLANTED) from exc
    except KeyError:
        record = logging.LogRecord("bot.service.runtime.outbox", logging.ERROR, __file__, 1, "a decision failed", (),
                                   sys.exc_info())
    line = _formatted(record)
    assert PLANTED not in line and "zebra" not in line
    assert "SlackApiError: (text withheld" in line and "KeyError: (text withheld" in line
    assert line.index("SlackApiError") < line.index("direct cause") < line.index("KeyError")
    assert "test_logs.py" in line  # where it failed


def test_os_and_database_errors_keep_their_text_without_sql_parameters():
    import sys

    import sqlalchemy.exc

    try:
        raise sqlalchemy.exc.OperationalError("INSERT INTO t VALUES (?)", (PLANTED,), Exception("disk I/O error"))
    except sqlalchemy.exc.OperationalError:
        record = logging.LogRecord("bot", logging.ERROR, __file__, 1, "pruning failed", (), sys.exc_info())
    line = _formatted(record)
    assert "OperationalError: (builtins.Exception) disk I/O error" in line and "zebra" not in line
    try:
        open("/nonexistent-errkb/file")  # noqa: SIM115
    except OSError:
        record = logging.LogRecord("bot", logging.ERROR, __file__, 1, "failed", (), sys.exc_info())
    assert "No such file or directory: '/nonexistent-errkb/file'" in _formatted(record)


def test_an_asyncio_task_exception_never_retrieved_shows_no_repr_of_it(capsys):
    import asyncio
    import gc

    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    from bot import logs

    logs.configure("DEBUG")

    async def fails() -> None:
        raise ValueError(PLANTED)

    async def main() -> None:
        task = asyncio.ensure_future(fails())
        await asyncio.sleep(0.01)
        del task
        gc.collect()

    try:
        asyncio.run(main())
    finally:
        root.handlers[:], root.level = handlers, level
    err = capsys.readouterr().err
    assert "ERROR asyncio: Task exception was never retrieved [details withheld]" in err
    assert "ValueError: (text withheld" in err and "zebra" not in err
