"""Small in-process caches whose entries expire within seconds, so several processes converge."""

from __future__ import annotations

import asyncio
import logging
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Hashable, Mapping
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")

log = logging.getLogger(__name__)


class Expiring(Generic[K, V]):
    """A bounded LRU map whose values expire ``ttl`` seconds after they were loaded.

    With ``stale`` > 0, an expired value up to ``stale`` seconds old is still returned at once while
    a fresh one loads in the background, so a hot key never waits for its reload. With
    ``reload_many``, those background reloads are gathered for ``gather`` seconds and done in one
    call, so many keys falling due cost one read, not one each."""

    def __init__(self, ttl: float, size: int = 10_000, clock: Callable[[], float] = time.monotonic,
                 stale: float = 0.0, reload_many: Callable[[list[K]], Awaitable[Mapping[K, V]]] | None = None,
                 gather: float = 0.5) -> None:
        self.ttl = ttl
        self.size = size
        self.clock = clock
        self.stale = stale
        self.reload_many = reload_many
        self.gather = gather
        self._items: OrderedDict[K, tuple[float, V]] = OrderedDict()
        self._loading: dict[K, asyncio.Task[None]] = {}
        self._due: set[K] = set()
        self._batch: asyncio.Task[None] | None = None

    def __len__(self) -> int:
        return len(self._items)

    def peek(self, key: K) -> tuple[bool, V | None]:
        """(True, value) while ``key`` holds a fresh value, else (False, None)."""
        item = self._items.get(key)
        if item is None or item[0] < self.clock():
            return False, None
        self._items.move_to_end(key)
        return True, item[1]

    def put(self, key: K, value: V, ttl: float | None = None) -> None:
        self._items[key] = (self.clock() + (self.ttl if ttl is None else ttl), value)
        self._items.move_to_end(key)
        while len(self._items) > self.size:
            self._items.popitem(last=False)

    async def get(self, key: K, load: Callable[[], Awaitable[V]]) -> V:
        found, value = self.peek(key)
        if found:
            return value  # type: ignore[return-value]
        item = self._items.get(key)
        if item is not None and item[0] + self.stale >= self.clock():
            if self.reload_many is not None:
                self._due.add(key)
                if self._batch is None:
                    self._batch = asyncio.ensure_future(self._reload_due(self.reload_many))
            elif key not in self._loading:
                self._loading[key] = asyncio.ensure_future(self._reload(key, load))
            return item[1]
        value = await load()
        self.put(key, value)
        return value

    async def _reload(self, key: K, load: Callable[[], Awaitable[V]]) -> None:
        try:
            self.put(key, await load())
        except Exception:  # the stale value stays until it is too old; the next get loads it again
            log.warning("reloading a cached value failed", exc_info=True)
        finally:
            self._loading.pop(key, None)

    async def _reload_due(self, reload_many: Callable[[list[K]], Awaitable[Mapping[K, V]]]) -> None:
        try:
            await asyncio.sleep(self.gather)
            keys, self._due = list(self._due), set()
            for key, value in (await reload_many(keys)).items():
                self.put(key, value)
        except Exception:  # as above: the stale values stay, the next gets try again
            log.warning("reloading cached values failed", exc_info=True)
        finally:
            self._batch = None

    def forget(self, key: K) -> None:
        self._items.pop(key, None)

    def clear(self) -> None:
        self._items.clear()
