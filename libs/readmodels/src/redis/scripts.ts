import { LuaScript } from './script';

/**
 * Applies a folded batch only if the checkpoint still holds the value the batch was folded from, then
 * moves it. That compare-and-set is what keeps two writers (a rolling deploy, a lease that expired
 * mid-batch) from interleaving: the loser re-reads and folds again.
 *
 * KEYS[1] checkpoint, KEYS[2..] touched keys. ARGV[1] expected checkpoint ('' = none), ARGV[2] new
 * checkpoint, then ops: S <key#> <value> | D <key#> | Z <key#> <score> <member> | R <key#> <member> | H <key#> <field> <value>
 * | X <key#> <field> (HDEL) | T <hash#> <zset#> <score>: the members of the sorted set scored below
 * `score` leave it and the hash (the metrics' old failures, D312).
 * Every key is passed in KEYS, none is built in the script, so it stays correct on a cluster.
 */
export const APPLY_BATCH = new LuaScript(`
local current = redis.call('GET', KEYS[1]) or ''
if current ~= ARGV[1] then return 0 end
local i = 3
local n = #ARGV
while i <= n do
  local op = ARGV[i]
  local key = KEYS[tonumber(ARGV[i + 1])]
  if op == 'S' then
    redis.call('SET', key, ARGV[i + 2])
    i = i + 3
  elseif op == 'D' then
    redis.call('DEL', key)
    i = i + 2
  elseif op == 'Z' then
    redis.call('ZADD', key, ARGV[i + 2], ARGV[i + 3])
    i = i + 4
  elseif op == 'R' then
    redis.call('ZREM', key, ARGV[i + 2])
    i = i + 3
  elseif op == 'H' then
    redis.call('HSET', key, ARGV[i + 2], ARGV[i + 3])
    i = i + 4
  elseif op == 'X' then
    redis.call('HDEL', key, ARGV[i + 2])
    i = i + 3
  elseif op == 'T' then
    local zset = KEYS[tonumber(ARGV[i + 2])]
    local below = '(' .. ARGV[i + 3]
    local old = redis.call('ZRANGEBYSCORE', zset, '-inf', below)
    -- unpack takes a few thousand values at most: delete in slices.
    for j = 1, #old, 1000 do
      redis.call('HDEL', key, unpack(old, j, math.min(j + 999, #old)))
    end
    redis.call('ZREMRANGEBYSCORE', zset, '-inf', below)
    i = i + 4
  else
    return redis.error_reply('unknown op ' .. tostring(op))
  end
end
redis.call('SET', KEYS[1], ARGV[2])
return 1
`);

/** Deletes KEYS[1] only while it still holds ARGV[1]. */
export const DELETE_IF_EQUALS = new LuaScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`);

/** Extends KEYS[1] by ARGV[2] ms only while it still holds ARGV[1]. */
export const EXTEND_IF_EQUALS = new LuaScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0
`);

/**
 * Stores an answer built on read only while KEYS[1] (the queue's answer version) still holds ARGV[1]
 * ('' = absent), so a build from documents a batch has since changed is never kept. KEYS[2] the answer:
 * with ARGV[2] alone a string (SET), with ARGV[2] field and ARGV[3] value a hash field (HSET). 1 when stored.
 */
export const STORE_IF_UNCHANGED = new LuaScript(`
if (redis.call('GET', KEYS[1]) or '') ~= ARGV[1] then return 0 end
if ARGV[3] then
  redis.call('HSET', KEYS[2], ARGV[2], ARGV[3])
else
  redis.call('SET', KEYS[2], ARGV[2])
end
return 1
`);

/**
 * One PR's answer inputs in one atomic read: KEYS[1] the queue document, KEYS[2] the PR document,
 * KEYS[3] the queue's active set, KEYS[4] the queue's answer version; ARGV[1] the PR number, ARGV[2]
 * how many PRs ahead to name. Returns the two documents, the PR's rank in the active set (nil when
 * absent), the first PRs ahead of it and the answer version.
 */
export const READ_PR_PLACE = new LuaScript(`
local queue = redis.call('GET', KEYS[1])
local pr = redis.call('GET', KEYS[2])
local rank = redis.call('ZRANK', KEYS[3], ARGV[1])
local first = {}
if rank and rank > 0 then
  first = redis.call('ZRANGE', KEYS[3], 0, math.min(rank, tonumber(ARGV[2])) - 1)
end
return {queue, pr, rank, first, redis.call('GET', KEYS[4]) or ''}
`);
