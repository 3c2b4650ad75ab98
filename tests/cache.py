"""Forgetting this test process's cache keys, and only those.

``cache.clear()`` on Django's Redis cache is ``FLUSHDB``: it would wipe every
pytest-xdist worker's counters (a throttle test in another worker would see its
count vanish mid-test) and any server's keys on the shared Redis. Each test process
has a key prefix of its own (``CHANNELS_PREFIX``, tests/conftest.py); this deletes
the keys under it.
"""

from __future__ import annotations


def clear_cache() -> None:
    from django.core.cache import caches
    from django.core.cache.backends.redis import RedisCache

    cache = caches["default"]  # the backend itself (django.core.cache.cache is a proxy)

    if not isinstance(cache, RedisCache):
        cache.clear()  # this process's memory
        return
    client = cache._cache.get_client(write=True)
    pattern = cache.make_key("*")  # "<prefix>:<version>:*": the cache's keys only
    batch: list[bytes] = []
    for key in client.scan_iter(match=pattern, count=1000):
        batch.append(key)
        if len(batch) >= 1000:
            client.delete(*batch)
            batch.clear()
    if batch:
        client.delete(*batch)
