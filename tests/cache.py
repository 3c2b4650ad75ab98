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
    keys = list(client.scan_iter(match=cache.make_key("*"), count=1000))  # "<prefix>:<version>:*"
    if keys:
        client.delete(*keys)
