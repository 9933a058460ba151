"""What the tests and ``bench/`` share, importable from either (``python -m bench.<script>`` at the
repository root, or pytest):

- ``fake_slack``: a fake Slack Web API on 127.0.0.1 that records every call and can fail or slow some;
- ``signing``: Slack's request signature, made and checked;
- ``payloads``: every Slack payload (events, commands, interactivity), shaped as Slack sends them;
- ``waits``: bounded polling, for what happens after an ack.
"""
