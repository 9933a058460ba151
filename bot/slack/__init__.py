"""The Slack adapter: a Bolt ``AsyncApp`` whose listeners turn payloads into service calls.

``app.py`` builds and runs it (HTTP on aiohttp, or Socket Mode); ``dispatch.py`` is the one dispatcher
for ``POST /slack/events``; ``listeners/`` holds one module per kind of payload (parse it, call one use
case of ``bot.service``); ``gateway.py`` carries out the
service's plans — the only code that calls Slack's Web API; ``vocabulary.py`` names the reactions
that vote.
"""
