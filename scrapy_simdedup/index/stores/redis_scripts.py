"""The Lua scripts behind ``RedisStore``'s atomic steps (``stores/atomic.py``).

Redis runs a script alone: no other command of any client runs between its first read and
its last write, and its writes reach the append-only file and replicas as one ``MULTI``
block (all or none after a crash). Every script gets ``KEYS[1]`` (the sorted set of keys)
and ``KEYS[2]`` (the hash of values), which share one hash tag, so they sit in one slot;
which kind of key goes in which is ``redis_layout``'s rule, shared with the Python side.

Arguments are flat: a guarded write is ``#expect, (key, "1" value | "0" ""), #puts, (key,
value)..., #deletes, key..., counter, delta``. Lua numbers are doubles, so Hamming
distance is taken byte by byte and an 8-byte count stays exact below 2**53.
"""

from __future__ import annotations

from scrapy_simdedup.index.stores import redis_layout

COUNTS = """
-- An 8-byte big-endian count, as bytes and back (0 for none).
local function count_bytes(n)
  local out = {}
  for b = 8, 1, -1 do
    out[b] = string.char(n % 256)
    n = math.floor(n / 256)
  end
  return table.concat(out)
end

local function count_of(raw)
  local n = 0
  if raw then
    for b = 1, #raw do n = n * 256 + string.byte(raw, b) end
  end
  return n
end
"""

_WRITE = (
    redis_layout.LUA
    + COUNTS
    + """
-- The guarded write starting at ARGV[i]: false when an expectation fails (nothing written).
local function guarded_write(i)
  local n = tonumber(ARGV[i]); i = i + 1
  for _ = 1, n do
    local current = value_of(ARGV[i])
    if ARGV[i + 1] == '0' then
      if current then return false end
    elseif current ~= ARGV[i + 2] then
      return false
    end
    i = i + 3
  end
  local puts = tonumber(ARGV[i]); i = i + 1
  local first_put = i
  i = i + 2 * puts
  local deletes = tonumber(ARGV[i]); i = i + 1
  for _ = 1, deletes do
    remove(ARGV[i])
    i = i + 1
  end
  for p = 0, puts - 1 do
    put(ARGV[first_put + 2 * p], ARGV[first_put + 2 * p + 1])
  end
  local counter, delta = ARGV[i], tonumber(ARGV[i + 1])
  if counter ~= '' and delta ~= 0 then
    local n = count_of(redis.call('HGET', KEYS[2], counter))
    put(counter, count_bytes(math.max(0, n + delta)))
  end
  return true
end
"""
)

WRITE_IF = (
    _WRITE
    + """
if guarded_write(1) then return 1 end
return 0
"""
)

# ARGV: counter, prefix, value, keep. Returns the entry's number.
APPEND = (
    _WRITE
    + """
local n = count_of(redis.call('HGET', KEYS[2], ARGV[1])) + 1
put(ARGV[1], count_bytes(n))
put(ARGV[2] .. count_bytes(n), ARGV[3])
local gone = n - tonumber(ARGV[4])
if gone >= 1 then remove(ARGV[2] .. count_bytes(gone)) end
return n
"""
)

PUT_ABSENT = (
    redis_layout.LUA
    + """
local present = {}
for i = 1, #ARGV, 2 do
  local current = value_of(ARGV[i])
  if current then
    present[#present + 1] = ARGV[i]
    present[#present + 1] = current
  else
    put(ARGV[i], ARGV[i + 1])
  end
end
return present
"""
)

# ARGV: low (inclusive), high (exclusive), count. A chunk of a range read in one step, so a
# key removed meanwhile is never returned: {keys read, last key read, key, value, ...},
# values as ``value_of`` reads them.
SCAN = (
    redis_layout.LUA
    + """
local keys = redis.call('ZRANGEBYLEX', KEYS[1], ARGV[1], ARGV[2], 'LIMIT', 0, tonumber(ARGV[3]))
local out = {#keys, keys[#keys] or ''}
if #keys == 0 then return out end
local values = redis.call('HMGET', KEYS[2], unpack(keys))
for k = 1, #keys do
  local value = values[k]
  if not value and is_entry(keys[k]) then value = '' end
  if value then  -- a key without a value is a table entry, or nothing anyone wrote
    out[#out + 1] = keys[k]
    out[#out + 1] = value
  end
end
return out
"""
)

DISTANCE = """
-- The bits between the 8 bytes of key at offset and query, counted until past limit.
local function distance(key, offset, query, limit)
  local d = 0
  for b = 0, 7 do
    local x = bit.bxor(string.byte(key, offset + b), string.byte(query, b + 1))
    while x ~= 0 do
      x = bit.band(x, x - 1)
      d = d + 1
    end
    if d > limit then return d end
  end
  return d
end
"""

