"""Small in-process caches whose entries expire within seconds, so several processes converge."""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Hashable
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class Expiring(Generic[K, V]):
    """A bounded LRU map whose values expire ``ttl`` seconds after they were loaded."""

    def __init__(self, ttl: float, size: int = 10_000, clock: Callable[[], float] = time.monotonic) -> None:
        self.ttl = ttl
        self.size = size
        self.clock = clock
        self._items: OrderedDict[K, tuple[float, V]] = OrderedDict()

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
        value = await load()
        self.put(key, value)
        return value

    def forget(self, key: K) -> None:
        self._items.pop(key, None)

    def clear(self) -> None:
        self._items.clear()
