"""The Lua scripts of a sharded Redis store's look-up-and-add (``redis_sharded.py``).

Each script runs on one shard (``KEYS[1]`` its sorted set, ``KEYS[2]`` its hash) and is
atomic there. A page's pending state is one hash value: ``"P"``, its sequence number
(``NUMBER`` bytes, compared byte by byte), when it began (8 bytes, milliseconds of the
server's clock), then the pages that
asked it to wait for them, each ``distance + 1`` (one byte; 0 for a shared sentence), the
name's length (4 bytes) and the name.
"""

from __future__ import annotations

from scrapy_simdedup.index.stores.redis_scripts import COUNTS, DISTANCE

NUMBER = 12
"""Bytes of a sequence number: the worker's clock in nanoseconds (8) and 4 random bytes. Any
total order of pending pages will do (``redis_sharded``); this one needs no round trip."""
HEADER = 1 + NUMBER + 8
"""Bytes of a pending state before its waiters."""
_NUMBERED = f"""
local NUMBER_END, CLOCK_END = {1 + NUMBER}, {HEADER}
local function number_of(state) return string.sub(state, 2, NUMBER_END) end
local function began(state) return count_of(string.sub(state, NUMBER_END + 1, CLOCK_END)) end
-- Whether sequence number a comes before b (byte by byte: no locale in between).
local function before(a, b)
  for i = 1, #a do
    local x, y = string.byte(a, i), string.byte(b, i)
    if x ~= y then return x < y end
  end
  return false
end
"""

_CLOCK = (
    COUNTS
    + _NUMBERED
    + """
pcall(redis.replicate_commands)  -- Redis before 7: the clock read below, then writes
local function now_ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
"""
)

# ARGV: record key, pending key, sequence number. 0: the page is stored (nothing begun);
# 1: it is pending under this number (a retried call finds it so already).
BEGIN = (
    _CLOCK
    + """
if redis.call('HEXISTS', KEYS[2], ARGV[1]) == 1 then return 0 end
local current = redis.call('HGET', KEYS[2], ARGV[2])
if current and number_of(current) == ARGV[3] then return 1 end
redis.call('HSET', KEYS[2], ARGV[2], 'P' .. ARGV[3] .. count_bytes(now_ms()))
return 1
"""
)

# ARGV: limit, max bucket, offset (1-based, of the permuted SimHash in an entry), name,
# insert (0/1), #ranges, (start, stop, query)... Reads each bucket, then (insert) puts the
# page's entry in it. Returns {overflowed ranges, malformed keys, (name, distance)...}, the
# page's own name left out when inserting.
TABLES = (
    DISTANCE
    + """
local limit, bucket, offset = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local own, insert = ARGV[4], ARGV[5] == '1'
local distances, names = {}, {}
local overflow, malformed = 0, 0
local i = 7
for _ = 1, tonumber(ARGV[6]) do
  local start, stop, query = ARGV[i], ARGV[i + 1], ARGV[i + 2]
  i = i + 3
  local keys = redis.call('ZRANGEBYLEX', KEYS[1], '[' .. start, '(' .. stop, 'LIMIT', 0, bucket + 1)
  if #keys > bucket then overflow = overflow + 1 end
  for k = 1, math.min(#keys, bucket) do
    local key = keys[k]
    if #key < offset + 7 then
      malformed = malformed + 1
    else
      local d = distance(key, offset, query, limit)
      local name = string.sub(key, offset + 8)
      if d <= limit and not (insert and name == own) then
        if distances[name] == nil then names[#names + 1] = name end
        if distances[name] == nil or d < distances[name] then distances[name] = d end
      end
    end
  end
  if insert then
    redis.call('ZADD', KEYS[1], 0, string.sub(start, 1, offset - 1) .. query .. own)
  end
end
local out = {overflow, malformed}
for _, name in ipairs(names) do
  out[#out + 1] = name
  out[#out + 1] = distances[name]
end
return out
"""
)