_NEAR = (
    DISTANCE
    + """
local limit, bucket = tonumber(ARGV[1]), tonumber(ARGV[2])
local offset, documents = tonumber(ARGV[3]), ARGV[4]
local i = 6
local distances, names = {}, {}
local overflow, malformed = 0, 0
for _ = 1, tonumber(ARGV[5]) do
  local query = ARGV[i + 2]
  local keys = redis.call(
    'ZRANGEBYLEX', KEYS[1], '[' .. ARGV[i], '(' .. ARGV[i + 1], 'LIMIT', 0, bucket + 1)
  i = i + 3
  if #keys > bucket then overflow = overflow + 1 end
  for k = 1, math.min(#keys, bucket) do
    local key = keys[k]
    if #key < offset + 7 then
      malformed = malformed + 1
    else
      local d = distance(key, offset, query, limit)
      if d <= limit then
        local name = string.sub(key, offset + 8)
        if distances[name] == nil then names[#names + 1] = name end
        distances[name] = d
      end
    end
  end
end
local out = {overflow, malformed, 0}
for _, name in ipairs(names) do
  local record = redis.call('HGET', KEYS[2], documents .. name)
  if record then
    out[#out + 1] = name
    out[#out + 1] = distances[name]
    out[#out + 1] = record
  end
end
"""
)

# ARGV: limit, max bucket, offset (1-based), documents prefix, #ranges, (start, stop, query)...,
# then a guarded write. Returns {overflowed ranges, malformed keys, written (0/1),
# (name, distance, record)...}.
NEAR_OR_WRITE = (
    _WRITE
    + _NEAR
    + """
if #out == 3 and guarded_write(i) then out[3] = 1 end
return out
"""
)

# The hot path's short form of NEAR_OR_WRITE for a page not stored yet (half the arguments,
# no table key sent twice). ARGV as NEAR_OR_WRITE up to the ranges, then name, record,
# counter, #judged, the judged pages' names (found before and confirmed not to be copies:
# they neither hold the page back nor come back), then the page's claims (its
# sentence-owner keys). When nothing is near, a claim
# held by another stored document is returned as (owner, -1, record). Writes only when
# nothing is near, no claim is held and ``documents .. name`` is absent: the record, per
# table the range's head (the start key without its last 8 bytes) .. query .. name, and
# ``name`` as each claim's owner. A page and the near or sharing page it races with are so
# never both added by this step: the later one sees the earlier (``index/shared.py``).
NEAR_OR_ADD = (
    COUNTS
    + _NEAR
    + """
local name, record, counter = ARGV[i], ARGV[i + 1], ARGV[i + 2]
local key = documents .. name
local judged = {}  -- pages the caller already confirmed this one against: no reason to wait
local first_claim = i + 4 + tonumber(ARGV[i + 3])
for g = i + 4, first_claim - 1 do judged[ARGV[g]] = true end
if first_claim > i + 4 then
  local unjudged = {out[1], out[2], out[3]}
  for j = 4, #out, 3 do
    if not judged[out[j]] then
      unjudged[#unjudged + 1] = out[j]
      unjudged[#unjudged + 1] = out[j + 1]
      unjudged[#unjudged + 1] = out[j + 2]
    end
  end
  out = unjudged
end
if #out == 3 then  -- nothing near: the owners of the page's sentences, once each
  local seen = {}
  for c = first_claim, #ARGV do
    for _, tier in ipairs({ARGV[c], ARGV[c] .. '\1'}) do  -- its first and second owners
      local owner = redis.call('HGET', KEYS[2], tier)
      if owner and owner ~= name and not seen[owner] and not judged[owner] then
        seen[owner] = true
        local owned = redis.call('HGET', KEYS[2], documents .. owner)
        if owned then
          out[#out + 1] = owner
          out[#out + 1] = -1
          out[#out + 1] = owned
        end
      end
    end
  end
end
if #out == 3 and redis.call('HEXISTS', KEYS[2], key) == 0 then
  local members, fields = {0, key}, {key, record}
  for r = 6, 5 + 3 * tonumber(ARGV[5]), 3 do  -- table entries: in the sorted set alone
    members[#members + 1] = 0
    members[#members + 1] = string.sub(ARGV[r], 1, offset - 1) .. ARGV[r + 2] .. name
  end
  local raw = redis.call('HGET', KEYS[2], counter)
  if not raw then  -- the first count: its key goes in the sorted set too
    members[#members + 1] = 0
    members[#members + 1] = counter
  end
  fields[#fields + 1] = counter
  fields[#fields + 1] = count_bytes(count_of(raw) + 1)
  redis.call('ZADD', KEYS[1], unpack(members))
  redis.call('HSET', KEYS[2], unpack(fields))
  for c = first_claim, #ARGV do  -- sentence owners: in the hash alone (redis_layout)
    if redis.call('HSETNX', KEYS[2], ARGV[c], name) == 0
        and redis.call('HGET', KEYS[2], ARGV[c]) ~= name then  -- another's: the second owner
      redis.call('HSETNX', KEYS[2], ARGV[c] .. '\1', name)
    end
  end
  out[3] = 1
end
return out
"""
)
