"""Pure knowledge: entries, normalisation, matching, search and feedback maths.

Nothing in this package knows about Slack, SQL or the network.
"""
