"""The Slack adapter: a Bolt ``AsyncApp`` whose listeners turn payloads into service calls.

``app.py`` builds and runs it (HTTP on aiohttp, or Socket Mode); ``listeners/`` holds one module
per kind of payload; ``replies.py`` is what they share (answers, votes, in-place updates).
"""
