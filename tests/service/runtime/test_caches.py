"""The in-process caches: fresh for ``ttl``, then reloaded in the background while the old value serves."""

from __future__ import annotations

import asyncio

from bot.service.runtime.caches import Expiring


class Clock:
    now = 0.0

    def __call__(self) -> float:
        return self.now


async def test_fresh_then_stale_while_reloading_then_loaded_again():
    clock, loads = Clock(), []

    async def load() -> int:
        loads.append(clock.now)
        await asyncio.sleep(0.01)
        return len(loads)

    cache: Expiring[str, int] = Expiring(ttl=5, clock=clock, stale=60)
    assert await cache.get("k", load) == 1
    clock.now = 4
    assert await cache.get("k", load) == 1 and loads == [0]  # fresh: no load
    clock.now = 6
    assert await cache.get("k", load) == 1  # expired: the old value at once…
    await asyncio.sleep(0.05)
    assert await cache.get("k", load) == 2 and loads == [0, 6]  # …and the new one next time
    clock.now = 100
    assert await cache.get("k", load) == 3  # too old to serve: the caller waits for the load


async def test_forget_makes_the_next_get_load():
    clock = Clock()
    values = iter([1, 2])

    async def load() -> int:
        return next(values)

    cache: Expiring[str, int] = Expiring(ttl=5, clock=clock, stale=60)
    assert await cache.get("k", load) == 1
    cache.forget("k")
    assert await cache.get("k", load) == 2


async def test_never_holds_more_than_its_size_and_the_least_recently_used_goes_first():
    cache: Expiring[int, str] = Expiring(ttl=60.0, size=100)
    for k in range(200):
        await cache.get(k, lambda k=k: _value(f"v{k}"))
        if k == 150:
            assert cache.peek(60) == (True, "v60")  # used again: kept over newer ones
        assert len(cache) <= 100
    assert len(cache) == 100 and cache.peek(60) == (True, "v60") and cache.peek(101) == (True, "v101")
    assert cache.peek(61) == (False, None) and cache.peek(100) == (False, None)


async def _value(text: str) -> str:
    return text


async def test_keys_falling_due_together_are_reloaded_in_one_call():
    clock, calls = Clock(), []

    async def load() -> str:
        return "first"

    async def reload_many(keys: list[str]) -> dict[str, str]:
        calls.append(sorted(keys))
        return {k: "fresh" for k in keys}

    cache: Expiring[str, str] = Expiring(ttl=5, clock=clock, stale=60, reload_many=reload_many, gather=0.01)
    for key in "abc":
        assert await cache.get(key, load) == "first"
    clock.now = 6
    assert [await cache.get(key, load) for key in "abc"] == ["first"] * 3  # stale values at once…
    await asyncio.sleep(0.05)
    assert calls == [["a", "b", "c"]]  # …one reload for the three
    assert [await cache.get(key, load) for key in "abc"] == ["fresh"] * 3
