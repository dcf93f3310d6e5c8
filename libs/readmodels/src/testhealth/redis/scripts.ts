import { LuaScript } from '../../redis/script';

/**
 * Writes part of a folded batch, provided the checkpoint still holds ARGV[1]; moves it to ARGV[2]
 * unless that is ''. Several calls make one batch (an upload can touch 100,000 tests), so each
 * test's writes are also guarded by the position stored in front of its document: a test already
 * at or past that position (another writer got there, or a replay) is left alone, along with its
 * run and index ops. Returns 1, or 0 when the checkpoint moved.
 *
 * Ops after ARGV[2]: T <key#> <pos> <doc> (opens a guarded test) | E (ends it: following ops are
 * unguarded) | L <key#> <run> <max> | Z <key#> <score> <member> | R <key#> <member> |
 * H <key#> <field> <value> | S <key#> <member> | P <hash#> <zset#> <cutoff>.
 */
export const APPLY_TEST_HEALTH = new LuaScript(`
local current = redis.call('GET', KEYS[1]) or ''
if current ~= ARGV[1] then return 0 end
local skip = false
local i = 3
local n = #ARGV
while i <= n do
  local op = ARGV[i]
  if op == 'T' then
    local key = KEYS[tonumber(ARGV[i + 1])]
    local stored = redis.call('GET', key)
    skip = stored ~= false and string.sub(stored, 1, 20) >= ARGV[i + 2]
    if not skip then redis.call('SET', key, ARGV[i + 2] .. ARGV[i + 3]) end
    i = i + 4
  elseif op == 'E' then
    skip = false
    i = i + 1
  elseif op == 'L' then
    if not skip then
      local key = KEYS[tonumber(ARGV[i + 1])]
      redis.call('RPUSH', key, ARGV[i + 2])
      redis.call('LTRIM', key, -tonumber(ARGV[i + 3]), -1)
    end
    i = i + 4
  elseif op == 'Z' then
    if not skip then redis.call('ZADD', KEYS[tonumber(ARGV[i + 1])], ARGV[i + 2], ARGV[i + 3]) end
    i = i + 4
  elseif op == 'R' then
    if not skip then redis.call('ZREM', KEYS[tonumber(ARGV[i + 1])], ARGV[i + 2]) end
    i = i + 3
  elseif op == 'H' then
    redis.call('HSET', KEYS[tonumber(ARGV[i + 1])], ARGV[i + 2], ARGV[i + 3])
    i = i + 4
  elseif op == 'S' then
    redis.call('SADD', KEYS[tonumber(ARGV[i + 1])], ARGV[i + 2])
    i = i + 3
  elseif op == 'P' then
    local hash = KEYS[tonumber(ARGV[i + 1])]
    local zset = KEYS[tonumber(ARGV[i + 2])]
    local old = redis.call('ZRANGEBYSCORE', zset, '-inf', '(' .. ARGV[i + 3])
    for _, field in ipairs(old) do
      redis.call('HDEL', hash, field)
      redis.call('ZREM', zset, field)
    end
    i = i + 4
  else
    return redis.error_reply('unknown op ' .. tostring(op))
  end
end
if ARGV[2] ~= '' then redis.call('SET', KEYS[1], ARGV[2]) end
return 1
`);
