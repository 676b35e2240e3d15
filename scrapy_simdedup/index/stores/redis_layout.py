"""Where the Redis store keeps each kind of key: in the sorted set, the hash, or both.

A key in the sorted set can be found by range (``ZRANGEBYLEX``); a key in the hash has a
value. Most kinds need both, but the two biggest kinds of a page need one each, and each
copy of a key costs Redis 110-180 bytes (measured on redis-server 7 with 100,000 keys):

* a table entry (``TABLE``) is only ever found by range and its value is empty: it lives
  in the sorted set alone (131 bytes a page's entry saved, 8 entries a page with the URL
  index). Given a non-empty value, it is kept like any other key;
* a sentence or exact-text owner (``SENTENCE``, ``EXACT``) is only ever read by its key:
  it lives in the hash alone (112 bytes saved, 5-6 a page), and a range read does not
  see it.

Stores written before this layout hold these kinds in both places too: reads take either,
and a delete removes both.
"""

from __future__ import annotations

from scrapy_simdedup.index import keyspace

ENTRY_PREFIXES = (keyspace.TABLE, *(ns + keyspace.TABLE for ns in keyspace.COMPANIONS))
"""Keys found by range only: with an empty value, in the sorted set alone."""
POINT_PREFIXES = tuple(
    ns + kind for ns in (b"", *keyspace.COMPANIONS) for kind in (keyspace.SENTENCE, keyspace.EXACT)
)
"""Keys read by their key only: in the hash alone."""


def sorted_only(key: bytes, value: bytes) -> bool:
    return not value and key.startswith(ENTRY_PREFIXES)


def hashed_only(key: bytes) -> bool:
    return key.startswith(POINT_PREFIXES)


def _lua_test(prefixes: tuple[bytes, ...]) -> str:
    tests = []
    for prefix in prefixes:
        literal = "".join("\\" + str(byte) for byte in prefix)  # Lua's decimal escapes
        tests.append(f"string.sub(key, 1, {len(prefix)}) == '{literal}'")
    return "return " + " or ".join(tests)


LUA = f"""
local function is_entry(key) {_lua_test(ENTRY_PREFIXES)} end
local function is_point(key) {_lua_test(POINT_PREFIXES)} end

-- Where a put goes (the module docstring of redis_layout.py).
local function put(key, value)
  if is_point(key) then
    redis.call('HSET', KEYS[2], key, value)
  elseif value == '' and is_entry(key) then
    redis.call('ZADD', KEYS[1], 0, key)
    redis.call('HDEL', KEYS[2], key)
  else
    redis.call('ZADD', KEYS[1], 0, key)
    redis.call('HSET', KEYS[2], key, value)
  end
end

-- A key's value, or false when it is absent.
local function value_of(key)
  local value = redis.call('HGET', KEYS[2], key)
  if value then return value end
  if is_entry(key) and redis.call('ZSCORE', KEYS[1], key) then return '' end
  return false
end

local function remove(key)
  redis.call('ZREM', KEYS[1], key)
  redis.call('HDEL', KEYS[2], key)
end
"""
"""The same rules for the scripts (``redis_scripts.py``): ``put``, ``value_of``, ``remove``."""