# ARGV: name, #passed, passed names..., claim keys... Each claim not held yet, or held by a
# passed page (found neither stored nor pending: it withdrew, or its worker died), is taken;
# held by another, its second owner's place (the key followed by 1) is taken so. Returns the
# other holders of either.
CLAIM = """
local passed = {}
local first = 3 + tonumber(ARGV[2])
for p = 3, first - 1 do passed[ARGV[p]] = true end
local out, seen = {}, {}
for c = first, #ARGV do
  local taken = false  -- the first owner's place, else the second's (keyspace.SECOND_OWNER)
  for _, tier in ipairs({ARGV[c], ARGV[c] .. '\1'}) do
    local owner = redis.call('HGET', KEYS[2], tier)
    if owner == ARGV[1] then
      taken = true
    elseif not taken and (not owner or passed[owner]) then
      redis.call('HSET', KEYS[2], tier, ARGV[1])
      taken = true
    elseif owner and not seen[owner] then
      seen[owner] = true
      out[#out + 1] = owner
    end
  end
end
return out
"""

# ARGV: name, successor, claim keys... The first owners' places the page still holds pass to
# the successor (the stored page it was found a copy of), or are given back when there is
# none; second owners' places are given back (the successor had the sentence first, or not
# at all).
UNCLAIM = """
for c = 3, #ARGV do
  if redis.call('HGET', KEYS[2], ARGV[c]) == ARGV[1] then
    if ARGV[2] == '' then
      redis.call('HDEL', KEYS[2], ARGV[c])
    else
      redis.call('HSET', KEYS[2], ARGV[c], ARGV[2])
    end
  end
  local second = ARGV[c] .. '\1'  -- a second owner's place is never passed on
  if redis.call('HGET', KEYS[2], second) == ARGV[1] then redis.call('HDEL', KEYS[2], second) end
end
return 0
"""

# ARGV: the candidate's record key, its pending key, the asker's sequence number, a waiter
# entry naming the asker (or '' to ask nothing), stale after (ms). Returns {1, record}: the
# candidate is stored; {0}: it is not, nor pending (a pending state older than the stale
# limit is removed: its worker died); {2}: it is pending with a lower number (the asker
# waits); {3}: pending with a higher number, and it now waits for the asker (the entry is
# appended to its state).
RESOLVE = (
    _CLOCK
    + """
local record = redis.call('HGET', KEYS[2], ARGV[1])
if record then return {1, record} end
local state = redis.call('HGET', KEYS[2], ARGV[2])
if not state then return {0} end
if now_ms() - began(state) > tonumber(ARGV[5]) then
  redis.call('HDEL', KEYS[2], ARGV[2])
  return {0}
end
if before(number_of(state), ARGV[3]) then return {2} end
if ARGV[4] ~= '' then redis.call('HSET', KEYS[2], ARGV[2], state .. ARGV[4]) end
return {3}
"""
)

# ARGV: record key, pending key, sequence number, record, waiter bytes already handled.
# Returns {1}: stored now (the pending state is gone; or was, by this very call, which
# redis-py sent again when its reply was lost); {2, waiters}: pages that asked it to
# wait since (their entries, unparsed); {0}: the pending state is gone or another's.
SETTLE = (
    COUNTS
    + _NUMBERED
    + """
local state = redis.call('HGET', KEYS[2], ARGV[2])
if not state and redis.call('HGET', KEYS[2], ARGV[1]) == ARGV[4] then return {1} end  -- retried
if not state or number_of(state) ~= ARGV[3] then return {0} end
local handled = CLOCK_END + tonumber(ARGV[5])
if #state > handled then return {2, string.sub(state, handled + 1)} end
redis.call('HDEL', KEYS[2], ARGV[2])
redis.call('ZADD', KEYS[1], 0, ARGV[1])  -- a record is in both (redis_layout)
redis.call('HSET', KEYS[2], ARGV[1], ARGV[4])
return {1}
"""
)

# ARGV: pending key, sequence number. The page will not be stored: its state goes. Returns
# the pages that had asked it to wait (their entries, unparsed).
ABANDON = (
    COUNTS
    + _NUMBERED
    + """
local state = redis.call('HGET', KEYS[2], ARGV[1])
if state and number_of(state) == ARGV[2] then
  redis.call('HDEL', KEYS[2], ARGV[1])
  return string.sub(state, CLOCK_END + 1)
end
return ''
"""
)

# ARGV: keys. Each goes from the sorted set and the hash.
REMOVE = """
for k = 1, #ARGV do
  redis.call('ZREM', KEYS[1], ARGV[k])
  redis.call('HDEL', KEYS[2], ARGV[k])
end
return 0
"""
