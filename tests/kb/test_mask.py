"""Credentials never leave errkb: every kind is masked, what tells which secret it was is kept."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.kb.mask import HIDDEN, apply_rules, mask

SECRETS = [
    ("postgresql://app:Hunter2Secret@db.internal:5432/app", "Hunter2Secret", "postgresql://app:•••••@db.internal"),
    ("redis://:s3cr3tpass@cache:6379/0", "s3cr3tpass", "redis://:•••••@cache"),
    ("curl https://deploy:gh-T0ken-99@git.example.com/repo.git", "gh-T0ken-99", "https://deploy:•••••@git"),
    ("SLACK_BOT_TOKEN=xoxb-1234567890-0987654321-AbCdEfGhIjKlMnOp", "AbCdEfGhIjKlMnOp", "xoxb-•••••"),
    ("app token xapp-1-A0123456789-1234567890123-abcdef", "abcdef", "xapp-•••••"),
    ("user token xoxp-123456789012-abcdefabcdef", "abcdefabcdef", "xoxp-•••••"),
    ("The AWS Access Key Id AKIAIOSFODNN7EXAMPLE you provided", "IOSFODNN7EXAMPLE"[4:], "AKIAIOSF•••••"),
    ("aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "wJalrXUtnFEMI", "aws_secret_access_key = •••••"),
    ("-H 'Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N'",
     "dozjgNryP4J3jVmNHl0w5N", "Authorization: Bearer •••••"),
    ("Authorization: Basic dXNlcjpwYXNzd29yZA==", "dXNlcjpwYXNzd29yZA", "Authorization: Basic •••••"),
    ("mysql -h db --password=TopSecret1 app", "TopSecret1", "--password=•••••"),
    ("DATABASE_PASSWORD: 'Pa$$w0rd!'", "Pa$$w0rd", "DATABASE_PASSWORD: '•••••"),
    ('{"api_key": "sk-proj-abcdefghijklmnopqrstuvwx"}', "abcdefghijklmnop", '"api_key": "sk-proj-•••••"'),
    ("HF_TOKEN hf_abcdefghijklmnopqrstuvwxyzABCD rejected", "abcdefghijklmnop", "hf_•••••"),
    ("remote: ghp_abcdefghijklmnopqrstuvwxyz0123456789 is invalid", "abcdefghijklmnop", "ghp_•••••"),
    ("-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ\n-----END OPENSSH PRIVATE KEY-----",
     "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ", "-----BEGIN OPENSSH PRIVATE KEY----- •••••"),
    ("-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA7… (the paste stops here)", "MIIEpAIBAAKCAQEA7",
     "-----BEGIN RSA PRIVATE KEY----- •••••"),
    ("连接失败：postgres://用户:密码123@数据库:5432/app", "密码123", "postgres://用户:•••••@数据库"),
]


@pytest.mark.parametrize(("text", "secret", "kept"), SECRETS)
def test_a_credential_is_masked_and_what_it_was_stays_readable(text, secret, kept):
    masked = mask(text)
    assert secret not in masked and kept in masked


@pytest.mark.parametrize("text", [
    "cat: /etc/passwd: Permission denied",
    "ERROR 1045 (28000): Access denied for user 'root'@'localhost' (using password: YES)",
    "FATAL:  password authentication failed for user \"app\"",
    "SyntaxError: Unexpected token Identifier",
    "Error from server (NotFound): secrets \"db-creds\" not found",
    "git@github.com: Permission denied (publickey).",
    "https://pytorch.org/docs/stable/notes/cuda.html#environment-variables",
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.50 GiB.",
    "NoCredentialsError: Unable to locate credentials",
])
def test_error_text_that_only_talks_about_secrets_is_left_alone(text):
    assert mask(text) == text


def test_mask_is_idempotent():
    once = mask("token=abcdef123456 and postgres://u:pw123456@h/db")
    assert once == f"token={HIDDEN} and postgres://u:{HIDDEN}@h/db" and mask(once) == once


def test_what_a_user_typed_is_masked_when_errkb_echoes_it():
    from bot import i18n
    from bot.render import blocks

    with i18n.use_locale("en"):
        lead = blocks.escape("I don't know the command “xoxb-1234567890-abcdefghijkl”.")
        echoed = [blocks.help_message(lead), blocks.notice(lead),
                  blocks.search_message("password=hunter22 timeout", [])]
    assert not any("abcdefghijkl" in str(m) or "hunter22" in str(m) for m in echoed)


_FRAGMENTS = [s for s, _secret, _shown in SECRETS] + [
    "password: YES", "/etc/passwd", "token:", "Bearer", " ", "\n", "x", "PGPASSWORD=", "api-key ", "--token ",
    "AKIA", "ghp_", "eyJ", "://u:", "@host", "sk-", "Authorization: ", "BEGIN", "-----", "秘密", "TOKEN=abcdefgh"]


@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.lists(st.sampled_from(_FRAGMENTS), max_size=6), st.sampled_from([str.lower, str.upper, str]))
def test_the_quick_check_never_skips_a_text_a_rule_would_change(parts: list[str], case) -> None:
    text = case("".join(parts))
    assert mask(text) == apply_rules(text)
