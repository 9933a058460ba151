"""Encryption at rest for the Slack credentials errkb stores in OAuth mode (``slack_installations``, ``slack_bots``).

Every token column (``models.SEALED_COLUMNS``) holds a Fernet token (AES-128-CBC and HMAC-SHA256) instead of the
Slack token. The keys come from ``ERRKB_ENCRYPTION_KEY``: one key, or several comma-separated, the first of which
encrypts while each of them decrypts (``MultiFernet``), so that a new key can be put in front of the old one and
``errkb db rotate-key`` then re-encrypts every value with it. slack_sdk's installation store reads and writes the
tables through :class:`bot.slack.oauth.SealedInstallationStore`, which encrypts before it saves and decrypts after
it finds; :func:`seal_tokens` encrypts what an older errkb stored in plain text (at start-up, ``errkb db encrypt``)
and re-encrypts everything with the first key (``errkb db rotate-key``).

A Fernet token is recognisable (it starts with ``gAAAAA``: its version byte and the high bytes of its timestamp),
a Slack token never is (``xox…``), so a value says itself whether it is encrypted: every pass is idempotent.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from cryptography.fernet import Fernet, InvalidToken, MultiFernet
from sqlalchemy import select, update
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from bot.errors import ConfigError
from bot.store.models import SEALED_COLUMNS, SLACK_BOTS, SLACK_INSTALLATIONS

VARIABLE = "ERRKB_ENCRYPTION_KEY"
SEALED_PREFIX = "gAAAAA"
GENERATE = 'python -c "from cryptography.fernet import Fernet; print(Fernet.generate_key().decode())"'


def is_sealed(value: str) -> bool:
    """Whether ``value`` is a Fernet token (ciphertext) rather than a plain Slack token."""
    return value.startswith(SEALED_PREFIX)


class Cipher:
    """The keys of ``ERRKB_ENCRYPTION_KEY``: the first encrypts, every one decrypts."""

    def __init__(self, keys: Sequence[str]) -> None:
        if not keys:
            raise ConfigError(VARIABLE, f"not set: OAuth mode stores each workspace's Slack tokens encrypted; "
                                        f"generate a key with {GENERATE}")
        fernets = []
        for n, key in enumerate(keys, 1):
            try:
                fernets.append(Fernet(key.encode()))
            except ValueError:  # binascii.Error included
                which = "the key" if len(keys) == 1 else f"key {n} of {len(keys)}"
                raise ConfigError(VARIABLE, f"{which} is not a Fernet key (32 bytes in URL-safe base64, 44 "
                                            f"characters); generate one with {GENERATE}") from None
        self.count = len(fernets)
        self._keys = MultiFernet(fernets)

    @classmethod
    def from_setting(cls, value: str | None) -> Cipher:
        """The cipher for ``ERRKB_ENCRYPTION_KEY``'s ``value``; :class:`ConfigError` naming it if it is missing
        or malformed."""
        return cls([key.strip() for key in (value or "").split(",") if key.strip()])

    def seal(self, value: str | None) -> str | None:
        """``value`` encrypted with the first key; None, empty and already encrypted values as they are."""
        if not value or is_sealed(value):
            return value
        return self._keys.encrypt(value.encode()).decode()

    def unseal(self, value: str | None) -> str | None:
        """``value`` decrypted; a plain value (stored by an errkb that did not encrypt yet) as it is."""
        if not value or not is_sealed(value):
            return value
        try:
            return self._keys.decrypt(value.encode()).decode()
        except InvalidToken:
            raise self.wrong_key() from None

    def reseal(self, value: str | None) -> str | None:
        """``value`` encrypted with the first key, whichever key it was encrypted with (or none)."""
        if not value or not is_sealed(value):
            return self.seal(value)
        try:
            return self._keys.rotate(value.encode()).decode()
        except InvalidToken:
            raise self.wrong_key() from None

    def wrong_key(self) -> ConfigError:
        given = "the key given is not" if self.count == 1 else f"none of the {self.count} keys given is"
        return ConfigError(VARIABLE, f"{given} the one the stored Slack tokens were encrypted with; set the key "
                                     "they were encrypted with (put a new key in front of it, comma-separated, "
                                     "until `errkb db rotate-key` has run)")


@dataclass(frozen=True)
class Sealed:
    """What a pass over the stored tokens did (counts of values, not rows)."""

    encrypted: int = 0  # were plain text, now encrypted
    rotated: int = 0  # were encrypted, now encrypted with the first key
    checked: int = 0  # were encrypted, and a key decrypts them


async def _seal_all(conn: AsyncConnection, cipher: Cipher, rotate: bool) -> Sealed:
    encrypted = rotated = checked = 0
    for table in (SLACK_INSTALLATIONS, SLACK_BOTS):
        columns = [table.c[name] for name in SEALED_COLUMNS[table.name]]
        for row in (await conn.execute(select(table.c.id, *columns).order_by(table.c.id))).mappings():
            changed = {}
            for column in columns:
                value = row[column.name]
                if not value:
                    continue
                if not is_sealed(value):
                    changed[column.name] = cipher.seal(value)
                    encrypted += 1
                elif rotate:
                    changed[column.name] = cipher.reseal(value)
                    rotated += 1
                else:
                    cipher.unseal(value)  # the wrong key fails here, at start, not at the first request
                    checked += 1
            if changed:  # unless another process changed the row meanwhile (it sealed or rotated it too)
                same = [table.c[name] == row[name] for name in changed]
                await conn.execute(update(table).where(table.c.id == row["id"], *same).values(changed))
    return Sealed(encrypted, rotated, checked)


async def seal_tokens(engine: AsyncEngine, cipher: Cipher, rotate: bool = False) -> Sealed:
    """Encrypt every plain token in the OAuth tables and check that ``cipher`` decrypts the others (``rotate``:
    re-encrypt those with its first key), in one transaction. Idempotent; :class:`ConfigError` if a stored
    token was encrypted with none of the keys. ``engine``: the store's (``Store.engine``)."""
    async with engine.begin() as conn:
        return await _seal_all(conn, cipher, rotate)
