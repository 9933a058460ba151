"""Hide anything that looks like a credential before errkb posts or prints it.

The answer quotes the reader's own line, and a pasted line can carry a database password, a token
or a key that the author can delete from their message but not from the bot's. What a reader or a
team wrote is masked where it enters an answer (``bot.service.knowledge``: the quoted line, team
entries, suggested fixes), so every format shows it masked; curated KB text is never masked (its
commands would break). Pure functions, no I/O.
"""

from __future__ import annotations

import re
from functools import lru_cache

import re2

HIDDEN = "•••••"

_PRIVATE_KEY = re.compile(
    r"-----BEGIN ((?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?)-----.*?(?:-----END \1-----|\Z)", re.DOTALL)
# (pattern, replacement) in order; each keeps what tells a reader which secret it was.
_RULES: tuple[tuple[re.Pattern[str], str], ...] = (
    # scheme://user:password@host → the password only
    (re.compile(r"(\b[a-zA-Z][a-zA-Z0-9+.-]*://[^\s:/?#@\"'<>]*:)[^\s@/?#\"'<>]+(@)"), rf"\1{HIDDEN}\2"),
    # Slack tokens (bot, user, app-level, refresh, config)
    (re.compile(r"\b(xox[abposre]|xapp|xoxe\.xox[bp])-[A-Za-z0-9-]{6,}"), rf"\1-{HIDDEN}"),
    # AWS access key ids
    (re.compile(r"\b((?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)[A-Z0-9]{4})[A-Z0-9]{12}\b"), rf"\1{HIDDEN}"),
    # GitHub, GitLab, Hugging Face, OpenAI/Stripe-style, Google API keys
    (re.compile(r"\b(gh[pousr]_|github_pat_|glpat-|hf_|sk-(?:proj-)?|sk_live_|rk_live_|AIza)[A-Za-z0-9_-]{16,}"),
     rf"\1{HIDDEN}"),
    # Authorization: Bearer/Basic/Token …, and a bare bearer token
    (re.compile(r"(?i)\b(authorization[\"']?\s*[:=]\s*[\"']?(?:(?:bearer|basic|token|digest)\s+)?)"
                r"(?!•|(?:bearer|basic|token|digest)\b)[^\s\"']{6,}"), rf"\1{HIDDEN}"),
    # JSON Web Tokens
    (re.compile(r"\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"), HIDDEN),
    (re.compile(r"(?i)\b(bearer\s+)(?!•)[A-Za-z0-9._~+/=-]{8,}"), rf"\1{HIDDEN}"),
    # password=…, api_key: "…", PGPASSWORD=…, aws_secret_access_key = … (not /etc/passwd, not "password: YES")
    (re.compile(
        r"""(?ix)
        (?<![/\\\w.-])
        ([\w.-]*(?:passw(?:or)?d|passwd|pwd|secret|api[_-]?key|access[_-]?key|auth[_-]?token|access[_-]?token
                   |refresh[_-]?token|private[_-]?key|client[_-]?secret)[\w.-]*
         ["']?\s*[=:]\s*["']?)
        (?![^\s"']*•|(?:yes|no|true|false|none|null|empty|\*+)\b)([^\s"'&,;)}\]]{2,})"""),
     rf"\1{HIDDEN}"),
    # token=… (a query string, an env file); not "token:" which error messages use for parser tokens
    (re.compile(r"(?i)(\b[\w.-]*token[\"']?\s*=\s*[\"']?)(?![^\s\"']*•)[^\s\"'&,;)}\]]{6,}"), rf"\1{HIDDEN}"),
    (re.compile(r"(?i)(--?(?:password|passwd|token|secret|api-key)[= ])(?!•)([^\s\"'-][^\s\"']*)"), rf"\1{HIDDEN}"),
)


# Every rule above needs one of these; text without any (almost all of it) skips the rules. RE2 tries
# them all in one pass (Python's re tries each at every position: 12x slower here).
_MAYBE = re2.compile(r"(?i)-----BEGIN|://|xox|xapp|\b(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)|gh[pousr]_|github_pat_"
                    r"|glpat-|hf_|sk-|sk_live_|rk_live_|AIza|authorization|eyJ|bearer|passw|pwd|secret|api[_-]?key"
                    r"|access[_-]?key|token|private[_-]?key")


CACHED_CHARS = 1000  # texts up to this long (the KB's, a quoted line) are masked once and remembered


def mask(text: str) -> str:
    """``text`` with every credential-looking part replaced by ``•••••``."""
    if not text or not _MAYBE.search(text):
        return text
    return _mask_short(text) if len(text) <= CACHED_CHARS else apply_rules(text)


@lru_cache(maxsize=2048)  # the KB's texts recur in every answer: a bounded ~2 MB
def _mask_short(text: str) -> str:
    return apply_rules(text)


def apply_rules(text: str) -> str:
    """Every rule applied to ``text``, unconditionally (what :func:`mask` does when a rule may apply)."""
    text = _PRIVATE_KEY.sub(lambda m: f"-----BEGIN {m.group(1)}----- {HIDDEN} -----END {m.group(1)}-----", text)
    for pattern, replacement in _RULES:
        text = pattern.sub(replacement, text)
    return text
